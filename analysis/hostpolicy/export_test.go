package hostpolicy_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/hostpolicy"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax/ast"
)

// module loads and checks a module from source.
func module(t *testing.T, src string) *ast.Module {
	t.Helper()
	p := (&load.Loader{}).LoadSource("t.caps", []byte(src))
	if p.File.Module == nil || p.Result.HasErrors() {
		t.Fatalf("the module does not check: %v", p.Result.Diagnostics)
	}
	return p.File.Module
}

// TestClausesMatchCatalog keeps the export in step with the construct
// catalog: a clause the checker accepts must have a field in the artifact.
func TestClausesMatchCatalog(t *testing.T) {
	for kind, keys := range hostpolicy.Clauses {
		c := catalog.LookupConstruct(string(kind))
		if c == nil {
			t.Errorf("%s is not in the construct catalog", kind)
			continue
		}
		want := append([]string(nil), c.Keys()...)
		got := append([]string(nil), keys...)
		sort.Strings(want)
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the catalog's clauses (-) and the exported ones (+) differ; add the new clause to the export, the schema (docs/schemas/host-policy.v1.schema.json) and docs/authority.md:\n%s", kind, diff)
		}
	}
	if len(hostpolicy.Clauses) != 8 {
		t.Errorf("%d Authority IR kinds, want 8", len(hostpolicy.Clauses))
	}
}

const fullSrc = `(module t.full
  (capsule "1.0")
  (profile agentic external.mcp persistence.ledger)
  (store S (backend file) (authority ledger) (collection runs))
  (port P (protocol mcp) (endpoint "stdio:p") (tool read write))
  (principal Boss (kind human) (summary "the boss"))
  (principal Bot (kind agent) (identity cryptographic) (credential short-lived) (attestation required) (owner Boss))
  (mandate M (issued-by Boss) (issued-to Bot) (purpose "work") (scope a b) (scope (max 3) "x y") (valid-for 90m) (revocable false))
  (delegation D (from Boss) (to Bot) (under M) (may-delegate false) (expires-after 1h) (tool read) (tool write) (traceability full))
  (capability C
    (principal Bot) (effect (mcp.call P.write)) (resource Things.rows) (valid-for 5m)
    (requires-mandate M) (requires-delegation D) (approval Boss) (risk high)
    (limit single-use true) (limit max-rows 40) (limit window 10m) (limit ratio 0.5) (limit label gold) (limit off false)
    (revocation on-demand))
  (capability Bare (principal Bot) (effect (db.write S.runs)))
  (authority-policy Q (input effect context) (outcome allow deny) (default deny) (on allow (if "effect == \"x\"")))
  (trust-boundary TB (mode enforce) (fail-closed true) (egress-only P) (secrets ambient-deny) (capability C) (capability Bare))
  (telemetry-obligation O (must-emit a b) (must-emit c) (include id) (export otel) (tamper-evident true))
  (memory-policy Mem (isolation per-session) (ttl default 24h) (ttl 30s) (quarantine q1 q2))
  (machine W
    (context (n U32))
    (event Go)
    (event Stop)
    (initial idle)
    (state idle
      (on Go (target busy) (effects (policy.evaluate Q) (mcp.call P.write) (mcp.call P.write (retry 1))))
      (on Stop (target idle) (effects (receipt.emit stopped))))
    (state busy
      (on Go (target idle) (effects (mcp.call P.read))))))
`

func str(s string) *string { return &s }
func num(n int64) *int64   { return &n }
func boolean(b bool) *bool { return &b }

