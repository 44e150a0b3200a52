// Package noir plans and emits Noir circuits for a module's zk-proof
// declarations (spec §16, the zk.noir profile), and evaluates their claims
// with the interpreter.
//
// A zk-proof names public and private inputs and a claim, (proves EXPR).
// The circuit proves that private values exist which, with the public
// ones, make the claim true: main takes every input (public ones marked
// pub) and asserts the claim. Lowering is exact or refused:
//
//   - inputs of type Bool, I32, I64/Int, U32 and U64 become bool, i32, i64,
//     u32 and u64; Bytes32 becomes [u8; 32] (compared with == and !=
//     only); any other type refuses the proof, with the reason;
//   - + - * use Noir's wrapping operations, so they wrap at the type's
//     width as the interpreter's do; a zero divisor fails the circuit as
//     it traps the interpreter; signed MIN / -1 is guarded to give MIN (and
//     MIN % -1 to give 0), which Noir's own division would reject;
//   - and, or and if become Noir if-expressions, so that an operand the
//     interpreter does not evaluate cannot fail the circuit.
//
// The circuit is satisfied exactly when the interpreter evaluates the
// claim to true without an error; the differential test checks this
// against the real Noir compiler and ACVM.
package noir

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Backends are the zk-proof backends the toolchain knows; only noir
// lowers.
var Backends = []string{"noir"}

// Input is a public or private input of a proof.
type Input struct {
	Name   string
	Type   types.Type // nil when the type is not a built-in scalar
	Source string     // the type as written
	Public bool
	Span   syntax.Span
}

// Reason explains why a proof does not lower to Noir.
type Reason struct {
	Message string
	Span    syntax.Span
}

// Proof is a zk-proof declaration and its Noir plan.
type Proof struct {
	Name      string
	Decl      *ast.ClauseDecl
	Backend   string
	Public    []Input
	Private   []Input
	Claim     ast.Expr // nil without a proves clause
	ClaimText string
	ClaimSpan syntax.Span
	// Lowers is true when the proof lowers to Noir; Reasons say why not.
	Lowers  bool
	Reasons []Reason
	// Main is the Noir source of src/main.nr when Lowers; Body is the
	// claim as a Noir expression, which Main asserts.
	Main string
	Body string
	// types of the claim's sub-expressions (literals take their
	// context's type, as the checker types them).
	types map[ast.Expr]types.Type
	res   *check.Result
}

// Inputs returns the public inputs, then the private ones: main's
// parameter order.
func (p *Proof) Inputs() []Input { return append(append([]Input{}, p.Public...), p.Private...) }

// Plan lists the module's zk-proofs in source order.
func Plan(res *check.Result) []*Proof {
	var out []*Proof
	if res.File == nil || res.File.Module == nil {
		return nil
	}
	src := res.File.Source
	for _, d := range res.File.Module.Decls {
		cd, ok := d.(*ast.ClauseDecl)
		if !ok || cd.DeclKind != ast.KindZKProof {
			continue
		}
		out = append(out, planOne(res, src, cd))
	}
	return out
}

