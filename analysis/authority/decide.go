package authority

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/capsulang/caps/analysis/cond"
)

// Decision is the authority decision about one effect intent.
type Decision struct {
	Outcome Outcome `json:"outcome"`
	// Policy is the authority-policy that decided ("" for an ungoverned
	// module or a control effect).
	Policy string `json:"policy,omitempty"`
	// Rule is the rule that decided: `on escalate (if "...")`,
	// `default deny`, or what overrode the policy (a missing capability).
	Rule       string `json:"rule"`
	Principal  string `json:"principal,omitempty"`
	Mandate    string `json:"mandate,omitempty"`
	Delegation string `json:"delegation,omitempty"`
	Capability string `json:"capability,omitempty"`
	// CapabilityID is the issued capability's id (its jti).
	CapabilityID string `json:"capability_id,omitempty"`
	// Reason says why, for people.
	Reason string `json:"reason"`
	// Approval is the approver's verdict on an intent the authority had
	// held (nil when nobody resolved it).
	Approval *Approval `json:"approval,omitempty"`
}

// Allowed reports whether the intent may go on to the host.
func (d *Decision) Allowed() bool { return d == nil || d.Outcome == Allow }

// Ungoverned is the decision for every intent of a module that declares
// no authority-policy.
var Ungoverned = &Decision{Outcome: Allow, Rule: "ungoverned", Reason: "the module declares no authority-policy"}

// Issued is a capability issued to an instance.
type Issued struct {
	ID        string // the capability's jti: the id of the intent that issued it
	Cap       *Capability
	AtMs      int64
	ExpiresMs int64 // 0: does not expire
	Used      bool
}

// State is the authority state of one machine instance: the capabilities
// issued to it. Its zero value is ready to use.
type State struct {
	issued map[string]*Issued // by capability name: the latest issue
}

// Request is one intent to decide.
type Request struct {
	Effect, Target string
	ClockMs        int64
	// Policy is the policy a (policy.evaluate P) earlier in the
	// transition selected; nil lets the model choose.
	Policy *Policy
	// Env returns the condition environment of a policy (the machine's).
	Env func(*Policy) *cond.Env
	// Context resolves context.FIELD paths.
	Context cond.Lookup
	// Approval, when set, resolves the intent again for an approver: a
	// held outcome becomes allow (approved) or deny (rejected).
	Approval *Approval
}

// Principal is the principal a machine of the module acts as: the one
// principal that the module's capabilities (or, without capabilities, its
// mandates' issued-to) name; "" when there is none or more than one.
func (m *Model) Principal() string { return m.principal }

func (m *Model) actingPrincipal() string {
	seen := map[string]bool{}
	for _, c := range m.Capabilities {
		if c.Principal != "" {
			seen[c.Principal] = true
		}
	}
	if len(seen) == 0 {
		for _, md := range m.Mandates {
			if md.IssuedTo != "" {
				seen[md.IssuedTo] = true
			}
		}
	}
	if len(seen) != 1 {
		return ""
	}
	for p := range seen {
		return p
	}
	return ""
}

// Decide decides one intent that is not a control effect.
func (m *Model) Decide(st *State, req Request) *Decision {
	if !m.Governed() {
		return Ungoverned
	}
	d := &Decision{Principal: m.principal}
	caps := m.CapabilitiesFor(req.Effect, req.Target)
	live, why := st.live(m, caps, req, d.Principal)
	if live != nil {
		d.Capability, d.CapabilityID = live.Cap.Name, live.ID
		d.Mandate, d.Delegation = live.Cap.Mandate, live.Cap.Delegation
	} else {
		d.Mandate, d.Delegation = m.mandate, m.delegation
	}
	if d.Capability == "" && len(caps) == 1 {
		d.Capability = caps[0].Name
	}
	m.evaluate(d, req, live)
	if d.Outcome != Deny && len(caps) > 0 && live == nil {
		d.Outcome, d.Rule = Deny, "capability required"
		d.Reason = why
	}
	if d.Outcome != Deny {
		if reason := m.mandateLapsed(d.Mandate, d.Delegation, req); reason != "" {
			d.Outcome, d.Rule, d.Reason = Deny, "mandate not in force", reason
		}
	}
	if d.Outcome != Deny {
		resource := ""
		if live != nil {
			resource = live.Cap.Resource
		} else if len(caps) == 1 {
			resource = caps[0].Resource
		}
		if md := m.Mandates[d.Mandate]; md != nil && !md.Covers(req.Effect, req.Target, resource) {
			d.Outcome, d.Rule = Deny, "outside mandate scope"
			d.Reason = fmt.Sprintf("%s is outside the scope of mandate %s (scope %s)", EffectString(req.Effect, req.Target), md.Name, strings.Join(md.Scope, " "))
		}
	}
	if req.Approval != nil {
		applyApproval(d, req.Approval)
	}
	if d.Outcome == Allow && live != nil && live.Cap.SingleUse {
		live.Used = true
	}
	return d
}

