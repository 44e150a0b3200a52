// Package verify generates the proof obligations of a checked Capsulang
// module and discharges them with the Z3 SMT solver.
//
// Obligations come from function contracts (each ensures clause, and that
// the body cannot fail on any input its requires admit), function examples
// (ground facts, which are also lemmas about recursive functions), machine
// guards and assignments (they cannot fail), and zk-proof claims (some
// inputs satisfy the claim; evaluating it cannot fail). Each has a stable
// id, a source range and a status: discharged (Z3 proved it), failed (Z3
// found a counterexample, which the interpreter then runs to confirm), or
// open (outside the encoded fragment, or the solver ran out of its
// budget; the reason says which).
//
// Every attempt at a query is bounded by a count of Z3's own steps
// (Solver.Rlimit), not by time, so verdicts do not depend on the
// machine's load; Solver.Timeout is a wall-clock backstop. A Cache keeps
// verdicts on disk by the digest of their queries.
//
// The encoding is exact for the interpreter's semantics over Bool, the
// fixed-width integers (bit-vectors that wrap at their width, signed
// division truncating toward zero, a zero divisor failing), enums,
// records, tagged variants, options, results, Text (Z3 strings) and
// lists (Z3 sequences), for calls of the module's functions and of its
// imports' (imports.go), and for effect intents, which fail only through
// their payload. upper, lower and trim are uninterpreted functions with
// facts computed by the interpreter (textops.go): a counterexample that
// relies on them counts only when the interpreter confirms it. Maps and
// the opaque types are not encoded: obligations that need them stay open.
// docs/verification.md describes the obligations and the report.
package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Status is the state of an obligation.
type Status string

// Obligation statuses.
const (
	Open       Status = "open"
	Discharged Status = "discharged"
	Failed     Status = "failed"
)

// Kind is what an obligation claims.
type Kind string

// Obligation kinds.
const (
	// KindEnsures: an ensures clause holds whenever the requires hold and
	// the body returns.
	KindEnsures Kind = "ensures"
	// KindNoFailure: a function body cannot fail (zero divisor, a callee's
	// requires or ensures, a match without a matching arm) on inputs its
	// requires admit.
	KindNoFailure Kind = "no-failure"
	// KindExample: an example's call returns the expected value.
	KindExample Kind = "example"
	// KindGuard: a transition's guard cannot fail, whatever the context
	// and payload.
	KindGuard Kind = "guard"
	// KindAssign: a transition's assignments cannot fail when its guard
	// holds.
	KindAssign Kind = "assign"
	// KindZKSatisfiable: some inputs satisfy a zk-proof claim, so that a
	// proof can exist at all.
	KindZKSatisfiable Kind = "zk-satisfiable"
	// KindZKNoFailure: evaluating a zk-proof claim cannot fail.
	KindZKNoFailure Kind = "zk-no-failure"
)

// Binding is one value of a counterexample, as Capsulang source text.
type Binding struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Confirmation is the interpreter's verdict on a counterexample.
type Confirmation struct {
	// Confirmed is true when the interpreter, run on the counterexample,
	// fails the same way.
	Confirmed bool   `json:"confirmed"`
	Detail    string `json:"detail"`
}

// Obligation is one proof obligation.
type Obligation struct {
	// ID is stable across edits that keep the declaration: MODULE/DECL/
	// KIND[/INDEX], with STATE.EVENT for a transition.
	ID       string `json:"id"`
	Kind     Kind   `json:"kind"`
	DeclKind string `json:"decl_kind"`
	Decl     string `json:"decl"`
	// Claim is the source text of what is claimed (a clause, a guard),
	// with runs of white space collapsed.
	Claim string       `json:"claim"`
	Span  syntax.Span  `json:"-"`
	Range syntax.Range `json:"range"`
	// Status is open, discharged or failed; Reason says why an obligation
	// is open or how it failed.
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Counterexample holds the inputs (and result) that break a failed
	// obligation; Confirmation the interpreter's run on them.
	Counterexample []Binding     `json:"counterexample,omitempty"`
	Confirmation   *Confirmation `json:"confirmation,omitempty"`
	Elapsed        time.Duration `json:"-"`
	goal           *goal         `json:"-"`
}

// Message is a one-line account of a failed obligation for editors:
// "x = -9223372036854775808 breaks ensures (>= result 0)".
func (o *Obligation) Message() string {
	var parts []string
	for _, b := range o.Counterexample {
		if b.Name != "result" {
			parts = append(parts, b.Name+" = "+b.Value)
		}
	}
	inputs := strings.Join(parts, ", ")
	if inputs == "" {
		inputs = "some inputs"
	}
	switch o.Kind {
	case KindEnsures:
		return inputs + " breaks ensures " + o.Claim
	case KindNoFailure:
		return inputs + " makes the body of " + o.Decl + " fail"
	case KindGuard:
		return inputs + " makes the guard " + o.Claim + " fail"
	case KindAssign:
		return inputs + " makes an assignment fail although the guard holds"
	case KindZKNoFailure:
		return inputs + " makes the claim " + o.Claim + " fail"
	case KindExample:
		return o.Claim + " does not return the expected value"
	case KindZKSatisfiable:
		return "no inputs satisfy the claim " + o.Claim + " of zk-proof " + o.Decl
	}
	return o.Reason
}

// Report is the verification of one module.
type Report struct {
	Module      string
	Solver      string
	Obligations []*Obligation
}

// Counts returns how many obligations are discharged, open and failed.
func (r *Report) Counts() (discharged, open, failed int) {
	for _, o := range r.Obligations {
		switch o.Status {
		case Discharged:
			discharged++
		case Open:
			open++
		case Failed:
			failed++
		}
	}
	return
}

// Closed reports whether every obligation is discharged.
func (r *Report) Closed() bool {
	_, o, f := r.Counts()
	return o == 0 && f == 0
}

// Options configure Verify.
type Options struct {
	// Solver runs the queries; nil means FindSolver.
	Solver *Solver
	// Jobs bounds the solver processes run at once; 0 means GOMAXPROCS.
	Jobs int
}

// ErrModuleHasErrors is returned for a module with check errors.
var ErrModuleHasErrors = errors.New("the module has errors; only checked modules are verified (run caps check)")

