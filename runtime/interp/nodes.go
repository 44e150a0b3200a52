package interp

import (
	"math/big"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
)

// node is a compiled expression.
type node interface {
	eval(t *thread) (value.Value, error)
}

// tick counts one evaluation step and reports whether the budget is spent.
func (t *thread) tick() bool {
	t.steps++
	return t.steps > t.maxSteps
}

// operand is an operand of a hot node: a local slot or a constant read
// directly, or any other node.
type operand struct {
	node  node
	local bool
	cnst  bool
	slot  int
	v     value.Value
}

func newOperand(n node) operand {
	switch x := n.(type) {
	case *localNode:
		return operand{node: n, local: true, slot: x.slot}
	case *constNode:
		return operand{node: n, cnst: true, v: x.v}
	}
	return operand{node: n}
}

func (t *thread) fetch(o *operand) (value.Value, error) {
	if o.local {
		return t.stack[t.base+o.slot], nil
	}
	if o.cnst {
		return o.v, nil
	}
	return o.node.eval(t)
}

type constNode struct{ v value.Value }

func (n *constNode) eval(*thread) (value.Value, error) { return n.v, nil }

type localNode struct{ slot int }

func (n *localNode) eval(t *thread) (value.Value, error) { return t.stack[t.base+n.slot], nil }

// fieldNode selects a record field; it caches the index for the record
// type it last saw.
type fieldNode struct {
	x    node
	name string
	span syntax.Span
	typ  *types.Record
	idx  int
}

func (n *fieldNode) eval(t *thread) (value.Value, error) {
	v, err := n.x.eval(t)
	if err != nil {
		return v, err
	}
	if v.Kind() == value.KindRecord {
		fs := v.Fields()
		if rt, _ := v.Type().(*types.Record); rt == n.typ && n.idx >= 0 && n.idx < len(fs) {
			return fs[n.idx], nil
		} else if rt != nil {
			for i, f := range rt.Fields {
				if f.Name == n.name && i < len(fs) {
					return fs[i], nil
				}
			}
		}
	}
	return value.Value{}, t.errorAt(Internal, n.span, "cannot read field %s of %s", n.name, v)
}

// freeNode reads a name that is not a local: an environment variable, or
// (when the environment does not define it) a type member constant.
type freeNode struct {
	name   string
	member *value.Value
	span   syntax.Span
}

func (n *freeNode) eval(t *thread) (value.Value, error) {
	if t.env != nil {
		if v, ok := t.env.Vars[n.name]; ok {
			return v, nil
		}
	}
	if n.member != nil {
		return *n.member, nil
	}
	return value.Value{}, t.errorAt(UnboundName, n.span, "`%s` has no value here", n.name)
}

// eventFieldNode reads event.FIELD, or, outside a transition, FIELD of
// the environment variable `event`.
type eventFieldNode struct {
	field string
	span  syntax.Span
}

func (n *eventFieldNode) eval(t *thread) (value.Value, error) {
	if t.env != nil && t.env.Event != nil {
		if v, ok := t.env.Event[n.field]; ok {
			return v, nil
		}
		return value.Value{}, t.errorAt(UnboundName, n.span, "the event has no field %s", n.field)
	}
	if t.env != nil {
		if v, ok := t.env.Vars["event"]; ok {
			if f, ok := v.Field(n.field); ok {
				return f, nil
			}
		}
	}
	return value.Value{}, t.errorAt(UnboundName, n.span, "event.%s has no value here: no event is being handled", n.field)
}

type ifNode struct {
	cond, then, els node
	span            syntax.Span
}

func (n *ifNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	c, err := n.cond.eval(t)
	if err != nil {
		return c, err
	}
	if c.AsBool() {
		return n.then.eval(t)
	}
	return n.els.eval(t)
}

type letNode struct {
	slots []int
	vals  []node
	body  node
	span  syntax.Span
}

func (n *letNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	for i, x := range n.vals {
		v, err := x.eval(t)
		if err != nil {
			return v, err
		}
		t.stack[t.base+n.slots[i]] = v
	}
	return n.body.eval(t)
}

type doNode struct {
	xs   []node
	span syntax.Span
}

func (n *doNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	var v value.Value
	for _, x := range n.xs {
		var err error
		if v, err = x.eval(t); err != nil {
			return v, err
		}
	}
	return v, nil
}

// recordNode builds a record; vals are in source order, idx maps each to
// its field position.
type recordNode struct {
	typ  *types.Record
	idx  []int
	vals []node
	span syntax.Span
}

