// Package interp evaluates checked Capsulang functions and expressions.
//
// New prepares a checked module (and the modules it imports) for
// evaluation by compiling every function body into a tree of evaluation
// nodes with resolved local slots, field indexes and callees. Call runs a
// function with argument values and returns its result together with the
// ordered effect intents the body produced (directly or through the
// functions it called); EvalExpr evaluates one expression against an
// environment, as the machine runtime does for guards and assignments.
//
// Semantics (docs/language.md sections 5 and 6, docs/runtime.md): integer
// arithmetic wraps at the width of its type; / and % trap on a zero
// divisor; requires clauses are checked on entry and ensures clauses on
// exit; `and`/`or` short-circuit. Every failure is an *Error with a kind
// and a source span, never a panic. Two budgets bound every evaluation: a
// step budget (evaluation steps, default DefaultMaxSteps) and a depth
// budget (nested calls, default DefaultMaxDepth).
//
// An Interp is safe for concurrent use; each Call or EvalExpr has its own
// evaluation state.
package interp

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Default budgets.
const (
	DefaultMaxSteps = 10_000_000
	DefaultMaxDepth = 10_000
)

// MaxNesting bounds the expressions being evaluated at once, summed over
// all calls in progress (each call counts the nesting depth of its
// function's body). It keeps the interpreter's Go stack well below Go's
// limit whatever MaxDepth is set to: evaluation stops with a depth-budget
// error instead. With the default MaxDepth only bodies nested about 50
// levels deep can reach it.
const MaxNesting = 500_000

// Interp evaluates the functions of one checked module.
type Interp struct {
	// MaxSteps bounds the evaluation steps of one Call or EvalExpr (0
	// means DefaultMaxSteps). Every expression evaluated is one step.
	MaxSteps int64
	// MaxDepth bounds nested function calls (0 means DefaultMaxDepth).
	MaxDepth int
	// Shift, when set, says how many bytes after its tree's offsets the
	// text of a function of the module given to New starts in that
	// module's source (a declaration whose tree was built from an older
	// text of the file, as the checker's engine keeps them): messages that
	// quote a clause read it there.
	Shift func(fn *ast.Function) int

	root    *module
	notRun  *Error // set when the module cannot run
	byDecl  map[*ast.Function]*function
	mu      sync.Mutex
	exprs   map[exprKey]*compiled
	threads sync.Pool
}

// Intent is one effect intent produced by a function body: the effect,
// its target and its evaluated payload.
type Intent struct {
	Effect string
	// Target is the first target ("" for an effect without one); Extra
	// holds further targets (db.project's destination).
	Target string
	Extra  []string
	Args   []value.Value
	// Function is the function whose body wrote the intent, and Span the
	// intent expression in its module (File "" for the root module).
	Function string
	File     string
	Span     syntax.Span
}

// String prints the intent as Capsulang source: (db.write store.col 42).
func (it Intent) String() string {
	var b strings.Builder
	b.WriteString("(" + it.Effect)
	if it.Target != "" {
		b.WriteString(" " + it.Target)
	}
	for _, x := range it.Extra {
		b.WriteString(" " + x)
	}
	for _, a := range it.Args {
		b.WriteString(" " + a.String())
	}
	b.WriteString(")")
	return b.String()
}

// Env is the environment of an expression evaluated with EvalExpr.
type Env struct {
	// Vars holds the free names the expression may read: for a machine
	// guard or assignment, the context fields. Local let and match
	// bindings shadow them.
	Vars map[string]value.Value
	// Event holds the payload of the event being handled, read as
	// event.FIELD; nil outside a transition.
	Event map[string]value.Value
}

// Param is a function parameter.
type Param struct {
	Name string
	Type types.Type
}

// FuncInfo describes a function of the module.
type FuncInfo struct {
	Name   string
	Decl   *ast.Function
	Params []Param
	Result types.Type
}

// module is one checked module: the root or an import.
type module struct {
	res     *check.Result
	file    string // "" for the root module
	src     []byte
	decls   map[string]ast.Decl
	types   map[string]types.Type // declared types by name
	imports map[string]*module    // by the name they are referenced with
	funcs   map[string]*function
	order   []*function
	// variants lists the declared variant types, for bare constructors,
	// and cases indexes them by case name.
	variants []*types.Variant
	cases    map[string][]caseRef
}