// freeVar is a universally quantified variable of a query, read back from
// a counterexample.
type freeVar struct {
	name string // as shown to people
	smt  string // the SMT constant
	t    types.Type
}

// goal is how an obligation is put to the solver.
type goal struct {
	// build encodes the query into e and returns an assertion whose
	// satisfiability refutes the obligation (proves it, when exists is
	// set), and the variables a model assigns.
	build  func(e *encoder) (string, []freeVar, error)
	exists bool
	// confirm runs the interpreter on a counterexample.
	confirm func(cex []Binding) *Confirmation
}

// shared is what every query's encoder starts from.
type shared struct {
	res       *check.Result
	in        *interp.Interp
	funcs     map[string]*ast.Function
	mods      map[*ast.Function]*modctx
	root      *modctx
	recursive map[*ast.Function]bool
	sigs      map[*ast.Function]sig
	lemmas    map[*ast.Function][]*ast.Example
	textFacts *textFacts
	src       []byte
	module    string
}

func (s *shared) encoder() *encoder {
	return &encoder{res: s.res, funcs: s.funcs, mods: s.mods, cur: s.root, recursive: s.recursive, sigs: s.sigs, lemmas: s.lemmas, text: s.textFacts, emitted: map[string]bool{}, busy: map[string]bool{}, sortOwner: map[string]types.Type{}}
}

// text returns the source text of sp with white space collapsed.
func (s *shared) text(sp syntax.Span) string {
	if sp.Start < 0 || sp.End > len(s.src) || sp.Start > sp.End {
		return ""
	}
	return strings.Join(strings.Fields(string(s.src[sp.Start:sp.End])), " ")
}

// Generate lists the obligations of a checked module, all open (not yet
// put to the solver). It returns ErrModuleHasErrors for a module with
// errors.
func Generate(res *check.Result) ([]*Obligation, error) {
	s, err := prepare(res)
	if err != nil {
		return nil, err
	}
	return s.obligations(), nil
}

func prepare(res *check.Result) (*shared, error) {
	if res == nil || res.File == nil || res.File.Module == nil {
		return nil, errors.New("the file holds no module")
	}
	if res.HasErrors() {
		return nil, ErrModuleHasErrors
	}
	// the imported functions' bodies are encoded: a partial import (the
	// language server's import cache) is read from a full check
	res = res.CompleteImports()
	e := newEncoder(res)
	s := &shared{res: res, in: interp.New(res), funcs: e.funcs, mods: e.mods, root: e.cur, recursive: e.recursive, sigs: map[*ast.Function]sig{}, lemmas: map[*ast.Function][]*ast.Example{}, module: res.File.Module.Name.Name}
	if res.File.Source != nil && res.File.Source.CST != nil {
		s.src = res.File.Source.CST.Src
	}
	for _, fi := range s.in.Functions() {
		g := sig{result: fi.Result}
		for _, p := range fi.Params {
			g.names = append(g.names, p.Name)
			g.params = append(g.params, p.Type)
		}
		s.sigs[fi.Decl] = g
	}
	s.importedSigs()
	s.textFacts = collectTextFacts(s.mods, res)
	s.exampleLemmas()
	return s, nil
}

// exampleLemmas collects the examples of recursive functions that the
// interpreter confirms; each becomes a fact about the function's
// uninterpreted value wherever the function is called (encoder.lemma).
func (s *shared) exampleLemmas() {
	for fn := range s.recursive {
		for _, ex := range fn.Examples {
			if ok, _ := s.runExample(fn, ex); ok {
				s.lemmas[fn] = append(s.lemmas[fn], ex)
			}
		}
	}
}

// runExample evaluates an example with the interpreter.
func (s *shared) runExample(fn *ast.Function, ex *ast.Example) (bool, string) {
	var args []value.Value
	for _, a := range ex.Args {
		v, err := s.in.EvalExpr(a, interp.Env{})
		if err != nil {
			return false, "evaluating an argument fails: " + err.Error()
		}
		args = append(args, v)
	}
	want, err := s.in.EvalExpr(ex.Expected, interp.Env{})
	if err != nil {
		return false, "evaluating the expected value fails: " + err.Error()
	}
	got, _, err := s.in.CallDecl(fn, args)
	if err != nil {
		return false, "the interpreter reports: " + err.Error()
	}
	if !value.Equal(got, want) {
		return false, "the interpreter returns " + got.String() + ", not " + want.String()
	}
	return true, "the interpreter returns " + got.String()
}

func (s *shared) add(out *[]*Obligation, id string, kind Kind, declKind, decl string, sp syntax.Span, g *goal) {
	o := &Obligation{ID: s.module + "/" + id, Kind: kind, DeclKind: declKind, Decl: decl, Claim: s.text(sp), Span: sp, Status: Open, Reason: "not yet put to the solver", goal: g}
	if s.res.File.Source != nil && s.res.File.Source.CST != nil {
		o.Range = s.res.File.Source.CST.Lines.Range(sp, syntax.UTF16)
	}
	*out = append(*out, o)
}

func (s *shared) obligations() []*Obligation {
	var out []*Obligation
	for _, d := range s.res.File.Module.Decls {
		switch d := d.(type) {
		case *ast.Function:
			if s.funcs[d.Name.Name] != d {
				continue
			}
			s.functionObligations(&out, d)
		case *ast.Machine:
			s.machineObligations(&out, d)
		case *ast.ClauseDecl:
			if zk := s.res.ZKProofs[d]; zk != nil {
				s.zkObligations(&out, zk)
			}
		}
	}
	return out
}

// ---- functions

