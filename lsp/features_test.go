package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRename(t *testing.T) {
	c := start(t, nil)
	open(t, c, claimSrc, 1)
	td := map[string]any{"uri": uri}
	var prep struct {
		Range       rng    `json:"range"`
		Placeholder string `json:"placeholder"`
	}
	if err := c.Call("textDocument/prepareRename", map[string]any{"textDocument": td, "position": pos{8, 27}}, &prep); err != nil {
		t.Fatal(err)
	}
	if prep.Placeholder != "scored" || prep.Range != (rng{pos{8, 25}, pos{8, 31}}) {
		t.Fatalf("prepare: %+v", prep)
	}
	var edit struct {
		Changes map[string][]struct {
			Range   rng    `json:"range"`
			NewText string `json:"newText"`
		} `json:"changes"`
	}
	if err := c.Call("textDocument/rename", map[string]any{"textDocument": td, "position": pos{8, 27}, "newName": "rated"}, &edit); err != nil {
		t.Fatal(err)
	}
	var got []rng
	for _, e := range edit.Changes[uri] {
		if e.NewText != "rated" {
			t.Errorf("new text %q", e.NewText)
		}
		got = append(got, e.Range)
	}
	if diff := cmp.Diff([]rng{{pos{9, 11}, pos{9, 17}}, {pos{8, 25}, pos{8, 31}}}, got); diff != "" {
		t.Errorf("rename edits (-want +got):\n%s", diff)
	}
	// collisions and bad names are refused
	if err := c.Call("textDocument/rename", map[string]any{"textDocument": td, "position": pos{8, 27}, "newName": "closed"}, &edit); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("collision: %v", err)
	}
	if err := c.Call("textDocument/rename", map[string]any{"textDocument": td, "position": pos{8, 27}, "newName": "9x"}, &edit); err == nil {
		t.Errorf("bad name accepted")
	}
	if err := c.Call("textDocument/prepareRename", map[string]any{"textDocument": td, "position": pos{1, 3}}, &prep); err == nil {
		t.Errorf("keyword is renamable")
	}
}

func TestSemanticTokens(t *testing.T) {
	c := start(t, nil)
	open(t, c, claimSrc, 1)
	var res struct {
		ResultID string   `json:"resultId"`
		Data     []uint32 `json:"data"`
	}
	if err := c.Call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Data)%5 != 0 || len(res.Data) == 0 {
		t.Fatalf("data %v", res.Data)
	}
	// Decode and find the token for `scored` in (target scored) on line 8.
	legend := []string{"namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter", "variable", "property", "enumMember", "event", "function", "method", "macro", "keyword", "modifier", "comment", "string", "number", "regexp", "operator"}
	line, char := 0, 0
	found := map[string]string{}
	lines := strings.Split(claimSrc, "\n")
	for i := 0; i < len(res.Data); i += 5 {
		if res.Data[i] > 0 {
			line += int(res.Data[i])
			char = int(res.Data[i+1])
		} else {
			char += int(res.Data[i+1])
		}
		text := lines[line][char : char+int(res.Data[i+2])]
		found[text+"@"+strings.TrimSpace(string(rune('0'+line)))] = legend[res.Data[i+3]]
	}
	for key, want := range map[string]string{"scored@8": "enumMember", "Submit@8": "event", "score@8": "property", "machine@2": "keyword", "U32@3": "type", "\"1\"@1": "string"} {
		if found[key] != want {
			t.Errorf("%s: %q, want %q", key, found[key], want)
		}
	}
	// a delta against the previous result with no change is empty
	var delta struct {
		Edits []any `json:"edits"`
	}
	if err := c.Call("textDocument/semanticTokens/full/delta", map[string]any{"textDocument": map[string]any{"uri": uri}, "previousResultId": res.ResultID}, &delta); err != nil {
		t.Fatal(err)
	}
	if len(delta.Edits) != 0 {
		t.Errorf("delta edits %v", delta.Edits)
	}
}

func TestCodeActionsFromRepairPlans(t *testing.T) {
	c := start(t, nil)
	bad := strings.Replace(claimSrc, "(target scored)", "(target scord)", 1)
	open(t, c, bad, 1)
	var actions []struct {
		Title       string `json:"title"`
		Kind        string `json:"kind"`
		IsPreferred bool   `json:"isPreferred"`
		Edit        struct {
			Changes map[string][]struct {
				Range   rng    `json:"range"`
				NewText string `json:"newText"`
			} `json:"changes"`
		} `json:"edit"`
	}
	if err := c.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        rng{pos{8, 26}, pos{8, 26}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Title)
	}
	want := []string{"Change `scord` to `scored` [safe]", "Declare state scord in machine Claim [review]", "Propose and assess: Declare state scord in machine Claim [review]"}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Fatalf("actions (-want +got):\n%s", diff)
	}
	if !actions[0].IsPreferred || actions[1].IsPreferred || actions[0].Kind != "quickfix" {
		t.Errorf("preferred/kind: %+v", actions)
	}
	e := actions[0].Edit.Changes[uri]
	if len(e) != 1 || e[0].Range != (rng{pos{8, 25}, pos{8, 30}}) || e[0].NewText != "scored" {
		t.Errorf("edit: %+v", e)
	}
}