// caseRef is the first case of a variant with some name.
type caseRef struct {
	variant *types.Variant
	index   int
}

// function is a compiled function.
type function struct {
	name     string
	decl     *ast.Function
	mod      *module
	params   []Param
	result   types.Type
	nslots   int
	resSlot  int // slot of `result` in ensures
	nest     int // how deeply its nodes nest, plus one for the call
	requires []node
	reqExprs []ast.Expr
	ensures  []node
	ensExprs []ast.Expr
	body     node
	err      *Error // compile failure
}

// New prepares a checked module for evaluation. It never fails: a module
// with errors (or one importing a module with errors) yields an Interp
// whose every evaluation returns a NotChecked error.
//
// The imported modules' functions run from full checks of their texts:
// when a result res imports is partial (check.Result.Partial: the
// language server's import cache holds such answers), res is read from
// check.Result.CompleteImports, whose tree is res's.
func New(res *check.Result) *Interp {
	res = res.CompleteImports()
	n := 0
	if res.File != nil && res.File.Module != nil {
		n = len(res.File.Module.Decls)
	}
	in := &Interp{byDecl: make(map[*ast.Function]*function, n), exprs: map[exprKey]*compiled{}}
	seen := map[*check.Result]*module{}
	in.root = in.module(res, "", seen)
	// the module itself first, then the imported ones by file name: the
	// message names the same module in every run
	mods := make([]*module, 0, len(seen))
	for _, m := range seen {
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].file < mods[j].file })
	for _, m := range mods {
		if m.res.HasErrors() {
			where := "the module has errors"
			if m.file != "" {
				where = "the imported module " + m.file + " has errors"
			}
			in.notRun = newError(NotChecked, syntax.Span{}, "%s; only checked modules run (see caps check)", where)
			break
		}
	}
	if res.File == nil || res.File.Module == nil {
		in.notRun = newError(NotChecked, syntax.Span{}, "the file holds no module")
	}
	if in.notRun == nil {
		for _, m := range seen {
			for _, f := range m.order {
				in.compileFunction(f)
			}
		}
	}
	return in
}

func (in *Interp) module(res *check.Result, file string, seen map[*check.Result]*module) *module {
	if m, ok := seen[res]; ok {
		return m
	}
	ndecls := 0
	if res.File != nil && res.File.Module != nil {
		ndecls = len(res.File.Module.Decls)
	}
	m := &module{res: res, file: file, decls: make(map[string]ast.Decl, ndecls), types: map[string]types.Type{},
		imports: map[string]*module{}, funcs: make(map[string]*function, ndecls)}
	seen[res] = m
	if res.File != nil && res.File.Source != nil && res.File.Source.CST != nil {
		m.src = res.File.Source.CST.Src
	}
	if res.File == nil || res.File.Module == nil {
		return m
	}
	for _, d := range res.File.Module.Decls {
		if name := d.Base().Name.Name; name != "" {
			if _, dup := m.decls[name]; !dup {
				m.decls[name] = d
			}
		}
	}
	// The functions first, then their result and input types from the
	// checker's symbols (the last symbol declaring a function has its
	// result type).
	for _, d := range res.File.Module.Decls {
		fn, ok := d.(*ast.Function)
		if !ok || m.decls[fn.Name.Name] != d {
			continue
		}
		f := &function{name: fn.Name.Name, decl: fn, mod: m, result: types.TInvalid}
		m.funcs[f.name] = f
		m.order = append(m.order, f)
		in.byDecl[fn] = f
	}
	for _, s := range res.Symbols {
		if fn, ok := s.Decl.(*ast.Function); ok {
			if f := m.function(in, fn); f != nil && s.Type != nil {
				f.result = s.Type
			}
			continue
		}
		if s.Decl == nil {
			if s.Kind == check.SymInput && s.Parent != nil {
				if fn, ok := s.Parent.Decl.(*ast.Function); ok {
					if f := m.function(in, fn); f != nil {
						f.params = append(f.params, Param{Name: s.Name, Type: s.Type})
					}
				}
			}
			continue
		}
		switch d := s.Decl.(type) {
		case *ast.TypeDecl:
			if m.decls[d.Name.Name] == d && s.Type != nil {
				m.types[d.Name.Name] = s.Type
				if v, ok := s.Type.(*types.Variant); ok {
					m.variants = append(m.variants, v)
				}
			}
		}
	}
	m.indexCases()
	for _, im := range res.Imports {
		if im.Imported != nil && im.Result != nil {
			m.imports[im.Name] = in.module(im.Result, im.File, seen)
		}
	}
	return m
}

