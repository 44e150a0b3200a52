// Package core lowers the pure scalar subset of checked Capsule Core into a
// small typed tree that the compiled backends (WebAssembly, RV64 assembly)
// share.
//
// The subset: pure functions whose inputs and output are Bool or a 32- or
// 64-bit integer (I32, I64/Int, U32, U64), whose bodies use literals,
// parameters, let, if, do, match over integers and Bools, the arithmetic,
// comparison and logic operators, abs/min/max, and calls to other functions
// of the subset (recursion included), plus requires/ensures clauses.
// Everything else is reported as an Unsupported feature with its source
// span; Lower never guesses.
//
// Semantics follow docs/language.md §6.5 exactly: every integer operation
// wraps at the width of its type, signed division truncates toward zero,
// MIN / -1 is MIN and MIN % -1 is 0, and / or % with a zero divisor traps.
// Traps, failed contracts and the depth budget are reported through Sites,
// which record the span and wording the interpreter uses, so that a host
// can print exactly what the interpreter prints.
package core

import (
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Kind is a scalar type of the subset.
type Kind uint8

// Scalar kinds.
const (
	Invalid Kind = iota
	Bool
	I32
	I64
	U32
	U64
)

func (k Kind) String() string {
	return [...]string{"invalid", "Bool", "I32", "I64", "U32", "U64"}[k]
}

// Signed reports whether k is a signed integer kind.
func (k Kind) Signed() bool { return k == I32 || k == I64 }

// Is32 reports whether k is a 32-bit integer kind.
func (k Kind) Is32() bool { return k == I32 || k == U32 }

// IsInt reports whether k is an integer kind.
func (k Kind) IsInt() bool { return k >= I32 }

// KindOf maps a checked type to a scalar kind; ok is false outside the
// subset. Int is I64.
func KindOf(t types.Type) (Kind, bool) {
	b, ok := t.(*types.Basic)
	if !ok {
		return Invalid, false
	}
	switch b.Kind {
	case types.Bool:
		return Bool, true
	case types.I32:
		return I32, true
	case types.I64, types.Int:
		return I64, true
	case types.U32:
		return U32, true
	case types.U64:
		return U64, true
	}
	return Invalid, false
}

// Wrap normalizes raw 64-bit bits to the canonical i64 representation of
// kind k: I32 sign-extended, U32 zero-extended, Bool 0 or 1.
func Wrap(k Kind, bits uint64) uint64 {
	switch k {
	case I32:
		return uint64(int64(int32(bits)))
	case U32:
		return uint64(uint32(bits))
	case Bool:
		if bits != 0 {
			return 1
		}
	}
	return bits
}

// Op is a binary operator.
type Op uint8

// Operators.
const (
	Add Op = iota
	Sub
	Mul
	Div
	Rem
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
)

var opNames = [...]string{"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">="}

func (o Op) String() string { return opNames[o] }

// IsCompare reports whether o yields a Bool.
func (o Op) IsCompare() bool { return o >= Eq }

// Expr is a lowered expression.
type Expr interface{ kind() Kind }

type (
	// Const is a constant in canonical representation (see Wrap).
	Const struct {
		K    Kind
		Bits uint64
	}
	// Local reads local slot Index (parameters come first).
	Local struct {
		Index int
		K     Kind
	}
	// Bin applies Op to operands of kind K; a Div or Rem has a Site for
	// its division-by-zero trap.
	Bin struct {
		Op   Op
		K    Kind // operand kind
		A, B Expr
		Site int
	}
	// Not negates a Bool.
	Not struct{ X Expr }
	// And and Or short-circuit.
	And struct{ A, B Expr }
	Or  struct{ A, B Expr }
	// If evaluates Then or Else.
	If struct {
		Cond, Then, Else Expr
		K                Kind
	}
	// Let stores Value into slot Index, then evaluates Body.
	Let struct {
		Index int
		Value Expr
		Body  Expr
	}
	// Seq evaluates every expression and yields the last.
	Seq struct{ Exprs []Expr }
	// Call calls function Func (an index into Module.Funcs) at Site.
	Call struct {
		Func int
		Args []Expr
		K    Kind
		Site int
	}
	// Trap stops evaluation with the error of Site (a match without a
	// matching arm); Value is the matched value, for the message.
	Trap struct {
		Site  int
		Value Expr
		K     Kind // the type the trap stands in for
	}
)

func (e *Const) kind() Kind { return e.K }
func (e *Local) kind() Kind { return e.K }
func (e *Bin) kind() Kind {
	if e.Op.IsCompare() {
		return Bool
	}
	return e.K
}
func (e *Not) kind() Kind  { return Bool }
func (e *And) kind() Kind  { return Bool }
func (e *Or) kind() Kind   { return Bool }
func (e *If) kind() Kind   { return e.K }
func (e *Let) kind() Kind  { return e.Body.kind() }
func (e *Seq) kind() Kind  { return e.Exprs[len(e.Exprs)-1].kind() }
func (e *Call) kind() Kind { return e.K }
func (e *Trap) kind() Kind { return e.K }

// KindOfExpr returns the kind of a lowered expression.
func KindOfExpr(e Expr) Kind { return e.kind() }

// Param is a parameter.
type Param struct {
	Name string
	K    Kind
}

// Contract is a requires or ensures clause with its failure site.
type Contract struct {
	Cond Expr
	Site int
}

// Func is a lowered function.
type Func struct {
	Name     string
	Decl     *ast.Function
	Params   []Param
	Result   Kind
	Locals   []Kind // every slot: parameters first, then lets and temporaries
	Requires []Contract
	Ensures  []Contract // evaluated with the result in slot ResultSlot
	// ResultSlot holds the body's value while ensures clauses run (-1
	// without ensures).
	ResultSlot int
	Body       Expr
}

// SiteKind classifies sites.
type SiteKind string

// Site kinds; the names are the interpreter's error kinds.
const (
	SiteDivZero  SiteKind = "division-by-zero"
	SiteRequires SiteKind = "requires-failed"
	SiteEnsures  SiteKind = "ensures-failed"
	SiteNoMatch  SiteKind = "no-match"
	SiteCall     SiteKind = "call" // a call; its depth check fails as depth-budget
)

// Site is a place where evaluation can stop, or a call site.
type Site struct {
	ID       int
	Kind     SiteKind
	Span     syntax.Span
	Func     string // the function the site is in
	Op       byte   // '/' or '%' for a division site
	OpKind   Kind   // operand kind of a division, the matched kind of a no-match
	Text     string // the clause source, whitespace collapsed, for contracts
	Callee   string // for a call site
	FuncIdx  int    // index of Func in Module.Funcs
	CalleeIx int    // for a call site
}

// Unsupported is a feature outside the subset, at its source span.
type Unsupported struct {
	Func    string
	Span    syntax.Span
	Feature string
}

// Module is the lowered, supported part of a checked module.
type Module struct {
	Name  string
	Funcs []*Func
	Sites []*Site
	// Skipped lists the functions that could not be lowered, with every
	// reason found.
	Skipped     []string
	Unsupported []Unsupported
}

// Func returns the named function, or nil.
func (m *Module) Func(name string) *Func {
	for _, f := range m.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// FuncIndex returns the index of the named function, or -1.
func (m *Module) FuncIndex(name string) int {
	for i, f := range m.Funcs {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// MaxParams is the largest parameter count among the functions.
func (m *Module) MaxParams() int {
	n := 0
	for _, f := range m.Funcs {
		n = max(n, len(f.Params))
	}
	return n
}

// Lower lowers the functions of a checked module that are in the subset.
// res must come from a module without errors.
func Lower(res *check.Result) *Module {
	l := &lowerer{res: res, mod: &Module{}, index: map[*ast.Function]int{}, src: sourceOf(res)}
	if res.File == nil || res.File.Module == nil {
		return l.mod
	}
	l.mod.Name = res.File.Module.Name.Name
	l.collect()
	return l.mod
}

func sourceOf(res *check.Result) []byte {
	if res.File != nil && res.File.Source != nil && res.File.Source.CST != nil {
		return res.File.Source.CST.Src
	}
	return nil
}

type lowerer struct {
	res   *check.Result
	mod   *Module
	src   []byte
	index map[*ast.Function]int
	// per function
	fn         *Func
	fnIdx      int
	scope      []binding
	reasons    []Unsupported
	candidates map[string]*ast.Function
}

type binding struct {
	name string
	slot int
	k    Kind
}

// sig is the signature of a function, from the checker's symbols.
type sig struct {
	params []types.Type
	names  []string
	result types.Type
}

func (l *lowerer) signatures() map[*ast.Function]*sig {
	out := map[*ast.Function]*sig{}
	for _, s := range l.res.Symbols {
		if s.Kind == check.SymInput && s.Parent != nil {
			if fn, ok := s.Parent.Decl.(*ast.Function); ok {
				g := out[fn]
				if g == nil {
					g = &sig{}
					out[fn] = g
				}
				g.params = append(g.params, s.Type)
				g.names = append(g.names, s.Name)
			}
			continue
		}
		if fn, ok := s.Decl.(*ast.Function); ok && s.Type != nil {
			g := out[fn]
			if g == nil {
				g = &sig{}
				out[fn] = g
			}
			g.result = s.Type
		}
	}
	return out
}

// collect lowers every function, then drops, until nothing changes, those
// that call a function that was dropped.
func (l *lowerer) collect() {
	sigs := l.signatures()
	var fns []*ast.Function
	seen := map[string]bool{}
	for _, d := range l.res.File.Module.Decls {
		if fn, ok := d.(*ast.Function); ok && !seen[fn.Name.Name] {
			seen[fn.Name.Name] = true
			fns = append(fns, fn)
		}
	}
	// First pass: signatures, so that calls can be typed.
	candidates := map[string]*ast.Function{}
	var reasons = map[*ast.Function][]Unsupported{}
	for _, fn := range fns {
		rs := l.signatureReasons(fn, sigs[fn])
		reasons[fn] = rs
		if len(rs) == 0 {
			candidates[fn.Name.Name] = fn
		}
	}
	for {
		var order []*ast.Function
		for _, fn := range fns {
			if candidates[fn.Name.Name] != nil {
				order = append(order, fn)
			}
		}
		l.mod.Funcs = nil
		l.mod.Sites = nil
		l.index = map[*ast.Function]int{}
		for i, fn := range order {
			g := sigs[fn]
			f := &Func{Name: fn.Name.Name, Decl: fn, ResultSlot: -1}
			for i, t := range g.params {
				k, _ := KindOf(t)
				f.Params = append(f.Params, Param{Name: g.names[i], K: k})
				f.Locals = append(f.Locals, k)
			}
			f.Result, _ = KindOf(g.result)
			l.index[fn] = i
			l.mod.Funcs = append(l.mod.Funcs, f)
		}
		dropped := false
		for i, fn := range order {
			rs := l.lowerFunc(i, fn, candidates)
			if len(rs) > 0 {
				reasons[fn] = rs
				delete(candidates, fn.Name.Name)
				dropped = true
			}
		}
		if !dropped {
			break
		}
	}
	for _, fn := range fns {
		if rs := reasons[fn]; len(rs) > 0 && candidates[fn.Name.Name] == nil {
			l.mod.Skipped = append(l.mod.Skipped, fn.Name.Name)
			l.mod.Unsupported = append(l.mod.Unsupported, rs...)
		}
	}
	sort.SliceStable(l.mod.Unsupported, func(i, j int) bool { return l.mod.Unsupported[i].Span.Start < l.mod.Unsupported[j].Span.Start })
	for i, s := range l.mod.Sites {
		s.ID = i
	}
}

// TypeFeature describes why a type is outside the subset.
func TypeFeature(t types.Type) string {
	switch x := t.(type) {
	case *types.Basic:
		switch x.Kind {
		case types.Text:
			return "Text values (no linear-memory ABI yet)"
		case types.Wei:
			return "Wei values (256-bit integers have no scalar ABI)"
		case types.Unit:
			return "Unit values (effect intents are host-owned)"
		case types.Json, types.Timestamp, types.Duration, types.Address, types.Bytes32:
			return x.String() + " values (no stable layout yet)"
		}
	case *types.Record:
		return x.Kind + " " + x.Name + " (records have no linear-memory ABI yet)"
	case *types.Enum:
		return "enum " + x.Name + " (enums have no stable layout yet)"
	case *types.Variant:
		return "variant " + x.Name + " (tagged variants have no linear-memory ABI yet)"
	case *types.Option:
		return "Option values (no linear-memory ABI yet)"
	case *types.Result:
		return "Result values (no linear-memory ABI yet)"
	case *types.List, *types.Array:
		return "lists and arrays (no linear-memory ABI yet)"
	case *types.Map:
		return "maps (no linear-memory ABI yet)"
	}
	if t == nil {
		return "an unresolved type"
	}
	return types.Describe(t) + " values"
}

func (l *lowerer) signatureReasons(fn *ast.Function, g *sig) []Unsupported {
	var rs []Unsupported
	add := func(sp syntax.Span, feat string) {
		rs = append(rs, Unsupported{Func: fn.Name.Name, Span: sp, Feature: feat})
	}
	if fn.Effects != nil && !fn.Effects.Pure && len(fn.Effects.Items) > 0 {
		add(fn.Effects.Form.Span(), "effectful functions (effect intents are routed through the host runtime)")
	}
	if g == nil {
		add(fn.Name.Span, "a function without a checked signature")
		return rs
	}
	for i, t := range g.params {
		if _, ok := KindOf(t); !ok {
			sp := fn.Name.Span
			if i < len(fn.Inputs) && fn.Inputs[i].Type != nil {
				sp = fn.Inputs[i].Type.Span()
			}
			add(sp, TypeFeature(t))
		}
	}
	if _, ok := KindOf(g.result); !ok {
		sp := fn.Name.Span
		if fn.Output != nil {
			sp = fn.Output.Span()
		}
		add(sp, TypeFeature(g.result))
	}
	return rs
}

func (l *lowerer) lowerFunc(idx int, fn *ast.Function, candidates map[string]*ast.Function) []Unsupported {
	f := l.mod.Funcs[idx]
	f.Locals = f.Locals[:len(f.Params)]
	f.Requires, f.Ensures, f.ResultSlot = nil, nil, -1
	l.fn, l.fnIdx, l.reasons = f, idx, nil
	l.scope = l.scope[:0]
	for i, p := range f.Params {
		l.scope = append(l.scope, binding{name: p.Name, slot: i, k: p.K})
	}
	l.candidates = candidates
	startSites := len(l.mod.Sites)
	for _, r := range fn.Requires {
		site := l.site(&Site{Kind: SiteRequires, Span: r.ExprSpan(), Text: l.text(r.ExprSpan())})
		if c := l.bool(r); c != nil {
			f.Requires = append(f.Requires, Contract{Cond: c, Site: site})
		}
	}
	if fn.Body == nil {
		l.unsupported(fn.Name.Span, "a function without a body")
	} else {
		f.Body = l.expect(fn.Body, f.Result)
	}
	if len(fn.Ensures) > 0 {
		f.ResultSlot = l.newSlot(f.Result)
		l.scope = append(l.scope, binding{name: "result", slot: f.ResultSlot, k: f.Result})
		for _, e := range fn.Ensures {
			site := l.site(&Site{Kind: SiteEnsures, Span: e.ExprSpan(), Text: l.text(e.ExprSpan())})
			if c := l.bool(e); c != nil {
				f.Ensures = append(f.Ensures, Contract{Cond: c, Site: site})
			}
		}
	}
	if len(l.reasons) > 0 {
		l.mod.Sites = l.mod.Sites[:startSites]
		return l.reasons
	}
	return nil
}

// text returns the source of sp with white space collapsed, as the
// interpreter quotes contract clauses.
func (l *lowerer) text(sp syntax.Span) string {
	if l.src == nil || sp.Start < 0 || sp.End > len(l.src) || sp.Start > sp.End {
		return "(...)"
	}
	return strings.Join(strings.Fields(string(l.src[sp.Start:sp.End])), " ")
}

func (l *lowerer) site(s *Site) int {
	s.Func = l.fn.Name
	s.FuncIdx = l.fnIdx
	s.ID = len(l.mod.Sites)
	l.mod.Sites = append(l.mod.Sites, s)
	return s.ID
}

func (l *lowerer) newSlot(k Kind) int {
	l.fn.Locals = append(l.fn.Locals, k)
	return len(l.fn.Locals) - 1
}

func (l *lowerer) unsupported(sp syntax.Span, format string, args ...any) {
	l.reasons = append(l.reasons, Unsupported{Func: l.fn.Name, Span: sp, Feature: fmt.Sprintf(format, args...)})
}

func (l *lowerer) typeOf(e ast.Expr) (Kind, bool) {
	t := l.res.Types.Type(e)
	if t == nil {
		return Invalid, false
	}
	return KindOf(types.Default(t))
}

// expect lowers e, which the checker typed as kind k.
func (l *lowerer) expect(e ast.Expr, k Kind) Expr {
	x := l.expr(e)
	if x == nil {
		return nil
	}
	if got := x.kind(); got != k && got != Invalid {
		l.unsupported(e.ExprSpan(), "an integer expression the checker typed %s in a %s context (literals in let bodies and match arms keep the default type Int; see docs/codegen.md)", got, k)
		return nil
	}
	return x
}

func (l *lowerer) bool(e ast.Expr) Expr { return l.expect(e, Bool) }

func (l *lowerer) lookup(name string) *binding {
	for i := len(l.scope) - 1; i >= 0; i-- {
		if l.scope[i].name == name {
			return &l.scope[i]
		}
	}
	return nil
}

func (l *lowerer) expr(e ast.Expr) Expr {
	switch e := e.(type) {
	case *ast.IntLit:
		k, ok := l.typeOf(e)
		if !ok || !k.IsInt() {
			l.unsupported(e.Span, "%s", l.typeFeature(e))
			return nil
		}
		bits := e.Mag
		if e.Neg {
			bits = -bits
		}
		return &Const{K: k, Bits: Wrap(k, bits)}
	case *ast.BoolLit:
		var b uint64
		if e.Value {
			b = 1
		}
		return &Const{K: Bool, Bits: b}
	case *ast.Name:
		if len(e.Parts) == 1 {
			if b := l.lookup(e.Parts[0].Name); b != nil {
				return &Local{Index: b.slot, K: b.k}
			}
		}
		l.unsupported(e.Span(), "the name %s (%s)", e.Text(), l.typeFeature(e))
		return nil
	case *ast.If:
		k, ok := l.typeOf(e)
		if !ok {
			l.unsupported(e.Form.Span(), "%s", l.typeFeature(e))
			return nil
		}
		c, t, f := l.bool(e.Cond), l.expect(e.Then, k), l.expect(e.Else, k)
		if c == nil || t == nil || f == nil {
			return nil
		}
		return &If{Cond: c, Then: t, Else: f, K: k}
	case *ast.Let:
		mark := len(l.scope)
		type pending struct {
			slot int
			v    Expr
		}
		var ps []pending
		bad := false
		for _, b := range e.Bindings {
			v := l.expr(b.Value)
			if v == nil {
				bad = true
				continue
			}
			slot := l.newSlot(v.kind())
			ps = append(ps, pending{slot, v})
			l.scope = append(l.scope, binding{name: b.Name.Name, slot: slot, k: v.kind()})
		}
		body := l.expr(e.Body)
		l.scope = l.scope[:mark]
		if bad || body == nil {
			return nil
		}
		for i := len(ps) - 1; i >= 0; i-- {
			body = &Let{Index: ps[i].slot, Value: ps[i].v, Body: body}
		}
		return body
	case *ast.Do:
		var xs []Expr
		for _, x := range e.Exprs {
			v := l.expr(x)
			if v == nil {
				return nil
			}
			xs = append(xs, v)
		}
		if len(xs) == 1 {
			return xs[0]
		}
		return &Seq{Exprs: xs}
	case *ast.Match:
		return l.match(e)
	case *ast.Call:
		return l.call(e)
	case *ast.StringLit:
		l.unsupported(e.Span, "Text values (no linear-memory ABI yet)")
	case *ast.NoneLit:
		l.unsupported(e.Span, "Option values (no linear-memory ABI yet)")
	case *ast.Duration:
		l.unsupported(e.Span, "Duration values (no stable layout yet)")
	case *ast.RecordLit:
		l.unsupported(e.Form.Span(), "records (no linear-memory ABI yet)")
	default:
		l.unsupported(e.ExprSpan(), "this expression")
	}
	return nil
}

func (l *lowerer) typeFeature(e ast.Expr) string {
	t := l.res.Types.Type(e)
	if t == nil {
		return "an expression without a checked type"
	}
	return TypeFeature(types.Default(t))
}

var binOps = map[string]Op{"+": Add, "-": Sub, "*": Mul, "/": Div, "%": Rem, "==": Eq, "!=": Ne, "<": Lt, "<=": Le, ">": Gt, ">=": Ge}

func (l *lowerer) call(e *ast.Call) Expr {
	name := e.Func.Text()
	args := func() ([]Expr, bool) {
		var xs []Expr
		ok := true
		for _, a := range e.Args {
			x := l.expr(a)
			if x == nil {
				ok = false
			}
			xs = append(xs, x)
		}
		return xs, ok
	}
	if op, isOp := binOps[name]; isOp {
		if len(e.Args) != 2 {
			l.unsupported(e.Form.Span(), "(%s ...) with %d operands", name, len(e.Args))
			return nil
		}
		k, ok := l.typeOf(e.Args[0])
		if !ok {
			l.unsupported(e.Args[0].ExprSpan(), "%s", l.typeFeature(e.Args[0]))
			return nil
		}
		if !op.IsCompare() && !k.IsInt() || op >= Lt && !k.IsInt() {
			l.unsupported(e.Form.Span(), "(%s ...) on %s", name, k)
			return nil
		}
		a, b := l.expect(e.Args[0], k), l.expect(e.Args[1], k)
		if a == nil || b == nil {
			return nil
		}
		x := &Bin{Op: op, K: k, A: a, B: b, Site: -1}
		if op == Div || op == Rem {
			x.Site = l.site(&Site{Kind: SiteDivZero, Span: e.Form.Span(), Op: name[0], OpKind: k})
		}
		return x
	}
	switch name {
	case "and", "or":
		xs, ok := args()
		if !ok || len(xs) < 2 {
			return nil
		}
		acc := xs[len(xs)-1]
		for i := len(xs) - 2; i >= 0; i-- {
			if name == "and" {
				acc = &And{A: xs[i], B: acc}
			} else {
				acc = &Or{A: xs[i], B: acc}
			}
		}
		return acc
	case "not":
		xs, ok := args()
		if !ok || len(xs) != 1 {
			return nil
		}
		return &Not{X: xs[0]}
	case "abs", "min", "max":
		k, ok := l.typeOf(e)
		if !ok || !k.IsInt() {
			l.unsupported(e.Form.Span(), "%s", l.typeFeature(e))
			return nil
		}
		xs, ok := args()
		if !ok {
			return nil
		}
		return l.minMax(name, k, xs)
	}
	// A function call.
	if l.candidates != nil && len(e.Func.Parts) == 1 {
		if fn := l.candidates[name]; fn != nil {
			idx, ok := l.index[fn]
			if !ok {
				return nil
			}
			xs, ok := args()
			if !ok {
				return nil
			}
			callee := l.mod.Funcs[idx]
			if len(xs) != len(callee.Params) {
				l.unsupported(e.Form.Span(), "a call with the wrong number of arguments")
				return nil
			}
			for i, x := range xs {
				if x.kind() != callee.Params[i].K {
					l.unsupported(e.Args[i].ExprSpan(), "an argument of kind %s for %s", x.kind(), callee.Params[i].K)
					return nil
				}
			}
			site := l.site(&Site{Kind: SiteCall, Span: e.Form.Span(), Callee: callee.Name, CalleeIx: idx})
			return &Call{Func: idx, Args: xs, K: callee.Result, Site: site}
		}
	}
	if l.isFunction(name) {
		if strings.Contains(name, ".") {
			l.unsupported(e.Form.Span(), "calls to imported functions (%s)", name)
		} else {
			l.unsupported(e.Form.Span(), "a call of %s, which is not compiled (see its own unsupported features)", name)
		}
		return nil
	}
	l.unsupported(e.Form.Span(), "the built-in (%s ...) (it works on values outside the scalar subset)", name)
	return nil
}

func (l *lowerer) isFunction(name string) bool {
	if strings.Contains(name, ".") {
		return true
	}
	for _, d := range l.res.File.Module.Decls {
		if fn, ok := d.(*ast.Function); ok && fn.Name.Name == name {
			return true
		}
	}
	return false
}

// minMax lowers abs, min and max through temporaries: abs x is
// (if (< x 0) (- 0 x) x), which wraps for MIN as the interpreter does.
func (l *lowerer) minMax(name string, k Kind, xs []Expr) Expr {
	if name == "abs" {
		if len(xs) != 1 {
			return nil
		}
		if !k.Signed() {
			return xs[0]
		}
		t := l.newSlot(k)
		x := &Local{Index: t, K: k}
		return &Let{Index: t, Value: xs[0], Body: &If{
			Cond: &Bin{Op: Lt, K: k, A: x, B: &Const{K: k}, Site: -1},
			Then: &Bin{Op: Sub, K: k, A: &Const{K: k}, B: x, Site: -1},
			Else: x, K: k,
		}}
	}
	if len(xs) != 2 {
		return nil
	}
	a, b := l.newSlot(k), l.newSlot(k)
	la, lb := &Local{Index: a, K: k}, &Local{Index: b, K: k}
	// min: b < a ? b : a; max: b > a ? b : a (the interpreter keeps a on ties).
	op := Lt
	if name == "max" {
		op = Gt
	}
	return &Let{Index: a, Value: xs[0], Body: &Let{Index: b, Value: xs[1], Body: &If{
		Cond: &Bin{Op: op, K: k, A: lb, B: la, Site: -1}, Then: lb, Else: la, K: k,
	}}}
}

// match lowers a match over an integer or Bool subject whose patterns are
// literals, names and _.
func (l *lowerer) match(e *ast.Match) Expr {
	sk, ok := l.typeOf(e.Subject)
	if !ok {
		l.unsupported(e.Subject.ExprSpan(), "match on %s", l.typeFeature(e.Subject))
		return nil
	}
	rk, ok := l.typeOf(e)
	if !ok {
		l.unsupported(e.Form.Span(), "%s", l.typeFeature(e))
		return nil
	}
	subj := l.expect(e.Subject, sk)
	if subj == nil {
		return nil
	}
	tmp := l.newSlot(sk)
	sv := &Local{Index: tmp, K: sk}
	type arm struct {
		cond Expr // nil: always
		bind string
		body Expr
	}
	var arms []arm
	for _, a := range e.Arms {
		p := a.Pattern
		var ar arm
		switch p.Kind {
		case ast.PatWildcard:
		case ast.PatBind:
			ar.bind = p.Name.Text()
		case ast.PatLiteral:
			lit := l.literal(p.Lit, sk)
			if lit == nil {
				return nil
			}
			ar.cond = &Bin{Op: Eq, K: sk, A: sv, B: lit, Site: -1}
		default:
			l.unsupported(p.Span, "this pattern (only literals, names and _ over scalars)")
			return nil
		}
		mark := len(l.scope)
		if ar.bind != "" {
			l.scope = append(l.scope, binding{name: ar.bind, slot: tmp, k: sk})
		}
		ar.body = l.expect(a.Body, rk)
		l.scope = l.scope[:mark]
		if ar.body == nil {
			return nil
		}
		arms = append(arms, ar)
	}
	var tail Expr = &Trap{Site: l.site(&Site{Kind: SiteNoMatch, Span: e.Form.Span(), OpKind: sk}), Value: sv, K: rk}
	for i := len(arms) - 1; i >= 0; i-- {
		if arms[i].cond == nil {
			tail = arms[i].body
			continue
		}
		tail = &If{Cond: arms[i].cond, Then: arms[i].body, Else: tail, K: rk}
	}
	return &Let{Index: tmp, Value: subj, Body: tail}
}

func (l *lowerer) literal(e ast.Expr, k Kind) Expr {
	switch x := e.(type) {
	case *ast.IntLit:
		if !k.IsInt() {
			break
		}
		bits := x.Mag
		if x.Neg {
			bits = -bits
		}
		return &Const{K: k, Bits: Wrap(k, bits)}
	case *ast.BoolLit:
		if k != Bool {
			break
		}
		var b uint64
		if x.Value {
			b = 1
		}
		return &Const{K: Bool, Bits: b}
	}
	l.unsupported(e.ExprSpan(), "this literal pattern")
	return nil
}
