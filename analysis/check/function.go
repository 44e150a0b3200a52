package check

import (
	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

type signature struct {
	result  types.Type
	effects []EffectUse // declared effects
	// inputs are the input symbols, in order: their types are the
	// parameter types (param).
	inputs []*Symbol
	// lean holds, instead of inputs, the parameter types of a function
	// whose body a lean build deferred (ast.BuildLean): its input symbols
	// are made again, from the function built again, while its body is
	// checked (leanInputs), and not kept in between.
	lean []types.Type
}

// arity is the number of parameters.
func (s *signature) arity() int {
	if s.lean != nil {
		return len(s.lean)
	}
	return len(s.inputs)
}

// param returns the type of parameter i; TInvalid for an input whose
// type is unknown.
func (s *signature) param(i int) types.Type {
	t := types.Type(nil)
	if s.lean != nil {
		t = s.lean[i]
	} else {
		t = s.inputs[i].Type
	}
	if t != nil {
		return t
	}
	return types.TInvalid
}

// signature resolves a function's parameter and result types and its
// declared effects (once).
func (c *checker) signature(fn *ast.Function) *signature {
	own := c.ownSymbol(fn)
	if own != nil {
		if own.sig != nil {
			return own.sig
		}
	} else {
		if c.sigs == nil {
			n := 0
			if c.mod != nil && !c.opts.Once {
				n = len(c.mod.Decls)
			}
			c.sigs = make(map[*ast.Function]*signature, n)
		}
		if s, ok := c.cachedSig(fn); ok {
			return s
		}
	}
	sig := &signature{result: types.TInvalid}
	if own != nil {
		own.sig = sig
	} else {
		c.sigs[fn] = sig
	}
	if i, ok := c.index[fn]; ok {
		// what resolving fn's signature looks up and reports is fn's own
		defer c.enter(i)()
	}
	parent := c.declaring(fn)
	inputs := c.newScope("input")
	whole := fn
	if _, ok := fn.Body.(*ast.Deferred); ok {
		// (a lean tree keeps no inputs, output or version; nothing the
		// signature keeps points into the forms)
		whole = ast.MaterializeHeaderIn(fn, &c.headerForms)
	}
	nsyms := len(c.res.Symbols)
	for _, in := range whole.Inputs {
		t := c.resolveType(in.Type)
		s := &Symbol{Kind: SymInput, Name: in.Name.Name, Span: in.Name.Span, Full: in.Form.Span(), Parent: parent, Type: t, Detail: c.valueDetail(in.Name.Name, t)}
		if in.Name.Name == "result" {
			c.errorf(DuplicateDecl, in.Name.Span, "`result` names the return value in ensures; call this input something else")
		}
		inputs.add(s)
		sig.inputs = append(sig.inputs, s)
	}
	if whole.Output != nil {
		sig.result = c.resolveType(whole.Output)
	}
	if fn.Effects != nil {
		for _, e := range fn.Effects.Items {
			if eff := c.performedEffectRef(e); eff != nil {
				target := ""
				if len(e.Targets) > 0 {
					target = e.Targets[0].Name
				}
				sig.effects = append(sig.effects, EffectUse{Name: eff.Name, Target: target, Span: e.Name.Span})
			}
		}
	}
	if parent != nil {
		if !c.opts.Once {
			parent.Detail = c.functionDetail(whole, sig)
		}
		parent.Type = sig.result
	}
	if whole != fn {
		// A lean function keeps its parameter types, not its input
		// symbols: the result does not list them (nor anything else
		// inside the function), and its body's check makes them again.
		sig.lean = make([]types.Type, len(sig.inputs))
		for i, in := range sig.inputs {
			sig.lean[i] = in.Type
		}
		sig.inputs = nil
		if len(c.res.Symbols) == nsyms+len(sig.lean) {
			clear(c.res.Symbols[nsyms:])
			c.res.Symbols = c.res.Symbols[:nsyms]
		}
	}
	return sig
}

// declaring returns the symbol of the declaration fn, nil when fn's
// name is declared by another declaration (a duplicate).
func (c *checker) declaring(fn *ast.Function) *Symbol {
	if s := c.declNamed(fn.Name.Name); s != nil && s.Decl == fn {
		return s
	}
	return nil
}

// functionDetail is a function's one-line signature, for hovers:
// (function f (x I64) -> I64 pure). It is built in the checker's scratch
// buffer, so that the string is the size of its text (a builder grown
// for a typical signature left most of them in a larger size class).
func (c *checker) functionDetail(fn *ast.Function, sig *signature) string {
	b := append(c.scratch[:0], "(function "...)
	b = append(b, fn.Name.Name...)
	b = append(b, " ("...)
	for i, in := range fn.Inputs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, in.Name.Name...)
		b = append(b, ' ')
		b = append(b, sig.param(i).String()...)
	}
	b = append(b, ") -> "...)
	b = append(b, sig.result.String()...)
	if len(sig.effects) > 0 {
		b = append(b, " !"...)
		for _, e := range sig.effects {
			b = append(b, ' ')
			b = append(b, e.Name...)
			if e.Target != "" {
				b = append(b, ' ')
				b = append(b, e.Target...)
			}
		}
	} else {
		b = append(b, " pure"...)
	}
	b = append(b, ')')
	c.scratch = b
	return string(b)
}

