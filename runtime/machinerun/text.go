package machinerun

import (
	"fmt"
	"strings"

	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/value"
)

// Text is the run as caps machine-run prints it for people: a heading,
// each step (StepText), the final state, clock and context, each claim,
// and the ledger.
//
//	ClaimReview (dry-run), instance ClaimReview-85ad53b1f696
//	#1 SubmitClaim: idle -> awaiting_review
//	    db.write operational.claims: planned
//	    a2a.task claim_reviewer.review_claim: planned
//	    a2ui.emit claim_status: planned
//	state awaiting_review (running), clock 0ms
//	context {"claim_id":"42","amount_cents":"900","review_score":0,...}
func (res *Result) Text() string {
	m, inst := res.Machine, res.Instance
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s), instance %s\n", m.Name, inst.Mode(), inst.ID())
	for k := range res.Steps {
		b.WriteString(StepText(&res.Steps[k]))
	}
	fmt.Fprintf(&b, "state %s (%s), clock %s\n", inst.State(), inst.Status(), value.FormatDuration(inst.Clock()))
	fmt.Fprintf(&b, "context %s\n", m.ContextJSON(inst.Context()))
	for _, cl := range inst.Claims() {
		fmt.Fprintf(&b, "claim %s\n", ClaimText(&cl))
	}
	if res.Ledger != "" {
		fmt.Fprintf(&b, "ledger %s\n", res.Ledger)
	}
	return b.String()
}

// StepText is one step for people, its intents and their outcomes
// indented under it:
//
//	#1 SubmitClaim: idle -> awaiting_review
//	    db.write operational.claims: planned
func StepText(s *Step) string {
	var b strings.Builder
	r := &s.StepResult
	label := r.Event
	switch r.Cause {
	case machine.CauseTimeout:
		label += " (timeout at " + value.FormatDuration(r.Clock) + ")"
	case machine.CauseCancel:
		label = "!cancel"
	case machine.CauseApproval:
		res := r.Resolution
		label = fmt.Sprintf("!%s %s by %s:%s", res.Verdict, res.Ref, res.Principal, res.Name)
	case machine.CauseClaim:
		v := r.Verdict
		label = fmt.Sprintf("!%s %s by %s", v.Verdict, v.Claim, v.Principal)
	}
	if r.Failure != nil {
		fmt.Fprintf(&b, "#%d %s: FAILED %s: %s\n", r.Seq, label, r.Failure.Code, r.Failure.Message)
		return b.String()
	}
	switch r.Cause {
	case machine.CauseCancel:
		fmt.Fprintf(&b, "#%d %s: cancelled in %s\n", r.Seq, label, r.From)
		return b.String()
	case machine.CauseApproval:
		fmt.Fprintf(&b, "#%d %s: resolves #%d, in %s\n", r.Seq, label, r.Resolves, r.From)
	case machine.CauseClaim:
		fmt.Fprintf(&b, "#%d %s: in %s\n", r.Seq, label, r.From)
	default:
		fmt.Fprintf(&b, "#%d %s: %s -> %s\n", r.Seq, label, r.From, r.Target)
	}
	if len(s.Defaulted) > 0 {
		fmt.Fprintf(&b, "    defaulted (zero values): %s\n", strings.Join(s.Defaulted, ", "))
	}
	for k := range r.Effects {
		e := &r.Effects[k]
		line := string(e.Status)
		switch e.Status {
		case machine.Executed, machine.Failed:
			var total int64
			for _, a := range e.Attempts {
				total += a.DurationMs
			}
			word := "attempts"
			if len(e.Attempts) == 1 {
				word = "attempt"
			}
			line += fmt.Sprintf(" (%d %s, %s)", len(e.Attempts), word, value.FormatDuration(total))
		}
		if e.Code != "" {
			line += ": " + e.Code + ": " + e.Error
		}
		fmt.Fprintf(&b, "    %s: %s\n", e.Spec.Label(), line)
	}
	if rt := r.Route; rt != nil {
		fmt.Fprintf(&b, "    on-error: %s -> %s\n", rt.From, rt.To)
	}
	for k := range r.Claims {
		fmt.Fprintf(&b, "    claim %s\n", ClaimText(&r.Claims[k]))
	}
	return b.String()
}

// ClaimText is a claim for people: score = 25 (pending, policy reviewed,
// id 3f...).
func ClaimText(c *machine.Claim) string {
	if c.Status == machine.ClaimNone {
		return fmt.Sprintf("%s: nothing observed (policy %s)", c.Field, c.Policy)
	}
	s := c.Field + " = "
	if c.Value.Kind() != value.KindInvalid {
		s += c.Value.String()
	} else {
		s += string(c.Result)
	}
	s += fmt.Sprintf(" (%s, policy %s", c.Status, c.Policy)
	if len(c.Approvals) > 0 {
		s += ", approved by " + strings.Join(c.Approvals, " ")
	}
	if c.By != "" && c.Status != machine.ClaimPending && c.Status != machine.ClaimSuperseded {
		s += ", by " + c.By
	}
	return s + ", id " + c.ID + ")"
}
