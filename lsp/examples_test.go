package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/lsp/lsptest"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// pubDiag is a published diagnostic reduced to what the tests compare.
type pubDiag struct {
	Code, Message string
	Range         syntax.Range
	Related       []syntax.Range
}

// pipelineDiagnostics is what caps check reports for text (a fresh full
// check through the diagnostics pipeline, examples included), as the
// protocol's ranges, sorted.
func pipelineDiagnostics(path, text string) []pubDiag {
	f, _ := ast.Parse([]byte(text))
	res := (&load.Loader{}).CheckFile(filepath.Join(filepath.Dir(path), "oracle", filepath.Base(path)), f).Result
	var out []pubDiag
	for _, x := range diagnose.Sorted(diagnose.Run(res).Diagnostics) {
		d := pubDiag{Code: x.Code, Message: x.Message, Range: f.Source.CST.Lines.Range(x.Span, syntax.UTF16)}
		for _, r := range x.Related {
			d.Related = append(d.Related, f.Source.CST.Lines.Range(r.Span, syntax.UTF16))
		}
		out = append(out, d)
	}
	return out
}

// publishedDiags decodes a publishDiagnostics notification's version and
// diagnostics (in the server's order: sorted).
func publishedDiags(p json.RawMessage) (int, []pubDiag) {
	var pd struct {
		Version     int
		Diagnostics []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Range   syntax.Range
			Related []struct {
				Location struct{ Range syntax.Range } `json:"location"`
			} `json:"relatedInformation"`
		} `json:"diagnostics"`
	}
	json.Unmarshal(p, &pd)
	var out []pubDiag
	for _, x := range pd.Diagnostics {
		d := pubDiag{Code: x.Code, Message: x.Message, Range: x.Range}
		for _, r := range x.Related {
			d.Related = append(d.Related, r.Location.Range)
		}
		out = append(out, d)
	}
	return pd.Version, out
}

// waitDiagnostics waits for a publish of version whose diagnostics are
// want, and fails with the difference from the last publish of that
// version when none comes.
func waitDiagnostics(t *testing.T, c *lsptest.Client, version int, want []pubDiag, what string) {
	t.Helper()
	var last []pubDiag
	seen := false
	_, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		v, got := publishedDiags(p)
		if v != version {
			return false
		}
		last, seen = got, true
		return cmp.Equal(want, got)
	})
	if err != nil {
		if !seen {
			t.Fatalf("%s: nothing published for version %d: %v", what, version, err)
		}
		t.Fatalf("%s: the last publish of version %d differs from a full check with its examples (-full +published):\n%s", what, version, cmp.Diff(want, last))
	}
}

// exampleModule is gen.Module with one function whose failing example
// stops in a callee (a requires clause), so that an example diagnostic
// has a related place in another declaration.
func exampleModule() string {
	text := string(gen.Module(150))
	const extra = `
  (function pick (input (x I64)) (output I64)
    (effects pure)
    (body (guard x))
    (example (pick 1) 1)
    (example (pick 0) 5))

  (function guard (input (x I64)) (output I64)
    (effects pure)
    (requires (> x 0))
    (body x))
`
	at := strings.LastIndex(text, ")")
	return text[:at] + extra + text[at:]
}

