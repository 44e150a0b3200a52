package check

import (
	"bytes"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/capsulang/caps/syntax/edittest"
)

// importerEdits counts what TestRecheckImportsAtMatchesCheck compared.
type importerEdits struct {
	answers, declined  int // importer answers compared, and full checks instead
	local, imports     int // of the answers: a local edit alone, imports changed
	both               int // of those: the importer's text changed too
	chained            int // answers whose base was a fast Recheck's answer
	bodies, rechecked  int
	syntaxErrors, kept int // edits left with a syntax error; unchanged importers
	exported           int // fast answers read again for their importers
}

// TestRecheckImportsAtMatchesCheck types at random into every module of
// the import graphs (the imported library and the importers, the
// generated chain three levels deep) and answers each importer, after
// every edit, from the engine alone: a local edit by Recheck over its
// last answer (so answers chain, past maxChain), an edit of a module it
// imports by RecheckImportsAt over its last answer, and both at once
// (an importer edit left unanswered while an import changes) by
// RecheckImportsAt with the importer's new text. Each answer must be a
// fresh full check's of every file, exactly; the importers' imports are
// answered by the others' engine answers, as the language server does.
func TestRecheckImportsAtMatchesCheck(t *testing.T) {
	edits := 120
	if testing.Short() {
		edits = 30
	}
	var n importerEdits
	for gi, g := range importGraphs(t) {
		r := rand.New(rand.NewSource(int64(gi + 17)))
		names := append([]string{g.lib}, g.users...)
		docs := map[string]*syntax.Document{}
		good := map[string][]byte{}
		for _, m := range names {
			src := g.userSrc[m]
			if m == g.lib {
				src = g.libSrc
			}
			d, err := syntax.NewDocument(src)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			docs[m], good[m] = d, src
		}
		// the full checks of every module's current text, in import order
		fullCheck := func() mapImporter {
			full := mapImporter{}
			for _, m := range names {
				imp := Importer(full)
				if m == g.lib {
					imp = nil
				}
				full[m] = Check(ast.Build(syntax.Read(docs[m].CST())), Options{Path: "/virtual/" + m + ".caps", Importer: imp})
			}
			return full
		}
		full := fullCheck()
		bases := map[string]*Result{}
		for _, u := range g.users {
			bases[u] = full[u]
		}
		// stale[u]: a module before u was edited since u's last answer;
		// edited[u]: u's own text was
		stale, edited := map[string]bool{}, map[string]bool{}
		for i := 0; i < edits; i++ {
			m := g.lib
			if r.Intn(2) == 0 {
				m = g.users[r.Intn(len(g.users))]
			}
			d := docs[m]
			cur := d.Text()
			start, end, text := bodyEdit(r, cur)
			if d.CST().HasError(0) && r.Intn(3) > 0 {
				start, end, text = edittest.Undo(cur, good[m])
			}
			if err := d.Edit(start, end, []byte(text)); err != nil {
				t.Fatal(err)
			}
			if !d.CST().HasError(0) {
				good[m] = d.Text()
			}
			what := fmt.Sprintf("%s: edit %d of %s [%d,%d) -> %q", g.name, i, m, start, end, text)
			after := false
			for _, u := range names {
				if u == m {
					after = true
					if u != g.lib {
						edited[u] = true
					}
				} else if after {
					stale[u] = true
				}
			}
			// now and then an importer's edit waits for the next one (the
			// server's debounce), so that its text and its imports change
			// before it is answered
			if m != g.lib && r.Intn(4) == 0 {
				continue
			}
			full = fullCheck()
			eng := mapImporter{g.lib: full[g.lib]}
			for _, u := range g.users {
				want := full[u]
				if !stale[u] && !edited[u] {
					n.kept++
					eng[u] = bases[u]
					if diff := cmp.Diff(want.Diagnostics, bases[u].Diagnostics); diff != "" {
						t.Fatalf("%s: %s kept its answer, which differs from Check (-check +kept):\n%s", what, u, diff)
					}
					continue
				}
				cst := docs[u].CST()
				if cst.HasError(0) {
					n.syntaxErrors++
					eng[u], bases[u] = want, want
					stale[u], edited[u] = false, false
					continue
				}
				base := bases[u]
				chained := base.checker != nil && base.checker.kept
				var got *Result
				var run *engineRun
				var ok bool
				if !stale[u] && r.Intn(3) > 0 {
					got, run, ok = base.recheckResult(cst)
					if ok {
						n.local++
					}
				} else {
					got, run, ok = base.recheckImportsAt(ast.Build(syntax.Read(cst)), eng)
					if ok {
						n.imports++
						if !bytes.Equal(base.File.Source.CST.Src, cst.Src) {
							n.both++
						}
					}
				}
				if !ok {
					if !base.File.Source.CST.HasError(0) {
						t.Errorf("%s: %s: the engine declined (imports changed: %v) over a base without syntax errors", what, u, stale[u])
					}
					// (a base read from text with errors may not have
					// resolved the imports: Recheck declines)
					n.declined++
					eng[u], bases[u] = want, want
					continue
				}
				stale[u], edited[u] = false, false
				n.answers++
				if chained {
					n.chained++
				}
				n.bodies += run.rechecked + run.reused
				n.rechecked += run.rechecked
				if diff := cmp.Diff(want.Diagnostics, got.Diagnostics); diff != "" {
					t.Fatalf("%s: %s: the engine's answer differs from Check (-check +engine):\n%s", what, u, diff)
				}
				if !got.Rechecks() {
					eng[u], bases[u] = want, want
					continue
				}
				// the importers of u read it as the server hands it to
				// them: importable (a fast Recheck's answer is read again)
				exp, ok := got.Importable()
				if !ok {
					t.Fatalf("%s: %s: the answer cannot answer imports", what, u)
				}
				if exp != got {
					n.exported++
					if diff := cmp.Diff(want.Diagnostics, exp.Diagnostics); diff != "" {
						t.Fatalf("%s: %s: Importable differs from Check (-check +importable):\n%s", what, u, diff)
					}
				}
				eng[u], bases[u] = exp, got
				if r.Intn(3) == 0 {
					bases[u] = exp
				}
			}
		}
	}
	t.Logf("%d importer answers by the engine (%d after local edits alone, %d after imports changed, %d of them with the importer's text changed too; %d over a fast Recheck's answer), %d full checks instead (%d importers left with a syntax error), %d importers kept, %d fast answers made importable; %s of the bodies checked again",
		n.answers, n.local, n.imports, n.both, n.chained, n.declined, n.syntaxErrors, n.kept, n.exported, pct(n.rechecked, n.bodies))
	if n.both == 0 || n.chained == 0 || n.imports == 0 {
		t.Fatalf("a case was never compared: %+v", n)
	}
}

