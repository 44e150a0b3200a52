package wasm

import (
	"strconv"
	"strings"
)

// Value types.
const (
	tI32  byte = 0x7F
	tI64  byte = 0x7E
	tVoid byte = 0x40 // the empty block type
)

func typeName(t byte) string {
	switch t {
	case tI32:
		return "i32"
	case tI64:
		return "i64"
	}
	return ""
}

type immKind uint8

const (
	immNone  immKind = iota
	immI32           // signed LEB128 constant
	immI64           // signed LEB128 constant
	immIdx           // unsigned index (local, global, function)
	immBlock         // block type byte
	immMem           // memarg: align, offset
)

// ins is one instruction; the binary and text encoders share it.
type ins struct {
	op   byte
	name string
	imm  immKind
	i    int64  // constant, index or offset
	b    byte   // block type, or memarg alignment (log2)
	note string // a comment for the text form
}

var (
	opUnreachable = ins{op: 0x00, name: "unreachable"}
	opElse        = ins{op: 0x05, name: "else"}
	opEnd         = ins{op: 0x0B, name: "end"}
	opDrop        = ins{op: 0x1A, name: "drop"}
	opI32Eqz      = ins{op: 0x45, name: "i32.eqz"}
	opI32LeS      = ins{op: 0x4C, name: "i32.le_s"}
	opI32And      = ins{op: 0x71, name: "i32.and"}
	opI32Add      = ins{op: 0x6A, name: "i32.add"}
	opI32Sub      = ins{op: 0x6B, name: "i32.sub"}
	opI32Shl      = ins{op: 0x74, name: "i32.shl"}
	opI64Eqz      = ins{op: 0x50, name: "i64.eqz"}
	opI64Eq       = ins{op: 0x51, name: "i64.eq"}
	opI64Ne       = ins{op: 0x52, name: "i64.ne"}
	opI64LtS      = ins{op: 0x53, name: "i64.lt_s"}
	opI64LtU      = ins{op: 0x54, name: "i64.lt_u"}
	opI64GtS      = ins{op: 0x55, name: "i64.gt_s"}
	opI64GtU      = ins{op: 0x56, name: "i64.gt_u"}
	opI64LeS      = ins{op: 0x57, name: "i64.le_s"}
	opI64LeU      = ins{op: 0x58, name: "i64.le_u"}
	opI64GeS      = ins{op: 0x59, name: "i64.ge_s"}
	opI64GeU      = ins{op: 0x5A, name: "i64.ge_u"}
	opI32Eq       = ins{op: 0x46, name: "i32.eq"}
	opI32Ne       = ins{op: 0x47, name: "i32.ne"}
	opI64Add      = ins{op: 0x7C, name: "i64.add"}
	opI64Sub      = ins{op: 0x7D, name: "i64.sub"}
	opI64Mul      = ins{op: 0x7E, name: "i64.mul"}
	opI64DivS     = ins{op: 0x7F, name: "i64.div_s"}
	opI64DivU     = ins{op: 0x80, name: "i64.div_u"}
	opI64RemS     = ins{op: 0x81, name: "i64.rem_s"}
	opI64RemU     = ins{op: 0x82, name: "i64.rem_u"}
	opI64Extend32 = ins{op: 0xC4, name: "i64.extend32_s"}
	opI64ExtendU  = ins{op: 0xAD, name: "i64.extend_i32_u"}
	opI32WrapI64  = ins{op: 0xA7, name: "i32.wrap_i64"}
)

func localGet(i int) ins  { return ins{op: 0x20, name: "local.get", imm: immIdx, i: int64(i)} }
func localSet(i int) ins  { return ins{op: 0x21, name: "local.set", imm: immIdx, i: int64(i)} }
func localTee(i int) ins  { return ins{op: 0x22, name: "local.tee", imm: immIdx, i: int64(i)} }
func globalGet(i int) ins { return ins{op: 0x23, name: "global.get", imm: immIdx, i: int64(i)} }
func globalSet(i int) ins { return ins{op: 0x24, name: "global.set", imm: immIdx, i: int64(i)} }
func call(i int) ins      { return ins{op: 0x10, name: "call", imm: immIdx, i: int64(i)} }
func i32Const(v int32) ins {
	return ins{op: 0x41, name: "i32.const", imm: immI32, i: int64(v)}
}
func i64Const(v int64) ins { return ins{op: 0x42, name: "i64.const", imm: immI64, i: v} }
func ifBlock(t byte) ins   { return ins{op: 0x04, name: "if", imm: immBlock, b: t} }
func i64Store(off int) ins {
	return ins{op: 0x37, name: "i64.store", imm: immMem, b: 3, i: int64(off)}
}
func i32Store(off int) ins {
	return ins{op: 0x36, name: "i32.store", imm: immMem, b: 2, i: int64(off)}
}

// ---- LEB128

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7F)
		v >>= 7
		done := v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0
		if !done {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func appendName(b []byte, s string) []byte {
	b = appendULEB(b, uint64(len(s)))
	return append(b, s...)
}

func (x ins) encode(b []byte) []byte {
	b = append(b, x.op)
	switch x.imm {
	case immI32, immI64:
		b = appendSLEB(b, x.i)
	case immIdx:
		b = appendULEB(b, uint64(x.i))
	case immBlock:
		b = append(b, x.b)
	case immMem:
		b = appendULEB(b, uint64(x.b))
		b = appendULEB(b, uint64(x.i))
	}
	return b
}

// writeText writes the instruction in the WAT flat syntax.
func (x ins) writeText(b *strings.Builder, names func(ins) string) {
	b.WriteString(x.name)
	switch x.imm {
	case immI32, immI64:
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(x.i, 10))
	case immIdx:
		b.WriteByte(' ')
		b.WriteString(names(x))
	case immBlock:
		if x.b != tVoid {
			b.WriteString(" (result ")
			b.WriteString(typeName(x.b))
			b.WriteByte(')')
		}
	case immMem:
		if x.i != 0 {
			b.WriteString(" offset=")
			b.WriteString(strconv.FormatInt(x.i, 10))
		}
	}
	if x.note != "" {
		b.WriteString("  ;; ")
		b.WriteString(x.note)
	}
}

// section appends a section with its id and size.
func section(b []byte, id byte, body []byte) []byte {
	b = append(b, id)
	b = appendULEB(b, uint64(len(body)))
	return append(b, body...)
}

// vec prefixes items with their count.
func vec(n int, items []byte) []byte {
	return append(appendULEB(nil, uint64(n)), items...)
}

// localGroups run-length encodes local types as the code section wants.
func localGroups(ts []byte) []byte {
	var body []byte
	n := 0
	for i := 0; i < len(ts); {
		j := i
		for j < len(ts) && ts[j] == ts[i] {
			j++
		}
		body = appendULEB(body, uint64(j-i))
		body = append(body, ts[i])
		n++
		i = j
	}
	return vec(n, body)
}

// watIdent makes a WAT identifier ($name) from a Capsulang name.
func watIdent(s string) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, r := range s {
		if r < 0x7F && r > ' ' && !strings.ContainsRune(`"(),;[]{}`, r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
