package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsulang/caps/lsp/lsptest"
	"github.com/google/go-cmp/cmp"
)

// The dry run's scenario argument is confined to the workspace folders as
// imports are to their roots, decoded as strictly as `caps test
// --scenario`, and its errors never show the file's bytes (issue 19, item
// 9).
func TestDryRunScenarioIsConfined(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write := func(root, name, text string) string {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	doc := write(dir, "claims.caps", claimSrc)
	write(dir, "scenarios/ok.json", `{"machine": "Claim", "events": [{"event": "Submit", "payload": {"score": 3}, "expect": {"state": "scored"}}, {"advance": "1h"}, {"event": "Close"}]}`)
	write(dir, "scenarios/unknown.json", `{"machine": "Claim", "events": [{"event": "Submit", "expectt": {}}]}`)
	write(dir, "scenarios/other.json", `{"machine": "Other", "events": []}`)
	write(dir, "notes.json", "SECRET=hunter2\n")
	secret := write(outside, "secret.json", `{"machine": "Claim", "events": [{"event": "Close"}]}`)
	if err := os.Symlink(secret, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	realSecret, _ := filepath.EvalSymlinks(secret)
	c, _ := startIn(t, dir)
	docURI := "file://" + doc
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": docURI, "languageId": "capsulang", "version": 1, "text": claimSrc}})
	dryRun := func(scenario string) (*struct {
		Final string
		Steps []struct{ Event, To string }
	}, error) {
		var run struct {
			Final string
			Steps []struct{ Event, To string }
		}
		err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.dryRun", "arguments": []any{map[string]any{"uri": docURI, "machine": "Claim", "scenario": scenario}}}, &run)
		return &run, err
	}
	const only = "; a dry run reads scenario files only from inside them"
	for _, tc := range []struct{ scenario, want string }{
		{"/proc/self/environ", "scenario /proc/self/environ is outside the workspace folders (" + dir + ")" + only},
		{"file:///proc/self/environ", "scenario file:///proc/self/environ is outside the workspace folders (" + dir + ")" + only},
		{"../" + filepath.Base(outside) + "/secret.json", "scenario ../" + filepath.Base(outside) + "/secret.json is outside the workspace folders (" + dir + ")" + only},
		{"link.json", "scenario link.json resolves to " + realSecret + ", outside the workspace folders (" + dir + ")" + only},
		{"missing.json", "scenario missing.json: no such file"},
		{"scenarios", "scenario scenarios: not a regular file"},
		{"notes.json", "scenario notes.json: not a scenario: invalid JSON at byte 1"},
		{"scenarios/unknown.json", `scenario scenarios/unknown.json: not a scenario: unknown field "expectt"`},
		{"scenarios/other.json", "scenario scenarios/other.json is for machine Other, not Claim"},
	} {
		_, err := dryRun(tc.scenario)
		e, ok := err.(*lsptest.RPCError)
		if !ok || e.Code != -32602 || e.Message != tc.want {
			t.Errorf("scenario %q: got %v\nwant rpc error -32602: %s", tc.scenario, err, tc.want)
		}
	}
	// A scenario inside the workspace runs, named relative to the document
	// or as a URI; advances and cancellations are not replayed.
	for _, arg := range []string{"scenarios/ok.json", "file://" + filepath.Join(dir, "scenarios", "ok.json")} {
		run, err := dryRun(arg)
		if err != nil {
			t.Fatalf("scenario %s: %v", arg, err)
		}
		if len(run.Steps) != 2 || run.Steps[0].To != "scored" || run.Steps[1].To != "closed" {
			t.Errorf("scenario %s: %+v", arg, run)
		}
	}
	// The scenarios found beside the capsule are confined to its folder.
	if err := os.Symlink(secret, filepath.Join(dir, "scenarios", "claims.Claim.link.json")); err != nil {
		t.Fatal(err)
	}
	_, err := dryRun("")
	want := "scenario scenarios/claims.Claim.link.json resolves to " + realSecret + ", outside the document's folder (" + dir + "); a dry run reads scenario files only from inside them"
	if e, ok := err.(*lsptest.RPCError); !ok || e.Code != -32602 || e.Message != want {
		t.Errorf("a linked scenario beside the capsule: got %v\nwant rpc error -32602: %s", err, want)
	}
}

// A dry run steps through runtime/machinerun as caps machine-run --mode
// dry-run does: the payload fields an event leaves out get zero values and
// are listed as defaulted, in the given events and on the paths to the
// final states; a scenario's events stay as strict as caps test keeps them.
func TestDryRunDefaultsPayloads(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "claims.caps")
	if err := os.WriteFile(doc, []byte(claimSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "bare.json"), []byte(`{"machine": "Claim", "events": [{"event": "Submit"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := startIn(t, dir)
	docURI := "file://" + doc
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": docURI, "languageId": "capsulang", "version": 1, "text": claimSrc}})
	type step struct {
		Event, From, To string
		Accepted        bool
		Defaulted       []string
		Context         json.RawMessage
		Code            string
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want []step
	}{
		{"given events", map[string]any{"events": []any{map[string]any{"event": "Submit"}, map[string]any{"event": "Close", "payload": nil}}}, []step{
			{Event: "Submit", From: "open", To: "scored", Accepted: true, Defaulted: []string{"score"}, Context: json.RawMessage(`{"score":0}`)},
			{Event: "Close", From: "scored", To: "closed", Accepted: true, Context: json.RawMessage(`{"score":0}`)},
		}},
		{"a given payload is kept", map[string]any{"events": []any{map[string]any{"event": "Submit", "payload": map[string]any{"score": 9}}}}, []step{
			{Event: "Submit", From: "open", To: "scored", Accepted: true, Context: json.RawMessage(`{"score":9}`)},
		}},
		{"the path to the final state", map[string]any{}, []step{ // bare.json is not beside the capsule (claims.Claim*.json)
			{Event: "Submit", From: "open", To: "scored", Accepted: true, Defaulted: []string{"score"}, Context: json.RawMessage(`{"score":0}`)},
			{Event: "Close", From: "scored", To: "closed", Accepted: true, Context: json.RawMessage(`{"score":0}`)},
		}},
		{"scenario events are strict", map[string]any{"scenario": "scenarios/bare.json"}, []step{
			{Event: "Submit", From: "open", To: "open", Code: "R_BAD_PAYLOAD", Context: json.RawMessage(`{"score":0}`)},
		}},
	} {
		args := map[string]any{"uri": docURI, "machine": "Claim"}
		for k, v := range tc.args {
			args[k] = v
		}
		var run struct{ Steps []step }
		if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.dryRun", "arguments": []any{args}}, &run); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, run.Steps); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