// valueDetail is the hover text of a value or field named name of type
// t ("x I64"); a check with Options.Once keeps none (declDetail).
func (c *checker) valueDetail(name string, t types.Type) string {
	if c.opts.Once {
		return ""
	}
	return name + " " + t.String()
}

// declDetail is the hover text a declaration's symbol starts with ("kind
// name"; a function's or type's is replaced once its signature or type is
// resolved). A check with Options.Once keeps no hover text on the
// symbols that a large module has many of (declarations, their inputs,
// fields and cases, locals): only the language server shows it, and it
// never reads a one-shot check.
func (c *checker) declDetail(d ast.Decl) string {
	if c.opts.Once {
		return ""
	}
	return string(d.Kind()) + " " + d.Base().Name.Name
}

func (c *checker) functionSignature(fn *ast.Function) { c.signature(fn) }

// ownSymbol returns, in a check with Options.Once, the symbol declaring
// fn when fn is one of the module's own declarations (the first of its
// name): its signature hangs off it (Symbol.sig). It returns nil for
// any other function, whose signature is in c.sigs, and in any other
// check (a Recheck's checker shares symbols with its base, which is
// never written).
func (c *checker) ownSymbol(fn *ast.Function) *Symbol {
	if !c.opts.Once || c.base != nil {
		return nil
	}
	if s := c.decls[fn.Name.Name]; s != nil && s.Decl == fn {
		return s
	}
	return nil
}

// function checks a function's clauses and body.
func (c *checker) function(fn *ast.Function) {
	sig := c.signature(fn)
	whole, syms := fn, sig.inputs
	if _, ok := fn.Body.(*ast.Deferred); ok {
		whole = ast.MaterializeIn(fn, &c.bodyForms) // (no signature is resolved in it)
		syms = c.leanInputs(fn, whole, sig)
		defer c.leanBody()()
	}
	// The inputs' environment and the effects the body performs live in
	// the checker, reused from function to function: no check keeps an
	// environment, and a large module has a function a line (issue 19).
	c.fnEnv = env{syms: syms}
	inputs := &c.fnEnv
	if len(syms) > smallScope {
		inputs = &env{names: make(map[string]*Symbol, len(syms))}
		for _, in := range syms {
			inputs.names[in.Name] = in
		}
	}
	base := ectx{env: inputs}
	pure := base
	pure.pureWhat = "a requires clause"
	for _, r := range fn.Requires {
		c.expr(pure, r, types.TBool)
	}
	if len(fn.Ensures) > 0 {
		res := c.define(&Symbol{Kind: SymLocal, Name: "result", Span: fn.Name.Span, Full: fn.Name.Span, Type: sig.result, Detail: c.valueDetail("result", sig.result)})
		post := pure.with(map[string]*Symbol{"result": res})
		post.pureWhat = "an ensures clause"
		for _, e := range fn.Ensures {
			c.expr(post, e, types.TBool)
		}
	}
	if fn.Body != nil {
		c.fnUsed = c.fnUsed[:0]
		body := base
		body.effects = &c.fnUsed
		c.expr(body, whole.Body, sig.result)
		if len(c.fnUsed) > 0 {
			c.res.FuncEffects[fn] = append([]EffectUse(nil), c.fnUsed...)
		}
		used := c.fnUsed
		for _, u := range used {
			if !c.declaredEffect(fn, u) {
				target := ""
				if u.Target != "" {
					target = " " + u.Target
				}
				d := c.errorf(EffectNotDeclared, u.Span, "function %s performs (%s%s) but does not declare it; add it to (effects ...)", fn.Name.Name, u.Name, target)
				d.Fix = &syntax.Fix{Kind: syntax.FixDeclareEffect, Args: []string{fn.Name.Name, u.Name, u.Target}}
			}
		}
	}
	ex := pure
	ex.pureWhat = "an example"
	ex.env = nil
	for _, e := range fn.Examples {
		c.example(ex, fn, sig, e)
	}
}