func (s *shared) functionObligations(out *[]*Obligation, fn *ast.Function) {
	name := fn.Name.Name
	g, ok := s.sigs[fn]
	if !ok {
		return
	}
	vars := func() []freeVar {
		var vs []freeVar
		for i, n := range g.names {
			vs = append(vs, freeVar{n, quote(n), g.params[i]})
		}
		return vs
	}
	// declare declares the parameters and encodes requires and body.
	declare := func(e *encoder) (pre, body term, vs []freeVar, err error) {
		_, sorts, _, err := e.fnSig(fn)
		if err != nil {
			return term{}, term{}, nil, err
		}
		vs = vars()
		var decls strings.Builder
		for i, v := range vs {
			fmt.Fprintf(&decls, "(declare-const %s %s)\n", v.smt, sorts[i])
		}
		sc := paramScope(g, "")
		if pre, err = e.clauses(fn.Requires, sc); err != nil {
			return term{}, term{}, nil, unsup("requires: %s", err)
		}
		if fn.Body == nil {
			return term{}, term{}, nil, unsup("the function has no body")
		}
		if body, err = e.expr(fn.Body, sc); err != nil {
			return term{}, term{}, nil, unsup("body: %s", err)
		}
		e.out.WriteString(decls.String())
		return pre, body, vs, nil
	}
	for i, ens := range fn.Ensures {
		i, ens := i, ens
		s.add(out, fmt.Sprintf("%s/ensures/%d", name, i), KindEnsures, "function", name, ens.ExprSpan(), &goal{
			build: func(e *encoder) (string, []freeVar, error) {
				pre, body, vs, err := declare(e)
				if err != nil {
					return "", nil, err
				}
				_, _, rs, err := e.fnSig(fn)
				if err != nil {
					return "", nil, err
				}
				fmt.Fprintf(&e.out, "(declare-const |result| %s)\n", rs)
				sc := paramScope(g, "").with("result", svar{"|result|", g.result})
				t, err := e.expr(ens, sc)
				if err != nil {
					return "", nil, unsup("ensures: %s", err)
				}
				vs = append(vs, freeVar{"result", "|result|", g.result})
				return and(pre.asm, pre.v, body.asm, body.ok, "(= |result| "+body.v+")", t.asm, "(not "+and(t.ok, t.v)+")"), vs, nil
			},
			confirm: func(cex []Binding) *Confirmation { return s.confirmEnsures(fn, ens, cex) },
		})
	}
	s.add(out, name+"/no-failure", KindNoFailure, "function", name, bodySpan(fn), &goal{
		build: func(e *encoder) (string, []freeVar, error) {
			if e.total(fn.Body) {
				return "false", nil, nil // nothing in the body can fail
			}
			pre, body, vs, err := declare(e)
			if err != nil {
				return "", nil, err
			}
			if body.ok == "true" {
				return "false", nil, nil // nothing in the body can fail
			}
			return and(pre.asm, pre.v, body.asm, "(not "+body.ok+")"), vs, nil
		},
		confirm: func(cex []Binding) *Confirmation { return s.confirmCall(fn, cex) },
	})
	for i, ex := range fn.Examples {
		i, ex := i, ex
		s.add(out, fmt.Sprintf("%s/example/%d", name, i), KindExample, "function", name, ex.Form.Span(), &goal{
			build: func(e *encoder) (string, []freeVar, error) {
				// A ground call: recursive functions are unfolded exactly.
				e.exact = true
				args, err := e.args(ex.Args, scope{})
				if err != nil {
					return "", nil, err
				}
				exp, err := e.expr(ex.Expected, scope{})
				if err != nil {
					return "", nil, err
				}
				if err := e.need(fn, "pre"); err != nil {
					return "", nil, err
				}
				if err := e.need(fn, "post"); err != nil {
					return "", nil, err
				}
				if err := e.need(fn, "body"); err != nil {
					return "", nil, err
				}
				var vs []string
				for _, a := range args {
					vs = append(vs, a.v)
				}
				v := apply(quote(name+".val"), vs)
				withRes := append(append([]string(nil), vs...), v)
				aok, aasm := oksOf(args)
				holds := and(aok, exp.ok, apply(quote(name+".pre"), vs), apply(quote(name+".ok"), vs), apply(quote(name+".post"), withRes), "(= "+v+" "+exp.v+")")
				asm := and(aasm, exp.asm, apply(quote(name+".preasm"), vs), apply(quote(name+".asm"), vs), apply(quote(name+".postasm"), withRes))
				return and(asm, "(not "+holds+")"), nil, nil
			},
			confirm: func([]Binding) *Confirmation {
				ok, detail := s.runExample(fn, ex)
				return &Confirmation{Confirmed: !ok, Detail: detail}
			},
		})
	}
}

func bodySpan(fn *ast.Function) syntax.Span {
	if fn.Body != nil {
		return fn.Body.ExprSpan()
	}
	return fn.Name.Span
}

// parseArgs reads counterexample values as fn's arguments.
func (s *shared) parseArgs(names []string, ts []types.Type, cex []Binding) ([]value.Value, map[string]value.Value, error) {
	byName := map[string]string{}
	for _, b := range cex {
		byName[b.Name] = b.Value
	}
	var args []value.Value
	vars := map[string]value.Value{}
	for i, n := range names {
		text, ok := byName[n]
		if !ok {
			return nil, nil, fmt.Errorf("the counterexample has no value for %s", n)
		}
		v, err := value.Parse(text, ts[i])
		if err != nil {
			return nil, nil, fmt.Errorf("%s = %s: %v", n, text, err)
		}
		args = append(args, v)
		vars[n] = v
	}
	return args, vars, nil
}

// confirmEnsures runs the function on the counterexample: the requires
// hold, the body returns, and the ensures clause is false (or fails).
func (s *shared) confirmEnsures(fn *ast.Function, ens ast.Expr, cex []Binding) *Confirmation {
	g := s.sigs[fn]
	args, vars, err := s.parseArgs(g.names, g.params, cex)
	if err != nil {
		return &Confirmation{Detail: err.Error()}
	}
	for _, r := range fn.Requires {
		v, err := s.in.EvalExpr(r, interp.Env{Vars: vars})
		if err != nil || !v.AsBool() {
			return &Confirmation{Detail: "the requires clause " + s.text(r.ExprSpan()) + " does not hold for these inputs"}
		}
	}
	res, err := s.in.EvalExpr(fn.Body, interp.Env{Vars: vars})
	if err != nil {
		return &Confirmation{Detail: "the body fails instead: " + err.Error()}
	}
	withRes := map[string]value.Value{"result": res}
	for k, v := range vars {
		withRes[k] = v
	}
	v, err := s.in.EvalExpr(ens, interp.Env{Vars: withRes})
	if err == nil && v.AsBool() {
		return &Confirmation{Detail: "the interpreter returns " + res.String() + " and the ensures clause holds: the solver and the interpreter disagree"}
	}
	_, _, callErr := s.in.CallDecl(fn, args)
	detail := "the interpreter returns " + res.String() + " and the ensures clause is false"
	if callErr != nil {
		detail = "the interpreter reports: " + callErr.Error()
	}
	return &Confirmation{Confirmed: true, Detail: detail}
}

