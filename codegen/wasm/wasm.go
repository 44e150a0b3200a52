// Package wasm compiles the pure scalar subset of Capsule Core (package
// codegen/core) to a WebAssembly module, written directly as binary .wasm
// and as WAT text for people. No external assembler is involved; the WAT
// text assembles (with wat2wasm) to the same bytes.
//
// ABI (docs/codegen.md):
//
//   - every compiled function is exported under its Capsulang name, as a
//     thin wrapper with the public signature; integers (I32, I64/Int,
//     U32, U64) are i64 parameters and results, I32 kept sign-extended
//     and U32 zero-extended; Bool is i32 0 or 1;
//   - the wrapper calls the internal function, which takes one more i32
//     parameter: the remaining depth budget (the number of nested calls
//     it may still make). The wrapper passes the global caps.entry_depth;
//     each call checks the budget in that register and passes it on, one
//     less, so that no global is touched for the depth;
//   - integer operations wrap at their type's width (32-bit results are
//     re-extended after + - *), signed division truncates, MIN / -1 is MIN
//     (guarded: i64.div_s would trap), MIN % -1 is 0, unsigned kinds use
//     div_u, rem_u and unsigned comparisons;
//   - a trap (division by zero, failed requires/ensures, a match without a
//     matching arm, the depth budget, the call budget) sets the global
//     caps.trap_site to the site's number and caps.depth to the trapping
//     frame's remaining depth, stores the values its message needs as i64
//     at the start of caps.memory, and executes unreachable;
//   - caps.fuel counts calls down (a coarse stand-in for the interpreter's
//     step budget). Each call site counts its call in a local; a function
//     spends the count from caps.fuel when it returns or traps, and if the
//     fuel is then below zero it sets caps.trap_site to TrapFuelLate and
//     executes unreachable;
//   - trace mode: a host that needs the call trace of a trap, or the call
//     at which the fuel ran out, runs the call again with
//     caps.entry_depth lowered by TraceBias. The depth is then negative,
//     which the one depth comparison of every call already sends to its
//     slow path; there the call site's number is written to a shadow
//     stack in caps.memory (one i32 per frame, indexed by the unbiased
//     remaining depth, from StackBase) and the call's fuel is spent and
//     checked at once. The functions are pure, so the second run traps at
//     the same place, or at the call that spends the fuel, and the fast
//     path pays for neither.
//
// Optimizations that keep these semantics: a function's calls of itself in
// tail position become a loop (each iteration still checks and counts one
// call), small callees are inlined up to two levels deep (with the same
// checks, sites and trap values as a call), and a division by a constant
// other than 0 (or -1, when signed) has no check.
package wasm

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/capsulang/caps/codegen/core"
)

// Export names of the runtime state. Capsulang function names never
// contain a dot, so these cannot collide with a function's export.
const (
	ExportMemory     = "caps.memory"
	ExportDepth      = "caps.depth"
	ExportEntryDepth = "caps.entry_depth"
	ExportFuel       = "caps.fuel"
	ExportTrapSite   = "caps.trap_site"
)

// Defaults of the runtime globals (the interpreter's default budgets).
const (
	DefaultMaxDepth = 10_000
	DefaultFuel     = 10_000_000
)

// TraceBias is subtracted from caps.entry_depth to run in trace mode. A
// depth budget must be below it (the shadow stack could not be addressed
// in a 4 GiB memory otherwise).
const TraceBias = 1 << 30

// Trap codes stored in the first value slot for a trap at a call site.
const (
	CallTrapDepth = 0
	CallTrapFuel  = 1
)

// TrapFuelLate is the caps.trap_site of a function that found, when it
// returned, that the call budget ran out during its calls; the host runs
// the call again in trace mode, which stops at the call that spent it.
const TrapFuelLate = -2

const (
	gDepth = iota
	gEntryDepth
	gFuel
	gTrapSite
)

// Inlining: a callee of at most inlineMaxSize lowered expression nodes
// (contracts included) is inlined into the function's own code, and a
// recursive call of the function itself also into inlined code, up to
// inlineLevels deep (which unrolls recursion), until the function has
// grown by inlineBudget nodes.
const (
	inlineMaxSize = 40
	inlineLevels  = 2
	inlineBudget  = 300
)

