package lsp

import (
	"context"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// testSnapshot makes a snapshot of text whose base is base (nil: none).
func testSnapshot(t testing.TB, path, text string, base *check.Result) *snapshot {
	t.Helper()
	doc, err := syntax.NewDocument([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(doc.Close)
	return &snapshot{uri: protocol.DocumentURI("file://" + path), path: path, cst: doc.CST(), loader: &load.Loader{}, enc: syntax.UTF16, cache: &docCache{}, base: base}
}

// viewEdit is one random edit of the differential test: mostly edits that
// keep the file readable (the view declines the others).
func viewEdit(r *rand.Rand, text string) string {
	at := r.Intn(len(text) + 1)
	for at < len(text) && !utf8.RuneStart(text[at]) {
		at++
	}
	end := at
	var ins string
	switch r.Intn(9) {
	case 0:
		ins = " "
	case 1:
		ins = "\n"
	case 2:
		ins = "x"
	case 3: // delete a name's letter
		if at < len(text) && text[at] >= 'a' && text[at] <= 'z' {
			end = at + 1
		}
	case 4:
		ins = " (+ 1 2)"
	case 5:
		ins = "\n  ;; a note\n"
	case 6: // rename: replace a word by another
		for at > 0 && isSymbolByte(text[at-1]) {
			at--
		}
		end = at
		for end < len(text) && isSymbolByte(text[end]) {
			end++
		}
		ins = []string{"scoring", "done", "Int", "x", "review", "Text", "approve"}[r.Intn(7)]
	case 7: // duplicate a line
		ls := strings.LastIndexByte(text[:at], '\n') + 1
		le := strings.IndexByte(text[at:], '\n')
		if le < 0 {
			le = len(text) - at
		}
		at, end, ins = ls, ls, text[ls:at+le]+"\n"
	case 8: // delete a line
		ls := strings.LastIndexByte(text[:at], '\n') + 1
		le := strings.IndexByte(text[at:], '\n')
		if le >= 0 {
			at, end = ls, at+le+1
		}
	}
	return text[:at] + ins + text[end:]
}

// TestViewMatchesFullCheck is the differential test of the views requests
// read right after an edit: over every example, random edits, then
// completion, hover, definition and signature help at random positions,
// each answered from a view built on the previous full check and from a
// fresh full check of the edited text. Answers outside the edited
// declarations must be identical, and so must those inside them (counted
// apart, and logged with VIEW_DEBUG set). At least 95% of the edited versions that read
// without a syntax error must be answered without a full check.
func TestViewMatchesFullCheck(t *testing.T) { viewDifferential(t, false, false) }

// TestViewAfterSyntaxError is the differential test with the edits that
// leave a syntax error kept, and some that rename the module: the view
// answers those from the base when the errors lie inside declarations
// (read from tree-sitter's recovered tree), and every answer, inside the
// edited declarations or not, must be a full check's.
func TestViewAfterSyntaxError(t *testing.T) { viewDifferential(t, true, false) }

// TestViewOverEngineAnswer is the differential test with views built over
// an engine answer instead of a full check: the base's full check checked
// again by the engine (load.Loader.RecheckImportsAt of its own text, as
// chainView makes a document's view base after an import changed), whose
// bodies are all reused (their types, references and local symbols
// carried over). Every answer must be a full check's.
func TestViewOverEngineAnswer(t *testing.T) { viewDifferential(t, false, true) }

// viewDifferential is the differential test; withErrors keeps the edits
// that leave a syntax error and adds edits of the module's name; engine
// builds the views over the engine's answer of the base's text.
func viewDifferential(t *testing.T, withErrors, engine bool) {
	files, err := filepath.Glob("../examples/*.caps")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	// and a module shaped like the spec's, as the bench edits
	spec, err := gen.SpecShapedFrom("../examples", 600)
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(t.TempDir(), "spec_shaped.caps")
	if err := os.WriteFile(specPath, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, specPath)
	rounds, probes := 12, 30
	if testing.Short() {
		rounds, probes = 4, 10
	}
	// (the edits draw from r alone since the views of import edits were
	// added, so that which versions a view answers does not change them;
	// with errors, seed 17 then gave no read stopped early)
	seed := int64(17)
	if withErrors {
		seed = 18
	}
	// VIEW_SEED chooses another seed for the edits and VIEW_PROBE_SEED
	// one for the request positions (one source for all positions; by
	// default each version's positions come from its number), to run the differential over more seeds:
	//   VIEW_SEED=23 VIEW_PROBE_SEED=23 go test ./lsp -run TestViewMatchesFullCheck
	seed = envSeed(t, "VIEW_SEED", seed)
	var probeRand *rand.Rand
	if probeSeed := envSeed(t, "VIEW_PROBE_SEED", -1); probeSeed >= 0 {
		probeRand = rand.New(rand.NewSource(probeSeed))
	}
	r := rand.New(rand.NewSource(seed))
	var quick, versions, invalid, outSame, outAll, inSame, inAll, errVersions, errQuick, errPartial, errStopped, renamed int
	// noModule counts the versions declined because they or their base
	// have no module form when a full check finds none either (a rename
	// edit took the `module` keyword away: every later round of that
	// file starts from such a text); outside those declined because an
	// unchanged declaration or header clause stands outside the module
	// form where a full check reads it (a comment line quoting
	// `(zk-proof ...)` broken before it: every later round of that file
	// starts from such a text too)
	var noModule, outside int
	declined := map[string]int{}
	ctx := context.Background()
	requests := []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
	}{{"completion", completion}, {"hover", hover}, {"definition", definition}, {"signatureHelp", signatureHelp}}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		path, _ := filepath.Abs(file)
		text := string(src)
		clean := text // the last text without a syntax error
		for round := 0; round < rounds; round++ {
			// a base is a full check of a text that read cleanly
			text = clean
			baseSn := testSnapshot(t, path, text, nil)
			base := baseSn.Package().Result
			if engine {
				pkg, ok := baseSn.loader.RecheckImportsAt(path, base, nil, nil)
				if !ok || pkg.Result.Partial() || !pkg.Result.TreeCurrent() {
					t.Fatalf("%s: the engine gave no view base (ok %v)", filepath.Base(file), ok)
				}
				base = pkg.Result
			}
			// one to three edits since the base, as while typing; an edit
			// that leaves a syntax error is undone (the view declines those)
			for k := 1 + r.Intn(3); k > 0; k-- {
				next := viewEdit(r, text)
				if withErrors && r.Intn(8) == 0 {
					next = renameModule(next, []string{"renamed", "x", "spec_two"}[r.Intn(3)])
				}
				if testSnapshot(t, path, next, nil).cst.HasError(0) {
					invalid++
					if !withErrors {
						continue
					}
				}
				text = next
			}
			versions++
			sn := testSnapshot(t, path, text, base)
			hasErr := sn.cst.HasError(0)
			if hasErr {
				errVersions++
			} else {
				clean = text
			}
			v, why := sn.quickViewWhy()
			fresh := testSnapshot(t, path, text, nil)
			fresh.Package()
			if v == nil {
				declined[why]++
				if why == "no module form" {
					// (a view is built over a module and its units: it
					// declines a text without one, rightly when a full
					// check reads none either)
					if hasModuleForm(fresh.Package().Result) {
						t.Errorf("%s: the view declined for no module form, a full check reads one:\n%s", filepath.Base(file), text)
					} else {
						noModule++
					}
				}
				if why == "a declaration outside the module" {
					if !formOutsideModule(fresh.Package().Result) {
						t.Errorf("%s: the view declined for a declaration outside the module, a full check reads none:\n%s", filepath.Base(file), text)
					} else {
						outside++
					}
				}
				if hasErr && os.Getenv("VIEW_DEBUG") != "" {
					t.Logf("declined (%s):\n%s", why, sn.cst.Src)
				}
				continue
			}
			quick++
			if hasErr {
				errQuick++
			}
			if v.errPartial {
				// read from the edit only: the module's items are those
				// of a read of the whole text
				errPartial++
				if v.errStopped {
					errStopped++
				}
				checkErrUnits(t, filepath.Base(file), sn, v)
			}
			if v.modNameSet {
				renamed++
			}
			sn.qv.Store(v)
			sn.viewOnce.Do(func() {})
			// (the positions from a source of their own: the edits do
			// not depend on which versions a view answers)
			pr := rand.New(rand.NewSource(int64(versions)))
			if probeRand != nil {
				pr = probeRand
			}
			for p := 0; p < probes; p++ {
				off := pr.Intn(len(text) + 1)
				for off < len(text) && !utf8.RuneStart(text[off]) {
					off++
				}
				in := v.inEdit(off)
				for _, q := range requests {
					got, err1 := q.f(ctx, sn, off)
					want, err2 := q.f(ctx, fresh, off)
					if (err1 == nil) != (err2 == nil) {
						t.Fatalf("%s at %d: error %v, fresh %v", q.name, off, err1, err2)
					}
					gj, _ := json.Marshal(got)
					wj, _ := json.Marshal(want)
					same := string(gj) == string(wj)
					if in {
						inAll++
						if same {
							inSame++
						} else if os.Getenv("VIEW_DEBUG") != "" {
							t.Logf("inside: %s: %s at offset %d (-full +view):\n%s\ntext:\n%s", filepath.Base(file), q.name, off, cmp.Diff(string(wj), string(gj)), text[max(0, off-300):min(len(text), off+100)])
						}
						continue
					}
					outAll++
					if same {
						outSame++
						continue
					}
					line := strings.Count(text[:off], "\n") + 1
					if os.Getenv("VIEW_DEBUG") != "" {
						t.Logf("edited text:\n%s\n---", text[max(0, off-400):min(len(text), off+200)])
					}
					t.Errorf("%s: %s at line %d (offset %d) differs from a full check (-full +view):\n%s",
						filepath.Base(file), q.name, line, off, cmp.Diff(string(wj), string(gj)))
				}
			}
		}
	}
	if withErrors {
		t.Logf("%d of %d edited versions with a syntax error answered from the base, %d with the module renamed, %d read from the edit only (%d of them up to a declaration before the module's end)", errQuick, errVersions, renamed, errPartial, errStopped)
		if errStopped == 0 {
			t.Errorf("no version with a syntax error was read from the edit up to a declaration before the module's end")
		}
		// Most random errors unbalance a list, which then swallows the
		// rest of the module (the view declines those); on this seed 3 of
		// 36 versions with an error keep it inside one declaration.
		if errQuick == 0 || renamed == 0 {
			t.Errorf("only %d of %d versions with a syntax error were answered from the base (%d renamed)", errQuick, errVersions, renamed)
		}
	}
	t.Logf("%d of %d edited versions answered from the base, without a full check (%d edits left a syntax error; kept: %v)", quick, versions, invalid, withErrors)
	t.Logf("declined: %v", declined)
	t.Logf("outside the edited declarations: %d of %d answers identical to a full check", outSame, outAll)
	t.Logf("inside the edited declarations: %d of %d answers identical to a full check", inSame, inAll)
	if inSame != inAll {
		t.Errorf("inside the edited declarations, %d of %d answers differ from a full check (VIEW_DEBUG=1 shows them)", inAll-inSame, inAll)
	}
	// The view declines, by design, edits to the module form itself (its
	// header items, parentheses or imports) and declarations outside it;
	// on this seed they are 3 of 228 versions (a comment line broken
	// into a stray form before the module was the most frequent decline
	// until such forms were answered). A version without a module form,
	// which a full check reads none in either, has nothing a view could
	// be built over, and one with a declaration outside the module form
	// that it did not edit is declined by design: neither is counted (on
	// seeds 2, 4, 7, 25 and 60 a rename took the `module` keyword away
	// and the file's 11 to 13 later versions all had none; on seeds 13,
	// 41, 44 and 46 a comment line broken before the `(zk-proof ...)` it
	// quotes left 3 to 8 later versions with one, which the view
	// answered wrongly before it declined them; either put a seed under
	// 95%).
	t.Logf("%d versions without a module form, %d with a declaration outside it (declined, as a full check reads them)", noModule, outside)
	if !withErrors && quick*100 < (versions-noModule-outside)*95 {
		t.Errorf("only %d of %d versions with a module form and no declaration outside it were answered from the base", quick, versions-noModule-outside)
	}
}

// hasModuleForm reports whether a check read a module form: the builder
// makes the file's first form the module when no form is headed `module`.
func hasModuleForm(res *check.Result) bool {
	m := res.File.Module
	return m != nil && m.Form != nil && m.Form.Kind == syntax.FormList && m.Form.Head() == "module"
}

// formOutsideModule reports whether a check's text has a top-level form
// other than its module form that the builder reads as one of the
// module's items: a list headed by a declaration keyword or a header
// clause's (import, capsule, profile).
func formOutsideModule(res *check.Result) bool {
	m := res.File.Module
	for _, f := range res.File.Source.Forms {
		if m != nil && f == m.Form || f.Kind != syntax.FormList {
			continue
		}
		if h := f.Head(); isDeclHead(h) || h == "import" || h == "capsule" || h == "profile" {
			return true
		}
	}
	return false
}

// envSeed is the seed the environment variable name sets, def without it.
func envSeed(t *testing.T, name string, def int64) int64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: want an integer seed", name, v)
	}
	t.Logf("%s=%d", name, n)
	return n
}

