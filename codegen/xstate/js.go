package xstate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/syntax/ast"
)

// JS compiles Capsulang expressions (guards, assignments and the pure
// functions they call) to JavaScript with the language's semantics:
// integers are BigInt inside expressions and wrap at their type's width,
// / and % throw a CapsTrap on a zero divisor, Text compares by code
// points. Values cross into and out of the machine context in the
// runtime's JSON encoding (I32/U32 as numbers, I64/U64 as decimal strings).
type JS struct {
	res   *check.Result
	funcs map[string]*ast.Function
	// Used lists the module functions the compiled expressions call, in
	// first-use order; FuncSource compiles them.
	Used []*ast.Function
	used map[*ast.Function]bool
	// Unsupported collects the features found outside the subset.
	Unsupported []core.Unsupported
	where       string
	eventJS     string
	eventFields map[string]types.Type
	scope       []jsVar
	tmp         int
}

type jsVar struct {
	name, js string
	t        types.Type
}

// NewJS returns a compiler for expressions of the checked module res.
func NewJS(res *check.Result) *JS {
	j := &JS{res: res, funcs: map[string]*ast.Function{}, used: map[*ast.Function]bool{}}
	if res.File != nil && res.File.Module != nil {
		for _, d := range res.File.Module.Decls {
			if fn, ok := d.(*ast.Function); ok {
				if _, dup := j.funcs[fn.Name.Name]; !dup {
					j.funcs[fn.Name.Name] = fn
				}
			}
		}
	}
	return j
}

func (j *JS) unsupported(e ast.Expr, format string, args ...any) string {
	j.Unsupported = append(j.Unsupported, core.Unsupported{Func: j.where, Span: e.ExprSpan(), Feature: fmt.Sprintf(format, args...)})
	return "caps.unsupported()"
}

func (j *JS) typeOf(e ast.Expr) types.Type { return types.Default(j.res.Types.Type(e)) }

// IntKindName returns the wrap kind of an integer type: I32, I64, U32, U64.
func IntKindName(t types.Type) string {
	k, ok := core.KindOf(t)
	if !ok || !k.IsInt() {
		return ""
	}
	return k.String()
}

// Decode returns JS that converts a context/event value of type t (in its
// JSON encoding) into the expression representation.
func Decode(js string, t types.Type) string {
	if IntKindName(t) != "" {
		return "BigInt(" + js + ")"
	}
	return js
}

// Encode converts an expression value of type t to its JSON encoding.
func Encode(js string, t types.Type) string {
	switch k := IntKindName(t); k {
	case "I32", "U32":
		return "Number(" + js + ")"
	case "I64", "U64":
		return "(" + js + ").toString()"
	}
	return js
}

// Expr compiles e; ctx maps context field names to JS expressions (in
// JSON encoding), event is the JS name of the event object or "".
func (j *JS) Expr(e ast.Expr, where string, ctx map[string]types.Type, ctxJS, eventJS string, eventFields map[string]types.Type) string {
	j.where = where
	j.scope = j.scope[:0]
	for name, t := range ctx {
		ref := name // a bare datamodel variable (SCXML)
		if ctxJS != "" {
			ref = ctxJS + "[" + strconv.Quote(name) + "]"
		}
		j.scope = append(j.scope, jsVar{name: name, js: Decode(ref, t), t: t})
	}
	j.eventJS, j.eventFields = eventJS, eventFields
	return j.expr(e)
}

func (j *JS) lookup(name string) *jsVar {
	for i := len(j.scope) - 1; i >= 0; i-- {
		if j.scope[i].name == name {
			return &j.scope[i]
		}
	}
	return nil
}

func (j *JS) fresh() string {
	j.tmp++
	return fmt.Sprintf("v%d", j.tmp)
}

func jsIdent(name string) string {
	return "$" + strings.NewReplacer("-", "_", ".", "_").Replace(name)
}

