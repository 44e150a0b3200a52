package check

import (
	"math/big"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// env is a lexical scope of local names: names maps each to its symbol.
// A function's few inputs are instead listed in syms, searched from the
// end (a repeated input name means its last declaration, as in a map
// filled in order), which spares every function a map.
type env struct {
	parent *env
	names  map[string]*Symbol
	syms   []*Symbol
}

func (e *env) lookup(name string) *Symbol {
	for ; e != nil; e = e.parent {
		for i := len(e.syms) - 1; i >= 0; i-- {
			if e.syms[i].Name == name {
				return e.syms[i]
			}
		}
		if s, ok := e.names[name]; ok {
			return s
		}
	}
	return nil
}

// all returns the names in scope, in no particular order and possibly
// repeated (for suggestions).
func (e *env) all() []string {
	var out []string
	for ; e != nil; e = e.parent {
		for _, s := range e.syms {
			out = append(out, s.Name)
		}
		for n := range e.names {
			out = append(out, n)
		}
	}
	return out
}

// ectx is the context an expression is checked in.
type ectx struct {
	env *env
	// machine context, for guards and assignments.
	context map[string]*Symbol
	event   *eventInfo // the transition's event, for event.<field>
	// effects collects the effect intents performed; nil means the
	// expression must be pure (a guard, a requires clause).
	effects  *[]EffectUse
	pureWhat string
}

type eventInfo struct {
	sym    *Symbol
	fields map[string]*Symbol
	names  []string
	// unknown marks the stand-in for an undeclared event (already
	// reported): its fields are not reported again.
	unknown bool
}

func (x ectx) with(names map[string]*Symbol) ectx {
	x.env = &env{parent: x.env, names: names}
	return x
}

// expr checks e, expecting type want (nil when anything goes), and returns
// its type. A mismatch with want is reported here.
func (c *checker) expr(x ectx, e ast.Expr, want types.Type) types.Type {
	t := c.exprType(x, e, want)
	if want != nil && !types.AssignableTo(t, want) {
		c.errorf(TypeMismatch, e.ExprSpan(), "expected %s, found %s", types.Describe(want), types.Describe(t))
		c.setType(e, want)
		return want
	}
	if types.IsInteger(want) && t == types.TUntypedInt {
		c.checkIntRange(e, want)
		c.setType(e, want)
		return want
	}
	c.setType(e, t)
	return t
}

// setType records e's type; an untyped literal left untyped defaults to Int.
func (c *checker) setType(e ast.Expr, t types.Type) {
	if t == types.TUntypedInt {
		if prev, ok := c.res.Types.Lookup(e); ok && prev != types.TInt {
			return // a context already typed it
		}
		t = types.TInt
	}
	c.res.Types.Set(e, t)
	// An untyped arithmetic expression passes its type down to literals.
	if call, ok := e.(*ast.Call); ok && types.IsInteger(t) {
		switch call.Func.Text() {
		case "+", "-", "*", "/", "%", "min", "max", "abs":
			for _, a := range call.Args {
				if prev := c.res.Types.Type(a); prev == types.TInt || prev == nil {
					if isUntypedExpr(a) {
						c.setType(a, t)
					}
				}
			}
		}
	}
}

// isUntypedExpr reports whether e is an integer literal or arithmetic on
// literals only (whose type the context decides).
func isUntypedExpr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.IntLit:
		return true
	case *ast.Call:
		switch e.Func.Text() {
		case "+", "-", "*", "/", "%", "min", "max", "abs":
			for _, a := range e.Args {
				if !isUntypedExpr(a) {
					return false
				}
			}
			return true
		}
	case *ast.If:
		return isUntypedExpr(e.Then) && isUntypedExpr(e.Else)
	}
	return false
}

