package capsule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/hostpolicy"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax/ast"
)

// specText reads the language specification, which lives beside the
// repository (../shared/reference). Under CI it must be there.
func specText(t *testing.T) string {
	t.Helper()
	path := os.Getenv("CAPS_SPEC")
	if path == "" {
		path = filepath.Join(root, "..", "shared", "reference", "capsulang-spec-v0.7.txt")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the specification is needed: %v", err)
		}
		t.Skipf("no specification beside the repository (%v); set CAPS_SPEC", err)
	}
	return string(b)
}

// between is the text of spec from the line after the line equal to
// start up to the line that begins with end.
func between(t *testing.T, spec, start, end string) string {
	t.Helper()
	lines := strings.Split(spec, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != start {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], end) {
				return strings.Join(lines[i+1:j], "\n") + "\n"
			}
		}
	}
	t.Fatalf("the specification has no section %q ... %q", start, end)
	return ""
}

// specContract is the spec's refund-reviewer contract (§13), extracted
// from the specification text.
func specContract(t *testing.T) []byte {
	return []byte(between(t, specText(t), "Refund reviewer Capsule contract", "Generated checked capsule"))
}

func TestSpecContractCompiles(t *testing.T) {
	text := specContract(t)
	if !strings.HasPrefix(strings.TrimSpace(string(text)), "capsule: 0.1") {
		t.Fatalf("extracted the wrong text:\n%s", text)
	}
	c, diags := Check(text)
	// Its image carries a placeholder digest: a warning, not an error.
	if len(diags) != 1 || diags[0].Code != CodeImageNotPinned || c.IR == nil {
		t.Fatalf("the spec's contract has diagnostics: %v", diags)
	}
	b, err := Compile(c.IR)
	if err != nil {
		t.Fatal(err)
	}
	if b.Module != "claims-refund-reviewer.caps" {
		t.Errorf("module file %s, want claims-refund-reviewer.caps (the spec's quick start checks that name)", b.Module)
	}
	dir := filepath.Join(t.TempDir(), "capsule-refund")
	if err := b.Write(dir); err != nil {
		t.Fatal(err)
	}
	problems, _, err := Verify(dir)
	if err != nil || len(problems) > 0 {
		t.Fatalf("the bundle does not verify: %v %v", problems, err)
	}
}

// moduleOf returns the generated module of a contract, checked.
func moduleOf(t *testing.T, text []byte) *load.Package {
	t.Helper()
	c, diags := Check(text)
	if c.IR == nil {
		t.Fatalf("diagnostics: %v", diags)
	}
	pkg := (&load.Loader{}).LoadSource("gen.caps", Module(Lower(c.IR)))
	if len(pkg.Result.Diagnostics) > 0 {
		t.Fatalf("the generated module has diagnostics: %v", pkg.Result.Diagnostics)
	}
	return pkg
}

