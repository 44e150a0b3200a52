package lsp

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/cond"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// authorityHover explains the authority of a governed module at off:
// over an effect intent's name, which policy and rule decide it (under
// the default context, or which rules may hold when the context
// matters), and what else bounds it; over a rule's condition string, its
// parsed form and what its names read. Nil elsewhere.
func authorityHover(v *view, off int) *protocol.Hover {
	decl, q, back := v.declFor(off)
	if decl == nil {
		return nil
	}
	decls := v.decls()
	mod := &ast.Module{Decls: decls}
	model := authority.FromModule(mod)
	if !model.Governed() {
		return nil
	}
	rng := func(sp syntax.Span) *protocol.Range { return ptrRange(v.sn.rng(back(sp))) }
	for _, p := range model.Policies {
		if ast.Decl(p.Decl) != decl {
			continue
		}
		for _, r := range p.Rules {
			if r.Str != nil && r.Str.Span().Start <= q && q < r.Str.Span().End {
				return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: conditionMarkdown(v, decls, model, p, r)},
					Range: rng(r.Str.Span())}
			}
		}
	}
	mach, ok := decl.(*ast.Machine)
	if !ok {
		return nil
	}
	for _, st := range mach.States {
		for _, t := range st.Transitions {
			var pol *authority.Policy
			for _, e := range t.Effects {
				target := ""
				if len(e.Targets) > 0 {
					target = e.Targets[0].Name
				}
				if e.Name.Name == "policy.evaluate" {
					pol = model.Policy(target)
				}
				if q < e.Name.Span.Start || q >= e.Name.Span.End {
					continue
				}
				if authority.ControlEffects[e.Name.Name] {
					return nil
				}
				md := intentMarkdown(v, mach, model, pol, e.Name.Name, target)
				return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: rng(e.Name.Span)}
			}
		}
	}
	return nil
}

// machineFields is a machine's context with its checked types.
func machineFields(v *view, mach *ast.Machine) []authority.Field {
	var out []authority.Field
	for _, s := range v.membersOf(mach, check.SymContextField) {
		out = append(out, authority.Field{Name: s.Name, Type: s.Type})
	}
	return out
}

// zeroLookup gives every context field its zero value: 0, "", false, an
// enum's first member.
func zeroLookup(fields []authority.Field) cond.Lookup {
	return func(path string) (cond.Value, bool) {
		name, ok := strings.CutPrefix(path, "context.")
		if !ok {
			return cond.Value{}, false
		}
		for _, f := range fields {
			if f.Name != name {
				continue
			}
			k, ok := authority.KindOf(f.Type)
			switch {
			case !ok:
				return cond.Value{}, false
			case k == cond.Int:
				return cond.IntValue(0), true
			case k == cond.Bool:
				return cond.BoolValue(false), true
			}
			if e, isEnum := f.Type.(*types.Enum); isEnum && len(e.Members) > 0 {
				return cond.TextValue(e.Members[0]), true
			}
			return cond.TextValue(""), true
		}
		return cond.Value{}, false
	}
}

func intentMarkdown(v *view, mach *ast.Machine, model *authority.Model, pol *authority.Policy, effect, target string) string {
	fields := machineFields(v, mach)
	env := func(p *authority.Policy) *cond.Env { return p.Env(fields) }
	var b strings.Builder
	fmt.Fprintf(&b, "**authority** of `%s`", authority.EffectString(effect, target))
	for _, v := range model.Explain(pol, effect, target, env, zeroLookup(fields)) {
		fmt.Fprintf(&b, "\n\n- policy `%s`", v.Policy.Name)
		switch {
		case v.Fixed:
			fmt.Fprintf(&b, ": decided by `%s` (%s) in every context", v.DefaultRule, v.DefaultOutcome)
		default:
			var labels []string
			for _, r := range v.MayHold {
				labels = append(labels, "`"+r.Label()+"`")
			}
			fmt.Fprintf(&b, ": depends on context: %s may hold, otherwise `default %s`", strings.Join(labels, ", "), v.Policy.Default)
			fmt.Fprintf(&b, "\n- under the default context (zero values): `%s` (%s)", v.DefaultRule, v.DefaultOutcome)
		}
	}
	for _, c := range model.CapabilitiesFor(effect, target) {
		fmt.Fprintf(&b, "\n- needs a live capability `%s` (issue it with `capability.issue %s`)", c.Name, c.Name)
		if c.Approval != "" {
			fmt.Fprintf(&b, "; held intents are approved by `%s`", c.Approval)
		}
	}
	for _, bl := range model.Blocked(&ast.Module{Decls: []ast.Decl{mach}}) {
		if bl.Mandate != nil && bl.Intent.Name.Name == effect && (len(bl.Intent.Targets) == 0 && target == "" || len(bl.Intent.Targets) > 0 && bl.Intent.Targets[0].Name == target) {
			fmt.Fprintf(&b, "\n- %s: always denied", bl.Why)
			break
		}
	}
	return b.String()
}

func conditionMarkdown(v *view, decls []ast.Decl, model *authority.Model, p *authority.Policy, r *authority.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**condition** of `on %s` in policy `%s`", r.Outcome, p.Name)
	if r.Expr == nil {
		fmt.Fprintf(&b, "\n\ndoes not parse: %s", r.Err.Msg)
		return b.String()
	}
	fmt.Fprintf(&b, "\n\n```\n%s\n```", cond.Format(r.Expr))
	var fields []authority.Field
	for _, d := range decls {
		if mach, ok := d.(*ast.Machine); ok {
			fields = machineFields(v, mach)
			break
		}
	}
	env := p.Env(fields)
	for _, name := range cond.Paths(r.Expr) {
		if full, k, ok := env.Resolve(name); ok {
			if full != name {
				fmt.Fprintf(&b, "\n- `%s` reads `%s` (%s)", name, full, k)
			} else {
				fmt.Fprintf(&b, "\n- `%s` (%s)", name, k)
			}
		} else {
			fmt.Fprintf(&b, "\n- `%s`: unknown", name)
		}
	}
	return b.String()
}