// confirmCall runs the function on the counterexample and expects it to
// fail past its own requires.
func (s *shared) confirmCall(fn *ast.Function, cex []Binding) *Confirmation {
	g := s.sigs[fn]
	args, _, err := s.parseArgs(g.names, g.params, cex)
	if err != nil {
		return &Confirmation{Detail: err.Error()}
	}
	v, _, err := s.in.CallDecl(fn, args)
	if err == nil {
		return &Confirmation{Detail: "the interpreter returns " + v.String() + ": the solver and the interpreter disagree"}
	}
	var ie *interp.Error
	if errors.As(err, &ie) && ie.Kind == interp.RequiresFailed && ie.Function == fn.Name.Name && len(ie.Stack) <= 1 {
		return &Confirmation{Detail: "the function's own requires reject these inputs: " + err.Error()}
	}
	return &Confirmation{Confirmed: true, Detail: "the interpreter reports: " + err.Error()}
}

// ---- machines

func (s *shared) machineObligations(out *[]*Obligation, m *ast.Machine) {
	var msym *check.Symbol
	for _, sym := range s.res.Symbols {
		if sym.Decl == m {
			msym = sym
			break
		}
	}
	if msym == nil {
		return
	}
	ctx := map[string]types.Type{}
	var ctxNames []string
	events := map[string]*check.Symbol{}
	evFields := map[*check.Symbol][]*check.Symbol{}
	for _, sym := range s.res.Symbols {
		switch {
		case sym.Kind == check.SymContextField && sym.Parent == msym:
			if _, dup := ctx[sym.Name]; !dup {
				ctx[sym.Name] = sym.Type
				ctxNames = append(ctxNames, sym.Name)
			}
		case sym.Kind == check.SymEvent && sym.Parent == msym:
			events[sym.Name] = sym
		case sym.Kind == check.SymEventField && sym.Parent != nil && sym.Parent.Parent == msym:
			evFields[sym.Parent] = append(evFields[sym.Parent], sym)
		}
	}
	name := m.Name.Name
	for _, st := range m.States {
		for _, tr := range st.Transitions {
			tr := tr
			ev := events[tr.Event.Name]
			fields := evFields[ev]
			where := st.Name.Name + "." + tr.Event.Name
			// env declares the context fields and payload fields the
			// encoding can represent; the others stay out of scope.
			env := func(e *encoder) (scope, []freeVar) {
				sc := scope{}
				var vs []freeVar
				for _, n := range ctxNames {
					so, err := e.sort(ctx[n])
					if err != nil {
						continue
					}
					smt := quote("ctx." + n)
					fmt.Fprintf(&e.out, "(declare-const %s %s)\n", smt, so)
					sc[n] = svar{smt, ctx[n]}
					vs = append(vs, freeVar{n, smt, ctx[n]})
				}
				for _, f := range fields {
					so, err := e.sort(f.Type)
					if err != nil {
						continue
					}
					smt := quote("event." + f.Name)
					fmt.Fprintf(&e.out, "(declare-const %s %s)\n", smt, so)
					sc["event."+f.Name] = svar{smt, f.Type}
					vs = append(vs, freeVar{"event." + f.Name, smt, f.Type})
				}
				return sc, vs
			}
			confirm := func(x ast.Expr) func([]Binding) *Confirmation {
				return func(cex []Binding) *Confirmation {
					return s.confirmMachineExpr(x, tr.Guard, ctx, fields, cex)
				}
			}
			if tr.Guard != nil {
				s.add(out, name+"/"+where+"/guard", KindGuard, "machine", name, tr.Guard.ExprSpan(), &goal{
					build: func(e *encoder) (string, []freeVar, error) {
						if e.total(tr.Guard) {
							return "false", nil, nil
						}
						sc, vs := env(e)
						t, err := e.expr(tr.Guard, sc)
						if err != nil {
							return "", nil, err
						}
						if t.ok == "true" {
							return "false", nil, nil
						}
						return and(t.asm, "(not "+t.ok+")"), vs, nil
					},
					confirm: confirm(nil),
				})
			}
			if len(tr.Assigns) > 0 {
				sp := tr.Assigns[0].Form.Span()
				sp.End = tr.Assigns[len(tr.Assigns)-1].Form.Span().End
				s.add(out, name+"/"+where+"/assign", KindAssign, "machine", name, sp, &goal{
					build: func(e *encoder) (string, []freeVar, error) {
						allTotal := true
						for _, a := range tr.Assigns {
							allTotal = allTotal && e.total(a.Value)
						}
						if allTotal {
							return "false", nil, nil
						}
						sc, vs := env(e)
						guard := term{v: "true", ok: "true", asm: "true"}
						if tr.Guard != nil {
							t, err := e.expr(tr.Guard, sc)
							if err != nil {
								return "", nil, unsup("guard: %s", err)
							}
							guard = t
						}
						var oks, asms []string
						for _, a := range tr.Assigns {
							t, err := e.expr(a.Value, sc)
							if err != nil {
								return "", nil, unsup("assignment of %s: %s", a.Field.Name, err)
							}
							oks, asms = append(oks, t.ok), append(asms, t.asm)
						}
						ok := and(oks...)
						if ok == "true" {
							return "false", nil, nil
						}
						return and(guard.asm, guard.ok, guard.v, and(asms...), "(not "+ok+")"), vs, nil
					},
					confirm: func(cex []Binding) *Confirmation {
						for _, a := range tr.Assigns {
							if c := s.confirmMachineExpr(a.Value, tr.Guard, ctx, fields, cex); c.Confirmed {
								return c
							}
						}
						return &Confirmation{Detail: "every assignment evaluates on these values: the solver and the interpreter disagree"}
					},
				})
			}
		}
	}
}