// leanInputs makes the input symbols of fn, a function whose body a lean
// build deferred (whole is fn built again), as its signature made them,
// with their types (sig.lean); they are not defined again (the signature
// reported what defining them reports).
func (c *checker) leanInputs(fn, whole *ast.Function, sig *signature) []*Symbol {
	parent := c.declaring(fn)
	syms := make([]*Symbol, len(sig.lean))
	for i, in := range whole.Inputs {
		if i < len(syms) {
			syms[i] = &Symbol{Kind: SymInput, Name: in.Name.Name, Span: in.Name.Span, Full: in.Form.Span(), Parent: parent, Type: sig.lean[i], File: c.opts.Path}
		}
	}
	return syms
}

// leanBody begins the check of a body a lean build deferred, and returns
// the function that ends it: the body's types go to a table of the
// checker's own, emptied at the end, and the symbols and references its
// check adds are dropped then. No result keeps a deferred body, nor
// anything pointing into it (issue 19: a one-shot check's memory).
func (c *checker) leanBody() func() {
	if c.leanTypes == nil {
		c.leanTypes = &TypeMap{}
	}
	fileTypes := c.res.Types
	c.res.Types = c.leanTypes
	nsyms, nrefs := len(c.res.Symbols), len(c.res.Refs)
	return func() {
		c.leanTypes.reset()
		c.res.Types = fileTypes
		clear(c.res.Symbols[nsyms:])
		c.res.Symbols = c.res.Symbols[:nsyms]
		clear(c.res.Refs[nrefs:])
		c.res.Refs = c.res.Refs[:nrefs]
	}
}

func (c *checker) declaredEffect(fn *ast.Function, u EffectUse) bool {
	if fn.Effects == nil {
		return false
	}
	for _, d := range fn.Effects.Items {
		if covers(d, u) {
			return true
		}
		// A declaration already reported (a misspelt effect or target) is
		// taken to mean the effect used, so one typo is one error.
		if d.Name.Name == u.Name && c.badTargets[d] {
			return true
		}
		if catalog.LookupEffect(d.Name.Name) == nil && spell.Nearest(d.Name.Name, catalog.PerformableEffectNames()) == u.Name {
			return true
		}
	}
	return false
}

func (c *checker) example(x ectx, fn *ast.Function, sig *signature, e *ast.Example) {
	if !e.Func.Valid() {
		return
	}
	if e.Func.Name != fn.Name.Name {
		c.errorf(UnknownName, e.Func.Span, "an example of %s must call %s, not %s", fn.Name.Name, fn.Name.Name, e.Func.Name)
	} else {
		c.ref(e.Func.Span, c.declNamed(fn.Name.Name))
	}
	if len(e.Args) != sig.arity() {
		c.errorf(Arity, e.Func.Span, "%s takes %d argument%s, the example gives %d", fn.Name.Name, sig.arity(), plural(sig.arity()), len(e.Args))
	}
	var effects []EffectUse
	x.effects = &effects // examples may call effectful functions; the runtime records the intents
	for i, a := range e.Args {
		var want types.Type
		if i < sig.arity() {
			want = sig.param(i)
		}
		c.expr(x, a, want)
	}
	c.expr(x, e.Expected, sig.result)
	c.res.Examples = append(c.res.Examples, &ExampleInfo{Function: fn, Example: e})
}

// ---- built-in operations

type builtin func(c *checker, x ectx, e *ast.Call, want types.Type) types.Type

var builtins map[string]builtin