// standing is the mandate and delegation a principal holds without a
// capability: the first mandate issued to it, and the first delegation to
// it under that mandate.
func (m *Model) standing(principal string) (string, string) {
	if principal == "" {
		return "", ""
	}
	mandate := ""
	for _, c := range m.Capabilities { // source order, for determinism
		if c.Principal == principal && c.Mandate != "" {
			mandate = c.Mandate
			break
		}
	}
	if mandate == "" {
		for _, n := range slices.Sorted(maps.Keys(m.Mandates)) {
			if m.Mandates[n].IssuedTo == principal {
				mandate = n
				break
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(m.Delegations)) {
		if dl := m.Delegations[n]; dl.To == principal && dl.Under == mandate {
			return mandate, n
		}
	}
	return mandate, ""
}

// evaluate applies the policy: the most restrictive outcome among the
// rules whose conditions hold, or the default when none holds.
func (m *Model) evaluate(d *Decision, req Request, live *Issued) {
	pols := m.Policies
	if req.Policy != nil {
		pols = []*Policy{req.Policy}
	}
	var names []string
	first := true
	for _, p := range pols {
		out, rule, reason := p.decide(d, req, live)
		names = append(names, p.Name)
		if first || Stricter(d.Outcome, out) != d.Outcome {
			d.Outcome, d.Rule, d.Reason = out, rule, reason
			d.Policy = p.Name
		}
		first = false
	}
	if len(pols) > 1 {
		d.Reason += fmt.Sprintf(" (the strictest of policies %s; select one with (policy.evaluate P))", strings.Join(names, ", "))
	}
}

func (p *Policy) decide(d *Decision, req Request, live *Issued) (Outcome, string, string) {
	var env *cond.Env
	if req.Env != nil {
		env = req.Env(p)
	}
	risk := ""
	if live != nil {
		risk = live.Cap.Risk
	}
	effect := EffectString(req.Effect, req.Target)
	get := func(path string) (cond.Value, bool) {
		switch path {
		case InputEffect:
			return cond.TextValue(effect), true
		case "effect.name":
			return cond.TextValue(req.Effect), true
		case "effect.target":
			return cond.TextValue(req.Target), true
		case InputPrincipal:
			return cond.TextValue(d.Principal), true
		case InputMandate:
			return cond.TextValue(d.Mandate), true
		case InputDelegation:
			return cond.TextValue(d.Delegation), true
		case InputCapability:
			return cond.TextValue(d.Capability), true
		case InputRisk:
			return cond.TextValue(risk), true
		}
		if req.Context != nil && strings.HasPrefix(path, "context.") {
			return req.Context(path)
		}
		return cond.Value{}, false
	}
	out, rule, reason := p.Default, "default "+string(p.Default), fmt.Sprintf("no rule of %s holds for %s; its default is %s", p.Name, effect, p.Default)
	held := false
	for _, r := range p.Rules {
		if r.Expr == nil {
			return Deny, "broken rule", fmt.Sprintf("a rule of %s does not parse: %v", p.Name, r.Err)
		}
		ok, err := cond.Eval(r.Expr, env, get)
		if err != nil {
			return Deny, r.Label(), fmt.Sprintf("%s could not be evaluated for %s: %v", r.Label(), effect, err)
		}
		if ok && (!held || Stricter(out, r.Outcome) != out) {
			out, rule, held = r.Outcome, r.Label(), true
			reason = fmt.Sprintf("%s holds for %s", r.Label(), effect)
		}
	}
	return out, rule, reason
}

// Label is the rule as written: on escalate (if "...").
func (r *Rule) Label() string {
	return fmt.Sprintf("on %s (if %q)", r.Outcome, r.Text)
}

// live finds an issued capability among caps that covers the intent now;
// otherwise it says why none does.
func (st *State) live(m *Model, caps []*Capability, req Request, principal string) (*Issued, string) {
	if len(caps) == 0 {
		return nil, ""
	}
	var whys []string
	for _, c := range caps {
		is := st.issued[c.Name]
		switch {
		case is == nil:
			whys = append(whys, c.Name+" has not been issued (capability.issue "+c.Name+")")
		case is.ExpiresMs > 0 && req.ClockMs >= is.ExpiresMs:
			whys = append(whys, fmt.Sprintf("%s (%s) expired at %dms", c.Name, is.ID, is.ExpiresMs))
		case is.Used:
			whys = append(whys, fmt.Sprintf("%s (%s) is single-use and was used", c.Name, is.ID))
		case c.Principal != "" && c.Principal != principal:
			whys = append(whys, fmt.Sprintf("%s is held by %s, not %s", c.Name, c.Principal, principal))
		default:
			if tool := Tool(req.Target); tool != "" && c.Delegation != "" {
				if dl := m.Delegations[c.Delegation]; dl != nil && dl.Tools != nil && !slices.Contains(dl.Tools, tool) {
					whys = append(whys, fmt.Sprintf("delegation %s does not list tool %s", dl.Name, tool))
					continue
				}
			}
			return is, ""
		}
	}
	return nil, EffectString(req.Effect, req.Target) + " needs a live capability: " + strings.Join(whys, "; ")
}

// mandateLapsed says why the mandate or delegation is not in force at the
// request's time, or "" when it is. Validity windows start when the
// instance starts (logical time 0).
func (m *Model) mandateLapsed(mandate, delegation string, req Request) string {
	if md := m.Mandates[mandate]; md != nil && md.ValidForMs > 0 && req.ClockMs >= md.ValidForMs {
		return fmt.Sprintf("mandate %s expired at %dms (valid-for %dms from the instance's start)", md.Name, md.ValidForMs, md.ValidForMs)
	}
	if dl := m.Delegations[delegation]; dl != nil && dl.ExpiresAfterMs > 0 && req.ClockMs >= dl.ExpiresAfterMs {
		return fmt.Sprintf("delegation %s expired at %dms", dl.Name, dl.ExpiresAfterMs)
	}
	return ""
}

// Issue carries out (capability.issue NAME) at clock ms with jti id.
func (m *Model) Issue(st *State, name, id string, ms int64) *Decision {
	c := m.caps[name]
	d := &Decision{Outcome: Allow, Rule: "capability.issue", Principal: m.principal, Capability: name, CapabilityID: id}
	if c == nil {
		d.Outcome, d.Reason = Deny, "the module declares no capability "+name
		return d
	}
	d.Mandate, d.Delegation = c.Mandate, c.Delegation
	if reason := m.mandateLapsed(c.Mandate, c.Delegation, Request{ClockMs: ms}); reason != "" {
		d.Outcome, d.Rule, d.Reason = Deny, "mandate not in force", "cannot issue "+name+": "+reason
		return d
	}
	is := &Issued{ID: id, Cap: c, AtMs: ms}
	if c.ValidForMs > 0 {
		is.ExpiresMs = ms + c.ValidForMs
		d.Reason = fmt.Sprintf("issued %s to %s until %dms", name, c.Principal, is.ExpiresMs)
	} else {
		d.Reason = fmt.Sprintf("issued %s to %s until revoked", name, c.Principal)
	}
	if st.issued == nil {
		st.issued = map[string]*Issued{}
	}
	st.issued[name] = is
	return d
}

// Revoke carries out (capability.revoke NAME).
func (m *Model) Revoke(st *State, name string) *Decision {
	d := &Decision{Outcome: Allow, Rule: "capability.revoke", Capability: name, Reason: "revoked " + name}
	if is := st.issued[name]; is != nil {
		d.CapabilityID = is.ID
		delete(st.issued, name)
	} else {
		d.Reason = name + " was not issued; nothing to revoke"
	}
	return d
}

// Control is the decision for a control effect other than issue and
// revoke (policy.evaluate, approval.request, receipt.emit).
func Control(effect, target string) *Decision {
	d := &Decision{Outcome: Allow, Rule: effect}
	switch effect {
	case "policy.evaluate":
		d.Policy, d.Reason = target, "the following intents of the transition are decided by "+target
	case "approval.request":
		d.Reason = "approval requested from gate " + target
	default:
		d.Reason = effect + " " + target
	}
	return d
}
