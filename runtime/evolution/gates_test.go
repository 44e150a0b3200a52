package evolution

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/propose"
)

// TestCheckVerdict: a commit is refused while any requirement is unmet;
// approvals meet approval requirements only; the refusal names every
// reason and unmet requirement on a line of its own.
func TestCheckVerdict(t *testing.T) {
	missing := propose.Requirement{Gate: "DeployCandidate", Path: "m.caps", Requirement: "eval-suite S passed", Status: propose.RuleMissing, Why: "eval-suite S is incomplete"}
	signoff := propose.Requirement{Gate: "DeployCandidate", Path: "m.caps", Requirement: "approval SecurityOwner granted", Status: propose.RuleApproval, Roles: []string{"SecurityOwner"}, Why: "needs approval SecurityOwner"}
	contract := propose.Requirement{SuccessorContract: "Succ", Path: "m.caps", Requirement: "preserve contract:Keep", Status: propose.RuleFailed, Why: "contract:Keep is changed by the candidate"}
	tests := []struct {
		name      string
		a         propose.Assessment
		approvals []string
		err       string // "" when the commit may go ahead
		unmet     []propose.Requirement
	}{
		{"pass", propose.Assessment{Verdict: propose.Pass}, nil, "", nil},
		{"missing evidence with the approval", propose.Assessment{Verdict: propose.Incomplete,
			Unmet:     []propose.Requirement{missing, signoff},
			Approvals: []propose.Approval{{Role: "SecurityOwner", Reason: "gate DeployCandidate requires approval SecurityOwner"}}},
			[]string{"SecurityOwner:alice"},
			"refused: evidence the module's governance requires is missing, and approvals cannot stand in for it:\n" +
				"  m.caps: gate DeployCandidate: requires eval-suite S passed: eval-suite S is incomplete",
			[]propose.Requirement{missing}},
		{"missing evidence without the approval", propose.Assessment{Verdict: propose.Incomplete,
			Unmet:     []propose.Requirement{missing, signoff},
			Approvals: []propose.Approval{{Role: "SecurityOwner", Reason: "gate DeployCandidate requires approval SecurityOwner"}}},
			[]string{"bob"},
			"refused: evidence the module's governance requires is missing, and approvals cannot stand in for it:\n" +
				"  m.caps: gate DeployCandidate: requires eval-suite S passed: eval-suite S is incomplete\n" +
				"  m.caps: gate DeployCandidate: requires approval SecurityOwner granted: needs approval SecurityOwner; approve with --approve SecurityOwner[:NAME]",
			[]propose.Requirement{missing, signoff}},
		{"approval given", propose.Assessment{Verdict: propose.NeedsApproval,
			Unmet:     []propose.Requirement{signoff},
			Approvals: []propose.Approval{{Role: "SecurityOwner", Reason: "gate DeployCandidate requires approval SecurityOwner"}}},
			[]string{"SecurityOwner"}, "", nil},
		{"role-less approval missing", propose.Assessment{Verdict: propose.NeedsApproval,
			Approvals: []propose.Approval{{Role: "", Reason: "the change expands authority"}}},
			nil,
			"refused: needs approval:\n  a named approver (--approve NAME): the change expands authority",
			[]propose.Requirement{}},
		{"fail", propose.Assessment{Verdict: propose.Fail,
			Reasons: []propose.Reason{{Level: propose.Fail, Rule: "new-error", Message: "m.caps:3: E_UNKNOWN_NAME unknown name `y`"}, {Level: propose.Fail, Rule: "successor-contract", Message: "named by its requirement"}},
			Unmet:   []propose.Requirement{contract}},
			[]string{"SecurityOwner:alice"},
			"refused: the assessment failed:\n" +
				"  m.caps:3: E_UNKNOWN_NAME unknown name `y`\n" +
				"  m.caps: successor-contract Succ: preserve contract:Keep: contract:Keep is changed by the candidate",
			[]propose.Requirement{contract}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkVerdict(&tt.a, tt.approvals)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("error %v, want a refusal", err)
			}
			if diff := cmp.Diff(tt.err, re.Error()); diff != "" {
				t.Errorf("refusal (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.unmet, re.Unmet); diff != "" {
				t.Errorf("unmet (-want +got):\n%s", diff)
			}
		})
	}
}
