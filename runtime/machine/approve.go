package machine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/runtime/value"
)

// Resolution is an approver's verdict on an intent the authority held
// (escalated or deferred): the input that resumes or ends it.
type Resolution struct {
	// Ref names the held intent: the sequence number of the input whose
	// step holds it (5 or #5, as caps machine-run prints it), or the
	// intent's id.
	Ref string
	// Verdict is authority.Approve or authority.Reject.
	Verdict string
	// Principal is the declared principal the approver acts for, Name
	// the approver: HumanClaimsLead:alice.
	Principal, Name string
}

// held is a transition's intents from the one the authority held for
// approval to its last: what an approval resumes.
type held struct {
	seq, step    uint64 // the input and the step that hold them
	event        string // the transition's event, payload, states and context
	payload      map[string]value.Value
	from, target string
	ctx          []value.Value
	policy       *authority.Policy // the policy a policy.evaluate selected before the held intent
	effects      []Effect          // effects[0] is held, the others were skipped
}

// hold keeps the intents from a held one on, for an approval.
func (i *Instance) hold(h *held, effects []Effect) {
	h.effects = append([]Effect(nil), effects...)
	i.held = append(i.held, h)
}

// Held lists the intents the authority holds for approval, oldest first:
// each the first held intent of its step (the intents after it wait with
// it).
func (i *Instance) Held() []HeldIntent {
	out := make([]HeldIntent, len(i.held))
	for k, h := range i.held {
		out[k] = HeldIntent{Seq: h.seq, Effect: h.effects[0]}
	}
	return out
}

// HeldIntent is an intent held for approval and the step that holds it.
type HeldIntent struct {
	Seq    uint64 // the input whose step holds it
	Effect Effect
}

// standstill starts a step that never moves the instance (an approval or
// a claim verdict): it records input in (numbered and timed here) with
// the observer, and returns the step's result, in the current state.
func (i *Instance) standstill(in Input, cause Cause) *StepResult {
	i.seq++
	if i.obs != nil && i.err == nil {
		in.Seq, in.Clock = i.seq, i.clock
		if err := i.obs.Input(i, &in); err != nil {
			i.err = err
		}
	}
	i.step++
	i.span = 0
	r := &i.res
	st := i.state.Name
	*r = StepResult{Seq: i.seq, Step: i.step, Cause: cause, From: st, Target: st, To: st, Context: i.ctx, Clock: i.clock, Status: i.status}
	return r
}