func (j *JS) expr(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.IntLit:
		if IntKindName(j.typeOf(e)) == "" {
			return j.unsupported(e, "an integer literal of type %s", j.typeOf(e))
		}
		s := strconv.FormatUint(e.Mag, 10)
		if e.Neg {
			s = "-" + s
		}
		return "(" + s + "n)"
	case *ast.BoolLit:
		return strconv.FormatBool(e.Value)
	case *ast.StringLit:
		return strconv.Quote(e.Value)
	case *ast.NoneLit:
		return "null"
	case *ast.Name:
		return j.name(e)
	case *ast.If:
		return "(" + j.expr(e.Cond) + " ? " + j.expr(e.Then) + " : " + j.expr(e.Else) + ")"
	case *ast.Let:
		mark := len(j.scope)
		var b strings.Builder
		b.WriteString("(() => { ")
		for _, bd := range e.Bindings {
			v := j.fresh()
			fmt.Fprintf(&b, "const %s = %s; ", v, j.expr(bd.Value))
			j.scope = append(j.scope, jsVar{name: bd.Name.Name, js: v, t: j.typeOf(bd.Value)})
		}
		fmt.Fprintf(&b, "return %s; })()", j.expr(e.Body))
		j.scope = j.scope[:mark]
		return b.String()
	case *ast.Do:
		var xs []string
		for _, x := range e.Exprs {
			xs = append(xs, j.expr(x))
		}
		return "(" + strings.Join(xs, ", ") + ")"
	case *ast.Match:
		return j.match(e)
	case *ast.Call:
		return j.call(e)
	}
	return j.unsupported(e, "this expression (%s)", core.TypeFeature(j.typeOf(e)))
}

func (j *JS) name(e *ast.Name) string {
	first := e.Parts[0].Name
	if len(e.Parts) == 1 {
		if v := j.lookup(first); v != nil {
			return v.js
		}
		return j.unsupported(e, "the name %s", first)
	}
	if first == "event" && j.eventJS != "" && len(e.Parts) == 2 {
		t, ok := j.eventFields[e.Parts[1].Name]
		if ok {
			return Decode(j.eventJS+"["+strconv.Quote(e.Parts[1].Name)+"]", t)
		}
	}
	if en, ok := j.typeOf(e).(*types.Enum); ok && len(e.Parts) == 2 && en.Has(e.Parts[1].Name) {
		return strconv.Quote(e.Parts[1].Name)
	}
	return j.unsupported(e, "the name %s (%s)", e.Text(), core.TypeFeature(j.typeOf(e)))
}

