package cond

import "fmt"

// Program is a checked condition compiled for fast evaluation: every
// path is resolved, once, to a slot of an input vector, so evaluating it
// does no lookup by name and allocates nothing. The runtime compiles
// each rule once per machine.
type Program struct {
	root *node
	// Slots lists the slots the program reads.
	Slots []int
}

type node struct {
	op   string // "lit", "slot", "not", "and", "or", or a comparison
	val  Value
	slot int
	x, y *node
}

// Compile resolves x's paths through env (aliases included) and slot,
// which gives a full path's place in the input vector. It fails on a
// path it cannot place; the caller then evaluates with Eval.
func Compile(x Expr, env *Env, slot func(path string) (int, bool)) (*Program, error) {
	p := &Program{}
	seen := map[int]bool{}
	var build func(Expr) (*node, error)
	build = func(x Expr) (*node, error) {
		switch x := x.(type) {
		case *Lit:
			return &node{op: "lit", val: x.Val}, nil
		case *Path:
			name := x.Name
			if env != nil {
				if full, _, ok := env.Resolve(name); ok {
					name = full
				}
			}
			k, ok := slot(name)
			if !ok {
				return nil, fmt.Errorf("`%s` has no slot", x.Name)
			}
			if !seen[k] {
				seen[k] = true
				p.Slots = append(p.Slots, k)
			}
			return &node{op: "slot", slot: k}, nil
		case *Not:
			a, err := build(x.X)
			if err != nil {
				return nil, err
			}
			return &node{op: "not", x: a}, nil
		case *Binary:
			a, err := build(x.X)
			if err != nil {
				return nil, err
			}
			b, err := build(x.Y)
			if err != nil {
				return nil, err
			}
			return &node{op: x.Op, x: a, y: b}, nil
		}
		return nil, fmt.Errorf("invalid condition")
	}
	root, err := build(x)
	if err != nil {
		return nil, err
	}
	p.root = root
	return p, nil
}

// Run evaluates the program against the input vector in; a slot whose
// value has kind Invalid has no value. It agrees with Eval, and reads
// values in place (no copies, no allocation).
func (p *Program) Run(in []Value) (bool, error) {
	return truth(p.root, in)
}

// truth evaluates a node that must be a Bool.
func truth(n *node, in []Value) (bool, error) {
	switch n.op {
	case "not":
		b, err := truth(n.x, in)
		return !b, err
	case "and", "or":
		a, err := truth(n.x, in)
		if err != nil || a == (n.op == "or") {
			return a, err
		}
		return truth(n.y, in)
	case "lit", "slot":
		v, err := operand(n, in)
		if err != nil {
			return false, err
		}
		if v.K != Bool {
			return false, fmt.Errorf("the condition is %s, not a Bool", article(v.K))
		}
		return v.B, nil
	}
	var a, b *Value
	if leaf(n.x) && leaf(n.y) { // in place: the common case
		var err error
		if a, err = operand(n.x, in); err != nil {
			return false, err
		}
		if b, err = operand(n.y, in); err != nil {
			return false, err
		}
	} else { // a Boolean subexpression: by value
		va, err := value(n.x, in)
		if err != nil {
			return false, err
		}
		vb, err := value(n.y, in)
		if err != nil {
			return false, err
		}
		return compareValues(n.op, va, vb)
	}
	if a.K != b.K {
		return false, fmt.Errorf("`%s` compares %s with %s", n.op, article(a.K), article(b.K))
	}
	switch n.op {
	case "==":
		return equal(a, b), nil
	case "!=":
		return !equal(a, b), nil
	}
	if a.K != Int {
		return false, fmt.Errorf("`%s` orders integers, not %s", n.op, article(a.K))
	}
	c := cmpInt(*a, *b)
	switch n.op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

func leaf(n *node) bool { return n.op == "lit" || n.op == "slot" }

// operand points at a leaf's value: a literal or an input, in place.
func operand(n *node, in []Value) (*Value, error) {
	if n.op == "lit" {
		return &n.val, nil
	}
	if n.slot >= len(in) || in[n.slot].K == Invalid {
		return nil, fmt.Errorf("input %d has no value in this decision", n.slot)
	}
	return &in[n.slot], nil
}

// value is a node's value: a leaf's, or a subexpression's truth.
func value(n *node, in []Value) (Value, error) {
	if leaf(n) {
		v, err := operand(n, in)
		if err != nil {
			return Value{}, err
		}
		return *v, nil
	}
	b, err := truth(n, in)
	return BoolValue(b), err
}

// compareValues is a comparison of two values.
func compareValues(op string, a, b Value) (bool, error) {
	v, err := compare(op, a, b)
	return v.B, err
}

// equal compares two values of the same kind.
func equal(a, b *Value) bool {
	switch a.K {
	case Text:
		return a.S == b.S
	case Bool:
		return a.B == b.B
	}
	return a.Neg == b.Neg && a.Mag == b.Mag
}