func (c *checker) checkIntRange(e ast.Expr, want types.Type) {
	lit, ok := e.(*ast.IntLit)
	if !ok {
		return
	}
	bits := types.Bits(want)
	if bits > 64 {
		c.checkBigIntRange(lit, want, bits)
		return
	}
	unsigned := types.IsUnsigned(want)
	var fits bool
	switch {
	case lit.Overflow:
		fits = false
	case unsigned:
		fits = !lit.Neg && (bits == 64 || lit.Mag <= 1<<uint(bits)-1)
	case lit.Neg:
		fits = lit.Mag <= 1<<uint(bits-1)
	default:
		fits = lit.Mag <= 1<<uint(bits-1)-1
	}
	if fits {
		return
	}
	var lo, hi string
	if unsigned {
		lo, hi = "0", new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1)).String()
	} else {
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)), big.NewInt(1)).String()
		lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(bits-1))).String()
	}
	c.errorf(BadLiteral, lit.Span, "%s does not fit in %s (%s to %s)", lit.Text, want, lo, hi)
}

// checkBigIntRange checks a literal against a type wider than 64 bits.
func (c *checker) checkBigIntRange(lit *ast.IntLit, want types.Type, bits int) {
	v, ok := new(big.Int).SetString(lit.Text, 10)
	if !ok {
		return
	}
	var lo, hi *big.Int
	if types.IsUnsigned(want) {
		lo, hi = big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1))
	} else {
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)), big.NewInt(1))
		lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)))
	}
	if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
		c.errorf(BadLiteral, lit.Span, "%s does not fit in %s (%s to %s)", lit.Text, want, lo, hi)
	}
}

func (c *checker) exprType(x ectx, e ast.Expr, want types.Type) types.Type {
	switch e := e.(type) {
	case *ast.IntLit:
		if e.Overflow && (want == nil || types.Bits(want) <= 64) {
			c.errorf(BadLiteral, e.Span, "%s is too large for any 64-bit integer type", e.Text)
			return types.TInvalid
		}
		return types.TUntypedInt
	case *ast.DecimalLit:
		c.errorf(BadLiteral, e.Span, "decimal numbers are not values in expressions; use integers (for example, cents instead of dollars)")
		return types.TInvalid
	case *ast.Duration:
		return types.TDuration
	case *ast.StringLit:
		return types.TText
	case *ast.BoolLit:
		return types.TBool
	case *ast.NoneLit:
		if o, ok := want.(*types.Option); ok {
			return o
		}
		return &types.Option{Elem: types.THole}
	case *ast.Name:
		return c.name(x, e)
	case *ast.If:
		c.expr(x, e.Cond, types.TBool)
		a := c.expr(x, e.Then, want)
		b := c.expr(x, e.Else, want)
		if want == nil && !types.AssignableTo(b, a) && !types.AssignableTo(a, b) {
			c.errorf(TypeMismatch, e.Else.ExprSpan(), "the branches of if differ: %s and %s", types.Describe(a), types.Describe(b))
			return types.TInvalid
		}
		if a == types.TUntypedInt {
			return b
		}
		return types.Join(a, b)
	case *ast.Let:
		names := map[string]*Symbol{}
		inner := x
		for _, b := range e.Bindings {
			t := types.Default(c.expr(inner, b.Value, nil))
			s := c.define(&Symbol{Kind: SymLocal, Name: b.Name.Name, Span: b.Name.Span, Full: b.Name.Span, Type: t, Detail: c.valueDetail(b.Name.Name, t)})
			names = map[string]*Symbol{b.Name.Name: s}
			inner = inner.with(names) // each binding sees the earlier ones
		}
		return c.expr(inner, e.Body, want)
	case *ast.Do:
		for _, s := range e.Exprs[:len(e.Exprs)-1] {
			c.expr(x, s, nil)
		}
		return c.expr(x, e.Exprs[len(e.Exprs)-1], want)
	case *ast.RecordLit:
		return c.recordLit(x, e)
	case *ast.Match:
		return c.match(x, e, want)
	case *ast.Call:
		return c.call(x, e, want)
	case *ast.BadExpr:
		return types.TInvalid
	}
	return types.TInvalid
}