// TestRecheckImportsAtAfterChain answers the importer mid of the
// generated three-level workspace across a run of local edits longer
// than maxChain (each a fast Recheck over the previous answer), then
// after an edit of a type it reads in the module it imports, then after
// a local edit and an import change at once: each answer is a full
// check's, and only the bodies that read what changed are checked again.
func TestRecheckImportsAtAfterChain(t *testing.T) {
	g := importGraphs(t)[3]
	libSrc := string(g.libSrc)
	full := mapImporter{g.lib: checkAs(g.lib, g.libSrc, nil)}
	for _, u := range g.users {
		full[u] = checkAs(u, g.userSrc[u], full)
	}
	mid, err := syntax.NewDocument(g.userSrc["mid"])
	if err != nil {
		t.Fatal(err)
	}
	defer mid.Close()
	// the literal 10 in uses_mid's body, typed over maxChain+4 times
	at := bytes.Index(g.userSrc["mid"], []byte("(m000.clamp_0 x 0 10)")) + len("(m000.clamp_0 x 0 ")
	base := full["mid"]
	for i := 0; i < maxChain+4; i++ {
		if err := mid.Edit(at, at+2, []byte(fmt.Sprintf("%02d", 20+i))); err != nil {
			t.Fatal(err)
		}
		got, run, ok := base.recheckResult(mid.CST())
		if !ok || !got.checker.kept {
			t.Fatalf("local edit %d: not answered by a fast Recheck (ok %v)", i, ok)
		}
		if run.rechecked != 1 {
			t.Errorf("local edit %d: %d bodies checked again, want 1", i, run.rechecked)
		}
		want := checkAs("mid", mid.Text(), full)
		if diff := cmp.Diff(want.Diagnostics, got.Diagnostics); diff != "" {
			t.Fatalf("local edit %d differs from Check (-check +engine):\n%s", i, diff)
		}
		base = got
	}
	if base.checker.depth > maxChain {
		t.Fatalf("chain depth %d: the chain was not merged", base.checker.depth)
	}
	tests := []struct {
		name string
		lib  string
		// local is the importer's own edit made with the import change
		local     func(src []byte) []byte
		rechecked map[string]int
	}{
		{"type read through mid", strings.Replace(libSrc, "(type Score U32)", "(type Score U64)", 1), nil, map[string]int{"mid": 2, "top": 1}},
		{"output type and a local edit", func() string {
			src := strings.Replace(libSrc, "(type Score U32)", "(type Score U64)", 1)
			at := strings.Index(src, "(function clamp_0")
			at += strings.Index(src[at:], "(output I64)") + len("(output ")
			return src[:at] + "Bool" + src[at+3:]
		}(), func(src []byte) []byte {
			// a body that reads nothing imported: checked again for its text
			return bytes.Replace(src, []byte("(body (m000.entry_of s))"), []byte("(body (m000.entry_of (+ s 0)))"), 1)
		}, map[string]int{"mid": 2, "top": 1}},
	}
	for _, tt := range tests {
		lib := checkAs(g.lib, []byte(tt.lib), nil)
		fresh := mapImporter{g.lib: lib}
		eng := mapImporter{g.lib: lib}
		if tt.local != nil {
			src := tt.local(mid.Text())
			if err := mid.Edit(0, len(mid.Text()), src); err != nil {
				t.Fatal(err)
			}
		}
		for _, u := range g.users {
			var cst *syntax.CST
			src, b := g.userSrc[u], full[u]
			if u == "mid" {
				cst, src, b = mid.CST(), mid.Text(), base
			}
			fresh[u] = checkAs(u, src, fresh)
			got, run, ok := b.recheckImportsAt(fileOf(cst), eng)
			if !ok {
				t.Fatalf("%s: %s: RecheckImportsAt declined", tt.name, u)
			}
			if diff := cmp.Diff(fresh[u].Diagnostics, got.Diagnostics); diff != "" {
				t.Fatalf("%s: %s differs from Check (-check +engine):\n%s", tt.name, u, diff)
			}
			if run.rechecked != tt.rechecked[u] {
				t.Errorf("%s: %s: %d bodies checked again, want %d", tt.name, u, run.rechecked, tt.rechecked[u])
			}
			if exp, ok := got.Importable(); !ok || exp != got {
				t.Fatalf("%s: %s: an answer after imports changed is not importable as it is", tt.name, u)
			}
			eng[u] = got
			if u == "mid" {
				base = got
			}
		}
		full = fresh
	}
}

