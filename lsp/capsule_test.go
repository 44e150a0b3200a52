package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/lsp/lsptest"
)

// waitCapsuleDiags waits for the diagnostics of one version of a document.
func waitCapsuleDiags(t *testing.T, c *lsptest.Client, u string, version int) published {
	t.Helper()
	m, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		var pd published
		json.Unmarshal(p, &pd)
		return pd.URI == u && pd.Version == version
	})
	if err != nil {
		t.Fatal(err)
	}
	var pd published
	json.Unmarshal(m.Params, &pd)
	return pd
}

// TestCapsuleContract: a .capsule.yaml document gets the contract's
// diagnostics, hovers, definitions and the compile lens and command, and
// none of the Capsulang features.
func TestCapsuleContract(t *testing.T) {
	src, err := os.ReadFile("../examples/29_capsule_refund_reviewer.capsule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "refund.capsule.yaml")
	os.WriteFile(path, src, 0o644)
	u := "file://" + path
	bad := strings.Replace(string(src), "  network: deny\n", "  network: allow\n", 1)
	c := start(t, nil)
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "yaml", "version": 1, "text": bad}})
	pd := waitCapsuleDiags(t, c, u, 1)
	if len(pd.Diagnostics) != 1 || pd.Diagnostics[0].Code != "E_CAPSULE_DEFAULT_ALLOW" || pd.Diagnostics[0].Severity != 1 ||
		pd.Diagnostics[0].Range != (rng{pos{44, 11}, pos{44, 16}}) || !strings.HasSuffix(pd.Diagnostics[0].CodeDescription.Href, "#e_capsule_default_allow") {
		t.Fatalf("diagnostics: %+v", pd.Diagnostics)
	}
	// Fixing it by an incremental change clears them.
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"range": rng{pos{44, 11}, pos{44, 16}}, "text": "deny"}}})
	if pd := waitCapsuleDiags(t, c, u, 2); len(pd.Diagnostics) != 0 {
		t.Fatalf("after the fix: %+v", pd.Diagnostics)
	}

	td := map[string]any{"uri": u}
	var hov struct {
		Contents struct{ Kind, Value string }
		Range    rng
	}
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": td, "position": pos{28, 5}}, &hov); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hov.Contents.Value, "**`effects[].max_amount_usd`**") || hov.Contents.Kind != "markdown" || hov.Range != (rng{pos{28, 4}, pos{28, 18}}) {
		t.Errorf("hover: %+v", hov)
	}
	var locs []struct {
		URI   string `json:"uri"`
		Range rng    `json:"range"`
	}
	if err := c.Call("textDocument/definition", map[string]any{"textDocument": td, "position": pos{39, 12}}, &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || locs[0].URI != u || locs[0].Range != (rng{pos{28, 4}, pos{28, 18}}) {
		t.Errorf("definition: %+v", locs)
	}
	// Capsulang features answer nothing for a contract.
	var sym any = "unset"
	if err := c.Call("textDocument/documentSymbol", map[string]any{"textDocument": td}, &sym); err != nil || sym != nil {
		t.Errorf("documentSymbol: %v %v", sym, err)
	}
	var lenses []struct {
		Command struct {
			Title, Command string
			Arguments      []map[string]string
		}
	}
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": td}, &lenses); err != nil {
		t.Fatal(err)
	}
	if len(lenses) != 1 || lenses[0].Command.Title != "Compile capsule" || lenses[0].Command.Command != "capsulang.compileCapsule" || lenses[0].Command.Arguments[0]["uri"] != u {
		t.Fatalf("code lens: %+v", lenses)
	}

	var res struct {
		OutDir, Module, ContractHash string
		Artifacts                    []struct{ Path string }
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.compileCapsule", "arguments": []any{map[string]any{"uri": u}}}, &res); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "build", "claims-refund-reviewer")
	if res.OutDir != out || res.Module != "file://"+out+"/claims-refund-reviewer.caps" || len(res.Artifacts) != 15 {
		t.Errorf("compile: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(out, "attestation.json")); err != nil {
		t.Error(err)
	}
	m, err := c.Wait("window/showDocument", nil)
	if err != nil {
		t.Fatal(err)
	}
	var show struct {
		URI       string `json:"uri"`
		TakeFocus bool   `json:"takeFocus"`
	}
	json.Unmarshal(m.Params, &show)
	if diff := cmp.Diff(struct {
		URI       string `json:"uri"`
		TakeFocus bool   `json:"takeFocus"`
	}{res.Module, true}, show); diff != "" {
		t.Errorf("showDocument (-want +got):\n%s", diff)
	}

	// A contract with errors is not compiled.
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 3},
		"contentChanges": []any{map[string]any{"text": "capsule: 0.1\n"}}})
	waitCapsuleDiags(t, c, u, 3)
	err = c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.compileCapsule", "arguments": []any{map[string]any{"uri": u}}}, &res)
	if err == nil || !strings.Contains(err.Error(), "the contract has 7 errors; fix them first") {
		t.Errorf("compiling a broken contract: %v", err)
	}
	c.Notify("textDocument/didClose", map[string]any{"textDocument": td})
	if pd := waitCapsuleDiags(t, c, u, 0); len(pd.Diagnostics) != 0 {
		t.Errorf("close: %+v", pd)
	}
}