// name resolves a name or dotted path.
func (c *checker) name(x ectx, n *ast.Name) types.Type {
	first := n.Parts[0]
	var t types.Type
	rest := n.Parts[1:]
	switch {
	case first.Name == "event" && x.event != nil && len(rest) > 0:
		f := x.event.fields[rest[0].Name]
		if f == nil && x.event.unknown {
			return types.TInvalid
		}
		if f == nil {
			c.errorf(UnknownField, rest[0].Span, "event %s has no field `%s`%s%s", x.event.sym.Name, rest[0].Name, didYouMean(rest[0].Name, x.event.names), payloadHint(x.event))
			return types.TInvalid
		}
		c.ref(rest[0].Span, f)
		t, rest = f.Type, rest[1:]
	case x.env.lookup(first.Name) != nil:
		s := x.env.lookup(first.Name)
		c.ref(first.Span, s)
		t = s.Type
	case x.context[first.Name] != nil:
		s := x.context[first.Name]
		c.ref(first.Span, s)
		t = s.Type
	default:
		if s := c.declNamed(first.Name); s != nil {
			if td, ok := s.Decl.(*ast.TypeDecl); ok && len(rest) > 0 {
				c.ref(first.Span, s)
				return c.typeMember(s, c.declType(td), rest, n)
			}
			c.ref(first.Span, s)
			c.errorf(TypeMismatch, n.Span(), "%s `%s` is not a value", s.Kind, first.Name)
			return types.TInvalid
		}
		imp, failed := c.importAlias(first.Name)
		if imp != nil && len(rest) > 1 {
			if s := c.lookupDecl(first.Name+"."+rest[0].Name, syntax.Span{Start: first.Span.Start, End: rest[0].Span.End}); s != nil && s.Type != nil && s.Kind == SymbolKind(ast.KindType) {
				return c.typeMember(s, s.Type, rest[1:], n)
			}
		}
		if failed && len(rest) > 0 {
			return types.TInvalid
		}
		cands := x.env.all()
		for k := range x.context {
			cands = append(cands, k)
		}
		if x.event != nil {
			cands = append(cands, "event")
		}
		sort.Strings(cands)
		c.errorf(UnknownName, first.Span, "unknown name `%s`%s", first.Name, didYouMean(first.Name, cands))
		return types.TInvalid
	}
	return c.selectFields(t, rest)
}

func payloadHint(ev *eventInfo) string {
	if len(ev.names) == 0 {
		return " (the event has no payload)"
	}
	return ""
}

// selectFields applies .field selections to a value of type t.
func (c *checker) selectFields(t types.Type, parts []ast.Ident) types.Type {
	for _, p := range parts {
		if types.IsInvalid(t) {
			return t
		}
		r, ok := t.(*types.Record)
		if !ok {
			c.errorf(UnknownField, p.Span, "%s has no fields; cannot select `%s`", types.Describe(t), p.Name)
			return types.TInvalid
		}
		ft := r.Field(p.Name)
		if ft == nil {
			var names []string
			for _, f := range r.Fields {
				names = append(names, f.Name)
			}
			c.errorf(UnknownField, p.Span, "%s has no field `%s`%s", types.Describe(r), p.Name, didYouMean(p.Name, names))
			return types.TInvalid
		}
		if s := c.declNamed(r.Name); s != nil {
			c.ref(p.Span, c.member(s, SymField, p.Name))
		}
		t = ft
	}
	return t
}

// typeMember resolves Type.member (an enum member or a field-less variant
// case).
func (c *checker) typeMember(s *Symbol, t types.Type, rest []ast.Ident, n *ast.Name) types.Type {
	m := rest[0]
	switch tt := t.(type) {
	case *types.Enum:
		if !tt.Has(m.Name) {
			c.errorf(UnknownName, m.Span, "enum %s has no member `%s`%s", tt.Name, m.Name, didYouMean(m.Name, tt.Members))
			return types.TInvalid
		}
		c.ref(m.Span, c.member(s, SymEnumMember, m.Name))
	case *types.Variant:
		cs := tt.Case(m.Name)
		if cs == nil {
			var names []string
			for _, k := range tt.Cases {
				names = append(names, k.Name)
			}
			c.errorf(UnknownName, m.Span, "variant %s has no case `%s`%s", tt.Name, m.Name, didYouMean(m.Name, names))
			return types.TInvalid
		}
		c.ref(m.Span, c.member(s, SymVariantCase, m.Name))
		if len(cs.Fields) > 0 {
			c.errorf(Arity, n.Span(), "case %s of %s carries %d field%s; construct it as (%s ...)", m.Name, tt.Name, len(cs.Fields), plural(len(cs.Fields)), n.Text())
		}
	default:
		c.errorf(UnknownName, m.Span, "type %s has no members", types.Describe(t))
		return types.TInvalid
	}
	if len(rest) > 1 {
		c.errorf(UnknownField, rest[1].Span, "%s.%s has no fields", s.Name, m.Name)
	}
	return t
}

