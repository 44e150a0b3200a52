package machine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/value"
	"github.com/google/go-cmp/cmp"
)

// queued is a test executor whose results come from a queue per effect
// label, one per call.
type queued struct{ results map[string][]string }

func (q *queued) Mode() machine.Mode { return machine.Mock }

func (q *queued) Approve(c *machine.Call) machine.Decision {
	return machine.Decision{Allowed: true, Rule: "test allow"}
}

func (q *queued) Execute(ctx context.Context, c *machine.Call) machine.Outcome {
	l := c.Spec.Label()
	if len(q.results[l]) == 0 {
		return machine.Outcome{OK: true, Adapter: "test"}
	}
	r := q.results[l][0]
	q.results[l] = q.results[l][1:]
	return machine.Outcome{OK: true, Adapter: "test", Result: json.RawMessage(r)}
}

// claimRow is a claim as the tests compare it.
func claimRow(c machine.Claim) string {
	s := fmt.Sprintf("%s:%s", c.Field, c.Status)
	if c.Status == machine.ClaimNone {
		return s
	}
	if c.Value.Kind() != value.KindInvalid {
		s += "=" + c.Value.String()
	} else {
		s += " result " + string(c.Result)
	}
	if len(c.Approvals) > 0 {
		s += " approvals " + strings.Join(c.Approvals, ",")
	}
	if c.By != "" {
		s += " by " + c.By
	}
	return s
}

func claimRows(cs []machine.Claim) []string {
	var out []string
	for _, c := range cs {
		out = append(out, claimRow(c))
	}
	return out
}

// TestClaimsBeforeFacts drives every acceptance rule in mock mode: an
// event that reads a claim as a fact fails with R_CLAIM_NOT_ACCEPTED
// while the claim is pending, superseded or rejected, and succeeds, its
// guard reading the accepted value, once the human (or the quorum's
// second principal) accepted it; auto accepts at once; an observation
// that does not fit the field is rejected by the runtime.
func TestClaimsBeforeFacts(t *testing.T) {
	m := compile(t, "testdata/claims.caps", "Review")
	exec := &queued{results: map[string][]string{
		"mcp.call scorer.score":  {"45", "12", `"high"`},
		"a2a.task auditor.audit": {"3"},
		"mcp.call scorer.label":  {"9"},
	}}
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: exec, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	type in struct {
		event   string
		verdict *machine.ClaimVerdict
	}
	accept := func(claim, who string) *machine.ClaimVerdict {
		return &machine.ClaimVerdict{Claim: claim, Verdict: machine.VerdictAccept, Principal: who}
	}
	reject := func(claim, who string) *machine.ClaimVerdict {
		return &machine.ClaimVerdict{Claim: claim, Verdict: machine.VerdictReject, Principal: who}
	}
	steps := []struct {
		in      in
		code    string   // failure code, "" for success
		changed []string // the step's claims
		context string
		events  []string // the step's claim.* and transition.fail trace events
	}{
		{in{event: "Start"}, "", []string{"score:pending=45", "audit:pending=3", "label:accepted=9 by auto"},
			`{"score":0,"audit":0,"label":9,"ok":false}`,
			[]string{"claim.observed", "claim.observed", "claim.observed", "claim.accepted"}},
		{in{event: "ScoreAccepted"}, "R_CLAIM_NOT_ACCEPTED", nil, `{"score":0,"audit":0,"label":9,"ok":false}`, []string{"machine.transition.fail"}},
		{in{event: "LabelAccepted"}, "", nil, `{"score":0,"audit":0,"label":9,"ok":false}`, nil},
		{in{verdict: accept("score", "alice")}, "R_CLAIM_REFUSED", nil, `{"score":0,"audit":0,"label":9,"ok":false}`, []string{"claim.refused"}},
		{in{verdict: accept("score", "risk_officer")}, "", []string{"score:accepted=45 approvals risk_officer by risk_officer"},
			`{"score":45,"audit":0,"label":9,"ok":false}`, []string{"claim.accepted"}},
		// the guard reads the fact 45: false
		{in{event: "ScoreAccepted"}, "R_GUARD_FALSE", nil, `{"score":45,"audit":0,"label":9,"ok":false}`, []string{"machine.transition.fail"}},
		{in{event: "Rescore"}, "", []string{"score:superseded=45 approvals risk_officer by risk_officer", "score:pending=12"},
			`{"score":45,"audit":0,"label":9,"ok":false}`, []string{"claim.superseded", "claim.observed"}},
		{in{event: "ScoreAccepted"}, "R_CLAIM_NOT_ACCEPTED", nil, `{"score":45,"audit":0,"label":9,"ok":false}`, []string{"machine.transition.fail"}},
		{in{verdict: accept("score", "risk_officer")}, "", []string{"score:accepted=12 approvals risk_officer by risk_officer"},
			`{"score":12,"audit":0,"label":9,"ok":false}`, []string{"claim.accepted"}},
		{in{event: "ScoreAccepted"}, "", nil, `{"score":12,"audit":0,"label":9,"ok":true}`, nil},
		{in{verdict: accept("audit", "alice")}, "", []string{"audit:pending=3 approvals alice"}, `{"score":12,"audit":0,"label":9,"ok":true}`, []string{"claim.approved"}},
		{in{verdict: accept("audit", "alice")}, "R_CLAIM_REFUSED", nil, `{"score":12,"audit":0,"label":9,"ok":true}`, []string{"claim.refused"}},
		{in{event: "AuditAccepted"}, "R_CLAIM_NOT_ACCEPTED", nil, `{"score":12,"audit":0,"label":9,"ok":true}`, []string{"machine.transition.fail"}},
		{in{verdict: accept("audit", "bob")}, "", []string{"audit:accepted=3 approvals alice,bob by bob"}, `{"score":12,"audit":3,"label":9,"ok":true}`, []string{"claim.accepted"}},
		{in{event: "AuditAccepted"}, "", nil, `{"score":12,"audit":3,"label":9,"ok":true}`, nil},
		{in{verdict: accept("audit", "carol")}, "R_CLAIM_NOT_PENDING", nil, `{"score":12,"audit":3,"label":9,"ok":true}`, []string{"claim.refused"}},
		{in{verdict: reject("label", "risk_officer")}, "R_CLAIM_NOT_PENDING", nil, `{"score":12,"audit":3,"label":9,"ok":true}`, []string{"claim.refused"}},
		{in{verdict: accept("scor", "risk_officer")}, "R_CLAIM_NOT_PENDING", nil, `{"score":12,"audit":3,"label":9,"ok":true}`, []string{"claim.refused"}},
		// an observation that does not fit U32: rejected at once; score keeps its fact
		{in{event: "Rescore"}, "", []string{"score:superseded=12 approvals risk_officer by risk_officer", `score:rejected result "high" by runtime`},
			`{"score":12,"audit":3,"label":9,"ok":true}`, []string{"claim.superseded", "claim.observed", "claim.rejected"}},
		{in{event: "ScoreAccepted"}, "R_CLAIM_NOT_ACCEPTED", nil, `{"score":12,"audit":3,"label":9,"ok":true}`, []string{"machine.transition.fail"}},
	}
	for k, s := range steps {
		var r machine.StepResult
		if s.in.verdict != nil {
			r = inst.Decide(ctx, *s.in.verdict)
		} else {
			r = inst.StepContext(ctx, machine.Event{Name: s.in.event})
		}
		code := ""
		if r.Failure != nil {
			code = r.Failure.Code
		}
		var events []string
		for _, rec := range r.Trace {
			if strings.HasPrefix(rec.Event, "claim.") || rec.Event == "machine.transition.fail" {
				events = append(events, rec.Event)
			}
		}
		got := fmt.Sprintf("code %q claims %q context %s events %q", code, claimRows(r.Claims), m.ContextJSON(inst.Context()), events)
		want := fmt.Sprintf("code %q claims %q context %s events %q", s.code, s.changed, s.context, s.events)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("step %d (%+v) (-want +got):\n%s", k+1, s.in, diff)
		}
	}
	if diff := cmp.Diff([]string{`score:rejected result "high" by runtime`, "audit:accepted=3 approvals alice,bob by bob", "label:accepted=9 by auto"}, claimRows(inst.Claims())); diff != "" {
		t.Errorf("final claims (-want +got):\n%s", diff)
	}
}

