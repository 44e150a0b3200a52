// Package types represents Capsulang types: the built-in scalars, the
// parameterized collections, and the nominal records, enums and variants a
// module declares.
package types

import (
	"strconv"
	"strings"
	"sync/atomic"
)

// Type is a Capsulang type.
type Type interface {
	String() string
}

// BasicKind enumerates the built-in scalar types.
type BasicKind int

const (
	Invalid BasicKind = iota // the type of an erroneous expression
	Unit
	Bool
	I32
	I64
	Int
	U32
	U64
	Text
	Json
	Timestamp
	Duration
	Address
	Wei
	Bytes32
	UntypedInt // an integer literal whose type the context decides
)

var basicNames = map[BasicKind]string{
	Invalid: "invalid", Unit: "Unit", Bool: "Bool", I32: "I32", I64: "I64", Int: "Int", U32: "U32", U64: "U64",
	Text: "Text", Json: "Json", Timestamp: "Timestamp", Duration: "Duration", Address: "Address", Wei: "Wei",
	Bytes32: "Bytes32", UntypedInt: "integer literal",
}

// Basic is a built-in scalar type.
type Basic struct{ Kind BasicKind }

func (b *Basic) String() string { return basicNames[b.Kind] }

// The built-in scalar types, shared.
var (
	TInvalid    = &Basic{Invalid}
	TUnit       = &Basic{Unit}
	TBool       = &Basic{Bool}
	TI32        = &Basic{I32}
	TI64        = &Basic{I64}
	TInt        = &Basic{Int}
	TU32        = &Basic{U32}
	TU64        = &Basic{U64}
	TText       = &Basic{Text}
	TJson       = &Basic{Json}
	TTimestamp  = &Basic{Timestamp}
	TDuration   = &Basic{Duration}
	TAddress    = &Basic{Address}
	TWei        = &Basic{Wei}
	TBytes32    = &Basic{Bytes32}
	TUntypedInt = &Basic{UntypedInt}
)

// Builtins maps the names of the built-in scalar types to their types.
var Builtins = map[string]Type{
	"Unit": TUnit, "Bool": TBool, "I32": TI32, "I64": TI64, "Int": TInt, "U32": TU32, "U64": TU64,
	"Text": TText, "Json": TJson, "Timestamp": TTimestamp, "Duration": TDuration, "Address": TAddress,
	"Wei": TWei, "Bytes32": TBytes32,
}

// Constructors maps the parameterized type names to their parameter counts.
var Constructors = map[string]int{"List": 1, "Array": 1, "Option": 1, "Result": 2, "Map": 2, "Vector": 1}

// List is (List T); Vector is (Vector T).
type List struct {
	Elem   Type
	Vector bool
}

func (l *List) String() string {
	if l.Vector {
		return "(Vector " + l.Elem.String() + ")"
	}
	return "(List " + l.Elem.String() + ")"
}

// Array is (Array T N).
type Array struct {
	Elem Type
	Len  int
}

func (a *Array) String() string { return "(Array " + a.Elem.String() + " " + strconv.Itoa(a.Len) + ")" }

// Option is (Option T).
type Option struct{ Elem Type }

func (o *Option) String() string { return "(Option " + o.Elem.String() + ")" }

// Result is (Result T E).
type Result struct{ Ok, Err Type }

func (r *Result) String() string { return "(Result " + r.Ok.String() + " " + r.Err.String() + ")" }

// Map is (Map K V).
type Map struct{ Key, Value Type }

func (m *Map) String() string { return "(Map " + m.Key.String() + " " + m.Value.String() + ")" }

// Field is a named, typed field of a record or variant case.
type Field struct {
	Name string
	Type Type
}

// Record is a declared record, error or event type.
type Record struct {
	Name   string
	Kind   string // record, error or event
	Fields []Field

	fields nameIndex
}

func (r *Record) String() string { return r.Name }

// Field returns the named field's type, or nil.
func (r *Record) Field(name string) Type {
	if i := r.FieldIndex(name); i >= 0 {
		return r.Fields[i].Type
	}
	return nil
}

