package load

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/capsulang/caps/syntax/edittest"
)

// TestAnswerMatchesFullCheck types at random into two open modules, a
// library (examples/lib/money.caps) and a module importing it (mid), and
// answers each edit as the language server does: the library and mid by
// chained Rechecks (mid by RecheckImportsAt through the loader after the
// library changed), both handed to the loader through Answer only. After
// every edit a module importing both (top, with examples calling both)
// is checked through the loader, as a file opened then would be, and
// compared with a fresh loader's full checks of the same texts: the
// diagnostics of every file, examples included, the symbols and types of
// top, the declarations' symbols of the imported results, and the
// semantic hashes. The loader must never check the library or mid
// itself: every import of them is answered from the engine's answers.
func TestAnswerMatchesFullCheck(t *testing.T) {
	dir := t.TempDir()
	money, err := os.ReadFile("../../examples/lib/money.caps")
	if err != nil {
		t.Fatal(err)
	}
	libPath := write(t, dir, "lib/money.caps", string(money))
	midPath := write(t, dir, "mid.caps", `(module mid
  (capsule "1.0")
  (import lib.money)
  (type Fee (record (amount money.Amount) (bps U64)))
  (function fee
    (input (cents U64) (bps U64))
    (output U64)
    (effects pure)
    (body (money.apply_bps cents bps))
    (example (fee 10000 100) 100))
  (function fee_of
    (input (f Fee))
    (output U64)
    (body (fee f.amount.cents f.bps))))
`)
	topPath := write(t, dir, "top.caps", `(module top
  (capsule "1.0")
  (import lib.money (as m))
  (import mid)
  (function total
    (input (a m.Amount) (bps U64))
    (output U64)
    (body (+ (mid.fee a.cents bps) (m.apply_bps a.cents bps)))
    (example (total (record m.Amount (cents 10000) (currency "EUR")) 100) 200))
  (function big
    (input (a m.Amount))
    (output Bool)
    (body (m.is_large a))
    (example (big (record m.Amount (cents 5) (currency "EUR"))) false))
  (function fee_record
    (input (a m.Amount))
    (output mid.Fee)
    (body (record mid.Fee (amount a) (bps 5)))))
`)
	topSrc, _ := os.ReadFile(topPath)

	texts := map[string][]byte{}
	docs := map[string]*syntax.Document{}
	good := map[string][]byte{}
	for _, p := range []string{libPath, midPath} {
		src, _ := os.ReadFile(p)
		d, err := syntax.NewDocument(src)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		docs[p], good[p], texts[p] = d, src, src
	}
	checks := map[string]int{}
	CheckHook = func(abs string) { checks[abs]++ }
	defer func() { CheckHook = nil }()
	completions := 0
	check.CompletionHook = func(string) { completions++ }
	defer func() { check.CompletionHook = nil }()

	answers := map[string]*check.Result{}
	l := &Loader{ReadFile: overlayReader(texts), CacheIR: true}
	l.Answer = func(abs string) *check.Result { return answers[abs] }
	build := func(p string) *ast.File { return ast.Build(syntax.Read(docs[p].CST())) }
	// the server's own full check of an open document, offered to the
	// loader (setBase)
	fullCheck := func(p string) *check.Result {
		pkg := l.CheckFileNoHash(p, build(p))
		l.Offer(pkg)
		return pkg.Result
	}
	answers[libPath] = fullCheck(libPath)
	answers[midPath] = fullCheck(midPath)

	r := rand.New(rand.NewSource(41))
	steps := 150
	if testing.Short() {
		steps = 40
	}
	a0, d0 := AnswerStats.Answered.Load(), AnswerStats.Declined.Load()
	var fullLib, fullMid, cacheChecks int
	for step := 0; step < steps; step++ {
		p := libPath
		if r.Intn(3) == 0 {
			p = midPath
		}
		d := docs[p]
		cur := d.Text()
		start, end, text := interfaceEdit(r, cur)
		if d.CST().HasError(0) && r.Intn(3) > 0 {
			start, end, text = edittest.Undo(cur, good[p])
		}
		if err := d.Edit(start, end, []byte(text)); err != nil {
			t.Fatal(err)
		}
		if !d.CST().HasError(0) {
			good[p] = d.Text()
		}
		texts[p] = d.Text()
		l.Forget(p)
		what := fmt.Sprintf("step %d: %s [%d,%d) -> %q", step, filepath.Base(p), start, end, text)
		clear(checks)
		asked := map[string]int{}
		// the edited module's answer: a chained Recheck, else a full check
		if res, ok := answers[p].RecheckResult(d.CST()); ok {
			answers[p] = res
		} else {
			asked[p]++
			answers[p] = fullCheck(p)
		}
		if p == libPath {
			// mid follows the import change: the engine over its last
			// answer, its import of the library answered by the loader
			if pkg, ok := l.RecheckImportsAt(midPath, answers[midPath], nil, nil); ok {
				answers[midPath] = pkg.Result
			} else {
				asked[midPath]++
				answers[midPath] = fullCheck(midPath)
			}
		}
		fullLib += asked[libPath]
		fullMid += asked[midPath]
		// top opened now, checked through the loader
		topPkg := l.CheckFile(topPath, ast.Build(syntax.Read(mustCST(t, topSrc))))
		for _, f := range []string{libPath, midPath} {
			n := checks[f] - asked[f]
			cacheChecks += n
			// (an answer with an import that did not resolve is declined:
			// the import may resolve now)
			if a := answers[f]; n > 0 && a.File.Module != nil && len(a.Imports) == len(a.File.Module.Imports) {
				t.Errorf("%s: the loader checked %s %d times", what, filepath.Base(f), n)
			}
		}
		fresh := (&Loader{ReadFile: overlayReader(texts)}).CheckFile(topPath, ast.Build(syntax.Read(mustCST(t, topSrc))))
		compareAnswered(t, what, topPkg, fresh)
	}
	answered, declined := AnswerStats.Answered.Load()-a0, AnswerStats.Declined.Load()-d0
	t.Logf("%d edits: %d imports answered from the engine's answers, %d answers declined; full checks the server made: %d of the library, %d of mid (syntax errors or a declined Recheck); %d made by the import cache (answers with an import that failed); %d completions (full checks of a partial import for the interpreter)",
		steps, answered, declined, fullLib, fullMid, cacheChecks, completions)
	if answered == 0 {
		t.Errorf("no import was answered from an engine answer")
	}
}