// TestClaimGateMessage: the failure names the claim, its status and the
// policy a person must satisfy.
func TestClaimGateMessage(t *testing.T) {
	m := compile(t, "testdata/claims.caps", "Review")
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: &queued{results: map[string][]string{"mcp.call scorer.score": {"45"}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := inst.Step(machine.Event{Name: "ScoreAccepted"})
	if r.Failure == nil || r.Failure.Code != "R_NO_TRANSITION" {
		t.Fatalf("in idle: %+v", r.Failure)
	}
	inst.Step(machine.Event{Name: "Start"})
	r = inst.Step(machine.Event{Name: "ScoreAccepted"})
	id := inst.Claims()[0].ID
	want := "ScoreAccepted reads score as a fact, but score is not accepted: claim " + id + " is pending under policy officer (human risk_officer)"
	if r.Failure == nil || r.Failure.Message != want || r.Failure.Actual != "pending" || r.To != "open" {
		t.Fatalf("failure %+v, want %q", r.Failure, want)
	}
	// dry-run observes nothing: the claim stays empty and the event is refused
	dry, _ := m.NewInstance(machine.InstanceOptions{})
	dry.Step(machine.Event{Name: "Start"})
	r = dry.Step(machine.Event{Name: "LabelAccepted"})
	if r.Failure == nil || r.Failure.Message != "LabelAccepted reads label as a fact, but label is not accepted: nothing was observed yet" {
		t.Fatalf("dry-run: %+v", r.Failure)
	}
}

// TestClaimProjected: a store projection traces each accepted claim it
// carries, naming the claim and who accepted it.
func TestClaimProjected(t *testing.T) {
	m := compile(t, "../../examples/31_claims_before_facts.caps", "LoanDecision")
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: &queued{results: map[string][]string{"mcp.call risk_model.score_applicant": {"18"}}}, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	inst.Step(machine.Event{Name: "Apply", Raw: json.RawMessage(`{"loan_id": 7}`)})
	if r := inst.Decide(ctx, machine.ClaimVerdict{Claim: "risk_score", Verdict: machine.VerdictAccept, Principal: "risk_officer"}); !r.OK {
		t.Fatalf("accept: %+v", r.Failure)
	}
	if r := inst.Step(machine.Event{Name: "ScoreAccepted"}); r.To != "approved" {
		t.Fatalf("ScoreAccepted: %s %+v", r.To, r.Failure)
	}
	r := inst.Step(machine.Event{Name: "Record"})
	var got []string
	for _, rec := range r.Trace {
		if rec.Event == "claim.projected" {
			got = append(got, rec.Body+" | "+rec.EffectIntentID+" | "+rec.PrincipalID+" | "+rec.PolicyID)
		}
	}
	id := inst.Claims()[0].ID
	want := []string{"db.project operational.loans knowledge projected risk_score = 18, claim " + id + " accepted by risk_officer | " + id + " | risk_officer | reviewed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claim.projected (-want +got):\n%s", diff)
	}
}