func (c *checker) recordLit(x ectx, e *ast.RecordLit) types.Type {
	s := c.lookupDecl(e.Type.Name, e.Type.Span)
	if s == nil && c.fromFailedImport(e.Type.Name) {
		for _, f := range e.Fields {
			c.expr(x, f.Value, nil)
		}
		return types.TInvalid
	}
	if s == nil {
		c.errorf(UnknownType, e.Type.Span, "unknown record type `%s`%s", e.Type.Name, didYouMean(e.Type.Name, c.declNames(ast.KindType)))
		for _, f := range e.Fields {
			c.expr(x, f.Value, nil)
		}
		return types.TInvalid
	}
	if s.Kind != SymbolKind(ast.KindType) {
		c.errorf(TypeMismatch, e.Type.Span, "`%s` is a %s, not a type; (record TYPE (field value)...) names a record type", e.Type.Name, s.Kind)
		for _, f := range e.Fields {
			c.expr(x, f.Value, nil)
		}
		return types.TInvalid
	}
	var t types.Type = s.Type
	if td, ok := s.Decl.(*ast.TypeDecl); ok && !c.isImported(s) {
		t = c.declType(td)
	}
	r, ok := t.(*types.Record)
	if !ok {
		c.errorf(TypeMismatch, e.Type.Span, "`%s` is %s, not a record", e.Type.Name, types.Describe(t))
		return types.TInvalid
	}
	seen := map[string]bool{}
	for _, f := range e.Fields {
		ft := r.Field(f.Name.Name)
		if ft == nil {
			var names []string
			for _, rf := range r.Fields {
				names = append(names, rf.Name)
			}
			c.errorf(UnknownField, f.Name.Span, "%s has no field `%s`%s", types.Describe(r), f.Name.Name, didYouMean(f.Name.Name, names))
			c.expr(x, f.Value, nil)
			continue
		}
		if seen[f.Name.Name] {
			c.errorf(DuplicateDecl, f.Name.Span, "field `%s` is given twice", f.Name.Name)
		}
		seen[f.Name.Name] = true
		c.ref(f.Name.Span, c.member(s, SymField, f.Name.Name))
		c.expr(x, f.Value, ft)
	}
	var missing []string
	for _, rf := range r.Fields {
		if !seen[rf.Name] {
			missing = append(missing, rf.Name)
		}
	}
	if len(missing) > 0 {
		c.errorf(MissingClause, e.Type.Span, "record %s is missing field%s %s", r.Name, plural(len(missing)), strings.Join(missing, ", "))
	}
	return r
}

// ---- calls

func (c *checker) call(x ectx, e *ast.Call, want types.Type) types.Type {
	name := e.Func.Text()
	if eff := catalog.LookupEffect(name); eff != nil {
		return c.effectIntent(x, e, eff)
	}
	if b, ok := builtins[name]; ok {
		return b(c, x, e, want)
	}
	if s := c.lookupDecl(name, e.Func.Span()); s != nil {
		if fn, ok := s.Decl.(*ast.Function); ok {
			return c.callFunction(x, e, s, fn)
		}
		if td, ok := s.Decl.(*ast.TypeDecl); ok {
			c.errorf(TypeMismatch, e.Func.Span(), "`%s` is a type; build records with (record %s (field value)...)", name, td.Name.Name)
		} else {
			c.errorf(TypeMismatch, e.Func.Span(), "%s `%s` cannot be called", s.Kind, name)
		}
		c.args(x, e.Args)
		return types.TInvalid
	}
	if t := c.variantCtor(x, e); t != nil {
		return t
	}
	if c.fromFailedImport(name) {
		c.args(x, e.Args)
		return types.TInvalid
	}
	if strings.Contains(name, ".") {
		prefix := name[:strings.LastIndexByte(name, '.')]
		if d := catalog.LookupEffect(prefix); d == nil && effectDomain(name) {
			c.errorf(UnknownEffect, e.Func.Span(), "unknown effect `%s`%s", name, didYouMean(name, catalog.PerformableEffectNames()))
			c.args(x, skipTarget(x, e.Args)) // the first operand is probably its target
			return types.TInvalid
		}
	}
	cands := c.declNames(ast.KindFunction)
	for b := range builtins {
		cands = append(cands, b)
	}
	c.errorf(UnknownName, e.Func.Span(), "unknown function `%s`%s", name, didYouMean(name, cands))
	c.args(x, e.Args)
	return types.TInvalid
}

