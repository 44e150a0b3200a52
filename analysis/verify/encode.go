package verify

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// unsupported is why an expression or type has no SMT encoding; an
// obligation that needs it stays open with this reason.
type unsupported struct{ reason string }

func (u *unsupported) Error() string { return u.reason }

func unsup(format string, args ...any) *unsupported {
	return &unsupported{reason: fmt.Sprintf(format, args...)}
}

// term is an encoded expression: its value v, the condition ok under
// which evaluating it does not fail (a zero divisor, a callee's requires
// or ensures that does not hold), and asm, facts known to hold about the
// uninterpreted values it introduces (the contracts of recursive callees,
// assumed at each call as the induction hypothesis). asm and ok are SMT
// Bool terms; "true" when trivial.
type term struct {
	v, ok, asm string
	// nat is, for a length (len of a Text or a list), its value as an
	// SMT Int in [0, 2^63), where v is its I64 bit-vector. Comparisons
	// of lengths use it: Z3 handles int2bv poorly, and both read the
	// same order there.
	nat string
}

func and(xs ...string) string {
	var keep []string
	for _, x := range xs {
		if x == "false" {
			return "false"
		}
		if x != "true" && x != "" {
			keep = append(keep, x)
		}
	}
	switch len(keep) {
	case 0:
		return "true"
	case 1:
		return keep[0]
	}
	return "(and " + strings.Join(keep, " ") + ")"
}

func implies(a, b string) string {
	if a == "true" {
		return b
	}
	if b == "true" {
		return "true"
	}
	return "(=> " + a + " " + b + ")"
}

func ite(c, a, b string) string {
	if a == b {
		return a
	}
	return "(ite " + c + " " + a + " " + b + ")"
}

// quote makes a name an SMT-LIB quoted symbol.
func quote(s string) string { return "|" + s + "|" }

// encoder encodes the functions of one checked module (and of the modules
// it imports) into SMT-LIB2. It accumulates the declarations a query
// needs (sorts, function definitions) in dependency order, each once.
type encoder struct {
	res   *check.Result
	funcs map[string]*ast.Function // local functions by name
	// mods is the module of every function the encoder may call (the
	// verified module's and its imports'); cur is the module whose
	// expressions are being encoded.
	mods map[*ast.Function]*modctx
	cur  *modctx
	// recursive holds the functions that can reach themselves.
	recursive map[*ast.Function]bool
	// lemmas are the examples of recursive functions that the interpreter
	// confirmed: facts asserted about their uninterpreted .rec function.
	lemmas map[*ast.Function][]*ast.Example
	// sigs holds each function's parameter and result types.
	sigs map[*ast.Function]sig
	// text holds the ground facts about the Text operations that are
	// uninterpreted functions (textops.go).
	text *textFacts
	// exact makes calls of recursive functions exact (define-funs-rec)
	// rather than modular: for ground queries (examples), which Z3
	// evaluates by unfolding.
	exact bool
	// defining is the recursive function whose exact definition is being
	// encoded, so that its own calls refer to it.
	defining *ast.Function
	// ints encodes the fixed-width integers as mathematical integers kept
	// in their type's range by explicit wrapping (mod 2^w), instead of as
	// bit-vectors: the same semantics, which Z3's arithmetic solvers
	// sometimes settle far faster (divisions and products of large
	// words). A query that runs out of time as bit-vectors is tried again
	// this way.
	ints bool
	// abstract lists the operations the query encodes as uninterpreted
	// functions with only some facts about them (upper, lower, trim): a
	// proof still holds, but a counterexample may be one of the
	// abstraction only, so it counts only when the interpreter confirms it.
	abstract []string
	// extraText are texts that get ground facts of the uninterpreted
	// operations besides the module's literals (refine).
	extraText []string

	out     strings.Builder
	emitted map[string]bool
	busy    map[string]bool
	// sortOwner is the declared type each datatype name stands for: two
	// types of the same name (from different modules) are not encoded.
	sortOwner map[string]types.Type
	fresh     int
}

func newEncoder(res *check.Result) *encoder {
	e := &encoder{res: res, funcs: map[string]*ast.Function{}, emitted: map[string]bool{}, busy: map[string]bool{}, lemmas: map[*ast.Function][]*ast.Example{}, sortOwner: map[string]types.Type{}}
	if res.File == nil || res.File.Module == nil {
		e.cur = &modctx{res: res, calls: map[int]*ast.Function{}}
		return e
	}
	e.cur, _, e.mods = modules(res)
	for _, d := range res.File.Module.Decls {
		if fn, ok := d.(*ast.Function); ok && fn.Name.Valid() {
			if _, dup := e.funcs[fn.Name.Name]; !dup {
				e.funcs[fn.Name.Name] = fn
			}
		}
	}
	e.recursive = e.findRecursive()
	return e
}

