package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProposeAssessCommitRollback(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	file := filepath.Join(dir, "claims.caps")
	orig := strings.Replace(claimSrc, "(target scored)", "(target scord)", 1)
	os.WriteFile(file, []byte(orig), 0o644)
	c, root := startIn(t, dir)
	u := root + "/claims.caps"
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": orig}})
	c.Wait("textDocument/publishDiagnostics", nil)

	// A repair proposal that widens authority: declaring a new state is
	// "review", adding an effect would be expansion; the rename is safe.
	var prop struct {
		ID, Proposal, Verdict string
		Findings              []struct{ Severity, Message string }
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.propose", "arguments": []any{map[string]any{"uri": u, "code": "E_UNKNOWN_STATE", "line": 9, "option": "rename"}}}, &prop); err != nil {
		t.Fatal(err)
	}
	if prop.ID == "" || prop.Proposal != prop.ID || prop.Verdict != "pass" {
		t.Fatalf("propose: %+v", prop)
	}
	var com struct {
		EventID string `json:"event_id"`
		Commit  string `json:"commit"`
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.commit", "arguments": []any{map[string]any{"uri": u, "proposal": prop.ID}}}, &com); err != nil {
		t.Fatal(err)
	}
	disk, _ := os.ReadFile(file)
	if com.EventID == "" || !strings.Contains(string(disk), "(target scored)") {
		t.Fatalf("commit: %+v\n%s", com, disk)
	}
	// the server asked the editor to apply the same change to the buffer
	if _, err := c.Wait("workspace/applyEdit", nil); err != nil {
		t.Fatal(err)
	}
	var rb struct {
		EventID string `json:"event_id"`
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.rollback", "arguments": []any{map[string]any{"uri": u}}}, &rb); err != nil {
		t.Fatal(err)
	}
	disk, _ = os.ReadFile(file)
	if rb.EventID == "" || string(disk) != orig {
		t.Fatalf("rollback: %+v\n%s", rb, disk)
	}

	// The buffer's own edit proposed as a successor: adding an effect
	// expands authority, so the verdict needs approval.
	widened := strings.Replace(orig, "(assign (score event.score))", "(assign (score event.score)) (effects (requires-user-confirmation))", 1)
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2}, "contentChanges": []any{map[string]any{"text": widened}}})
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.propose", "arguments": []any{map[string]any{"uri": u, "reason": "ask the user"}}}, &prop); err != nil {
		t.Fatal(err)
	}
	if prop.Verdict != "needs-approval" {
		t.Fatalf("widening proposal: %+v", prop)
	}
	err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.commit", "arguments": []any{map[string]any{"uri": u, "proposal": prop.ID}}}, &com)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("commit without approval: %v", err)
	}
}

// The loop from the language server on a copy of the shipped examples:
// the assessment runs the machine's scenarios against the candidate.
func TestProposeLoopOnExamples(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	filepath.WalkDir("../examples", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../examples", p)
		dst := filepath.Join(dir, "examples", rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, _ := os.ReadFile(p)
		return os.WriteFile(dst, b, 0o644)
	})
	file := filepath.Join(dir, "examples", "insurance_claim.caps")
	orig, _ := os.ReadFile(file)
	c, root := startIn(t, dir)
	u := root + "/examples/insurance_claim.caps"
	edited := strings.Replace(string(orig), "(module examples.insurance_claim", ";; reviewed by the adjuster team\n(module examples.insurance_claim", 1)
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": edited}})
	var prop struct {
		ID, Verdict string
		Tests       struct {
			Scenarios struct {
				Status        string
				Total, Passed int
			}
		}
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.propose", "arguments": []any{map[string]any{"uri": u, "reason": "doc comment"}}}, &prop); err != nil {
		t.Fatal(err)
	}
	if prop.Verdict != "pass" || prop.Tests.Scenarios.Status != "passed" || prop.Tests.Scenarios.Total < 2 || prop.Tests.Scenarios.Passed != prop.Tests.Scenarios.Total {
		t.Fatalf("%+v", prop)
	}
	var com struct {
		EventID string `json:"event_id"`
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.commit", "arguments": []any{map[string]any{"uri": u, "id": prop.ID}}}, &com); err != nil {
		t.Fatal(err)
	}
	if disk, _ := os.ReadFile(file); string(disk) != edited {
		t.Fatalf("committed file differs")
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.rollback", "arguments": []any{map[string]any{"uri": u, "event_id": com.EventID}}}, &com); err != nil {
		t.Fatal(err)
	}
	if disk, _ := os.ReadFile(file); string(disk) != string(orig) {
		t.Fatalf("rollback did not restore the file")
	}
}
