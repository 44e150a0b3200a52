package diagnose_test

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/capsulang/caps/syntax/edittest"
)

// exampleSources returns the modules with function examples the
// differential test types over, by path: every example, checker fixture
// and pipeline fixture (failing examples) that has one, this package's
// fixtures (failures that quote contracts or stop in callees) and the
// spec-shaped generated module.
func exampleSources(t *testing.T) map[string][]byte {
	t.Helper()
	srcs := map[string][]byte{}
	for _, pattern := range []string{"../../examples/*.caps", "../../examples/lib/*.caps", "../../testdata/check/*.caps", "../../testdata/pipeline/*.caps", "testdata/*.caps"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte("(example ")) {
				abs, _ := filepath.Abs(f)
				srcs[abs] = b
			}
		}
	}
	if len(srcs) < 8 {
		t.Fatalf("only %d modules with examples found", len(srcs))
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec_shaped.caps")
	if b := gen.SpecModule(400); bytes.Contains(b, []byte("(example ")) {
		srcs[spec] = b
	}
	return srcs
}

// exampleEdit returns a random edit of src that often changes what an
// example computes or expects (a digit in an example or a body), moves
// declarations (a line inserted or removed before one), changes only the
// layout inside a declaration (a comment line, an indentation, a space
// between atoms, a comment inside a contract's clause: see formsHash),
// and otherwise one of edittest.Random's.
func exampleEdit(r *rand.Rand, src []byte) (start, end int, text string) {
	n := len(src)
	at := r.Intn(n + 1)
	digitAfter := func(from int) int {
		for i := from; i < n; i++ {
			if src[i] >= '0' && src[i] <= '9' {
				return i
			}
		}
		return -1
	}
	switch r.Intn(12) {
	case 0, 1: // a digit of an example
		if i := bytes.Index(src[at:], []byte("(example ")); i >= 0 {
			if j := digitAfter(at + i); j >= 0 {
				return j, j + 1, string(rune('0' + r.Intn(10)))
			}
		}
	case 2: // a digit anywhere (a body a callee's example reaches)
		if j := digitAfter(at); j >= 0 {
			return j, j + 1, string(rune('0' + r.Intn(10)))
		}
	case 3: // a line before a declaration: the ones after it move
		if i := bytes.Index(src[at:], []byte("\n  (")); i >= 0 {
			return at + i, at + i, "\n  ; moved\n"
		}
	case 4: // a line inserted earlier removed again
		if i := bytes.Index(src, []byte("\n  ; moved\n")); i >= 0 {
			return i, i + len("\n  ; moved\n"), ""
		}
	case 5: // a comment line inside a declaration (a callee's, say)
		if i := bytes.Index(src[at:], []byte("\n    (")); i >= 0 {
			return at + i + 1, at + i + 1, "    ; layout\n"
		}
	case 6: // a comment line inserted earlier removed again
		if i := bytes.Index(src, []byte("\n    ; layout\n")); i >= 0 {
			return i + 1, i + len("\n    ; layout\n"), ""
		}
	case 7: // a line inside a declaration indented further
		if i := bytes.Index(src[at:], []byte("\n    ")); i >= 0 {
			return at + i + 1, at + i + 1, "  "
		}
	case 9: // a comment and a line break inside a contract's clause (a
		// failure quoting it quotes them)
		i, n := bytes.Index(src[at:], []byte("(requires (")), len("(requires (")
		if j := bytes.Index(src[at:], []byte("(ensures (")); j >= 0 && (i < 0 || j < i) {
			i, n = j, len("(ensures (")
		}
		if i >= 0 {
			if sp := bytes.IndexByte(src[at+i+n:], ' '); sp >= 0 {
				k := at + i + n + sp
				return k, k, inClause
			}
		}
	case 10: // such a comment removed again
		if i := bytes.Index(src, []byte(inClause)); i >= 0 {
			return i, i + len(inClause), ""
		}
	case 8: // a space between two atoms doubled (a real edit inside a string)
		if i := bytes.Index(src[at:], []byte(" ")); i >= 0 && at+i+1 < n && src[at+i+1] != ' ' && src[at+i+1] != '\n' {
			return at + i, at + i + 1, "  "
		}
	}
	return edittest.Random(r, src)
}

