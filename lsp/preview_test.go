package lsp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/lsp/lsptest"
)

// previewSrc has a surface bound to a machine (data model: the context and
// the state) and one with declared state and an action.
const previewSrc = `(module demo.lamp
  (capsule "1")
  (profile ui.a2ui)
  (surface lamp_ui
    (title "Lamp <1>")
    (bind Lamp)
    (event Toggle))
  (surface note_ui
    (state (note Text) (level U64))
    (action save
      (input (note Text) (urgent Bool))
      (requires-user-confirmation true)))
  (machine Lamp
    (context (on Bool) (level U64))
    (event Toggle (level U64))
    (initial off)
    (state off
      (on Toggle (target lit) (assign (on true) (level event.level))
        (effects (a2ui.emit lamp_ui))))
    (state lit
      (on Toggle (target off) (assign (on false))))))
`

type previewResult struct {
	Surface  string            `json:"surface"`
	Title    string            `json:"title"`
	Machine  string            `json:"machine"`
	Source   string            `json:"source"`
	State    string            `json:"state"`
	Note     string            `json:"note"`
	Data     any               `json:"data"`
	Messages []json.RawMessage `json:"messages"`
	HTML     string            `json:"html"`
}

// messages decodes the result's messages, for comparison with the lines
// caps a2ui-envelope prints.
func (r previewResult) messages(t *testing.T) []any {
	var out []any
	for _, m := range r.Messages {
		var v any
		if err := json.Unmarshal(m, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func jsonValues(t *testing.T, lines ...string) []any {
	var out []any
	for _, l := range lines {
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		out = append(out, v)
	}
	return out
}

const (
	lampCreate     = `{"version":"v0.9","createSurface":{"surfaceId":"lamp_ui","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json","sendDataModel":true}}`
	lampComponents = `{"version":"v0.9","updateComponents":{"surfaceId":"lamp_ui","components":[{"id":"root","component":"Card","child":"body"},{"id":"body","component":"Column","children":["title","state","actions"]},{"id":"title","component":"Text","text":"Lamp <1>","variant":"h2"},{"id":"state","component":"Column","children":["state_on","state_level","state_state"]},{"id":"state_on","component":"CheckBox","label":"on","value":{"path":"/on"}},{"id":"state_level","component":"Row","children":["state_level_label","state_level_value"]},{"id":"state_level_label","component":"Text","text":"level","variant":"caption"},{"id":"state_level_value","component":"Text","text":{"path":"/level"}},{"id":"state_state","component":"Row","children":["state_state_label","state_state_value"]},{"id":"state_state_label","component":"Text","text":"state","variant":"caption"},{"id":"state_state_value","component":"Text","text":{"path":"/state"}},{"id":"actions","component":"Column","children":["event_Toggle"]},{"id":"event_Toggle","component":"Column","children":["event_Toggle_level","event_Toggle_submit"]},{"id":"event_Toggle_level","component":"TextField","label":"level","value":{"path":"/events/Toggle/level"},"variant":"number"},{"id":"event_Toggle_submit","component":"Button","child":"event_Toggle_submit_label","action":{"event":{"name":"Toggle","context":{"level":{"path":"/events/Toggle/level"}}}}},{"id":"event_Toggle_submit_label","component":"Text","text":"Toggle"}]}}`
	lampSection    = `<section data-a2ui-surface="lamp_ui" data-catalog="https://a2ui.org/specification/v0_9/basic_catalog.json"><h2>Lamp &lt;1&gt;</h2><dl>`
	lampForm       = `<form data-event="Toggle" data-requires-user-confirmation="false"><label>level<input type="text" name="level" value=""/></label><button type="submit">Toggle</button></form></section>`
)

// TestPreviewSurface: a "Preview surface" lens above each surface runs
// capsulang.previewSurface, which answers with the surface rendered as the
// React target's component renders it and the A2UI messages of caps
// a2ui-envelope: with default data, then with the bound machine's state
// and context after its last dry run.
func TestPreviewSurface(t *testing.T) {
	c := start(t, nil)
	if p := open(t, c, previewSrc, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("the module does not check clean: %+v", p.Diagnostics)
	}
	type lens struct {
		Range   rng `json:"range"`
		Command struct {
			Title     string            `json:"title"`
			Command   string            `json:"command"`
			Arguments []json.RawMessage `json:"arguments"`
		} `json:"command"`
	}
	var lenses []lens
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses); err != nil {
		t.Fatal(err)
	}
	var previews []string
	var lampArgs json.RawMessage
	for _, l := range lenses {
		if l.Command.Command == "capsulang.previewSurface" {
			previews = append(previews, l.Command.Title+" "+string(l.Command.Arguments[0])+" "+fmtRange(l.Range))
			if lampArgs == nil {
				lampArgs = l.Command.Arguments[0]
			}
		}
	}
	wantLenses := []string{
		`◧ Preview surface {"uri":"` + uri + `","surface":"lamp_ui"} 3:11-3:18`,
		`◧ Preview surface {"uri":"` + uri + `","surface":"note_ui"} 7:11-7:18`,
	}
	if diff := cmp.Diff(wantLenses, previews); diff != "" {
		t.Fatalf("lenses (-want +got):\n%s", diff)
	}
	preview := func(args any) (previewResult, error) {
		var r previewResult
		err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.previewSurface", "arguments": []any{args}}, &r)
		return r, err
	}

	// No dry run yet: the default data model (zero values, initial state).
	r, err := preview(lampArgs)
	if err != nil {
		t.Fatal(err)
	}
	lampDefault := `{"version":"v0.9","updateDataModel":{"surfaceId":"lamp_ui","path":"/","value":{"on":false,"level":"0","state":"off"}}}`
	if diff := cmp.Diff(jsonValues(t, lampCreate, lampComponents, lampDefault), r.messages(t)); diff != "" {
		t.Errorf("default messages (-want +got):\n%s", diff)
	}
	r.Messages = nil
	want := previewResult{Surface: "lamp_ui", Title: "Lamp <1>", Machine: "Lamp", Source: "default", Data: jsonValues(t, `{"on":false,"level":"0","state":"off"}`)[0],
		HTML: lampSection + `<dt>on</dt><dd data-path="/on">false</dd><dt>level</dt><dd data-path="/level">0</dd><dt>state</dt><dd data-path="/state">off</dd></dl>` + lampForm}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("default preview (-want +got):\n%s", diff)
	}

	// After a dry run: the state and context after its last accepted step.
	var run struct{ Final string }
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.dryRun", "arguments": []any{map[string]any{"uri": uri, "machine": "Lamp",
		"events": []any{map[string]any{"event": "Toggle", "payload": map[string]any{"level": 7}}, map[string]any{"event": "Nope", "payload": map[string]any{}}}}}}, &run); err != nil {
		t.Fatal(err)
	}
	if r, err = preview(lampArgs); err != nil {
		t.Fatal(err)
	}
	lampData := `{"version":"v0.9","updateDataModel":{"surfaceId":"lamp_ui","path":"/","value":{"on":true,"level":"7","state":"lit"}}}`
	if diff := cmp.Diff(jsonValues(t, lampCreate, lampComponents, lampData), r.messages(t)); diff != "" {
		t.Errorf("dry-run messages (-want +got):\n%s", diff)
	}
	r.Messages = nil
	want = previewResult{Surface: "lamp_ui", Title: "Lamp <1>", Machine: "Lamp", Source: "dry-run", State: "lit", Data: jsonValues(t, `{"on":true,"level":"7","state":"lit"}`)[0],
		HTML: lampSection + `<dt>on</dt><dd data-path="/on">true</dd><dt>level</dt><dd data-path="/level">7</dd><dt>state</dt><dd data-path="/state">lit</dd></dl>` + lampForm}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("dry-run preview (-want +got):\n%s", diff)
	}

	// A surface bound to no machine: its defaults, whatever was dry-run.
	if r, err = preview(map[string]any{"uri": uri, "surface": "note_ui"}); err != nil {
		t.Fatal(err)
	}
	noteData := `{"version":"v0.9","updateDataModel":{"surfaceId":"note_ui","path":"/","value":{"note":"","level":"0"}}}`
	if got := r.messages(t); len(got) != 3 || !cmp.Equal(got[2], jsonValues(t, noteData)[0]) {
		t.Errorf("note_ui messages: %s", r.Messages)
	}
	r.Messages = nil
	want = previewResult{Surface: "note_ui", Title: "Note ui", Source: "default", Data: jsonValues(t, `{"note":"","level":"0"}`)[0],
		HTML: `<section data-a2ui-surface="note_ui" data-catalog="https://a2ui.org/specification/v0_9/basic_catalog.json"><h2>Note ui</h2>` +
			`<dl><dt>note</dt><dd data-path="/note"></dd><dt>level</dt><dd data-path="/level">0</dd></dl>` +
			`<form data-action="save" data-requires-user-confirmation="true"><label>note<input type="text" name="note" value=""/></label>` +
			`<label>urgent<input type="checkbox" name="urgent"/></label><button type="submit">save</button></form></section>`}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("note_ui preview (-want +got):\n%s", diff)
	}

	// The machine changed since its dry run: the remembered context no
	// longer fits, and the preview says so and shows the defaults.
	changed := strings.NewReplacer("(context (on Bool)", "(context (on U64)", "(assign (on true)", "(assign (on 1)", "(assign (on false)", "(assign (on 0)").Replace(previewSrc)
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": changed}}})
	if p := waitDiags(t, c, 2); len(p.Diagnostics) != 0 {
		t.Fatalf("the changed module does not check clean: %+v", p.Diagnostics)
	}
	if r, err = preview(lampArgs); err != nil {
		t.Fatal(err)
	}
	if r.Source != "default" || r.State != "" || !cmp.Equal(r.Data, jsonValues(t, `{"on":"0","level":"0","state":"off"}`)[0]) ||
		r.Note != "the last dry run of Lamp does not fit the surface's data model (field `on` of surface lamp_ui: expected U64, found true); showing the default data" {
		t.Errorf("stale dry run: %+v", r)
	}

	// Errors: an unknown surface, a document with errors.
	_, err = preview(map[string]any{"uri": uri, "surface": "lamp_uii"})
	if e, ok := err.(*lsptest.RPCError); !ok || e.Code != -32602 || e.Message != "module demo.lamp has no surface `lamp_uii`; did you mean `lamp_ui`?" {
		t.Errorf("unknown surface: %v", err)
	}
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": previewSrc[:len(previewSrc)-4] + " (bogus))))\n"}}})
	waitDiags(t, c, 3)
	_, err = preview(lampArgs)
	if e, ok := err.(*lsptest.RPCError); !ok || e.Code != -32803 || e.Message != "the file has errors; fix them before previewing a surface" {
		t.Errorf("file with errors: %v", err)
	}
}

func fmtRange(r rng) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
}