// Module is a compiled module.
type Module struct {
	Core   *core.Module
	Binary []byte
	WAT    string
	// StackBase is the byte offset of the shadow call stack in
	// caps.memory; the trap values are at offset 0.
	StackBase int
	// Pages is the initial memory size in 64 KiB pages.
	Pages int
}

// Compile compiles every function of m.
func Compile(m *core.Module) (*Module, error) {
	if len(m.Funcs) == 0 {
		return nil, fmt.Errorf("no function of module %s is in the compiled subset", m.Name)
	}
	stackBase := 8 * (m.MaxParams() + 2)
	stackBase = (stackBase + 15) &^ 15
	pages := (stackBase + 4*(DefaultMaxDepth+1) + 65535) / 65536
	out := &Module{Core: m, StackBase: stackBase, Pages: pages}
	sizes := make([]int, len(m.Funcs))
	for i, f := range m.Funcs {
		sizes[i] = size(f)
	}
	var funcs []*fnCode
	for i, f := range m.Funcs {
		fc := &fnCode{m: m, f: f, fi: i, stackBase: stackBase, sizes: sizes}
		fc.compile()
		funcs = append(funcs, fc)
	}
	out.Binary = encodeBinary(m, funcs, pages, stackBase)
	out.WAT = encodeWAT(m, funcs, pages, stackBase)
	return out, nil
}

func valType(k core.Kind) byte {
	if k == core.Bool {
		return tI32
	}
	return tI64
}

// frame is one activation being compiled: the function's own, or a
// callee inlined into it.
type frame struct {
	f     *core.Func
	slot  []int // wasm local of each core slot
	depth int   // wasm local holding the remaining depth budget
	// loopAt is the block nesting outside the loop that tail calls of f
	// branch to, or -1 (no loop: tail calls are calls).
	loopAt int
	// inlined counts the frames this one is inlined into (0: the
	// function's own frame).
	inlined int
}

// fnCode is the code of one internal function.
type fnCode struct {
	m         *core.Module
	f         *core.Func
	fi        int
	sizes     []int // of every function, for inlining
	stackBase int
	locals    []byte // types of locals after the parameters
	localName []string
	code      []ins
	nest      int // open blocks
	// calls counts the calls made since the last flush to caps.fuel,
	// fuelTmp holds the new fuel; both are 0 (no local) in a function
	// without calls.
	calls, fuelTmp int
	inlines        int // frames inlined
	inlined        int // their total size
}

func (c *fnCode) emit(xs ...ins) {
	for _, x := range xs {
		switch x.name {
		case "if", "loop":
			c.nest++
		case "end":
			c.nest--
		}
	}
	c.code = append(c.code, xs...)
}

// newLocal allocates a local of type t.
func (c *fnCode) newLocal(t byte, name string) int {
	c.locals = append(c.locals, t)
	c.localName = append(c.localName, name)
	return len(c.f.Params) + len(c.locals)
}

// scratch allocates a fresh i64 local.
func (c *fnCode) scratch() int {
	return c.newLocal(tI64, fmt.Sprintf("$t%d", len(c.f.Params)+1+len(c.locals)))
}

func (c *fnCode) compile() {
	f := c.f
	fr := &frame{f: f, depth: len(f.Params), loopAt: -1}
	for i := range f.Params {
		fr.slot = append(fr.slot, i)
	}
	for i := len(f.Params); i < len(f.Locals); i++ {
		name := fmt.Sprintf("$l%d", i)
		if i == f.ResultSlot {
			name = "$result"
		}
		fr.slot = append(fr.slot, c.newLocal(valType(f.Locals[i]), name))
	}
	if hasCall(f) {
		c.calls = c.newLocal(tI64, "$caps.calls")
		c.fuelTmp = c.newLocal(tI64, "$caps.fuel")
	}
	// Tail calls of f to itself branch back to the top, unless ensures
	// clauses must run after the inner call returns.
	if len(f.Ensures) == 0 && c.selfTail(f.Body) {
		fr.loopAt = c.nest
		c.emit(ins{op: 0x03, name: "loop", imm: immBlock, b: valType(f.Result)})
		c.body(fr)
		c.emit(opEnd)
	} else {
		c.body(fr)
	}
	if c.calls != 0 {
		// Spend the calls not yet spent; running out here is reported
		// as TrapFuelLate, which the host replays in trace mode to find
		// the call that ran out.
		c.emit(globalGet(gFuel), localGet(c.calls), opI64Sub, localTee(c.fuelTmp), globalSet(gFuel),
			localGet(c.fuelTmp), i64Const(0), opI64LtS, ifBlock(tVoid))
		x := i32Const(TrapFuelLate)
		x.note = "call budget (late)"
		c.emit(x, globalSet(gTrapSite), opUnreachable, opEnd)
	}
	c.emit(opEnd)
}

