package interp

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax/ast"
)

type opFunc = func(t *thread, n *opNode, args []value.Value) (value.Value, error)

// ops are the built-in operations evaluated on their arguments; the
// operators with special evaluation (+ - * / %, comparisons, and, or, not)
// have their own nodes.
var ops = map[string]opFunc{
	"some": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) { return value.Some(a[0]), nil },
	"ok":   func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) { return value.Ok(a[0]), nil },
	"err":  func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) { return value.Err(a[0]), nil },
	"list": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		return value.List(append([]value.Value(nil), a...)), nil
	},
	"concat": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		n := 0
		for _, x := range a {
			n += len(x.AsText())
		}
		var b strings.Builder
		b.Grow(n)
		for _, x := range a {
			b.WriteString(x.AsText())
		}
		return value.Text(b.String()), nil
	},
	"len": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		if a[0].Kind() == value.KindText {
			return value.I64(int64(utf8.RuneCountInString(a[0].AsText()))), nil
		}
		return value.I64(int64(a[0].Len())), nil
	},
	"upper": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		return value.Text(strings.ToUpper(a[0].AsText())), nil
	},
	"lower": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		return value.Text(strings.ToLower(a[0].AsText())), nil
	},
	"trim": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		return value.Text(strings.TrimSpace(a[0].AsText())), nil
	},
	"contains": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		switch a[0].Kind() {
		case value.KindList:
			for _, e := range a[0].Elems() {
				if value.Equal(e, a[1]) {
					return value.True, nil
				}
			}
			return value.False, nil
		case value.KindMap:
			_, ok := a[0].Lookup(a[1])
			return value.Bool(ok), nil
		}
		return value.Bool(strings.Contains(a[0].AsText(), a[1].AsText())), nil
	},
	"starts-with": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		return value.Bool(strings.HasPrefix(a[0].AsText(), a[1].AsText())), nil
	},
	"ends-with": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		return value.Bool(strings.HasSuffix(a[0].AsText(), a[1].AsText())), nil
	},
	"to-text": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		switch x := a[0]; x.Kind() {
		case value.KindText:
			return x, nil
		case value.KindEnum:
			return value.Text(x.Name()), nil
		default: // integers and Bool print as in source
			return value.Text(x.String()), nil
		}
	},
	"get": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		if a[0].Kind() == value.KindMap {
			if v, ok := a[0].Lookup(a[1]); ok {
				return value.Some(v), nil
			}
			return value.None(), nil
		}
		elems := a[0].Elems()
		if i := a[1].Int64(); i >= 0 && i < int64(len(elems)) {
			return value.Some(elems[i]), nil
		}
		return value.None(), nil
	},
	"append": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		old := a[0].Elems()
		elems := make([]value.Value, len(old)+1)
		copy(elems, old)
		elems[len(old)] = a[1]
		return value.List(elems), nil
	},
	"is-some": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		return value.Bool(a[0].IsSome()), nil
	},
	"is-none": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		return value.Bool(!a[0].IsSome()), nil
	},
	"is-ok":  func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) { return value.Bool(a[0].IsOk()), nil },
	"is-err": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) { return value.Bool(!a[0].IsOk()), nil },
	"unwrap-or": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		if a[0].IsSome() {
			return a[0].Payload(), nil
		}
		return a[1], nil
	},
	"abs": func(_ *thread, n *opNode, a []value.Value) (value.Value, error) {
		x := a[0]
		if x.IntKind().Signed() && x.Int64() < 0 {
			return value.Int(x.IntKind(), -x.Bits()), nil // abs(MIN) wraps to MIN
		}
		return x, nil
	},
	"min": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		if value.Compare(a[1], a[0]) < 0 {
			return a[1], nil
		}
		return a[0], nil
	},
	"max": func(_ *thread, _ *opNode, a []value.Value) (value.Value, error) {
		if value.Compare(a[1], a[0]) > 0 {
			return a[1], nil
		}
		return a[0], nil
	},
}

// builtinNames lists every built-in the checker knows (analysis/check's
// function.go); a test keeps the two lists in step.
var builtinNames = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true,
	"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true,
	"and": true, "or": true, "not": true,
}

func init() {
	for k := range ops {
		builtinNames[k] = true
	}
}

// IsBuiltin reports whether name is a built-in operation.
func IsBuiltin(name string) bool { return builtinNames[name] }

// BuiltinNames lists the built-in operations, sorted.
func BuiltinNames() []string {
	out := make([]string, 0, len(builtinNames))
	for k := range builtinNames {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// arity is the number of arguments each fixed-arity operation takes.
var arity = map[string]int{
	"+": 2, "-": 2, "*": 2, "/": 2, "%": 2, "==": 2, "!=": 2, "<": 2, "<=": 2, ">": 2, ">=": 2,
	"not": 1, "some": 1, "ok": 1, "err": 1, "len": 1, "upper": 1, "lower": 1, "trim": 1,
	"contains": 2, "starts-with": 2, "ends-with": 2, "to-text": 1, "get": 2, "append": 2,
	"is-some": 1, "is-none": 1, "is-ok": 1, "is-err": 1, "unwrap-or": 2, "abs": 1, "min": 2, "max": 2,
}

func (c *compiler) builtin(e *ast.Call, name string) node {
	sp := e.Form.Span()
	if n, ok := arity[name]; ok && len(e.Args) != n {
		return c.fail(sp, "(%s ...) with %d arguments", name, len(e.Args))
	}
	args := make([]node, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.expr(a)
	}
	switch name {
	case "+", "-", "*", "/", "%":
		k := value.IntKindOf(c.typeOf(e))
		if k == value.IntNone {
			return c.fail(sp, "arithmetic on %s", types.Describe(c.typeOf(e)))
		}
		return &arithNode{op: name[0], kind: k, a: newOperand(args[0]), b: newOperand(args[1]), span: sp}
	case "==", "!=":
		return &eqNode{neg: name == "!=", a: newOperand(args[0]), b: newOperand(args[1]), span: sp}
	case "<", "<=", ">", ">=":
		class := byte('g')
		switch k := value.IntKindOf(types.Default(c.typeOf(e.Args[0]))); {
		case k == value.IntWei || k == value.IntNone:
		case k.Signed():
			class = 's'
		default:
			class = 'u'
		}
		return &cmpNode{op: name, class: class, a: newOperand(args[0]), b: newOperand(args[1]), span: sp}
	case "and", "or":
		return &logicNode{or: name == "or", xs: args, span: sp}
	case "not":
		return &notNode{x: args[0], span: sp}
	}
	return &opNode{name: name, fn: ops[name], args: args, span: sp}
}