// TestEditsWithExamplesWithoutFullCheck edits a module with examples
// (their expected values, the bodies they run, lines inserted and removed
// before declarations so that the others move) and checks that every
// version's final publish holds exactly what caps check reports, examples
// included, while no full check of the file runs after it was opened:
// each edit is answered by the engine, and the examples' results come
// from the engine's answer, evaluating only the functions whose reach the
// edit changed.
func TestEditsWithExamplesWithoutFullCheck(t *testing.T) {
	c := startInProcess(t)
	const uri = "file:///tmp/incr/examples.caps"
	const path = "/tmp/incr/examples.caps"
	text := exampleModule()
	var fullChecks atomic.Int64
	load.CheckHook = func(abs string) {
		if abs == filepath.Clean(path) {
			fullChecks.Add(1)
		}
	}
	defer func() { load.CheckHook = nil }()
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
	waitDiagnostics(t, c, 1, pipelineDiagnostics(path, text), "version 1")
	full0, quick0, idle0, fall0, engine0, inline0 := fullChecks.Load(), quickChecks.Load(), idleFullChecks.Load(), exampleFallbacks.Load(), engineExamples.Load(), inlineExamples.Load()

	r := rand.New(rand.NewSource(5))
	edits := 60
	if testing.Short() {
		edits = 20
	}
	const note = "\n  ;; a note\n"
	failing := 0
	for version := 2; version < edits+2; version++ {
		var a, b int
		var ins, what string
		nth := func(s string) int { // the start of a random occurrence of s
			at := 0
			for k := r.Intn(strings.Count(text, s)); k >= 0; k-- {
				at += strings.Index(text[at:], s) + len(s)
			}
			return at - len(s)
		}
		switch r.Intn(4) {
		case 0: // an example's expected value
			at := nth(" 10) ") + len(" 10) ")
			a, b, ins, what = at, at+1, fmt.Sprint(r.Intn(10)), "an expected value"
		case 1: // a body the examples run
			if r.Intn(2) == 0 && strings.Contains(text, "hi lo)") {
				at := nth("hi lo)")
				a, b, ins, what = at, at+6, "hi x)", "a body back"
			} else {
				at := nth("hi x)")
				a, b, ins, what = at, at+5, "hi lo)", "a body"
			}
		case 2: // a line before a declaration: those after it move
			at := nth("\n  (function")
			a, b, ins, what = at, at, note, "a line inserted"
		default:
			if strings.Contains(text, note) {
				at := nth(note)
				a, b, ins, what = at, at+len(note), "", "a line removed"
			} else {
				at := nth("\n  (function")
				a, b, ins, what = at, at, note, "a line inserted"
			}
		}
		change := map[string]any{"text": ins, "range": map[string]any{"start": utf16Pos(text, a), "end": utf16Pos(text, b)}}
		text = text[:a] + ins + text[b:]
		c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": []any{change}})
		want := pipelineDiagnostics(path, text)
		n := 0
		for _, d := range want {
			if d.Code == "E_EXAMPLE_FAILED" {
				n++
			}
		}
		if n > 1 { // (pick's second example always fails)
			failing++
		}
		waitDiagnostics(t, c, version, want, fmt.Sprintf("version %d (%s)", version, what))
	}
	full, quick, idle, fall := fullChecks.Load()-full0, quickChecks.Load()-quick0, idleFullChecks.Load()-idle0, exampleFallbacks.Load()-fall0
	engine, inline := engineExamples.Load()-engine0, inlineExamples.Load()-inline0
	t.Logf("%d edits (%d with failing examples besides pick's): %d answered by the engine; the examples' results published from its answers %d times (%d at once, every outcome reused); %d full checks of the file, %d after an engine answer, %d fallbacks",
		edits, failing, quick, engine, inline, full, idle, fall)
	if full != 0 || idle != 0 || fall != 0 {
		t.Fatalf("%d full checks of the file ran while editing (%d after an engine answer, %d example fallbacks)", full, idle, fall)
	}
	if quick != int64(edits) || engine < int64(edits)/2 || inline == 0 || failing < edits/10 {
		t.Fatalf("the edits did not exercise the engine path: %d of %d answered, %d examples' publishes (%d inline), %d versions with failing examples", quick, edits, engine, inline, failing)
	}
}