// function returns the compiled function of m declared by fn, or nil (a
// function of another module, or a repeated name).
func (m *module) function(in *Interp, fn *ast.Function) *function {
	if f := in.byDecl[fn]; f != nil && f.mod == m {
		return f
	}
	return nil
}

// indexCases indexes the cases of the module's variants by name: each
// variant once under each of its case names, at the first case so named.
func (m *module) indexCases() {
	m.cases = map[string][]caseRef{}
	for _, v := range m.variants {
		for i, cs := range v.Cases {
			refs := m.cases[cs.Name]
			if len(refs) > 0 && refs[len(refs)-1].variant == v {
				continue // a repeated case: the first one counts
			}
			m.cases[cs.Name] = append(refs, caseRef{v, i})
		}
	}
}

// Functions lists the module's functions in declaration order.
func (in *Interp) Functions() []*FuncInfo {
	var out []*FuncInfo
	for _, f := range in.root.order {
		out = append(out, f.info())
	}
	return out
}

// TypeNamed returns the type the module declares under name (or an
// imported one written alias.Name), with aliases resolved.
func (in *Interp) TypeNamed(name string) (types.Type, bool) {
	if t, ok := in.root.types[name]; ok {
		return t, true
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		if im := in.root.imports[name[:i]]; im != nil {
			t, ok := im.types[name[i+1:]]
			return t, ok
		}
	}
	return nil, false
}

// Function describes the named function of the module (or an imported one
// written alias.name).
func (in *Interp) Function(name string) (*FuncInfo, bool) {
	f := in.root.lookupFunc(name)
	if f == nil {
		return nil, false
	}
	return f.info(), true
}

func (f *function) info() *FuncInfo {
	return &FuncInfo{Name: f.name, Decl: f.decl, Params: f.params, Result: f.result}
}

// lookupFunc finds a function by name: declared here, or alias.name.
func (m *module) lookupFunc(name string) *function {
	if f := m.funcs[name]; f != nil {
		return f
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		if im := m.imports[name[:i]]; im != nil {
			return im.funcs[name[i+1:]]
		}
	}
	return nil
}

func (in *Interp) newThread() *thread {
	t, _ := in.threads.Get().(*thread)
	if t == nil {
		t = &thread{in: in}
	}
	t.maxSteps = in.MaxSteps
	if t.maxSteps <= 0 {
		t.maxSteps = DefaultMaxSteps
	}
	t.maxDepth = in.MaxDepth
	if t.maxDepth <= 0 {
		t.maxDepth = DefaultMaxDepth
	}
	t.steps, t.depth, t.base, t.nest = 0, 0, 0, 0
	return t
}

func (in *Interp) release(t *thread) {
	clear(t.stack[:t.hw])
	t.stack, t.hw = t.stack[:0], 0
	t.intents = nil
	t.env, t.fn = nil, nil
	if cap(t.stack) <= 1<<16 {
		in.threads.Put(t)
	}
}

// Call calls the named function of the module with args (one per
// parameter, in order) and returns its result and the effect intents it
// produced, in order. Errors are *Error.
func (in *Interp) Call(name string, args []value.Value) (value.Value, []Intent, error) {
	if in.notRun != nil {
		return value.Value{}, nil, in.notRun
	}
	f := in.root.lookupFunc(name)
	if f == nil {
		var names []string
		for _, g := range in.root.order {
			names = append(names, g.name)
		}
		msg := fmt.Sprintf("the module has no function %s", name)
		msg += spell.DidYouMean(name, names, spell.Bare)
		return value.Value{}, nil, newError(UnknownFunction, syntax.Span{}, "%s", msg)
	}
	return in.call(f, args)
}