// Find returns the named proof, or nil.
func Find(ps []*Proof, name string) *Proof {
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Names lists the proofs' names.
func Names(ps []*Proof) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func planOne(res *check.Result, src *syntax.Source, cd *ast.ClauseDecl) *Proof {
	p := &Proof{Name: cd.Name.Name, Decl: cd, types: map[ast.Expr]types.Type{}, res: res}
	reason := func(sp syntax.Span, format string, args ...any) {
		p.Reasons = append(p.Reasons, Reason{Message: fmt.Sprintf(format, args...), Span: sp})
	}
	for _, cl := range cd.Clauses {
		switch cl.Key.Name {
		case "backend":
			if len(cl.Args) == 1 {
				p.Backend = cl.Args[0].Text()
			}
		case "public", "private":
			for _, a := range cl.Args {
				if a.Kind != syntax.FormList || len(a.Items()) != 2 || a.Items()[0].Kind != syntax.FormSymbol {
					continue
				}
				in := Input{Name: a.Items()[0].Text(), Public: cl.Key.Name == "public", Span: a.Span()}
				tf := a.Items()[1]
				in.Source = strings.Join(strings.Fields(string(src.CST.Src[tf.Span().Start:tf.Span().End])), " ")
				if tf.Kind == syntax.FormSymbol {
					in.Type = types.Builtins[tf.Text()]
				}
				if in.Public {
					p.Public = append(p.Public, in)
				} else {
					p.Private = append(p.Private, in)
				}
			}
		case "proves":
			if len(cl.Args) == 1 {
				e, diags := ast.BuildExprForm(src, cl.Args[0])
				if len(diags) == 0 {
					p.Claim = e
				}
				p.ClaimSpan = cl.Args[0].Span()
				p.ClaimText = strings.Join(strings.Fields(string(src.CST.Src[p.ClaimSpan.Start:p.ClaimSpan.End])), " ")
			}
		}
	}
	if p.Backend != "noir" {
		reason(cd.Name.Span, "the backend is %q; only noir lowers to a Noir circuit", p.Backend)
	}
	seen := map[string]bool{}
	for _, in := range p.Inputs() {
		if seen[in.Name] {
			reason(in.Span, "the input %s is declared twice", in.Name)
		}
		seen[in.Name] = true
		if noirType(in.Type) == "" {
			reason(in.Span, "the input %s has type %s, which has no circuit encoding here (Bool, I32, I64, Int, U32, U64 and Bytes32 do)", in.Name, in.Source)
		}
	}
	if p.Claim == nil {
		reason(cd.Name.Span, "the proof has no (proves EXPR) claim")
	}
	if len(p.Reasons) > 0 {
		return p
	}
	env := map[string]types.Type{}
	for _, in := range p.Inputs() {
		env[in.Name] = in.Type
	}
	l := &lowerer{p: p, env: env}
	t := l.infer(p.Claim, nil)
	if len(p.Reasons) == 0 && !isBool(t) {
		reason(p.ClaimSpan, "the claim has type %s; proves needs a Bool", typeName(t))
	}
	if len(p.Reasons) > 0 {
		return p
	}
	body := l.expr(p.Claim)
	if len(p.Reasons) > 0 {
		return p
	}
	p.Lowers = true
	p.Body = body
	p.Main = mainSource(p, body)
	return p
}

func isBool(t types.Type) bool { b, ok := t.(*types.Basic); return ok && b.Kind == types.Bool }

func typeName(t types.Type) string {
	if t == nil {
		return "unknown"
	}
	return t.String()
}

// noirType is the Noir type of a Capsulang type, or "".
func noirType(t types.Type) string {
	b, ok := t.(*types.Basic)
	if !ok {
		return ""
	}
	switch b.Kind {
	case types.Bool:
		return "bool"
	case types.I32:
		return "i32"
	case types.I64, types.Int:
		return "i64"
	case types.U32:
		return "u32"
	case types.U64:
		return "u64"
	case types.Bytes32:
		return "[u8; 32]"
	}
	return ""
}

func isInt(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && (b.Kind == types.I32 || b.Kind == types.I64 || b.Kind == types.Int || b.Kind == types.U32 || b.Kind == types.U64)
}

func isSigned(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && (b.Kind == types.I32 || b.Kind == types.I64 || b.Kind == types.Int)
}

func sameType(a, b types.Type) bool {
	if a == nil || b == nil {
		return false
	}
	canon := func(t types.Type) string {
		if t.String() == "Int" {
			return "I64"
		}
		return t.String()
	}
	return canon(a) == canon(b)
}

type lowerer struct {
	p   *Proof
	env map[string]types.Type
}

func (l *lowerer) fail(sp syntax.Span, format string, args ...any) types.Type {
	l.p.Reasons = append(l.p.Reasons, Reason{Message: fmt.Sprintf(format, args...), Span: sp})
	return nil
}

var arith = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true}
var compare = map[string]bool{"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

// infer types e; want is the type the context expects (for literals), or
// nil. It records every sub-expression's type.
func (l *lowerer) infer(e ast.Expr, want types.Type) types.Type {
	t := l.infer1(e, want)
	if t != nil {
		l.p.types[e] = t
	}
	return t
}

// literalOnly reports whether e's type comes from its context.
func literalOnly(e ast.Expr) bool {
	_, ok := e.(*ast.IntLit)
	return ok
}

func (l *lowerer) infer1(e ast.Expr, want types.Type) types.Type {
	switch e := e.(type) {
	case *ast.BoolLit:
		return types.TBool
	case *ast.IntLit:
		t := want
		if !isInt(t) {
			t = types.TInt
		}
		if _, err := value.ParseInt(e.Text, t); err != nil || e.Overflow {
			return l.fail(e.Span, "the literal %s does not fit in %s", e.Text, t)
		}
		return t
	case *ast.Name:
		if len(e.Parts) == 1 {
			if t, ok := l.env[e.Parts[0].Name]; ok {
				return t
			}
		}
		return l.fail(e.Span(), "%s is not an input of the proof", e.Text())
	case *ast.If:
		if c := l.infer(e.Cond, types.TBool); c != nil && !isBool(c) {
			return l.fail(e.Cond.ExprSpan(), "an if condition of type %s", c)
		}
		a, b := l.pair(e.Then, e.Else, want)
		if a == nil || b == nil {
			return nil
		}
		return a
	case *ast.Call:
		name := e.Func.Text()
		switch {
		case arith[name] || compare[name]:
			if len(e.Args) != 2 {
				return l.fail(e.Form.Span(), "(%s ...) with %d operands", name, len(e.Args))
			}
			var ctx types.Type
			if arith[name] {
				ctx = want
			}
			a, b := l.pair(e.Args[0], e.Args[1], ctx)
			if a == nil || b == nil {
				return nil
			}
			if arith[name] {
				if !isInt(a) {
					return l.fail(e.Form.Span(), "(%s ...) on %s", name, a)
				}
				return a
			}
			if !isInt(a) && !(name == "==" || name == "!=") {
				return l.fail(e.Form.Span(), "(%s ...) on %s; only integers are ordered", name, a)
			}
			return types.TBool
		case name == "and" || name == "or":
			if len(e.Args) < 2 {
				return l.fail(e.Form.Span(), "(%s ...) with fewer than 2 operands", name)
			}
			for _, a := range e.Args {
				if t := l.infer(a, types.TBool); t == nil {
					return nil
				} else if !isBool(t) {
					return l.fail(a.ExprSpan(), "an operand of %s of type %s", name, t)
				}
			}
			return types.TBool
		case name == "not":
			if len(e.Args) != 1 {
				return l.fail(e.Form.Span(), "(not ...) takes one operand")
			}
			if t := l.infer(e.Args[0], types.TBool); t == nil || !isBool(t) {
				return l.fail(e.Args[0].ExprSpan(), "not needs a Bool")
			}
			return types.TBool
		}
		return l.fail(e.Form.Span(), "(%s ...) does not lower to Noir (the circuit subset is literals, inputs, if, and, or, not, + - * / %% and comparisons)", name)
	}
	return l.fail(e.ExprSpan(), "this expression does not lower to Noir (the circuit subset is literals, inputs, if, and, or, not, + - * / %% and comparisons)")
}

// pair types two operands that must have the same type; a literal takes
// the other operand's type.
func (l *lowerer) pair(a, b ast.Expr, want types.Type) (types.Type, types.Type) {
	var ta, tb types.Type
	switch {
	case literalOnly(a) && !literalOnly(b):
		tb = l.infer(b, want)
		ta = l.infer(a, tb)
	default:
		ta = l.infer(a, want)
		ctx := ta
		if literalOnly(a) && literalOnly(b) {
			ctx = want
		}
		tb = l.infer(b, ctx)
	}
	if ta == nil || tb == nil {
		return nil, nil
	}
	if !sameType(ta, tb) {
		l.fail(b.ExprSpan(), "operands of types %s and %s", ta, tb)
		return nil, nil
	}
	return ta, tb
}

// expr writes e in Noir.
func (l *lowerer) expr(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BoolLit:
		return strconv.FormatBool(e.Value)
	case *ast.IntLit:
		t := l.p.types[e]
		v, _ := value.ParseInt(e.Text, t)
		return literal(t, v)
	case *ast.Name:
		return e.Parts[0].Name
	case *ast.If:
		return fmt.Sprintf("(if %s { %s } else { %s })", l.expr(e.Cond), l.expr(e.Then), l.expr(e.Else))
	case *ast.Call:
		name := e.Func.Text()
		switch name {
		case "and", "or":
			acc := l.expr(e.Args[len(e.Args)-1])
			for i := len(e.Args) - 2; i >= 0; i-- {
				if name == "and" {
					acc = fmt.Sprintf("(if %s { %s } else { false })", l.expr(e.Args[i]), acc)
				} else {
					acc = fmt.Sprintf("(if %s { true } else { %s })", l.expr(e.Args[i]), acc)
				}
			}
			return acc
		case "not":
			return "(!" + l.expr(e.Args[0]) + ")"
		}
		a, b := l.expr(e.Args[0]), l.expr(e.Args[1])
		t := l.p.types[e.Args[0]]
		switch name {
		case "+":
			return fmt.Sprintf("%s.wrapping_add(%s)", paren(a), b)
		case "-":
			return fmt.Sprintf("%s.wrapping_sub(%s)", paren(a), b)
		case "*":
			return fmt.Sprintf("%s.wrapping_mul(%s)", paren(a), b)
		case "/", "%":
			if !isSigned(t) {
				return fmt.Sprintf("(%s %s %s)", a, name, b)
			}
			nt := noirType(t)
			// Noir rejects MIN / -1; the interpreter wraps to MIN, and
			// MIN % -1 is 0.
			alt := fmt.Sprintf("(0 as %s).wrapping_sub(%s)", nt, a)
			if name == "%" {
				alt = fmt.Sprintf("(0 as %s)", nt)
			}
			return fmt.Sprintf("(if (%s == { let v: %s = -1; v }) { %s } else { %s %s %s })", b, nt, alt, a, name, b)
		}
		return fmt.Sprintf("(%s %s %s)", a, name, b)
	}
	panic(fmt.Sprintf("noir: unexpected %T", e))
}