// callees returns the functions fn's requires, ensures and body call
// (not its examples, which call fn itself from outside), of its own
// module or imported ones.
func (e *encoder) callees(fn *ast.Function) []*ast.Function {
	var spans []syntax.Span
	for _, x := range fn.Requires {
		spans = append(spans, x.ExprSpan())
	}
	for _, x := range fn.Ensures {
		spans = append(spans, x.ExprSpan())
	}
	if fn.Body != nil {
		spans = append(spans, fn.Body.ExprSpan())
	}
	m := e.mods[fn]
	if m == nil {
		return nil
	}
	var out []*ast.Function
	seen := map[*ast.Function]bool{}
	for start, g := range m.calls {
		for _, sp := range spans {
			if start >= sp.Start && start < sp.End && !seen[g] {
				seen[g] = true
				out = append(out, g)
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return e.fname(out[i]) < e.fname(out[j]) })
	return out
}

func (e *encoder) findRecursive() map[*ast.Function]bool {
	graph := map[*ast.Function][]*ast.Function{}
	for fn := range e.mods {
		graph[fn] = e.callees(fn)
	}
	rec := map[*ast.Function]bool{}
	for fn := range e.mods {
		seen := map[*ast.Function]bool{}
		stack := append([]*ast.Function(nil), graph[fn]...)
		for len(stack) > 0 {
			g := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if g == fn {
				rec[fn] = true
				break
			}
			if !seen[g] {
				seen[g] = true
				stack = append(stack, graph[g]...)
			}
		}
	}
	return rec
}

// ---- sorts

// sort returns the SMT sort of t, declaring datatypes as needed.
func (e *encoder) sort(t types.Type) (string, error) {
	switch t := t.(type) {
	case *types.Basic:
		switch t.Kind {
		case types.Bool:
			return "Bool", nil
		case types.Text:
			return "String", nil
		case types.Unit:
			// The value of an effect intent (and of a body that ends in
			// one): a single value.
			if !e.emitted["sort Unit"] {
				e.emitted["sort Unit"] = true
				e.out.WriteString("(declare-datatypes ((|Unit| 0)) (((|unit|))))\n")
			}
			return "|Unit|", nil
		case types.I32, types.U32, types.I64, types.Int, types.U64, types.UntypedInt, types.Wei:
			if e.ints {
				return "Int", nil
			}
			bits, _, _ := intInfo(t)
			return fmt.Sprintf("(_ BitVec %d)", bits), nil
		}
		return "", unsup("%s values are not encoded for the solver", t)
	case *types.Enum:
		name := quote(t.Name)
		if err := e.own(t.Name, t); err != nil {
			return "", err
		}
		if !e.emitted["sort "+t.Name] {
			e.emitted["sort "+t.Name] = true
			var cs []string
			for _, m := range t.Members {
				cs = append(cs, "("+quote(t.Name+"."+m)+")")
			}
			fmt.Fprintf(&e.out, "(declare-datatypes ((%s 0)) ((%s)))\n", name, strings.Join(cs, " "))
		}
		return name, nil
	case *types.Record:
		name := quote(t.Name)
		if err := e.own(t.Name, t); err != nil {
			return "", err
		}
		if e.busy["sort "+t.Name] {
			return "", unsup("recursive type %s is not encoded", t.Name)
		}
		if !e.emitted["sort "+t.Name] {
			e.busy["sort "+t.Name] = true
			var fs []string
			for _, f := range t.Fields {
				s, err := e.sort(f.Type)
				if err != nil {
					delete(e.busy, "sort "+t.Name)
					return "", unsup("record %s: field %s: %s", t.Name, f.Name, err)
				}
				fs = append(fs, "("+quote(t.Name+"."+f.Name)+" "+s+")")
			}
			delete(e.busy, "sort "+t.Name)
			e.emitted["sort "+t.Name] = true
			fmt.Fprintf(&e.out, "(declare-datatypes ((%s 0)) (((%s %s))))\n", name, quote(t.Name+".mk"), strings.Join(fs, " "))
		}
		return name, nil
	case *types.Variant:
		name := quote(t.Name)
		if err := e.own(t.Name, t); err != nil {
			return "", err
		}
		if !e.emitted["sort "+t.Name] {
			var cs []string
			for _, c := range t.Cases {
				parts := []string{quote(t.Name + "." + c.Name)}
				for _, f := range c.Fields {
					s, err := e.sort(f.Type)
					if err != nil {
						return "", unsup("variant %s: case %s: %s", t.Name, c.Name, err)
					}
					parts = append(parts, "("+quote(t.Name+"."+c.Name+"."+f.Name)+" "+s+")")
				}
				cs = append(cs, "("+strings.Join(parts, " ")+")")
			}
			e.emitted["sort "+t.Name] = true
			fmt.Fprintf(&e.out, "(declare-datatypes ((%s 0)) ((%s)))\n", name, strings.Join(cs, " "))
		}
		return name, nil
	case *types.List:
		if t.Vector {
			return "", unsup("%s values are not encoded for the solver", types.Describe(t))
		}
		if e.ints && hasInt(t.Elem) {
			// A sequence's elements could not be kept in their type's
			// range without quantifiers: bit-vectors only.
			return "", unsup("lists of integers are encoded as bit-vectors only")
		}
		elem, err := e.sort(t.Elem)
		if err != nil {
			return "", err
		}
		return "(Seq " + elem + ")", nil
	case *types.Option:
		elem, err := e.sort(t.Elem)
		if err != nil {
			return "", err
		}
		if !e.emitted["sort Option"] {
			e.emitted["sort Option"] = true
			e.out.WriteString("(declare-datatypes ((Option 1)) ((par (T) ((none) (some (some.val T))))))\n")
		}
		return "(Option " + elem + ")", nil
	case *types.Result:
		ok, err := e.sort(t.Ok)
		if err != nil {
			return "", err
		}
		bad, err := e.sort(t.Err)
		if err != nil {
			return "", err
		}
		if !e.emitted["sort Result"] {
			e.emitted["sort Result"] = true
			e.out.WriteString("(declare-datatypes ((Result 2)) ((par (T E) ((ok (ok.val T)) (err (err.val E))))))\n")
		}
		return "(Result " + ok + " " + bad + ")", nil
	}
	return "", unsup("%s values are not encoded for the solver", types.Describe(t))
}

// own records that the datatype name stands for the declared type t; a
// second type of the same name (declared in another module) is not
// encoded, rather than confused with the first.
func (e *encoder) own(name string, t types.Type) error {
	if e.sortOwner == nil {
		e.sortOwner = map[string]types.Type{}
	}
	if prev, ok := e.sortOwner[name]; ok && prev != t {
		return unsup("two different types named %s (from different modules) are not encoded in one query", name)
	}
	e.sortOwner[name] = t
	return nil
}

// hasInt reports whether values of t hold integers.
func hasInt(t types.Type) bool {
	switch t := t.(type) {
	case *types.Basic:
		_, _, ok := intInfo(t)
		return ok
	case *types.Record:
		for _, f := range t.Fields {
			if hasInt(f.Type) {
				return true
			}
		}
	case *types.Variant:
		for _, c := range t.Cases {
			for _, f := range c.Fields {
				if hasInt(f.Type) {
					return true
				}
			}
		}
	case *types.Option:
		return hasInt(t.Elem)
	case *types.Result:
		return hasInt(t.Ok) || hasInt(t.Err)
	case *types.List:
		return hasInt(t.Elem)
	}
	return false
}

// ---- integers

// intInfo is the width and signedness of an integer type.
func intInfo(t types.Type) (bits int, signed bool, ok bool) {
	b, isBasic := t.(*types.Basic)
	if !isBasic {
		return 0, false, false
	}
	switch b.Kind {
	case types.I32:
		return 32, true, true
	case types.U32:
		return 32, false, true
	case types.I64, types.Int, types.UntypedInt:
		return 64, true, true
	case types.U64:
		return 64, false, true
	case types.Wei:
		return 256, false, true
	}
	return 0, false, false
}

// bvLit writes the integer n (any sign) as a bit-vector literal of width
// bits, in two's complement.
func bvLit(n *big.Int, bits int) string {
	m := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	v := new(big.Int).Mod(n, m)
	return fmt.Sprintf("(_ bv%s %d)", v.String(), bits)
}

func isText(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Kind == types.Text
}

// maxSolverChar is the largest character Z3's strings hold (Z3 4.8.12
// reads \u{...} escapes of at most five hex digits, up to U+2FFFF); a
// Text literal with a larger character is not encoded.
const maxSolverChar = 0x2FFFF

// smtText is smtString for a Text value the solver can hold: one whose
// every character is at most maxSolverChar.
func smtText(s string) (string, error) {
	for _, r := range s {
		if r > maxSolverChar {
			return "", unsup("text with the character U+%04X is not encoded: Z3's strings stop at U+2FFFF", r)
		}
	}
	return smtString(s), nil
}

// smtString writes s as an SMT-LIB string literal: printable ASCII as it
// is (a double quote doubled), every other character as \u{HEX}.
func smtString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`""`)
		case r >= 0x20 && r < 0x7f && r != '\\':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, `\u{%x}`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// lit writes the integer n as a value of integer type t: a bit-vector
