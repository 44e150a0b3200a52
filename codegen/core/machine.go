package core

import (
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax/ast"
)

// Field is a typed context or payload field.
type Field struct {
	Name string
	Type types.Type
}

// Machine is a machine declaration with the checked types of its context
// fields and event payloads.
type Machine struct {
	Decl    *ast.Machine
	Context []Field
	Events  map[string][]Field // by event name, fields in declaration order
}

// ContextTypes maps context field names to their types.
func (m *Machine) ContextTypes() map[string]types.Type {
	out := map[string]types.Type{}
	for _, f := range m.Context {
		out[f.Name] = f.Type
	}
	return out
}

// EventTypes maps an event's payload field names to their types.
func (m *Machine) EventTypes(event string) map[string]types.Type {
	out := map[string]types.Type{}
	for _, f := range m.Events[event] {
		out[f.Name] = f.Type
	}
	return out
}

// Machines returns the machines of a checked module with their types.
func Machines(res *check.Result) []*Machine {
	if res.File == nil || res.File.Module == nil {
		return nil
	}
	var out []*Machine
	bySym := map[*check.Symbol]*Machine{}
	byDecl := map[*ast.Machine]*Machine{}
	for _, d := range res.File.Module.Decls {
		if md, ok := d.(*ast.Machine); ok {
			m := &Machine{Decl: md, Events: map[string][]Field{}}
			for _, ev := range md.Events {
				m.Events[ev.Name.Name] = []Field{}
			}
			byDecl[md] = m
			out = append(out, m)
		}
	}
	for _, s := range res.Symbols {
		if md, ok := s.Decl.(*ast.Machine); ok && byDecl[md] != nil {
			bySym[s] = byDecl[md]
		}
	}
	for _, s := range res.Symbols {
		switch s.Kind {
		case check.SymContextField:
			if m := bySym[s.Parent]; m != nil {
				m.Context = append(m.Context, Field{s.Name, s.Type})
			}
		case check.SymEventField:
			if s.Parent != nil {
				if m := bySym[s.Parent.Parent]; m != nil {
					m.Events[s.Parent.Name] = append(m.Events[s.Parent.Name], Field{s.Name, s.Type})
				}
			}
		}
	}
	return out
}