// inClause is the comment exampleEdit puts inside a contract's clause.
const inClause = " ;; in a clause\n     "

// formsHash hashes the forms of src (syntax.HashForms): equal for two
// texts that differ only in layout; ok is false when src does not read.
func formsHash(src []byte) (x uint64, ok bool) {
	rd, err := syntax.ReadText(src)
	if err != nil || len(rd.Diagnostics) > 0 {
		return 0, false
	}
	var h maphash.Hash
	h.SetSeed(formsSeed)
	syntax.HashForms(&h, src, 0, rd.Forms, nil)
	return h.Sum64(), true
}

var formsSeed = maphash.MakeSeed()

// layoutCount counts the layout-only edits of a differential test (the
// forms of the edited text are those of the text whose examples the cache
// last evaluated) and what they ran: none may run an example again, also
// when a failure quotes a contract (its own function's or a callee's,
// here or imported) or stopped in another declaration (every outcome the
// interpreter reports is kept by its forms; only an internal error or an
// error of another kind is pinned to a declaration's text, and the
// modules typed over have none). quoting counts the edits after which
// a failure quoted a contract, requoted those that changed what a
// failure's message quotes (a comment or a line break inside the clause).
type layoutCount struct {
	edits, evaluated, quoting, requoted int
}

func (lc *layoutCount) add(t *testing.T, edit string, st diagnose.ExampleStats, prev, cur []syntax.Diagnostic) {
	t.Helper()
	lc.edits++
	lc.evaluated += st.Evaluated
	if st.Evaluated > 0 {
		t.Errorf("%s: a layout-only edit ran the examples of %d functions again", edit, st.Evaluated)
	}
	var before, after []string
	quotes := false
	for _, d := range prev {
		before = append(before, d.Message)
		quotes = quotes || strings.Contains(d.Message, " does not hold")
	}
	for _, d := range cur {
		after = append(after, d.Message)
	}
	if quotes {
		lc.quoting++
	}
	sort.Strings(before)
	sort.Strings(after)
	if !cmp.Equal(before, after) {
		lc.requoted++
	}
}