// editPlace says where an edit that begins at offset p lies among the
// module's units of the version before it: in a declaration (a list
// headed by a declaration keyword), in the header (before the first
// declaration) or between declarations.
func editPlace(units []vunit, p int) string {
	first := -1
	for i, u := range units {
		if u.kind == syntax.KindList && isDeclHead(u.head) {
			if first < 0 {
				first = i
			}
			if u.span.Start < p && p < u.span.End {
				return "in a declaration"
			}
		}
	}
	if first < 0 || p <= units[first].span.Start {
		return "header"
	}
	return "between declarations"
}

// renameModule replaces the module's name in text (unchanged when it finds
// none).
func renameModule(text, name string) string {
	i := strings.Index(text, "(module ")
	if i < 0 {
		return text
	}
	i += len("(module ")
	j := i
	for j < len(text) && isSymbolByte(text[j]) {
		j++
	}
	return text[:i] + name + text[j:]
}

// TestUnitsAfterEdit types into every example and a spec-shaped module
// through one syntax.Document, as the server does, and checks that the
// units derived from the version before (unitsAfter) are the units a walk
// of the new tree cuts (moduleUnits), field for field.
func TestUnitsAfterEdit(t *testing.T) {
	files, err := filepath.Glob("../examples/*.caps")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	spec, err := gen.SpecShapedFrom("../examples", 300)
	if err != nil {
		t.Fatal(err)
	}
	texts := [][]byte{spec}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, src)
	}
	type flat struct {
		Node      int32
		Span      syntax.Span
		Kind      syntax.Kind
		Head      string
		Item      int
		Form      bool
		FormKind  syntax.FormKind
		FormSpan  syntax.Span
		FormText  string
		FormItems int
	}
	flatten := func(c *syntax.CST, us []vunit) []flat {
		out := make([]flat, len(us))
		for i, u := range us {
			out[i] = flat{Node: u.node, Span: u.span, Kind: u.kind, Head: u.head, Item: int(u.item)}
			if f, ok := formOf(c, &u); ok {
				out[i].Form, out[i].FormKind, out[i].FormSpan, out[i].FormText, out[i].FormItems = true, f.Kind, f.Span(), f.Text(), len(f.Items())
			}
			if u.changed || u.shift != 0 {
				t.Fatalf("unit %d: not a fresh unit: %+v", i, u)
			}
		}
		return out
	}
	r := rand.New(rand.NewSource(19))
	steps, derived, valid := 200, 0, 0
	where := map[string]int{}
	if testing.Short() {
		steps = 60
	}
	for _, src := range texts {
		doc, err := syntax.NewDocument(src)
		if err != nil {
			t.Fatal(err)
		}
		dc := &docCache{}
		for k := 0; k < steps; k++ {
			prev := doc.CST()
			if mod, top, units, ok := moduleUnits(prev); ok {
				dc.keepUnits(prev, mod, top, units)
			}
			text := string(doc.Text())
			next := viewEdit(r, text)
			pre := 0
			for pre < len(text) && pre < len(next) && text[pre] == next[pre] {
				pre++
			}
			suf := 0
			for suf < len(text)-pre && suf < len(next)-pre && text[len(text)-1-suf] == next[len(next)-1-suf] {
				suf++
			}
			if err := doc.Edit(pre, len(text)-suf, []byte(next[pre:len(next)-suf])); err != nil {
				t.Fatal(err)
			}
			cur := doc.CST()
			if cur.HasError(0) {
				// undone, as the view declines text with errors
				if err := doc.Replace([]byte(text)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			valid++
			// The pairing of the units with the version before, from the
			// texts' shared ends, is the pairing that compares every
			// unit's bytes: for every edit, in a declaration, between
			// declarations or in the header.
			if _, otop, ounits, ok := moduleUnits(prev); ok {
				if _, ntop, nunits, ok := moduleUnits(cur); ok {
					p, q, known := cur.CommonEnds(prev)
					if !known {
						t.Fatalf("edit %d: the tree does not know the ends it shares with the one before", k)
					}
					fo, fn := segments(otop, ounits), segments(ntop, nunits)
					so, sn := segments(otop, ounits), segments(ntop, nunits)
					matchSegments(prev.Src, cur.Src, p, q, fo, fn)
					matchSegments(prev.Src, cur.Src, 0, 0, so, sn)
					if d := cmp.Diff([][]seg{so, sn}, [][]seg{fo, fn}, cmp.AllowUnexported(seg{})); d != "" {
						t.Fatalf("edit %d: the pairing from the shared ends differs from comparing the units (-bytes +ends):\n%s", k, d)
					}
					where[editPlace(ounits, pre)]++
				}
			}
			mod, top, units, ok := dc.unitsAfter(cur)
			if !ok {
				continue
			}
			derived++
			wmod, wtop, wunits, wok := moduleUnits(cur)
			if !wok || mod != wmod {
				t.Fatalf("edit %d: derived module %d, a walk finds %d (%v)", k, mod, wmod, wok)
			}
			if d := cmp.Diff(flatten(cur, wtop), flatten(cur, top)); d != "" {
				t.Fatalf("edit %d: top-level units differ (-walk +derived):\n%s", k, d)
			}
			if d := cmp.Diff(flatten(cur, wunits), flatten(cur, units)); d != "" {
				t.Fatalf("edit %d: module units differ (-walk +derived):\n%s", k, d)
			}
		}
		doc.Close()
	}
	t.Logf("%d of %d edits that left the text without errors had their units derived from the version before", derived, valid)
	t.Logf("pairings checked against a byte comparison, by where the edit began: %v", where)
	if where["header"] == 0 || where["between declarations"] == 0 || where["in a declaration"] == 0 {
		t.Errorf("the edits missed a place: %v", where)
	}
	if derived < valid/2 {
		t.Errorf("only %d of %d edits had their units derived", derived, valid)
	}
}

// checkErrUnits checks that the units of a view of a text with a syntax
// error read from the edit only are those of a read of the whole text:
// the module's items, form by form, and the comments between them.
func checkErrUnits(t *testing.T, file string, sn *snapshot, v *view) {
	t.Helper()
	whole := wholeRead(syntax.Read(sn.cst))
	k := 0
	for i := range v.units {
		u := &v.units[i]
		if u.item < 0 {
			continue
		}
		if k >= len(whole.items) || !sameForm(whole.items[k].f, v.errForms[u.node].form(), 0) {
			t.Fatalf("%s: the module's item %d read from the edit differs from the whole text's", file, k)
		}
		k++
	}
	if k != len(whole.items) {
		t.Fatalf("%s: %d module items read from the edit, %d in the whole text", file, k, len(whole.items))
	}
	// and the comments between them, those of the whole read
	var got, want []syntax.Span
	for i := range v.units {
		if v.units[i].kind == syntax.KindComment {
			got = append(got, v.units[i].span)
		}
	}
	for _, c := range whole.comments {
		inside := c.Start < v.modSpan.Start || c.End > v.modSpan.End
		for _, it := range whole.items {
			inside = inside || it.f.Span().Start <= c.Start && c.End <= it.f.Span().End
		}
		if !inside {
			want = append(want, c)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s: the comments between the module's items read from the edit differ from the whole text's (-whole +view):\n%s", file, d)
	}
}