// confirmMachineExpr evaluates x (the guard when x is nil) on a
// counterexample context and payload and expects it to fail; for an
// assignment the guard must hold first.
func (s *shared) confirmMachineExpr(x, guard ast.Expr, ctx map[string]types.Type, fields []*check.Symbol, cex []Binding) *Confirmation {
	env := interp.Env{Vars: map[string]value.Value{}, Event: map[string]value.Value{}}
	for _, b := range cex {
		if f, ok := strings.CutPrefix(b.Name, "event."); ok {
			for _, fs := range fields {
				if fs.Name == f {
					v, err := value.Parse(b.Value, fs.Type)
					if err != nil {
						return &Confirmation{Detail: b.Name + " = " + b.Value + ": " + err.Error()}
					}
					env.Event[f] = v
				}
			}
			continue
		}
		v, err := value.Parse(b.Value, ctx[b.Name])
		if err != nil {
			return &Confirmation{Detail: b.Name + " = " + b.Value + ": " + err.Error()}
		}
		env.Vars[b.Name] = v
	}
	if x == nil {
		_, err := s.in.EvalExpr(guard, env)
		if err == nil {
			return &Confirmation{Detail: "the guard evaluates: the solver and the interpreter disagree"}
		}
		return &Confirmation{Confirmed: true, Detail: "the interpreter reports: " + err.Error()}
	}
	if guard != nil {
		v, err := s.in.EvalExpr(guard, env)
		if err != nil || !v.AsBool() {
			return &Confirmation{Detail: "the guard does not hold on these values"}
		}
	}
	if _, err := s.in.EvalExpr(x, env); err != nil {
		return &Confirmation{Confirmed: true, Detail: "the interpreter reports: " + err.Error()}
	}
	return &Confirmation{Detail: "the assignment evaluates"}
}

// ---- zk-proof claims

func (s *shared) zkObligations(out *[]*Obligation, zk *check.ZKProof) {
	if zk.Proves == nil {
		return
	}
	name := zk.Decl.Name.Name
	inputs := append(append([]*check.Symbol(nil), zk.Public...), zk.Private...)
	env := func(e *encoder) (scope, []freeVar, error) {
		sc := scope{}
		var vs []freeVar
		for _, in := range inputs {
			so, err := e.sort(in.Type)
			if err != nil {
				continue // a claim that reads it is reported as not encoded
			}
			smt := quote(in.Name)
			fmt.Fprintf(&e.out, "(declare-const %s %s)\n", smt, so)
			sc[in.Name] = svar{smt, in.Type}
			vs = append(vs, freeVar{in.Name, smt, in.Type})
		}
		return sc, vs, nil
	}
	// evalClaim evaluates the claim with the interpreter on a solver's
	// inputs (a parseError when one cannot be read as its type).
	evalClaim := func(cex []Binding) (value.Value, error) {
		vars := map[string]value.Value{}
		for _, b := range cex {
			for _, in := range inputs {
				if in.Name == b.Name {
					v, err := value.Parse(b.Value, in.Type)
					if err != nil {
						return value.Value{}, parseError{err}
					}
					vars[b.Name] = v
				}
			}
		}
		return s.in.EvalExpr(zk.Proves, interp.Env{Vars: vars})
	}
	sp := zk.Proves.ExprSpan()
	s.add(out, name+"/satisfiable", KindZKSatisfiable, "zk-proof", name, sp, &goal{
		exists: true,
		build: func(e *encoder) (string, []freeVar, error) {
			sc, vs, _ := env(e)
			t, err := e.expr(zk.Proves, sc)
			if err != nil {
				return "", nil, err
			}
			return and(t.asm, t.ok, t.v), vs, nil
		},
		// Under an abstraction, satisfying inputs count once the
		// interpreter evaluates the claim to true on them.
		confirm: func(cex []Binding) *Confirmation {
			v, err := evalClaim(cex)
			if bad, ok := err.(parseError); ok {
				return &Confirmation{Detail: bad.Error()}
			}
			if err != nil {
				return &Confirmation{Detail: "the interpreter reports: " + err.Error()}
			}
			if !v.AsBool() {
				return &Confirmation{Detail: "the claim is false on these inputs"}
			}
			return &Confirmation{Confirmed: true, Detail: "the claim holds on these inputs"}
		},
	})
	s.add(out, name+"/no-failure", KindZKNoFailure, "zk-proof", name, sp, &goal{
		build: func(e *encoder) (string, []freeVar, error) {
			if e.total(zk.Proves) {
				return "false", nil, nil
			}
			sc, vs, _ := env(e)
			t, err := e.expr(zk.Proves, sc)
			if err != nil {
				return "", nil, err
			}
			if t.ok == "true" {
				return "false", nil, nil
			}
			return and(t.asm, "(not "+t.ok+")"), vs, nil
		},
		confirm: func(cex []Binding) *Confirmation {
			_, err := evalClaim(cex)
			if bad, ok := err.(parseError); ok {
				return &Confirmation{Detail: bad.Error()}
			}
			if err != nil {
				return &Confirmation{Confirmed: true, Detail: "the interpreter reports: " + err.Error()}
			}
			return &Confirmation{Detail: "the claim evaluates: the solver and the interpreter disagree"}
		},
	})
}

// parseError is a solver's value that cannot be read as its type.
type parseError struct{ error }

// ---- solving