func (n *recordNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	fields := make([]value.Value, len(n.typ.Fields))
	for i, x := range n.vals {
		v, err := x.eval(t)
		if err != nil {
			return v, err
		}
		fields[n.idx[i]] = v
	}
	return value.Record(n.typ, fields), nil
}

type variantNode struct {
	typ  *types.Variant
	cas  int
	args []node
	span syntax.Span
}

func (n *variantNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	fields := make([]value.Value, len(n.args))
	for i, x := range n.args {
		v, err := x.eval(t)
		if err != nil {
			return v, err
		}
		fields[i] = v
	}
	return value.Variant(n.typ, n.cas, fields), nil
}

type callNode struct {
	fn   *function
	args []node
	span syntax.Span
}

func (n *callNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	f := n.fn
	base := t.push(f.nslots)
	for i, a := range n.args {
		v, err := a.eval(t)
		if err != nil {
			t.stack = t.stack[:base]
			return v, err
		}
		t.stack[base+i] = v
	}
	return t.invoke(f, base, n.span)
}

type intentNode struct {
	effect string
	target string
	extra  []string
	args   []node
	span   syntax.Span
}

func (n *intentNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	var args []value.Value
	if len(n.args) > 0 {
		args = make([]value.Value, len(n.args))
		for i, a := range n.args {
			v, err := a.eval(t)
			if err != nil {
				return v, err
			}
			args[i] = v
		}
	}
	it := Intent{Effect: n.effect, Target: n.target, Extra: n.extra, Args: args, Span: n.span}
	if t.fn != nil {
		it.Function, it.File = t.fn.name, t.fn.mod.file
	}
	t.intents = append(t.intents, it)
	return value.Unit(), nil
}

// ---- match

type arm struct {
	pat  *pattern
	body node
}

type matchNode struct {
	subj node
	arms []arm
	span syntax.Span
}

func (n *matchNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	v, err := n.subj.eval(t)
	if err != nil {
		return v, err
	}
	for i := range n.arms {
		if n.arms[i].pat.match(t, v) {
			return n.arms[i].body.eval(t)
		}
	}
	return value.Value{}, t.errorAt(NoMatch, n.span, "no arm of this match accepts %s", clip(v.String()))
}

type patKind uint8

const (
	patAny patKind = iota
	patBind
	patEqual // a literal, enum member or bare variant case
	patNone
	patSome
	patOk
	patErr
	patCase
)

type pattern struct {
	kind patKind
	slot int
	val  value.Value
	name string // variant case
	args []*pattern
}