// TestExampleFailureRangesAfterMoves checks the exact ranges of an example
// failure (on the expected value, with the place in another declaration
// where the runtime error stopped) through edits that move the
// declarations or reformat the contract its message quotes: the failure
// is kept from an earlier evaluation (by the path of its place's form in
// the declaration it lies in, whose tree the engine keeps with an older
// text's offsets, the quote read again from the new text) or evaluated
// again when the forms change, and lands where, and reads as, a full
// check puts it.
func TestExampleFailureRangesAfterMoves(t *testing.T) {
	c := startInProcess(t)
	const uri = "file:///tmp/incr/moves.caps"
	text := `(module m
  (capsule "1.0")
  (function pad (input (x I64)) (output I64) (effects pure) (body x))
  (function pick (input (x I64)) (output I64)
    (effects pure)
    (body (guard x))
    (example (pick 1) 1)
    (example (pick 0) 5))
  (function guard (input (x I64)) (output I64)
    (effects pure)
    (requires (> x 0))
    (body x)))
`
	const msg = "example (pick 0) expected 5, but evaluation failed: guard: requires (> x 0) does not hold for x = 0"
	rng := func(line, start, end int) syntax.Range {
		return syntax.Range{Start: syntax.Position{Line: line, Character: start}, End: syntax.Position{Line: line, Character: end}}
	}
	failure := func(line, char, relLine int) []pubDiag {
		return []pubDiag{{Code: "E_EXAMPLE_FAILED", Message: msg, Range: rng(line, char, char+1), Related: []syntax.Range{rng(relLine, 14, 21)}}}
	}
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
	waitDiagnostics(t, c, 1, failure(7, 22, 10), "version 1")
	edits := []struct {
		what     string
		from, to string // the first from becomes to
		want     []pubDiag
		inline   bool // the failure is published at once (its outcome reused)
	}{
		{"a line before every declaration", "  (function pad", "  ;; moved down\n  (function pad", failure(8, 22, 11), true},
		{"pad's body (the others keep their trees)", "(body x))\n  (function pick", "(body (+ x 0)))\n  (function pick", failure(8, 22, 11), true},
		{"a line inside guard (reused: a layout edit; the place follows it)", "    (requires", "    ;; why\n    (requires", failure(8, 22, 12), true},
		{"a space in the example's call (reused: a layout edit; the range follows it)", "(pick 0) 5", "(pick  0) 5", failure(8, 23, 12), true},
		{"a comment inside pick's body (reused)", "(body (guard x))", "(body ;; guarded\n      (guard x))", failure(9, 23, 13), true},
		{"lines before pick removed", "  ;; moved down\n", "", failure(8, 23, 12), true},
		// the quoted clause is kept by its form and quoted from the new
		// text: a comment and a line break inside it change the message
		// but run nothing again; a change of its forms does
		{"a comment and a line break inside guard's contract (reused; quoted anew)", "(requires (> x 0))", "(requires (> x ;; positive\n      0))",
			[]pubDiag{{Code: "E_EXAMPLE_FAILED", Message: "example (pick 0) expected 5, but evaluation failed: guard: requires (> x ;; positive 0) does not hold for x = 0",
				Range: rng(8, 23, 24), Related: []syntax.Range{{Start: syntax.Position{Line: 12, Character: 14}, End: syntax.Position{Line: 13, Character: 8}}}}}, true},
		{"guard's contract joined on one line (reused)", "(> x ;; positive\n      0)", "(> x    0)",
			[]pubDiag{{Code: "E_EXAMPLE_FAILED", Message: msg, Range: rng(8, 23, 24), Related: []syntax.Range{rng(12, 14, 24)}}}, true},
		{"an atom of guard's contract (evaluated again)", "(> x    0)", "(>= x    1)",
			[]pubDiag{{Code: "E_EXAMPLE_FAILED", Message: "example (pick 0) expected 5, but evaluation failed: guard: requires (>= x 1) does not hold for x = 0",
				Range: rng(8, 23, 24), Related: []syntax.Range{rng(12, 14, 25)}}}, false},
	}
	for i, e := range edits {
		version := i + 2
		a := strings.Index(text, e.from)
		if a < 0 {
			t.Fatalf("%s: %q not found", e.what, e.from)
		}
		inline0 := inlineExamples.Load()
		change := map[string]any{"text": e.to, "range": map[string]any{"start": utf16Pos(text, a), "end": utf16Pos(text, a+len(e.from))}}
		text = text[:a] + e.to + text[a+len(e.from):]
		c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": []any{change}})
		if full := pipelineDiagnostics("/tmp/incr/moves.caps", text); !cmp.Equal(full, e.want) {
			t.Fatalf("%s: the test's expectation is not a full check's (-full +want):\n%s", e.what, cmp.Diff(full, e.want))
		}
		waitDiagnostics(t, c, version, e.want, e.what)
		if inline := inlineExamples.Load() > inline0; inline != e.inline {
			t.Errorf("%s: the examples' results were published at once, reused: %v, want %v", e.what, inline, e.inline)
		}
	}
}