// hasCall reports whether f calls a function.
func hasCall(f *core.Func) bool {
	found := false
	var walk func(core.Expr)
	walk = func(e core.Expr) {
		switch e := e.(type) {
		case *core.Call:
			found = true
		case *core.Not:
			walk(e.X)
		case *core.And:
			walk(e.A)
			walk(e.B)
		case *core.Or:
			walk(e.A)
			walk(e.B)
		case *core.If:
			walk(e.Cond)
			walk(e.Then)
			walk(e.Else)
		case *core.Let:
			walk(e.Value)
			walk(e.Body)
		case *core.Seq:
			for _, x := range e.Exprs {
				walk(x)
			}
		case *core.Bin:
			walk(e.A)
			walk(e.B)
		case *core.Trap:
			walk(e.Value)
		}
	}
	walk(f.Body)
	for _, r := range f.Requires {
		walk(r.Cond)
	}
	for _, e := range f.Ensures {
		walk(e.Cond)
	}
	return found
}

// selfTail reports whether e has a call of c.f in tail position.
func (c *fnCode) selfTail(e core.Expr) bool {
	switch e := e.(type) {
	case *core.Call:
		return e.Func == c.fi
	case *core.If:
		return c.selfTail(e.Then) || c.selfTail(e.Else)
	case *core.Let:
		return c.selfTail(e.Body)
	case *core.Seq:
		return c.selfTail(e.Exprs[len(e.Exprs)-1])
	}
	return false
}

// body emits the requires clauses, the body and the ensures clauses of
// the frame's function, leaving its result on the stack.
func (c *fnCode) body(fr *frame) {
	f := fr.f
	for _, r := range f.Requires {
		c.expr(fr, r.Cond, false)
		c.emit(opI32Eqz, ifBlock(tVoid))
		c.storeParams(fr)
		c.trap(fr, r.Site, "requires failed")
		c.emit(opEnd)
	}
	c.expr(fr, f.Body, fr.loopAt >= 0)
	if len(f.Ensures) > 0 {
		res := fr.slot[f.ResultSlot]
		c.emit(localSet(res))
		for _, e := range f.Ensures {
			c.expr(fr, e.Cond, false)
			c.emit(opI32Eqz, ifBlock(tVoid))
			c.storeParams(fr)
			c.storeValue(len(f.Params), func() { c.emit(localGet(res)) }, f.Result)
			c.trap(fr, e.Site, "ensures failed")
			c.emit(opEnd)
		}
		c.emit(localGet(res))
	}
}

// storeValue stores the value pushed by push, of kind k, as i64 in trap
// slot i.
func (c *fnCode) storeValue(i int, push func(), k core.Kind) {
	c.emit(i32Const(0))
	push()
	if k == core.Bool {
		c.emit(opI64ExtendU)
	}
	c.emit(i64Store(8 * i))
}

func (c *fnCode) storeParams(fr *frame) {
	for i, p := range fr.f.Params {
		c.storeValue(i, func() { c.emit(localGet(fr.slot[i])) }, p.K)
	}
}

// trap records the site and the frame's depth, spends the calls not yet
// spent (so that the host can tell whether the call budget ran out
// before), and stops.
func (c *fnCode) trap(fr *frame, site int, note string) {
	x := i32Const(int32(site))
	x.note = note
	c.emit(localGet(fr.depth), x)
	if c.calls != 0 {
		c.emit(localGet(c.calls))
	} else {
		c.emit(i64Const(0))
	}
	c.emit(call(2*len(c.m.Funcs)+helperTrap), opUnreachable)
}