// TestExport checks every field of every declaration kind, present and
// absent.
func TestExport(t *testing.T) {
	a, effects, err := hostpolicy.Export(module(t, fullSrc))
	if err != nil {
		t.Fatal(err)
	}
	want := &hostpolicy.Authority{
		Principals: []*hostpolicy.Principal{
			{Name: "Boss", Kind: str("human"), Summary: str("the boss")},
			{Name: "Bot", Kind: str("agent"), Identity: str("cryptographic"), Credential: str("short-lived"), Attestation: str("required"), Owner: str("Boss")},
		},
		Mandates: []*hostpolicy.Mandate{{Name: "M", IssuedBy: str("Boss"), IssuedTo: str("Bot"), Purpose: str("work"),
			Scope: []string{"a", "b", "(max 3)", "x y"}, ValidFor: str("90m"), ValidForMs: num(5_400_000), Revocable: boolean(false)}},
		Delegations: []*hostpolicy.Delegation{{Name: "D", From: str("Boss"), To: str("Bot"), Under: str("M"), MayDelegate: boolean(false),
			ExpiresAfter: str("1h"), ExpiresAfterMs: num(3_600_000), Tools: []string{"read", "write"}, Traceability: str("full")}},
		Capabilities: []*hostpolicy.Capability{
			{Name: "C", Principal: str("Bot"), Effect: str("mcp.call"), Target: str("P.write"), Resource: str("Things.rows"),
				ValidFor: str("5m"), ValidForMs: num(300_000), RequiresMandate: str("M"), RequiresDelegation: str("D"), Approval: str("Boss"), Risk: str("high"),
				Limits:     map[string]any{"single-use": true, "max-rows": int64(40), "window": "10m", "ratio": "0.5", "label": "gold", "off": false},
				Revocation: str("on-demand")},
			{Name: "Bare", Principal: str("Bot"), Effect: str("db.write"), Target: str("S.runs")},
		},
		Policies: []*hostpolicy.Policy{{Name: "Q", Inputs: []string{"effect", "context"}, Outcomes: []string{"allow", "deny"}, Default: str("deny"),
			Rules: []*hostpolicy.Rule{{Outcome: "allow", Condition: `effect == "x"`}}}},
		TrustBoundaries: []*hostpolicy.TrustBoundary{{Name: "TB", Mode: str("enforce"), FailClosed: boolean(true), EgressOnly: []string{"P"},
			Secrets: str("ambient-deny"), Capabilities: []string{"C", "Bare"}}},
		TelemetryObligations: []*hostpolicy.TelemetryObligation{{Name: "O", MustEmit: []string{"a", "b", "c"}, Include: []string{"id"},
			Export: []string{"otel"}, TamperEvident: boolean(true)}},
		MemoryPolicies: []*hostpolicy.MemoryPolicy{{Name: "Mem", Isolation: str("per-session"),
			TTL:        []*hostpolicy.TTL{{Name: str("default"), Duration: "24h", DurationMs: 86_400_000}, {Duration: "30s", DurationMs: 30_000}},
			Quarantine: []string{"q1", "q2"}}},
	}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("authority (-want +got):\n%s", diff)
	}
	wantEffects := []hostpolicy.Effect{
		{Machine: "W", State: "idle", Event: "Go", Effect: "policy.evaluate", Target: str("Q")},
		{Machine: "W", State: "idle", Event: "Go", Effect: "mcp.call", Target: str("P.write")},
		{Machine: "W", State: "idle", Event: "Stop", Effect: "receipt.emit", Target: str("stopped")},
		{Machine: "W", State: "busy", Event: "Go", Effect: "mcp.call", Target: str("P.read")},
	}
	if diff := cmp.Diff(wantEffects, effects); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

// TestExportEmpty: a module without Authority IR exports empty lists, never
// null ones.
func TestExportEmpty(t *testing.T) {
	a, effects, err := hostpolicy.Export(module(t, `(module t.empty (capsule "1.0"))`))
	if err != nil {
		t.Fatal(err)
	}
	want := &hostpolicy.Authority{Principals: []*hostpolicy.Principal{}, Mandates: []*hostpolicy.Mandate{}, Delegations: []*hostpolicy.Delegation{},
		Capabilities: []*hostpolicy.Capability{}, Policies: []*hostpolicy.Policy{}, TrustBoundaries: []*hostpolicy.TrustBoundary{},
		TelemetryObligations: []*hostpolicy.TelemetryObligation{}, MemoryPolicies: []*hostpolicy.MemoryPolicy{}}
	if diff := cmp.Diff(want, a); diff != "" || effects == nil || len(effects) != 0 {
		t.Errorf("(-want +got):\n%s\neffects %#v", diff, effects)
	}
}