// TestImporterExamplesWithoutFullCheck edits the body of a function that
// an importer's examples call (through its own function) and checks that
// the importer publishes its examples' new results, exactly as caps
// check reports them, without a full check of the importer: the engine
// answers it (RecheckImports) and only the function whose examples reach
// the edited module runs again.
func TestImporterExamplesWithoutFullCheck(t *testing.T) {
	dir := t.TempDir()
	lib := `(module lib
  (capsule "1.0")
  (function bump (input (x I64)) (output I64) (effects pure) (body (+ x 1))))
`
	app := `(module app
  (capsule "1.0")
  (import lib)
  (function twice (input (x I64)) (output I64) (effects pure) (body (* x 2))
    (example (twice 2) 4))
  (function up (input (x I64)) (output I64) (effects pure) (body (lib.bump x))
    (example (up 1) 2)))
`
	for name, text := range map[string]string{"lib.caps": lib, "app.caps": app} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, c := wsServer(t, dir)
	libURI := protocol.DocumentURI("file://" + filepath.Join(dir, "lib.caps"))
	appURI := protocol.DocumentURI("file://" + filepath.Join(dir, "app.caps"))
	appPath := filepath.Join(dir, "app.caps")
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": libURI, "languageId": "capsulang", "version": 1, "text": lib}})
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": appURI, "languageId": "capsulang", "version": 1, "text": app}})
	s.settled(t, appURI, 1)
	s.settled(t, libURI, 1)
	var appChecks atomic.Int64
	load.CheckHook = func(abs string) {
		if abs == appPath {
			appChecks.Add(1)
		}
	}
	defer func() { load.CheckHook = nil }()
	// what caps check reports for app.caps, given lib's text
	appWants := func(libText string) []pubDiag {
		want := filepath.Join(t.TempDir(), "app.caps")
		os.WriteFile(filepath.Join(filepath.Dir(want), "lib.caps"), []byte(libText), 0o644)
		f, _ := ast.Parse([]byte(app))
		res := (&load.Loader{}).CheckFile(want, f).Result
		var out []pubDiag
		for _, x := range diagnose.Sorted(diagnose.Run(res).Diagnostics) {
			out = append(out, pubDiag{Code: x.Code, Message: x.Message, Range: f.Source.CST.Lines.Range(x.Span, syntax.UTF16)})
		}
		return out
	}
	ev0, ex0 := importStats.exampleEngine.Load(), engineExamples.Load()
	text := lib
	bodies := []string{"(+ x 2)", "(+ x 1)", "(- x 1)", "(+ x 1)"}
	for i, body := range bodies {
		version := i + 2
		a := strings.Index(text, "(body ") + len("(body ")
		b := strings.LastIndex(text, ")))")
		text = replaceText(c, libURI, version, text, a, b, body)
		s.settled(t, libURI, version)
		want := appWants(text)
		s.mu.Lock()
		got := s.docs[appURI].lastDiags
		s.mu.Unlock()
		raw, _ := json.Marshal(map[string]any{"version": 1, "diagnostics": got})
		_, have := publishedDiags(raw)
		if diff := cmp.Diff(want, have); diff != "" {
			t.Fatalf("lib's body %s: app.caps's diagnostics differ from caps check's (-check +published):\n%s", body, diff)
		}
		failing := len(want) > 0
		if failing != (body != "(+ x 1)") {
			t.Fatalf("lib's body %s: app.caps's example failures %v", body, want)
		}
	}
	ev, ex := importStats.exampleEngine.Load()-ev0, engineExamples.Load()-ex0
	t.Logf("%d edits of lib: app.caps answered by the engine %d times, its examples published from the engine's answer %d times; %d full checks of app.caps", len(bodies), ev, ex, appChecks.Load())
	if n := appChecks.Load(); n != 0 {
		t.Fatalf("app.caps was checked in full %d times", n)
	}
	if ev != int64(len(bodies)) || ex < int64(len(bodies)) {
		t.Fatalf("app.caps was answered by the engine %d times, its examples published from it %d times, for %d edits", ev, ex, len(bodies))
	}
}

