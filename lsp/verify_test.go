package lsp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func needZ3(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("z3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and z3 is not installed (Debian package z3)")
		}
		t.Skip("z3 is not installed (Debian package z3)")
	}
}

const absSrc = `(module v (capsule "1")
  (function abs
    (input (x I64))
    (output I64)
    (ensures (>= result 0))
    (body (if (< x 0) (- 0 x) x))))
`

// TestVerifyOnSave: saving a document verifies it off the edit path: the
// refuted ensures becomes a diagnostic with the counterexample, the
// function gets a status lens, and an edit drops both until the next save.
func TestVerifyOnSave(t *testing.T) {
	needZ3(t)
	c := start(t, nil)
	if first := open(t, c, absSrc, 1); len(first.Diagnostics) != 0 {
		t.Fatalf("before saving: %+v", first.Diagnostics)
	}
	c.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	m, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		var pd published
		json.Unmarshal(p, &pd)
		return pd.Version == 1 && len(pd.Diagnostics) > 0
	})
	if err != nil {
		t.Fatal(err)
	}
	var pd published
	json.Unmarshal(m.Params, &pd)
	want := diag{Range: rng{pos{4, 13}, pos{4, 26}}, Severity: 2, Code: "W_OBLIGATION_FAILED",
		Message: "x = -9223372036854775808 breaks ensures (>= result 0) (confirmed by the interpreter)"}
	want.CodeDescription.Href = "https://capsulang.dev/docs/diagnostics#w_obligation_failed"
	if len(pd.Diagnostics) != 1 || pd.Diagnostics[0] != want {
		t.Fatalf("diagnostics %+v, want %+v", pd.Diagnostics, want)
	}
	var lenses []struct {
		Range   rng `json:"range"`
		Command struct {
			Title, Command string
		} `json:"command"`
	}
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses); err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, l := range lenses {
		titles = append(titles, l.Command.Title+" @"+l.Command.Command)
	}
	if got := strings.Join(titles, "|"); got != "⚙ Compile… @capsulang.compile|✗ 1 of 2 obligations refuted @capsulang.verify" {
		t.Fatalf("lenses: %s", got)
	}
	// The command answers with the same report.
	var rep struct {
		Summary     map[string]int
		Obligations []struct {
			ID, Status     string
			Counterexample []struct{ Name, Value string }
		}
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "capsulang.verify", "arguments": []any{map[string]any{"uri": uri}}}, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary["failed"] != 1 || rep.Summary["discharged"] != 1 || rep.Obligations[0].ID != "v/abs/ensures/0" || rep.Obligations[0].Counterexample[0].Value != "-9223372036854775808" {
		t.Fatalf("%+v", rep)
	}
	// An edit: the new version's diagnostics come from the checker alone.
	change(c, 2, rng{pos{4, 25}, pos{4, 25}}, "")
	if pd := waitDiags(t, c, 2); len(pd.Diagnostics) != 0 {
		t.Fatalf("after an edit: %+v", pd.Diagnostics)
	}
}