// literal, or in integer mode the integer in t's range that n wraps to.
func (e *encoder) lit(n *big.Int, t types.Type) string {
	bits, signed, _ := intInfo(t)
	if !e.ints {
		return bvLit(n, bits)
	}
	m := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	v := new(big.Int).Mod(n, m)
	if signed && v.Bit(bits-1) == 1 {
		v.Sub(v, m)
	}
	if v.Sign() < 0 {
		return "(- " + new(big.Int).Neg(v).String() + ")"
	}
	return v.String()
}

// wrap brings an integer-mode term back into t's range, as the
// interpreter's arithmetic wraps at the type's width.
func wrap(x string, t types.Type) string {
	bits, signed, _ := intInfo(t)
	m := new(big.Int).Lsh(big.NewInt(1), uint(bits)).String()
	if !signed {
		return "(mod " + x + " " + m + ")"
	}
	h := new(big.Int).Lsh(big.NewInt(1), uint(bits-1)).String()
	return "(- (mod (+ " + x + " " + h + ") " + m + ") " + h + ")"
}

// inRange is the condition that an integer-mode value x of type t lies in
// the type's range (for the fields of records, options and variants too);
// "true" in bit-vector mode, where it always does.
func (e *encoder) inRange(x string, t types.Type) string {
	if !e.ints {
		return "true"
	}
	switch t := t.(type) {
	case *types.Basic:
		bits, signed, ok := intInfo(t)
		if !ok {
			return "true"
		}
		lo, hi := big.NewInt(0), new(big.Int).Lsh(big.NewInt(1), uint(bits))
		if signed {
			hi = new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
			lo = new(big.Int).Neg(hi)
		}
		return "(and (<= " + e.lit(lo, t) + " " + x + ") (< " + x + " " + hi.String() + "))"
	case *types.Record:
		var cs []string
		for _, f := range t.Fields {
			cs = append(cs, e.inRange("("+quote(t.Name+"."+f.Name)+" "+x+")", f.Type))
		}
		return and(cs...)
	case *types.Option:
		return implies("((_ is some) "+x+")", e.inRange("(some.val "+x+")", t.Elem))
	case *types.Result:
		return and(implies("((_ is ok) "+x+")", e.inRange("(ok.val "+x+")", t.Ok)), implies("((_ is err) "+x+")", e.inRange("(err.val "+x+")", t.Err)))
	case *types.Variant:
		var cs []string
		for _, c := range t.Cases {
			var fs []string
			for _, f := range c.Fields {
				fs = append(fs, e.inRange("("+quote(t.Name+"."+c.Name+"."+f.Name)+" "+x+")", f.Type))
			}
			if a := and(fs...); a != "true" {
				cs = append(cs, implies("((_ is "+quote(t.Name+"."+c.Name)+") "+x+")", a))
			}
		}
		return and(cs...)
	}
	return "true"
}

// ---- expressions

// svar is a name in scope: its SMT term and its type.
type svar struct {
	v string
	t types.Type
}

// scope maps the names an expression may read to SMT terms. Event payload
// fields are in it as "event.FIELD".
type scope map[string]svar

func (s scope) with(name string, v svar) scope {
	n := make(scope, len(s)+1)
	for k, x := range s {
		n[k] = x
	}
	n[name] = v
	return n
}

func (e *encoder) typeOf(x ast.Expr) types.Type {
	t := e.cur.res.Types.Type(x)
	if t == nil {
		return types.TInvalid
	}
	return t
}

