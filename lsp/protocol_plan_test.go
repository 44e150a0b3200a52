package lsp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/lsp/lsptest"
)

// TestProtocolPlanCommand: capsulang.protocolPlan answers with what caps
// protocol-plan prints for the same file: the summary (without its last
// line, the hint to use --json) and the plan of --json, indented.
func TestProtocolPlanCommand(t *testing.T) {
	path, _ := filepath.Abs("../examples/30_protocol_native_a2ui.caps")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) string {
		out, err := exec.Command(capsBin, args...).Output()
		if err != nil {
			t.Fatalf("caps %v: %v", args, err)
		}
		return string(out)
	}
	var report struct {
		Files []struct {
			Plan json.RawMessage `json:"protocol_plan"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(cli("protocol-plan", "--json", path)), &report); err != nil || len(report.Files) != 1 {
		t.Fatalf("caps protocol-plan --json: %v", err)
	}
	var wantJSON bytes.Buffer
	json.Indent(&wantJSON, report.Files[0].Plan, "", "  ")
	wantJSON.WriteByte('\n')
	summary := cli("protocol-plan", path)
	wantText := summary[:strings.LastIndex(strings.TrimSuffix(summary, "\n"), "\n")+1]
	if !strings.HasPrefix(wantText, "protocol plan of module examples.protocol_native_a2ui\n") || strings.Contains(wantText, "--json") {
		t.Fatalf("summary: %q", wantText)
	}

	c := start(t, nil)
	u := "file://" + path
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": string(text)}})
	var got struct {
		Plan json.RawMessage `json:"protocol_plan"`
		Text string          `json:"text"`
		JSON string          `json:"json"`
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.protocolPlan", "arguments": []any{map[string]any{"uri": u}}}, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantText, got.Text); diff != "" {
		t.Errorf("text (-caps protocol-plan +server):\n%s", diff)
	}
	if diff := cmp.Diff(wantJSON.String(), got.JSON); diff != "" {
		t.Errorf("json (-caps protocol-plan --json +server):\n%s", diff)
	}
	var a, b any
	json.Unmarshal(got.Plan, &a)
	json.Unmarshal(report.Files[0].Plan, &b)
	if !cmp.Equal(a, b) {
		t.Errorf("protocol_plan differs from caps protocol-plan --json")
	}

	// A file with errors has no plan.
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"text": "(module broken (capsule \"1\") (machine M))"}}})
	for {
		m, err := c.Wait("textDocument/publishDiagnostics", func(json.RawMessage) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		var pd struct{ Version int }
		json.Unmarshal(m.Params, &pd)
		if pd.Version == 2 {
			break
		}
	}
	err = c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.protocolPlan", "arguments": []any{map[string]any{"uri": u}}}, nil)
	if e, ok := err.(*lsptest.RPCError); !ok || e.Code != -32803 || e.Message != "the file has errors; fix them before asking for its protocol plan" {
		t.Errorf("file with errors: %v", err)
	}
}
