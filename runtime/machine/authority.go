package machine

import (
	"fmt"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/analysis/cond"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/runtime/value"
)

// Authority outcomes other than allow leave an intent in one of these
// statuses, with these codes (docs/authority.md).
const (
	Escalated EffectStatus = "escalated" // the policy escalated it: held for approval
	Deferred  EffectStatus = "deferred"  // the policy deferred it: held

	CodeAuthorityDenied    = "R_AUTHORITY_DENIED"     // the module's authority denied the intent
	CodeAuthorityEscalated = "R_AUTHORITY_ESCALATED"  // the module's authority escalated the intent
	CodeAuthorityDeferred  = "R_AUTHORITY_DEFERRED"   // the module's authority deferred the intent
	CodeAuthorityRejected  = "R_AUTHORITY_REJECTED"   // an approver rejected an intent the authority held
	CodeNotHeld            = "R_NOT_HELD"             // an approval names no intent held for approval
	CodeApproverRefused    = "R_APPROVER_NOT_ALLOWED" // the approver may not resolve the held intent
)

// Trace events of the authority runtime (the spec's telemetry names).
const (
	traceIssued = "capability.issued"
	traceRevoke = "capability.revoked"
)

// compileAuthority reads the module's Authority IR and, when the module
// declares an authority-policy, prepares each policy's condition
// environment for this machine's context.
func (m *Machine) compileAuthority() {
	m.auth = authority.FromModule(m.mod)
	if !m.auth.Governed() {
		return
	}
	m.governed = true
	fields := make([]authority.Field, len(m.Context))
	for k, f := range m.Context {
		fields[k] = authority.Field{Name: f.Name, Type: f.Type}
	}
	m.envs = map[*authority.Policy]*cond.Env{}
	for _, p := range m.auth.Policies {
		m.envs[p] = p.Env(fields)
	}
	m.envOf = func(p *authority.Policy) *cond.Env { return m.envs[p] }
	m.progs = map[*authority.Policy][]*cond.Program{}
	used := map[int]bool{}
	m.allCompiled = true
	for _, p := range m.auth.Policies {
		m.progs[p] = p.Compile(fields)
		for k, prog := range m.progs[p] {
			if prog == nil {
				m.allCompiled = m.allCompiled && p.Rules[k].Expr == nil
				continue
			}
			for _, s := range prog.Slots {
				if k := s - authority.SlotContext; k >= 0 && !used[k] {
					used[k] = true
					m.condFields = append(m.condFields, k)
				}
			}
		}
	}
	m.progOf = func(p *authority.Policy) []*cond.Program { return m.progs[p] }
	// Each intent is decided only by the rules that may hold for it.
	for _, st := range m.States {
		for _, tr := range st.Transitions {
			for _, s := range tr.Effects {
				if isControl(s) {
					continue
				}
				s.cands = map[*authority.Policy][]int{}
				// reads[0]: the context slots the candidate rules of every
				// policy read; reads[1+p.Index]: those of policy p.
				s.reads = make([][]int, 1+len(m.auth.Policies))
				for _, p := range m.auth.Policies {
					s.cands[p] = p.Candidates(s.Name, s.Target)
					for _, k := range s.cands[p] {
						if prog := m.progs[p][k]; prog != nil {
							for _, slot := range prog.Slots {
								if slot >= authority.SlotContext {
									s.reads[1+p.Index] = appendNew(s.reads[1+p.Index], slot)
									s.reads[0] = appendNew(s.reads[0], slot)
								}
							}
						}
					}
				}
			}
		}
	}
}

// Governed reports whether the module declares an authority-policy, so
// that intents are decided by it.
func (m *Machine) Governed() bool { return m.governed }