// TestExportErrors: clauses the checker accepts but the artifact cannot
// carry are errors at the clause.
func TestExportErrors(t *testing.T) {
	head := `(module t.bad (capsule "1.0") (profile agentic external.mcp) (port P (protocol mcp) (endpoint "stdio:p") (tool x)) (principal A (kind agent))` + "\n"
	tests := []struct {
		name, decl, at, msg string
	}{
		{"rule without if", `(authority-policy Q (outcome allow deny) (default deny) (on allow always))`, `(on allow always)`,
			`authority-policy Q: (on allow always) is not a rule of the form (on OUTCOME (if "CONDITION")); the host-policy artifact carries only rules of that form: rewrite it so`},
		{"two conditions", `(authority-policy Q (outcome allow deny) (default deny) (on deny (if "a") (if "b")))`, `(on deny (if "a") (if "b"))`,
			`authority-policy Q: (on deny (if "a") (if "b")) is not a rule of the form (on OUTCOME (if "CONDITION")); the host-policy artifact carries only rules of that form: rewrite it so`},
		{"limit twice", `(capability C (principal A) (effect (mcp.call P.x)) (limit n 1) (limit n 2))`, `(limit n 2)`,
			`capability C gives (limit n ...) twice; a limit has one value: keep one of them`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + "  " + tt.decl + ")\n"
			_, _, err := hostpolicy.Export(module(t, src))
			e, ok := err.(*hostpolicy.Error)
			if !ok {
				t.Fatalf("err %v, want a *hostpolicy.Error", err)
			}
			got := []string{src[e.Span.Start:e.Span.End], e.Msg}
			if diff := cmp.Diff([]string{tt.at, tt.msg}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompare: an artifact's sections agree with the module when only
// what the semantic hash ignores differs, and any other change is named.
func TestCompare(t *testing.T) {
	want, wantEffects, err := hostpolicy.Export(module(t, fullSrc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect)
		err  string
	}{
		{"unchanged", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) {}, ""},
		{"declarations reordered", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) {
			a.Principals[0], a.Principals[1] = a.Principals[1], a.Principals[0]
			(*fx)[0], (*fx)[3] = (*fx)[3], (*fx)[0]
		}, ""},
		{"duration respelled", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) {
			a.Mandates[0].ValidFor = str("5400s")
			a.MemoryPolicies[0].TTL[0].Duration = "1d"
		}, ""},
		{"duration text wrong", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) { a.Mandates[0].ValidFor = str("2h") },
			`authority.mandates[M].valid_for is "2h", which does not denote valid_for_ms 5400000`},
		{"duration changed", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) {
			a.Mandates[0].ValidFor, a.Mandates[0].ValidForMs = str("2h"), num(7_200_000)
		}, `authority.mandates[M].valid_for_ms is 7200000 in the artifact but 5400000 in the module`},
		{"field edited", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) { a.Capabilities[1].Risk = str("low") },
			`authority.capabilities[Bare].risk is "low" in the artifact but null in the module`},
		{"limit edited", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) {
			a.Capabilities[0].Limits = map[string]any{"single-use": false}
		}, `authority.capabilities[C].limits.label: the artifact lacks this field`},
		{"rule removed", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) { a.Policies[0].Rules = nil },
			`authority.policies[Q].rules is null in the artifact but [{"condition":"effect == \"x\"","outcome":"allow"}] in the module`},
		{"declaration removed", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) { a.TrustBoundaries = a.TrustBoundaries[:0] },
			`authority.trust_boundaries: the artifact lacks TB, which the module declares`},
		{"declaration added", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) {
			a.Principals = append(a.Principals, &hostpolicy.Principal{Name: "Eve"})
		}, `authority.principals: the artifact lists Eve, which the module does not declare`},
		{"effect removed", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) { *fx = (*fx)[1:] },
			`effects: the artifact lacks policy.evaluate Q (machine W, state idle, event Go), which the module's machines emit`},
		{"effect added", func(a *hostpolicy.Authority, fx *[]hostpolicy.Effect) {
			*fx = append(*fx, hostpolicy.Effect{Machine: "W", State: "busy", Event: "Stop", Effect: "http.call"})
		}, `effects: the artifact lists http.call (machine W, state busy, event Stop), which the module's machines do not emit`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, gotEffects, _ := hostpolicy.Export(module(t, fullSrc))
			tt.edit(got, &gotEffects)
			err := hostpolicy.Compare(got, gotEffects, want, wantEffects)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if msg != tt.err {
				t.Errorf("got  %s\nwant %s", msg, tt.err)
			}
		})
	}
}

// TestEffectString names an intent in messages.
func TestEffectString(t *testing.T) {
	e := hostpolicy.Effect{Machine: "M", State: "s", Event: "E", Effect: "mcp.call", Target: str("P.t")}
	if got := e.String(); !strings.HasPrefix(got, "mcp.call P.t (machine M, state s, event E)") {
		t.Errorf("%q", got)
	}
}
