package interp

import (
	"math/big"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// compiled is a compiled top-level expression (for EvalExpr).
type compiled struct {
	root   node
	nslots int
	mod    *module
	err    *Error
}

type exprKey = ast.Expr

type binding struct {
	name string
	slot int
	typ  types.Type // static type when known
}

// compiler turns checked expressions into nodes. It resolves every local
// name to a frame slot, record fields to indexes, calls to functions and
// constructors, and integer literals to values of the type the checker gave
// them.
type compiler struct {
	mod    *module
	fn     *function // nil when compiling an expression for EvalExpr
	env    *Env      // the environment of that expression
	scope  []binding
	nslots int
	err    *Error
	// depth and maxDepth measure how deeply the compiled nodes nest.
	depth, maxDepth int
}

func (c *compiler) fail(sp syntax.Span, format string, args ...any) node {
	e := newError(Internal, sp, "cannot evaluate this expression: "+format+" (please report)", args...)
	e.File = c.mod.file
	if c.fn != nil {
		e.Function = c.fn.name
	}
	if c.err == nil {
		c.err = e
	}
	return &errNode{err: e}
}

func (c *compiler) bind(name string, t types.Type) int {
	s := c.nslots
	c.nslots++
	c.scope = append(c.scope, binding{name: name, slot: s, typ: t})
	return s
}

func (c *compiler) lookup(name string) (binding, bool) {
	for i := len(c.scope) - 1; i >= 0; i-- {
		if c.scope[i].name == name {
			return c.scope[i], true
		}
	}
	return binding{}, false
}

func (c *compiler) typeOf(e ast.Expr) types.Type { return c.mod.res.Types.Type(e) }

func (c *compiler) hasVar(name string) bool {
	if c.env == nil {
		return false
	}
	_, ok := c.env.Vars[name]
	return ok
}

func (in *Interp) compileFunction(f *function) {
	c := &compiler{mod: f.mod, fn: f}
	for i, p := range f.decl.Inputs {
		var t types.Type
		if i < len(f.params) {
			t = f.params[i].Type
		}
		c.bind(p.Name.Name, t)
	}
	if len(f.params) != len(f.decl.Inputs) {
		c.fail(f.decl.Name.Span, "the parameters of %s are not resolved", f.name)
	}
	for _, r := range f.decl.Requires {
		f.requires = append(f.requires, c.expr(r))
		f.reqExprs = append(f.reqExprs, r)
	}
	if f.decl.Body == nil {
		f.body = c.fail(f.decl.Name.Span, "%s has no body", f.name)
	} else {
		f.body = c.expr(f.decl.Body)
	}
	if len(f.decl.Ensures) > 0 {
		f.resSlot = c.bind("result", f.result)
		for _, e := range f.decl.Ensures {
			f.ensures = append(f.ensures, c.expr(e))
			f.ensExprs = append(f.ensExprs, e)
		}
	}
	f.nslots = c.nslots
	f.nest = c.maxDepth + 1
	f.err = c.err
}

func (in *Interp) compileExpr(e ast.Expr, env *Env) *compiled {
	in.mu.Lock()
	cached := in.exprs[e]
	in.mu.Unlock()
	if cached != nil {
		return cached
	}
	mod := in.root
	if _, ok := mod.res.Types.Lookup(e); !ok {
		for _, f := range in.byDecl {
			if _, ok := f.mod.res.Types.Lookup(e); ok {
				mod = f.mod
				break
			}
		}
	}
	c := &compiler{mod: mod, env: env}
	root := c.expr(e)
	out := &compiled{root: root, nslots: c.nslots, mod: mod, err: c.err}
	in.mu.Lock()
	in.exprs[e] = out
	in.mu.Unlock()
	return out
}

func (c *compiler) expr(e ast.Expr) node {
	c.depth++
	c.maxDepth = max(c.maxDepth, c.depth)
	n := c.exprNode(e)
	c.depth--
	return n
}

func (c *compiler) exprNode(e ast.Expr) node {
	switch e := e.(type) {
	case *ast.IntLit:
		v, err := c.intLit(e)
		if err != nil {
			return err
		}
		return &constNode{v: v}
	case *ast.StringLit:
		return &constNode{v: value.Text(e.Value)}
	case *ast.BoolLit:
		return &constNode{v: value.Bool(e.Value)}
	case *ast.NoneLit:
		return &constNode{v: value.None()}
	case *ast.Duration:
		return &constNode{v: value.Duration(e.Millis)}
	case *ast.Name:
		return c.name(e)
	case *ast.If:
		return &ifNode{cond: c.expr(e.Cond), then: c.expr(e.Then), els: c.expr(e.Else), span: e.Form.Span()}
	case *ast.Let:
		mark := len(c.scope)
		n := &letNode{span: e.Form.Span()}
		for _, b := range e.Bindings {
			x := c.expr(b.Value)
			n.vals = append(n.vals, x)
			n.slots = append(n.slots, c.bind(b.Name.Name, types.Default(c.typeOf(b.Value))))
		}
		n.body = c.expr(e.Body)
		c.scope = c.scope[:mark]
		return n
	case *ast.Do:
		n := &doNode{span: e.Form.Span()}
		for _, x := range e.Exprs {
			n.xs = append(n.xs, c.expr(x))
		}
		return n
	case *ast.RecordLit:
		r, ok := c.typeOf(e).(*types.Record)
		if !ok {
			return c.fail(e.Form.Span(), "the type of this record is not known")
		}
		n := &recordNode{typ: r, span: e.Form.Span()}
		for _, fi := range e.Fields {
			idx := fieldIndex(r, fi.Name.Name)
			if idx < 0 {
				return c.fail(fi.Name.Span, "record %s has no field %s", r.Name, fi.Name.Name)
			}
			n.idx = append(n.idx, idx)
			n.vals = append(n.vals, c.expr(fi.Value))
		}
		if len(n.idx) != len(r.Fields) {
			return c.fail(e.Form.Span(), "record %s is missing fields", r.Name)
		}
		return n
	case *ast.Match:
		n := &matchNode{subj: c.expr(e.Subject), span: e.Form.Span()}
		st := types.Default(c.typeOf(e.Subject))
		for _, a := range e.Arms {
			mark := len(c.scope)
			p := c.pattern(a.Pattern, st)
			n.arms = append(n.arms, arm{pat: p, body: c.expr(a.Body)})
			c.scope = c.scope[:mark]
		}
		return n
	case *ast.Call:
		return c.call(e)
	case nil:
		return c.fail(syntax.Span{}, "a missing expression")
	}
	return c.fail(e.ExprSpan(), "unsupported expression %T", e)
}

func (c *compiler) intLit(e *ast.IntLit) (value.Value, node) {
	t := c.typeOf(e)
	k := value.IntKindOf(t)
	if k == value.IntNone {
		if t != nil {
			return value.Value{}, c.fail(e.Span, "an integer literal of type %s", t)
		}
		k = value.IntI64
	}
	if k == value.IntWei {
		n, ok := new(big.Int).SetString(e.Text, 10)
		if !ok {
			return value.Value{}, c.fail(e.Span, "the literal %s", e.Text)
		}
		return value.WeiBig(n), nil
	}
	if e.Overflow {
		return value.Value{}, c.fail(e.Span, "%s does not fit in 64 bits", e.Text)
	}
	bits := e.Mag
	if e.Neg {
		bits = -bits
	}
	return value.Int(k, bits), nil
}

func fieldIndex(r *types.Record, name string) int { return r.FieldIndex(name) }

// name compiles a name or dotted path: a local, event.FIELD, an
// environment variable, or Type.member, followed by field selections.
func (c *compiler) name(e *ast.Name) node {
	parts := e.Parts
	first := parts[0].Name
	var n node
	var t types.Type
	rest := parts[1:]
	if b, ok := c.lookup(first); ok {
		n, t = &localNode{slot: b.slot}, b.typ
	} else if c.fn == nil && first == "event" && len(rest) > 0 && (c.env != nil && c.env.Event != nil || !c.hasVar("event")) {
		n = &eventFieldNode{field: rest[0].Name, span: e.Span()}
		rest = rest[1:]
	} else if c.fn == nil && c.hasVar(first) {
		n = &freeNode{name: first, span: e.Span()}
	} else if v, used, ok := c.typeMember(parts); ok {
		if used != len(parts) {
			return c.fail(e.Span(), "%s has no fields", e.Text())
		}
		if c.fn == nil {
			return &freeNode{name: first, member: &v, span: e.Span()}
		}
		return &constNode{v: v}
	} else if c.fn == nil {
		n = &freeNode{name: first, span: e.Span()}
	} else {
		return c.fail(e.Span(), "unknown name %s", first)
	}
	for _, p := range rest {
		fn := &fieldNode{x: n, name: p.Name, span: e.Span(), idx: -1}
		if r, ok := t.(*types.Record); ok {
			if i := fieldIndex(r, p.Name); i >= 0 {
				fn.typ, fn.idx = r, i
				t = r.Fields[i].Type
			} else {
				t = nil
			}
		} else {
			t = nil
		}
		n = fn
	}
	return n
}

// typeMember resolves Type.member or alias.Type.member (an enum member or
// a variant case without fields) and says how many parts it used.
func (c *compiler) typeMember(parts []ast.Ident) (value.Value, int, bool) {
	if len(parts) >= 2 {
		if _, ok := c.mod.decls[parts[0].Name].(*ast.TypeDecl); ok {
			if v, ok := member(c.mod.types[parts[0].Name], parts[1].Name); ok {
				return v, 2, true
			}
			return value.Value{}, 0, false
		}
	}
	if len(parts) >= 3 {
		if im := c.mod.imports[parts[0].Name]; im != nil {
			if _, ok := im.decls[parts[1].Name].(*ast.TypeDecl); ok {
				if v, ok := member(im.types[parts[1].Name], parts[2].Name); ok {
					return v, 3, true
				}
			}
		}
	}
	return value.Value{}, 0, false
}

func member(t types.Type, name string) (value.Value, bool) {
	switch t := t.(type) {
	case *types.Enum:
		if i := t.Index(name); i >= 0 {
			return value.Enum(t, i), true
		}
	case *types.Variant:
		if i := t.CaseIndex(name); i >= 0 && len(t.Cases[i].Fields) == 0 {
			return value.Variant(t, i, nil), true
		}
		for i, cs := range t.Cases { // a later case of the same name
			if cs.Name == name && len(cs.Fields) == 0 {
				return value.Variant(t, i, nil), true
			}
		}
	}
	return value.Value{}, false
}

// pattern compiles a match pattern for a subject of static type t,
// binding its names.
func (c *compiler) pattern(p *ast.Pattern, t types.Type) *pattern {
	if p == nil {
		return &pattern{kind: patAny}
	}
	switch p.Kind {
	case ast.PatWildcard:
		return &pattern{kind: patAny}
	case ast.PatBind:
		return &pattern{kind: patBind, slot: c.bind(p.Name.Parts[0].Name, t)}
	case ast.PatLiteral:
		if k, ok := c.expr(p.Lit).(*constNode); ok {
			return &pattern{kind: patEqual, val: k.v}
		}
	case ast.PatNone:
		return &pattern{kind: patNone}
	case ast.PatMember:
		if v, used, ok := c.typeMember(p.Name.Parts); ok && used == len(p.Name.Parts) {
			return &pattern{kind: patEqual, val: v}
		}
	case ast.PatCtor:
		name := p.Name.Text()
		sub := func(i int, t types.Type) *pattern {
			if i < len(p.Args) {
				return c.pattern(p.Args[i], t)
			}
			return &pattern{kind: patAny}
		}
		switch name {
		case "some":
			var et types.Type
			if o, ok := t.(*types.Option); ok {
				et = o.Elem
			}
			return &pattern{kind: patSome, args: []*pattern{sub(0, et)}}
		case "ok", "err":
			var et types.Type
			if r, ok := t.(*types.Result); ok {
				et = r.Ok
				if name == "err" {
					et = r.Err
				}
			}
			kind := patOk
			if name == "err" {
				kind = patErr
			}
			return &pattern{kind: kind, args: []*pattern{sub(0, et)}}
		}
		caseName := p.Name.Parts[len(p.Name.Parts)-1].Name
		out := &pattern{kind: patCase, name: caseName}
		var fields []types.Field
		if v, ok := t.(*types.Variant); ok {
			if cs := v.Case(caseName); cs != nil {
				fields = cs.Fields
			}
		}
		for i := range p.Args {
			var ft types.Type
			if i < len(fields) {
				ft = fields[i].Type
			}
			out.args = append(out.args, sub(i, ft))
		}
		return out
	}
	c.fail(p.Span, "unsupported pattern")
	return &pattern{kind: patAny}
}

// call compiles (f arg...): an effect intent, a built-in operation, a
// function call or a variant constructor, resolved in the checker's order.
func (c *compiler) call(e *ast.Call) node {
	name := e.Func.Text()
	sp := e.Form.Span()
	if eff := catalog.LookupEffect(name); eff != nil {
		return c.intent(e, eff)
	}
	if _, ok := builtinNames[name]; ok {
		return c.builtin(e, name)
	}
	if f := c.calleeOf(name); f != nil {
		if _, lean := f.decl.Body.(*ast.Deferred); lean {
			// (a function a lean tree did not build whole: ast.UndeferReach
			// builds every function an example may call)
			return c.fail(sp, "%s was not built whole (a lean tree, ast.BuildLean), so it cannot run here (please report)", f.name)
		}
		n := &callNode{fn: f, span: sp}
		for _, a := range e.Args {
			n.args = append(n.args, c.expr(a))
		}
		if len(n.args) != len(f.params) {
			return c.fail(sp, "%s takes %d arguments", f.name, len(f.params))
		}
		return n
	}
	if v, ci, ok := c.variantCase(e.Func); ok {
		n := &variantNode{typ: v, cas: ci, span: sp}
		for _, a := range e.Args {
			n.args = append(n.args, c.expr(a))
		}
		if len(n.args) != len(v.Cases[ci].Fields) {
			return c.fail(sp, "case %s takes %d values", v.Cases[ci].Name, len(v.Cases[ci].Fields))
		}
		return n
	}
	return c.fail(e.Func.Span(), "unknown function %s", name)
}

// calleeOf finds the function a call names, as the checker does: a
// declaration of this module, else alias.name in an import.
func (c *compiler) calleeOf(name string) *function {
	if d, ok := c.mod.decls[name]; ok {
		if _, isFn := d.(*ast.Function); isFn {
			return c.mod.funcs[name]
		}
		return nil
	}
	return c.mod.lookupFunc(name)
}

// variantCase resolves a constructor name: Type.case, or a bare case name
// that exactly one variant of the module declares.
func (c *compiler) variantCase(n *ast.Name) (*types.Variant, int, bool) {
	if len(n.Parts) == 2 {
		if v, ok := c.mod.types[n.Parts[0].Name].(*types.Variant); ok {
			if i := v.CaseIndex(n.Parts[1].Name); i >= 0 {
				return v, i, true
			}
		}
		return nil, 0, false
	}
	if refs := c.mod.cases[n.Text()]; len(refs) == 1 {
		return refs[0].variant, refs[0].index, true
	}
	return nil, 0, false // no variant has the case, or several have
}

// intent compiles an effect intent (EFFECT TARGET... PAYLOAD...), splitting
// targets from payload as the checker does.
func (c *compiler) intent(e *ast.Call, eff *catalog.Effect) node {
	n := &intentNode{effect: eff.Name, span: e.Form.Span()}
	ntargets := 0
	if eff.Target != "none" {
		ntargets = 1
		if eff.ExtraTargets != "" {
			ntargets = 2
		}
	}
	args := e.Args
	var targets []string
	for len(targets) < ntargets && len(args) > 0 {
		nm, ok := args[0].(*ast.Name)
		if !ok {
			break
		}
		first := nm.Parts[0].Name
		_, local := c.lookup(first)
		if (eff.OptionalTarget || len(targets) > 0) && (local || c.fn == nil && c.hasVar(first)) {
			break
		}
		targets = append(targets, nm.Text())
		args = args[1:]
	}
	if len(targets) > 0 {
		n.target = targets[0]
		n.extra = targets[1:]
	}
	for _, a := range args {
		n.args = append(n.args, c.expr(a))
	}
	return n
}
