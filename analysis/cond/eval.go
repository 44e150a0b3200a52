package cond

import "fmt"

// Lookup gives the value of a full path at evaluation time.
type Lookup func(path string) (Value, bool)

// Eval evaluates a checked condition. alias resolves bare names the way
// the Env that checked it did (nil when there are none). A path the
// lookup does not know, or a value of an unexpected kind, is an error:
// the caller treats it as the policy's failure, never as true.
func Eval(x Expr, env *Env, get Lookup) (bool, error) {
	v, err := eval(x, env, get)
	if err != nil {
		return false, err
	}
	if v.K != Bool {
		return false, fmt.Errorf("the condition is %s, not a Bool", article(v.K))
	}
	return v.B, nil
}

func eval(x Expr, env *Env, get Lookup) (Value, error) {
	switch x := x.(type) {
	case *Lit:
		return x.Val, nil
	case *Path:
		name := x.Name
		if env != nil {
			if full, _, ok := env.Resolve(name); ok {
				name = full
			}
		}
		v, ok := get(name)
		if !ok {
			return Value{}, fmt.Errorf("`%s` has no value in this decision", x.Name)
		}
		return v, nil
	case *Not:
		v, err := eval(x.X, env, get)
		if err != nil {
			return v, err
		}
		if v.K != Bool {
			return Value{}, fmt.Errorf("`not` of %s", article(v.K))
		}
		return BoolValue(!v.B), nil
	case *Binary:
		return evalBinary(x, env, get)
	}
	return Value{}, fmt.Errorf("invalid condition")
}

func evalBinary(x *Binary, env *Env, get Lookup) (Value, error) {
	a, err := eval(x.X, env, get)
	if err != nil {
		return a, err
	}
	switch x.Op {
	case "and", "or":
		if a.K != Bool {
			return Value{}, fmt.Errorf("`%s` of %s", x.Op, article(a.K))
		}
		if a.B == (x.Op == "or") {
			return a, nil // decided by the left operand
		}
		b, err := eval(x.Y, env, get)
		if err != nil {
			return b, err
		}
		if b.K != Bool {
			return Value{}, fmt.Errorf("`%s` of %s", x.Op, article(b.K))
		}
		return b, nil
	}
	b, err := eval(x.Y, env, get)
	if err != nil {
		return b, err
	}
	return compare(x.Op, a, b)
}

// compare applies a comparison operator to two values.
func compare(op string, a, b Value) (Value, error) {
	if a.K != b.K {
		return Value{}, fmt.Errorf("`%s` compares %s with %s", op, article(a.K), article(b.K))
	}
	switch op {
	case "==":
		return BoolValue(a == b), nil
	case "!=":
		return BoolValue(a != b), nil
	}
	if a.K != Int {
		return Value{}, fmt.Errorf("`%s` orders integers, not %s", op, article(a.K))
	}
	c := cmpInt(a, b)
	switch op {
	case "<":
		return BoolValue(c < 0), nil
	case "<=":
		return BoolValue(c <= 0), nil
	case ">":
		return BoolValue(c > 0), nil
	}
	return BoolValue(c >= 0), nil
}