// TestIncrementalExamplesMatchFullCheck types at random over every module
// with examples and compares, after every edit the engine answers, the
// diagnostics of its answer with those of the incrementally evaluated
// examples (ExampleCache, over the engine's answer, each answer the base
// of the next) with what a fresh full check of the text through the
// pipeline (Run) reports: codes, messages, ranges and related places.
func TestIncrementalExamplesMatchFullCheck(t *testing.T) {
	srcs := exampleSources(t)
	var paths []string
	for p := range srcs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	edits, answered, clean, withFailures, related := 0, 0, 0, 0, 0
	var evaluated, reused, examplesRun int
	var layout layoutCount
	for _, path := range paths {
		src := srcs[path]
		r := rand.New(rand.NewSource(int64(len(src))))
		d, err := syntax.NewDocument(src)
		if err != nil {
			t.Fatal(err)
		}
		loader := &load.Loader{}
		full := func(c *syntax.CST) *check.Result {
			return loader.CheckFileNoHash(path, ast.Build(syntax.Read(c))).Result
		}
		base := full(d.CST())
		cache := &diagnose.ExampleCache{}
		if _, _, ok := cache.Diagnostics(base, nil); !ok {
			t.Fatalf("%s: the examples of a full check are not evaluated incrementally", path)
		}
		name := filepath.Base(path)
		// (as someone typing does, the edits go back towards the last text
		// without errors two times in three while there are some)
		good, broken := d.Text(), base.HasErrors()
		// prevForms and prevDiags are those of the last text whose
		// examples the cache evaluated (a text without errors)
		prevForms, _ := formsHash(d.Text())
		var prevDiags []syntax.Diagnostic
		for i := 0; i < 80; i++ {
			cur := d.Text()
			start, end, text := exampleEdit(r, cur)
			if broken && r.Intn(3) > 0 {
				start, end, text = edittest.Undo(cur, good)
			}
			if err := d.Edit(start, end, []byte(text)); err != nil {
				t.Fatal(err)
			}
			edit := fmt.Sprintf("%s: edit %d [%d,%d) -> %q", name, i, start, end, text)
			c := d.CST()
			edits++
			res, ok := base.RecheckResult(c)
			oracle := full(c)
			if broken = oracle.HasErrors(); !broken {
				good = d.Text()
			}
			if !ok || !res.Rechecks() {
				base = oracle // the server checks in full when the engine declines
				exds, _, ok := cache.Diagnostics(base, nil)
				if !ok {
					t.Fatalf("%s: the examples of a full check are not evaluated incrementally", edit)
				}
				if !broken {
					prevForms, _ = formsHash(d.Text())
					prevDiags = exds
				}
				continue
			}
			answered++
			base = res
			knownds, complete, kok := cache.Known(res)
			exds, st, ok := cache.Diagnostics(res, nil)
			if !ok {
				t.Fatalf("%s: the examples of the engine's answer were not evaluated", edit)
			}
			evaluated += st.Evaluated
			reused += st.Reused
			examplesRun += st.Examples
			if !broken {
				if fh, ok := formsHash(d.Text()); ok && fh == prevForms {
					layout.add(t, edit, st, prevDiags, exds)
				}
				prevForms, _ = formsHash(d.Text())
				prevDiags = exds
			}
			want := diagnose.Sorted(diagnose.Run(oracle).Diagnostics)
			got := diagnose.Sorted(append(append([]syntax.Diagnostic(nil), res.Diagnostics...), exds...))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: incremental examples differ from a full check (-full +incremental):\n%s", edit, diff)
			}
			if !kok {
				t.Fatalf("%s: Known declined the engine's answer", edit)
			}
			if complete != (st.Evaluated == 0) {
				t.Fatalf("%s: Known says complete %v, but Diagnostics evaluated %d functions", edit, complete, st.Evaluated)
			}
			if complete {
				if diff := cmp.Diff(exds, knownds); diff != "" {
					t.Fatalf("%s: Known differs from Diagnostics though complete (-diagnostics +known):\n%s", edit, diff)
				}
			}
			if !oracle.HasErrors() && len(oracle.Examples) > 0 {
				clean++
			}
			if len(exds) > 0 {
				withFailures++
				for _, x := range exds {
					if len(x.Related) > 0 {
						related++
						break
					}
				}
			}
		}
		d.Close()
	}
	t.Logf("%d modules, %d edits, %d answered by the engine (%d clean with examples, %d with failing examples, %d with a runtime error's place); functions' examples evaluated %d times, reused %d times (%d examples run); %d layout-only edits (%d after a failure quoting a contract, %d changing a message's quote) evaluated %d functions' examples",
		len(paths), edits, answered, clean, withFailures, related, evaluated, reused, examplesRun, layout.edits, layout.quoting, layout.requoted, layout.evaluated)
	if clean < answered/4 || withFailures < clean/10 || reused < 4*evaluated || layout.edits < edits/20 || layout.quoting < 50 || layout.requoted < 5 {
		t.Fatalf("the test does not exercise the cache: %d clean, %d failing, %d evaluated, %d reused", clean, withFailures, evaluated, reused)
	}
}