// Resolve approves or rejects an intent the authority held. The intent
// is decided again at the current logical time, by the policy that held
// it and against the context of its transition: approved, a held outcome
// (escalate, defer) becomes allow, and the intent and the rest of its
// transition's intents are carried out as they would have been (decided
// in order, executed in mock and live mode); rejected, the intent is
// rejected and the rest stay skipped. An approval lifts a hold, never a
// denial: a capability that expired or was used meanwhile, or a lapsed
// mandate, still denies it. The step never moves the instance (no state
// change, no on-error route). It fails, changing nothing, when nothing
// is held at res.Ref or when res.Principal may not approve the intent
// (docs/authority.md).
func (i *Instance) Resolve(ctx context.Context, res Resolution) StepResult {
	r := i.standstill(Input{Kind: InputApproval, Resolution: &res}, CauseApproval)
	r.Resolution = &res
	st := r.From
	root := ""
	op := i.m.Name + "." + res.Verdict
	if i.tracing {
		i.startTrace(r)
		root = i.nextSpan()
	}
	k, f := i.findHeld(res)
	if f == nil && res.Verdict != authority.Approve && res.Verdict != authority.Reject {
		f = &Failure{Code: CodeBadInput, Message: fmt.Sprintf("an approval's verdict is %s or %s, not %q", authority.Approve, authority.Reject, res.Verdict)}
	}
	if f == nil {
		if err := i.m.auth.MayApprove(i.held[k].effects[0].Authority, res.Principal); err != nil {
			e := &i.held[k].effects[0]
			f = &Failure{Code: CodeApproverRefused, Message: fmt.Sprintf("%s:%s may not %s %s held by #%d: %v", res.Principal, res.Name, res.Verdict, e.Spec.Label(), i.held[k].seq, err),
				Reason: "approver not allowed", Actual: res.Principal}
		}
	}
	if f != nil {
		r.Failure = f
		if i.tracing {
			rec := i.record(r, "approval.failed", trace.ComponentAuthority, op, root, "")
			rec.Severity, rec.Body = trace.Error, f.Message
			rec.Reason, rec.Expected, rec.Actual, rec.ErrorCode = f.Reason, f.Expected, f.Actual, f.Code
			i.emit(r, rec)
		}
		i.notify(r)
		return *r
	}
	h := i.held[k]
	i.held = append(i.held[:k:k], i.held[k+1:]...)
	r.Resolves = h.seq
	effs := make([]Effect, len(h.effects))
	for n, e := range h.effects {
		effs[n] = Effect{Spec: e.Spec, Index: e.Index, ID: e.ID, Args: e.Args, Status: Planned}
	}
	approval := &authority.Approval{Verdict: res.Verdict, Principal: res.Principal, Name: res.Name, Held: h.effects[0].Authority.Outcome}
	if at, pol := i.authorize(effs, h.ctx, h.policy, approval); at >= 0 {
		nh := *h
		nh.seq, nh.step, nh.policy = i.seq, i.step, pol
		i.hold(&nh, effs[at:])
	}
	r.OK, r.Effects = true, effs
	if i.tracing {
		e, d := &effs[0], effs[0].Authority
		event := "approval.granted"
		if res.Verdict == authority.Reject {
			event = "approval.rejected"
		}
		rec := i.authorityRecord(r, event, e, d, root, "")
		rec.Operation = op
		rec.Body = fmt.Sprintf("%s %s %s, held by #%d (%s %s)", approval.By(), pastVerdict(res.Verdict), e.Spec.Label(), h.seq, approval.Held, ruleOwner(d))
		rec.MachineEvent, rec.FromState = h.event, st
		i.emit(r, rec)
	}
	if i.obs != nil && i.err == nil {
		if err := i.obs.Committed(i, r); err != nil {
			i.err = err
		}
	}
	if i.err == nil {
		i.execute(ctx, r, root, h)
	}
	if i.tracing {
		i.snapshotRecord(r)
	}
	if i.obs != nil && i.err == nil {
		if err := i.obs.Finished(i, r); err != nil {
			i.err = err
		}
	}
	return *r
}

func pastVerdict(v string) string {
	if v == authority.Reject {
		return "rejected"
	}
	return "approved"
}

// findHeld finds the held intents res.Ref names.
func (i *Instance) findHeld(res Resolution) (int, *Failure) {
	if i.err != nil {
		return -1, &Failure{Code: CodeLedger, Message: "the instance stopped: " + i.err.Error(), Reason: "recording failed"}
	}
	if i.status == Cancelled {
		return -1, &Failure{Code: CodeCancelled, Message: "the instance was cancelled; its held intents were withdrawn", Reason: "instance cancelled", Expected: "running", Actual: "cancelled"}
	}
	ref := strings.TrimPrefix(res.Ref, "#")
	seq, err := strconv.ParseUint(ref, 10, 64)
	isSeq := err == nil
	found := -1
	for k, h := range i.held {
		if isSeq && h.seq == seq || !isSeq && ref != "" && h.effects[0].ID == ref {
			if found >= 0 {
				return -1, &Failure{Code: CodeNotHeld, Message: fmt.Sprintf("#%d holds more than one intent for approval (its advance fired several timeouts): name the intent by its id", seq), Reason: "ambiguous", Actual: res.Ref}
			}
			found = k
		}
	}
	if found >= 0 {
		return found, nil
	}
	msg := fmt.Sprintf("no intent with id %s is held for approval", res.Ref)
	if isSeq {
		msg = fmt.Sprintf("#%d holds no intent for approval", seq)
	}
	var list []string
	for _, h := range i.held {
		e := &h.effects[0]
		s := fmt.Sprintf("#%d %s (%s", h.seq, e.Spec.Label(), e.Status)
		if e.ID != "" {
			s += ", intent " + e.ID
		}
		list = append(list, s+")")
	}
	exp := "nothing"
	if len(list) > 0 {
		msg += "; held: " + strings.Join(list, ", ")
		exp = strings.Join(list, ", ")
	} else {
		msg += "; nothing is held"
	}
	return -1, &Failure{Code: CodeNotHeld, Message: msg, Reason: "nothing held there", Expected: exp, Actual: res.Ref}
}