// paren wraps an operand that is more than a name for a method call.
func paren(s string) string {
	for _, r := range s {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "(" + s + ")"
		}
	}
	return s
}

// literal writes an integer of type t. Negative literals go through a
// typed binding: Noir's (-5 as i64) negates a Field first and then
// truncates it, which is not -5.
func literal(t types.Type, v value.Value) string {
	nt := noirType(t)
	if isSigned(t) {
		n := int64(v.Bits())
		if isI32(t) {
			n = int64(int32(v.Bits()))
		}
		if n < 0 {
			return fmt.Sprintf("{ let v: %s = %d; v }", nt, n)
		}
		return fmt.Sprintf("(%d as %s)", n, nt)
	}
	return fmt.Sprintf("(%d as %s)", v.Bits(), nt)
}

func isI32(t types.Type) bool { b, ok := t.(*types.Basic); return ok && b.Kind == types.I32 }

func mainSource(p *Proof, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Generated by caps emit-noir from zk-proof %s.\n", p.Name)
	fmt.Fprintf(&b, "// Claim: %s\n", p.ClaimText)
	b.WriteString("// + - * wrap at the type's width as Capsulang's do; and, or and if\n")
	b.WriteString("// evaluate only the operands Capsulang evaluates.\n")
	b.WriteString("use std::ops::{WrappingAdd, WrappingMul, WrappingSub};\n\n")
	var params []string
	for _, in := range p.Inputs() {
		pub := ""
		if in.Public {
			pub = "pub "
		}
		params = append(params, fmt.Sprintf("%s: %s%s", in.Name, pub, noirType(in.Type)))
	}
	fmt.Fprintf(&b, "fn main(%s) {\n", strings.Join(params, ", "))
	fmt.Fprintf(&b, "    assert(%s, %q);\n}\n", body, "the claim of "+p.Name+" does not hold")
	return b.String()
}