// FieldIndex returns the index of the first field called name, or -1.
func (r *Record) FieldIndex(name string) int {
	return r.fields.find(len(r.Fields), func(i int) string { return r.Fields[i].Name }, name)
}

// Enum is a declared enumeration.
type Enum struct {
	Name    string
	Members []string

	members nameIndex
}

func (e *Enum) String() string { return e.Name }

// Has reports whether m is a member.
func (e *Enum) Has(m string) bool { return e.Index(m) >= 0 }

// Index returns the index of the first member called m, or -1.
func (e *Enum) Index(m string) int {
	return e.members.find(len(e.Members), func(i int) string { return e.Members[i] }, m)
}

// Variant is a declared tagged variant.
type Variant struct {
	Name  string
	Cases []Case

	cases nameIndex
}

// Case is one case of a variant.
type Case struct {
	Name   string
	Fields []Field
}

func (v *Variant) String() string { return v.Name }

// Case returns the named case, or nil.
func (v *Variant) Case(name string) *Case {
	if i := v.CaseIndex(name); i >= 0 {
		return &v.Cases[i]
	}
	return nil
}

// CaseIndex returns the index of the first case called name, or -1.
func (v *Variant) CaseIndex(name string) int {
	return v.cases.find(len(v.Cases), func(i int) string { return v.Cases[i].Name }, name)
}

// nameIndex indexes the names of a type's fields, members or cases (the
// first position of each), so that looking one up costs the same in a
// record of thousands of fields as in one of three: a record literal or a
// match naming every field or member would otherwise take time quadratic
// in their number. Short lists are searched in order. The index is built
// on the first lookup and again if the list has grown since (a record
// gets its fields one by one while its declaration is resolved); it is
// published atomically, so that complete types may be shared between
// goroutines.
type nameIndex struct {
	p atomic.Pointer[names]
}

// names maps each of the first n names of a list to its first position.
type names struct {
	n   int
	pos map[string]int
}

// indexFrom is the shortest list that gets an index.
const indexFrom = 16

// find returns the first position of want among the n names name(i), or
// -1.
func (x *nameIndex) find(n int, name func(i int) string, want string) int {
	if n < indexFrom {
		for i := 0; i < n; i++ {
			if name(i) == want {
				return i
			}
		}
		return -1
	}
	ix := x.p.Load()
	if ix == nil || ix.n != n {
		ix = &names{n: n, pos: make(map[string]int, n)}
		for i := n - 1; i >= 0; i-- { // the first position wins
			ix.pos[name(i)] = i
		}
		x.p.Store(ix)
	}
	if i, ok := ix.pos[want]; ok {
		return i
	}
	return -1
}

// Named is an alias declared with (type NAME T); it is the same type as T.

// IsInteger reports whether t is an integer type (or an untyped literal).
func IsInteger(t Type) bool {
	b, ok := t.(*Basic)
	if !ok {
		return false
	}
	switch b.Kind {
	case I32, I64, Int, U32, U64, Wei, UntypedInt:
		return true
	}
	return false
}

// IsUnsigned reports whether t is an unsigned integer type.
func IsUnsigned(t Type) bool {
	b, ok := t.(*Basic)
	return ok && (b.Kind == U32 || b.Kind == U64 || b.Kind == Wei)
}

// Bits returns the width of an integer type (Int is 64 bits; Wei 256).
func Bits(t Type) int {
	if b, ok := t.(*Basic); ok {
		switch b.Kind {
		case I32, U32:
			return 32
		case Wei:
			return 256
		}
	}
	return 64
}

// IsInvalid reports whether t is the invalid type (an error was reported).
func IsInvalid(t Type) bool {
	b, ok := t.(*Basic)
	return t == nil || ok && b.Kind == Invalid
}

// canonKind maps Int to I64, which it names.
func canonKind(k BasicKind) BasicKind {
	if k == Int {
		return I64
	}
	return k
}