func (e *encoder) expr(x ast.Expr, sc scope) (term, error) {
	switch x := x.(type) {
	case *ast.IntLit:
		if _, _, ok := intInfo(e.typeOf(x)); !ok {
			return term{}, unsup("integer literal of type %s", e.typeOf(x))
		}
		n, ok := new(big.Int).SetString(x.Text, 10)
		if !ok {
			n = new(big.Int).SetUint64(x.Mag)
			if x.Neg {
				n.Neg(n)
			}
		}
		return term{v: e.lit(n, e.typeOf(x)), ok: "true"}, nil
	case *ast.BoolLit:
		return term{v: strconv.FormatBool(x.Value), ok: "true"}, nil
	case *ast.NoneLit:
		s, err := e.sort(e.typeOf(x))
		if err != nil {
			return term{}, err
		}
		return term{v: "(as none " + s + ")", ok: "true"}, nil
	case *ast.StringLit:
		v, err := smtText(x.Value)
		if err != nil {
			return term{}, err
		}
		return term{v: v, ok: "true"}, nil
	case *ast.Duration:
		return term{}, unsup("Duration values are not encoded for the solver")
	case *ast.Name:
		return e.name(x, sc)
	case *ast.If:
		c, err := e.expr(x.Cond, sc)
		if err != nil {
			return term{}, err
		}
		a, err := e.expr(x.Then, sc)
		if err != nil {
			return term{}, err
		}
		b, err := e.expr(x.Else, sc)
		if err != nil {
			return term{}, err
		}
		return term{v: ite(c.v, a.v, b.v), ok: and(c.ok, ite(c.v, a.ok, b.ok)), asm: and(c.asm, a.asm, b.asm)}, nil
	case *ast.Let:
		// Each binding is bound to a fresh SMT name with let, so that the
		// value is shared, not copied into every use.
		var binds []string
		var oks, asms []string
		inner := sc
		for _, b := range x.Bindings {
			t, err := e.expr(b.Value, inner)
			if err != nil {
				return term{}, err
			}
			e.fresh++
			v := quote(fmt.Sprintf("%s!%d", b.Name.Name, e.fresh))
			binds = append(binds, "("+v+" "+t.v+")")
			oks = append(oks, wrapLets(binds[:len(binds)-1], t.ok))
			asms = append(asms, wrapLets(binds[:len(binds)-1], t.asm))
			inner = inner.with(b.Name.Name, svar{v, types.Default(e.typeOf(b.Value))})
		}
		body, err := e.expr(x.Body, inner)
		if err != nil {
			return term{}, err
		}
		oks = append(oks, wrapLets(binds, body.ok))
		asms = append(asms, wrapLets(binds, body.asm))
		return term{v: wrapLets(binds, body.v), ok: and(oks...), asm: and(asms...)}, nil
	case *ast.Do:
		var oks, asms []string
		var last term
		for _, s := range x.Exprs {
			t, err := e.expr(s, sc)
			if err != nil {
				return term{}, err
			}
			oks, asms, last = append(oks, t.ok), append(asms, t.asm), t
		}
		return term{v: last.v, ok: and(oks...), asm: and(asms...)}, nil
	case *ast.RecordLit:
		r, ok := e.typeOf(x).(*types.Record)
		if !ok {
			return term{}, unsup("record literal of type %s", types.Describe(e.typeOf(x)))
		}
		if _, err := e.sort(r); err != nil {
			return term{}, err
		}
		vals := make([]string, len(r.Fields))
		var oks, asms []string
		for _, f := range x.Fields {
			t, err := e.expr(f.Value, sc)
			if err != nil {
				return term{}, err
			}
			if i := r.FieldIndex(f.Name.Name); i >= 0 {
				vals[i] = t.v
			}
			oks, asms = append(oks, t.ok), append(asms, t.asm)
		}
		return term{v: "(" + quote(r.Name+".mk") + " " + strings.Join(vals, " ") + ")", ok: and(oks...), asm: and(asms...)}, nil
	case *ast.Match:
		return e.match(x, sc)
	case *ast.Call:
		return e.call(x, sc)
	}
	return term{}, unsup("expression %T is not encoded", x)
}

func wrapLets(binds []string, body string) string {
	if len(binds) == 0 || body == "true" || body == "" {
		if body == "" {
			return "true"
		}
		return body
	}
	for i := len(binds) - 1; i >= 0; i-- {
		body = "(let (" + binds[i] + ") " + body + ")"
	}
	return body
}

func (e *encoder) name(n *ast.Name, sc scope) (term, error) {
	first := n.Parts[0].Name
	if v, ok := sc[first]; ok {
		return e.fields(v, n.Parts[1:])
	}
	if first == "event" && len(n.Parts) > 1 {
		if v, ok := sc["event."+n.Parts[1].Name]; ok {
			return e.fields(v, n.Parts[2:])
		}
	}
	// Type.member: an enum member or a field-less variant case.
	t := e.typeOf(n)
	switch tt := t.(type) {
	case *types.Enum:
		if _, err := e.sort(tt); err != nil {
			return term{}, err
		}
		return term{v: quote(tt.Name + "." + n.Parts[len(n.Parts)-1].Name), ok: "true"}, nil
	case *types.Variant:
		if _, err := e.sort(tt); err != nil {
			return term{}, err
		}
		return term{v: quote(tt.Name + "." + n.Parts[len(n.Parts)-1].Name), ok: "true"}, nil
	}
	return term{}, unsup("name %s is not encoded", n.Text())
}

// fields applies .field selections to a variable.
func (e *encoder) fields(x svar, parts []ast.Ident) (term, error) {
	v, t := x.v, x.t
	for _, p := range parts {
		r, ok := t.(*types.Record)
		if !ok || r.Field(p.Name) == nil {
			return term{}, unsup("field %s of %s is not encoded", p.Name, types.Describe(t))
		}
		if _, err := e.sort(r); err != nil {
			return term{}, err
		}
		v, t = "("+quote(r.Name+"."+p.Name)+" "+v+")", r.Field(p.Name)
	}
	return term{v: v, ok: "true"}, nil
}

// ---- calls