// TestImporterQuotedContractAfterLayoutEdits edits, in an open imported
// module, the layout of the contract an importer's failing example
// quotes (a comment and a line break inside the clause, a line before
// its declaration, the clause joined again) and checks that the
// importer's published diagnostics are exactly caps check's, the quote
// read from the new text, while its examples run no more after being
// opened; an edit of the clause's forms runs the failing function's
// examples again.
func TestImporterQuotedContractAfterLayoutEdits(t *testing.T) {
	dir := t.TempDir()
	lib := `(module lib
  (capsule "1.0")
  (function big (input (x I64)) (output I64) (effects pure)
    (requires (> x 5))
    (body x)))
`
	app := `(module app
  (capsule "1.0")
  (import lib)
  (function twice (input (x I64)) (output I64) (effects pure) (body (* x 2))
    (example (twice 2) 4))
  (function use (input (x I64)) (output I64) (effects pure) (body (lib.big x))
    (example (use 1) 1)))
`
	for name, text := range map[string]string{"lib.caps": lib, "app.caps": app} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, c := wsServer(t, dir)
	libURI := protocol.DocumentURI("file://" + filepath.Join(dir, "lib.caps"))
	appURI := protocol.DocumentURI("file://" + filepath.Join(dir, "app.caps"))
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": libURI, "languageId": "capsulang", "version": 1, "text": lib}})
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": appURI, "languageId": "capsulang", "version": 1, "text": app}})
	s.settled(t, appURI, 1)
	s.settled(t, libURI, 1)
	// what caps check reports for app.caps, given lib's text
	appWants := func(libText string) []pubDiag {
		want := filepath.Join(t.TempDir(), "app.caps")
		os.WriteFile(filepath.Join(filepath.Dir(want), "lib.caps"), []byte(libText), 0o644)
		f, _ := ast.Parse([]byte(app))
		res := (&load.Loader{}).CheckFile(want, f).Result
		var out []pubDiag
		for _, x := range diagnose.Sorted(diagnose.Run(res).Diagnostics) {
			out = append(out, pubDiag{Code: x.Code, Message: x.Message, Range: f.Source.CST.Lines.Range(x.Span, syntax.UTF16)})
		}
		return out
	}
	const quoted = "example (use 1) expected 1, but evaluation failed: big: requires %s does not hold for x = 1"
	text := lib
	edits := []struct {
		what, from, to string
		quote          string // the clause as the message quotes it
		evaluated      int64  // functions of app.caps whose examples run again
	}{
		{"a comment and a line break inside the clause", "(> x 5)", "(> x ;; five\n      5)", "(> x ;; five 5)", 0},
		{"a line before the declaration", "  (function big", "  ;; big\n\n  (function big", "(> x ;; five 5)", 0},
		{"the clause joined again", "(> x ;; five\n      5)", "(>   x 5)", "(> x 5)", 0},
		{"an atom of the clause", "(>   x 5)", "(>= x 5)", "(>= x 5)", 1},
	}
	cache := s.exCaches.of(appURI)
	for i, e := range edits {
		version := i + 2
		a := strings.Index(text, e.from)
		if a < 0 {
			t.Fatalf("%s: %q not found", e.what, e.from)
		}
		ev0, _ := cache.Counts()
		text = replaceText(c, libURI, version, text, a, a+len(e.from), e.to)
		s.settled(t, libURI, version)
		want := appWants(text)
		if len(want) != 1 || want[0].Message != fmt.Sprintf(quoted, e.quote) {
			t.Fatalf("%s: caps check reports %v, not the failure quoting %s", e.what, want, e.quote)
		}
		s.mu.Lock()
		got := s.docs[appURI].lastDiags
		s.mu.Unlock()
		raw, _ := json.Marshal(map[string]any{"version": 1, "diagnostics": got})
		_, have := publishedDiags(raw)
		if diff := cmp.Diff(want, have); diff != "" {
			t.Fatalf("%s: app.caps's diagnostics differ from caps check's (-check +published):\n%s", e.what, diff)
		}
		if ev, _ := cache.Counts(); ev-ev0 != e.evaluated {
			t.Errorf("%s: the examples of %d functions of app.caps ran again, want %d", e.what, ev-ev0, e.evaluated)
		}
	}
}