// fileOf reads and builds a tree (nil for nil).
func fileOf(c *syntax.CST) *ast.File {
	if c == nil {
		return nil
	}
	return ast.Build(syntax.Read(c))
}

// typesAndRefs lists a result's expression types and references by
// span, in order, for comparing results of different trees.
func typesAndRefs(r *Result) (tys, refs []string) {
	for e, ty := range r.Types.All() {
		s := "<nil>"
		if ty != nil {
			s = ty.String()
		}
		sp := e.ExprSpan()
		tys = append(tys, fmt.Sprintf("%d-%d %s", sp.Start, sp.End, s))
	}
	for _, ref := range r.Refs {
		refs = append(refs, fmt.Sprintf("%d-%d %s %s %s", ref.Span.Start, ref.Span.End, ref.Sym.Kind, ref.Sym.Name, ref.Sym.File))
	}
	sort.Strings(tys)
	sort.Strings(refs)
	return tys, refs
}

// TestRecheckImportsComplete holds RecheckImports answers over full
// checks, chained, to a full check's types and references, so that the
// language server may hand them to the import cache (whose results the
// interpreter runs): the library is edited at random (interface and body
// edits) and each importer of the three-level workspace answered over
// its last answer; its types and references must be a fresh full
// check's (by span: the trees differ).
func TestRecheckImportsComplete(t *testing.T) {
	g := importGraphs(t)[3]
	r := rand.New(rand.NewSource(5))
	d, err := syntax.NewDocument(g.libSrc)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	full := mapImporter{g.lib: checkAs(g.lib, g.libSrc, nil)}
	bases := map[string]*Result{}
	for _, u := range g.users {
		full[u] = checkAs(u, g.userSrc[u], full)
		bases[u] = full[u]
		if !full[u].Complete() {
			t.Fatalf("%s: a full check is not complete", u)
		}
	}
	compared := 0
	typeAtRandom(t, d, r, 80, func(edit string, c *syntax.CST) {
		lib := Check(ast.Build(syntax.Read(c)), Options{Path: "/virtual/" + g.lib + ".caps"})
		fresh := mapImporter{g.lib: lib}
		eng := mapImporter{g.lib: lib}
		for _, u := range g.users {
			want := checkAs(u, g.userSrc[u], fresh)
			fresh[u] = want
			got, ok := bases[u].RecheckImports(eng)
			if !ok {
				bases[u], eng[u] = want, want
				continue
			}
			if !got.Complete() {
				t.Fatalf("%s: %s: an answer over a complete base is not complete", edit, u)
			}
			compared++
			if diff := cmp.Diff(want.Diagnostics, got.Diagnostics); diff != "" {
				t.Fatalf("%s: %s differs from Check (-check +recheck):\n%s", edit, u, diff)
			}
			{
				wt, wr := typesAndRefs(want)
				gt, gr := typesAndRefs(got)
				if diff := cmp.Diff(wt, gt); diff != "" {
					t.Fatalf("%s: %s: types differ from Check (-check +recheck):\n%s", edit, u, diff)
				}
				if diff := cmp.Diff(wr, gr); diff != "" {
					t.Fatalf("%s: %s: references differ from Check (-check +recheck):\n%s", edit, u, diff)
				}
			}
			bases[u], eng[u] = got, got
		}
	})
	t.Logf("%d answers compared by diagnostics, types and references", compared)
	if compared == 0 {
		t.Fatal("no answer was compared")
	}
	// a fast Recheck's answer is not complete, nor is an answer over it
	src := append([]byte(nil), g.userSrc["mid"]...)
	at := bytes.Index(src, []byte("(m000.clamp_0 x 0 10)")) + len("(m000.clamp_0 x 0 ")
	src[at] = '2'
	c, err := syntax.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	fast, ok := full["mid"].RecheckResult(c)
	if !ok || fast.Complete() {
		t.Fatalf("a fast Recheck's answer: ok %v, complete %v; want ok and not complete", ok, fast.Complete())
	}
	if res, ok := fast.RecheckImports(full); !ok || res.Complete() {
		t.Fatalf("RecheckImports over a fast answer: ok %v, complete %v; want ok and not complete", ok, res.Complete())
	}
}

