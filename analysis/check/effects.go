package check

import (
	"strings"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// performedEffectRef checks an effect a function or a transition declares
// it performs: effectRef's checks, and the effect must not be budget-only.
// It returns the catalog entry, or nil if unknown or budget-only.
func (c *checker) performedEffectRef(e *ast.Effect) *catalog.Effect {
	if eff := catalog.LookupEffect(e.Name.Name); eff != nil && eff.BudgetOnly {
		c.budgetOnly(eff, e.Name.Span)
		return nil
	}
	return c.effectRef(e, catalog.PerformableEffectNames())
}

// budgetOnly reports a budget-only effect (deploy.live, secret.read) named
// where an effect is performed, with a did-you-mean to an effect that can
// be performed: a close name, else the catalog's governed equivalent.
func (c *checker) budgetOnly(eff *catalog.Effect, sp syntax.Span) {
	hint := didYouMean(eff.Name, catalog.PerformableEffectNames())
	if hint == "" && eff.Instead != "" {
		hint = syntax.DidYouMean(eff.Instead)
	}
	c.errorf(EffectBudgetOnly, sp, "effect %s is budget-only: budgets may allow or deny it, but no function or transition can perform it; remove this intent%s", eff.Name, hint)
}

// effectRef checks a declared effect (on a function, a transition or a
// capability): the effect is catalogued, its targets resolve, and the
// module's profiles admit it. An unknown effect's did-you-mean picks from
// names. It returns the catalog entry, or nil if unknown.
func (c *checker) effectRef(e *ast.Effect, names []string) *catalog.Effect {
	eff := catalog.LookupEffect(e.Name.Name)
	if eff == nil {
		c.errorf(UnknownEffect, e.Name.Span, "unknown effect `%s`%s", e.Name.Name, didYouMean(e.Name.Name, names))
		return nil
	}
	c.admit(eff, e.Name.Span)
	n := len(c.res.Diagnostics)
	c.effectTargets(eff, e.Name, e.Targets)
	if len(c.res.Diagnostics) > n {
		if c.badTargets == nil {
			c.badTargets = map[*ast.Effect]bool{}
		}
		c.badTargets[e] = true
	}
	return eff
}

// admit reports an effect the module's profiles do not admit.
func (c *checker) admit(eff *catalog.Effect, sp syntax.Span) {
	if c.admitted(eff) {
		return
	}
	var names []string
	for _, p := range c.mod.Profiles {
		names = append(names, p.Name)
	}
	hint := ""
	var fix *syntax.Fix
	if ps := catalog.AdmittingProfiles(eff); len(ps) > 0 {
		hint = "; add profile " + ps[0].Name + " to admit it"
		fix = &syntax.Fix{Kind: syntax.FixAddProfile, Args: []string{ps[0].Name, eff.Name}}
	}
	c.errorf(EffectNotAllowed, sp, "effect %s is not admitted by the module's profiles (%s)%s", eff.Name, strings.Join(names, " "), hint).Fix = fix
}

// effectTargets checks the targets of an effect against its target kind.
func (c *checker) effectTargets(eff *catalog.Effect, name ast.Ident, targets []ast.Ident) {
	if len(targets) == 0 {
		if eff.Target != "none" && eff.Target != "free" && !eff.OptionalTarget && !strings.HasSuffix(eff.Target, "-optional") {
			c.errorf(MissingClause, name.Span, "effect %s needs a target: %s", eff.Name, targetHint(eff.Target))
		} else if eff.Target == "free" && !eff.OptionalTarget {
			c.errorf(MissingClause, name.Span, "effect %s needs a name for what it emits", eff.Name)
		}
		return
	}
	if eff.Target == "none" {
		c.errorf(Arity, targets[0].Span, "effect %s takes no target", eff.Name)
		return
	}
	c.target(eff.Name, eff.Target, targets[0])
	for _, t := range targets[1:] {
		if eff.ExtraTargets == "" {
			c.errorf(Arity, t.Span, "effect %s takes one target", eff.Name)
			return
		}
		c.target(eff.Name, eff.ExtraTargets, t)
	}
}

func targetHint(kind string) string {
	switch strings.TrimSuffix(kind, "-optional") {
	case "store-collection":
		return "STORE.collection"
	case "store":
		return "a store"
	case "port-tool":
		return "PORT.tool"
	case "port-resource":
		return "PORT.resource"
	case "agent-skill":
		return "AGENT.skill"
	case "surface", "surface-action":
		return "a surface"
	}
	return "a " + kind
}

// target resolves one effect target of the given kind.
func (c *checker) target(effect, kind string, t ast.Ident) {
	if kind == "free" {
		return
	}
	optionalMember := strings.HasSuffix(kind, "-optional")
	kind = strings.TrimSuffix(kind, "-optional")
	head, member := t.Name, ""
	if i := strings.IndexByte(t.Name, '.'); i >= 0 {
		head, member = t.Name[:i], t.Name[i+1:]
	}
	headSpan := syntax.Span{Start: t.Span.Start, End: t.Span.Start + len(head)}
	memberSpan := syntax.Span{Start: headSpan.End + 1, End: t.Span.End}
	declKind, code := kindOfTarget(kind)
	s := c.lookupDecl(head, headSpan)
	if s == nil || s.Kind != SymbolKind(declKind) {
		what := "unknown"
		if s != nil {
			what = "`" + head + "` is a " + string(s.Kind) + ", not a"
			c.errorf(code, headSpan, "%s %s; effect %s targets %s", what, declKind, effect, targetHint(kind))
			return
		}
		c.errorf(code, headSpan, "unknown %s `%s` in effect %s%s", declKind, head, effect, didYouMean(head, c.declNames(declKind)))
		return
	}
	needMember := kind == "store-collection" || kind == "port-tool" || kind == "port-resource" || kind == "agent-skill" && !optionalMember
	if member == "" {
		if needMember {
			c.errorf(MissingClause, t.Span, "effect %s targets %s; add the %s after a dot", effect, targetHint(kind), memberWord(kind))
		}
		return
	}
	switch kind {
	case "store-collection", "store":
		st, _ := s.Decl.(*ast.Store)
		if st == nil || len(st.Collections) == 0 {
			return // stores without (collection ...) accept any collection
		}
		var names []string
		for _, col := range st.Collections {
			names = append(names, col.Name)
			if col.Name == member {
				c.ref(memberSpan, c.member(s, SymCollection, member))
				return
			}
		}
		c.errorf(UnknownField, memberSpan, "store %s has no collection `%s`%s", head, member, didYouMean(member, names))
	case "port-tool", "port-resource", "agent-skill", "surface-action":
		word := memberWord(kind)
		m := c.member(s, SymOperation, member)
		if m == nil || m.Detail != "" && !strings.HasPrefix(m.Detail, word) {
			var names []string
			for _, sym := range c.members(s) {
				if strings.HasPrefix(sym.Detail, word) {
					names = append(names, sym.Name)
				}
			}
			c.errorf(UnknownField, memberSpan, "%s %s declares no %s `%s`%s", declKind, head, word, member, didYouMean(member, names))
			return
		}
		c.ref(memberSpan, m)
	default:
		c.errorf(UnknownField, memberSpan, "effect %s targets %s; `.%s` is not expected", effect, targetHint(kind), member)
	}
}

func memberWord(kind string) string {
	switch kind {
	case "store-collection", "store":
		return "collection"
	case "port-tool":
		return "tool"
	case "port-resource":
		return "resource"
	case "agent-skill":
		return "skill"
	case "surface-action":
		return "action"
	}
	return "member"
}

// kindOfTarget maps a catalog target kind to a declaration kind and the
// diagnostic code for an unknown one.
func kindOfTarget(kind string) (ast.DeclKind, string) {
	switch kind {
	case "store", "store-collection":
		return ast.KindStore, UnknownStore
	case "port-tool", "port-resource":
		return ast.KindPort, UnknownPort
	case "agent-skill":
		return ast.KindAgent, UnknownAgent
	case "surface", "surface-action":
		return ast.KindSurface, UnknownSurface
	}
	return ast.DeclKind(kind), UnknownName
}

// effectIntent checks an effect performed in a function body:
// (db.write operational.claims payload).
func (c *checker) effectIntent(x ectx, e *ast.Call, eff *catalog.Effect) types.Type {
	if eff.BudgetOnly {
		c.budgetOnly(eff, e.Func.Span())
		c.args(x, skipTarget(x, e.Args))
		return types.TUnit
	}
	if x.effects == nil {
		c.errorf(GuardNotPure, e.Func.Span(), "%s must be pure, but performs effect %s", x.pureWhat, eff.Name)
		args := e.Args
		if eff.Target != "none" {
			args = skipTarget(x, args)
		}
		c.args(x, args)
		return types.TUnit
	}
	c.admit(eff, e.Func.Span())
	var targets []ast.Ident
	args := e.Args
	ntargets := 0
	if eff.Target != "none" {
		ntargets = 1
		if eff.ExtraTargets != "" {
			ntargets = 2
		}
	}
	for len(targets) < ntargets && len(args) > 0 {
		n, ok := args[0].(*ast.Name)
		if !ok {
			break
		}
		// an optional target is taken only if the name is no value in scope
		if (eff.OptionalTarget || len(targets) > 0) && (x.env.lookup(n.Parts[0].Name) != nil || x.context[n.Parts[0].Name] != nil) {
			break
		}
		targets = append(targets, ast.Ident{Name: n.Text(), Span: n.Span()})
		args = args[1:]
	}
	c.effectTargets(eff, ast.Ident{Name: eff.Name, Span: e.Func.Span()}, targets)
	target := ""
	if len(targets) > 0 {
		target = targets[0].Name
	}
	*x.effects = append(*x.effects, EffectUse{Name: eff.Name, Target: target, Span: e.Func.Span()})
	c.args(x, args)
	return types.TUnit
}

// covers reports whether a declared effect covers a performed one: same
// effect, and the declared target is absent, equal, or a prefix of the
// performed target (operational covers operational.claims).
func covers(decl *ast.Effect, use EffectUse) bool {
	if decl.Name.Name != use.Name {
		return false
	}
	if len(decl.Targets) == 0 || use.Target == "" {
		return true
	}
	for _, t := range decl.Targets[:1] {
		if t.Name == use.Target || strings.HasPrefix(use.Target, t.Name+".") {
			return true
		}
	}
	return false
}