func init() {
	builtins = map[string]builtin{
		"+": arith, "-": arith, "*": arith, "/": arith, "%": arith,
		"==": equality, "!=": equality,
		"<": ordering, "<=": ordering, ">": ordering, ">=": ordering,
		"and": logic, "or": logic, "not": not,
		"some": some, "ok": resultCtor, "err": resultCtor,
		"list":        listLit,
		"concat":      concat,
		"len":         length,
		"upper":       textToText,
		"lower":       textToText,
		"trim":        textToText,
		"contains":    contains,
		"starts-with": textPred,
		"ends-with":   textPred,
		"to-text":     toText,
		"get":         get,
		"append":      appendList,
		"is-some":     optionPred,
		"is-none":     optionPred,
		"unwrap-or":   unwrapOr,
		"is-ok":       resultPred,
		"is-err":      resultPred,
		"abs":         absInt,
		"min":         minMax,
		"max":         minMax,
	}
}

// Builtins returns the names of the built-in operations, for completion.
func Builtins() []string {
	var out []string
	for k := range builtins {
		out = append(out, k)
	}
	return out
}

func arity(c *checker, e *ast.Call, n int) bool {
	if len(e.Args) != n {
		c.errorf(Arity, e.Func.Span(), "(%s ...) takes %d argument%s, found %d", e.Func.Text(), n, plural(n), len(e.Args))
		return false
	}
	return true
}

// operands checks two operands that must have one type, letting an
// untyped literal take the other side's type (or want's). accept says which
// types the operator takes: an operand of another type is returned for the
// caller to report, without also reporting the other operand against it.
func operands(c *checker, x ectx, e *ast.Call, want types.Type, accept func(types.Type) bool) types.Type {
	if !arity(c, e, 2) {
		c.args(x, e.Args)
		return types.TInvalid
	}
	a := c.expr(x, e.Args[0], nil)
	if a != types.TUntypedInt {
		if !types.IsInvalid(a) && !accept(a) {
			c.expr(x, e.Args[1], nil)
			return a
		}
		n := len(c.res.Diagnostics)
		c.expr(x, e.Args[1], a)
		if c.mismatchSince(n, e.Args[1]) {
			return types.TInvalid // reported on the operand; the result is unknown
		}
		return a
	}
	b := c.expr(x, e.Args[1], nil)
	if b != types.TUntypedInt {
		if !types.IsInvalid(b) && !accept(b) {
			return b
		}
		if types.IsInteger(b) {
			c.checkIntRange(e.Args[0], b)
			c.setType(e.Args[0], b)
		} else if !types.IsInvalid(b) {
			c.errorf(TypeMismatch, e.Args[0].ExprSpan(), "expected %s, found an integer", types.Describe(b))
		}
		return b
	}
	if types.IsInteger(want) && want != types.TUntypedInt {
		c.checkIntRange(e.Args[0], want)
		c.checkIntRange(e.Args[1], want)
		c.setType(e.Args[0], want)
		c.setType(e.Args[1], want)
		return want
	}
	return types.TUntypedInt
}

// mismatchSince reports whether a type mismatch on e itself was reported
// after the first n diagnostics.
func (c *checker) mismatchSince(n int, e ast.Expr) bool {
	sp := e.ExprSpan()
	for _, d := range c.res.Diagnostics[n:] {
		if d.Code == TypeMismatch && d.Span == sp {
			return true
		}
	}
	return false
}

func arith(c *checker, x ectx, e *ast.Call, want types.Type) types.Type {
	t := operands(c, x, e, want, types.IsInteger)
	if !types.IsInvalid(t) && !types.IsInteger(t) {
		c.errorf(TypeMismatch, e.Func.Span(), "(%s ...) works on integers, not %s", e.Func.Text(), types.Describe(t))
		return types.TInvalid
	}
	return t
}

func equality(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	t := operands(c, x, e, nil, types.Comparable)
	if !types.IsInvalid(t) && !types.Comparable(t) {
		c.errorf(TypeMismatch, e.Func.Span(), "values of %s cannot be compared with %s", types.Describe(t), e.Func.Text())
	}
	return types.TBool
}

func ordering(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	t := operands(c, x, e, nil, types.Ordered)
	if !types.IsInvalid(t) && !types.Ordered(t) {
		c.errorf(TypeMismatch, e.Func.Span(), "values of %s are not ordered; %s compares integers, Text, Timestamp or Duration", types.Describe(t), e.Func.Text())
	}
	return types.TBool
}

func logic(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	if len(e.Args) < 2 {
		c.errorf(Arity, e.Func.Span(), "(%s ...) takes two or more arguments", e.Func.Text())
	}
	for _, a := range e.Args {
		c.expr(x, a, types.TBool)
	}
	return types.TBool
}

