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
	lookup := func(path string) (cond.Value, bool) {
		k, ok := m.fields[path[len("context."):]]
		if !ok {
			return cond.Value{}, false
		}
		return condValue(ctx[k])
	}
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
				Env: func(p *authority.Policy) *cond.Env { return m.envs[p] }, Context: lookup}
			if k == 0 {
				req.Approval = approval
			}
			d = m.auth.Decide(&i.auth, req)
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
func isControl(s *EffectSpec) bool { return authority.ControlEffects[s.Name] }

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