// Verify generates the module's obligations and puts each to the solver.
// It fails only when the module has errors or no solver can be found; an
// obligation the solver cannot settle stays open with the reason.
func Verify(ctx context.Context, res *check.Result, opts Options) (*Report, error) {
	solver := opts.Solver
	if solver == nil {
		var err error
		if solver, err = FindSolver(); err != nil {
			return nil, err
		}
	}
	s, err := prepare(res)
	if err != nil {
		return nil, err
	}
	r := &Report{Module: s.module, Solver: solver.Version(), Obligations: s.obligations()}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = max(1, min(jobs, len(r.Obligations))) // no idle workers' processes
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	// Worker w takes obligations w, w+jobs, w+2*jobs...: a fixed share in
	// a fixed order, so that each of its sessions sees the same queries
	// every run, however the machine's load paces the workers.
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sessions [sessionCount]*session
			defer func() {
				for _, ss := range sessions {
					solver.release(w, ss)
				}
			}()
			get := func(i int) (*session, error) {
				if sessions[i] == nil || sessions[i].dead {
					ss, err := solver.acquire(w, i >= quickBV)
					if err != nil {
						return nil, err
					}
					sessions[i] = ss
				}
				return sessions[i], nil
			}
			var mine []*Obligation
			for i := w; i < len(r.Obligations); i += jobs {
				mine = append(mine, r.Obligations[i])
			}
			if err := s.solve(ctx, solver, get, mine); err != nil {
				fail(err)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return r, nil
}

// bitBlast is the tactic of the second quick attempt: bit-vectors
// straight to SAT. It gives up at once on what it cannot handle
// (datatypes, uninterpreted functions, integers).
const bitBlast = "(then simplify solve-eqs bit-blast sat)"

// oldArith is the tactic of the second integer attempt: Z3's older
// arithmetic solver, which settles some wrap-around queries the default
// one cannot in any budget (a 64-bit midpoint: about 6,000 units) and
// misses others the default one settles.
const oldArith = "(using-params smt :arith.solver 2)"

// The indexes of a worker's sessions: two for fresh queries (the second
// answers the integer encoding while the first keeps at a hard
// bit-vector query), and one incremental session per encoding for the
// first attempts (the two declare datatypes of the same names with
// different fields).
const (
	freshBV = iota
	freshInt
	quickBV
	quickInt
	sessionCount
)

// query is one encoding of an obligation, as put to the solver.
type query struct {
	script string
	vars   []freeVar
	terms  []string
	// abstract lists the operations left uninterpreted (textops.go).
	abstract []string
}

// dumpDir, when set (CAPS_VERIFY_DUMP), receives each query as a
// .smt2 file named after its obligation, for debugging the encoding.
var dumpDir = os.Getenv("CAPS_VERIFY_DUMP")

// encode builds an obligation's query in one encoding (ints: over the
// integers). done means the obligation is settled without a solver, and
// recorded on o when record is set: it is not encoded, or nothing in it
// can fail.
func (s *shared) encode(o *Obligation, ints, record bool) (*query, bool) {
	return s.encodeWith(o, ints, record, nil)
}

// encodeWith is encode with ground facts of the uninterpreted Text
// operations on the texts extra too (refine).
func (s *shared) encodeWith(o *Obligation, ints, record bool, extra []string) (*query, bool) {
	e := s.encoder()
	e.ints = ints
	e.extraText = extra
	assertion, vs, err := o.goal.build(e)
	if err != nil {
		if record {
			o.Status, o.Reason = Open, "not encoded: "+err.Error()
		}
		return nil, true
	}
	if assertion == "false" && !o.goal.exists {
		if record {
			o.Status, o.Reason = Discharged, "nothing in it can fail"
		}
		return nil, true
	}
	e.groundFacts(assertion)
	q := &query{vars: vs, abstract: e.abstract}
	var ranges []string
	for _, v := range vs {
		ranges = append(ranges, e.inRange(v.smt, v.t))
		q.terms = append(q.terms, v.smt)
	}
	q.script = e.out.String() + "(assert " + and(append(ranges, assertion)...) + ")\n"
	if dumpDir != "" {
		name := strings.ReplaceAll(o.ID, "/", "_")
		if ints {
			name += ".int"
		}
		_ = os.WriteFile(filepath.Join(dumpDir, name+".smt2"), []byte(q.script), 0o644)
	}
	return q, false
}

// pending is an obligation on its way through the solver.
type pending struct {
	o       *Obligation
	bv, in  *query // in: the integer encoding, nil when it is the same
	key     string // in the cache
	start   time.Time
	settled bool
	refuted bool // a first attempt found it satisfiable: only a counterexample is left to find
}

// solve settles a worker's obligations. An error means the solver itself
// failed (it is not installed any more, it rejected a query): a bug to
// report, not a verdict.
//
// The first attempts are made for all of them at once, attempt by
// attempt (quickAttempts); what they leave goes to fresh queries one
// obligation after the other (decide).
func (s *shared) solve(ctx context.Context, solver *Solver, sessionAt func(int) (*session, error), obls []*Obligation) error {
	var todo []*pending
	for _, o := range obls {
		p := &pending{o: o, start: time.Now()}
		bv, done := s.encode(o, solver.intsOnly, true)
		if done {
			o.Elapsed = time.Since(p.start)
			continue
		}
		p.bv = bv
		if !solver.intsOnly {
			if q, _ := s.encode(o, true, false); q != nil && q.script != bv.script {
				p.in = q
			}
		}
		if solver.Cache != nil {
			p.key = solver.cacheKey(o, p.bv, p.in)
			if v, ok := solver.Cache.get(p.key); ok {
				s.apply(o, v)
				o.Elapsed = time.Since(p.start)
				continue
			}
		}
		todo = append(todo, p)
	}
	if !solver.NoQuick {
		if err := s.quickAttempts(ctx, solver, sessionAt, todo); err != nil {
			return err
		}
	}
	for _, p := range todo {
		if p.settled {
			continue
		}
		octx, cancel := context.WithTimeout(ctx, solver.timeout())
		a, vars, err := s.decide(octx, solver, sessionAt, p.o, p.bv, p.in)
		if err == nil {
			a, vars = s.refine(octx, solver, sessionAt, p, a, vars)
		}
		timedOut := octx.Err() != nil
		cancel()
		if err != nil {
			if ctx.Err() != nil || !timedOut {
				return fmt.Errorf("%s: %w", p.o.ID, err)
			}
			// The wall-clock cap ran out: open (timeout). The machine's
			// load decides this one, so the cache does not keep it.
			s.apply(p.o, &verdict{Status: Open, Reason: "timeout"})
			p.o.Elapsed = time.Since(p.start)
			continue
		}
		s.finish(solver, p, a, vars)
	}
	return nil
}

// refineRounds bounds how often refine puts a query again.
const refineRounds = 2

// refine follows up a counterexample of a query that leaves Text
// operations uninterpreted and that the interpreter does not confirm:
// the texts of the counterexample get ground facts too (the
// interpreter's upper of them, and so on) and the query is put again, so
// that the solver looks for another counterexample, or proves the
// obligation, under facts that rule the spurious one out. It returns the
// last answer.
func (s *shared) refine(ctx context.Context, solver *Solver, sessionAt func(int) (*session, error), p *pending, a *answer, vars []freeVar) (*answer, []freeVar) {
	var extra []string
	for round := 0; round < refineRounds; round++ {
		if a.status != "sat" || p.o.goal.exists || p.o.goal.confirm == nil || len(p.bv.abstract) == 0 {
			break
		}
		cex := modelBindings(a, vars)
		if p.o.goal.confirm(cex).Confirmed {
			break
		}
		texts := textsOf(cex, vars)
		if len(texts) == 0 {
			break
		}
		extra = append(extra, texts...)
		bv, done := s.encodeWith(p.o, solver.intsOnly, false, extra)
		if done || bv.script == p.bv.script {
			break
		}
		var in *query
		if !solver.intsOnly {
			if q, _ := s.encodeWith(p.o, true, false, extra); q != nil && q.script != bv.script {
				in = q
			}
		}
		a2, vars2, err := s.decide(ctx, solver, sessionAt, p.o, bv, in)
		if err != nil || a2.status == "unknown" {
			break // keep the answer we have
		}
		a, vars, p.bv = a2, vars2, bv
	}
	return a, vars
}

// textsOf returns the Text values of a counterexample.
func textsOf(cex []Binding, vars []freeVar) []string {
	var out []string
	for _, b := range cex {
		for _, v := range vars {
			if v.name == b.Name && isText(v.t) {
				if x, err := value.Parse(b.Value, v.t); err == nil {
					out = append(out, x.AsText())
				}
			}
		}
	}
	return out
}

// finish records the solver's answer on an obligation and in the cache.
func (s *shared) finish(solver *Solver, p *pending, a *answer, vars []freeVar) {
	v := s.verdictOf(p.o, a, vars, p.bv.abstract)
	s.apply(p.o, v)
	if solver.Cache != nil {
		solver.Cache.put(p.key, v)
	}
	p.settled = true
	p.o.Elapsed = time.Since(p.start)
}

// quickAttempts makes the first attempts: incremental, on a small budget
// each. The integer encoding first (Z3's arithmetic settles products and
// quotients of large words much faster than bit-blasting them), with
// Z3's default arithmetic, then with its older one, then the bit-vectors
// bit-blasted straight to SAT; a query without integers (Bool, enums,
// text), whose two encodings are one, gets Z3's default strategy first.
// A verdict is kept only when it needs no model (unsat; sat for an
// existential obligation), so that a counterexample always comes from a
// fresh query and is the same as without these attempts; after sat the
// other attempts are skipped (the encodings agree: neither can prove
// it). Each attempt is put for every obligation that still needs it in
// one batch (session.quick). A batch that the wall-clock cap stops
// settles nothing, and its obligations go on to fresh queries.
func (s *shared) quickAttempts(ctx context.Context, solver *Solver, sessionAt func(int) (*session, error), todo []*pending) error {
	budget := solver.rlimit()
	attempts := []struct {
		session int
		query   func(p *pending) (*query, string, uint64)
	}{
		{quickInt, func(p *pending) (*query, string, uint64) {
			if p.in != nil {
				return p.in, "", min(QuickRlimits[0], budget)
			}
			return p.bv, "", min(QuickRlimits[0], budget)
		}},
		{quickInt, func(p *pending) (*query, string, uint64) {
			if p.in != nil {
				return p.in, oldArith, min(QuickRlimits[1], budget)
			}
			return nil, "", 0
		}},
		{quickBV, func(p *pending) (*query, string, uint64) {
			return p.bv, bitBlast, min(QuickRlimits[2], budget)
		}},
	}
	for _, at := range attempts {
		var batch []quickQuery
		var who []*pending
		var qs []*query
		for _, p := range todo {
			if p.settled || p.refuted {
				continue
			}
			if q, tactic, rlimit := at.query(p); q != nil {
				batch = append(batch, quickQuery{q.script, tactic, rlimit})
				who = append(who, p)
				qs = append(qs, q)
			}
		}
		if len(batch) == 0 {
			continue
		}
		ss, err := sessionAt(at.session)
		if err != nil {
			return err
		}
		bctx, cancel := context.WithTimeout(ctx, solver.timeout())
		verdicts, err := ss.quick(bctx, batch)
		timedOut := bctx.Err() != nil
		cancel()
		if err != nil {
			var qe *quickError
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case timedOut:
				continue
			case errors.As(err, &qe):
				return fmt.Errorf("%s: %w", who[qe.index].o.ID, qe.err)
			}
			return err
		}
		for i, v := range verdicts {
			p := who[i]
			switch {
			// Inputs that satisfy an abstraction need a model to be
			// confirmed (apply): a fresh query finds them.
			case v == "unsat" || v == "sat" && p.o.goal.exists && len(qs[i].abstract) == 0:
				s.finish(solver, p, &answer{status: v}, qs[i].vars)
			case v == "sat":
				p.refuted = true
			}
		}
	}
	return nil
}

