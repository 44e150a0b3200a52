package check

import (
	"iter"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax/ast"
)

// TypeMap records the checked type of each expression (Result.Types).
//
// Most expressions are numbered by the AST builder (ast.Expr.ExprID), and
// their types sit in a slice indexed by that number: 32 bytes an
// expression where a Go map needs about 90 (a large file has several
// expressions a line, and the map was a tenth of caps check's memory,
// issue 19). Each slot keeps its expression, so that an expression from
// another build with the same number (ast.BuildDecl numbers from 1 again)
// never reads another's type: it goes to a map, as do expressions without
// a number.
//
// The zero TypeMap is empty and ready to use; a nil *TypeMap reads as
// empty. A TypeMap is not safe for concurrent writes.
type TypeMap struct {
	dense []typeSlot // dense[id-1] is the type of the expression numbered id
	n     int        // entries in dense
	extra map[ast.Expr]types.Type
}

type typeSlot struct {
	e ast.Expr // nil for an empty slot
	t types.Type
}

// NewTypeMap returns an empty TypeMap with room for the expressions
// numbered 1 to n.
func NewTypeMap(n int) *TypeMap {
	return &TypeMap{dense: make([]typeSlot, n)}
}

// slot returns e's slot in the dense table, or nil when e has no number
// in its range.
func (m *TypeMap) slot(e ast.Expr) *typeSlot {
	if e == nil {
		return nil
	}
	id := int(e.ExprID())
	if id == 0 || id > len(m.dense) {
		return nil
	}
	return &m.dense[id-1]
}

// Lookup returns the type recorded for e and whether there is one.
func (m *TypeMap) Lookup(e ast.Expr) (types.Type, bool) {
	if m == nil {
		return nil, false
	}
	if s := m.slot(e); s != nil && s.e == e {
		return s.t, true
	}
	t, ok := m.extra[e]
	return t, ok
}

// Type returns the type recorded for e, nil when there is none.
func (m *TypeMap) Type(e ast.Expr) types.Type {
	t, _ := m.Lookup(e)
	return t
}

// Set records t as e's type.
func (m *TypeMap) Set(e ast.Expr, t types.Type) {
	if id := int(e.ExprID()); id > len(m.dense) && id <= 2*len(m.dense)+1024 {
		// A table made without a size grows to the numbers it meets, as
		// a slice grows; a number far beyond them goes to the map.
		m.dense = append(m.dense, make([]typeSlot, id-len(m.dense))...)
		m.dense = m.dense[:cap(m.dense)]
	}
	if s := m.slot(e); s != nil && (s.e == nil || s.e == e) {
		if s.e == nil {
			m.n++
		}
		s.e, s.t = e, t
		return
	}
	if m.extra == nil {
		m.extra = map[ast.Expr]types.Type{}
	}
	m.extra[e] = t
}

// reset empties m, keeping its dense table's memory for the next use.
func (m *TypeMap) reset() {
	for i := 0; m.n > 0 && i < len(m.dense); i++ { // (only as far as the last entry)
		if m.dense[i].e != nil {
			m.n--
		}
		m.dense[i] = typeSlot{}
	}
	m.extra = nil
}

// Len returns the number of expressions with a type.
func (m *TypeMap) Len() int {
	if m == nil {
		return 0
	}
	return m.n + len(m.extra)
}

// All yields every expression with its type: the numbered ones in number
// order, then the others in no particular order.
func (m *TypeMap) All() iter.Seq2[ast.Expr, types.Type] {
	return func(yield func(ast.Expr, types.Type) bool) {
		if m == nil {
			return
		}
		for i := range m.dense {
			if s := &m.dense[i]; s.e != nil && !yield(s.e, s.t) {
				return
			}
		}
		for e, t := range m.extra {
			if !yield(e, t) {
				return
			}
		}
	}
}

// Clone returns a copy of m that later Sets on either do not affect the
// other; a nil m clones to an empty map.
func (m *TypeMap) Clone() *TypeMap {
	c := &TypeMap{}
	if m == nil {
		return c
	}
	c.dense = append([]typeSlot(nil), m.dense...)
	c.n = m.n
	if len(m.extra) > 0 {
		c.extra = make(map[ast.Expr]types.Type, len(m.extra))
		for e, t := range m.extra {
			c.extra[e] = t
		}
	}
	return c
}