func not(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	if arity(c, e, 1) {
		c.expr(x, e.Args[0], types.TBool)
	} else {
		c.args(x, e.Args)
	}
	return types.TBool
}

func some(c *checker, x ectx, e *ast.Call, want types.Type) types.Type {
	if !arity(c, e, 1) {
		c.args(x, e.Args)
		return types.TInvalid
	}
	var elem types.Type
	if o, ok := want.(*types.Option); ok {
		elem = o.Elem
	}
	return &types.Option{Elem: types.Default(c.expr(x, e.Args[0], elem))}
}

func resultCtor(c *checker, x ectx, e *ast.Call, want types.Type) types.Type {
	if !arity(c, e, 1) {
		c.args(x, e.Args)
		return types.TInvalid
	}
	r, _ := want.(*types.Result)
	if e.Func.Text() == "ok" {
		var w types.Type
		if r != nil {
			w = r.Ok
		}
		t := types.Default(c.expr(x, e.Args[0], w))
		if r != nil {
			return &types.Result{Ok: t, Err: r.Err}
		}
		return &types.Result{Ok: t, Err: types.THole}
	}
	var w types.Type
	if r != nil {
		w = r.Err
	}
	t := types.Default(c.expr(x, e.Args[0], w))
	if r != nil {
		return &types.Result{Ok: r.Ok, Err: t}
	}
	return &types.Result{Ok: types.THole, Err: t}
}

func listLit(c *checker, x ectx, e *ast.Call, want types.Type) types.Type {
	var elem types.Type
	if l, ok := want.(*types.List); ok {
		elem = l.Elem
	}
	for _, a := range e.Args {
		t := c.expr(x, a, elem)
		if elem == nil || elem == types.TUntypedInt {
			elem = t
		}
	}
	if elem == nil {
		elem = types.THole
	}
	return &types.List{Elem: types.Default(elem)}
}

func concat(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	if len(e.Args) < 2 {
		c.errorf(Arity, e.Func.Span(), "(concat ...) takes two or more texts")
	}
	for _, a := range e.Args {
		c.expr(x, a, types.TText)
	}
	return types.TText
}

func length(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	if !arity(c, e, 1) {
		c.args(x, e.Args)
		return types.TInt
	}
	t := c.expr(x, e.Args[0], nil)
	switch t.(type) {
	case *types.List, *types.Array, *types.Map:
		return types.TInt
	}
	if !types.IsInvalid(t) && !types.Identical(t, types.TText) {
		c.errorf(TypeMismatch, e.Args[0].ExprSpan(), "(len ...) takes Text or a collection, not %s", types.Describe(t))
	}
	return types.TInt
}

func textToText(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	if arity(c, e, 1) {
		c.expr(x, e.Args[0], types.TText)
	} else {
		c.args(x, e.Args)
	}
	return types.TText
}

func textPred(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	if arity(c, e, 2) {
		c.expr(x, e.Args[0], types.TText)
		c.expr(x, e.Args[1], types.TText)
	} else {
		c.args(x, e.Args)
	}
	return types.TBool
}

func contains(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	if !arity(c, e, 2) {
		c.args(x, e.Args)
		return types.TBool
	}
	t := c.expr(x, e.Args[0], nil)
	switch tt := t.(type) {
	case *types.List:
		c.expr(x, e.Args[1], tt.Elem)
	case *types.Map:
		c.expr(x, e.Args[1], tt.Key)
	default:
		if !types.IsInvalid(t) && !types.Identical(t, types.TText) {
			c.errorf(TypeMismatch, e.Args[0].ExprSpan(), "(contains ...) takes Text or a collection, not %s", types.Describe(t))
		}
		c.expr(x, e.Args[1], types.TText)
	}
	return types.TBool
}

func toText(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	if arity(c, e, 1) {
		t := types.Default(c.expr(x, e.Args[0], nil))
		if !types.IsInvalid(t) && !types.IsInteger(t) && !types.Identical(t, types.TBool) && !types.Identical(t, types.TText) {
			if _, ok := t.(*types.Enum); !ok {
				c.errorf(TypeMismatch, e.Args[0].ExprSpan(), "(to-text ...) converts integers, Bool and enum members, not %s", types.Describe(t))
			}
		}
	} else {
		c.args(x, e.Args)
	}
	return types.TText
}