// decide puts an obligation's fresh queries to the solver: bv, and in
// (the integer encoding, nil when it is the same) when there is one.
// Every query is bounded by a resource budget, never by time, so the
// answer does not depend on the machine's load.
func (s *shared) decide(ctx context.Context, solver *Solver, sessionAt func(int) (*session, error), o *Obligation, bv, in *query) (*answer, []freeVar, error) {
	budget := solver.rlimit()
	ss, err := sessionAt(freshBV)
	if err != nil {
		return nil, nil, err
	}
	if in == nil {
		// Nothing to race it against: one encoding with the whole budget
		// (the integers' share of it when they are all there is).
		if solver.intsOnly {
			budget = max(budget/IntRlimitDivisor, 1)
		}
		a, err := ss.check(ctx, bv.script, bv.terms, budget)
		return a, bv.vars, err
	}
	// The bit-vectors alone on a fifth of the budget; a query that needs
	// more is a hard one, put to both encodings at once.
	a, err := ss.check(ctx, bv.script, bv.terms, max(budget/5, 1))
	if err != nil {
		return nil, nil, err
	}
	if a.status != "unknown" {
		return a, bv.vars, nil
	}
	return s.portfolio(ctx, sessionAt, bv, in, budget, max(budget/IntRlimitDivisor, 1), o.goal.exists)
}

