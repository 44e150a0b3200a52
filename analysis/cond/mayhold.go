package cond

// MayHold reports whether a checked condition can be true when only some
// of its inputs are known: get answers the paths it knows, every other
// path may have any value. It is false only when the condition is false
// whatever the unknown inputs are (three-valued logic: a comparison with
// an unknown operand is unknown, `false and x` is false, `true or x` is
// true). A condition that cannot be evaluated may hold.
func MayHold(x Expr, env *Env, get Lookup) bool {
	v, known := partial(x, env, get)
	return !known || v.K != Bool || v.B
}

// partial evaluates x, reporting whether its value is known.
func partial(x Expr, env *Env, get Lookup) (Value, bool) {
	switch x := x.(type) {
	case *Lit:
		return x.Val, true
	case *Path:
		name := x.Name
		if env != nil {
			if full, _, ok := env.Resolve(name); ok {
				name = full
			}
		}
		v, ok := get(name)
		return v, ok
	case *Not:
		v, ok := partial(x.X, env, get)
		if !ok || v.K != Bool {
			return Value{}, false
		}
		return BoolValue(!v.B), true
	case *Binary:
		a, aok := partial(x.X, env, get)
		b, bok := partial(x.Y, env, get)
		switch x.Op {
		case "and", "or":
			short := x.Op == "or" // the value that decides alone
			if aok && a.K == Bool && a.B == short || bok && b.K == Bool && b.B == short {
				return BoolValue(short), true
			}
			if aok && bok && a.K == Bool && b.K == Bool {
				return BoolValue(!short), true
			}
			return Value{}, false
		}
		if !aok || !bok {
			return Value{}, false
		}
		v, err := evalBinary(&Binary{Op: x.Op, X: &Lit{Val: a}, Y: &Lit{Val: b}}, nil, nil)
		return v, err == nil
	}
	return Value{}, false
}