// TestPartialPackages holds the cache's partial packages (an engine's
// answer taken through Answer) to their use: they answer imports, a
// Load checks the file in full instead (its references must cover every
// body) and caches that check, and an offered full check replaces them.
func TestPartialPackages(t *testing.T) {
	dir := t.TempDir()
	money, err := os.ReadFile("../../examples/lib/money.caps")
	if err != nil {
		t.Fatal(err)
	}
	libPath := write(t, dir, "lib/money.caps", string(money))
	appPath := write(t, dir, "app.caps", "(module app\n  (capsule \"1\")\n  (import lib.money)\n  (function f (input (c U64)) (output U64) (body (money.apply_bps c 5))))\n")
	d, err := syntax.NewDocument(money)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	texts := map[string][]byte{}
	l := &Loader{ReadFile: overlayReader(texts)}
	var answer *check.Result
	l.Answer = func(abs string) *check.Result {
		if abs == libPath {
			return answer
		}
		return nil
	}
	full := l.CheckFileNoHash(libPath, ast.Build(syntax.Read(d.CST())))
	if !l.Offer(full) {
		t.Fatal("the library's check was not taken")
	}
	// a body edit, answered by a fast Recheck (partial)
	at := bytes.Index(money, []byte("(/ (* cents bps) 10000)"))
	if err := d.Edit(at+4, at+5, []byte("+")); err != nil {
		t.Fatal(err)
	}
	texts[libPath] = d.Text()
	l.Forget(libPath)
	var ok bool
	if answer, ok = full.Result.RecheckResult(d.CST()); !ok || !answer.Partial() {
		t.Fatalf("the body edit was not answered by a partial result (ok %v)", ok)
	}
	want, err := (&Loader{ReadFile: overlayReader(texts)}).Load(libPath)
	if err != nil {
		t.Fatal(err)
	}
	checks := 0
	CheckHook = func(abs string) {
		if abs == libPath {
			checks++
		}
	}
	defer func() { CheckHook = nil }()
	appSrc, _ := os.ReadFile(appPath)
	l.CheckFileNoHash(appPath, ast.Build(syntax.Read(mustCST(t, appSrc))))
	p := l.cache[libPath]
	if checks != 0 || p == nil || !p.partial || !p.Result.Partial() {
		t.Fatalf("the import was not answered by a partial package (%d checks, %v)", checks, p)
	}
	pkg, err := l.Load(libPath)
	if err != nil {
		t.Fatal(err)
	}
	if checks != 1 || pkg.Result.Partial() || pkg.partial {
		t.Errorf("Load: %d checks, partial %v: want the library checked in full", checks, pkg.Result.Partial())
	}
	refs := func(r *check.Result) []string {
		var out []string
		for _, ref := range r.Refs {
			out = append(out, fmt.Sprintf("%d-%d %s", ref.Span.Start, ref.Span.End, ref.Sym.Name))
		}
		sort.Strings(out)
		return out
	}
	if diff := cmp.Diff(refs(want.Result), refs(pkg.Result)); diff != "" || len(refs(want.Result)) == 0 {
		t.Errorf("the library's references through Load (-fresh +loaded):\n%s", diff)
	}
	if again, _ := l.Load(libPath); again != pkg || checks != 1 {
		t.Errorf("Load did not keep the full check it made (%d checks)", checks)
	}
	// an offered full check replaces a partial package; a partial one
	// never replaces a package
	l.Forget(libPath)
	l.CheckFileNoHash(appPath, ast.Build(syntax.Read(mustCST(t, appSrc))))
	if p := l.cache[libPath]; p == nil || !p.partial {
		t.Fatalf("the import was not answered by a partial package again")
	}
	if l.Offer(&Package{Path: libPath, Src: texts[libPath], File: answer.File, Result: answer, epoch: l.epoch}) {
		t.Errorf("a partial package replaced a partial one")
	}
	again := l.CheckFileNoHash(libPath, ast.Build(syntax.Read(d.CST())))
	if !l.Offer(again) || l.cache[libPath] != again {
		t.Errorf("an offered full check did not replace the partial package")
	}
	if l.Offer(&Package{Path: libPath, Src: texts[libPath], File: answer.File, Result: answer, epoch: l.epoch}) {
		t.Errorf("a partial package replaced a full check")
	}
}

