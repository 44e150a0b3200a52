package machine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/runtime/machine"
)

// spy is an executor that records what reached it and fails the test when
// an intent the authority did not allow arrives.
type spy struct {
	t    *testing.T
	inst **machine.Instance
	seen int
}

func (s *spy) Mode() machine.Mode { return machine.Mock }

func (s *spy) Approve(c *machine.Call) machine.Decision {
	return machine.Decision{Allowed: true, Rule: "spy"}
}

func (s *spy) Execute(ctx context.Context, c *machine.Call) machine.Outcome {
	s.seen++
	if c.Spec.Name == "policy.evaluate" || c.Spec.Name == "capability.issue" {
		s.t.Errorf("control effect %s reached the executor", c.Spec.Label())
	}
	return machine.Outcome{OK: true, Adapter: "spy"}
}

// TestNoDeniedIntentReachesAnAdapter drives random inputs through governed
// machines in mock mode. Every intent that reaches the executor must have
// been allowed; every intent the authority held must not have reached it.
func TestNoDeniedIntentReachesAnAdapter(t *testing.T) {
	targets := []struct{ path, machine string }{
		{"testdata/refund_reviewer.caps", "EnclosedAgent"},
		{"../../examples/authority.caps", "InvoicePayment"},
	}
	const sequences = 400
	rng := rand.New(rand.NewSource(12))
	held, allowed, resolved := 0, 0, 0
	approvers := []string{"HumanClaimsLead", "AgentRefundReviewer", "FinanceController", "InvoiceAgent"}
	for _, tc := range targets {
		m := compile(t, tc.path, tc.machine)
		if !m.Governed() {
			t.Fatalf("%s is not governed", tc.path)
		}
		for n := 0; n < sequences; n++ {
			ex := &spy{t: t}
			inst, err := m.NewInstance(machine.InstanceOptions{Executor: ex})
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 12; k++ {
				if rng.Intn(5) == 0 {
					if _, err := inst.Advance(int64(rng.Intn(20)) * 60_000); err != nil {
						t.Fatal(err)
					}
					continue
				}
				var r machine.StepResult
				before := ex.seen
				if held := inst.Held(); len(held) > 0 && rng.Intn(4) == 0 {
					// An approver (allowed or not) resolves a held intent.
					verdict := []string{"approve", "reject"}[rng.Intn(2)]
					who := approvers[rng.Intn(len(approvers))]
					r = inst.Resolve(context.Background(), machine.Resolution{Ref: fmt.Sprint(held[rng.Intn(len(held))].Seq), Verdict: verdict, Principal: who, Name: "n"})
					if r.Failure == nil {
						resolved++
					}
				} else {
					et := m.Events[rng.Intn(len(m.Events))]
					payload := map[string]any{}
					for _, f := range et.Fields {
						switch f.Type.String() {
						case "Text":
							payload[f.Name] = "x"
						case "Bool":
							payload[f.Name] = rng.Intn(2) == 0
						default:
							payload[f.Name] = rng.Intn(120)
						}
					}
					raw, _ := json.Marshal(payload)
					r = inst.Step(machine.Event{Name: et.Name, Raw: raw})
				}
				reached := 0
				for _, e := range r.Effects {
					if e.Authority == nil && e.Status != machine.Skipped {
						t.Fatalf("%s: intent %s has no decision", tc.path, e.Spec.Label())
					}
					switch e.Status {
					case machine.Executed, machine.Failed:
						if e.Authority == nil || !e.Authority.Allowed() {
							t.Fatalf("%s: %s executed without an allow decision: %+v", tc.path, e.Spec.Label(), e.Authority)
						}
						allowed++
						if e.Spec.Name != "policy.evaluate" && e.Spec.Name != "capability.issue" && e.Spec.Name != "capability.revoke" &&
							e.Spec.Name != "approval.request" && e.Spec.Name != "receipt.emit" {
							reached++
						}
					case machine.Denied, machine.Escalated, machine.Deferred, machine.Rejected:
						held++
					}
				}
				if ex.seen-before != reached {
					t.Fatalf("%s: %d intents reached the executor, %d were allowed adapter intents", tc.path, ex.seen-before, reached)
				}
			}
		}
	}
	t.Logf("%d random sequences: %d intents allowed, %d held by the authority, %d holds resolved by an approver; none held reached the executor", 2*sequences, allowed, held, resolved)
	if held == 0 || allowed == 0 || resolved == 0 {
		t.Errorf("the sequences never exercised both outcomes: %d allowed, %d held", allowed, held)
	}
}

