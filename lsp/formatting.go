package lsp

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/ir"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/capsulang/caps/syntax/format"
)

// Code action kinds of the source actions.
const (
	kindSourceFormat  protocol.CodeActionKind = "source.format"
	kindOrganizeDecls protocol.CodeActionKind = "source.organizeDeclarations"
)

func init() {
	requests["textDocument/formatting"] = documentOnly(formatDocument)
	requests["textDocument/rangeFormatting"] = onDocument(func(p *protocol.DocumentRangeFormattingParams) protocol.DocumentURI { return p.TextDocument.URI }, rangeFormatting)
	extraFeatures = append(extraFeatures, func(c *protocol.ServerCapabilities) {
		c.DocumentFormattingProvider = true
		c.DocumentRangeFormattingProvider = true
	})
	sourceActions[kindSourceFormat] = func(sn *snapshot) *protocol.CodeAction {
		edits, err := formatEdits(sn)
		if err != nil || len(edits) == 0 {
			return nil
		}
		return &protocol.CodeAction{Title: "Format file", Kind: kindSourceFormat, Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{sn.uri: edits}}}
	}
	sourceActions[kindOrganizeDecls] = organizeAction
}

// minimalEdit returns one edit turning old into new, trimmed to the part
// that differs so that cursors and marks elsewhere stay where they are.
func minimalEdit(sn *snapshot, old, new []byte) []protocol.TextEdit {
	if bytes.Equal(old, new) {
		return []protocol.TextEdit{}
	}
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	// never split a UTF-8 sequence or a CRLF pair
	for p > 0 && (old[p-1]&0xC0 == 0x80 || old[p-1] == '\r') {
		p--
	}
	if p < len(old) && old[p]&0xC0 == 0x80 {
		for p > 0 && old[p]&0xC0 == 0x80 {
			p--
		}
	}
	s := 0
	for s < len(old)-p && s < len(new)-p && old[len(old)-1-s] == new[len(new)-1-s] {
		s++
	}
	for s > 0 && (old[len(old)-s]&0xC0 == 0x80 || old[len(old)-s] == '\n' && len(old)-s > 0 && old[len(old)-s-1] == '\r') {
		s--
	}
	sp := syntax.Span{Start: p, End: len(old) - s}
	return []protocol.TextEdit{{Range: sn.rng(sp), NewText: string(new[p : len(new)-s])}}
}

func formatEdits(sn *snapshot) ([]protocol.TextEdit, error) {
	out, err := format.Source(sn.cst.Src)
	if err != nil {
		if errors.Is(err, format.ErrNotPreserved) {
			return nil, rpcWrap(errInternal, err) // a bug in the formatter
		}
		return nil, rpcWrap(errRequestFailed, err)
	}
	return minimalEdit(sn, sn.cst.Src, out), nil
}

func formatDocument(_ context.Context, sn *snapshot) (any, error) {
	return formatEdits(sn)
}

func rangeFormatting(ctx context.Context, s *Server, sn *snapshot, p *protocol.DocumentRangeFormattingParams) (any, error) {
	sp, err := sn.mapper().Span(p.Range)
	if err != nil {
		return nil, rpcWrap(errInvalidParams, err)
	}
	a, b, text, err := format.Range(sn.cst.Src, sp.Start, sp.End)
	if err != nil {
		return nil, rpcWrap(errRequestFailed, err)
	}
	if bytes.Equal(sn.cst.Src[a:b], text) {
		return []protocol.TextEdit{}, nil
	}
	return []protocol.TextEdit{{Range: sn.rng(syntax.Span{Start: a, End: b}), NewText: string(text)}}, nil
}

// organizeAction sorts the module's declarations by kind (in the order of
// ast.DeclKinds) and name, keeping each one's doc comments with it, and
// formats the result. It offers nothing for files with syntax errors or
// when the result would not keep every comment and the semantic hash.
func organizeAction(sn *snapshot) *protocol.CodeAction {
	pkg := sn.Package()
	f := pkg.File
	m := f.Module
	src := sn.cst.Src
	if m == nil || len(f.Source.Diagnostics) > 0 || len(m.Decls) < 2 {
		return nil
	}
	lines := sn.lines()
	// segment start: the first line of the declaration's comment block
	segStart := func(form *syntax.Form) int {
		start := lines.LineStart(lines.Line(form.Span().Start))
		for l := lines.Line(form.Span().Start) - 1; l >= 0; l-- {
			ls := lines.LineStart(l)
			text := strings.TrimSpace(string(src[ls:lineEnd(src, ls)]))
			if !strings.HasPrefix(text, ";") {
				break
			}
			start = ls
		}
		return start
	}
	type seg struct {
		kind int
		name string
		text string
	}
	order := map[ast.DeclKind]int{}
	for i, k := range ast.DeclKinds {
		order[k] = i
	}
	var segs []seg
	first, last := -1, 0
	for _, d := range m.Decls {
		form := d.Base().Form
		a := segStart(form)
		if first < 0 || a < first {
			first = a
		}
		if form.Span().End > last {
			last = form.Span().End
		}
		segs = append(segs, seg{order[d.Kind()], d.Base().Name.Name, strings.TrimLeft(string(src[a:form.Span().End]), " \t")})
	}
	// Declarations must be contiguous items after the header; otherwise
	// (interleaved clauses, trailing forms) leave the file alone.
	for _, it := range m.Form.Items()[2:] {
		if it.Span().Start >= first && it.Span().End <= last && !isDeclForm(m, it) {
			return nil
		}
	}
	sort.SliceStable(segs, func(i, j int) bool {
		if segs[i].kind != segs[j].kind {
			return segs[i].kind < segs[j].kind
		}
		return segs[i].name < segs[j].name
	})
	var b strings.Builder
	for i, s := range segs {
		if i > 0 {
			b.WriteString("\n\n  ")
		}
		b.WriteString(s.text)
	}
	candidate := append(append(append([]byte{}, src[:first]...), "  "+b.String()...), src[last:]...)
	out, err := format.Source(candidate)
	if err != nil {
		return nil
	}
	nf, err := ast.Parse(out)
	if err != nil || nf.Module == nil || len(nf.Source.Comments) != len(f.Source.Comments) {
		return nil
	}
	h1, e1 := ir.Hash(m)
	h2, e2 := ir.Hash(nf.Module)
	if e1 != nil || e2 != nil || h1 != h2 {
		return nil
	}
	edits := minimalEdit(sn, src, out)
	if len(edits) == 0 {
		return nil
	}
	return &protocol.CodeAction{Title: "Organize declarations", Kind: kindOrganizeDecls, Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{sn.uri: edits}}}
}

func lineEnd(src []byte, from int) int {
	i := bytes.IndexByte(src[from:], '\n')
	if i < 0 {
		return len(src)
	}
	return from + i
}

func isDeclForm(m *ast.Module, f *syntax.Form) bool {
	for _, d := range m.Decls {
		if d.Base().Form == f {
			return true
		}
	}
	return false
}
