// Package wasm compiles the pure scalar subset of Capsule Core (package
// codegen/core) to a WebAssembly module, written directly as binary .wasm
// and as WAT text for people. No external assembler is involved; the WAT
// text assembles (with wat2wasm) to the same bytes.
//
// ABI (docs/codegen.md):
//
//   - every compiled function is exported under its Capsulang name;
//     integers (I32, I64/Int, U32, U64) are i64 parameters and results,
//     I32 kept sign-extended and U32 zero-extended; Bool is i32 0 or 1;
//   - integer operations wrap at their type's width (32-bit results are
//     re-extended after + - *), signed division truncates, MIN / -1 is MIN
//     (guarded: i64.div_s would trap), MIN % -1 is 0, unsigned kinds use
//     div_u, rem_u and unsigned comparisons;
//   - a trap (division by zero, failed requires/ensures, a match without a
//     matching arm, the depth budget, the call budget) sets the global
//     caps.trap_site to the site's number, stores the values its message
//     needs as i64 at the start of caps.memory, and executes unreachable;
//   - caps.depth counts nested calls and caps.max_depth bounds them, as the
//     interpreter's depth budget does; a shadow stack of call-site numbers
//     (one i32 per active call, from StackBase) lets the host rebuild the
//     interpreter's call trace; caps.fuel counts calls down and traps below
//     zero (a coarse stand-in for the interpreter's step budget).
package wasm

import (
	"fmt"
	"strings"

	"github.com/capsulang/caps/codegen/core"
)

// Export names of the runtime state. Capsulang function names never
// contain a dot, so these cannot collide with a function's export.
const (
	ExportMemory   = "caps.memory"
	ExportDepth    = "caps.depth"
	ExportMaxDepth = "caps.max_depth"
	ExportFuel     = "caps.fuel"
	ExportTrapSite = "caps.trap_site"
)

// Defaults of the runtime globals (the interpreter's default budgets).
const (
	DefaultMaxDepth = 10_000
	DefaultFuel     = 10_000_000
)

// Trap codes stored in the first value slot for a trap at a call site.
const (
	CallTrapDepth = 0
	CallTrapFuel  = 1
)

const (
	gDepth = iota
	gMaxDepth
	gFuel
	gTrapSite
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
	var funcs []*fnCode
	for _, f := range m.Funcs {
		fc := &fnCode{m: m, f: f, stackBase: stackBase}
		fc.compile()
		funcs = append(funcs, fc)
	}
	out.Binary = encodeBinary(m, funcs, pages)
	out.WAT = encodeWAT(m, funcs, pages)
	return out, nil
}

func valType(k core.Kind) byte {
	if k == core.Bool {
		return tI32
	}
	return tI64
}

type fnCode struct {
	m         *core.Module
	f         *core.Func
	stackBase int
	locals    []byte // types of locals after the parameters
	localName []string
	code      []ins
	depth     int // block nesting, for the text form
}

func (c *fnCode) emit(xs ...ins) { c.code = append(c.code, xs...) }

// scratch allocates a fresh i64 local.
func (c *fnCode) scratch() int {
	c.locals = append(c.locals, tI64)
	idx := len(c.f.Params) + len(c.locals) - 1
	c.localName = append(c.localName, fmt.Sprintf("$t%d", idx))
	return idx
}