// TestIncrementalExamplesAfterImportEdits types at random in an imported
// module and compares, after every edit, the examples of its importer
// (whose examples call the imported functions) evaluated from the
// engine's answer (Loader.RecheckImports over the previous answer)
// through the cache with a fresh full check of the importer through the
// pipeline: examples/lib/money.caps under examples/17_imports.caps, and
// testdata/lib/quoted.caps under testdata/quoted_importer.caps, whose
// failures quote the imported contracts or stop in imported bodies.
func TestIncrementalExamplesAfterImportEdits(t *testing.T) {
	for _, tt := range []struct {
		importer, lib string
		// minQuoting bounds below the layout-only edits after which a
		// failure quoted an imported contract
		minQuoting int
	}{
		{"../../examples/17_imports.caps", "../../examples/lib/money.caps", 0},
		{"testdata/quoted_importer.caps", "testdata/lib/quoted.caps", 30},
	} {
		t.Run(filepath.Base(tt.lib), func(t *testing.T) {
			importEdits(t, tt.importer, tt.lib, tt.minQuoting)
		})
	}
}

// importEdits is TestIncrementalExamplesAfterImportEdits for the module
// importer, which imports lib.
func importEdits(t *testing.T, importerPath, libFile string, minQuoting int) {
	importer, _ := filepath.Abs(importerPath)
	libPath, _ := filepath.Abs(libFile)
	libName, appName := filepath.Base(libPath), filepath.Base(importer)
	lib, err := os.ReadFile(libPath)
	if err != nil {
		t.Fatal(err)
	}
	appSrc, err := os.ReadFile(importer)
	if err != nil {
		t.Fatal(err)
	}
	libText := lib
	readFile := func(p string) ([]byte, error) {
		if abs, _ := filepath.Abs(p); abs == libPath {
			return libText, nil
		}
		return load.ReadSource(p)
	}
	checkApp := func(l *load.Loader) *check.Result {
		d, err := syntax.NewDocument(appSrc)
		if err != nil {
			t.Fatal(err)
		}
		return l.CheckFileNoHash(importer, ast.Build(syntax.Read(d.CST()))).Result
	}
	loader := &load.Loader{ReadFile: readFile}
	base := checkApp(loader)
	cache := &diagnose.ExampleCache{}
	if _, _, ok := cache.Diagnostics(base, nil); !ok {
		t.Fatal("the importer's examples are not evaluated incrementally")
	}
	r := rand.New(rand.NewSource(3))
	good, broken := libText, false
	edits, answered, clean, withFailures := 0, 0, 0, 0
	var evaluated, reused int
	// (the forms of the imported module and the importer's failed outcomes when
	// its examples were last evaluated)
	prevForms, _ := formsHash(libText)
	var prevDiags []syntax.Diagnostic
	var layout layoutCount
	for i := 0; i < 150; i++ {
		start, end, text := exampleEdit(r, libText)
		if broken && r.Intn(3) > 0 {
			start, end, text = edittest.Undo(libText, good)
		}
		libText = append(append(append([]byte(nil), libText[:start]...), text...), libText[end:]...)
		edit := fmt.Sprintf("edit %d of %s [%d,%d) -> %q", i, libName, start, end, text)
		edits++
		loader.Forget(libPath)
		oracle := checkApp(&load.Loader{ReadFile: readFile})
		// (the edits go back towards the last text of the imported module without
		// errors two times in three while it has some)
		broken = false
		for _, im := range oracle.Imports {
			if im.Result != nil && im.Result.HasErrors() {
				broken = true
			}
		}
		if !broken {
			good = libText
		}
		res, ok := loader.RecheckImports(importer, base, nil)
		if !ok {
			base = checkApp(loader)
			exds, _, ok := cache.Diagnostics(base, nil)
			if !ok {
				t.Fatalf("%s: the examples of a full check are not evaluated incrementally", edit)
			}
			if !base.HasErrors() { // (the cache holds this version's keys)
				prevForms, _ = formsHash(libText)
				prevDiags = exds
			}
			continue
		}
		answered++
		base = res
		exds, st, ok := cache.Diagnostics(res, nil)
		if !ok {
			t.Fatalf("%s: the examples of the engine's answer were not evaluated", edit)
		}
		evaluated += st.Evaluated
		reused += st.Reused
		if !res.HasErrors() { // (the cache evaluated this version's keys)
			// a layout-only edit of the imported module runs none of the
			// importer's examples again (the importer's own text is
			// unchanged)
			if fh, ok := formsHash(libText); ok && fh == prevForms {
				layout.add(t, edit, st, prevDiags, exds)
			}
			prevForms, _ = formsHash(libText)
			prevDiags = exds
		}
		want := diagnose.Sorted(diagnose.Run(oracle).Diagnostics)
		got := diagnose.Sorted(append(append([]syntax.Diagnostic(nil), res.Diagnostics...), exds...))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: the importer's incremental examples differ from a full check (-full +incremental):\n%s", edit, diff)
		}
		if !oracle.HasErrors() {
			clean++
		}
		if len(exds) > 0 {
			withFailures++
		}
	}
	t.Logf("%d edits of %s, %d answered by the engine for %s (%d clean, %d with failing examples); its functions' examples evaluated %d times, reused %d times; %d layout-only edits (%d after a failure quoting a contract, %d changing a message's quote) evaluated %d functions' examples",
		edits, libName, answered, appName, clean, withFailures, evaluated, reused, layout.edits, layout.quoting, layout.requoted, layout.evaluated)
	if answered < edits/2 || clean < answered/4 || withFailures == 0 || reused == 0 || evaluated == 0 || layout.edits < edits/20 || layout.quoting < minQuoting {
		t.Fatalf("the test does not exercise the importer path: %d answered, %d clean, %d failing, %d evaluated, %d reused", answered, clean, withFailures, evaluated, reused)
	}
}

