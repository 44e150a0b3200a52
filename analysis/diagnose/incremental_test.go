package diagnose_test

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
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/capsulang/caps/syntax/edittest"
)

// exampleSources returns the modules with function examples the
// differential test types over, by path: every example, checker fixture
// and pipeline fixture (failing examples) that has one, and the
// spec-shaped generated module.
func exampleSources(t *testing.T) map[string][]byte {
	t.Helper()
	srcs := map[string][]byte{}
	for _, pattern := range []string{"../../examples/*.caps", "../../examples/lib/*.caps", "../../testdata/check/*.caps", "../../testdata/pipeline/*.caps"} {
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
// example computes or expects (a digit in an example or a body), or
// moves declarations (a line inserted or removed before one), and
// otherwise one of edittest.Random's.
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
	switch r.Intn(8) {
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
	}
	return edittest.Random(r, src)
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
				if _, _, ok := cache.Diagnostics(base, nil); !ok {
					t.Fatalf("%s: the examples of a full check are not evaluated incrementally", edit)
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
	t.Logf("%d modules, %d edits, %d answered by the engine (%d clean with examples, %d with failing examples, %d with a runtime error's place); functions' examples evaluated %d times, reused %d times (%d examples run)",
		len(paths), edits, answered, clean, withFailures, related, evaluated, reused, examplesRun)
	if clean < answered/4 || withFailures < clean/10 || reused < 4*evaluated {
		t.Fatalf("the test does not exercise the cache: %d clean, %d failing, %d evaluated, %d reused", clean, withFailures, evaluated, reused)
	}
}

// TestIncrementalExamplesAfterImportEdits types at random in an imported
// module (examples/lib/money.caps) and compares, after every edit, the
// examples of its importer (examples/17_imports.caps, whose examples call
// the imported functions) evaluated from the engine's answer
// (Loader.RecheckImports over the previous answer) through the cache
// with a fresh full check of the importer through the pipeline.
func TestIncrementalExamplesAfterImportEdits(t *testing.T) {
	importer, _ := filepath.Abs("../../examples/17_imports.caps")
	libPath, _ := filepath.Abs("../../examples/lib/money.caps")
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
	for i := 0; i < 150; i++ {
		start, end, text := exampleEdit(r, libText)
		if broken && r.Intn(3) > 0 {
			start, end, text = edittest.Undo(libText, good)
		}
		libText = append(append(append([]byte(nil), libText[:start]...), text...), libText[end:]...)
		edit := fmt.Sprintf("edit %d of money.caps [%d,%d) -> %q", i, start, end, text)
		edits++
		loader.Forget(libPath)
		oracle := checkApp(&load.Loader{ReadFile: readFile})
		// (the edits go back towards the last text of money.caps without
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
			if _, _, ok := cache.Diagnostics(base, nil); !ok {
				t.Fatalf("%s: the examples of a full check are not evaluated incrementally", edit)
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
	t.Logf("%d edits of money.caps, %d answered by the engine for 17_imports.caps (%d clean, %d with failing examples); its functions' examples evaluated %d times, reused %d times",
		edits, answered, clean, withFailures, evaluated, reused)
	if answered < edits/2 || clean < answered/4 || withFailures == 0 || reused == 0 || evaluated == 0 {
		t.Fatalf("the test does not exercise the importer path: %d answered, %d clean, %d failing, %d evaluated, %d reused", answered, clean, withFailures, evaluated, reused)
	}
}

// TestExampleCacheReach checks which functions' examples an edit makes
// run again: those whose reach (the declarations they look up,
// transitively) the edit changed, and no other.
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
  (machine M
    (context (n I64))
    (event Go)
    (initial idle)
    (state idle (on Go (target idle)))))
`
	tests := []struct {
		name, from, to    string
		evaluated, reused int
		failures          int
	}{
		{"a comment between declarations", "  (function twice", "  ;; note\n  (function twice", 0, 3, 0},
		{"the machine", "(state idle", "(state  idle", 0, 3, 0},
		{"the function low calls", "(body 10)", "(body 2)", 1, 2, 1},
		{"the type low's input names", "(type Score I64)", "(type Score  I64)", 1, 2, 0},
		{"twice's body: twice and quad run again", "(* x 2)", "(* x 3)", 2, 1, 2},
		{"quad's example only", "(quad 1) 4", "(quad 1) 5", 1, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := syntax.NewDocument([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			base := check.Check(ast.Build(syntax.Read(d.CST())), check.Options{Path: "/virtual/reach.caps"})
			if base.HasErrors() {
				t.Fatalf("the module has errors: %v", base.Diagnostics)
			}
			cache := &diagnose.ExampleCache{}
			if _, st, ok := cache.Diagnostics(base, nil); !ok || st.Evaluated != 3 {
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
			if st.Evaluated != tt.evaluated || st.Reused != tt.reused || len(ds) != tt.failures {
				t.Errorf("evaluated %d, reused %d, %d failures; want %d, %d, %d", st.Evaluated, st.Reused, len(ds), tt.evaluated, tt.reused, tt.failures)
			}
		})
	}
}
