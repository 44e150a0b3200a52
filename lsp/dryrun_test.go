package lsp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/capsulang/caps/lsp/lsptest"
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
