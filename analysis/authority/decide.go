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
	issued  map[string]*Issued // by capability name: the latest issue
	version uint64             // counts the changes to issued
}

// Version changes whenever a capability is issued, revoked or used up:
// a decision taken at one version and clock, on the same inputs, is the
// same at that version and clock.
func (st *State) Version() uint64 { return st.version }

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
	// Full is EffectString(Effect, Target), when the caller has it at
	// hand ("" computes it).
	Full string
	// Programs and Inputs, when both are set, evaluate the conditions
	// compiled for the machine (Policy.Compile) against an input vector
	// whose context slots the caller has filled; Decide fills the
	// others. Without them conditions are evaluated by name.
	Programs func(*Policy) []*cond.Program
	Inputs   []cond.Value
	// Cache is the decision this intent site got last time (nil for
	// none): when the new decision is the same, Decide returns Cache
	// itself instead of allocating one. Decisions are never modified
	// once made, so they can be shared.
	Cache *Decision
	// Candidates, when set, lists by policy the rules that may hold for
	// this intent (Policy.Candidates): the others cannot, whatever the
	// context, and are not evaluated.
	Candidates map[*Policy][]int
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
	// d is built on the stack: when it equals req.Cache, the cached
	// decision is returned and nothing is allocated.
	var d Decision
	d.Principal = m.principal
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
	m.evaluate(&d, req, live)
	if d.Outcome != Deny && len(caps) > 0 && live == nil {
		d.Outcome, d.Rule = Deny, "capability required"
		d.Reason = why
	}
	md := m.Mandates[d.Mandate]
	if d.Outcome != Deny {
		if reason := lapsed(md, m.Delegations[d.Delegation], req.ClockMs); reason != "" {
			d.Outcome, d.Rule, d.Reason = Deny, "mandate not in force", reason
		}
	}
	if d.Outcome != Deny && md != nil && md.Scope != nil {
		resource := ""
		if live != nil {
			resource = live.Cap.Resource
		} else if len(caps) == 1 {
			resource = caps[0].Resource
		}
		if !md.Covers(req.Effect, req.Target, resource) {
			d.Outcome, d.Rule = Deny, "outside mandate scope"
			d.Reason = fmt.Sprintf("%s is outside the scope of mandate %s (scope %s)", EffectString(req.Effect, req.Target), md.Name, strings.Join(md.Scope, " "))
		}
	}
	if req.Approval != nil {
		applyApproval(&d, req.Approval)
	}
	if d.Outcome == Allow && live != nil && live.Cap.SingleUse {
		live.Used = true
		st.version++
	}
	if c := req.Cache; c != nil && *c == d {
		return c
	}
	nd := new(Decision)
	*nd = d
	return nd
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
	var one [1]*Policy
	if req.Policy != nil {
		one[0] = req.Policy
		pols = one[:]
	}
	first := true
	for _, p := range pols {
		out, rule, reason := p.decide(d, req, live, len(pols) == 1)
		if first || Stricter(d.Outcome, out) != d.Outcome {
			d.Outcome, d.Rule, d.Reason = out, rule, reason
			d.Policy = p.Name
		}
		first = false
	}
	if len(pols) > 1 {
		names := make([]string, len(pols))
		for k, p := range pols {
			names[k] = p.Name
		}
		d.Reason += fmt.Sprintf(" (the strictest of policies %s; select one with (policy.evaluate P))", strings.Join(names, ", "))
	}
}

