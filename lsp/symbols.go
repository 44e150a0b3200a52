package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

func symbolKind(k ast.DeclKind) protocol.SymbolKind {
	switch k {
	case ast.KindType:
		return protocol.SymbolKindStruct
	case ast.KindFunction:
		return protocol.SymbolKindFunction
	case ast.KindMachine:
		return protocol.SymbolKindClass
	case ast.KindStore:
		return protocol.SymbolKindPackage
	case ast.KindSurface, ast.KindPort, ast.KindAgent:
		return protocol.SymbolKindInterface
	}
	return protocol.SymbolKindObject
}

// documentSymbols returns the outline: module > declarations > machine
// parts (context fields, events, states > transitions).
func documentSymbols(_ context.Context, sn *snapshot) (any, error) {
	f := sn.Package().File
	out := []protocol.DocumentSymbol{}
	if f.Module == nil {
		return out, nil
	}
	m := f.Module
	sym := func(name, detail string, kind protocol.SymbolKind, full, sel syntax.Span) protocol.DocumentSymbol {
		if name == "" {
			name = "(unnamed)"
		}
		return protocol.DocumentSymbol{Name: name, Detail: detail, Kind: kind, Range: sn.rng(full), SelectionRange: sn.rng(sel)}
	}
	mod := sym(m.Name.Name, "module", protocol.SymbolKindModule, m.Form.Span(), nameSpan(m.Name, m.Form.Span()))
	for _, d := range m.Decls {
		b := d.Base()
		ds := sym(b.Name.Name, string(d.Kind()), symbolKind(d.Kind()), b.Form.Span(), nameSpan(b.Name, b.Keyword().Span))
		switch d := d.(type) {
		case *ast.Machine:
			for _, c := range d.Context {
				ds.Children = append(ds.Children, sym(c.Name.Name, "context field", protocol.SymbolKindField, c.Form.Span(), c.Name.Span))
			}
			for _, e := range d.Events {
				ds.Children = append(ds.Children, sym(e.Name.Name, "event", protocol.SymbolKindEvent, e.Form.Span(), nameSpan(e.Name, e.Form.Span())))
			}
			for _, st := range d.States {
				detail := "state"
				if st.Final {
					detail = "final state"
				}
				ss := sym(st.Name.Name, detail, protocol.SymbolKindEnumMember, st.Form.Span(), nameSpan(st.Name, st.Form.Span()))
				for _, t := range st.Transitions {
					ss.Children = append(ss.Children, sym("on "+t.Event.Name, "→ "+t.Target.Name, protocol.SymbolKindMethod, t.Form.Span(), nameSpan(t.Event, t.Form.Span())))
				}
				ds.Children = append(ds.Children, ss)
			}
		case *ast.Function:
			for _, in := range d.Inputs {
				ds.Children = append(ds.Children, sym(in.Name.Name, "input", protocol.SymbolKindVariable, in.Form.Span(), in.Name.Span))
			}
		case *ast.TypeDecl:
			switch def := d.Def.(type) {
			case *ast.RecordDef:
				for _, fl := range def.Fields {
					ds.Children = append(ds.Children, sym(fl.Name.Name, "field", protocol.SymbolKindField, fl.Form.Span(), fl.Name.Span))
				}
			case *ast.EnumDef:
				for _, mem := range def.Members {
					ds.Children = append(ds.Children, sym(mem.Name, "member", protocol.SymbolKindEnumMember, mem.Span, mem.Span))
				}
			case *ast.VariantDef:
				for _, c := range def.Cases {
					ds.Children = append(ds.Children, sym(c.Name.Name, "case", protocol.SymbolKindEnumMember, c.Name.Span, c.Name.Span))
				}
			}
		case *ast.Port:
			for _, group := range [][]*ast.Operation{d.Tools, d.Resources, d.Prompts} {
				for _, op := range group {
					ds.Children = append(ds.Children, sym(op.Name.Name, op.Keyword.Name, protocol.SymbolKindMethod, op.Form.Span(), nameSpan(op.Name, op.Form.Span())))
				}
			}
		case *ast.Agent:
			for _, op := range d.Skills {
				ds.Children = append(ds.Children, sym(op.Name.Name, "skill", protocol.SymbolKindMethod, op.Form.Span(), nameSpan(op.Name, op.Form.Span())))
			}
		case *ast.Surface:
			for _, op := range d.Actions {
				ds.Children = append(ds.Children, sym(op.Name.Name, "action", protocol.SymbolKindMethod, op.Form.Span(), nameSpan(op.Name, op.Form.Span())))
			}
		}
		mod.Children = append(mod.Children, ds)
	}
	return append(out, mod), nil
}

// nameSpan returns a name's span, or a fallback when the name is missing;
// the selection range must lie inside the full range.
func nameSpan(id ast.Ident, fallback syntax.Span) syntax.Span {
	if id.Valid() {
		return id.Span
	}
	return syntax.Span{Start: fallback.Start, End: fallback.Start}
}
