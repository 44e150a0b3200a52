package propose

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gatedModule has a gate that needs replay evidence, a successor contract
// and an approval; its contract needs the same evidence and an approval
// for any authority expansion.
const gatedModule = `(module m
  (capsule "1.0")
  (store st (backend memory) (authority runtime-state) (collection log))
  (contract Keep (summary "kept"))
  (eval-suite S (must-pass replay "ledgers/m/*.jsonl"))
  (successor-contract Succ
    (preserve contract:Keep)
    (forbid effect-expansion unless approval:SecurityOwner)
    (require eval-suite:S))
  (gate DeployCandidate
    (requires eval-suite S passed)
    (requires successor-contract Succ preserved)
    (requires approval ReleaseManager granted))
  (function f (input (x U32)) (output U32) (body x)))
`

// TestGatesHold: missing evidence makes the verdict incomplete, which no
// approval meets; each unmet requirement is listed with its gate or
// contract, what it requires and why; once the evidence is there only the
// approval requirements remain.
func TestGatesHold(t *testing.T) {
	const noLedger = `the glob "ledgers/m/*.jsonl" matched no ledger; add golden ledgers it matches (from the workspace root or the module's folder)`
	approval := Requirement{Gate: "DeployCandidate", Path: "m.caps", Requirement: "approval ReleaseManager granted", Status: RuleApproval, Roles: []string{"ReleaseManager"}, Why: "needs approval ReleaseManager"}
	harmless := [2]string{"(body x)", "(body (+ x 0))"}
	expands := [2]string{"(output U32) (body x)", "(output U32) (effects (db.write st.log)) (body (do (db.write st.log x) x))"}
	tests := []struct {
		name    string
		parent  [2]string         // a change to gatedModule making the parent, if any
		change  [2]string         // the proposed change to the parent
		extra   map[string]string // more workspace files
		replay  func(*Workspace, map[string][]byte, []string) TestReport
		verdict string
		unmet   []Requirement
		roles   []string // approvals_required roles, "" for any approver
	}{
		{"no evidence", [2]string{}, harmless, nil, fakeReplay(), Incomplete, []Requirement{
			{SuccessorContract: "Succ", Path: "m.caps", Requirement: "require eval-suite:S", Status: RuleMissing, Why: "eval-suite S is incomplete: (must-pass replay \"ledgers/m/*.jsonl\"): " + noLedger},
			{Gate: "DeployCandidate", Path: "m.caps", Requirement: "eval-suite S passed", Status: RuleMissing, Why: "eval-suite S is incomplete: (must-pass replay \"ledgers/m/*.jsonl\"): " + noLedger},
			{Gate: "DeployCandidate", Path: "m.caps", Requirement: "successor-contract Succ preserved", Status: RuleMissing, Why: "successor-contract Succ lacks evidence for (require eval-suite:S)"},
			approval,
		}, []string{"ReleaseManager"}},
		{"evidence supplied", [2]string{}, harmless, map[string]string{"ledgers/m/a.jsonl": "{}\n"}, fakeReplay(), NeedsApproval,
			[]Requirement{approval}, []string{"ReleaseManager"}},
		{"evidence and expansion", [2]string{}, expands, map[string]string{"ledgers/m/a.jsonl": "{}\n"}, fakeReplay(), NeedsApproval, []Requirement{
			{SuccessorContract: "Succ", Path: "m.caps", Requirement: "forbid effect-expansion unless approval:SecurityOwner", Status: RuleApproval, Roles: []string{"SecurityOwner"}, Why: "the change expands authority; approval SecurityOwner is required"},
			{Gate: "DeployCandidate", Path: "m.caps", Requirement: "successor-contract Succ preserved", Status: RuleApproval, Roles: []string{"SecurityOwner"}, Why: "successor-contract Succ needs approval SecurityOwner"},
			approval,
		}, []string{"SecurityOwner", "ReleaseManager"}},
		{"evidence fails", [2]string{}, harmless, map[string]string{"ledgers/m/a.jsonl": "{}\n"}, fakeReplay("ledgers/m/a.jsonl"), Fail, []Requirement{
			{SuccessorContract: "Succ", Path: "m.caps", Requirement: "require eval-suite:S", Status: RuleFailed, Why: "eval-suite S failed: (must-pass replay \"ledgers/m/*.jsonl\"): does not replay: ledgers/m/a.jsonl"},
			{Gate: "DeployCandidate", Path: "m.caps", Requirement: "eval-suite S passed", Status: RuleFailed, Why: "eval-suite S failed: (must-pass replay \"ledgers/m/*.jsonl\"): does not replay: ledgers/m/a.jsonl"},
			{Gate: "DeployCandidate", Path: "m.caps", Requirement: "successor-contract Succ preserved", Status: RuleFailed, Why: "successor-contract Succ is not preserved: (require eval-suite:S): eval-suite S failed: (must-pass replay \"ledgers/m/*.jsonl\"): does not replay: ledgers/m/a.jsonl"},
			approval,
		}, []string{"ReleaseManager"}},
		{"verification status", [2]string{"(requires approval ReleaseManager granted)", "(requires approval ReleaseManager granted)\n    (requires verification-status checked)"}, harmless,
			map[string]string{"ledgers/m/a.jsonl": "{}\n"}, fakeReplay(), Incomplete, []Requirement{
				approval,
				{Gate: "DeployCandidate", Path: "m.caps", Requirement: "verification-status checked", Status: RuleMissing, Why: noVerification},
			}, []string{"ReleaseManager"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := gatedModule
			if tt.parent[0] != "" {
				base = replaceOnce(t, gatedModule, tt.parent[0], tt.parent[1])
			}
			files := map[string]string{"m.caps": base}
			for k, v := range tt.extra {
				files[k] = v
			}
			ws := tempWorkspace(t, files)
			hooks := testHooks
			hooks.Replay = tt.replay
			cand := replaceOnce(t, base, tt.change[0], tt.change[1])
			p, err := Build(ws, Request{Kind: FromCandidate, Targets: []string{filepath.Join(ws.Root, "m.caps")}, Candidate: []byte(cand)}, hooks)
			if err != nil {
				t.Fatal(err)
			}
			a := Assess(ws, AssessInput{Proposal: p, Now: "now"}, hooks)
			if a.Verdict != tt.verdict {
				t.Errorf("verdict %s, want %s; reasons %+v", a.Verdict, tt.verdict, a.Reasons)
			}
			if diff := cmp.Diff(tt.unmet, a.Unmet); diff != "" {
				t.Errorf("unmet (-want +got):\n%s", diff)
			}
			var roles []string
			for _, ap := range a.Approvals {
				roles = append(roles, ap.Role)
			}
			if diff := cmp.Diff(tt.roles, roles); diff != "" {
				t.Errorf("approval roles (-want +got):\n%s", diff)
			}
		})
	}
}