// TestCompleteNeedsCompleteImports: a RecheckImports answer whose
// imports were answered by an incomplete result (a fast Recheck's answer
// made importable) is not complete, though it carried its own bodies.
func TestCompleteNeedsCompleteImports(t *testing.T) {
	g := importGraphs(t)[3]
	full := mapImporter{g.lib: checkAs(g.lib, g.libSrc, nil)}
	mid := checkAs("mid", g.userSrc["mid"], full)
	src := append([]byte(nil), g.libSrc...)
	at := bytes.Index(src, []byte("(type Score U32)")) + len("(type Score U")
	copy(src[at:], "64")
	c, err := syntax.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	fast, ok := full[g.lib].RecheckResult(c)
	if !ok {
		t.Fatal("Recheck declined")
	}
	lib, ok := fast.Importable()
	if !ok || lib.Complete() {
		t.Fatalf("Importable: ok %v, complete %v; want ok and not complete", ok, lib.Complete())
	}
	got, ok := mid.RecheckImports(mapImporter{g.lib: lib})
	if !ok {
		t.Fatal("RecheckImports declined")
	}
	if got.Complete() {
		t.Error("an answer reading an incomplete import is complete")
	}
	want := checkAs("mid", g.userSrc["mid"], mapImporter{g.lib: checkAs(g.lib, src, nil)})
	if diff := cmp.Diff(want.Diagnostics, got.Diagnostics); diff != "" {
		t.Fatalf("differs from Check (-check +recheck):\n%s", diff)
	}
	if got, ok := mid.RecheckImports(mapImporter{g.lib: checkAs(g.lib, src, nil)}); !ok || !got.Complete() {
		t.Errorf("an answer over complete results: ok %v, complete %v; want both", ok, got.Complete())
	}
}