var (
	opI64And = ins{op: 0x83, name: "i64.and"}
	opI64Or  = ins{op: 0x84, name: "i64.or"}
)

func (c *fnCode) wrap(k core.Kind) {
	switch k {
	case core.I32:
		c.emit(opI64Extend32)
	case core.U32:
		c.emit(i64Const(0xFFFFFFFF), opI64And)
	}
}

// expr emits e; tail is true where e's value is the frame's result and
// the frame loops on its tail calls.
func (c *fnCode) expr(fr *frame, e core.Expr, tail bool) {
	switch e := e.(type) {
	case *core.Const:
		if e.K == core.Bool {
			c.emit(i32Const(int32(e.Bits)))
		} else {
			c.emit(i64Const(int64(e.Bits)))
		}
	case *core.Local:
		c.emit(localGet(fr.slot[e.Index]))
	case *core.Not:
		c.expr(fr, e.X, false)
		c.emit(opI32Eqz)
	case *core.And:
		c.expr(fr, e.A, false)
		c.emit(ifBlock(tI32))
		c.expr(fr, e.B, false)
		c.emit(opElse, i32Const(0), opEnd)
	case *core.Or:
		c.expr(fr, e.A, false)
		c.emit(ifBlock(tI32), i32Const(1), opElse)
		c.expr(fr, e.B, false)
		c.emit(opEnd)
	case *core.If:
		c.expr(fr, e.Cond, false)
		c.emit(ifBlock(valType(e.K)))
		c.expr(fr, e.Then, tail)
		c.emit(opElse)
		c.expr(fr, e.Else, tail)
		c.emit(opEnd)
	case *core.Let:
		c.expr(fr, e.Value, false)
		c.emit(localSet(fr.slot[e.Index]))
		c.expr(fr, e.Body, tail)
	case *core.Seq:
		for i, x := range e.Exprs {
			last := i == len(e.Exprs)-1
			c.expr(fr, x, tail && last)
			if !last {
				c.emit(opDrop)
			}
		}
	case *core.Bin:
		c.bin(fr, e)
	case *core.Call:
		c.call(fr, e, tail)
	case *core.Trap:
		c.storeValue(0, func() { c.expr(fr, e.Value, false) }, core.KindOfExpr(e.Value))
		c.trap(fr, e.Site, "no arm matches")
	default:
		panic(fmt.Sprintf("wasm: unexpected expression %T", e))
	}
}