// Identical reports whether a and b are the same type. Declared types are
// nominal: two records are identical only if they are the same declaration.
func Identical(a, b Type) bool {
	if a == b {
		return true
	}
	switch x := a.(type) {
	case *Basic:
		y, ok := b.(*Basic)
		// Int is another name for I64: the same type, freely mixed.
		return ok && canonKind(x.Kind) == canonKind(y.Kind)
	case *List:
		y, ok := b.(*List)
		return ok && x.Vector == y.Vector && Identical(x.Elem, y.Elem)
	case *Array:
		y, ok := b.(*Array)
		return ok && x.Len == y.Len && Identical(x.Elem, y.Elem)
	case *Option:
		y, ok := b.(*Option)
		return ok && Identical(x.Elem, y.Elem)
	case *Result:
		y, ok := b.(*Result)
		return ok && Identical(x.Ok, y.Ok) && Identical(x.Err, y.Err)
	case *Map:
		y, ok := b.(*Map)
		return ok && Identical(x.Key, y.Key) && Identical(x.Value, y.Value)
	}
	return false
}

// AssignableTo reports whether a value of type v may be used where t is
// expected. An untyped integer literal fits any integer type (its range is
// checked separately); Invalid fits anything so errors do not cascade; a
// Hole (an unknown element type, as of an empty list or none) fits any
// matching shape.
func AssignableTo(v, t Type) bool {
	if IsInvalid(v) || IsInvalid(t) || isHole(v) || isHole(t) {
		return true
	}
	if b, ok := v.(*Basic); ok && b.Kind == UntypedInt {
		return IsInteger(t)
	}
	switch x := v.(type) {
	case *List:
		if y, ok := t.(*List); ok && x.Vector == y.Vector {
			return AssignableTo(x.Elem, y.Elem)
		}
	case *Option:
		if y, ok := t.(*Option); ok {
			return AssignableTo(x.Elem, y.Elem)
		}
	case *Result:
		if y, ok := t.(*Result); ok {
			return AssignableTo(x.Ok, y.Ok) && AssignableTo(x.Err, y.Err)
		}
	case *Map:
		if y, ok := t.(*Map); ok {
			return AssignableTo(x.Key, y.Key) && AssignableTo(x.Value, y.Value)
		}
	}
	return Identical(v, t)
}

// Hole is an unknown part of a type, such as the element type of `none` or
// of an empty list, that the context fills in.
type Hole struct{}

func (*Hole) String() string { return "_" }

// THole is the shared hole.
var THole = &Hole{}

func isHole(t Type) bool { _, ok := t.(*Hole); return ok }

// Default returns t with an untyped integer literal defaulted to Int.
func Default(t Type) Type {
	if b, ok := t.(*Basic); ok && b.Kind == UntypedInt {
		return TInt
	}
	return t
}

// Join picks the more specific of two assignable types (for if branches).
func Join(a, b Type) Type {
	if IsInvalid(a) {
		return b
	}
	if isHole(a) || a == TUntypedInt {
		return b
	}
	if o, ok := a.(*Option); ok && isHole(o.Elem) {
		return b
	}
	if l, ok := a.(*List); ok && isHole(l.Elem) {
		return b
	}
	return a
}

// Comparable reports whether values of t may be compared with == and !=.
func Comparable(t Type) bool {
	switch x := t.(type) {
	case *Basic:
		return x.Kind != Json
	case *Enum, *Record, *Variant, *Option, *Result, *List, *Array:
		return true
	}
	return false
}

// Ordered reports whether values of t may be compared with < <= > >=.
func Ordered(t Type) bool {
	if IsInteger(t) {
		return true
	}
	b, ok := t.(*Basic)
	return ok && (b.Kind == Text || b.Kind == Timestamp || b.Kind == Duration)
}

// Describe returns a short phrase for messages: "U64", "record Claim".
func Describe(t Type) string {
	switch x := t.(type) {
	case *Record:
		return x.Kind + " " + x.Name
	case *Enum:
		return "enum " + x.Name
	case *Variant:
		return "variant " + x.Name
	}
	if t == nil {
		return "nothing"
	}
	return strings.TrimSpace(t.String())
}