// TestDecisionShortcutsAgree: the decision memo and the dry-run reuse of
// decided intents give exactly the decisions and statuses that deciding
// every intent afresh gives, over random inputs (clock advances,
// capabilities issued and used, approvals), in dry-run and mock mode.
func TestDecisionShortcutsAgree(t *testing.T) {
	targets := []struct{ path, machine string }{
		{"testdata/refund_reviewer.caps", "EnclosedAgent"},
		{"testdata/deferred.caps", "Payer"},
		{"testdata/claim_review_governed.caps", "ClaimReview"},
		{"../../examples/authority.caps", "InvoicePayment"},
	}
	rng := rand.New(rand.NewSource(21))
	steps := 0
	for _, tc := range targets {
		fast := compile(t, tc.path, tc.machine)
		slow := compile(t, tc.path, tc.machine)
		machine.NoShortcuts(slow)
		for _, mock := range []bool{false, true} {
			for n := 0; n < 60; n++ {
				opts := func() machine.InstanceOptions {
					if mock {
						return machine.InstanceOptions{Executor: &spy{t: t}}
					}
					return machine.InstanceOptions{}
				}
				a, _ := fast.NewInstance(opts())
				b, _ := slow.NewInstance(opts())
				for k := 0; k < 15; k++ {
					var ra, rb machine.StepResult
					switch x := rng.Intn(8); {
					case x == 0:
						by := int64(rng.Intn(20)) * 60_000
						a.Advance(by)
						b.Advance(by)
						continue
					case x == 1 && len(a.Held()) > 0:
						res := machine.Resolution{Ref: fmt.Sprint(a.Held()[0].Seq), Verdict: "approve", Principal: "HumanClaimsLead", Name: "n"}
						ra, rb = a.Resolve(context.Background(), res), b.Resolve(context.Background(), res)
					default:
						et := fast.Events[rng.Intn(len(fast.Events))]
						payload := map[string]any{}
						for _, f := range et.Fields {
							switch f.Type.String() {
							case "Text":
								payload[f.Name] = "x"
							case "Bool":
								payload[f.Name] = rng.Intn(2) == 0
							default:
								payload[f.Name] = []int{0, 20, 50, 60, 1200, 5000}[rng.Intn(6)]
							}
						}
						raw, _ := json.Marshal(payload)
						ra, rb = a.Step(machine.Event{Name: et.Name, Raw: raw}), b.Step(machine.Event{Name: et.Name, Raw: raw})
					}
					steps++
					if len(ra.Effects) != len(rb.Effects) || ra.To != rb.To {
						t.Fatalf("%s: %s vs %s", tc.path, ra.To, rb.To)
					}
					for e := range ra.Effects {
						x, y := ra.Effects[e], rb.Effects[e]
						if x.Status != y.Status || x.Code != y.Code || !sameDecision(x.Authority, y.Authority) {
							t.Fatalf("%s step %d intent %s: %s %+v, afresh %s %+v", tc.path, ra.Seq, x.Spec.Label(), x.Status, x.Authority, y.Status, y.Authority)
						}
					}
				}
			}
		}
	}
	t.Logf("%d steps agree", steps)
}

func sameDecision(x, y *authority.Decision) bool {
	if x == nil || y == nil {
		return x == y
	}
	a, b := *x, *y
	if (a.Approval == nil) != (b.Approval == nil) || a.Approval != nil && *a.Approval != *b.Approval {
		return false
	}
	a.Approval, b.Approval = nil, nil
	return a == b
}