// portfolio runs the two encodings of one query on the worker's two fresh
// sessions at once, each on its budget. An answer that needs no model
// (unsat; sat for an existential obligation) is the same whichever
// encoding gives it and is taken at once, stopping the other solver. A
// counterexample comes from the bit-vectors, unless they run out of
// budget: then from the integers. So which solver answers first never
// changes the report.
func (s *shared) portfolio(ctx context.Context, sessionAt func(int) (*session, error), bv, in *query, bvLimit, inLimit uint64, exists bool) (*answer, []freeVar, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		i   int
		a   *answer
		err error
	}
	qs := [2]*query{bv, in}
	limits := [2]uint64{bvLimit, inLimit}
	results := make(chan result, 2)
	for i := range qs {
		ss, err := sessionAt(freshBV + i)
		if err != nil {
			cancel()
			for range i {
				<-results
			}
			return nil, nil, err
		}
		go func(i int, ss *session) {
			a, err := ss.check(ctx, qs[i].script, qs[i].terms, limits[i])
			results <- result{i, a, err}
		}(i, ss)
	}
	var got [2]*answer
	var firstErr error
	for n := 0; n < 2; n++ {
		r := <-results
		if r.err != nil {
			if ctx.Err() == nil && firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		got[r.i] = r.a
		if r.a.status == "unsat" || r.a.status == "sat" && (exists || r.i == 0) {
			cancel() // the other solver is killed; its session restarts
			for n++; n < 2; n++ {
				<-results
			}
			return r.a, qs[r.i].vars, nil
		}
	}
	if got[1] != nil && got[1].status == "sat" {
		return got[1], in.vars, nil // the bit-vectors ran out: the integers' counterexample
	}
	for i, a := range got {
		if a != nil {
			return a, qs[i].vars, nil // unknown; the bit-vectors' reason first
		}
	}
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return nil, nil, firstErr
}

// verdict is what the solver settled about an obligation, and what the
// cache keeps of it.
type verdict struct {
	Status         Status    `json:"status"`
	Reason         string    `json:"reason"`
	Counterexample []Binding `json:"counterexample,omitempty"`
	// Abstract lists the operations the query left uninterpreted
	// (textops.go): the counterexample, or for an existential obligation
	// the satisfying inputs, count only once the interpreter confirms
	// them (apply).
	Abstract []string `json:"abstract,omitempty"`
}

// verdictOf reads the solver's answer on an obligation, with the
// counterexample of a refuted one.
func (s *shared) verdictOf(o *Obligation, a *answer, vars []freeVar, abstract []string) *verdict {
	v := &verdict{Abstract: abstract}
	switch {
	case a.status == "unknown":
		v.Status = Open
		if a.reason == "timeout" {
			v.Reason = "timeout"
		} else {
			v.Reason = "the solver answered unknown: " + a.reason
		}
	case o.goal.exists && a.status == "sat":
		v.Status, v.Reason = Discharged, "the solver found inputs that satisfy it"
		if len(abstract) > 0 {
			v.Counterexample = modelBindings(a, vars) // for apply to confirm
		}
	case o.goal.exists:
		v.Status, v.Reason = Failed, "no inputs satisfy the claim, so no proof of it can exist"
	case a.status == "unsat":
		v.Status, v.Reason = Discharged, "proved by the solver"
	default:
		v.Status = Failed
		v.Counterexample = modelBindings(a, vars)
		v.Reason = failReason(o.Kind)
	}
	return v
}

// modelBindings reads the free variables' values from a model.
func modelBindings(a *answer, vars []freeVar) []Binding {
	var out []Binding
	for _, fv := range vars {
		x, ok := a.model[strings.Trim(fv.smt, "|")]
		if !ok {
			continue
		}
		text, err := valueText(x, fv.t)
		if err != nil {
			text = "?"
		}
		out = append(out, Binding{fv.name, text})
	}
	return out
}

// apply records a verdict on an obligation, and the interpreter's run on
// the counterexample of a failed one.
//
// When the query left operations uninterpreted (v.Abstract), a proof
// holds as it is, but a counterexample (or, for an existential
// obligation, satisfying inputs) may exist only in the abstraction: it
// counts when the interpreter confirms it, and the obligation stays open
// otherwise.
func (s *shared) apply(o *Obligation, v *verdict) {
	o.Status, o.Reason = v.Status, v.Reason
	o.Counterexample = append([]Binding(nil), v.Counterexample...)
	o.Confirmation = nil
	if len(v.Abstract) > 0 && o.goal.exists && v.Status == Discharged {
		c := &Confirmation{Detail: "no confirmation"}
		if o.goal.confirm != nil {
			c = o.goal.confirm(o.Counterexample)
		}
		o.Counterexample = nil
		if c.Confirmed {
			o.Reason = "the solver found inputs that satisfy it, and the interpreter confirms them"
		} else {
			o.Status, o.Reason = Open, abstractionReason(v.Abstract, c.Detail)
		}
		return
	}
	if v.Status == Failed && o.goal.confirm != nil && !o.goal.exists {
		o.Confirmation = o.goal.confirm(o.Counterexample)
	}
	if len(v.Abstract) > 0 && v.Status == Failed && !o.goal.exists && (o.Confirmation == nil || !o.Confirmation.Confirmed) {
		detail := "no confirmation"
		if o.Confirmation != nil {
			detail = o.Confirmation.Detail
		}
		o.Status, o.Reason = Open, abstractionReason(v.Abstract, detail)
		o.Counterexample, o.Confirmation = nil, nil
	}
}

func failReason(k Kind) string {
	switch k {
	case KindEnsures:
		return "the solver found inputs that meet the requires but break the ensures"
	case KindNoFailure:
		return "the solver found inputs that meet the requires but make the body fail"
	case KindExample:
		return "the call does not return the expected value"
	case KindGuard:
		return "the guard fails for some context and payload"
	case KindAssign:
		return "an assignment fails for some context and payload that pass the guard"
	case KindZKNoFailure:
		return "the claim fails for some inputs"
	}
	return "refuted by the solver"
}

// SortByRange orders obligations by source position, then id.
func SortByRange(os []*Obligation) {
	sort.SliceStable(os, func(i, j int) bool {
		if os[i].Span.Start != os[j].Span.Start {
			return os[i].Span.Start < os[j].Span.Start
		}
		return os[i].ID < os[j].ID
	})
}