func get(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
	if !arity(c, e, 2) {
		c.args(x, e.Args)
		return types.TInvalid
	}
	t := c.expr(x, e.Args[0], nil)
	switch tt := t.(type) {
	case *types.List:
		c.expr(x, e.Args[1], types.TInt)
		return &types.Option{Elem: tt.Elem}
	case *types.Array:
		c.expr(x, e.Args[1], types.TInt)
		return &types.Option{Elem: tt.Elem}
	case *types.Map:
		c.expr(x, e.Args[1], tt.Key)
		return &types.Option{Elem: tt.Value}
	}
	if !types.IsInvalid(t) {
		c.errorf(TypeMismatch, e.Args[0].ExprSpan(), "(get ...) takes a List, Array or Map, not %s", types.Describe(t))
	}
	c.expr(x, e.Args[1], nil)
	return types.TInvalid
}

func appendList(c *checker, x ectx, e *ast.Call, want types.Type) types.Type {
	if !arity(c, e, 2) {
		c.args(x, e.Args)
		return types.TInvalid
	}
	t := c.expr(x, e.Args[0], want)
	l, ok := t.(*types.List)
	if !ok {
		if !types.IsInvalid(t) {
			c.errorf(TypeMismatch, e.Args[0].ExprSpan(), "(append ...) takes a List, not %s", types.Describe(t))
		}
		c.expr(x, e.Args[1], nil)
		return types.TInvalid
	}
	et := c.expr(x, e.Args[1], l.Elem)
	if _, hole := l.Elem.(*types.Hole); hole {
		return &types.List{Elem: types.Default(et)}
	}
	return l
}

// shapePred builds the checker of a one-argument predicate on Options or
// Results (is-some, is-none, is-ok, is-err); what names the shape in the
// message ("an Option").
func shapePred(what string, is func(types.Type) bool) builtin {
	return func(c *checker, x ectx, e *ast.Call, _ types.Type) types.Type {
		if arity(c, e, 1) {
			t := c.expr(x, e.Args[0], nil)
			if !is(t) && !types.IsInvalid(t) {
				c.errorf(TypeMismatch, e.Args[0].ExprSpan(), "(%s ...) takes %s, not %s", e.Func.Text(), what, types.Describe(t))
			}
		} else {
			c.args(x, e.Args)
		}
		return types.TBool
	}
}

var (
	optionPred = shapePred("an Option", func(t types.Type) bool { _, ok := t.(*types.Option); return ok })
	resultPred = shapePred("a Result", func(t types.Type) bool { _, ok := t.(*types.Result); return ok })
)

func unwrapOr(c *checker, x ectx, e *ast.Call, want types.Type) types.Type {
	if !arity(c, e, 2) {
		c.args(x, e.Args)
		return types.TInvalid
	}
	var w types.Type
	if want != nil {
		w = &types.Option{Elem: want}
	}
	t := c.expr(x, e.Args[0], w)
	o, ok := t.(*types.Option)
	if !ok {
		if !types.IsInvalid(t) {
			c.errorf(TypeMismatch, e.Args[0].ExprSpan(), "(unwrap-or ...) takes an Option, not %s", types.Describe(t))
		}
		return c.expr(x, e.Args[1], want)
	}
	if _, hole := o.Elem.(*types.Hole); hole {
		return c.expr(x, e.Args[1], want)
	}
	return c.expr(x, e.Args[1], o.Elem)
}

func absInt(c *checker, x ectx, e *ast.Call, want types.Type) types.Type {
	if !arity(c, e, 1) {
		c.args(x, e.Args)
		return types.TInvalid
	}
	t := c.expr(x, e.Args[0], want)
	if t == types.TUntypedInt {
		return types.Default(t)
	}
	if !types.IsInvalid(t) && !types.IsInteger(t) {
		c.errorf(TypeMismatch, e.Args[0].ExprSpan(), "(abs ...) takes an integer, not %s", types.Describe(t))
	}
	return t
}

func minMax(c *checker, x ectx, e *ast.Call, want types.Type) types.Type {
	t := operands(c, x, e, want, types.Ordered)
	if !types.IsInvalid(t) && !types.Ordered(t) {
		c.errorf(TypeMismatch, e.Func.Span(), "(%s ...) compares ordered values, not %s", e.Func.Text(), types.Describe(t))
	}
	return t
}

var _ = catalog.LookupEffect