// CallDecl calls a function of the module (or of a module it imports) by
// its declaration.
func (in *Interp) CallDecl(fn *ast.Function, args []value.Value) (value.Value, []Intent, error) {
	if in.notRun != nil {
		return value.Value{}, nil, in.notRun
	}
	f := in.byDecl[fn]
	if f == nil {
		return value.Value{}, nil, newError(UnknownFunction, syntax.Span{}, "function %s is not part of this module", fn.Name.Name)
	}
	return in.call(f, args)
}

func (in *Interp) call(f *function, args []value.Value) (value.Value, []Intent, error) {
	if len(args) != len(f.params) {
		return value.Value{}, nil, newError(BadArgument, f.decl.Name.Span, "%s takes %d argument%s, got %d", f.name, len(f.params), plural(len(f.params)), len(args))
	}
	for i, a := range args {
		if err := value.Check(a, f.params[i].Type); err != nil {
			return value.Value{}, nil, newError(BadArgument, f.decl.Name.Span, "argument %s of %s: %v", f.params[i].Name, f.name, err)
		}
	}
	t := in.newThread()
	defer in.release(t)
	base := t.push(f.nslots)
	copy(t.stack[base:], args)
	v, err := t.invoke(f, base, f.decl.Name.Span)
	if err != nil {
		return value.Value{}, nil, err
	}
	return v, t.intents, nil
}

// EvalExpr evaluates e, an expression of the module given to New (or of a
// module it imports), in env; see Eval.
func (in *Interp) EvalExpr(e ast.Expr, env Env) (value.Value, error) {
	v, _, err := in.Eval(e, env)
	return v, err
}

// Eval evaluates e in env and also returns the effect intents it produced
// (an example's arguments may call effectful functions). Names not bound
// by a let or match inside e are looked up in env.Vars; event.FIELD reads
// env.Event; Type.member names resolve as in function bodies. The compiled
// form of e is cached, keyed by e and the names env defines.
func (in *Interp) Eval(e ast.Expr, env Env) (value.Value, []Intent, error) {
	if in.notRun != nil {
		return value.Value{}, nil, in.notRun
	}
	c := in.compileExpr(e, &env)
	if c.err != nil {
		return value.Value{}, nil, c.err
	}
	t := in.newThread()
	defer in.release(t)
	t.env = &env
	t.fn = nil
	t.base = t.push(c.nslots)
	v, err := c.root.eval(t)
	if err != nil {
		if re, ok := err.(*Error); ok && re.File == "" {
			re.File = c.mod.file
		}
		return value.Value{}, nil, err
	}
	return v, t.intents, nil
}

// thread is the state of one evaluation.
type thread struct {
	in       *Interp
	stack    []value.Value
	base     int
	steps    int64
	maxSteps int64
	depth    int
	maxDepth int
	intents  []Intent
	fn       *function
	env      *Env
	hw       int // the highest stack length reached, for release
	nest     int // sum of the nesting of the calls in progress
}

// push reserves n zeroed slots and returns the index of the first.
func (t *thread) push(n int) int {
	base := len(t.stack)
	need := base + n
	if need > t.hw {
		t.hw = need
	}
	if need > cap(t.stack) {
		ns := make([]value.Value, need, max(2*cap(t.stack), need, 64))
		copy(ns, t.stack)
		t.stack = ns
	} else {
		// Not cleared: every slot is written before it is read (arguments
		// by the call, let and match bindings before their bodies).
		t.stack = t.stack[:need]
	}
	return base
}

func (t *thread) stepError(sp syntax.Span) error {
	where := ""
	if t.fn != nil {
		where = " (in " + t.fn.name + ")"
	}
	return t.errorAt(StepBudget, sp, "evaluation took more than %d steps%s; is there a runaway recursion?", t.maxSteps, where)
}

// errorAt builds an error at sp in the current function.
func (t *thread) errorAt(kind ErrorKind, sp syntax.Span, format string, args ...any) *Error {
	e := newError(kind, sp, format, args...)
	if t.fn != nil {
		e.Function = t.fn.name
		e.File = t.fn.mod.file
	}
	return e
}

