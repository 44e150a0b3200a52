package lsp_test

import (
	"fmt"
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

const governedSrc = `(module demo.pay
  (capsule "1")
  (profile agentic external.mcp)
  (port Bank (protocol mcp) (tool transfer refund))
  (authority-policy P
    (input effect context)
    (outcome allow deny escalate)
    (default deny)
    (on allow (if "effect == \"mcp.call.Bank.transfer\" and amount <= 50"))
    (on escalate (if "effect.target == \"Bank.transfer\" and not (amount <= 50)"))
    (on allow (if "effect.name == \"mcp.call\" and effect.target == \"Bank.refund\"")))
  (machine M
    (context (amount U32))
    (event Pay (amount U32))
    (initial idle)
    (state idle
      (on Pay (target idle) (assign (amount event.amount)) (effects (mcp.call Bank.transfer) (mcp.call Bank.refund))))))
`

// TestAuthorityHover: over an effect intent of a governed machine, the
// deciding policy and rule (under the default context, or the rules that
// may hold when the context matters); over a condition string, its parsed
// form and what its names read. Exact ranges.
func TestAuthorityHover(t *testing.T) {
	c := start(t, nil)
	open(t, c, governedSrc, 1)
	lines := strings.Split(governedSrc, "\n")
	type hoverResult struct {
		Contents struct{ Value string } `json:"contents"`
		Range    rng                    `json:"range"`
	}
	transfer := strings.Index(lines[16], "mcp.call Bank.transfer")
	refund := strings.Index(lines[16], "mcp.call Bank.refund")
	str := strings.Index(lines[8], `"effect ==`)
	tests := []struct {
		name string
		at   pos
		want string
		rng  rng
	}{
		{"depends on context", pos{16, transfer + 3}, "**authority** of `mcp.call.Bank.transfer`\n\n" +
			"- policy `P`: depends on context: `on allow (if \"effect == \\\"mcp.call.Bank.transfer\\\" and amount <= 50\")`, `on escalate (if \"effect.target == \\\"Bank.transfer\\\" and not (amount <= 50)\")` may hold, otherwise `default deny`\n" +
			"- under the default context (zero values): `on allow (if \"effect == \\\"mcp.call.Bank.transfer\\\" and amount <= 50\")` (allow)",
			rng{pos{16, transfer}, pos{16, transfer + len("mcp.call")}}},
		{"decided in every context", pos{16, refund}, "**authority** of `mcp.call.Bank.refund`\n\n" +
			"- policy `P`: decided by `on allow (if \"effect.name == \\\"mcp.call\\\" and effect.target == \\\"Bank.refund\\\"\")` (allow) in every context",
			rng{pos{16, refund}, pos{16, refund + len("mcp.call")}}},
		{"condition", pos{8, str + 5}, "**condition** of `on allow` in policy `P`\n\n```\n(and (== effect \"mcp.call.Bank.transfer\") (<= amount 50))\n```\n" +
			"- `effect` (Text)\n- `amount` reads `context.amount` (integer)",
			rng{pos{8, str}, pos{8, strings.LastIndex(lines[8], `"`) + 1}}},
	}
	for _, tt := range tests {
		var h hoverResult
		if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": tt.at}, &h); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, h.Contents.Value); diff != "" {
			t.Errorf("%s: hover (-want +got):\n%s", tt.name, diff)
		}
		if h.Range != tt.rng {
			t.Errorf("%s: range %+v, want %+v", tt.name, h.Range, tt.rng)
		}
	}
}

// TestNeverAllowedQuickFix: W_AUTHORITY_NEVER_ALLOWS at the intent, with
// the allow-rule repair labelled expands-authority (never preferred, and
// offered through propose as well).
func TestNeverAllowedQuickFix(t *testing.T) {
	src := strings.Replace(governedSrc, `
    (on allow (if "effect.name == \"mcp.call\" and effect.target == \"Bank.refund\"")))`, ")", 1)
	c := start(t, nil)
	pub := open(t, c, src, 1)
	lines := strings.Split(src, "\n")
	at := strings.Index(lines[15], "(mcp.call Bank.refund)")
	want := rng{pos{15, at}, pos{15, at + len("(mcp.call Bank.refund)")}}
	if len(pub.Diagnostics) != 1 || pub.Diagnostics[0].Code != "W_AUTHORITY_NEVER_ALLOWS" || pub.Diagnostics[0].Range != want || pub.Diagnostics[0].Severity != 2 {
		t.Fatalf("diagnostics: %+v, want W_AUTHORITY_NEVER_ALLOWS at %+v", pub.Diagnostics, want)
	}
	var actions []struct {
		Title       string `json:"title"`
		Kind        string `json:"kind"`
		IsPreferred bool   `json:"isPreferred"`
	}
	if err := c.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": rng{pos{15, at + 2}, pos{15, at + 2}},
		"context": map[string]any{"diagnostics": []any{}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range actions {
		got = append(got, fmt.Sprintf("%s: %s (preferred %v)", a.Kind, a.Title, a.IsPreferred))
	}
	rule := `(on allow (if "effect == \"mcp.call.Bank.refund\""))`
	if diff := cmp.Diff([]string{
		"quickfix: Allow mcp.call.Bank.refund in policy P: " + rule + " [expands-authority] (preferred false)",
		"quickfix.propose: Propose and assess: Allow mcp.call.Bank.refund in policy P: " + rule + " [expands-authority] (preferred false)",
	}, got); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
}