var jsCompare = map[string]string{"==": "===", "!=": "!==", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

func (j *JS) call(e *ast.Call) string {
	name := e.Func.Text()
	args := func() []string {
		var xs []string
		for _, a := range e.Args {
			xs = append(xs, j.expr(a))
		}
		return xs
	}
	switch name {
	case "+", "-", "*", "/", "%":
		k := IntKindName(j.typeOf(e))
		if k == "" || len(e.Args) != 2 {
			return j.unsupported(e, "(%s ...) on %s", name, core.TypeFeature(j.typeOf(e)))
		}
		xs := args()
		op := map[string]string{"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem"}[name]
		return fmt.Sprintf("caps.%s(%q, %s, %s)", op, k, xs[0], xs[1])
	case "==", "!=", "<", "<=", ">", ">=":
		if len(e.Args) != 2 {
			return j.unsupported(e, "(%s ...)", name)
		}
		t := j.typeOf(e.Args[0])
		xs := args()
		switch x := t.(type) {
		case *types.Basic:
			switch {
			case IntKindName(t) != "" || x.Kind == types.Bool:
				return "(" + xs[0] + " " + jsCompare[name] + " " + xs[1] + ")"
			case x.Kind == types.Text:
				return fmt.Sprintf("(caps.cmpText(%s, %s) %s 0)", xs[0], xs[1], jsCompare[name])
			}
		case *types.Enum:
			if name == "==" || name == "!=" {
				return "(" + xs[0] + " " + jsCompare[name] + " " + xs[1] + ")"
			}
		}
		return j.unsupported(e, "(%s ...) on %s", name, core.TypeFeature(t))
	case "and", "or":
		op := " && "
		if name == "or" {
			op = " || "
		}
		return "(" + strings.Join(args(), op) + ")"
	case "not":
		return "(!" + args()[0] + ")"
	case "abs", "min", "max":
		k := IntKindName(j.typeOf(e))
		if k == "" {
			return j.unsupported(e, "(%s ...) on %s", name, core.TypeFeature(j.typeOf(e)))
		}
		return fmt.Sprintf("caps.%s(%q, %s)", name, k, strings.Join(args(), ", "))
	case "len":
		if b, ok := j.typeOf(e.Args[0]).(*types.Basic); ok && b.Kind == types.Text {
			return "BigInt([..." + args()[0] + "].length)"
		}
		return j.unsupported(e, "len of %s", core.TypeFeature(j.typeOf(e.Args[0])))
	case "concat":
		return "(" + strings.Join(args(), " + ") + ")"
	case "upper":
		return "(" + args()[0] + ").toUpperCase()"
	case "lower":
		return "(" + args()[0] + ").toLowerCase()"
	case "contains":
		if b, ok := j.typeOf(e.Args[0]).(*types.Basic); ok && b.Kind == types.Text {
			xs := args()
			return "(" + xs[0] + ").includes(" + xs[1] + ")"
		}
		return j.unsupported(e, "contains on %s", core.TypeFeature(j.typeOf(e.Args[0])))
	case "starts-with":
		xs := args()
		return "(" + xs[0] + ").startsWith(" + xs[1] + ")"
	case "ends-with":
		xs := args()
		return "(" + xs[0] + ").endsWith(" + xs[1] + ")"
	}
	if fn := j.funcs[name]; fn != nil && len(e.Func.Parts) == 1 {
		if fn.Effects != nil && !fn.Effects.Pure && len(fn.Effects.Items) > 0 {
			return j.unsupported(e, "a call of the effectful function %s", name)
		}
		if !j.used[fn] {
			j.used[fn] = true
			j.Used = append(j.Used, fn)
		}
		return "fn" + jsIdent(name) + "(" + strings.Join(args(), ", ") + ")"
	}
	return j.unsupported(e, "the operation (%s ...)", name)
}

func (j *JS) match(e *ast.Match) string {
	st := j.typeOf(e.Subject)
	subj := j.fresh()
	var b strings.Builder
	fmt.Fprintf(&b, "(() => { const %s = %s; ", subj, j.expr(e.Subject))
	for _, a := range e.Arms {
		p := a.Pattern
		mark := len(j.scope)
		cond := ""
		switch p.Kind {
		case ast.PatWildcard:
		case ast.PatBind:
			j.scope = append(j.scope, jsVar{name: p.Name.Text(), js: subj, t: st})
		case ast.PatLiteral:
			cond = subj + " === " + j.expr(p.Lit)
		case ast.PatMember:
			if en, ok := st.(*types.Enum); ok && len(p.Name.Parts) == 2 && en.Has(p.Name.Parts[1].Name) {
				cond = subj + " === " + strconv.Quote(p.Name.Parts[1].Name)
				break
			}
			fallthrough
		default:
			j.unsupported(a.Body, "this match pattern")
		}
		body := j.expr(a.Body)
		j.scope = j.scope[:mark]
		if cond == "" {
			fmt.Fprintf(&b, "return %s; ", body)
		} else {
			fmt.Fprintf(&b, "if (%s) return %s; ", cond, body)
		}
	}
	fmt.Fprintf(&b, "throw new CapsTrap(\"no-match\", \"no arm of this match accepts \" + caps.show(%s)); })()", subj)
	return b.String()
}

// FuncSource compiles the functions in Used (and those they call) to JS
// function declarations.
func (j *JS) FuncSource() string {
	var b strings.Builder
	for i := 0; i < len(j.Used); i++ {
		fn := j.Used[i]
		j.where = fn.Name.Name
		j.scope = j.scope[:0]
		var params []string
		var ptypes []types.Type
		for _, s := range j.res.Symbols {
			if s.Kind == check.SymInput && s.Parent != nil && s.Parent.Decl == fn {
				p := "p" + jsIdent(s.Name)
				params = append(params, p)
				ptypes = append(ptypes, s.Type)
				j.scope = append(j.scope, jsVar{name: s.Name, js: p, t: s.Type})
			}
		}
		fmt.Fprintf(&b, "function fn%s(%s) {\n", jsIdent(fn.Name.Name), strings.Join(params, ", "))
		for _, r := range fn.Requires {
			fmt.Fprintf(&b, "  if (!%s) throw new CapsTrap(\"requires-failed\", %q);\n", j.expr(r), fn.Name.Name+": requires does not hold")
		}
		if fn.Body == nil {
			b.WriteString("  throw new CapsTrap(\"internal\", \"no body\");\n}\n")
			continue
		}
		fmt.Fprintf(&b, "  const result = %s;\n", j.expr(fn.Body))
		j.scope = append(j.scope, jsVar{name: "result", js: "result"})
		for _, en := range fn.Ensures {
			fmt.Fprintf(&b, "  if (!%s) throw new CapsTrap(\"ensures-failed\", %q);\n", j.expr(en), fn.Name.Name+": ensures does not hold")
		}
		b.WriteString("  return result;\n}\n")
	}
	return b.String()
}

// Prelude is the JS support code every generated module starts with.
const Prelude = `class CapsTrap extends Error {
  constructor(kind, message) { super(message); this.kind = kind; }
}
const caps = {
  wrap(k, x) {
    switch (k) {
      case "I32": return BigInt.asIntN(32, x);
      case "U32": return BigInt.asUintN(32, x);
      case "I64": return BigInt.asIntN(64, x);
      default: return BigInt.asUintN(64, x);
    }
  },
  add(k, a, b) { return caps.wrap(k, a + b); },
  sub(k, a, b) { return caps.wrap(k, a - b); },
  mul(k, a, b) { return caps.wrap(k, a * b); },
  div(k, a, b) {
    if (b === 0n) throw new CapsTrap("division-by-zero", "division by zero: " + a + " / 0");
    return caps.wrap(k, a / b);
  },
  rem(k, a, b) {
    if (b === 0n) throw new CapsTrap("division-by-zero", "division by zero: " + a + " % 0");
    return caps.wrap(k, a % b);
  },
  abs(k, a) { return a < 0n ? caps.wrap(k, -a) : a; },
  min(k, a, b) { return b < a ? b : a; },
  max(k, a, b) { return b > a ? b : a; },
  cmpText(a, b) {
    const x = [...a].map((c) => c.codePointAt(0)), y = [...b].map((c) => c.codePointAt(0));
    for (let i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
  },
  show(v) { return typeof v === "string" ? JSON.stringify(v) : String(v); },
  unsupported() { throw new CapsTrap("unsupported", "this expression is outside the XState backend's subset"); },
  // fits checks an event payload value against its declared type.
  fits(t, v) {
    const ints = { I32: [-(2n ** 31n), 2n ** 31n - 1n], U32: [0n, 2n ** 32n - 1n], I64: [-(2n ** 63n), 2n ** 63n - 1n], U64: [0n, 2n ** 64n - 1n] };
    if (t in ints) {
      let x;
      try {
        if (typeof v === "number" && !Number.isInteger(v)) return false;
        if (typeof v !== "number" && typeof v !== "string" && typeof v !== "bigint") return false;
        if (typeof v === "string" && !/^-?[0-9]+$/.test(v)) return false;
        x = BigInt(v);
      } catch { return false; }
      return x >= ints[t][0] && x <= ints[t][1];
    }
    if (t === "Bool") return typeof v === "boolean";
    if (t === "Text") return typeof v === "string";
    return v !== undefined;
  },
  // payload checks that an event carries exactly the declared fields.
  payload(event, fields) {
    const keys = Object.keys(event).filter((k) => k !== "type");
    if (keys.length !== Object.keys(fields).length) return false;
    for (const [name, t] of Object.entries(fields)) if (!(name in event) || !caps.fits(t, event[name])) return false;
    return true;
  },
};
`
