package authority

import (
	"github.com/capsulang/caps/analysis/cond"
)

// PolicyView is how one policy decides an intent, as far as the checker
// can tell: the rules that may hold given only the effect, those that
// hold whatever the context, and the rule that decides under the
// default context (every context field at its zero value, no
// capability issued, the standing principal and mandate).
type PolicyView struct {
	Policy *Policy
	// Fixed is set when the context cannot change the outcome: no rule
	// depends on it.
	Fixed bool
	// MayHold lists the rules that may hold for the effect (all of them
	// hold when Fixed).
	MayHold []*Rule
	// DefaultRule is the rule that decides under the default context
	// ("default deny" or a rule's label), and DefaultOutcome its outcome.
	DefaultRule    string
	DefaultOutcome Outcome
}

// Explain shows how the policies that decide an intent of effect and
// target treat it: pol is the policy a (policy.evaluate P) selected (nil:
// the module's policies), env and zero the condition environment of the
// intent's machine and its zero context values.
func (m *Model) Explain(pol *Policy, effect, target string, env func(*Policy) *cond.Env, zero cond.Lookup) []PolicyView {
	pols := m.Policies
	if pol != nil {
		pols = []*Policy{pol}
	}
	var out []PolicyView
	principal := m.principal
	mandate, delegation, capability := m.mandate, m.delegation, ""
	if caps := m.CapabilitiesFor(effect, target); len(caps) == 1 {
		capability = caps[0].Name
		if caps[0].Mandate != "" {
			mandate, delegation = caps[0].Mandate, caps[0].Delegation
		}
	}
	for _, p := range pols {
		known := p.effectOnly(effect, target)
		all := func(path string) (cond.Value, bool) {
			if v, ok := known(path); ok {
				return v, true
			}
			if v, ok := identityValue(path, principal, mandate, delegation, capability, ""); ok {
				return v, true
			}
			if zero != nil {
				return zero(path)
			}
			return cond.Value{}, false
		}
		var e *cond.Env
		if env != nil {
			e = env(p)
		}
		v := PolicyView{Policy: p, Fixed: true, DefaultRule: "default " + string(p.Default), DefaultOutcome: p.Default}
		held := false
		for _, r := range p.Rules {
			if r.Expr == nil {
				continue
			}
			if !cond.MayHold(r.Expr, e, known) {
				continue
			}
			v.MayHold = append(v.MayHold, r)
			if sure, err := cond.Eval(r.Expr, e, known); err != nil || !sure {
				v.Fixed = false
			}
			if ok, err := cond.Eval(r.Expr, e, all); err == nil && ok && (!held || Stricter(v.DefaultOutcome, r.Outcome) != v.DefaultOutcome) {
				v.DefaultRule, v.DefaultOutcome, held = r.Label(), r.Outcome, true
			}
		}
		out = append(out, v)
	}
	return out
}
