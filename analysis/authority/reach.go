package authority

import (
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/cond"
	"github.com/capsulang/caps/syntax/ast"
)

// Blocked is an effect intent of a machine that the module's authority
// can never allow, whatever the context, the clock, the capabilities
// issued and the approvals: its policy denies it by default and none of
// its allow, escalate or defer rules can hold for that effect, or it is
// outside the scope of the mandate it runs under.
type Blocked struct {
	Intent  *ast.Effect
	Machine string
	Effect  string // the effect and target as the effect input sees them
	// Policy is the policy that always denies it, or nil; Mandate the
	// mandate whose scope leaves it out, or nil.
	Policy  *Policy
	Mandate *Mandate
	// Why says so, for people.
	Why string
}

// Blocked lists the intents of mod's machines, in source order, that the
// authority can never allow (nil for an ungoverned module). Control
// effects are never blocked.
func (m *Model) Blocked(mod *ast.Module) []Blocked {
	if !m.Governed() || mod == nil {
		return nil
	}
	var out []Blocked
	for _, d := range mod.Decls {
		mach, ok := d.(*ast.Machine)
		if !ok {
			continue
		}
		for _, st := range mach.States {
			for _, t := range st.Transitions {
				var pol *Policy
				for _, e := range t.Effects {
					name := e.Name.Name
					target := ""
					if len(e.Targets) > 0 {
						target = e.Targets[0].Name
					}
					if name == "policy.evaluate" {
						pol = m.Policy(target)
						continue
					}
					if ControlEffects[name] {
						continue
					}
					if b, ok := m.blocked(pol, name, target); ok {
						b.Intent, b.Machine = e, mach.Name.Name
						out = append(out, b)
					}
				}
			}
		}
	}
	return out
}

func (m *Model) blocked(pol *Policy, effect, target string) (Blocked, bool) {
	b := Blocked{Effect: EffectString(effect, target)}
	pols := m.Policies
	if pol != nil {
		pols = []*Policy{pol}
	}
	for _, p := range pols {
		if !p.mayAllow(effect, target) {
			b.Policy = p
			rules := "has no allow, escalate or defer rule"
			if p.hasLifting() {
				rules = "none of its allow, escalate or defer rules can hold for it"
			}
			b.Why = fmt.Sprintf("policy %s denies it by default and %s", p.Name, rules)
			return b, true
		}
	}
	mandate, resource := m.mandate, ""
	if caps := m.CapabilitiesFor(effect, target); len(caps) > 0 {
		resource = caps[0].Resource
		if caps[0].Mandate != "" {
			mandate = caps[0].Mandate
		}
	}
	if md := m.Mandates[mandate]; md != nil && !md.Covers(effect, target, resource) {
		b.Mandate = md
		b.Why = fmt.Sprintf("it is outside the scope of mandate %s (scope %s)", md.Name, strings.Join(md.Scope, " "))
		return b, true
	}
	return b, false
}

// hasLifting reports whether p has a rule whose outcome is not deny.
func (p *Policy) hasLifting() bool {
	for _, r := range p.Rules {
		if r.Outcome != Deny {
			return true
		}
	}
	return false
}

// mayAllow reports whether p can ever let the intent through: its default
// is not deny, or a rule that allows, escalates or defers (an approval
// lifts those) may hold when only the effect is known.
func (p *Policy) mayAllow(effect, target string) bool {
	if p.Default != Deny {
		return true
	}
	get := p.effectOnly(effect, target)
	for _, r := range p.Rules {
		if r.Outcome == Deny {
			continue
		}
		if r.Expr == nil || cond.MayHold(r.Expr, nil, get) {
			return true
		}
	}
	return false
}

// mayHold reports whether r's condition may hold for an intent of effect
// and target, whatever the other inputs are.
func (p *Policy) mayHold(r *Rule, effect, target string) bool {
	return cond.MayHold(r.Expr, nil, p.effectOnly(effect, target))
}

// AllowRule is the narrowest rule that lets an intent of effect and
// target through p: (on allow (if "effect == \"EFFECT.TARGET\"")), as
// Capsulang source.
func AllowRule(effect, target string) string {
	cond := fmt.Sprintf("effect == %q", EffectString(effect, target))
	return fmt.Sprintf("(on allow (if %s))", quoteString(cond))
}

// quoteString writes s as a Capsulang string literal (escapes \" and \\).
func quoteString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