func (c *fnCode) bin(fr *frame, e *core.Bin) {
	k := e.K
	if e.Op.IsCompare() {
		c.expr(fr, e.A, false)
		c.expr(fr, e.B, false)
		if k == core.Bool {
			switch e.Op {
			case core.Eq:
				c.emit(opI32Eq)
			case core.Ne:
				c.emit(opI32Ne)
			}
			return
		}
		signed := k.Signed()
		pick := func(s, u ins) ins {
			if signed {
				return s
			}
			return u
		}
		switch e.Op {
		case core.Eq:
			c.emit(opI64Eq)
		case core.Ne:
			c.emit(opI64Ne)
		case core.Lt:
			c.emit(pick(opI64LtS, opI64LtU))
		case core.Le:
			c.emit(pick(opI64LeS, opI64LeU))
		case core.Gt:
			c.emit(pick(opI64GtS, opI64GtU))
		case core.Ge:
			c.emit(pick(opI64GeS, opI64GeU))
		}
		return
	}
	switch e.Op {
	case core.Add, core.Sub, core.Mul:
		c.expr(fr, e.A, false)
		c.expr(fr, e.B, false)
		switch e.Op {
		case core.Add:
			c.emit(opI64Add)
		case core.Sub:
			c.emit(opI64Sub)
		default:
			c.emit(opI64Mul)
		}
		c.wrap(k)
		return
	}
	div, rem := opI64DivU, opI64RemU
	if k.Signed() {
		div, rem = opI64DivS, opI64RemS
	}
	op := div
	if e.Op == core.Rem {
		op = rem
	}
	// A constant divisor other than 0 (and -1, for a signed division)
	// needs no check; rem_s by -1 is 0 and never traps. Constants are
	// canonical, so an I32 -1 is all ones.
	if d, ok := e.B.(*core.Const); ok && d.Bits != 0 && !(k.Signed() && e.Op == core.Div && int64(d.Bits) == -1) {
		c.expr(fr, e.A, false)
		// The quotient of a divisor other than -1, and any remainder,
		// stays in range: no re-extension.
		c.emit(i64Const(int64(d.Bits)), op)
		return
	}
	// Division and remainder: check the divisor, then divide.
	ta, tb := c.scratch(), c.scratch()
	c.expr(fr, e.A, false)
	c.emit(localSet(ta))
	c.expr(fr, e.B, false)
	c.emit(localTee(tb), opI64Eqz, ifBlock(tVoid))
	c.storeValue(0, func() { c.emit(localGet(ta)) }, k)
	c.trap(fr, e.Site, "division by zero")
	c.emit(opEnd)
	switch {
	case k == core.I64 && e.Op == core.Div:
		// i64.div_s traps on MIN / -1; the language wraps it to MIN.
		c.emit(localGet(tb), i64Const(-1), opI64Eq, ifBlock(tI64),
			i64Const(0), localGet(ta), opI64Sub, opElse,
			localGet(ta), localGet(tb), opI64DivS, opEnd)
	case k.Signed():
		// I32 operands are sign-extended, so the i64 operation cannot
		// overflow; rem_s never traps on -1.
		c.emit(localGet(ta), localGet(tb), op)
		c.wrap(k)
	default:
		c.emit(localGet(ta), localGet(tb), op)
	}
}

// checkCall emits what every call does before its callee runs, in the
// frame that calls: count the call, then, on the slow path only, the
// depth budget, the trace and the exact call budget (trace mode).
func (c *fnCode) checkCall(fr *frame, site int) {
	x := i32Const(int32(site))
	x.note = "slow path: depth budget, trace, call budget"
	c.emit(localGet(c.calls), i64Const(1), opI64Add, localSet(c.calls),
		// One comparison on the fast path: a remaining depth of 0 is the
		// depth budget, a negative one is trace mode.
		localGet(fr.depth), i32Const(0), opI32LeS, ifBlock(tVoid),
		localGet(fr.depth), x, localGet(c.calls), call(2*len(c.m.Funcs)+helperCallSlow),
		i64Const(0), localSet(c.calls),
		opEnd)
}

// Helper functions, after the internal functions and the wrappers.
const (
	helperCallSlow = iota
	helperTrap
	nHelpers
)

// helperNames are the helpers' WAT names.
var helperNames = [nHelpers]string{"$caps.call_slow", "$caps.trap"}

// helpers returns the code of the helper functions. Both take (depth i32,
// site i32, calls i64): the frame's remaining depth, the site, and the
// calls it has not spent from caps.fuel yet.
//
// caps.call_slow is the slow path of a call: it traps for the depth
// budget (at 0, and at -TraceBias in trace mode), writes the site on the
// shadow stack (trace mode), and spends the calls, trapping if the fuel
// runs out. caps.trap records the site and the depth, spends the calls
// (so that the host can tell whether the fuel ran out first) and stops.
func helpers(stackBase int) [nHelpers][]ins {
	const d, site, calls = 0, 1, 2
	trap := []ins{localGet(site), globalSet(gTrapSite), localGet(d), globalSet(gDepth)}
	slow := []ins{
		localGet(d), i32Const(TraceBias - 1), opI32And, opI32Eqz, ifBlock(tVoid),
		i32Const(0), i64Const(CallTrapDepth), i64Store(0),
	}
	slow = append(slow, trap...)
	slow = append(slow, globalGet(gFuel), localGet(calls), opI64Sub, globalSet(gFuel), opUnreachable, opEnd,
		// shadow[depth + TraceBias] = site: the shift drops the bias.
		localGet(d), i32Const(2), opI32Shl, localGet(site), i32Store(stackBase),
		globalGet(gFuel), localGet(calls), opI64Sub, globalSet(gFuel),
		globalGet(gFuel), i64Const(0), opI64LtS, ifBlock(tVoid),
		i32Const(0), i64Const(CallTrapFuel), i64Store(0))
	slow = append(slow, trap...)
	slow = append(slow, opUnreachable, opEnd, opEnd)
	t := append([]ins{}, trap...)
	t = append(t, globalGet(gFuel), localGet(calls), opI64Sub, globalSet(gFuel), opUnreachable, opEnd)
	return [nHelpers][]ins{slow, t}
}

