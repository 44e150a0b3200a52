package check

import (
	"slices"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/analysis/cond"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// policyConditions parses and type-checks the condition of every
// (on OUTCOME (if "CONDITION")) of the module's authority-policies,
// against the context of each machine the policy governs. A problem is
// reported once per rule, inside the string.
func (c *checker) policyConditions(m *ast.Module) {
	model := authority.FromModule(m)
	c.model = model
	if !model.Governed() {
		return
	}
	c.conditions(m, model)
	c.blocked(m, model, m)
}

// conditions checks the policies' conditions (policyConditions).
func (c *checker) conditions(m *ast.Module, model *authority.Model) {
	for _, p := range model.Policies {
		c.policyConditionsOf(m, model, p)
	}
}

// policyConditionsOf checks the conditions of one policy (conditions).
func (c *checker) policyConditionsOf(m *ast.Module, model *authority.Model, p *authority.Policy) {
	machines := c.governedMachines(m, model, p)
	c.strShift = c.shiftOf[p.Decl]
	for _, r := range p.Rules {
		if r.Err != nil {
			c.conditionError(r, r.Err, "")
			continue
		}
		if len(machines) == 0 {
			c.checkCondition(r, p, nil, "")
			continue
		}
		for _, mach := range machines {
			if c.checkCondition(r, p, c.contextFields(mach), mach.Name.Name) {
				break
			}
		}
	}
	c.strShift = 0
}

// blocked reports the intents of the machines of in (m's, or some of
// them) that no rule or mandate can ever let through (policyConditions).
func (c *checker) blocked(m *ast.Module, model *authority.Model, in *ast.Module) {
	for _, b := range model.Blocked(in) {
		fix := "allow it with a rule (repairs that widen authority go through caps propose), or remove the intent"
		if b.Mandate != nil {
			fix = "add it to the mandate's (scope ...) (this widens its authority), or remove the intent"
		}
		c.warnf(AuthorityNeverAllows, shift(b.Intent.Form.Span(), c.intentShift(m, b)), "%s can never be allowed in machine %s: %s; %s", b.Effect, b.Machine, b.Why, fix)
	}
}

// intentShift is how far a blocked intent moved since the tree it is in
// was built: 0 but in a Recheck that kept the base's tree of its machine.
func (c *checker) intentShift(m *ast.Module, b authority.Blocked) int {
	if len(c.shiftOf) == 0 {
		return 0
	}
	for _, d := range m.Decls {
		mach, ok := d.(*ast.Machine)
		if !ok || mach.Name.Name != b.Machine {
			continue
		}
		for _, st := range mach.States {
			for _, t := range st.Transitions {
				for _, e := range t.Effects {
					if e == b.Intent {
						return c.shiftOf[d]
					}
				}
			}
		}
	}
	return 0
}

// checkCondition checks one rule against a machine's context; it reports
// whether it found problems.
func (c *checker) checkCondition(r *authority.Rule, p *authority.Policy, ctx []authority.Field, machine string) bool {
	errs := cond.Check(r.Expr, p.Env(ctx), spell.Nearest)
	for _, e := range errs {
		c.conditionError(r, e, machine)
	}
	return len(errs) > 0
}

func (c *checker) conditionError(r *authority.Rule, e *cond.Error, machine string) {
	msg := e.Msg
	if machine != "" && e.Code == cond.CodeUnknown {
		msg += " (deciding intents of machine " + machine + ")"
	}
	d := c.errorf(e.Code, c.stringSpan(r.Str, e.Start, e.End), "%s", msg)
	if e.Suggest != "" && d != nil {
		d.Suggestion = e.Suggest
	}
}

// governedMachines lists the machines whose intents p decides: those with
// a (policy.evaluate P) in a transition, and, when p is the module's only
// policy, every machine with an intent that is not a control effect.
func (c *checker) governedMachines(m *ast.Module, model *authority.Model, p *authority.Policy) []*ast.Machine {
	if c.governed == nil {
		only := ""
		if len(model.Policies) == 1 {
			only = p.Name
		}
		c.governed = governance(m, only)
	}
	return c.governed[p.Name]
}

// governance indexes a module's machines by the policies whose intents
// they decide, in declaration order: a machine is listed under every P of
// its (policy.evaluate P), and, when the module has one policy (only is
// its name), under it too when it has an intent that is not a control
// effect. One pass over the module, rather than one per policy.
func governance(m *ast.Module, only string) map[string][]*ast.Machine {
	out := map[string][]*ast.Machine{}
	for _, d := range m.Decls {
		if mach, ok := d.(*ast.Machine); ok {
			for _, p := range evaluates(mach, only) {
				out[p] = append(out[p], mach)
			}
		}
	}
	return out
}

// evaluates lists the policies whose intents a machine decides
// (governance).
func evaluates(mach *ast.Machine, only string) []string {
	var out []string
	other := false
	for _, st := range mach.States {
		for _, t := range st.Transitions {
			for _, e := range t.Effects {
				switch {
				case e.Name.Name == "policy.evaluate":
					if len(e.Targets) > 0 && !slices.Contains(out, e.Targets[0].Name) {
						out = append(out, e.Targets[0].Name)
					}
				case only != "" && !authority.ControlEffects[e.Name.Name]:
					other = true
				}
			}
		}
	}
	if other && !slices.Contains(out, only) {
		out = append(out, only)
	}
	return out
}

// contextFields is a machine's context with the checked field types.
func (c *checker) contextFields(mach *ast.Machine) []authority.Field {
	parent := c.declSym(mach)
	var out []authority.Field
	if c.eng != nil || c.base != nil {
		// A Recheck may not have checked the machine's body again: resolve
		// the context's types as its body check does, silently.
		if parent == nil {
			return nil
		}
		for _, f := range mach.Context {
			nd, nr := len(c.res.Diagnostics), len(c.res.Refs)
			t := c.resolveType(f.Type)
			c.res.Diagnostics, c.res.Refs = c.res.Diagnostics[:nd], c.res.Refs[:nr]
			out = append(out, authority.Field{Name: f.Name.Name, Type: t})
		}
		return out
	}
	if parent == nil {
		return nil
	}
	for _, s := range c.members(parent) {
		if s.Kind == SymContextField {
			out = append(out, authority.Field{Name: s.Name, Type: s.Type})
		}
	}
	return out
}

// stringSpan maps [start, end) of a string literal's decoded text to the
// source, through its escapes; the whole literal when the mapping fails.
func (c *checker) stringSpan(str *syntax.Form, start, end int) syntax.Span {
	whole := shift(str.Span(), c.strShift)
	f := c.res.File
	if f == nil || f.Source == nil || f.Source.CST == nil || whole.End > len(f.Source.CST.Src) {
		return whole
	}
	offs := syntax.StringOffsets(string(f.Source.CST.Src[whole.Start:whole.End]))
	if len(offs) != len(str.Text())+1 || start > end || end >= len(offs) {
		return whole
	}
	s, e := whole.Start+offs[start], whole.Start+offs[end]
	if e == s && e < whole.End-1 {
		e++ // an empty range (the end of the text) still shows
	}
	return syntax.Span{Start: s, End: e}
}