// invoke runs f whose arguments are in the slots at base, then pops them.
func (t *thread) invoke(f *function, base int, callSpan syntax.Span) (value.Value, error) {
	if f.err != nil {
		t.stack = t.stack[:base]
		return value.Value{}, f.err
	}
	if t.depth >= t.maxDepth {
		err := t.errorAt(DepthBudget, callSpan, "recursion deeper than %d calls in %s; is there a missing base case?", t.maxDepth, f.name)
		t.stack = t.stack[:base]
		return value.Value{}, err
	}
	if t.nest+f.nest > MaxNesting {
		err := t.errorAt(DepthBudget, callSpan, "calls nested too deeply in %s: %d calls in progress hold %d nested expressions, more than the interpreter's limit of %d", f.name, t.depth, t.nest, MaxNesting)
		t.stack = t.stack[:base]
		return value.Value{}, err
	}
	t.depth++
	t.nest += f.nest
	savedBase, savedFn := t.base, t.fn
	t.base, t.fn = base, f
	v, err := t.run(f)
	t.base, t.fn = savedBase, savedFn
	t.depth--
	t.nest -= f.nest
	t.stack = t.stack[:base]
	if err != nil {
		if re, ok := err.(*Error); ok {
			if len(re.Stack) < MaxStack {
				caller := ""
				file := ""
				if savedFn != nil {
					caller, file = savedFn.name, savedFn.mod.file
				}
				re.Stack = append(re.Stack, Frame{Function: f.name, Caller: caller, Span: callSpan, File: file})
			} else {
				re.Dropped++
			}
		}
		return value.Value{}, err
	}
	return v, nil
}

func (t *thread) run(f *function) (value.Value, error) {
	for i, r := range f.requires {
		ok, err := r.eval(t)
		if err != nil {
			return value.Value{}, err
		}
		if !ok.AsBool() {
			return value.Value{}, t.errorAt(RequiresFailed, f.reqExprs[i].ExprSpan(), "%s: requires %s does not hold%s",
				f.name, t.in.text(f, f.reqExprs[i].ExprSpan()), t.argsText(f, false))
		}
	}
	v, err := f.body.eval(t)
	if err != nil || len(f.ensures) == 0 {
		return v, err
	}
	t.stack[t.base+f.resSlot] = v
	for i, e := range f.ensures {
		ok, err := e.eval(t)
		if err != nil {
			return value.Value{}, err
		}
		if !ok.AsBool() {
			return value.Value{}, t.errorAt(EnsuresFailed, f.ensExprs[i].ExprSpan(), "%s: ensures %s does not hold%s",
				f.name, t.in.text(f, f.ensExprs[i].ExprSpan()), t.argsText(f, true))
		}
	}
	return v, nil
}

// argsText describes the current call's arguments (and result) for
// contract failure messages: " for result = -1 (x = 5, lo = 0)".
func (t *thread) argsText(f *function, withResult bool) string {
	var parts []string
	for i, p := range f.params {
		parts = append(parts, p.Name+" = "+clip(t.stack[t.base+i].String()))
	}
	args := strings.Join(parts, ", ")
	if withResult {
		s := " for result = " + clip(t.stack[t.base+f.resSlot].String())
		if args != "" {
			s += " (" + args + ")"
		}
		return s
	}
	if args == "" {
		return ""
	}
	return " for " + args
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:197] + "..."
	}
	return s
}

// text returns the source text of sp, a span of f's tree, with runs of
// white space collapsed (see Shift).
func (in *Interp) text(f *function, sp syntax.Span) string {
	if in.Shift != nil && f.mod == in.root {
		d := in.Shift(f.decl)
		sp = syntax.Span{Start: sp.Start + d, End: sp.End + d}
	}
	return f.mod.text(sp)
}

// text returns the source text of sp with runs of white space collapsed.
func (m *module) text(sp syntax.Span) string { return Quote(m.src, sp) }

// Quote returns the text of sp in src as an error message quotes a
// clause (a failed requires or ensures): runs of white space collapsed to
// one space, "(...)" when src does not hold sp. Whoever renders such a
// message again from another version's text (the language server's
// example cache) quotes through it.
func Quote(src []byte, sp syntax.Span) string {
	if src == nil || sp.Start < 0 || sp.End > len(src) || sp.Start > sp.End {
		return "(...)"
	}
	return strings.Join(strings.Fields(string(src[sp.Start:sp.End])), " ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