// call emits a call: a branch back to the top for a tail call of the
// frame's own function, the callee's code for a small callee (once), or
// a call of the internal function with the depth budget less one.
func (c *fnCode) call(fr *frame, e *core.Call, tail bool) {
	g := c.m.Funcs[e.Func]
	switch {
	case tail && fr.loopAt >= 0 && g == fr.f:
		for _, a := range e.Args {
			c.expr(fr, a, false)
		}
		c.checkCall(fr, e.Site)
		for i := len(e.Args) - 1; i >= 0; i-- {
			c.emit(localSet(fr.slot[i]))
		}
		c.emit(localGet(fr.depth), i32Const(1), opI32Sub, localSet(fr.depth),
			ins{op: 0x0C, name: "br", imm: immIdx, i: int64(c.nest - 1 - fr.loopAt)})
	case (fr.inlined == 0 || fr.inlined < inlineLevels && e.Func == c.fi) &&
		c.sizes[e.Func] <= inlineMaxSize && c.inlined+c.sizes[e.Func] <= inlineBudget:
		c.inlined += c.sizes[e.Func]
		c.inline(fr, e, g)
	default:
		for _, a := range e.Args {
			c.expr(fr, a, false)
		}
		c.checkCall(fr, e.Site)
		x := call(e.Func)
		c.emit(localGet(fr.depth), i32Const(1), opI32Sub, x)
	}
}

// inline emits the call e of g as g's code in a new frame.
func (c *fnCode) inline(fr *frame, e *core.Call, g *core.Func) {
	c.inlines++
	in := &frame{f: g, loopAt: -1, inlined: fr.inlined + 1}
	for i, k := range g.Locals {
		name := fmt.Sprintf("$i%d.l%d", c.inlines, i)
		if i < len(g.Params) {
			name = fmt.Sprintf("$i%d.%s", c.inlines, strings.TrimPrefix(watIdent(g.Params[i].Name), "$"))
		}
		in.slot = append(in.slot, c.newLocal(valType(k), name))
	}
	for i, a := range e.Args {
		c.expr(fr, a, false)
		c.emit(localSet(in.slot[i]))
	}
	c.checkCall(fr, e.Site)
	in.depth = c.newLocal(tI32, fmt.Sprintf("$i%d.caps.d", c.inlines))
	c.emit(localGet(fr.depth), i32Const(1), opI32Sub, localSet(in.depth))
	c.body(in)
}

// size measures a function for inlining.
func size(f *core.Func) int {
	n := exprSize(f.Body)
	for _, r := range f.Requires {
		n += exprSize(r.Cond)
	}
	for _, e := range f.Ensures {
		n += exprSize(e.Cond)
	}
	return n
}

func exprSize(e core.Expr) int {
	switch e := e.(type) {
	case *core.Not:
		return 1 + exprSize(e.X)
	case *core.And:
		return 1 + exprSize(e.A) + exprSize(e.B)
	case *core.Or:
		return 1 + exprSize(e.A) + exprSize(e.B)
	case *core.If:
		return 1 + exprSize(e.Cond) + exprSize(e.Then) + exprSize(e.Else)
	case *core.Let:
		return 1 + exprSize(e.Value) + exprSize(e.Body)
	case *core.Seq:
		n := 1
		for _, x := range e.Exprs {
			n += exprSize(x)
		}
		return n
	case *core.Bin:
		return 1 + exprSize(e.A) + exprSize(e.B)
	case *core.Call:
		n := 4 // the checks
		for _, a := range e.Args {
			n += exprSize(a)
		}
		return n
	case *core.Trap:
		return 1 + exprSize(e.Value)
	}
	return 1
}