func (p *pattern) match(t *thread, v value.Value) bool {
	switch p.kind {
	case patAny:
		return true
	case patBind:
		t.stack[t.base+p.slot] = v
		return true
	case patEqual:
		return value.Equal(p.val, v)
	case patNone:
		return v.Kind() == value.KindOption && !v.IsSome()
	case patSome:
		return v.IsSome() && p.args[0].match(t, v.Payload())
	case patOk:
		return v.IsOk() && p.args[0].match(t, v.Payload())
	case patErr:
		return v.Kind() == value.KindResult && !v.IsOk() && p.args[0].match(t, v.Payload())
	case patCase:
		if v.Kind() != value.KindVariant || v.Name() != p.name {
			return false
		}
		fs := v.Fields()
		if len(fs) != len(p.args) {
			return false
		}
		for i, a := range p.args {
			if !a.match(t, fs[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// ---- integer arithmetic and comparison

type arithNode struct {
	op   byte // + - * / %
	kind value.IntKind
	a, b operand
	span syntax.Span
}

func (n *arithNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	a, err := t.fetch(&n.a)
	if err != nil {
		return a, err
	}
	b, err := t.fetch(&n.b)
	if err != nil {
		return b, err
	}
	if n.kind == value.IntWei {
		return weiArith(t, n.op, a, b, n.span)
	}
	switch n.op { // the common cases inline
	case '+':
		return value.Int(n.kind, a.Word()+b.Word()), nil
	case '-':
		return value.Int(n.kind, a.Word()-b.Word()), nil
	}
	r, ok := Arith(n.op, n.kind, a.Word(), b.Word())
	if !ok {
		return value.Value{}, t.errorAt(DivisionByZero, n.span, "division by zero: %s %c 0", a, n.op)
	}
	return value.Int(n.kind, r), nil
}

// Arith computes a op b for integer kind k on two's-complement bits (I32
// sign-extended, U32 zero-extended, as value.Int stores them) and returns
// the result bits, wrapped by the caller's value.Int. ok is false for a
// zero divisor. Signed division truncates toward zero and the remainder
// has the dividend's sign; MIN / -1 is MIN and MIN % -1 is 0.
func Arith(op byte, k value.IntKind, a, b uint64) (uint64, bool) {
	switch op {
	case '+':
		return a + b, true
	case '-':
		return a - b, true
	case '*':
		return a * b, true
	}
	if b == 0 || k == value.IntI32 && uint32(b) == 0 || k == value.IntU32 && uint32(b) == 0 {
		return 0, false
	}
	if k.Signed() {
		x, y := int64(a), int64(b)
		if k == value.IntI32 {
			x, y = int64(int32(x)), int64(int32(y))
		}
		if y == -1 { // avoid relying on the hardware for MIN / -1
			if op == '/' {
				return uint64(-x), true
			}
			return 0, true
		}
		if op == '/' {
			return uint64(x / y), true
		}
		return uint64(x % y), true
	}
	if k == value.IntU32 {
		a, b = uint64(uint32(a)), uint64(uint32(b))
	}
	if op == '/' {
		return a / b, true
	}
	return a % b, true
}

var weiMod = new(big.Int).Lsh(big.NewInt(1), 256)

func weiArith(t *thread, op byte, a, b value.Value, sp syntax.Span) (value.Value, error) {
	x, y := a.Big(), b.Big()
	switch op {
	case '+':
		x.Add(x, y)
	case '-':
		x.Sub(x, y)
	case '*':
		x.Mul(x, y)
	case '/', '%':
		if y.Sign() == 0 {
			return value.Value{}, t.errorAt(DivisionByZero, sp, "division by zero: %s %c 0", a, op)
		}
		if op == '/' {
			x.Quo(x, y)
		} else {
			x.Rem(x, y)
		}
	}
	return value.WeiBig(x.Mod(x, weiMod)), nil
}

// cmpNode compares two ordered values. class selects the fast path:
// signed or unsigned integers, or the general value.Compare.
type cmpNode struct {
	op    string
	class byte // 's' signed int, 'u' unsigned int, 'g' general
	a, b  operand
	span  syntax.Span
}

func (n *cmpNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	a, err := t.fetch(&n.a)
	if err != nil {
		return a, err
	}
	b, err := t.fetch(&n.b)
	if err != nil {
		return b, err
	}
	var c int
	switch n.class {
	case 's':
		x, y := int64(a.Word()), int64(b.Word())
		c = cmp3(x < y, x > y)
	case 'u':
		x, y := a.Word(), b.Word()
		c = cmp3(x < y, x > y)
	default:
		c = value.Compare(a, b)
	}
	var r bool
	switch n.op {
	case "<":
		r = c < 0
	case "<=":
		r = c <= 0
	case ">":
		r = c > 0
	case ">=":
		r = c >= 0
	}
	return value.Bool(r), nil
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

type eqNode struct {
	neg  bool
	a, b operand
	span syntax.Span
}

func (n *eqNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	a, err := t.fetch(&n.a)
	if err != nil {
		return a, err
	}
	b, err := t.fetch(&n.b)
	if err != nil {
		return b, err
	}
	return value.Bool(value.Equal(a, b) != n.neg), nil
}

// logicNode is and/or with short-circuit evaluation.
type logicNode struct {
	or   bool
	xs   []node
	span syntax.Span
}

func (n *logicNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	for _, x := range n.xs {
		v, err := x.eval(t)
		if err != nil {
			return v, err
		}
		if v.AsBool() == n.or {
			return value.Bool(n.or), nil
		}
	}
	return value.Bool(!n.or), nil
}

type notNode struct {
	x    node
	span syntax.Span
}

func (n *notNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	v, err := n.x.eval(t)
	if err != nil {
		return v, err
	}
	return value.Bool(!v.AsBool()), nil
}

// opNode is a built-in operation applied to its evaluated arguments.
type opNode struct {
	name string
	fn   func(t *thread, n *opNode, args []value.Value) (value.Value, error)
	args []node
	span syntax.Span
}

func (n *opNode) eval(t *thread) (value.Value, error) {
	if t.tick() {
		return value.Value{}, t.stepError(n.span)
	}
	var buf [3]value.Value
	args := buf[:0]
	if len(n.args) > len(buf) {
		args = make([]value.Value, 0, len(n.args))
	}
	for _, a := range n.args {
		v, err := a.eval(t)
		if err != nil {
			return v, err
		}
		args = append(args, v)
	}
	return n.fn(t, n, args)
}

// errNode reports a compile failure when evaluated.
type errNode struct{ err *Error }

func (n *errNode) eval(*thread) (value.Value, error) { return value.Value{}, n.err }
