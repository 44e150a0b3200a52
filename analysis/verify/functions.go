package verify

import (
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax/ast"
)

// sig is a function's parameter and result types, from the interpreter's
// view of the checked module.
type sig struct {
	names  []string
	params []types.Type
	result types.Type
}

// fnSig returns fn's signature with SMT sorts.
func (e *encoder) fnSig(fn *ast.Function) (sig, []string, string, error) {
	s, ok := e.sigs[fn]
	if !ok {
		return sig{}, nil, "", unsup("function %s has no checked signature", e.fname(fn))
	}
	sorts := make([]string, len(s.params))
	for i, t := range s.params {
		so, err := e.sort(t)
		if err != nil {
			return sig{}, nil, "", unsup("parameter %s of %s: %s", s.names[i], e.fname(fn), err)
		}
		sorts[i] = so
	}
	rs, err := e.sort(s.result)
	if err != nil {
		return sig{}, nil, "", unsup("result of %s: %s", e.fname(fn), err)
	}
	return s, sorts, rs, nil
}

// paramScope binds fn's parameters to the SMT names prefix+name.
func paramScope(s sig, prefix string) scope {
	sc := scope{}
	for i, n := range s.names {
		sc[n] = svar{quote(prefix + n), s.params[i]}
	}
	return sc
}

// apply writes the application of SMT function f to args.
func apply(f string, args []string) string {
	if len(args) == 0 {
		return f
	}
	return "(" + f + " " + strings.Join(args, " ") + ")"
}

// clauses encodes a list of Bool clauses (requires or ensures) as one
// term: all of them evaluate without failing and hold.
func (e *encoder) clauses(xs []ast.Expr, sc scope) (term, error) {
	var oks, asms []string
	for _, x := range xs {
		t, err := e.expr(x, sc)
		if err != nil {
			return term{}, err
		}
		oks = append(oks, t.ok, t.v)
		asms = append(asms, t.asm)
	}
	return term{v: and(oks...), ok: "true", asm: and(asms...)}, nil
}

// need emits the SMT definitions of part ("pre", "body" or "post") of fn,
// after everything they depend on, once.
func (e *encoder) need(fn *ast.Function, part string) error {
	key := part + " " + e.fname(fn)
	if e.emitted[key] {
		return nil
	}
	if part == "body" && e.busy[key] && e.exact && e.defining == fn {
		return nil // a self call inside its own define-funs-rec
	}
	if e.busy[key] {
		return unsup("the %s of %s depends on itself through recursive calls; only recursion in function bodies is encoded", partName(part), e.fname(fn))
	}
	e.busy[key] = true
	defer delete(e.busy, key)
	// fn's expressions are typed, and its calls resolved, in its module.
	defer e.enter(fn)()
	s, sorts, rs, err := e.fnSig(fn)
	if err != nil {
		return err
	}
	var params []string
	for i, n := range s.names {
		params = append(params, "("+quote("arg!"+n)+" "+sorts[i]+")")
	}
	sc := paramScope(s, "arg!")
	name := e.fname(fn)
	var defs []string
	def := func(what, sort, body string, extra ...string) {
		ps := append(append([]string(nil), params...), extra...)
		defs = append(defs, fmt.Sprintf("(define-fun %s (%s) %s %s)", quote(name+"."+what), strings.Join(ps, " "), sort, body))
	}
	switch part {
	case "pre":
		t, err := e.clauses(fn.Requires, sc)
		if err != nil {
			return unsup("requires of %s: %s", name, err)
		}
		def("pre", "Bool", t.v)
		def("preasm", "Bool", t.asm)
	case "post":
		rsc := sc.with("result", svar{quote("arg!result"), s.result})
		t, err := e.clauses(fn.Ensures, rsc)
		if err != nil {
			return unsup("ensures of %s: %s", name, err)
		}
		res := "(" + quote("arg!result") + " " + rs + ")"
		def("post", "Bool", t.v, res)
		def("postasm", "Bool", t.asm, res)
	case "body":
		if fn.Body == nil {
			return unsup("function %s has no body", name)
		}
		if e.exact && e.recursive[fn] {
			if e.defining != nil {
				return unsup("%s and %s call each other; only direct recursion is unfolded", e.fname(e.defining), name)
			}
			e.defining = fn
			t, err := e.expr(fn.Body, sc)
			e.defining = nil
			if err != nil {
				return unsup("body of %s: %s", name, err)
			}
			ps := strings.Join(params, " ")
			defs = append(defs, fmt.Sprintf("(define-funs-rec ((%s (%s) %s) (%s (%s) Bool) (%s (%s) Bool)) (%s %s %s))",
				quote(name+".val"), ps, rs, quote(name+".ok"), ps, quote(name+".asm"), ps, t.v, and(t.ok), and(t.asm)))
			break
		}
		t, err := e.expr(fn.Body, sc)
		if err != nil {
			return unsup("body of %s: %s", name, err)
		}
		def("val", rs, t.v)
		def("ok", "Bool", and(t.ok)) // and: "true" for a term that sets none
		def("asm", "Bool", and(t.asm))
	case "rec":
		if err := e.need(fn, "pre"); err != nil {
			return err
		}
		if err := e.need(fn, "post"); err != nil {
			return err
		}
		defs = append(defs, fmt.Sprintf("(declare-fun %s (%s) %s)", quote(name+".rec"), strings.Join(sorts, " "), rs))
		for _, ex := range e.lemmas[fn] {
			if l, ok := e.lemma(fn, ex); ok {
				defs = append(defs, l)
			}
		}
	}
	for _, d := range defs {
		e.out.WriteString(d)
		e.out.WriteByte('\n')
	}
	e.emitted[key] = true
	return nil
}