// decide applies one policy. With reuse, a reason equal to that of
// req.Cache (same policy, same rule, same intent) is taken from it rather
// than written again.
func (p *Policy) decide(d *Decision, req Request, live *Issued, reuse bool) (Outcome, string, string) {
	risk := ""
	if live != nil {
		risk = live.Cap.Risk
	}
	effect := req.Full
	if effect == "" {
		effect = EffectString(req.Effect, req.Target)
	}
	var progs []*cond.Program
	if req.Programs != nil && req.Inputs != nil {
		progs = req.Programs(p)
		in := req.Inputs
		for s := 0; s < SlotContext; s++ {
			if p.fixedUsed&(1<<s) == 0 {
				continue
			}
			var v string
			switch s {
			case SlotEffect:
				v = effect
			case SlotEffectName:
				v = req.Effect
			case SlotEffectTarget:
				v = req.Target
			case SlotPrincipal:
				v = d.Principal
			case SlotMandate:
				v = d.Mandate
			case SlotDelegation:
				v = d.Delegation
			case SlotCapability:
				v = d.Capability
			case SlotRisk:
				v = risk
			}
			in[s] = cond.TextValue(v)
		}
	}
	out, rule := p.Default, p.defaultRule
	reason := ""
	held := false
	cands, some := req.Candidates[p]
	for n := range p.Rules {
		k := n
		if some {
			if n >= len(cands) {
				break
			}
			k = cands[n]
		}
		r := p.Rules[k]
		if r.Expr == nil {
			return Deny, "broken rule", fmt.Sprintf("a rule of %s does not parse: %v", p.Name, r.Err)
		}
		var ok bool
		var err error
		if k < len(progs) && progs[k] != nil {
			ok, err = progs[k].Run(req.Inputs)
		} else {
			ok, err = p.evalByName(r, req, effect, risk, d.Principal, d.Mandate, d.Delegation, d.Capability)
		}
		if err != nil {
			return Deny, r.Label(), fmt.Sprintf("%s could not be evaluated for %s: %v", r.Label(), effect, err)
		}
		if ok && (!held || Stricter(out, r.Outcome) != out) {
			out, rule, held = r.Outcome, r.Label(), true
		}
	}
	// The reason is written once, for the rule that decided.
	if c := req.Cache; reuse && c != nil && c.Approval == nil && c.Policy == p.Name && c.Rule == rule && c.Outcome == out {
		reason = c.Reason
	} else if held {
		reason = rule + " holds for " + effect
	} else {
		reason = "no rule of " + p.Name + " holds for " + effect + "; its default is " + string(p.Default)
	}
	return out, rule, reason
}

// evalByName evaluates a rule's condition looking its names up.
func (p *Policy) evalByName(r *Rule, req Request, effect, risk, principal, mandate, delegation, capability string) (bool, error) {
	var env *cond.Env
	if req.Env != nil {
		env = req.Env(p)
	}
	get := func(path string) (cond.Value, bool) {
		if v, ok := effectValue(path, effect, req.Effect, req.Target); ok {
			return v, true
		}
		if v, ok := identityValue(path, principal, mandate, delegation, capability, risk); ok {
			return v, true
		}
		if req.Context != nil && strings.HasPrefix(path, "context.") {
			return req.Context(path)
		}
		return cond.Value{}, false
	}
	return cond.Eval(r.Expr, env, get)
}

// Label is the rule as written: on escalate (if "...").
func (r *Rule) Label() string {
	if r.label == "" {
		r.label = fmt.Sprintf("on %s (if %q)", r.Outcome, r.Text)
	}
	return r.label
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
	return lapsed(m.Mandates[mandate], m.Delegations[delegation], req.ClockMs)
}

// lapsed says why md or dl (either may be nil) is not in force at clock
// ms, or "".
func lapsed(md *Mandate, dl *Delegation, ms int64) string {
	if md != nil && md.ValidForMs > 0 && ms >= md.ValidForMs {
		return fmt.Sprintf("mandate %s expired at %dms (valid-for %dms from the instance's start)", md.Name, md.ValidForMs, md.ValidForMs)
	}
	if dl != nil && dl.ExpiresAfterMs > 0 && ms >= dl.ExpiresAfterMs {
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
	st.version++
	return d
}

// Revoke carries out (capability.revoke NAME).
func (m *Model) Revoke(st *State, name string) *Decision {
	d := &Decision{Outcome: Allow, Rule: "capability.revoke", Capability: name, Reason: "revoked " + name}
	if is := st.issued[name]; is != nil {
		d.CapabilityID = is.ID
		delete(st.issued, name)
		st.version++
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
