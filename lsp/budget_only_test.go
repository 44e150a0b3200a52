package lsp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const budgetOnlySrc = `(module demo.release
  (capsule "1")
  (profile agentic)
  (deployment-policy Rollout (mode shadow-first))
  (budget B (deny-effects deploy.live))
  (machine M
    (event Go)
    (initial idle)
    (state idle
      (on Go (target done) (effects (deploy.live))))
    (state done (type final))))
`

// TestBudgetOnlyEffectInEditor: a budget-only effect in a transition gets
// the quick fixes of its repair plan, and completion offers budget-only
// names in a budget but not in an effects clause.
func TestBudgetOnlyEffectInEditor(t *testing.T) {
	c := start(t, nil)
	pub := open(t, c, budgetOnlySrc, 1)
	var codes []string
	for _, d := range pub.Diagnostics {
		codes = append(codes, d.Code)
	}
	if diff := cmp.Diff([]string{"E_EFFECT_BUDGET_ONLY"}, codes); diff != "" {
		t.Fatalf("diagnostics (-want +got):\n%s", diff)
	}
	lines := strings.Split(budgetOnlySrc, "\n")
	at := strings.Index(lines[9], "deploy.live")
	var actions []struct {
		Title string `json:"title"`
		Kind  string `json:"kind"`
	}
	if err := c.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        rng{pos{9, at}, pos{9, at}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Kind+": "+a.Title)
	}
	want := []string{
		"quickfix: Replace deploy.live with deploy.promote Rollout [expands-authority]",
		"quickfix.propose: Propose and assess: Replace deploy.live with deploy.promote Rollout [expands-authority]",
		"quickfix: Remove the (effects ...) clause holding only deploy.live [review]",
		"quickfix.propose: Propose and assess: Remove the (effects ...) clause holding only deploy.live [review]",
	}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}

	tests := []struct {
		name  string
		line  int
		after string
		want  []string
	}{
		{"effects clause", 9, "(effects (deploy.", []string{"deploy.canary", "deploy.promote", "deploy.rollback", "deploy.shadow"}},
		{"budget", 4, "(deny-effects deploy.", []string{"deploy.canary", "deploy.live", "deploy.promote", "deploy.rollback", "deploy.shadow"}},
	}
	for _, tt := range tests {
		got := labels(t, c, tt.line, strings.Index(lines[tt.line], tt.after)+len(tt.after))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s completion (-want +got):\n%s", tt.name, diff)
		}
	}
}