// ---- module encoding

type sigKey string

// signature returns the value types of f's parameters and result; the
// internal function has the depth budget as its last parameter.
func signature(f *core.Func, internal bool) (params []byte, result byte) {
	for _, p := range f.Params {
		params = append(params, valType(p.K))
	}
	if internal {
		params = append(params, tI32)
	}
	return params, valType(f.Result)
}

// The internal functions come first (function i is Funcs[i]), then the
// exported wrappers.
func encodeBinary(m *core.Module, funcs []*fnCode, pages, stackBase int) []byte {
	b := []byte{0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00}
	// Types, deduplicated in order of first use (as wat2wasm does).
	typeIdx := map[sigKey]int{}
	var typeBody []byte
	var funcTypes []int
	addType := func(ps, rs []byte) {
		key := sigKey(string(ps) + "->" + string(rs))
		idx, ok := typeIdx[key]
		if !ok {
			idx = len(typeIdx)
			typeIdx[key] = idx
			typeBody = append(typeBody, 0x60)
			typeBody = append(typeBody, vec(len(ps), ps)...)
			typeBody = append(typeBody, vec(len(rs), rs)...)
		}
		funcTypes = append(funcTypes, idx)
	}
	for _, internal := range []bool{true, false} {
		for _, f := range m.Funcs {
			ps, r := signature(f, internal)
			addType(ps, []byte{r})
		}
	}
	for range nHelpers {
		addType(helperParams, nil)
	}
	b = section(b, 1, vec(len(typeIdx), typeBody))
	var fsec []byte
	for _, t := range funcTypes {
		fsec = appendULEB(fsec, uint64(t))
	}
	b = section(b, 3, vec(len(funcTypes), fsec))
	// Memory: min pages, no max.
	b = section(b, 5, vec(1, appendULEB([]byte{0x00}, uint64(pages))))
	// Globals.
	var gsec []byte
	for _, g := range globals {
		op := byte(0x41)
		if g.t == tI64 {
			op = 0x42
		}
		gsec = append(gsec, g.t, 1, op)
		gsec = appendSLEB(gsec, g.init)
		gsec = append(gsec, 0x0B)
	}
	b = section(b, 6, vec(len(globals), gsec))
	// Exports: memory, globals, then the wrappers.
	var esec []byte
	n := 0
	exp := func(name string, kind byte, idx int) {
		esec = appendName(esec, name)
		esec = append(esec, kind)
		esec = appendULEB(esec, uint64(idx))
		n++
	}
	exp(ExportMemory, 0x02, 0)
	for i, g := range globals {
		exp(g.export, 0x03, i)
	}
	for i, f := range m.Funcs {
		exp(f.Name, 0x00, len(m.Funcs)+i)
	}
	b = section(b, 7, vec(n, esec))
	// Code.
	var csec []byte
	addBody := func(locals []byte, code []ins) {
		body := localGroups(locals)
		for _, x := range code {
			body = x.encode(body)
		}
		csec = appendULEB(csec, uint64(len(body)))
		csec = append(csec, body...)
	}
	for _, fc := range funcs {
		addBody(fc.locals, fc.code)
	}
	for i, f := range m.Funcs {
		addBody(nil, wrapper(i, f))
	}
	for _, h := range helpers(stackBase) {
		addBody(nil, h)
	}
	b = section(b, 10, vec(2*len(funcs)+nHelpers, csec))
	return b
}

// helperParams are the helpers' parameter types.
var helperParams = []byte{tI32, tI32, tI64}

// wrapper is the code of function fi's export: its parameters and
// caps.entry_depth, passed to the internal function.
func wrapper(fi int, f *core.Func) []ins {
	var code []ins
	for i := range f.Params {
		code = append(code, localGet(i))
	}
	return append(code, globalGet(gEntryDepth), call(fi), opEnd)
}

// globals are the runtime globals, in index order.
var globals = []struct {
	name, export string
	t            byte
	init         int64
}{
	{"$caps.depth", ExportDepth, tI32, 0},
	{"$caps.entry_depth", ExportEntryDepth, tI32, DefaultMaxDepth - 1},
	{"$caps.fuel", ExportFuel, tI64, DefaultFuel},
	{"$caps.trap_site", ExportTrapSite, tI32, -1},
}