// TestAuthorityMatchesSpec compares the Authority IR of the module
// generated from the spec's contract with the spec's hand-written EDL
// module of §13 (testdata/authority/refund_reviewer.caps, the spec's
// module with the amount in the machine's context), field by field.
func TestAuthorityMatchesSpec(t *testing.T) {
	gen := moduleOf(t, specContract(t))
	hand := (&load.Loader{}).LoadSource("refund_reviewer.caps", read(t, filepath.Join(root, "testdata/authority/refund_reviewer.caps")))
	// The spec's policy names db.read and http.call effects while its
	// machine emits mcp.call intents, so the checker warns that those
	// intents can never be allowed; anything else is a failure.
	for _, d := range hand.Result.Diagnostics {
		if d.Code != check.AuthorityNeverAllows {
			t.Fatalf("the hand-written module has diagnostics: %v", hand.Result.Diagnostics)
		}
	}
	if g, h := gen.File.Module.Name.Name, hand.File.Module.Name.Name; g != h {
		t.Errorf("module %s, the spec's is %s", g, h)
	}

	// The hand-written module is the spec's, declaration for declaration.
	specMod, err := ast.Parse([]byte(between(t, specText(t), "Generated checked capsule", "See /spec/capsule-compiler.md")))
	if err != nil || specMod.Module == nil {
		t.Fatalf("cannot read the spec's module: %v", err)
	}
	specAuth, _, _ := hostpolicy.Export(specMod.Module)
	handAuth, _, err := hostpolicy.Export(hand.File.Module)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(specAuth, handAuth); diff != "" {
		t.Errorf("testdata/authority/refund_reviewer.caps drifted from the spec's module (-spec +testdata):\n%s", diff)
	}

	genAuth, _, err := hostpolicy.Export(gen.File.Module)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name      string
		gen, hand any
	}{
		{"principals", genAuth.Principals, handAuth.Principals},
		{"mandates", genAuth.Mandates, handAuth.Mandates},
		{"delegations", genAuth.Delegations, handAuth.Delegations},
		{"capabilities", genAuth.Capabilities, handAuth.Capabilities},
		{"trust boundaries", genAuth.TrustBoundaries, handAuth.TrustBoundaries},
		{"telemetry obligations", genAuth.TelemetryObligations, handAuth.TelemetryObligations},
		{"memory policies", genAuth.MemoryPolicies, handAuth.MemoryPolicies},
	} {
		if diff := cmp.Diff(f.hand, f.gen); diff != "" {
			t.Errorf("%s differ (-spec +generated):\n%s", f.name, diff)
		}
	}

	// The policy: same name, inputs, outcomes and default. Its rules are the
	// spec's, with two differences the contract asks for: the spec's rules
	// name the EDL effect (db.read.CustomerDB.claims), which no intent of
	// its machine is, while the generated ones name the intent the runtime
	// decides (mcp.call.GateCapsule.db_read_customerdb_claims); and the
	// contract's max_amount_usd (100) becomes an allow up to it and a deny
	// above it, while an approval lifts the escalation.
	if len(genAuth.Policies) != 1 || len(handAuth.Policies) != 1 {
		t.Fatalf("policies: generated %d, spec %d", len(genAuth.Policies), len(handAuth.Policies))
	}
	gp, hp := *genAuth.Policies[0], *handAuth.Policies[0]
	gRules, hRules := gp.Rules, hp.Rules
	gp.Rules, hp.Rules = nil, nil
	if diff := cmp.Diff(hp, gp); diff != "" {
		t.Errorf("policy differs (-spec +generated):\n%s", diff)
	}
	intent := strings.NewReplacer(
		`"db.read.CustomerDB.claims"`, `"mcp.call.GateCapsule.db_read_customerdb_claims"`,
		`"http.call.RefundAPI.issue_refund"`, `"mcp.call.GateCapsule.http_call_refundapi_issue_refund"`)
	issue := `effect == "mcp.call.GateCapsule.http_call_refundapi_issue_refund"`
	want := []*hostpolicy.Rule{
		{Outcome: hRules[0].Outcome, Condition: intent.Replace(hRules[0].Condition)},
		{Outcome: "allow", Condition: issue + " and amount_usd <= 100"},
		{Outcome: hRules[1].Outcome, Condition: intent.Replace(hRules[1].Condition) + " and not approved"},
		{Outcome: "deny", Condition: issue + " and amount_usd > 100"},
	}
	if diff := cmp.Diff(want, gRules); diff != "" {
		t.Errorf("policy rules (-want +generated):\n%s", diff)
	}

	// The runtime's model agrees too.
	gm, hm := authority.FromModule(gen.File.Module), authority.FromModule(hand.File.Module)
	opt := cmpopts.IgnoreUnexported(authority.Model{})
	if diff := cmp.Diff(hm.Principals, gm.Principals, opt); diff != "" {
		t.Errorf("model principals (-spec +generated):\n%s", diff)
	}
	// Decl is where a declaration is, which differs between the files.
	if diff := cmp.Diff(hm.Mandates, gm.Mandates, cmpopts.IgnoreFields(authority.Mandate{}, "Decl")); diff != "" {
		t.Errorf("model mandates (-spec +generated):\n%s", diff)
	}
	if diff := cmp.Diff(hm.Delegations, gm.Delegations); diff != "" {
		t.Errorf("model delegations (-spec +generated):\n%s", diff)
	}
	if diff := cmp.Diff(hm.Capabilities, gm.Capabilities); diff != "" {
		t.Errorf("model capabilities (-spec +generated):\n%s", diff)
	}
	if gm.Principal() != hm.Principal() {
		t.Errorf("acting principal %s, the spec's %s", gm.Principal(), hm.Principal())
	}
	var outcomes []authority.Outcome
	for _, r := range gm.Policies[0].Rules {
		outcomes = append(outcomes, r.Outcome)
	}
	if diff := cmp.Diff([]authority.Outcome{authority.Allow, authority.Allow, authority.Escalate, authority.Deny}, outcomes); diff != "" {
		t.Errorf("rule outcomes (-want +got):\n%s", diff)
	}
	if gm.Policies[0].Default != hm.Policies[0].Default {
		t.Errorf("default %s, the spec's %s", gm.Policies[0].Default, hm.Policies[0].Default)
	}
}