// ParseInputs reads input values from a JSON object (name to value, as
// caps call reads JSON arguments: integers as numbers or strings, Bytes32
// as 0x-prefixed hex). Every input of the proof must be given, and no
// other name.
func (p *Proof) ParseInputs(data []byte) (map[string]value.Value, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("the inputs must be a JSON object of input names to values: %v", err)
	}
	out := map[string]value.Value{}
	var missing []string
	for _, in := range p.Inputs() {
		r, ok := raw[in.Name]
		if !ok {
			missing = append(missing, in.Name)
			continue
		}
		if in.Type == nil {
			return nil, fmt.Errorf("input %s: type %s has no value encoding here", in.Name, in.Source)
		}
		v, err := value.FromJSON(r, in.Type)
		if err != nil {
			return nil, fmt.Errorf("input %s: %v", in.Name, err)
		}
		out[in.Name] = v
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing inputs: %s (the proof takes %s)", strings.Join(missing, ", "), strings.Join(inputNames(p), ", "))
	}
	var extra []string
	for k := range raw {
		if _, ok := out[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		return nil, fmt.Errorf("unknown inputs: %s (the proof takes %s)", strings.Join(extra, ", "), strings.Join(inputNames(p), ", "))
	}
	return out, nil
}

func inputNames(p *Proof) []string {
	var ns []string
	for _, in := range p.Inputs() {
		ns = append(ns, in.Name)
	}
	return ns
}

