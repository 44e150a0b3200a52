package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

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
	t.Logf("%d edits (%d with failing examples besides pick's): %d answered by the engine; the examples' results published from its answers %d times (%d in the edit's first publish, every outcome reused); %d full checks of the file, %d after an engine answer, %d fallbacks",
		edits, failing, quick, engine, inline, full, idle, fall)
	if full != 0 || idle != 0 || fall != 0 {
		t.Fatalf("%d full checks of the file ran while editing (%d after an engine answer, %d example fallbacks)", full, idle, fall)
	}
	if quick != int64(edits) || engine < int64(edits)/2 || inline == 0 || failing < edits/10 {
		t.Fatalf("the edits did not exercise the engine path: %d of %d answered, %d examples' publishes (%d inline), %d versions with failing examples", quick, edits, engine, inline, failing)
	}
}