// effectDomain reports whether a dotted name starts with a catalogued
// effect domain (so it is probably a misspelt effect).
func effectDomain(name string) bool {
	dom := name[:strings.IndexByte(name, '.')]
	for _, e := range catalog.Effects() {
		if e.Domain == dom {
			return true
		}
	}
	return false
}

func (c *checker) args(x ectx, args []ast.Expr) {
	for _, a := range args {
		c.expr(x, a, nil)
	}
}

func (c *checker) callFunction(x ectx, e *ast.Call, s *Symbol, fn *ast.Function) types.Type {
	var sig *signature
	if c.isImported(s) {
		sig = c.importedSignature(s, fn)
	} else {
		sig = c.signature(fn)
	}
	if len(e.Args) != sig.arity() {
		c.errorf(Arity, e.Func.Span(), "%s takes %d argument%s, found %d", fn.Name.Name, sig.arity(), plural(sig.arity()), len(e.Args))
	}
	for i, a := range e.Args {
		var want types.Type
		if i < sig.arity() {
			want = sig.param(i)
		}
		c.expr(x, a, want)
	}
	// The callee's declared effects become the caller's.
	for _, eff := range sig.effects {
		if x.effects == nil {
			c.errorf(GuardNotPure, e.Func.Span(), "%s must be pure, but %s performs %s", x.pureWhat, fn.Name.Name, eff.Name)
			break
		}
		*x.effects = append(*x.effects, EffectUse{Name: eff.Name, Target: eff.Target, Span: e.Func.Span()})
	}
	return sig.result
}

// variantCase is a declared variant type that has a case of some name.
type variantCase struct {
	decl    *ast.TypeDecl
	variant *types.Variant
}

// variantsWithCase returns the module's variant types that have a case
// called name, in declaration order. The index of cases is built on first
// use (resolving every type declaration, as a search would), so that
// checking every bare constructor costs one pass over the declarations,
// not one each.
func (c *checker) variantsWithCase(name string) []variantCase {
	c.uses(keyVariants)
	if c.variantCases == nil {
		c.variantCases = map[string][]variantCase{}
		for _, d := range c.variantDecls() {
			if td, ok := d.(*ast.TypeDecl); ok {
				if v, ok := c.declType(td).(*types.Variant); ok {
					seen := map[string]bool{} // a repeated case adds the type once
					for _, cs := range v.Cases {
						if !seen[cs.Name] {
							seen[cs.Name] = true
							c.variantCases[cs.Name] = append(c.variantCases[cs.Name], variantCase{td, v})
						}
					}
				}
			}
		}
	}
	return c.variantCases[name]
}

// variantDecls returns the declarations variantsWithCase searches: the
// module's; on an Overlay's checker, the earlier check's that the overlay
// neither replaces nor sees gone, then the overlay's own (the order
// matters only to the message of a case several variants have).
func (c *checker) variantDecls() []ast.Decl {
	if c.base == nil || c.overlayDecls == nil && c.overlayGone == nil {
		return c.mod.Decls
	}
	mine := map[string]bool{}
	for _, d := range c.overlayDecls {
		if n := d.Base().Name; n.Valid() {
			mine[n.Name] = true
		}
	}
	var out []ast.Decl
	for _, d := range c.mod.Decls {
		if n := d.Base().Name; n.Valid() && (mine[n.Name] || c.overlayGone[n.Name]) {
			continue
		}
		out = append(out, d)
	}
	return append(out, c.overlayDecls...)
}