func TestFormattingAndSourceActions(t *testing.T) {
	c := start(t, nil)
	src := "(module f\n  (capsule \"1\")\n  ;; second\n  (function zeta\n    (output I64)\n    (body   2))\n  ;; first\n  (function alpha\n    (output I64)\n    (body 1)))\n"
	open(t, c, src, 1)
	td := map[string]any{"uri": uri}
	var edits []struct {
		Range   rng    `json:"range"`
		NewText string `json:"newText"`
	}
	if err := c.Call("textDocument/formatting", map[string]any{"textDocument": td, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits); err != nil {
		t.Fatal(err)
	}
	// the only change: the extra spaces in (body   2)
	if len(edits) != 1 || edits[0].Range != (rng{pos{5, 10}, pos{5, 12}}) || edits[0].NewText != "" {
		t.Fatalf("format edits: %+v", edits)
	}
	var actions []struct {
		Title string `json:"title"`
		Kind  string `json:"kind"`
		Edit  struct {
			Changes map[string][]struct {
				Range   rng    `json:"range"`
				NewText string `json:"newText"`
			} `json:"changes"`
		} `json:"edit"`
	}
	if err := c.Call("textDocument/codeAction", map[string]any{"textDocument": td, "range": rng{pos{0, 0}, pos{0, 0}},
		"context": map[string]any{"diagnostics": []any{}, "only": []string{"source.organizeDeclarations"}}}, &actions); err != nil {
		t.Fatal(err)
	}
	if len(actions) != 1 || actions[0].Kind != "source.organizeDeclarations" {
		t.Fatalf("actions: %+v", actions)
	}
	// apply the edit and compare
	lines := strings.Split(src, "\n")
	e := actions[0].Edit.Changes[uri][0]
	before := strings.Join(lines[:e.Range.Start.Line], "\n") + "\n" + lines[e.Range.Start.Line][:e.Range.Start.Character]
	after := lines[e.Range.End.Line][e.Range.End.Character:] + "\n" + strings.Join(lines[e.Range.End.Line+1:], "\n")
	got := before + e.NewText + after
	want := "(module f\n  (capsule \"1\")\n  ;; first\n  (function alpha\n    (output I64)\n    (body 1))\n\n  ;; second\n  (function zeta\n    (output I64)\n    (body 2)))\n"
	if got != want {
		t.Errorf("organized:\n%s\nwant\n%s", got, want)
	}
	// a file with a syntax error is refused with a clear error
	change(c, 2, rng{pos{9, 13}, pos{9, 14}}, "")
	waitDiags(t, c, 2)
	err := c.Call("textDocument/formatting", map[string]any{"textDocument": td, "options": map[string]any{}}, &edits)
	if err == nil || !strings.Contains(err.Error(), "syntax errors") {
		t.Errorf("format of broken file: %v", err)
	}
}

func TestDocumentLinks(t *testing.T) {
	c := start(t, nil)
	src := "(module l (capsule \"1\")\n  (port p (protocol mcp) (endpoint \"https://tools.example.test/mcp\") (tool t)))\n"
	open(t, c, src, 1)
	var links []struct {
		Range  rng    `json:"range"`
		Target string `json:"target"`
	}
	if err := c.Call("textDocument/documentLink", map[string]any{"textDocument": map[string]any{"uri": uri}}, &links); err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 || links[0].Target != "https://tools.example.test/mcp" || links[0].Range != (rng{pos{1, 36}, pos{1, 66}}) {
		t.Fatalf("%+v", links)
	}
}

func TestExamplesLensesAndRun(t *testing.T) {
	c := start(t, nil)
	src := `(module e (capsule "1")
  (function double
    (input (x I64))
    (output I64)
    (example (double 2) 4)
    (example (double 3) 7)
    (body (* x 2))))
`
	// Checker diagnostics come first; the examples' results follow in a
	// second publish of the same version.
	if first := open(t, c, src, 1); len(first.Diagnostics) != 0 {
		t.Fatalf("phase 1: %+v", first.Diagnostics)
	}
	pd := waitDiags(t, c, 1)
	if len(pd.Diagnostics) != 1 || pd.Diagnostics[0].Code != "E_EXAMPLE_FAILED" || pd.Diagnostics[0].Range != (rng{pos{5, 24}, pos{5, 25}}) ||
		pd.Diagnostics[0].Message != "example (double 3) expected 7, got 6" {
		t.Fatalf("%+v", pd.Diagnostics)
	}
	var lenses []struct {
		Range   rng `json:"range"`
		Command struct {
			Title     string            `json:"title"`
			Command   string            `json:"command"`
			Arguments []json.RawMessage `json:"arguments"`
		} `json:"command"`
	}
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses); err != nil {
		t.Fatal(err)
	}
	if len(lenses) != 2 || lenses[0].Command.Title != "⚙ Compile…" || lenses[1].Command.Title != "▶ Run examples (1 of 2 failed)" || lenses[1].Range != (rng{pos{1, 12}, pos{1, 18}}) {
		t.Fatalf("%+v", lenses)
	}
	lenses = lenses[1:]
	var run struct {
		Passed, Failed int
		Examples       []struct {
			Call, Expected, Got string
			Passed              bool
		}
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": lenses[0].Command.Command, "arguments": lenses[0].Command.Arguments}, &run); err != nil {
		t.Fatal(err)
	}
	if run.Passed != 1 || run.Failed != 1 || run.Examples[1].Call != "(double 3)" || run.Examples[1].Got != "6" {
		t.Fatalf("%+v", run)
	}
	var call struct {
		Value string `json:"value"`
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.run", "arguments": []any{map[string]any{"uri": uri, "function": "double", "args": map[string]string{"x": "-21"}}}}, &call); err != nil {
		t.Fatal(err)
	}
	if call.Value != "-42" {
		t.Errorf("call: %+v", call)
	}
	var ex struct{ Code, Title string }
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.explain", "arguments": []any{map[string]any{"code": "E_EXAMPLE_FAILED"}}}, &ex); err != nil || ex.Code != "E_EXAMPLE_FAILED" {
		t.Fatalf("%v %+v", err, ex)
	}
}