func (c *fnCode) compile() {
	f := c.f
	for i := len(f.Params); i < len(f.Locals); i++ {
		c.locals = append(c.locals, valType(f.Locals[i]))
		name := fmt.Sprintf("$l%d", i)
		if i == f.ResultSlot {
			name = "$result"
		}
		c.localName = append(c.localName, name)
	}
	for _, r := range f.Requires {
		c.expr(r.Cond)
		c.emit(opI32Eqz, ifBlock(tVoid))
		c.storeParams()
		c.trap(r.Site, "requires failed")
		c.emit(opEnd)
	}
	c.expr(f.Body)
	if len(f.Ensures) > 0 {
		c.emit(localSet(f.ResultSlot))
		for _, e := range f.Ensures {
			c.expr(e.Cond)
			c.emit(opI32Eqz, ifBlock(tVoid))
			c.storeParams()
			c.storeValue(len(f.Params), func() { c.emit(localGet(f.ResultSlot)) }, f.Result)
			c.trap(e.Site, "ensures failed")
			c.emit(opEnd)
		}
		c.emit(localGet(f.ResultSlot))
	}
	c.emit(opEnd)
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

func (c *fnCode) storeParams() {
	for i, p := range c.f.Params {
		c.storeValue(i, func() { c.emit(localGet(i)) }, p.K)
	}
}

func (c *fnCode) trap(site int, note string) {
	x := i32Const(int32(site))
	x.note = note
	c.emit(x, globalSet(gTrapSite), opUnreachable)
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

func (c *fnCode) expr(e core.Expr) {
	switch e := e.(type) {
	case *core.Const:
		if e.K == core.Bool {
			c.emit(i32Const(int32(e.Bits)))
		} else {
			c.emit(i64Const(int64(e.Bits)))
		}
	case *core.Local:
		c.emit(localGet(e.Index))
	case *core.Not:
		c.expr(e.X)
		c.emit(opI32Eqz)
	case *core.And:
		c.expr(e.A)
		c.emit(ifBlock(tI32))
		c.expr(e.B)
		c.emit(opElse, i32Const(0), opEnd)
	case *core.Or:
		c.expr(e.A)
		c.emit(ifBlock(tI32), i32Const(1), opElse)
		c.expr(e.B)
		c.emit(opEnd)
	case *core.If:
		c.expr(e.Cond)
		c.emit(ifBlock(valType(e.K)))
		c.expr(e.Then)
		c.emit(opElse)
		c.expr(e.Else)
		c.emit(opEnd)
	case *core.Let:
		c.expr(e.Value)
		c.emit(localSet(e.Index))
		c.expr(e.Body)
	case *core.Seq:
		for i, x := range e.Exprs {
			c.expr(x)
			if i < len(e.Exprs)-1 {
				c.emit(opDrop)
			}
		}
	case *core.Bin:
		c.bin(e)
	case *core.Call:
		c.call(e)
	case *core.Trap:
		c.storeValue(0, func() { c.expr(e.Value) }, core.KindOfExpr(e.Value))
		c.trap(e.Site, "no arm matches")
	default:
		panic(fmt.Sprintf("wasm: unexpected expression %T", e))
	}
}

func (c *fnCode) bin(e *core.Bin) {
	k := e.K
	if e.Op.IsCompare() {
		c.expr(e.A)
		c.expr(e.B)
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
		c.expr(e.A)
		c.expr(e.B)
		c.emit(map[core.Op]ins{core.Add: opI64Add, core.Sub: opI64Sub, core.Mul: opI64Mul}[e.Op])
		c.wrap(k)
		return
	}
	// Division and remainder: check the divisor, then divide.
	ta, tb := c.scratch(), c.scratch()
	c.expr(e.A)
	c.emit(localSet(ta))
	c.expr(e.B)
	c.emit(localTee(tb), opI64Eqz, ifBlock(tVoid))
	c.storeValue(0, func() { c.emit(localGet(ta)) }, k)
	c.trap(e.Site, "division by zero")
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
		c.emit(localGet(ta), localGet(tb))
		if e.Op == core.Div {
			c.emit(opI64DivS)
		} else {
			c.emit(opI64RemS)
		}
		c.wrap(k)
	default:
		c.emit(localGet(ta), localGet(tb))
		if e.Op == core.Div {
			c.emit(opI64DivU)
		} else {
			c.emit(opI64RemU)
		}
	}
}

// call checks the depth and call budgets, records the call site on the
// shadow stack, calls, and pops the depth.
func (c *fnCode) call(e *core.Call) {
	for _, a := range e.Args {
		c.expr(a)
	}
	site := int32(e.Site)
	// depth >= max_depth: the depth budget.
	c.emit(globalGet(gDepth), globalGet(gMaxDepth), opI32GeU, ifBlock(tVoid),
		i32Const(0), i64Const(CallTrapDepth), i64Store(0))
	c.trap(e.Site, "depth budget")
	c.emit(opEnd)
	// fuel -= 1; fuel < 0: the call budget.
	c.emit(globalGet(gFuel), i64Const(1), opI64Sub, ins{op: 0x24, name: "global.set", imm: immIdx, i: gFuel},
		globalGet(gFuel), i64Const(0), opI64LtS, ifBlock(tVoid),
		i32Const(0), i64Const(CallTrapFuel), i64Store(0))
	c.trap(e.Site, "call budget")
	c.emit(opEnd)
	// shadow[depth] = site; depth += 1
	c.emit(globalGet(gDepth), i32Const(2), opI32Shl, i32Const(site), i32Store(c.stackBase),
		globalGet(gDepth), i32Const(1), opI32Add, globalSet(gDepth))
	x := call(e.Func)
	x.note = ""
	c.emit(x)
	c.emit(globalGet(gDepth), i32Const(1), opI32Sub, globalSet(gDepth))
}

// ---- module encoding

type sigKey string

func signature(f *core.Func) (params []byte, result byte) {
	for _, p := range f.Params {
		params = append(params, valType(p.K))
	}
	return params, valType(f.Result)
}

func encodeBinary(m *core.Module, funcs []*fnCode, pages int) []byte {
	b := []byte{0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00}
	// Types, deduplicated in order of first use (as wat2wasm does).
	typeIdx := map[sigKey]int{}
	var typeBody []byte
	var funcTypes []int
	for _, f := range m.Funcs {
		ps, r := signature(f)
		key := sigKey(string(ps) + "->" + string(r))
		idx, ok := typeIdx[key]
		if !ok {
			idx = len(typeIdx)
			typeIdx[key] = idx
			typeBody = append(typeBody, 0x60)
			typeBody = append(typeBody, vec(len(ps), ps)...)
			typeBody = append(typeBody, 1, r)
		}
		funcTypes = append(funcTypes, idx)
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
	gsec = append(gsec, tI32, 1, 0x41)
	gsec = appendSLEB(gsec, 0)
	gsec = append(gsec, 0x0B)
	gsec = append(gsec, tI32, 1, 0x41)
	gsec = appendSLEB(gsec, DefaultMaxDepth)
	gsec = append(gsec, 0x0B)
	gsec = append(gsec, tI64, 1, 0x42)
	gsec = appendSLEB(gsec, DefaultFuel)
	gsec = append(gsec, 0x0B)
	gsec = append(gsec, tI32, 1, 0x41)
	gsec = appendSLEB(gsec, -1)
	gsec = append(gsec, 0x0B)
	b = section(b, 6, vec(4, gsec))
	// Exports: memory, globals, then functions.
	var esec []byte
	n := 0
	exp := func(name string, kind byte, idx int) {
		esec = appendName(esec, name)
		esec = append(esec, kind)
		esec = appendULEB(esec, uint64(idx))
		n++
	}
	exp(ExportMemory, 0x02, 0)
	for i, g := range []string{ExportDepth, ExportMaxDepth, ExportFuel, ExportTrapSite} {
		exp(g, 0x03, i)
	}
	for i, f := range m.Funcs {
		exp(f.Name, 0x00, i)
	}
	b = section(b, 7, vec(n, esec))
	// Code.
	var csec []byte
	for _, fc := range funcs {
		body := localGroups(fc.locals)
		for _, x := range fc.code {
			body = x.encode(body)
		}
		csec = appendULEB(csec, uint64(len(body)))
		csec = append(csec, body...)
	}
	b = section(b, 10, vec(len(funcs), csec))
	return b
}

func encodeWAT(m *core.Module, funcs []*fnCode, pages int) string {
	var b strings.Builder
	fmt.Fprintf(&b, ";; Generated by caps compile --target wat from module %s.\n", m.Name)
	b.WriteString(";; ABI: integers are i64 (I32 sign-extended, U32 zero-extended), Bool is i32.\n")
	b.WriteString(";; Traps set caps.trap_site and store their values at the start of caps.memory.\n")
	fmt.Fprintf(&b, "(module %s\n", watIdent(m.Name))
	fmt.Fprintf(&b, "  (memory (export %q) %d)\n", ExportMemory, pages)
	fmt.Fprintf(&b, "  (global $caps.depth (export %q) (mut i32) (i32.const 0))\n", ExportDepth)
	fmt.Fprintf(&b, "  (global $caps.max_depth (export %q) (mut i32) (i32.const %d))\n", ExportMaxDepth, DefaultMaxDepth)
	fmt.Fprintf(&b, "  (global $caps.fuel (export %q) (mut i64) (i64.const %d))\n", ExportFuel, DefaultFuel)
	fmt.Fprintf(&b, "  (global $caps.trap_site (export %q) (mut i32) (i32.const -1))\n", ExportTrapSite)
	globalNames := []string{"$caps.depth", "$caps.max_depth", "$caps.fuel", "$caps.trap_site"}
	for _, fc := range funcs {
		f := fc.f
		fmt.Fprintf(&b, "  (func %s (export %q)", watIdent(f.Name), f.Name)
		localNames := map[int]string{}
		for i, p := range f.Params {
			n := watIdent(p.Name)
			localNames[i] = n
			fmt.Fprintf(&b, " (param %s %s)", n, typeName(valType(p.K)))
		}
		fmt.Fprintf(&b, " (result %s)\n", typeName(valType(f.Result)))
		for i, t := range fc.locals {
			n := fc.localName[i]
			localNames[len(f.Params)+i] = n
			fmt.Fprintf(&b, "    (local %s %s)\n", n, typeName(t))
		}
		names := func(x ins) string {
			switch x.name {
			case "local.get", "local.set", "local.tee":
				return localNames[int(x.i)]
			case "global.get", "global.set":
				return globalNames[x.i]
			case "call":
				return watIdent(m.Funcs[x.i].Name)
			}
			return fmt.Sprint(x.i)
		}
		depth := 2
		for i, x := range fc.code {
			if i == len(fc.code)-1 && x.name == "end" {
				break // the function's own end is the closing parenthesis
			}
			if x.name == "end" || x.name == "else" {
				depth--
			}
			b.WriteString(strings.Repeat("  ", depth) + x.text(names) + "\n")
			if x.name == "if" || x.name == "else" {
				depth++
			}
		}
		b.WriteString("  )\n")
	}
	b.WriteString(")\n")
	return b.String()
}