// authorize decides the intents of a transition in order, before any of
// them is recorded or executed. Control effects (policy.evaluate,
// capability.issue, ...) take effect here; the first intent the
// authority does not allow holds the rest, which become skipped.
//
// pol is the policy a (policy.evaluate P) selected before effects[0] (nil
// for a transition's first intent), and approval, when set, resolves
// effects[0] for an approver. It returns the index of the intent held for
// approval (escalated or deferred), or -1, and the policy selected there.
func (i *Instance) authorize(effects []Effect, ctx []value.Value, pol *authority.Policy, approval *authority.Approval) (int, *authority.Policy) {
	m := i.m
	var lookup cond.Lookup // for the conditions that are not compiled
	if !m.allCompiled {
		lookup = func(path string) (cond.Value, bool) {
			k, ok := m.fields[path[len("context."):]]
			if !ok {
				return cond.Value{}, false
			}
			return condValue(ctx[k])
		}
	}
	// The compiled conditions read the context from one input vector,
	// filled once per transition.
	in := i.fillContext(ctx)
	held := -1
	blocked := false
	for k := range effects {
		e := &effects[k]
		if blocked {
			e.Status, e.Authority = Skipped, nil
			continue
		}
		s := e.Spec
		var d *authority.Decision
		switch s.Name {
		case "policy.evaluate":
			pol = m.auth.Policy(s.Target)
			d = authority.Control(s.Name, s.Target)
		case "capability.issue":
			d = m.auth.Issue(&i.auth, s.Target, e.ID, i.clock)
		case "capability.revoke":
			d = m.auth.Revoke(&i.auth, s.Target)
		case "approval.request", "receipt.emit":
			d = authority.Control(s.Name, s.Target)
		default:
			req := authority.Request{Effect: s.Name, Target: s.Target, ClockMs: i.clock, Policy: pol,
				Env: m.envOf, Context: lookup, Full: s.full, Programs: m.progOf, Inputs: in, Candidates: s.cands}
			if approval != nil { // a resolution: decided afresh
				if k == 0 {
					req.Approval = approval
				}
				d = m.auth.Decide(&i.auth, req)
				break
			}
			if i.memo == nil {
				i.memo = make([]decisionMemo, m.sites)
			}
			memo := &i.memo[s.site]
			reads := s.reads[0]
			if pol != nil {
				reads = s.reads[1+pol.Index]
			}
			if m.allCompiled && memo.d != nil && memo.pol == pol && memo.ver == i.auth.Version() && memo.clock == i.clock && sameValues(memo.vals, in, reads) {
				d = memo.d // decided on the same inputs before: the same decision
				break
			}
			req.Cache = memo.d
			d = m.auth.Decide(&i.auth, req)
			memo.d, memo.pol, memo.ver, memo.clock = d, pol, i.auth.Version(), i.clock
			memo.vals = memo.vals[:0]
			for _, slot := range reads {
				memo.vals = append(memo.vals, in[slot])
			}
		}
		e.Authority = d
		switch d.Outcome {
		case authority.Allow:
			continue
		case authority.Escalate:
			e.Status, e.Code = Escalated, CodeAuthorityEscalated
			held = k
		case authority.Defer:
			e.Status, e.Code = Deferred, CodeAuthorityDeferred
			held = k
		default:
			e.Status, e.Code = Denied, CodeAuthorityDenied
			if d.Approval != nil && d.Approval.Verdict == authority.Reject {
				e.Status, e.Code = Rejected, CodeAuthorityRejected
			}
		}
		e.Error = d.Reason
		blocked = true
	}
	return held, pol
}

// redecided returns, in dry-run, the decided intents transition tr got
// last time when every one of them would be decided the same way now:
// none is a control effect (they change the authority state), all were
// allowed, and each site's memo holds for the current inputs. Deciding
// them again would give the same decisions and the same slice.
func (i *Instance) redecided(tr *Transition, ctx []value.Value, shared bool) ([]Effect, bool) {
	m := i.m
	if !shared || i.exec != nil || !m.allCompiled || i.memo == nil {
		return nil, false
	}
	last, ok := i.decidedFx[tr]
	if !ok {
		return nil, false
	}
	in := i.fillContext(ctx)
	for k := range last {
		e := &last[k]
		s := e.Spec
		if isControl(s) || e.Status != Planned || e.Authority == nil {
			return nil, false
		}
		memo := &i.memo[s.site]
		if memo.d != e.Authority || memo.pol != nil || memo.ver != i.auth.Version() || memo.clock != i.clock || !sameValues(memo.vals, in, s.reads[0]) {
			return nil, false
		}
	}
	return last, true
}

// fillContext fills the context slots of the condition input vector.
func (i *Instance) fillContext(ctx []value.Value) []cond.Value {
	m := i.m
	n := authority.SlotContext + len(m.Context)
	if cap(i.condIn) < n {
		i.condIn = make([]cond.Value, n)
	}
	in := i.condIn[:n]
	for _, k := range m.condFields {
		in[authority.SlotContext+k], _ = condValue(ctx[k])
	}
	return in
}

// decisionMemo is the last decision of an intent site and the inputs it
// was taken on: the selected policy, the authority state's version, the
// clock and the context values its candidate rules read. Decide is a
// function of these (and of what never changes: the model, the intent),
// so the same inputs give the same decision without deciding again.
type decisionMemo struct {
	d     *authority.Decision
	pol   *authority.Policy
	ver   uint64
	clock int64
	vals  []cond.Value
}

// sameValues reports whether the input vector holds vals at slots.
func sameValues(vals, in []cond.Value, slots []int) bool {
	if len(vals) != len(slots) {
		return false
	}
	for k, s := range slots {
		if vals[k] != in[s] {
			return false
		}
	}
	return true
}