// TestExampleCacheReach checks which functions' examples an edit makes
// run again: those whose reach (the declarations they look up,
// transitively, their own included) the edit changed the forms of, and
// those whose failed outcome quotes or places an error in a declaration
// whose text changed (halve's, in safe_div's contract), and no other: a
// layout-only edit inside a function with examples (a comment, a
// reindentation, a blank line, spaces inside an example's call) runs
// none, its failures' ranges, places and quoted calls following the new
// text; and that the diagnostics are a fresh full check's.
func TestExampleCacheReach(t *testing.T) {
	const src = `(module m
  (capsule "1.0")
  (type Score I64)
  (function limit (output I64) (body 10))
  (function low (input (x Score)) (output Bool) (body (< x (limit)))
    (example (low 3) true))
  (function twice (input (x I64)) (output I64) (body (* x 2))
    (example (twice 2) 4))
  (function quad (input (x I64)) (output I64) (body (twice (twice x)))
    (example (quad 1) 4))
  (function safe_div (input (a I64) (b I64)) (output I64)
    (requires (> b 0))
    (body (/ a b)))
  (function halve (input (x I64)) (output I64) (body (safe_div x 0))
    (example (halve 4) 2))
  (function inc (input (x I64)) (output I64) (body (+ x 1))
    (example (inc 1) 3)
    (example (inc (/ 4 0)) 1))
  (function bad (input (x I64)) (output I64)
    (body (+ 1 (/ x 0)))
    (example (bad 1) 0))
  (function pos (input (x I64)) (output I64)
    (requires (> x 0))
    (body x)
    (example (pos 0) 0))
  (function ratio (input (a I64) (b I64)) (output I64)
    (body
      (+ 1
        (/ a b))))
  (function spread (input (x I64)) (output I64) (body (ratio x (- x x)))
    (example (spread 3) 1))
  (function bounded (input (x I64)) (output I64)
    (requires (and (> x 0)
                   (< x 100)))
    (ensures (>= result
                 x))
    (body (- x 1))
    (example (bounded 5) 4))
  (machine M
    (context (n I64))
    (event Go)
    (initial idle)
    (state idle (on Go (target idle)))))
`
	type counts struct{ Evaluated, Reused, Failures int }
	tests := []struct {
		name, from, to string
		want           counts
	}{
		{"a comment between declarations", "  (function twice", "  ;; note\n  (function twice", counts{0, 9, 7}},
		{"the machine", "(state idle", "(state  idle", counts{0, 9, 7}},
		{"the function low calls", "(body 10)", "(body 2)", counts{1, 8, 8}},
		{"the layout of the type low's input names", "(type Score I64)", "(type Score\n    I64)", counts{0, 9, 7}},
		{"twice's body: twice and quad run again", "(* x 2)", "(* x 3)", counts{2, 7, 9}},
		{"quad's example only", "(quad 1) 4", "(quad 1) 5", counts{1, 8, 8}},
		{"a comment inside a callee", "(function limit (output I64) (body 10))", "(function limit (output I64)\n    ;; ten\n    (body 10))", counts{0, 9, 7}},
		{"a callee reindented", "(function limit (output I64) (body 10))", "(function limit\n      (output I64)\n        (body 10))", counts{0, 9, 7}},
		{"a comment inside a callee with examples: none runs again", "(body (* x 2))", "(body (* x ;; double\n    2))", counts{0, 9, 7}},
		{"a comment before the contract a failure quotes", "    (requires (> b 0))", "    ;; b positive\n    (requires (> b 0))", counts{0, 9, 7}},
		{"the layout of the contract a failure quotes", "(> b 0)", "( > b 0)", counts{0, 9, 7}},
		{"a callee's body", "(/ a b)", "(/ b a)", counts{1, 8, 7}},
		// layout inside the function whose examples run: none runs again,
		// the diagnostics' spans and call text follow the new text
		{"a comment inside a failing function's body", "(body (safe_div x 0))", "(body\n    ;; by zero\n    (safe_div x 0))", counts{0, 9, 7}},
		{"spaces inside a failing example's call", "(example (halve 4) 2)", "(example ( halve   4 ) 2)", counts{0, 9, 7}},
		{"a comment inside a failing example's call", "(inc 1) 3", "(inc ;; one\n      1) 3", counts{0, 9, 7}},
		{"a failing function reindented", "(function inc (input (x I64)) (output I64) (body (+ x 1))\n    (example (inc 1) 3)", "(function inc\n      (input (x I64))\n      (output I64)\n      (body (+ x 1))\n\n      (example (inc 1)\n        3)", counts{0, 9, 7}},
		{"a blank line inside a function whose body fails", "(body (+ 1 (/ x 0)))\n", "(body (+ 1 (/ x 0)))\n\n", counts{0, 9, 7}},
		{"a comment inside the arguments a runtime error stops in", "(inc (/ 4 0))", "(inc (/ 4 ;; zero\n      0))", counts{0, 9, 7}},
		{"a comment before the place a runtime error stops in its function", "(body (+ 1 (/ x 0)))", "(body (+ 1\n      ;; zero\n      (/ x  0)))", counts{0, 9, 7}},
		{"spaces inside a passing example's call", "(twice 2) 4", "(twice   2 ) 4", counts{0, 9, 7}},
		// real edits of the function's own declaration run its examples
		{"a failing example's expected value", "(inc 1) 3", "(inc 1) 2", counts{1, 8, 6}},
		{"a failing example's argument", "(inc (/ 4 0))", "(inc (/ 4 2))", counts{1, 8, 7}},
		{"a body a runtime error stops in", "(/ x 0)", "(/ 0 x)", counts{1, 8, 7}},
		// a failure quoting a contract (the function's own, a callee's)
		// keeps the quote by its form: a layout edit runs nothing again,
		// the message quotes the new text
		{"the layout of the function's own contract a failure quotes", "(> x 0)", "( > x  0 )", counts{0, 9, 7}},
		{"a comment inside a function whose own contract fails", "(body x)\n    (example (pos", "(body ;; as is\n      x)\n    (example (pos", counts{0, 9, 7}},
		{"a comment inside a multi-line contract a failure quotes", "(>= result\n                 x)", "(>= result ;; at least x\n                 x)", counts{0, 9, 7}},
		{"a multi-line contract a failure quotes joined", "(ensures (>= result\n                 x))", "(ensures (>= result x))", counts{0, 9, 7}},
		{"a contract that holds joined", "(requires (and (> x 0)\n                   (< x 100)))", "(requires (and (> x 0) (< x 100)))", counts{0, 9, 7}},
		{"a comment inside a callee a runtime error stops in", "(+ 1\n        (/ a b))", "(+ 1\n        ;; by b\n        (/ a b))", counts{0, 9, 7}},
		{"a callee a runtime error stops in reindented", "(body\n      (+ 1\n        (/ a b))))", "(body (+ 1 (/ a b))))", counts{0, 9, 7}},
		// an edit of the forms a failure quotes or stops in runs it again
		{"an atom of the contract a failure quotes", "(>= result\n                 x)", "(> result\n                 x)", counts{1, 8, 7}},
		{"the contract a failure quotes, now holding", "(>= result\n                 x)", "(>= result\n                 (- x 1))", counts{1, 8, 6}},
		{"the callee a runtime error stops in", "(+ 1\n        (/ a b))", "(+ 2\n        (/ a b))", counts{1, 8, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := syntax.NewDocument([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			const path = "/virtual/reach.caps"
			base := check.Check(ast.Build(syntax.Read(d.CST())), check.Options{Path: path})
			if base.HasErrors() {
				t.Fatalf("the module has errors: %v", base.Diagnostics)
			}
			cache := &diagnose.ExampleCache{}
			if _, st, ok := cache.Diagnostics(base, nil); !ok || st.Evaluated != 9 {
				t.Fatalf("first evaluation: ok %v, %+v", ok, st)
			}
			at := strings.Index(src, tt.from)
			if at < 0 {
				t.Fatalf("%q not found", tt.from)
			}
			if err := d.Edit(at, at+len(tt.from), []byte(tt.to)); err != nil {
				t.Fatal(err)
			}
			res, ok := base.RecheckResult(d.CST())
			if !ok {
				t.Fatal("the engine declined the edit")
			}
			ds, st, ok := cache.Diagnostics(res, nil)
			if !ok {
				t.Fatal("the examples were not evaluated from the engine's answer")
			}
			if diff := cmp.Diff(tt.want, counts{st.Evaluated, st.Reused, len(ds)}); diff != "" {
				t.Errorf("functions evaluated, reused, failures (-want +got):\n%s", diff)
			}
			oracle := check.Check(ast.Build(syntax.Read(d.CST())), check.Options{Path: path})
			want := diagnose.Sorted(diagnose.Run(oracle).Diagnostics)
			got := diagnose.Sorted(append(append([]syntax.Diagnostic(nil), res.Diagnostics...), ds...))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("incremental examples differ from a full check (-full +incremental):\n%s", diff)
			}
		})
	}
}

// TestExampleCacheImportReach checks which of an importer's functions'
// examples an edit of the module it imports makes run again: those that
// read, directly or through the imported module's own declarations, a
// declaration whose forms changed, and no other; and that the
// diagnostics are a fresh full check's.
func TestExampleCacheImportReach(t *testing.T) {
	const app = `(module app
  (capsule "1.0")
  (import util)
  (function use_a (input (x I64)) (output I64) (body (util.a x))
    (example (use_a 1) 2))
  (function use_b (input (x I64)) (output I64) (body (util.b x))
    (example (use_b 1) 3))
  (function use_c (input (x I64)) (output I64) (body (util.c x))
    (example (use_c 1) 1)))
`
	const util = `;; helpers
(module util
  (capsule "1.0")
  (function helper (input (x I64)) (output I64) (body (+ x 1)))
  (function a (input (x I64)) (output I64) (body (* x 2)))
  (function b (input (x I64)) (output I64) (body (+ (helper x) 1)))
  (function c (input (x I64)) (output I64)
    (requires (> x 5))
    (body x))
  (function unused (input (x I64)) (output I64) (body (- x 1))))
`
	type counts struct{ Evaluated, Reused, Failures int }
	tests := []struct {
		name, from, to string
		want           counts
	}{
		{"a declaration no example reads", "(- x 1)", "(- x 2)", counts{0, 3, 1}},
		{"a comment inside a declaration read", "(function a (input (x I64))", "(function a\n    ;; doubles\n    (input (x I64))", counts{0, 3, 1}},
		{"a comment between declarations", "  (function b", "  ;; b\n  (function b", counts{0, 3, 1}},
		{"a comment at the top of the module", ";; helpers", ";; helpers, edited", counts{0, 3, 1}},
		{"a declaration read reindented", "(function b (input (x I64)) (output I64) (body (+ (helper x) 1)))", "(function b\n      (input (x I64))\n      (output I64)\n      (body (+ (helper x) 1)))", counts{0, 3, 1}},
		{"a declaration read", "(* x 2)", "(* x 3)", counts{1, 2, 2}},
		{"a declaration read through another", "(+ x 1)", "(+ x 2)", counts{1, 2, 2}},
		{"the layout of an imported contract a failure quotes", "(requires (> x 5))", "(requires (>  x\n 5))", counts{0, 3, 1}},
		{"a comment in an imported contract a failure quotes", "(requires (> x 5))", "(requires (> x ;; five\n 5))", counts{0, 3, 1}},
		{"an atom of an imported contract a failure quotes", "(> x 5)", "(>= x 5)", counts{1, 2, 1}},
		{"an imported contract", "(> x 5)", "(> x 0)", counts{1, 2, 0}},
	}
	dir := t.TempDir()
	appPath, utilPath := filepath.Join(dir, "app.caps"), filepath.Join(dir, "util.caps")
	for p, text := range map[string]string{appPath: app, utilPath: util} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			utilText := []byte(util)
			readFile := func(p string) ([]byte, error) {
				switch p {
				case utilPath:
					return utilText, nil
				case appPath:
					return []byte(app), nil
				}
				return nil, os.ErrNotExist
			}
			checkApp := func(l *load.Loader) *check.Result {
				cst, err := syntax.Parse([]byte(app))
				if err != nil {
					t.Fatal(err)
				}
				return l.CheckFileNoHash(appPath, ast.Build(syntax.Read(cst))).Result
			}
			loader := &load.Loader{ReadFile: readFile}
			base := checkApp(loader)
			if base.HasErrors() {
				t.Fatalf("the importer has errors: %v", base.Diagnostics)
			}
			cache := &diagnose.ExampleCache{}
			if _, st, ok := cache.Diagnostics(base, nil); !ok || st.Evaluated != 3 {
				t.Fatalf("first evaluation: ok %v, %+v", ok, st)
			}
			at := strings.Index(util, tt.from)
			if at < 0 {
				t.Fatalf("%q not found", tt.from)
			}
			utilText = []byte(util[:at] + tt.to + util[at+len(tt.from):])
			loader.Forget(utilPath)
			res, ok := loader.RecheckImports(appPath, base, nil)
			if !ok {
				t.Fatal("the engine declined the edit")
			}
			ds, st, ok := cache.Diagnostics(res, nil)
			if !ok {
				t.Fatal("the examples were not evaluated from the engine's answer")
			}
			if diff := cmp.Diff(tt.want, counts{st.Evaluated, st.Reused, len(ds)}); diff != "" {
				t.Errorf("functions evaluated, reused, failures (-want +got):\n%s", diff)
			}
			oracle := checkApp(&load.Loader{ReadFile: readFile})
			want := diagnose.Sorted(diagnose.Run(oracle).Diagnostics)
			got := diagnose.Sorted(append(append([]syntax.Diagnostic(nil), res.Diagnostics...), ds...))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("incremental examples differ from a full check (-full +incremental):\n%s", diff)
			}
		})
	}
}
