package lsp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const conditionTypoSrc = `(module demo.pay
  (capsule "1")
  (profile agentic external.mcp)
  (port Bank (protocol mcp) (tool transfer))
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
      (on Pay (target idle) (assign (amount event.amount)) (effects (mcp.call Bank.transfer))))))
`

type textEdit struct {
	Range   rng    `json:"range"`
	NewText string `json:"newText"`
}

// TestConditionUnknownQuickFix: E_CONDITION_UNKNOWN at the misspelt name
// inside the condition string, and a safe, preferred quick fix that
// replaces exactly that name by the checker's suggestion.
func TestConditionUnknownQuickFix(t *testing.T) {
	c := start(t, nil)
	pub := open(t, c, conditionTypoSrc, 1)
	line := strings.Split(conditionTypoSrc, "\n")[8]
	at := strings.Index(line, "amout")
	name := rng{pos{8, at}, pos{8, at + len("amout")}}
	if len(pub.Diagnostics) != 1 || pub.Diagnostics[0].Code != "E_CONDITION_UNKNOWN" || pub.Diagnostics[0].Range != name {
		t.Fatalf("diagnostics: %+v, want E_CONDITION_UNKNOWN at %+v", pub.Diagnostics, name)
	}
	var actions []struct {
		Title       string `json:"title"`
		Kind        string `json:"kind"`
		IsPreferred bool   `json:"isPreferred"`
		Edit        struct {
			Changes map[string][]textEdit `json:"changes"`
		} `json:"edit"`
	}
	if err := c.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        rng{pos{8, at + 2}, pos{8, at + 2}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	if len(actions) != 1 {
		t.Fatalf("actions: %+v", actions)
	}
	a := actions[0]
	if a.Title != "Change `amout` to `amount` in the condition [safe]" || a.Kind != "quickfix" || !a.IsPreferred {
		t.Errorf("action: %+v", a)
	}
	if diff := cmp.Diff(map[string][]textEdit{uri: {{name, "amount"}}}, a.Edit.Changes); diff != "" {
		t.Errorf("edit (-want +got):\n%s", diff)
	}
}