// interfaceEdit is an edit that changes what importers read (a type, an
// effect, a name, a field) or random typing.
func interfaceEdit(r *rand.Rand, src []byte) (start, end int, text string) {
	swaps := [][2]string{
		{"U64", "I64"}, {"(output Bool)", "(output U64)"}, {"(effects pure)", "(effects (db.read x))"},
		{"(cents U64)", "(cents I64)"}, {"apply_bps", "apply_bp"}, {"(bps U64))", "(bps U64) (c Text))"},
		{"(currency Text)", "(currency U64)"}, {"Amount", "Amt"}, {"(type Fee", "(type Fees"},
	}
	if r.Intn(4) > 0 {
		sw := swaps[r.Intn(len(swaps))]
		from, to := sw[0], sw[1]
		if r.Intn(2) == 0 {
			from, to = to, from
		}
		s := string(src)
		if n := strings.Count(s, from); n > 0 {
			k := r.Intn(n)
			at := 0
			for i := 0; ; i++ {
				j := strings.Index(s[at:], from)
				if i == k {
					at += j
					break
				}
				at += j + len(from)
			}
			return at, at + len(from), to
		}
	}
	return edittest.Random(r, src)
}

func mustCST(t testing.TB, src []byte) *syntax.CST {
	t.Helper()
	d, err := syntax.NewDocument(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d.CST()
}

// compareAnswered compares a check made through answered imports with a
// fresh full check of the same texts.
func compareAnswered(t *testing.T, what string, got, want *Package) {
	t.Helper()
	if d := cmp.Diff(diagList(diagnose.Run(want.Result).Diagnostics), diagList(diagnose.Run(got.Result).Diagnostics)); d != "" {
		t.Errorf("%s: top's diagnostics, examples included (-full +answered):\n%s", what, d)
	}
	if got.Hash != want.Hash {
		t.Errorf("%s: top's hash %s, a full check's %s", what, got.Hash, want.Hash)
	}
	if d := cmp.Diff(symList(want.Result, false), symList(got.Result, false)); d != "" {
		t.Errorf("%s: top's symbols (-full +answered):\n%s", what, d)
	}
	if d := cmp.Diff(typeList(want.Result), typeList(got.Result)); d != "" {
		t.Errorf("%s: top's types (-full +answered):\n%s", what, d)
	}
	// the imported results, through top's imports (mid's own through its)
	seen := map[string]bool{}
	var walk func(g, w *check.Result)
	walk = func(g, w *check.Result) {
		if len(g.Imports) != len(w.Imports) {
			t.Errorf("%s: %s has %d imports resolved, a full check %d", what, g.Path, len(g.Imports), len(w.Imports))
			return
		}
		for i := range g.Imports {
			gi, wi := g.Imports[i], w.Imports[i]
			if (gi.Imported == nil) != (wi.Imported == nil) {
				t.Errorf("%s: %s's import %d resolved %v, a full check's %v", what, g.Path, i, gi.Imported != nil, wi.Imported != nil)
				continue
			}
			if gi.Imported == nil || seen[gi.File] {
				continue
			}
			seen[gi.File] = true
			name := filepath.Base(gi.File)
			if gi.Hash != wi.Hash {
				t.Errorf("%s: %s's hash %s, a full check's %s", what, name, gi.Hash, wi.Hash)
			}
			if d := cmp.Diff(diagList(wi.Result.Diagnostics), diagList(gi.Result.Diagnostics)); d != "" {
				t.Errorf("%s: %s's diagnostics (-full +answered):\n%s", what, name, d)
			}
			if d := cmp.Diff(symList(wi.Result, true), symList(gi.Result, true)); d != "" {
				t.Errorf("%s: %s's declarations (-full +answered):\n%s", what, name, d)
			}
			walk(gi.Result, wi.Result)
		}
	}
	walk(got.Result, want.Result)
}

func diagList(ds []syntax.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		s := fmt.Sprintf("%s %d-%d %s", d.Code, d.Span.Start, d.Span.End, d.Message)
		for _, r := range d.Related {
			s += fmt.Sprintf(" [%s %d-%d %s]", filepath.Base(r.File), r.Span.Start, r.Span.End, r.Message)
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// symList lists a result's symbols (only its declarations and their
// members, with decls): kind, name, spans, type.
func symList(r *check.Result, decls bool) []string {
	var out []string
	for _, s := range r.Symbols {
		if decls && s.Decl == nil && (s.Parent == nil || s.Parent.Decl == nil) {
			continue
		}
		ty := ""
		if s.Type != nil {
			ty = s.Type.String()
		}
		out = append(out, fmt.Sprintf("%s %s %d-%d %d-%d %s %s", s.Kind, s.Name, s.Span.Start, s.Span.End, s.Full.Start, s.Full.End, ty, filepath.Base(s.File)))
	}
	sort.Strings(out)
	return out
}

// typeList lists a result's expression types by span.
func typeList(r *check.Result) []string {
	var out []string
	for e, ty := range r.Types.All() {
		sp := e.ExprSpan()
		out = append(out, fmt.Sprintf("%d-%d %s", sp.Start, sp.End, ty))
	}
	sort.Strings(out)
	return out
}

// BenchmarkImportAfterLibraryEdit times the check, through the loader, of
// a small module importing a library of 3,000 generated lines right after
// a body edit of the library, answered by a fast Recheck (untimed):
// "check" checks the library in full (the cache lacks it), "answer"
// takes the Recheck's answer through Answer (its text read again and its
// module pass run, then hashed). Both run in one process; alternate them
// with -count.
//
// "spec-" runs the same over a library of 3,000 lines shaped like the
// spec's ClaimReview (gen.SpecModule: machines, surfaces, policies,
// whose bodies cost more to check), its pure helper's body edited.
func BenchmarkImportAfterLibraryEdit(b *testing.B) {
	for _, mode := range []string{"check", "answer", "spec-check", "spec-answer"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			lib := []byte(strings.Replace(string(gen.Module(3000)), "(module bench.generated", "(module lib", 1))
			edit, edited := "(if (< x lo", "lo" // (edited ends edit)
			if strings.HasPrefix(mode, "spec-") {
				lib = []byte(strings.Replace(string(gen.SpecModule(3000)), "(module bench.spec_shaped", "(module lib", 1))
				edit, edited = "(body (<= review_score 30", "30"
			}
			libPath := write(b, dir, "lib.caps", string(lib))
			call := "(function two (input (x I64)) (output I64) (body (+ (lib.clamp_0 x 0 10) 1)))"
			if strings.HasPrefix(mode, "spec-") {
				call = "(function two (input (x U32)) (output Bool) (body (lib.approvable_0 x)))"
			}
			appPath := write(b, dir, "app.caps", "(module app\n  (capsule \"1.0\")\n  (import lib)\n  "+call+")\n")
			appSrc, _ := os.ReadFile(appPath)
			d, err := syntax.NewDocument(lib)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			texts := map[string][]byte{libPath: lib}
			l := &Loader{ReadFile: overlayReader(texts), CacheIR: true}
			pkg := l.CheckFileNoHash(libPath, ast.Build(syntax.Read(d.CST())))
			l.Offer(pkg)
			answer := pkg.Result
			if strings.HasSuffix(mode, "answer") {
				l.Answer = func(abs string) *check.Result {
					if abs == libPath {
						return answer
					}
					return nil
				}
			}
			appFile := ast.Build(syntax.Read(mustCST(b, appSrc)))
			at := bytes.Index(lib, []byte(edit)) + len(edit) - len(edited)
			if !bytes.HasPrefix(lib[at:], []byte(edited)) {
				b.Fatalf("the edit's offset %d holds %q, not %q", at, lib[at:at+len(edited)], edited)
			}
			checks := 0
			CheckHook = func(abs string) {
				if abs == libPath {
					checks++
				}
			}
			defer func() { CheckHook = nil }()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				to := map[string]string{"lo": "hi", "hi": "lo", "30": "40", "40": "30"}[string(d.Text()[at:at+2])]
				if err := d.Edit(at, at+2, []byte(to)); err != nil {
					b.Fatal(err)
				}
				texts[libPath] = d.Text()
				l.Forget(libPath)
				res, ok := answer.RecheckResult(d.CST())
				if !ok {
					b.Fatal("Recheck declined a body edit")
				}
				answer = res
				b.StartTimer()
				if p := l.CheckFileNoHash(appPath, appFile); p.Result.HasErrors() {
					b.Fatal(p.Result.Diagnostics)
				}
			}
			b.ReportMetric(float64(checks)/float64(b.N), "lib-checks/op")
		})
	}
}