// variantCtor checks (case arg...) for a tagged-variant case, written bare
// when the case name is unique or as (Type.case arg...).
func (c *checker) variantCtor(x ectx, e *ast.Call) types.Type {
	name := e.Func.Text()
	var found []*types.Variant
	var owner *Symbol
	caseName := name
	if len(e.Func.Parts) == 2 {
		if s := c.declNamed(e.Func.Parts[0].Name); s != nil {
			if td, ok := s.Decl.(*ast.TypeDecl); ok {
				if v, ok := c.declType(td).(*types.Variant); ok && v.Case(e.Func.Parts[1].Name) != nil {
					found, owner, caseName = []*types.Variant{v}, s, e.Func.Parts[1].Name
				}
			}
		}
	} else {
		for _, vc := range c.variantsWithCase(name) {
			found = append(found, vc.variant)
			owner = c.declNamed(vc.decl.Name.Name)
		}
	}
	if len(found) == 0 {
		return nil
	}
	if len(found) > 1 {
		c.errorf(UnknownName, e.Func.Span(), "case `%s` belongs to several variants (%s and %s); write (%s.%s ...)", name, found[0].Name, found[1].Name, found[0].Name, name)
		c.args(x, e.Args)
		return types.TInvalid
	}
	v := found[0]
	cs := v.Case(caseName)
	if owner != nil {
		c.ref(e.Func.Parts[len(e.Func.Parts)-1].Span, c.member(owner, SymVariantCase, caseName))
	}
	if len(e.Args) != len(cs.Fields) {
		c.errorf(Arity, e.Func.Span(), "case %s of %s takes %d value%s, found %d", caseName, v.Name, len(cs.Fields), plural(len(cs.Fields)), len(e.Args))
	}
	for i, a := range e.Args {
		var want types.Type
		if i < len(cs.Fields) {
			want = cs.Fields[i].Type
		}
		c.expr(x, a, want)
	}
	return v
}

// ---- match

func (c *checker) match(x ectx, e *ast.Match, want types.Type) types.Type {
	st := types.Default(c.expr(x, e.Subject, nil))
	var result types.Type
	for _, arm := range e.Arms {
		binds := map[string]*Symbol{}
		c.pattern(arm.Pattern, st, binds)
		t := c.expr(x.with(binds), arm.Body, want)
		if result == nil || types.IsInvalid(result) || result == types.TUntypedInt {
			result = t
		} else if want == nil && !types.AssignableTo(t, result) {
			c.errorf(TypeMismatch, arm.Body.ExprSpan(), "match arms differ: %s and %s", types.Describe(result), types.Describe(t))
		}
	}
	if result == nil {
		return types.TInvalid
	}
	return result
}

func (c *checker) bind(p *ast.Pattern, t types.Type, binds map[string]*Symbol) {
	n := p.Name.Parts[0]
	binds[n.Name] = c.define(&Symbol{Kind: SymLocal, Name: n.Name, Span: n.Span, Full: p.Span, Type: t, Detail: c.valueDetail(n.Name, t)})
}

