// Package value holds Capsulang runtime values: one Value type for every
// kind of value the checker knows, with printing in Capsulang syntax
// (String), a stable JSON encoding (MarshalJSON, FromJSON), structural
// equality (Equal), a total order (Compare) and parsing of command-line
// arguments against a type (Parse).
//
// A Value is a small struct passed by value. Integers, Bool, Duration,
// Timestamp and enum members are stored inline, so computing with them
// does not allocate; text, records, variants and collections refer to
// immutable shared data. No operation modifies a Value in place.
package value

import (
	"math/big"

	"github.com/capsulang/caps/analysis/types"
)

// Kind says what a Value is.
type Kind uint8

// Value kinds. Every integer type has KindInt; IntKind tells them apart.
const (
	KindInvalid Kind = iota // the zero Value
	KindUnit
	KindBool
	KindInt
	KindText
	KindDuration
	KindTimestamp
	KindJson
	KindAddress
	KindBytes32
	KindRecord
	KindEnum
	KindVariant
	KindOption
	KindResult
	KindList
	KindMap
)

var kindNames = [...]string{
	KindInvalid: "invalid", KindUnit: "Unit", KindBool: "Bool", KindInt: "integer", KindText: "Text",
	KindDuration: "Duration", KindTimestamp: "Timestamp", KindJson: "Json", KindAddress: "Address",
	KindBytes32: "Bytes32", KindRecord: "record", KindEnum: "enum", KindVariant: "variant",
	KindOption: "Option", KindResult: "Result", KindList: "List", KindMap: "Map",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// IntKind is the integer type of a KindInt value. Int and I64 are the same
// type and share IntI64.
type IntKind uint8

// Integer kinds.
const (
	IntNone IntKind = iota
	IntI32
	IntI64 // also Int
	IntU32
	IntU64
	IntWei // 256-bit unsigned
)

var intKindNames = [...]string{IntNone: "?", IntI32: "I32", IntI64: "I64", IntU32: "U32", IntU64: "U64", IntWei: "Wei"}

func (k IntKind) String() string {
	if int(k) < len(intKindNames) {
		return intKindNames[k]
	}
	return "?"
}

// Signed reports whether k is a signed integer kind.
func (k IntKind) Signed() bool { return k == IntI32 || k == IntI64 }

// Bits returns the width of k in bits.
func (k IntKind) Bits() int {
	switch k {
	case IntI32, IntU32:
		return 32
	case IntWei:
		return 256
	}
	return 64
}

// IntKindOf returns the integer kind of an integer type, or IntNone.
func IntKindOf(t types.Type) IntKind {
	b, ok := t.(*types.Basic)
	if !ok {
		return IntNone
	}
	switch b.Kind {
	case types.I32:
		return IntI32
	case types.I64, types.Int, types.UntypedInt:
		return IntI64
	case types.U32:
		return IntU32
	case types.U64:
		return IntU64
	case types.Wei:
		return IntWei
	}
	return IntNone
}

// Value is a Capsulang runtime value. The zero Value is invalid.
type Value struct {
	k   Kind
	ik  IntKind
	n   uint64 // integer bits, Bool, Duration/Timestamp milliseconds, enum member, option/result tag, variant case
	ref any    // string, *big.Int (Wei), *record, *variant, *Value (payload), *list, *mapData, *types.Enum
}

type record struct {
	typ    *types.Record
	fields []Value
}

type variant struct {
	typ    *types.Variant
	fields []Value
}

type list struct{ elems []Value }

type mapData struct {
	typ  *types.Map
	keys []Value // sorted by Compare, distinct
	vals []Value
}

// Kind returns v's kind.
func (v Value) Kind() Kind { return v.k }

// IsValid reports whether v is a value (not the zero Value).
func (v Value) IsValid() bool { return v.k != KindInvalid }

// ---- scalars

var unitValue = Value{k: KindUnit}

// Unit returns the Unit value.
func Unit() Value { return unitValue }

// Bool returns a Bool value.
func Bool(b bool) Value {
	if b {
		return Value{k: KindBool, n: 1}
	}
	return Value{k: KindBool}
}

// True and False are the two Bool values.
var (
	True  = Bool(true)
	False = Bool(false)
)

// AsBool returns the Bool value of v (false for other kinds).
func (v Value) AsBool() bool { return v.n != 0 && v.k == KindBool }

// Text returns a Text value.
func Text(s string) Value { return Value{k: KindText, ref: s} }

// AsText returns the string of a Text, Address, Json (its canonical JSON
// text) or Bytes32 (its 32 raw bytes) value, and "" for other kinds.
func (v Value) AsText() string {
	s, _ := v.ref.(string)
	return s
}

// Duration returns a Duration of ms milliseconds.
func Duration(ms int64) Value { return Value{k: KindDuration, n: uint64(ms)} }

// Timestamp returns the Timestamp ms milliseconds after the Unix epoch (UTC).
func Timestamp(ms int64) Value { return Value{k: KindTimestamp, n: uint64(ms)} }

// Millis returns the milliseconds of a Duration or Timestamp.
func (v Value) Millis() int64 { return int64(v.n) }

// Address returns an Address value (opaque text).
func Address(s string) Value { return Value{k: KindAddress, ref: s} }

// Bytes32 returns a Bytes32 value.
func Bytes32(b [32]byte) Value { return Value{k: KindBytes32, ref: string(b[:])} }

// ---- integers

// Int returns an integer of kind k from its two's-complement bits; the bits
// are truncated to the kind's width (wrapping). For IntWei use WeiBig.
func Int(k IntKind, bits uint64) Value {
	if k == IntWei {
		return Value{k: KindInt, ik: IntWei, ref: new(big.Int).SetUint64(bits)}
	}
	return Value{k: KindInt, ik: k, n: wrap(k, bits)}
}

// wrap normalizes bits to kind k: I32 values are kept sign-extended and U32
// values zero-extended in the 64 bits, so that comparisons can use the
// whole word.
func wrap(k IntKind, bits uint64) uint64 {
	switch k {
	case IntI32:
		return uint64(int64(int32(uint32(bits))))
	case IntU32:
		return uint64(uint32(bits))
	}
	return bits
}

// I32 returns an I32 value.
func I32(v int32) Value { return Value{k: KindInt, ik: IntI32, n: uint64(int64(v))} }

// I64 returns an I64 (Int) value.
func I64(v int64) Value { return Value{k: KindInt, ik: IntI64, n: uint64(v)} }

// U32 returns a U32 value.
func U32(v uint32) Value { return Value{k: KindInt, ik: IntU32, n: uint64(v)} }

// U64 returns a U64 value.
func U64(v uint64) Value { return Value{k: KindInt, ik: IntU64, n: v} }

var weiModulus = new(big.Int).Lsh(big.NewInt(1), 256)

// WeiBig returns a Wei value; x is reduced modulo 2^256. x is not retained.
func WeiBig(x *big.Int) Value {
	y := new(big.Int).Set(x)
	if y.Sign() < 0 || y.BitLen() > 256 {
		y.Mod(y, weiModulus)
	}
	return Value{k: KindInt, ik: IntWei, ref: y}
}

// IntKind returns the integer kind of an integer value.
func (v Value) IntKind() IntKind { return v.ik }

// Bits returns the two's-complement bits of an integer value (the low 64
// bits for Wei).
func (v Value) Bits() uint64 {
	if v.ik == IntWei {
		if b, ok := v.ref.(*big.Int); ok {
			return lowBits(b)
		}
	}
	return v.n
}

func lowBits(b *big.Int) uint64 {
	return new(big.Int).And(b, new(big.Int).SetUint64(^uint64(0))).Uint64()
}

// Word returns the 64-bit word of an integer that is not a Wei (I32 values
// sign-extended, U32 values zero-extended); it is Bits without the Wei
// case, for hot paths.
func (v Value) Word() uint64 { return v.n }

// Int64 returns a signed integer's value (or the bits of an unsigned one
// reinterpreted as int64).
func (v Value) Int64() int64 { return int64(v.Bits()) }

// Uint64 returns an integer's bits as uint64.
func (v Value) Uint64() uint64 { return v.Bits() }

// Big returns an integer value as a big.Int (a fresh copy).
func (v Value) Big() *big.Int {
	switch {
	case v.ik == IntWei:
		if b, ok := v.ref.(*big.Int); ok {
			return new(big.Int).Set(b)
		}
		return new(big.Int)
	case v.ik.Signed():
		return big.NewInt(int64(v.n))
	}
	return new(big.Int).SetUint64(v.n)
}

// weiRef returns the big.Int of a Wei value without copying.
func (v Value) weiRef() *big.Int {
	if b, ok := v.ref.(*big.Int); ok {
		return b
	}
	return new(big.Int)
}

// ---- records, enums, variants

// Record returns a record (or error or event) value of type t; fields are
// in the declaration order of t's fields and are retained.
func Record(t *types.Record, fields []Value) Value {
	return Value{k: KindRecord, ref: &record{typ: t, fields: fields}}
}

// Enum returns member number i of enum t.
func Enum(t *types.Enum, i int) Value { return Value{k: KindEnum, n: uint64(i), ref: t} }

// Variant returns case number i of variant t with its fields (retained).
func Variant(t *types.Variant, i int, fields []Value) Value {
	return Value{k: KindVariant, n: uint64(i), ref: &variant{typ: t, fields: fields}}
}

// Type returns the declared type of a record, enum or variant value, or nil.
func (v Value) Type() types.Type {
	switch v.k {
	case KindRecord:
		return v.ref.(*record).typ
	case KindEnum:
		return v.ref.(*types.Enum)
	case KindVariant:
		return v.ref.(*variant).typ
	case KindMap:
		return v.ref.(*mapData).typ
	}
	return nil
}

// Fields returns the field values of a record or variant case, in
// declaration order. The slice must not be modified.
func (v Value) Fields() []Value {
	switch v.k {
	case KindRecord:
		return v.ref.(*record).fields
	case KindVariant:
		return v.ref.(*variant).fields
	}
	return nil
}

// Field returns the named field of a record value.
func (v Value) Field(name string) (Value, bool) {
	if v.k != KindRecord {
		return Value{}, false
	}
	r := v.ref.(*record)
	for i, f := range r.typ.Fields {
		if f.Name == name && i < len(r.fields) {
			return r.fields[i], true
		}
	}
	return Value{}, false
}

// Index returns the member index of an enum value or the case index of a
// variant value.
func (v Value) Index() int { return int(v.n) }

// Name returns the member name of an enum value or the case name of a
// variant value.
func (v Value) Name() string {
	switch v.k {
	case KindEnum:
		e := v.ref.(*types.Enum)
		if int(v.n) < len(e.Members) {
			return e.Members[v.n]
		}
	case KindVariant:
		t := v.ref.(*variant).typ
		if int(v.n) < len(t.Cases) {
			return t.Cases[v.n].Name
		}
	}
	return ""
}

// ---- Option and Result

var noneValue = Value{k: KindOption}

// None returns the empty Option.
func None() Value { return noneValue }

// Some returns (some x).
func Some(x Value) Value { return Value{k: KindOption, n: 1, ref: &x} }

// Ok returns (ok x).
func Ok(x Value) Value { return Value{k: KindResult, n: 0, ref: &x} }

// Err returns (err x).
func Err(x Value) Value { return Value{k: KindResult, n: 1, ref: &x} }

// IsSome reports whether an Option value is (some x).
func (v Value) IsSome() bool { return v.k == KindOption && v.n == 1 }

// IsOk reports whether a Result value is (ok x).
func (v Value) IsOk() bool { return v.k == KindResult && v.n == 0 }

// Payload returns x of (some x), (ok x) or (err x).
func (v Value) Payload() Value {
	if p, ok := v.ref.(*Value); ok {
		return *p
	}
	return Value{}
}

// ---- lists and maps

// List returns a list of elems (retained; the caller must not modify it).
// Lists also represent Vector and Array values.
func List(elems []Value) Value { return Value{k: KindList, ref: &list{elems: elems}} }

// Elems returns the elements of a list. The slice must not be modified.
func (v Value) Elems() []Value {
	if l, ok := v.ref.(*list); ok && v.k == KindList {
		return l.elems
	}
	return nil
}

// Len returns the number of elements of a list or map.
func (v Value) Len() int {
	switch v.k {
	case KindList:
		return len(v.ref.(*list).elems)
	case KindMap:
		return len(v.ref.(*mapData).keys)
	}
	return 0
}

// Map returns a map of type t from parallel key and value slices. Keys are
// sorted; a repeated key keeps its last value. The slices are not retained.
func Map(t *types.Map, keys, vals []Value) Value {
	m := &mapData{typ: t}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sortStable(idx, func(a, b int) bool { return Compare(keys[a], keys[b]) < 0 })
	for _, i := range idx {
		if n := len(m.keys); n > 0 && Compare(m.keys[n-1], keys[i]) == 0 {
			m.vals[n-1] = vals[i]
			continue
		}
		m.keys = append(m.keys, keys[i])
		m.vals = append(m.vals, vals[i])
	}
	return Value{k: KindMap, ref: m}
}

// MapEntries returns the keys (in order) and values of a map. The slices
// must not be modified.
func (v Value) MapEntries() (keys, vals []Value) {
	if m, ok := v.ref.(*mapData); ok && v.k == KindMap {
		return m.keys, m.vals
	}
	return nil, nil
}

// Lookup returns the value stored under key in a map.
func (v Value) Lookup(key Value) (Value, bool) {
	keys, vals := v.MapEntries()
	lo, hi := 0, len(keys)
	for lo < hi {
		mid := (lo + hi) / 2
		switch c := Compare(keys[mid], key); {
		case c == 0:
			return vals[mid], true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return Value{}, false
}

// sortStable is an insertion-merge sort over indexes (maps are small; this
// keeps the package free of sort.Slice's reflection).
func sortStable(idx []int, less func(a, b int) bool) {
	if len(idx) < 2 {
		return
	}
	mid := len(idx) / 2
	sortStable(idx[:mid], less)
	sortStable(idx[mid:], less)
	out := make([]int, 0, len(idx))
	i, j := 0, mid
	for i < mid && j < len(idx) {
		if less(idx[j], idx[i]) {
			out = append(out, idx[j])
			j++
		} else {
			out = append(out, idx[i])
			i++
		}
	}
	out = append(append(out, idx[i:mid]...), idx[j:]...)
	copy(idx, out)
}