func TestVisualizeAndCompileCommands(t *testing.T) {
	c := start(t, nil)
	src := "(module v (capsule \"1\")\n  (function inc (input (x I64)) (output I64) (body (+ x 1)))\n  (machine M (event Go) (initial a) (state a (on Go (target b))) (state b (type final))))\n"
	open(t, c, src, 1)
	var vis struct{ Mermaid string }
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.visualize", "arguments": []any{map[string]any{"uri": uri, "kind": "machine"}}}, &vis); err != nil {
		t.Fatal(err)
	}
	if vis.Mermaid != "---\ntitle: M\n---\nstateDiagram-v2\n    state \"a\" as a\n    state \"b\" as b\n    [*] --> a\n    a --> b : Go\n    b --> [*]\n" {
		t.Errorf("mermaid: %q", vis.Mermaid)
	}
	var comp struct {
		Target    string
		Artifacts []struct{ Name, Text string }
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.compile", "arguments": []any{map[string]any{"uri": uri, "target": "wat"}}}, &comp); err != nil {
		t.Fatal(err)
	}
	if comp.Target != "wat" || len(comp.Artifacts) != 1 || !strings.Contains(comp.Artifacts[0].Text, "(func $inc") {
		t.Errorf("compile: %+v", comp)
	}
	var plans struct {
		Plans []struct {
			Target, Status string
			Ready          bool
		}
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.compile", "arguments": []any{map[string]any{"uri": uri}}}, &plans); err != nil {
		t.Fatal(err)
	}
	ready := map[string]bool{}
	for _, p := range plans.Plans {
		ready[p.Target] = p.Ready
	}
	if !ready["wasm"] || !ready["mermaid"] || !ready["solidity"] || ready["native-aarch64"] {
		t.Errorf("plans: %+v", plans)
	}
}

// Editors may open documents at version 0 (Neovim does).
func TestVersionZero(t *testing.T) {
	c := start(t, nil)
	pd := open(t, c, strings.Replace(claimSrc, "(target scored)", "(target scord)", 1), 0)
	if len(pd.Diagnostics) != 1 || pd.Version != 0 {
		t.Fatalf("%+v", pd)
	}
}

func TestDryRunAndInlayHints(t *testing.T) {
	c := start(t, nil)
	open(t, c, claimSrc, 1)
	var run struct {
		Machine, Initial, Final string
		Steps                   []struct {
			Event, From, To string
			Accepted        bool
			Range           rng
		}
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.dryRun", "arguments": []any{map[string]any{"uri": uri, "machine": "Claim"}}}, &run); err != nil {
		t.Fatal(err)
	}
	if run.Final != "closed" || len(run.Steps) != 2 || run.Steps[0].To != "scored" || run.Steps[1].To != "closed" || !run.Steps[1].Accepted ||
		run.Steps[0].Range != (rng{pos{8, 6}, pos{8, 62}}) {
		t.Fatalf("%+v", run)
	}
	var hints []struct {
		Position pos    `json:"position"`
		Label    string `json:"label"`
	}
	if err := c.Call("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng{pos{0, 0}, pos{20, 0}}}, &hints); err != nil {
		t.Fatal(err)
	}
	if len(hints) != 2 || hints[0].Label != "⇒ scored" || hints[0].Position != (pos{8, 62}) || hints[1].Label != "⇒ closed" {
		t.Fatalf("%+v", hints)
	}
	// explicit events, one refused: the hint says why
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.dryRun", "arguments": []any{map[string]any{"uri": uri, "machine": "Claim", "events": []any{map[string]any{"event": "Close"}}}}}, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.Steps) != 1 || run.Steps[0].Accepted || run.Steps[0].To != "open" {
		t.Fatalf("%+v", run)
	}
}