// pattern checks a pattern against the subject type and collects bindings.
func (c *checker) pattern(p *ast.Pattern, t types.Type, binds map[string]*Symbol) {
	if p == nil {
		return
	}
	switch p.Kind {
	case ast.PatWildcard:
	case ast.PatBind:
		c.bind(p, t, binds)
	case ast.PatLiteral:
		c.expr(ectx{}, p.Lit, t)
	case ast.PatNone:
		if _, ok := t.(*types.Option); !ok && !types.IsInvalid(t) {
			c.errorf(TypeMismatch, p.Span, "`none` matches an Option, but the value is %s", types.Describe(t))
		}
	case ast.PatMember:
		parts := p.Name.Parts
		s, rest := c.declNamed(parts[0].Name), parts[1:]
		if s != nil {
			c.ref(parts[0].Span, s)
		} else if imp, _ := c.importAlias(parts[0].Name); imp != nil && len(parts) > 2 {
			// an imported type's member: alias.Type.member
			s, rest = c.lookupDecl(parts[0].Name+"."+parts[1].Name, syntax.Span{Start: parts[0].Span.Start, End: parts[1].Span.End}), parts[2:]
		}
		if s == nil {
			if _, failed := c.importAlias(parts[0].Name); !failed {
				c.errorf(UnknownName, parts[0].Span, "unknown type `%s` in pattern", parts[0].Name)
			}
			return
		}
		if s.Kind != SymbolKind(ast.KindType) {
			c.errorf(TypeMismatch, parts[0].Span, "`%s` is a %s, not a type; a pattern names a member as Type.member", parts[0].Name, s.Kind)
			return
		}
		mt := c.typeMember(s, s.Type, rest, p.Name)
		if !types.AssignableTo(mt, t) {
			c.errorf(TypeMismatch, p.Span, "pattern %s is %s, but the value is %s", p.Name.Text(), types.Describe(mt), types.Describe(t))
		}
	case ast.PatCtor:
		name := p.Name.Text()
		arity := func(n int) bool {
			if len(p.Args) != n {
				c.errorf(Arity, p.Span, "pattern (%s ...) takes %d argument%s", name, n, plural(n))
				return false
			}
			return true
		}
		switch name {
		case "some":
			o, ok := t.(*types.Option)
			if !ok {
				if !types.IsInvalid(t) {
					c.errorf(TypeMismatch, p.Span, "(some x) matches an Option, but the value is %s", types.Describe(t))
				}
				o = &types.Option{Elem: types.TInvalid}
			}
			if arity(1) {
				c.pattern(p.Args[0], o.Elem, binds)
			} else {
				c.invalidBinds(p.Args, binds)
			}
			return
		case "ok", "err":
			r, ok := t.(*types.Result)
			if !ok {
				if !types.IsInvalid(t) {
					c.errorf(TypeMismatch, p.Span, "(%s x) matches a Result, but the value is %s", name, types.Describe(t))
				}
				r = &types.Result{Ok: types.TInvalid, Err: types.TInvalid}
			}
			if arity(1) {
				if name == "ok" {
					c.pattern(p.Args[0], r.Ok, binds)
				} else {
					c.pattern(p.Args[0], r.Err, binds)
				}
			} else {
				c.invalidBinds(p.Args, binds)
			}
			return
		}
		v, ok := t.(*types.Variant)
		caseName := p.Name.Parts[len(p.Name.Parts)-1].Name
		if !ok {
			if !types.IsInvalid(t) {
				c.errorf(TypeMismatch, p.Span, "pattern (%s ...) matches a variant case, but the value is %s", name, types.Describe(t))
			}
			c.invalidBinds(p.Args, binds)
			return
		}
		cs := v.Case(caseName)
		if cs == nil {
			var names []string
			for _, k := range v.Cases {
				names = append(names, k.Name)
			}
			c.errorf(UnknownName, p.Name.Span(), "variant %s has no case `%s`%s", v.Name, caseName, didYouMean(caseName, names))
			c.invalidBinds(p.Args, binds)
			return
		}
		if s := c.declNamed(v.Name); s != nil {
			c.ref(p.Name.Parts[len(p.Name.Parts)-1].Span, c.member(s, SymVariantCase, caseName))
		}
		if arity(len(cs.Fields)) {
			for i, a := range p.Args {
				c.pattern(a, cs.Fields[i].Type, binds)
			}
		} else {
			c.invalidBinds(p.Args, binds)
		}
	}
}

// invalidBinds binds the names in sub-patterns that could not be checked,
// with the invalid type, so that one bad pattern does not also make every
// use of its names an unknown name.
func (c *checker) invalidBinds(args []*ast.Pattern, binds map[string]*Symbol) {
	for _, a := range args {
		c.pattern(a, types.TInvalid, binds)
	}
}

// skipTarget drops a leading operand that names no value in scope: the
// target of an effect intent (a store, port, agent...), which is not an
// expression and must not be reported as an unknown name.
func skipTarget(x ectx, args []ast.Expr) []ast.Expr {
	if len(args) > 0 {
		if n, ok := args[0].(*ast.Name); ok && x.env.lookup(n.Parts[0].Name) == nil && x.context[n.Parts[0].Name] == nil {
			return args[1:]
		}
	}
	return args
}
