package authority_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax/ast"
)

// scoped is a module whose mandate is bounded by SCOPE (replaced per
// test); its policy allows every intent of the two tools.
const scoped = `(module t.scoped
  (capsule "1")
  (profile agentic external.mcp)
  (principal Boss (kind human))
  (principal Bot (kind agent))
  (mandate M
    (issued-by Boss)
    (issued-to Bot)
    SCOPE)
  (port Gate (protocol mcp) (tool read_claims pay))
  (port Other (protocol mcp) (tool ping))
  (capability CapPay
    (principal Bot)
    (effect (mcp.call Gate.pay))
    (resource Treasury.payments)
    (requires-mandate M)
    (approval Boss))
  (authority-policy P
    (input effect)
    (outcome allow deny escalate)
    (default deny)
    (on allow (if "effect.name == \"mcp.call\"")))
  (machine A
    (event Go)
    (initial s)
    (state s
      (on Go (target s) (effects (capability.issue CapPay) (mcp.call Gate.read_claims) (mcp.call Gate.pay) (mcp.call Other.ping))))))
`

func model(t *testing.T, src string) *authority.Model {
	t.Helper()
	f, err := ast.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if res := check.Check(f, check.Options{}); res.HasErrors() {
		t.Fatalf("the module has errors: %v", res.Diagnostics)
	}
	return authority.FromModule(f.Module)
}

// TestMandateScope: an intent whose effect, target, effect and target
// joined, or capability resource no scope item names (or prefixes) is
// denied, with a reason that names the scope; a mandate without a scope
// bounds nothing.
func TestMandateScope(t *testing.T) {
	intents := [][2]string{{"mcp.call", "Gate.read_claims"}, {"mcp.call", "Gate.pay"}, {"mcp.call", "Other.ping"}}
	tests := []struct {
		scope string
		want  []string // outcome and rule per intent
	}{
		{"(revocable true)", []string{"allow on allow", "allow on allow", "allow on allow"}},
		{"(scope Gate)", []string{"allow on allow", "allow on allow", "deny outside mandate scope"}},
		{"(scope Gate.read_claims)", []string{"allow on allow", "deny outside mandate scope", "deny outside mandate scope"}},
		{"(scope Treasury)", []string{"deny outside mandate scope", "allow on allow", "deny outside mandate scope"}},
		{"(scope mcp.call.Other)", []string{"deny outside mandate scope", "deny outside mandate scope", "allow on allow"}},
		{"(scope mcp.call)", []string{"allow on allow", "allow on allow", "allow on allow"}},
		{"(scope mcp)", []string{"allow on allow", "allow on allow", "allow on allow"}},
		{"(scope Gat bookings) (scope (item Gate))", []string{"deny outside mandate scope", "deny outside mandate scope", "deny outside mandate scope"}},
	}
	for _, tt := range tests {
		m := model(t, strings.Replace(scoped, "SCOPE", tt.scope, 1))
		var st authority.State
		m.Issue(&st, "CapPay", "jti-1", 0)
		var got []string
		for _, in := range intents {
			d := m.Decide(&st, authority.Request{Effect: in[0], Target: in[1]})
			rule := d.Rule
			if strings.HasPrefix(rule, "on allow") {
				rule = "on allow"
			}
			got = append(got, string(d.Outcome)+" "+rule)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.scope, diff)
		}
	}
	m := model(t, strings.Replace(scoped, "SCOPE", "(scope Gate bookings)", 1))
	d := m.Decide(&authority.State{}, authority.Request{Effect: "mcp.call", Target: "Other.ping"})
	if want := "mcp.call.Other.ping is outside the scope of mandate M (scope Gate bookings)"; d.Reason != want {
		t.Errorf("reason %q, want %q", d.Reason, want)
	}
}

// TestApprovers: the capability's (approval P) approves; without one, the
// mandate's issuer; never the acting principal, never an undeclared one.
func TestApprovers(t *testing.T) {
	m := model(t, strings.Replace(scoped, "SCOPE", "(revocable true)", 1))
	tests := []struct {
		d         authority.Decision
		principal string
		want      string
	}{
		{authority.Decision{Capability: "CapPay", Mandate: "M"}, "Boss", ""},
		{authority.Decision{Capability: "CapPay", Mandate: "M"}, "Bot", "only Boss may approve it (the (approval Boss) of capability CapPay), not Bot"},
		{authority.Decision{Mandate: "M"}, "Boss", ""},
		{authority.Decision{Mandate: "M"}, "Nobody", "the module declares no principal Nobody"},
		{authority.Decision{}, "Boss", "nobody may approve it: no capability (approval P) and no mandate issuer in force"},
	}
	for _, tt := range tests {
		got := ""
		if err := m.MayApprove(&tt.d, tt.principal); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%+v by %s: %q, want %q", tt.d, tt.principal, got, tt.want)
		}
	}
}
