package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/repair"
	"github.com/capsulang/caps/syntax"
)

func init() {
	requests["textDocument/codeAction"] = onDocument(func(p *protocol.CodeActionParams) protocol.DocumentURI { return p.TextDocument.URI }, codeActions)
	extraFeatures = append(extraFeatures, func(c *protocol.ServerCapabilities) {
		c.CodeActionProvider = &protocol.CodeActionOptions{CodeActionKinds: codeActionKinds()}
	})
}

// sourceActions are registered by the files that implement them.
var sourceActions = map[protocol.CodeActionKind]func(sn *snapshot) *protocol.CodeAction{}

func codeActionKinds() []protocol.CodeActionKind {
	kinds := []protocol.CodeActionKind{protocol.QuickFix}
	for k := range sourceActions {
		kinds = append(kinds, k)
	}
	return kinds
}

func codeActions(ctx context.Context, s *Server, sn *snapshot, p *protocol.CodeActionParams) (any, error) {
	out := []protocol.CodeAction{}
	want := func(k protocol.CodeActionKind) bool {
		if len(p.Context.Only) == 0 {
			return true
		}
		for _, o := range p.Context.Only {
			if o == k || len(k) > len(o) && k[:len(o)] == o && k[len(o)] == '.' {
				return true
			}
		}
		return false
	}
	if want(protocol.QuickFix) {
		sel, err := sn.mapper().Span(p.Range)
		if err != nil {
			return nil, err
		}
		out = append(out, sn.quickFixes(sel)...)
	}
	for kind, f := range sourceActions {
		if len(p.Context.Only) > 0 && want(kind) {
			if a := f(sn); a != nil {
				out = append(out, *a)
			}
		}
	}
	return out, nil
}

// quickFixes offers the repair options of the diagnostics touching sel.
func (sn *snapshot) quickFixes(sel syntax.Span) []protocol.CodeAction {
	pkg := sn.Package()
	var diags []syntax.Diagnostic
	for _, d := range pkg.Result.Diagnostics {
		if d.Span.Start <= sel.End && sel.Start <= d.Span.End {
			diags = append(diags, d)
		}
	}
	if len(diags) == 0 {
		return nil
	}
	plans := repair.Plans(repair.Input{File: pkg.File, Result: pkg.Result, Diagnostics: diags})
	var out []protocol.CodeAction
	for _, plan := range plans {
		pd := sn.protocolDiagnostic(plan.Diagnostic)
		safeCount := 0
		for _, o := range plan.Options {
			if o.Safety == repair.Safe {
				safeCount++
			}
		}
		for _, o := range plan.Options {
			var edits []protocol.TextEdit
			for _, e := range o.Edits {
				edits = append(edits, protocol.TextEdit{Range: sn.rng(e.Span), NewText: e.NewText})
			}
			out = append(out, protocol.CodeAction{
				Title:       fmt.Sprintf("%s [%s]", o.Title, o.Safety),
				Kind:        protocol.QuickFix,
				Diagnostics: []protocol.Diagnostic{pd},
				// Only an unambiguous safe repair is preferred; a repair
				// that widens authority never is.
				IsPreferred: o.Safety == repair.Safe && safeCount == 1,
				Edit:        &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{sn.uri: edits}},
			})
			if o.Safety != repair.Safe {
				// Governed changes can go through propose/assess/commit.
				line := sn.lines().Point(plan.Diagnostic.Span.Start).Line
				args, _ := json.Marshal(proposeArgs{URI: sn.uri, Code: plan.Diagnostic.Code, Line: line, Option: o.ID})
				out = append(out, protocol.CodeAction{
					Title:       fmt.Sprintf("Propose and assess: %s [%s]", o.Title, o.Safety),
					Kind:        protocol.CodeActionKind("quickfix.propose"),
					Diagnostics: []protocol.Diagnostic{pd},
					Command:     &protocol.Command{Title: "Propose and assess", Command: "capsulang.propose", Arguments: []any{json.RawMessage(args)}},
				})
			}
		}
	}
	return out
}

func (sn *snapshot) protocolDiagnostic(d syntax.Diagnostic) protocol.Diagnostic {
	return protocol.Diagnostic{
		Range: sn.rng(d.Span), Severity: protocol.DiagnosticSeverity(d.Severity), Code: d.Code,
		CodeDescription: &protocol.CodeDescription{Href: protocol.URI(docURL(d.Code))},
		Source:          "capsulang", Message: d.Message,
	}
}
