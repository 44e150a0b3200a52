package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
)

// fixSources are modules whose diagnostics have quick fixes of every kind
// the repair planner builds from a diagnostic's data: a rename from its
// Suggestion (states, types, a name in a policy condition, a budget-only
// effect), and each syntax.Fix kind.
var fixSources = map[string]string{
	"machine and effects": `(module demo.fix
  (capsule "1")
  (profile pure)
  (store ops (backend memory) (collection items))
  (function save
    (input (x I46))
    (output I64)
    (body (do (db.write ops.items 1) 1)))
  (machine M
    (context (n U32))
    (event Go (k U32))
    (event Stop)
    (initial idle)
    (state idle
      (on Go (target bsy) (assign (n event.k) (seen true)))
      (on Stop (target done)))
    (state busy (on Stop (target done)))
    (state done (type final))))
`,
	"missing paren": `(module demo.fix
  (capsule "1")
  (machine M
    (event Go)
    (initial idle)
    (state idle (on Go (target done))
    (state done (type final))))
`,
	"extra paren": `(module demo.fix
  (capsule "1")
  (machine M
    (event Go)
    (initial idle)
    (state idle (on Go (target done))))
    (state done (type final))))
`,
	"condition and budget-only": `(module demo.pay
  (capsule "1")
  (profile agentic external.mcp)
  (deployment-policy Rollout (mode shadow-first))
  (port Bank (protocol mcp) (tool transfer refund))
  (authority-policy P
    (input effect context)
    (outcome allow deny)
    (default deny)
    (on allow (if "effect == \"mcp.call.Bank.transfer\" and amout <= 1000")))
  (machine M
    (context (amount U32))
    (event Pay (amount U32))
    (initial idle)
    (state idle
      (on Pay (target idle) (assign (amount event.amount)) (effects (mcp.call Bank.transfer) (mcp.call Bank.refund) (deploy.live))))))
`,
}

// fixActions returns the code actions the server offers over the whole
// of each fixSources document, without the diagnostics they quote (whose
// messages differ by design), keyed by source name.
func fixActions(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, src := range fixSources {
		dir := t.TempDir()
		_, c := startServer(t, Options{}, dir)
		u := "file://" + dir + "/fix.caps"
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": src}})
		end := map[string]any{"line": strings.Count(src, "\n") + 1, "character": 0}
		var actions []struct {
			Title   string          `json:"title"`
			Kind    string          `json:"kind"`
			Pref    bool            `json:"isPreferred"`
			Edit    json.RawMessage `json:"edit"`
			Command json.RawMessage `json:"command"`
		}
		if err := c.Call("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": u},
			"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": end},
			"context":      map[string]any{"diagnostics": []any{}},
		}, &actions); err != nil {
			t.Fatal(err)
		}
		for _, a := range actions {
			line := fmt.Sprintf("%s | %s | preferred=%v | %s | %s", a.Kind, a.Title, a.Pref, a.Edit, a.Command)
			out[name] = append(out[name], strings.ReplaceAll(line, dir, "DIR"))
		}
	}
	return out
}

// TestCodeActionsIgnoreMessages (issue 21, item 2): with every diagnostic
// message rewritten to the same nonsense, the server offers exactly the
// same quick fixes (titles, edits, commands), and offers some for each
// document: they come from the diagnostics' data, not their wording.
func TestCodeActionsIgnoreMessages(t *testing.T) {
	want := fixActions(t)
	for name := range fixSources {
		if len(want[name]) == 0 {
			t.Fatalf("%s: no code actions to compare", name)
		}
	}
	wantIDs := map[string][]string{
		"machine and effects":       {"Change `bsy` to `busy`", "Change `I46` to `I64`", "Declare context field seen Bool", "Declare effect (db.write ops.items) on save", "Add profile persistence.file to admit db.write"},
		"missing paren":             {"Insert the missing `)`"},
		"extra paren":               {"Delete the extra `)`"},
		"condition and budget-only": {"Change `amout` to `amount` in the condition", "Replace deploy.live with deploy.promote Rollout", "Allow mcp.call.Bank.refund in policy P"},
	}
	for name, titles := range wantIDs {
		for _, title := range titles {
			found := false
			for _, a := range want[name] {
				found = found || strings.Contains(a, "| "+title)
			}
			if !found {
				t.Errorf("%s: no action titled %q among:\n%s", name, title, strings.Join(want[name], "\n"))
			}
		}
	}
	var rewritten int
	defer check.RewriteMessages(func(string) string { rewritten++; return "zq rewritten by the test" })()
	got := fixActions(t)
	if rewritten == 0 {
		t.Fatal("no message was rewritten")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("code actions with rewritten messages (-plain +rewritten):\n%s", diff)
	}
}
