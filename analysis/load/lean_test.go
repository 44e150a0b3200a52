package load

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// leanCorpus lists the repository's .caps files: the examples and every
// fixture, with generated modules written to dir (a spec-shaped module,
// and one of one-line functions, as bench/scaling measures).
func leanCorpus(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	for _, root := range []string{"../../examples", "../../testdata"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".caps") {
				paths = append(paths, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	spec, err := gen.SpecShapedFrom("../../examples", 600)
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, write(t, dir, "spec.caps", string(spec)))
	paths = append(paths, write(t, dir, "functions.caps", string(gen.Functions(64<<10))))
	return paths
}

// TestLeanLoadMatchesWhole checks caps check's lean loads (Loader.LeanFrom)
// against whole ones over the corpus: the same diagnostics, byte for byte,
// the same semantic hash and, where the examples run, the same outcomes.
// It loads each file three ways: built and checked lean however little
// is deferred (leanAlways); built lean however little may be deferred
// (leanUnbounded), where a mostly whole lean tree is built whole in place
// (ast.Undefer) and checked as a whole build; and as caps check does.
func TestLeanLoadMatchesWhole(t *testing.T) {
	lean, ran, undeferred, undeferredRan := 0, 0, 0, 0
	for _, path := range leanCorpus(t, t.TempDir()) {
		whole, err := (&Loader{OneShot: true}).Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []*Loader{
			{OneShot: true, LeanFrom: 1, leanAlways: true},
			{OneShot: true, LeanFrom: 1, leanUnbounded: true},
			{OneShot: true, LeanFrom: 1},
		} {
			builds := leanBuilds.Load()
			got, err := l.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			in := "lean"
			switch {
			case got.lean && l.leanAlways:
				lean++
			case !got.lean && leanBuilds.Load() > builds && l.leanUnbounded:
				in = "undeferred"
				undeferred++
			case l.leanAlways || l.leanUnbounded:
				continue // as another way
			default:
				in = "caps check"
			}
			if d := cmp.Diff(whole.Result.Diagnostics, got.Result.Diagnostics); d != "" {
				t.Errorf("%s: %s diagnostics differ (-whole +%s):\n%s", path, in, in, d)
			}
			if whole.Hash != got.Hash {
				t.Errorf("%s: %s hash %s, whole %s", path, in, got.Hash, whole.Hash)
			}
			if !whole.Result.HasErrors() && len(whole.Result.Examples) > 0 {
				switch in {
				case "lean":
					ran++
				case "undeferred":
					undeferredRan++
				}
				w, g := examples.Diagnostics(examples.Evaluate(whole.Result)), examples.Diagnostics(examples.Evaluate(got.Result))
				if d := cmp.Diff(w, g); d != "" {
					t.Errorf("%s: example outcomes differ (-whole +%s):\n%s", path, in, d)
				}
			}
		}
	}
	if lean < 50 || ran < 20 || undeferred < 50 || undeferredRan < 20 {
		t.Errorf("only %d files were loaded lean, %d of them ran examples; %d were undeferred, %d of them ran examples", lean, ran, undeferred, undeferredRan)
	}
	t.Logf("%d files loaded lean, %d of them ran examples; %d undeferred, %d of them ran examples", lean, ran, undeferred, undeferredRan)
}

// TestLeanMostlyWholeBuiltOnce checks that a file whose lean tree would
// be mostly whole is read and built once: whole at once when the scan of
// its items shows it (types, machines and functions with examples:
// bench/gen's Mixed module), else lean, and then its deferred functions
// are built whole in place (ast.Undefer; here the examples reach them),
// the text is not read and built again. Its check is a whole build's:
// the same diagnostics, semantic hash, example outcomes and number of
// typed expressions. A file of deferred functions is built lean once.
func TestLeanMostlyWholeBuiltOnce(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		path              string
		whole, lean, kept int64 // builds; kept: checked lean
	}{
		{write(t, dir, "mixed.caps", string(gen.Mixed(64<<10))), 1, 0, 0},
		{write(t, dir, "reach.caps", "(module m (capsule \"1\")\n  (function a (input (x I64)) (output I64) (body (* 2 x)))\n  (function b (input (x I64)) (output I64) (body (* 3 x)))\n  (function c (input (x I64)) (output I64) (body (* 4 x)))\n  (function d (output I64) (body (a (b (c 1)))) (example (d) 24)))\n"), 0, 1, 0},
		{write(t, dir, "functions.caps", string(gen.Functions(64<<10))), 0, 1, 1},
	} {
		whole, err := (&Loader{OneShot: true}).Load(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		w0, l0 := wholeBuilds.Load(), leanBuilds.Load()
		got, err := (&Loader{OneShot: true, LeanFrom: 1}).Load(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if w, l := wholeBuilds.Load()-w0, leanBuilds.Load()-l0; w != tc.whole || l != tc.lean || got.lean != (tc.kept == 1) {
			t.Errorf("%s: built whole %d times, lean %d, checked lean %v; want %d, %d, %v", tc.path, w, l, got.lean, tc.whole, tc.lean, tc.kept == 1)
		}
		if d := cmp.Diff(whole.Result.Diagnostics, got.Result.Diagnostics); d != "" {
			t.Errorf("%s: diagnostics (-whole +got):\n%s", tc.path, d)
		}
		if whole.Hash != got.Hash || got.Hash == "" {
			t.Errorf("%s: hash %q, whole %q", tc.path, got.Hash, whole.Hash)
		}
		if got.lean {
			continue
		}
		if whole.File.Exprs != got.File.Exprs || whole.Result.Types.Len() != got.Result.Types.Len() {
			t.Errorf("%s: %d expressions, %d typed; whole %d, %d", tc.path, got.File.Exprs, got.Result.Types.Len(), whole.File.Exprs, whole.Result.Types.Len())
		}
		w, g := examples.Evaluate(whole.Result), examples.Evaluate(got.Result)
		if d := cmp.Diff(examples.Diagnostics(w), examples.Diagnostics(g)); d != "" || len(g) == 0 || len(g) != len(w) {
			t.Errorf("%s: %d example outcomes, whole %d (-whole +got):\n%s", tc.path, len(g), len(w), d)
		}
		for _, r := range g {
			if !r.Passed {
				t.Errorf("%s: an example failed: %+v", tc.path, r)
			}
		}
	}
}

// TestLeanCheckMatchesWhole checks every file of the corpus that
// ast.BuildLean builds, with its imports, against its whole build: the
// build's diagnostics, the check's diagnostics and example list, and the
// semantic hash are the same, and no deferred body is left in anything
// the result keeps. It counts the deferred functions, so that the test
// fails if the corpus stops exercising them.
func TestLeanCheckMatchesWhole(t *testing.T) {
	built, deferred := 0, 0
	for _, path := range leanCorpus(t, t.TempDir()) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lf, ok := ast.BuildLean(src)
		if !ok {
			continue
		}
		built++
		wf := parseSource(src)
		if d := cmp.Diff(wf.Diagnostics, lf.Diagnostics); d != "" {
			t.Errorf("%s: lean build diagnostics differ (-whole +lean):\n%s", path, d)
		}
		for _, d := range lf.Module.Decls {
			if fn, ok := d.(*ast.Function); ok {
				if _, ok := fn.Body.(*ast.Deferred); ok {
					deferred++
				}
			}
		}
		abs, _ := filepath.Abs(path)
		check1 := func(f *ast.File) (*check.Result, string) {
			l := &Loader{OneShot: true}
			l.graph.begin(abs, f)
			res := check.Check(f, check.Options{Path: abs, Importer: (*importer)(l), Once: true})
			l.graph.end(abs, f)
			h, err := IROptions(res).Hash(f.Module)
			if err != nil {
				t.Fatal(err)
			}
			return res, h
		}
		wr, wh := check1(wf)
		lr, lh := check1(lf)
		if d := cmp.Diff(wr.Diagnostics, lr.Diagnostics); d != "" {
			t.Errorf("%s: lean check diagnostics differ (-whole +lean):\n%s", path, d)
		}
		if wh != lh {
			t.Errorf("%s: lean hash %s, whole %s", path, lh, wh)
		}
		if len(wr.Examples) != len(lr.Examples) {
			t.Errorf("%s: %d examples, whole %d", path, len(lr.Examples), len(wr.Examples))
		}
		for e := range lr.Types.All() {
			if e.ExprSpan().Start < 0 {
				continue
			}
			if _, ok := e.(*ast.Deferred); ok {
				t.Errorf("%s: a deferred body has a type", path)
			}
		}
	}
	if built < 50 || deferred < 200 {
		t.Errorf("the corpus built %d files lean, with %d deferred functions", built, deferred)
	}
	t.Logf("%d files built lean, %d functions deferred", built, deferred)
}

// TestReadModuleItems checks that reading a module item by item gives
// the forms a whole read gives, and that what a whole read reports its
// own way (a syntax error, more than one top-level form, a diagnostic in
// an item) is declined.
func TestReadModuleItems(t *testing.T) {
	src := []byte(";; doc\n(module m (capsule \"1\") \"s\" 42 (function f (input (x I64)) (output I64) (body (+ x 1))) ; c\n  (type T I64))\n")
	r, ok := syntax.ReadModuleItems(src, "module")
	if !ok {
		t.Fatal("declined a clean module")
	}
	whole, err := syntax.ReadText(src)
	if err != nil {
		t.Fatal(err)
	}
	want := whole.Forms[0].Items()
	if r.Len != len(want) || r.Span != whole.Forms[0].Span() {
		t.Fatalf("Len %d span %v, want %d %v", r.Len, r.Span, len(want), whole.Forms[0].Span())
	}
	for i := range r.Len {
		f, ok := r.Next()
		if !ok {
			t.Fatalf("item %d not read", i)
		}
		if d := cmp.Diff(formText(want[i]), formText(f)); d != "" {
			t.Errorf("item %d (-whole +items):\n%s", i, d)
		}
	}
	if _, ok := r.Next(); ok {
		t.Error("read an item after the last")
	}
	if d := cmp.Diff(whole.Comments, r.Source.Comments); d != "" {
		t.Errorf("comments (-whole +items):\n%s", d)
	}
	for _, bad := range []string{
		"(module m (capsule \"1\")", // unclosed
		"(module m) (module n)",     // two top-level forms
		"(other m (capsule \"1\"))", // not a module
		"",
	} {
		if _, ok := syntax.ReadModuleItems([]byte(bad), "module"); ok {
			t.Errorf("%q: read item by item", bad)
		}
	}
	// A prefix of the function, up to the end of its input clause.
	fn := want[5]
	in := fn.Items()[2]
	pre, ok := syntax.ReadPrefixIn(whole.CST, fn.Span(), in.Span().End, &syntax.FormArena{})
	if !ok {
		t.Fatal("the prefix was not read")
	}
	wantPre := formText(syntax.NewList(syntax.Span{Start: fn.Span().Start, End: in.Span().End}, fn.Items()[:3], true))
	if d := cmp.Diff(wantPre, formText(pre)); d != "" {
		t.Errorf("prefix (-want +got):\n%s", d)
	}
	if _, ok := syntax.ReadPrefixIn(whole.CST, fn.Span(), in.Span().End-1, nil); ok {
		t.Error("read a prefix that ends inside an item")
	}
	// A diagnostic inside an item (a bad escape) stops the read there.
	r, ok = syntax.ReadModuleItems([]byte("(module m (function f \"\\q\"))"), "module")
	if !ok {
		t.Fatal("declined a module whose tokens scan")
	}
	for i := range 2 {
		if _, ok := r.Next(); !ok {
			t.Fatalf("item %d not read", i)
		}
	}
	if _, ok := r.Next(); ok {
		t.Error("read an item with a bad escape")
	}
}

// formText renders a form with its spans, for comparing trees.
func formText(f *syntax.Form) string {
	var b strings.Builder
	var walk func(f *syntax.Form)
	walk = func(f *syntax.Form) {
		sp := f.Span()
		b.WriteString("<" + f.Kind.String() + " " + strconv.Itoa(sp.Start) + "-" + strconv.Itoa(sp.End))
		if f.IsList() {
			if !f.Closed {
				b.WriteString(" open")
			}
			for _, it := range f.Items() {
				b.WriteByte(' ')
				walk(it)
			}
		} else {
			b.WriteString(" " + f.Text())
		}
		b.WriteByte('>')
	}
	walk(f)
	return b.String()
}

// TestLeanWholeWhereNeeded checks where a lean load builds functions
// whole: those the examples may call (ast.UndeferReach), so that the
// examples run on the lean tree with the outcomes of a whole one, and a
// file loaded lean, then imported: its importer gets it whole.
func TestLeanWholeWhereNeeded(t *testing.T) {
	dir := t.TempDir()
	lib := write(t, dir, "lib.caps", "(module lib (capsule \"1\")\n  (function twice (input (x I64)) (output I64) (body (* 2 x)))\n  (function thrice (input (x I64)) (output I64) (body (* 3 x)))\n  (function unused (input (x I64)) (output I64) (body (* 5 x)))\n  (function four (output I64) (body (twice (thrice 1))) (example (four) 6)))\n")
	app := write(t, dir, "app.caps", "(module app (capsule \"1\") (import lib)\n  (function eight (output I64) (body (* 2 (lib.four)))))\n")
	plain := write(t, dir, "plain.caps", "(module plain (capsule \"1\")\n  (function one (output I64) (body 1)))\n")
	l := &Loader{OneShot: true, LeanFrom: 1, leanAlways: true}
	p, err := l.Load(plain)
	if err != nil {
		t.Fatal(err)
	}
	if !p.lean {
		t.Error("a file without examples was not checked lean")
	}
	p, err = l.Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	if !p.lean {
		t.Error("a file with examples was not checked lean")
	}
	var whole []string
	for _, d := range p.File.Module.Decls {
		if _, ok := d.(*ast.Function).Body.(*ast.Deferred); !ok {
			whole = append(whole, d.Base().Name.Name)
		}
	}
	if d := cmp.Diff([]string{"twice", "thrice", "four"}, whole); d != "" {
		t.Errorf("functions built whole (-want +got):\n%s", d)
	}
	w, err := (&Loader{OneShot: true}).Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(examples.Diagnostics(examples.Evaluate(w.Result)), examples.Diagnostics(examples.Evaluate(p.Result))); d != "" {
		t.Errorf("example outcomes (-whole +lean):\n%s", d)
	}
	if got := examples.Evaluate(p.Result); len(got) != 1 || !got[0].Passed {
		t.Errorf("the example did not pass on the lean tree: %+v", got)
	}
	// The reach goes on through a function kept whole for its contract
	// (requires) to the deferred function it calls.
	chain := write(t, dir, "chain.caps", "(module chain (capsule \"1\")\n  (function g (input (x I64)) (output I64) (body (* 2 x)))\n  (function f (input (x I64)) (output I64) (requires (> x 0)) (body (g x)))\n  (function h (output I64) (body (f 2)) (example (h) 4)))\n")
	p, err = l.Load(chain)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.File.Module.Decls[0].(*ast.Function).Body.(*ast.Deferred); ok || !p.lean {
		t.Errorf("g, called through f's body, is still deferred (lean %v)", p.lean)
	}
	if got := examples.Evaluate(p.Result); len(got) != 1 || !got[0].Passed {
		t.Errorf("the example through f did not pass on the lean tree: %+v", got)
	}
	// plain, loaded lean, then imported: the importer gets it whole.
	imp := write(t, dir, "imp.caps", "(module imp (capsule \"1\") (import plain)\n  (function two (output I64) (body (+ 1 (plain.one)))))\n")
	l2 := &Loader{OneShot: true, LeanFrom: 1, leanAlways: true}
	if p, err := l2.Load(plain); err != nil || !p.lean {
		t.Fatalf("plain: lean %v, %v", p != nil && p.lean, err)
	}
	q, err := (&Loader{OneShot: true}).Load(imp)
	if err != nil {
		t.Fatal(err)
	}
	q2, err := l2.Load(imp)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(q.Result.Diagnostics, q2.Result.Diagnostics); d != "" || q.Hash != q2.Hash {
		t.Errorf("an importer of a lean-loaded file: diagnostics (-whole +lean) %s, hash %s vs %s", d, q2.Hash, q.Hash)
	}
	for _, im := range q2.Result.Imports {
		for _, d := range im.Module.Decls {
			if _, ok := d.(*ast.Function).Body.(*ast.Deferred); ok {
				t.Errorf("the importer got the lean %s", im.Name)
			}
		}
	}
	if _, err := l.Load(app); err != nil {
		t.Fatal(err)
	}
}

// TestLeanOnlyWhenMostlyDeferred checks that a file whose lean tree keeps
// most of its text whole (here, the functions its examples call) is
// checked whole: building its functions again would cost more than it
// saves. A file of deferred functions is checked lean.
func TestLeanOnlyWhenMostlyDeferred(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src string
		lean      bool
	}{
		{"mostly_whole.caps", "(module m (capsule \"1\")\n  (function twice (input (x I64)) (output I64) (body (* 2 x)))\n  (function one (output I64) (body 1))\n  (function four (output I64) (body (twice 2)) (example (four) 4)))\n", false},
		{"deferred.caps", "(module m (capsule \"1\")\n  (function twice (input (x I64)) (output I64) (body (* 2 x)))\n  (function one (output I64) (body 1))\n  (function four (output I64) (body (twice 2))))\n", true},
	} {
		p, err := (&Loader{OneShot: true, LeanFrom: 1}).Load(write(t, dir, tc.name, tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if p.lean != tc.lean {
			t.Errorf("%s: lean %v, want %v", tc.name, p.lean, tc.lean)
		}
		if len(p.Result.Diagnostics) != 0 {
			t.Errorf("%s: %v", tc.name, p.Result.Diagnostics)
		}
	}
}

// TestLeanMemoryLimit checks the soft memory limit of lean checks: it is
// set only once a lean file's imports are checked (their whole checks
// run without it), the lean checks running at once share the largest
// they ask for, a lower limit the user set stays, and the limit before
// them is back when the last one ends, in whatever order they end.
func TestLeanMemoryLimit(t *testing.T) {
	saved := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(saved)

	dir := t.TempDir()
	write(t, dir, "lib.caps", "(module lib (capsule \"1\")\n  (function one (output I64) (body 1)))\n")
	app := write(t, dir, "app.caps", "(module app (capsule \"1\") (import lib)\n  (function two (output I64) (body (+ 1 (lib.one)))))\n")
	limits := map[string]int64{}
	CheckHook = func(abs string) { limits[filepath.Base(abs)] = debug.SetMemoryLimit(-1) }
	defer func() { CheckHook = nil }()
	l := &Loader{OneShot: true, LeanFrom: 1, leanAlways: true}
	p, err := l.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	if !p.lean {
		t.Fatal("app was not checked lean")
	}
	if limits["lib.caps"] != saved {
		t.Errorf("the import was checked under a limit of %d (before: %d)", limits["lib.caps"], saved)
	}
	if got := debug.SetMemoryLimit(-1); got != saved {
		t.Errorf("the limit is %d after the load, %d before", got, saved)
	}

	// Two lean checks at once, ending in either order.
	const mb = 1 << 20
	for _, firstEnds := range []bool{true, false} {
		endA := leanMemoryLimit(100 * mb)
		a := debug.SetMemoryLimit(-1)
		endB := leanMemoryLimit(50 * mb)
		b := debug.SetMemoryLimit(-1)
		if a != 100*mb*7/4+leanLimitBase || b != a {
			t.Errorf("limits %d, then %d with a smaller second check; want %d both", a, b, 100*mb*7/4+leanLimitBase)
		}
		if firstEnds {
			endA()
			if got := debug.SetMemoryLimit(-1); got != 50*mb*7/4+leanLimitBase {
				t.Errorf("after the first ends, the limit is %d, want the second's", got)
			}
			endB()
		} else {
			endB()
			endA()
		}
		if got := debug.SetMemoryLimit(-1); got != saved {
			t.Errorf("the limit is %d after both, %d before", got, saved)
		}
	}

	// A lower limit of the user's stays.
	debug.SetMemoryLimit(64 * mb)
	end := leanMemoryLimit(100 * mb)
	if got := debug.SetMemoryLimit(-1); got != 64*mb {
		t.Errorf("the user's limit of 64 MiB became %d", got)
	}
	end()
	if got := debug.SetMemoryLimit(-1); got != 64*mb {
		t.Errorf("the user's limit is %d after the check", got)
	}
}