// lemma encodes an example of a recursive function as a fact about its
// uninterpreted value, (= (f.rec ARGS) EXPECTED), when its arguments and
// expected value are encodable without calls.
func (e *encoder) lemma(fn *ast.Function, ex *ast.Example) (string, bool) {
	var vs []string
	for _, a := range ex.Args {
		if !e.total(a) {
			return "", false
		}
		t, err := e.expr(a, scope{})
		if err != nil {
			return "", false
		}
		vs = append(vs, t.v)
	}
	if !e.total(ex.Expected) {
		return "", false
	}
	exp, err := e.expr(ex.Expected, scope{})
	if err != nil {
		return "", false
	}
	return "(assert (= " + apply(quote(e.fname(fn)+".rec"), vs) + " " + exp.v + "))", true
}

func partName(part string) string {
	switch part {
	case "pre":
		return "requires"
	case "post":
		return "ensures"
	}
	return part
}

// callFunction encodes a call of a local function. A call of a
// non-recursive function uses its definition: the call fails when the
// callee's requires, body or ensures fail. A call of a recursive function
// is modular: its value is that of an uninterpreted function, the call
// fails when the callee's requires do not hold, and the callee's ensures
// are assumed of the value (the induction hypothesis, sound for every
// evaluation that finishes within the interpreter's budgets).
func (e *encoder) callFunction(x *ast.Call, fn *ast.Function, sc scope) (term, error) {
	args, err := e.args(x.Args, sc)
	if err != nil {
		return term{}, err
	}
	ok, asm := oksOf(args)
	var vs []string
	for _, a := range args {
		vs = append(vs, a.v)
	}
	name := e.fname(fn)
	if e.recursive[fn] && !e.exact && e.imported(fn) {
		// A modular call assumes the callee's ensures, which only the
		// callee's own module proves.
		return term{}, unsup("%s is recursive and declared in an imported module: its calls are encoded only in ground examples", name)
	}
	if err := e.need(fn, "pre"); err != nil {
		return term{}, err
	}
	if err := e.need(fn, "post"); err != nil {
		return term{}, err
	}
	pre := apply(quote(name+".pre"), vs)
	preasm := apply(quote(name+".preasm"), vs)
	if e.recursive[fn] && !e.exact {
		if err := e.need(fn, "rec"); err != nil {
			return term{}, err
		}
		v := apply(quote(name+".rec"), vs)
		withRes := append(append([]string(nil), vs...), v)
		hyp := implies(pre, and(apply(quote(name+".post"), withRes), apply(quote(name+".postasm"), withRes)))
		return term{v: v, ok: and(ok, pre), asm: and(asm, preasm, hyp, e.inRange(v, e.sigs[fn].result))}, nil
	}
	if err := e.need(fn, "body"); err != nil {
		return term{}, err
	}
	v := apply(quote(name+".val"), vs)
	withRes := append(append([]string(nil), vs...), v)
	if e.exact && e.recursive[fn] {
		// Exact calls introduce no uninterpreted values, so they add no
		// assumptions; leaving the callee's out keeps the recursive
		// definition well-founded.
		return term{v: v, ok: and(ok, pre, apply(quote(name+".ok"), vs), apply(quote(name+".post"), withRes)), asm: and(asm, preasm)}, nil
	}
	return term{
		v:   v,
		ok:  and(ok, pre, apply(quote(name+".ok"), vs), apply(quote(name+".post"), withRes)),
		asm: and(asm, preasm, apply(quote(name+".asm"), vs), apply(quote(name+".postasm"), withRes)),
	}, nil
}