func (e *encoder) args(xs []ast.Expr, sc scope) ([]term, error) {
	out := make([]term, len(xs))
	for i, a := range xs {
		t, err := e.expr(a, sc)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

func oksOf(ts []term) (string, string) {
	var oks, asms []string
	for _, t := range ts {
		oks, asms = append(oks, t.ok), append(asms, t.asm)
	}
	return and(oks...), and(asms...)
}

func (e *encoder) call(x *ast.Call, sc scope) (term, error) {
	name := x.Func.Text()
	if eff := catalog.LookupEffect(name); eff != nil {
		return e.intent(x, eff, sc)
	}
	switch name {
	case "+", "-", "*", "/", "%":
		return e.arith(x, name, sc)
	case "==", "!=", "<", "<=", ">", ">=":
		return e.compare(x, name, sc)
	case "and", "or":
		args, err := e.args(x.Args, sc)
		if err != nil {
			return term{}, err
		}
		// Short-circuit: an operand is evaluated only when the ones before
		// it did not decide the result.
		ok := "true"
		for i := len(args) - 1; i >= 0; i-- {
			if i == len(args)-1 {
				ok = args[i].ok
				continue
			}
			cont := args[i].v
			if name == "or" {
				cont = "(not " + args[i].v + ")"
			}
			ok = and(args[i].ok, implies(cont, ok))
		}
		var vs []string
		for _, a := range args {
			vs = append(vs, a.v)
		}
		_, asm := oksOf(args)
		v := "(" + name + " " + strings.Join(vs, " ") + ")"
		if len(vs) == 1 {
			v = vs[0]
		}
		return term{v: v, ok: ok, asm: asm}, nil
	case "not":
		a, err := e.expr(x.Args[0], sc)
		if err != nil {
			return term{}, err
		}
		return term{v: "(not " + a.v + ")", ok: a.ok, asm: a.asm}, nil
	case "upper", "lower", "trim":
		a, err := e.expr(x.Args[0], sc)
		if err != nil {
			return term{}, err
		}
		return e.textOp(name, a), nil
	case "list", "append":
		return e.list(x, name, sc)
	case "to-text":
		a, err := e.expr(x.Args[0], sc)
		if err != nil {
			return term{}, err
		}
		v, err := e.toText(a.v, types.Default(e.typeOf(x.Args[0])))
		if err != nil {
			return term{}, err
		}
		return term{v: v, ok: a.ok, asm: a.asm}, nil
	case "concat", "len", "contains", "starts-with", "ends-with":
		if (name == "len" || name == "contains") && isList(e.typeOf(x.Args[0])) {
			return e.list(x, name, sc)
		}
		if name != "concat" && !isText(e.typeOf(x.Args[0])) {
			return term{}, unsup("(%s ...) on %s is not encoded for the solver", name, types.Describe(e.typeOf(x.Args[0])))
		}
		args, err := e.args(x.Args, sc)
		if err != nil {
			return term{}, err
		}
		ok, asm := oksOf(args)
		var vs []string
		for _, a := range args {
			vs = append(vs, a.v)
		}
		var v string
		switch name {
		case "concat":
			switch len(vs) {
			case 0:
				v = `""`
			case 1:
				v = vs[0]
			default:
				v = "(str.++ " + strings.Join(vs, " ") + ")"
			}
		case "len": // code points, as the interpreter counts them
			v = "(str.len " + vs[0] + ")"
			// A Go string's length fits an int: I64's wrap never
			// applies.
			asm = and(asm, "(< "+v+" 9223372036854775808)")
			if !e.ints {
				return term{v: "((_ int2bv 64) " + v + ")", ok: ok, asm: asm, nat: v}, nil
			}
		case "contains":
			v = "(str.contains " + vs[0] + " " + vs[1] + ")"
		case "starts-with":
			v = "(str.prefixof " + vs[1] + " " + vs[0] + ")"
		case "ends-with":
			v = "(str.suffixof " + vs[1] + " " + vs[0] + ")"
		}
		return term{v: v, ok: ok, asm: asm}, nil
	case "some":
		a, err := e.expr(x.Args[0], sc)
		if err != nil {
			return term{}, err
		}
		s, err := e.sort(e.typeOf(x))
		if err != nil {
			return term{}, err
		}
		return term{v: "((as some " + s + ") " + a.v + ")", ok: a.ok, asm: a.asm}, nil
	case "ok", "err":
		a, err := e.expr(x.Args[0], sc)
		if err != nil {
			return term{}, err
		}
		so, err := e.sort(e.typeOf(x))
		if err != nil {
			return term{}, err
		}
		return term{v: "((as " + name + " " + so + ") " + a.v + ")", ok: a.ok, asm: a.asm}, nil
	case "is-ok", "is-err":
		a, err := e.expr(x.Args[0], sc)
		if err != nil {
			return term{}, err
		}
		if _, err := e.sort(e.typeOf(x.Args[0])); err != nil {
			return term{}, err
		}
		return term{v: "((_ is " + strings.TrimPrefix(name, "is-") + ") " + a.v + ")", ok: a.ok, asm: a.asm}, nil
	case "is-some", "is-none":
		a, err := e.expr(x.Args[0], sc)
		if err != nil {
			return term{}, err
		}
		if _, err := e.sort(e.typeOf(x.Args[0])); err != nil {
			return term{}, err
		}
		return term{v: "((_ is " + strings.TrimPrefix(name, "is-") + ") " + a.v + ")", ok: a.ok, asm: a.asm}, nil
	case "unwrap-or":
		args, err := e.args(x.Args, sc)
		if err != nil {
			return term{}, err
		}
		ok, asm := oksOf(args)
		return term{v: ite("((_ is some) "+args[0].v+")", "(some.val "+args[0].v+")", args[1].v), ok: ok, asm: asm}, nil
	case "abs":
		a, err := e.expr(x.Args[0], sc)
		if err != nil {
			return term{}, err
		}
		t := e.typeOf(x)
		_, signed, ok := intInfo(t)
		if !ok {
			return term{}, unsup("abs of %s", t)
		}
		if !signed {
			return a, nil
		}
		// abs(MIN) wraps to MIN, as bvneg does.
		if e.ints {
			return term{v: ite("(< "+a.v+" 0)", wrap("(- "+a.v+")", t), a.v), ok: a.ok, asm: a.asm}, nil
		}
		return term{v: ite("(bvslt "+a.v+" "+e.lit(big.NewInt(0), t)+")", "(bvneg "+a.v+")", a.v), ok: a.ok, asm: a.asm}, nil
	case "min", "max":
		args, err := e.args(x.Args, sc)
		if err != nil {
			return term{}, err
		}
		_, signed, ok := intInfo(e.typeOf(x))
		if !ok {
			return term{}, unsup("%s of %s", name, types.Describe(e.typeOf(x)))
		}
		lt := "bvult"
		switch {
		case e.ints:
			lt = "<"
		case signed:
			lt = "bvslt"
		}
		oks, asm := oksOf(args)
		// min returns the second only when it is smaller; max only when
		// it is larger (equal values are the same bits either way).
		v := ite("("+lt+" "+args[1].v+" "+args[0].v+")", args[1].v, args[0].v)
		if name == "max" {
			v = ite("("+lt+" "+args[0].v+" "+args[1].v+")", args[1].v, args[0].v)
		}
		return term{v: v, ok: oks, asm: asm}, nil
	}
	if fn := e.callee(x); fn != nil {
		return e.callFunction(x, fn, sc)
	}
	if v, ok := e.typeOf(x).(*types.Variant); ok {
		caseName := x.Func.Parts[len(x.Func.Parts)-1].Name
		if v.Case(caseName) != nil {
			if _, err := e.sort(v); err != nil {
				return term{}, err
			}
			args, err := e.args(x.Args, sc)
			if err != nil {
				return term{}, err
			}
			ok, asm := oksOf(args)
			var vs []string
			for _, a := range args {
				vs = append(vs, a.v)
			}
			return term{v: "(" + quote(v.Name+"."+caseName) + " " + strings.Join(vs, " ") + ")", ok: ok, asm: asm}, nil
		}
	}
	if strings.Contains(name, ".") {
		return term{}, unsup("(%s ...) is not encoded: calls into imported modules and effect intents are outside the solver's fragment", name)
	}
	return term{}, unsup("(%s ...) is not encoded for the solver", name)
}

// toText encodes (to-text x) for x of type t as the interpreter prints
// it: a Text as it is, true or false, an enum member's name, an integer
// in decimal with a leading - when negative.
func (e *encoder) toText(x string, t types.Type) (string, error) {
	switch tt := t.(type) {
	case *types.Basic:
		switch tt.Kind {
		case types.Text:
			return x, nil
		case types.Bool:
			return "(ite " + x + ` "true" "false")`, nil
		}
		bits, signed, ok := intInfo(tt)
		if !ok {
			break
		}
		if e.ints {
			return "(ite (< " + x + ` 0) (str.++ "-" (str.from_int (- ` + x + "))) (str.from_int " + x + "))", nil
		}
		if !signed {
			return "(str.from_int (bv2nat " + x + "))", nil
		}
		// The smallest value negates to itself, whose unsigned value is
		// its magnitude.
		return "(ite (bvslt " + x + " " + bvLit(big.NewInt(0), bits) + `) (str.++ "-" (str.from_int (bv2nat (bvneg ` + x + ")))) (str.from_int (bv2nat " + x + ")))", nil
	case *types.Enum:
		if _, err := e.sort(tt); err != nil {
			return "", err
		}
		if len(tt.Members) == 0 {
			break
		}
		v := smtString(tt.Members[len(tt.Members)-1])
		for i := len(tt.Members) - 2; i >= 0; i-- {
			v = "(ite (= " + x + " " + quote(tt.Name+"."+tt.Members[i]) + ") " + smtString(tt.Members[i]) + " " + v + ")"
		}
		return v, nil
	}
	return "", unsup("(to-text ...) of %s is not encoded for the solver", types.Describe(t))
}

func isList(t types.Type) bool {
	l, ok := types.Default(t).(*types.List)
	return ok && !l.Vector
}

// list encodes the list operations over Z3 sequences: (list ...), len,
// contains (membership of an element, compared with ==) and append.
func (e *encoder) list(x *ast.Call, name string, sc scope) (term, error) {
	args, err := e.args(x.Args, sc)
	if err != nil {
		return term{}, err
	}
	ok, asm := oksOf(args)
	switch name {
	case "list":
		so, err := e.sort(e.typeOf(x))
		if err != nil {
			return term{}, err
		}
		var units []string
		for _, a := range args {
			units = append(units, "(seq.unit "+a.v+")")
		}
		switch len(units) {
		case 0:
			return term{v: "(as seq.empty " + so + ")", ok: ok, asm: asm}, nil
		case 1:
			return term{v: units[0], ok: ok, asm: asm}, nil
		}
		return term{v: "(seq.++ " + strings.Join(units, " ") + ")", ok: ok, asm: asm}, nil
	}
	if _, err := e.sort(types.Default(e.typeOf(x.Args[0]))); err != nil {
		return term{}, err
	}
	switch name {
	case "len":
		v := "(seq.len " + args[0].v + ")"
		asm = and(asm, "(< "+v+" 9223372036854775808)") // a Go slice's length fits an int
		if !e.ints {
			return term{v: "((_ int2bv 64) " + v + ")", ok: ok, asm: asm, nat: v}, nil
		}
		return term{v: v, ok: ok, asm: asm}, nil
	case "contains":
		return term{v: "(seq.contains " + args[0].v + " (seq.unit " + args[1].v + "))", ok: ok, asm: asm}, nil
	case "append":
		return term{v: "(seq.++ " + args[0].v + " (seq.unit " + args[1].v + "))", ok: ok, asm: asm}, nil
	}
	return term{}, unsup("(%s ...) on lists is not encoded for the solver", name)
}

// intent encodes an effect intent in a function body. The interpreter
// evaluates its payload arguments in order and records the intent as
// data (the host decides whether the effect happens), returning unit:
// so it fails exactly when a payload argument fails. Its targets are
// names, never evaluated; they are told from the payload as the
// interpreter does (a name bound in the body is a payload value).
func (e *encoder) intent(x *ast.Call, eff *catalog.Effect, sc scope) (term, error) {
	ntargets := 0
	if eff.Target != "none" {
		ntargets = 1
		if eff.ExtraTargets != "" {
			ntargets = 2
		}
	}
	args := x.Args
	for targets := 0; targets < ntargets && len(args) > 0; targets++ {
		n, ok := args[0].(*ast.Name)
		if !ok {
			break
		}
		if _, local := sc[n.Parts[0].Name]; local && (eff.OptionalTarget || targets > 0) {
			break
		}
		args = args[1:]
	}
	var oks, asms []string
	for _, a := range args {
		if e.total(a) {
			continue // it cannot fail, and its value is not needed
		}
		t, err := e.expr(a, sc)
		if err != nil {
			return term{}, unsup("payload of (%s ...): %s", eff.Name, err)
		}
		oks, asms = append(oks, t.ok), append(asms, t.asm)
	}
	if _, err := e.sort(types.TUnit); err != nil {
		return term{}, err
	}
	return term{v: "|unit|", ok: and(oks...), asm: and(asms...)}, nil
}

func (e *encoder) arith(x *ast.Call, op string, sc scope) (term, error) {
	t := e.typeOf(x)
	_, signed, ok := intInfo(t)
	if !ok {
		return term{}, unsup("arithmetic on %s", types.Describe(t))
	}
	args, err := e.args(x.Args, sc)
	if err != nil {
		return term{}, err
	}
	a, b := args[0], args[1]
	oks, asm := oksOf(args)
	if op == "/" || op == "%" {
		// A zero divisor fails in the interpreter.
		oks = and(oks, "(not (= "+b.v+" "+e.lit(big.NewInt(0), t)+"))")
	}
	if e.ints {
		var v string
		switch {
		case op == "+" || op == "-" || op == "*":
			v = wrap("("+op+" "+a.v+" "+b.v+")", t)
		case !signed && op == "/":
			v = "(div " + a.v + " " + b.v + ")"
		case !signed:
			v = "(mod " + a.v + " " + b.v + ")"
		default:
			// Truncating division from SMT-LIB's Euclidean div; the
			// remainder takes the dividend's sign. MIN / -1 wraps to MIN.
			q := ite("(>= "+a.v+" 0)", "(div "+a.v+" "+b.v+")", "(- (div (- "+a.v+") "+b.v+"))")
			if op == "/" {
				v = wrap(q, t)
			} else {
				v = wrap("(- "+a.v+" (* "+b.v+" "+q+"))", t)
			}
		}
		return term{v: v, ok: oks, asm: asm}, nil
	}
	var fn string
	switch op {
	case "+":
		fn = "bvadd"
	case "-":
		fn = "bvsub"
	case "*":
		fn = "bvmul"
	case "/":
		fn = "bvudiv"
		if signed {
			fn = "bvsdiv" // truncates toward zero; MIN / -1 wraps to MIN
		}
	case "%":
		fn = "bvurem"
		if signed {
			fn = "bvsrem" // the sign of the dividend; MIN % -1 is 0
		}
	}
	return term{v: "(" + fn + " " + a.v + " " + b.v + ")", ok: oks, asm: asm}, nil
}

func (e *encoder) compare(x *ast.Call, op string, sc scope) (term, error) {
	args, err := e.args(x.Args, sc)
	if err != nil {
		return term{}, err
	}
	a, b := args[0], args[1]
	oks, asm := oksOf(args)
	switch op {
	case "==":
		if _, err := e.sort(types.Default(e.typeOf(x.Args[0]))); err != nil {
			return term{}, err
		}
		an, aok := natOf(x.Args[0], a)
		bn, bok := natOf(x.Args[1], b)
		if !e.ints && aok && bok && (a.nat != "" || b.nat != "") {
			return term{v: "(= " + an + " " + bn + ")", ok: oks, asm: asm}, nil
		}
		return term{v: "(= " + a.v + " " + b.v + ")", ok: oks, asm: asm}, nil
	case "!=":
		if _, err := e.sort(types.Default(e.typeOf(x.Args[0]))); err != nil {
			return term{}, err
		}
		return term{v: "(not (= " + a.v + " " + b.v + "))", ok: oks, asm: asm}, nil
	}
	t := types.Default(e.typeOf(x.Args[0]))
	_, signed, ok := intInfo(t)
	if !ok {
		return term{}, unsup("ordering of %s values is not encoded", types.Describe(t))
	}
	if e.ints {
		return term{v: "(" + op + " " + a.v + " " + b.v + ")", ok: oks, asm: asm}, nil
	}
	if bits, signed, _ := intInfo(t); bits == 64 && signed {
		// A length compared with a length or a literal: over the
		// integers, where both have the same signed value.
		an, aok := natOf(x.Args[0], a)
		bn, bok := natOf(x.Args[1], b)
		if aok && bok && (a.nat != "" || b.nat != "") {
			return term{v: "(" + op + " " + an + " " + bn + ")", ok: oks, asm: asm}, nil
		}
	}
	p := "bvu"
	if signed {
		p = "bvs"
	}
	fn := map[string]string{"<": "lt", "<=": "le", ">": "gt", ">=": "ge"}[op]
	return term{v: "(" + p + fn + " " + a.v + " " + b.v + ")", ok: oks, asm: asm}, nil
}

// natOf returns the integer value of an I64 operand when it is a length
// (t.nat) or an integer literal.
func natOf(x ast.Expr, t term) (string, bool) {
	if t.nat != "" {
		return t.nat, true
	}
	il, ok := x.(*ast.IntLit)
	if !ok {
		return "", false
	}
	n, ok := new(big.Int).SetString(il.Text, 10)
	if !ok {
		n = new(big.Int).SetUint64(il.Mag)
		if il.Neg {
			n.Neg(n)
		}
	}
	if n.BitLen() > 63 {
		return "", false // wraps: leave it to the bit-vectors
	}
	if n.Sign() < 0 {
		return "(- " + new(big.Int).Neg(n).String() + ")", true
	}
	return n.String(), true
}

// ---- match

func (e *encoder) match(x *ast.Match, sc scope) (term, error) {
	subj, err := e.expr(x.Subject, sc)
	if err != nil {
		return term{}, err
	}
	st := types.Default(e.typeOf(x.Subject))
	if _, err := e.sort(st); err != nil {
		return term{}, err
	}
	e.fresh++
	sv := quote(fmt.Sprintf("match!%d", e.fresh))
	// Arms are tried in order; a subject no arm matches is a runtime
	// error (the checker does not require exhaustive matches).
	type arm struct{ cond, v, ok, asm string }
	var arms []arm
	for _, a := range x.Arms {
		cond, binds, err := e.pattern(a.Pattern, sv, st)
		if err != nil {
			return term{}, err
		}
		inner := sc
		for name, b := range binds {
			inner = inner.with(name, b)
		}
		body, err := e.expr(a.Body, inner)
		if err != nil {
			return term{}, err
		}
		arms = append(arms, arm{cond, body.v, body.ok, body.asm})
	}
	if len(arms) == 0 {
		return term{}, unsup("match without arms")
	}
	v, ok := arms[len(arms)-1].v, ite(arms[len(arms)-1].cond, arms[len(arms)-1].ok, "false")
	var asms []string
	for i := len(arms) - 1; i >= 0; i-- {
		asms = append(asms, arms[i].asm)
		if i == len(arms)-1 {
			continue
		}
		v = ite(arms[i].cond, arms[i].v, v)
		ok = ite(arms[i].cond, arms[i].ok, ok)
	}
	bind := "(" + sv + " " + subj.v + ")"
	return term{v: wrapLets([]string{bind}, v), ok: and(subj.ok, wrapLets([]string{bind}, ok)), asm: and(subj.asm, wrapLets([]string{bind}, and(asms...)))}, nil
}

// pattern returns the condition under which the value sv of type t matches
// p, and the SMT terms of the names it binds.
func (e *encoder) pattern(p *ast.Pattern, sv string, t types.Type) (string, map[string]svar, error) {
	binds := map[string]svar{}
	switch p.Kind {
	case ast.PatWildcard:
		return "true", binds, nil
	case ast.PatBind:
		binds[p.Name.Parts[0].Name] = svar{sv, t}
		return "true", binds, nil
	case ast.PatLiteral:
		lit, err := e.expr(p.Lit, scope{})
		if err != nil {
			return "", nil, err
		}
		if _, _, ok := intInfo(t); ok {
			if il, ok := p.Lit.(*ast.IntLit); ok {
				n, _ := new(big.Int).SetString(il.Text, 10)
				if n != nil {
					lit.v = e.lit(n, t)
				}
			}
		}
		return "(= " + sv + " " + lit.v + ")", binds, nil
	case ast.PatNone:
		return "((_ is none) " + sv + ")", binds, nil
	case ast.PatMember:
		switch tt := t.(type) {
		case *types.Enum:
			return "(= " + sv + " " + quote(tt.Name+"."+p.Name.Parts[len(p.Name.Parts)-1].Name) + ")", binds, nil
		case *types.Variant:
			return "((_ is " + quote(tt.Name+"."+p.Name.Parts[len(p.Name.Parts)-1].Name) + ") " + sv + ")", binds, nil
		}
	case ast.PatCtor:
		name := p.Name.Text()
		if r, ok := t.(*types.Result); ok && (name == "ok" || name == "err") && len(p.Args) == 1 {
			et := r.Ok
			if name == "err" {
				et = r.Err
			}
			c, b, err := e.pattern(p.Args[0], "("+name+".val "+sv+")", et)
			if err != nil {
				return "", nil, err
			}
			return and("((_ is "+name+") "+sv+")", c), b, nil
		}
		if name == "some" {
			o, ok := t.(*types.Option)
			if !ok || len(p.Args) != 1 {
				break
			}
			c, b, err := e.pattern(p.Args[0], "(some.val "+sv+")", o.Elem)
			if err != nil {
				return "", nil, err
			}
			return and("((_ is some) "+sv+")", c), b, nil
		}
		v, ok := t.(*types.Variant)
		if !ok {
			break
		}
		caseName := p.Name.Parts[len(p.Name.Parts)-1].Name
		cs := v.Case(caseName)
		if cs == nil || len(cs.Fields) != len(p.Args) {
			break
		}
		conds := []string{"((_ is " + quote(v.Name+"."+caseName) + ") " + sv + ")"}
		for i, a := range p.Args {
			c, b, err := e.pattern(a, "("+quote(v.Name+"."+caseName+"."+cs.Fields[i].Name)+" "+sv+")", cs.Fields[i].Type)
			if err != nil {
				return "", nil, err
			}
			conds = append(conds, c)
			for k, x := range b {
				binds[k] = x
			}
		}
		return and(conds...), binds, nil
	}
	return "", nil, unsup("pattern %s is not encoded", p.Name.Text())
}

// total reports whether evaluating x can never fail, whatever the values
// of the names it reads: it has no division or remainder, no match (which
// fails when no arm matches), no call of a function (whose requires,
// ensures or body may fail) and no effect intent. Such expressions need
// no encoding: their no-failure obligations hold by construction, also
// over values the solver does not see (Text, lists).
func (e *encoder) total(x ast.Expr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *ast.IntLit, *ast.BoolLit, *ast.NoneLit, *ast.StringLit, *ast.Duration, *ast.Name:
		return true
	case *ast.If:
		return e.total(x.Cond) && e.total(x.Then) && e.total(x.Else)
	case *ast.Let:
		for _, b := range x.Bindings {
			if !e.total(b.Value) {
				return false
			}
		}
		return e.total(x.Body)
	case *ast.Do:
		for _, y := range x.Exprs {
			if !e.total(y) {
				return false
			}
		}
		return true
	case *ast.RecordLit:
		for _, f := range x.Fields {
			if !e.total(f.Value) {
				return false
			}
		}
		return true
	case *ast.Call:
		for _, a := range x.Args {
			if !e.total(a) {
				return false
			}
		}
		name := x.Func.Text()
		switch name {
		case "/", "%":
			return false
		}
		if interp.IsBuiltin(name) {
			return true
		}
		if catalog.LookupEffect(name) != nil {
			return true // an effect intent fails only if its payload does
		}
		if e.callee(x) != nil {
			return false
		}
		if v, ok := e.typeOf(x).(*types.Variant); ok && v.Case(x.Func.Parts[len(x.Func.Parts)-1].Name) != nil {
			return true
		}
	}
	return false
}