// depthParam names the internal functions' depth-budget parameter.
const depthParam = "$caps.d"

func encodeWAT(m *core.Module, funcs []*fnCode, pages, stackBase int) string {
	var b strings.Builder
	n := 0
	for _, fc := range funcs {
		n += len(fc.code)
	}
	b.Grow(32 * n)
	fmt.Fprintf(&b, ";; Generated by caps compile --target wat from module %s.\n", m.Name)
	b.WriteString(";; ABI: integers are i64 (I32 sign-extended, U32 zero-extended), Bool is i32.\n")
	b.WriteString(";; Each export calls its internal function with the depth budget caps.entry_depth.\n")
	b.WriteString(";; Traps set caps.trap_site and store their values at the start of caps.memory.\n")
	fmt.Fprintf(&b, "(module %s\n", watIdent(m.Name))
	fmt.Fprintf(&b, "  (memory (export %q) %d)\n", ExportMemory, pages)
	for _, g := range globals {
		fmt.Fprintf(&b, "  (global %s (export %q) (mut %s) (%s.const %d))\n", g.name, g.export, typeName(g.t), typeName(g.t), g.init)
	}
	funcName := func(i int) string {
		if i >= 2*len(m.Funcs) {
			return helperNames[i-2*len(m.Funcs)]
		}
		return watIdent(m.Funcs[i].Name)
	}
	for _, fc := range funcs {
		f := fc.f
		fmt.Fprintf(&b, "  (func %s", funcName(fc.fi))
		localNames := map[int]string{}
		for i, p := range f.Params {
			n := watIdent(p.Name)
			localNames[i] = n
			fmt.Fprintf(&b, " (param %s %s)", n, typeName(valType(p.K)))
		}
		localNames[len(f.Params)] = depthParam
		fmt.Fprintf(&b, " (param %s i32) (result %s)\n", depthParam, typeName(valType(f.Result)))
		for i, t := range fc.locals {
			n := fc.localName[i]
			localNames[len(f.Params)+1+i] = n
			fmt.Fprintf(&b, "    (local %s %s)\n", n, typeName(t))
		}
		writeCode(&b, fc.code, localNames, funcName)
		b.WriteString("  )\n")
	}
	for i, f := range m.Funcs {
		fmt.Fprintf(&b, "  (func (export %q)", f.Name)
		localNames := map[int]string{}
		for i, p := range f.Params {
			n := watIdent(p.Name)
			localNames[i] = n
			fmt.Fprintf(&b, " (param %s %s)", n, typeName(valType(p.K)))
		}
		fmt.Fprintf(&b, " (result %s)\n", typeName(valType(f.Result)))
		writeCode(&b, wrapper(i, f), localNames, funcName)
		b.WriteString("  )\n")
	}
	hs := helpers(stackBase)
	for i, h := range hs {
		fmt.Fprintf(&b, "  (func %s (param $d i32) (param $site i32) (param $calls i64)\n", helperNames[i])
		writeCode(&b, h, map[int]string{0: "$d", 1: "$site", 2: "$calls"}, funcName)
		b.WriteString("  )\n")
	}
	b.WriteString(")\n")
	return b.String()
}

// writeCode writes a function body in the flat syntax, indented by block.
func writeCode(b *strings.Builder, code []ins, localNames map[int]string, funcName func(int) string) {
	names := func(x ins) string {
		switch x.name {
		case "local.get", "local.set", "local.tee":
			return localNames[int(x.i)]
		case "global.get", "global.set":
			return globals[x.i].name
		case "call":
			return funcName(int(x.i))
		}
		return strconv.FormatInt(x.i, 10)
	}
	depth := 2
	for i, x := range code {
		if i == len(code)-1 && x.name == "end" {
			break // the function's own end is the closing parenthesis
		}
		if x.name == "end" || x.name == "else" {
			depth--
		}
		for range depth {
			b.WriteString("  ")
		}
		x.writeText(b, names)
		b.WriteByte('\n')
		if x.name == "if" || x.name == "else" || x.name == "loop" {
			depth++
		}
	}
}