// Eval evaluates the claim with the interpreter, the inputs bound as
// variables. It returns the claim's value, or the interpreter's error.
func (p *Proof) Eval(vals map[string]value.Value) (bool, error) {
	if p.Claim == nil || !p.Lowers {
		return false, fmt.Errorf("the proof %s has no claim the interpreter can evaluate here", p.Name)
	}
	r := *p.res
	r.Types = p.res.Types.Clone()
	for e, t := range p.types {
		r.Types.Set(e, t)
	}
	in := interp.New(&r)
	v, err := in.EvalExpr(p.Claim, interp.Env{Vars: vals})
	if err != nil {
		return false, err
	}
	if v.Kind() != value.KindBool {
		return false, fmt.Errorf("the claim evaluated to %s, not a Bool", v)
	}
	return v.AsBool(), nil
}

// NoirInputs converts values to the input map noir_js and Prover.toml
// take: integers as decimal strings, Bool as a Bool, Bytes32 as 32 byte
// strings.
func (p *Proof) NoirInputs(vals map[string]value.Value) (map[string]any, error) {
	out := map[string]any{}
	for _, in := range p.Inputs() {
		v, ok := vals[in.Name]
		if !ok {
			return nil, fmt.Errorf("missing input %s", in.Name)
		}
		switch v.Kind() {
		case value.KindBool:
			out[in.Name] = v.AsBool()
		case value.KindInt:
			out[in.Name] = v.String()
		default:
			if b, ok := in.Type.(*types.Basic); ok && b.Kind == types.Bytes32 {
				bs, err := bytes32(v)
				if err != nil {
					return nil, fmt.Errorf("input %s: %v", in.Name, err)
				}
				var arr []any
				for _, x := range bs {
					arr = append(arr, strconv.Itoa(int(x)))
				}
				out[in.Name] = arr
				continue
			}
			return nil, fmt.Errorf("input %s: %s has no circuit encoding", in.Name, v)
		}
	}
	return out, nil
}

func bytes32(v value.Value) ([]byte, error) {
	data, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("a Bytes32 value must print as a hex string, got %s", data)
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) != 64 {
		return nil, fmt.Errorf("a Bytes32 value must have 64 hex digits, got %q", s)
	}
	out := make([]byte, 32)
	for i := range out {
		n, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, fmt.Errorf("bad hex in Bytes32 %q", s)
		}
		out[i] = byte(n)
	}
	return out, nil
}