func appendNew(xs []int, x int) []int {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// condValue converts a context value for a policy condition.
func condValue(v value.Value) (cond.Value, bool) {
	switch v.Kind() {
	case value.KindBool:
		return cond.BoolValue(v.AsBool()), true
	case value.KindText, value.KindAddress:
		return cond.TextValue(v.AsText()), true
	case value.KindInt:
		switch v.IntKind() {
		case value.IntWei:
			return cond.Value{}, false
		case value.IntU32, value.IntU64:
			return cond.UintValue(v.Uint64()), true
		}
		return cond.IntValue(v.Int64()), true
	case value.KindEnum:
		return cond.TextValue(v.Name()), true
	}
	return cond.Value{}, false
}

// isControl reports whether the authority runtime carries out the intent
// itself.
func isControl(s *EffectSpec) bool { return s.control }

// authorityRecords emits the trace records of an intent's authority
// decision: policy.evaluated for a decided intent, capability.issued, and
// effect.denied / effect.escalated / effect.deferred for one held.
func (i *Instance) authorityRecords(r *StepResult, e *Effect, span, root string) {
	d := e.Authority
	if d == nil || d == authority.Ungoverned {
		return
	}
	event := ""
	switch {
	case e.Spec.Name == "capability.issue" && d.Outcome == authority.Allow:
		event = traceIssued
	case e.Spec.Name == "capability.revoke":
		event = traceRevoke
	case !isControl(e.Spec):
		event = "policy.evaluated"
	}
	if event != "" {
		rec := i.authorityRecord(r, event, e, d, span, root)
		rec.Body = d.Reason
		i.emit(r, rec)
	}
	if d.Outcome == authority.Allow {
		return
	}
	held := map[authority.Outcome]string{authority.Deny: trace.EffectDenied, authority.Escalate: "effect.escalated", authority.Defer: "effect.deferred"}[d.Outcome]
	rec := i.authorityRecord(r, held, e, d, span, root)
	if e.Status == Rejected {
		rec.Body = fmt.Sprintf("%s rejected by %s", e.Spec.Label(), d.Approval.By())
	} else {
		rec.Body = fmt.Sprintf("%s %s by %s: %s", e.Spec.Label(), pastTense(d.Outcome), ruleOwner(d), d.Reason)
	}
	rec.ErrorCode, rec.Expected, rec.Actual = e.Code, "allow", string(d.Outcome)
	if d.Outcome == authority.Deny {
		rec.Severity = trace.Error
	}
	i.emit(r, rec)
}

func (i *Instance) authorityRecord(r *StepResult, event string, e *Effect, d *authority.Decision, span, root string) trace.Record {
	rec := i.record(r, event, trace.ComponentAuthority, e.Spec.Label(), span, root)
	rec.EffectIntentID, rec.Effect, rec.Target = e.ID, e.Spec.Name, e.Spec.Target
	rec.Reason, rec.Decision = d.Rule, string(d.Outcome)
	rec.PolicyID, rec.PrincipalID, rec.MandateID, rec.DelegationID, rec.CapabilityJTI = d.Policy, d.Principal, d.Mandate, d.Delegation, d.CapabilityID
	if rec.CapabilityJTI == "" {
		rec.CapabilityJTI = d.Capability
	}
	if d.Approval != nil {
		rec.ApprovedBy = d.Approval.By()
	}
	return rec
}

func pastTense(o authority.Outcome) string {
	switch o {
	case authority.Deny:
		return "denied"
	case authority.Escalate:
		return "escalated"
	case authority.Defer:
		return "deferred"
	}
	return "allowed"
}

func ruleOwner(d *authority.Decision) string {
	if d.Policy != "" {
		return d.Policy + " " + d.Rule
	}
	return d.Rule
}

// control carries out a control effect in mock and live mode: the
// authority runtime did its work when the transition was decided, so the
// intent is executed in one attempt by the "authority" adapter.
func (i *Instance) control(r *StepResult, e *Effect, span, root string) {
	e.Status = Executed
	e.Attempts = append(e.Attempts, Outcome{OK: true, Adapter: trace.ComponentAuthority, Operation: e.Spec.Name})
	if i.tracing {
		rec := i.record(r, trace.EffectExecuted, trace.ComponentEffect, e.Spec.Label(), span, root)
		rec.Body = "carried out by the authority runtime"
		rec.EffectIntentID, rec.Effect, rec.Target, rec.Adapter = e.ID, e.Spec.Name, e.Spec.Target, trace.ComponentAuthority
		i.emit(r, rec)
	}
}
