package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/codes"
	capsproto "github.com/capsulang/caps/codegen/protocol"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

func init() {
	requests["textDocument/hover"] = positional(hover)
	requests["textDocument/definition"] = positional(definition)
	requests["textDocument/declaration"] = positional(definition)
	requests["textDocument/references"] = onDocument(func(p *protocol.ReferenceParams) protocol.DocumentURI { return p.TextDocument.URI }, references)
	requests["textDocument/documentHighlight"] = positional(highlight)
	requests["textDocument/documentSymbol"] = documentOnly(documentSymbols)
	requests["textDocument/foldingRange"] = documentOnly(foldingRanges)
	requests["textDocument/selectionRange"] = onDocument(func(p *protocol.SelectionRangeParams) protocol.DocumentURI { return p.TextDocument.URI }, selectionRanges)
}

// enableFeatures advertises exactly the features registered here.
func enableFeatures(c *protocol.ServerCapabilities) {
	c.HoverProvider = true
	c.DefinitionProvider = true
	c.DeclarationProvider = true
	c.ReferencesProvider = true
	c.DocumentHighlightProvider = true
	c.DocumentSymbolProvider = true
	c.FoldingRangeProvider = true
	c.SelectionRangeProvider = true
	for _, f := range extraFeatures {
		f(c)
	}
}

// extraFeatures lets other files advertise what they register.
var extraFeatures []func(*protocol.ServerCapabilities)

// onDocument adapts a handler whose params name one open document: the
// params are decoded and the document's snapshot taken synchronously (in
// order with the notifications before it); run executes on the request's
// own goroutine.
func onDocument[P any](uri func(*P) protocol.DocumentURI, run func(ctx context.Context, s *Server, sn *snapshot, p *P) (any, error)) requestHandler {
	return func(s *Server, params json.RawMessage) (func(context.Context) (any, error), error) {
		p := new(P)
		if err := decode(params, p); err != nil {
			return nil, err
		}
		sn, err := s.snapshotOf(uri(p))
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context) (any, error) { return run(ctx, s, sn, p) }, nil
	}
}

// positional adapts a handler taking (snapshot, offset).
// The snapshot is the document's request snapshot (requestSnapshotOf).
func positional(f func(ctx context.Context, sn *snapshot, off int) (any, error)) requestHandler {
	return func(s *Server, params json.RawMessage) (func(context.Context) (any, error), error) {
		p := new(protocol.TextDocumentPositionParams)
		if err := decode(params, p); err != nil {
			return nil, err
		}
		sn, err := s.requestSnapshotOf(p.TextDocument.URI)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context) (any, error) {
			off, err := sn.offset(p.Position)
			if err != nil {
				return nil, err
			}
			return f(ctx, sn, off)
		}, nil
	}
}

type documentParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
}

func documentOnly(f func(ctx context.Context, sn *snapshot) (any, error)) requestHandler {
	return onDocument(func(p *documentParams) protocol.DocumentURI { return p.TextDocument.URI },
		func(ctx context.Context, _ *Server, sn *snapshot, _ *documentParams) (any, error) { return f(ctx, sn) })
}

func (sn *snapshot) location(sym *check.Symbol) protocol.Location {
	if sym.File != "" && sym.File != sn.checkPath() {
		// An imported symbol: its span is in the other file.
		if m, ok := fileMapper(sn.loader, sym.File, sn.enc); ok {
			return m.Location(protocol.DocumentURI(uri.File(sym.File)), sym.Span)
		}
	}
	return protocol.Location{URI: sn.uri, Range: sn.rng(sym.Span)}
}

func hover(_ context.Context, sn *snapshot, off int) (any, error) {
	v := sn.view()
	if sym, sp := v.at(off); sym != nil {
		md := symbolMarkdown(sym)
		if !v.local(sym) && sym.File != "" {
			md += "\n\n*from " + sym.File + "*"
		}
		return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: ptrRange(sn.rng(sp))}, nil
	}
	if h := authorityHover(v, off); h != nil {
		return h, nil
	}
	if h := codeHover(sn, off); h != nil {
		return h, nil
	}
	path := v.path(off)
	if len(path) == 0 {
		return nil, nil
	}
	leaf := path[len(path)-1]
	if leaf.Kind != syntax.FormSymbol {
		return nil, nil
	}
	if e := catalog.LookupEffect(leaf.Text()); e != nil {
		md := effectMarkdown(e)
		if c := effectContract(v, path); c != nil {
			md += "\n\n---\n\n**targets** " + c.Describe()
		}
		return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: ptrRange(sn.rng(leaf.Span()))}, nil
	}
	if p := catalog.LookupProfile(leaf.Text()); p != nil && len(path) >= 2 && path[len(path)-2].Head() == "profile" {
		return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: profileMarkdown(p)}, Range: ptrRange(sn.rng(leaf.Span()))}, nil
	}
	if c := catalog.LookupConstruct(leaf.Text()); c != nil && len(path) >= 2 && path[len(path)-2].Items()[0] == leaf {
		return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: fmt.Sprintf("**%s** — %s\n\nClauses: `%s`", c.Kind, c.Summary, strings.Join(c.Keys(), "`, `"))}, Range: ptrRange(sn.rng(leaf.Span()))}, nil
	}
	return nil, nil
}

func ptrRange(r protocol.Range) *protocol.Range { return &r }

// effectContract returns the contract a protocol effect intent targets
// when path ends at the effect's name in (EFFECT TARGET ...): the port's
// tool, resource or prompt, the agent or its skill, the surface or its
// action. It is nil for other effects and undeclared targets.
func effectContract(v *view, path []*syntax.Form) *capsproto.Contract {
	if len(path) < 2 {
		return nil
	}
	res := v.moduleResult()
	if res == nil {
		return nil
	}
	leaf, form := path[len(path)-1], path[len(path)-2]
	if len(form.Items()) < 2 || form.Items()[0] != leaf || form.Items()[1].Kind != syntax.FormSymbol || !capsproto.IsProtocolEffect(leaf.Text()) {
		return nil
	}
	return capsproto.ContractOf(res, leaf.Text(), form.Items()[1].Text())
}

func symbolMarkdown(sym *check.Symbol) string {
	var b strings.Builder
	b.WriteString("```capsulang\n")
	detail := sym.Detail
	if detail == "" {
		detail = string(sym.Kind) + " " + sym.Name
		if sym.Type != nil {
			detail += " " + sym.Type.String()
		}
	}
	b.WriteString(detail)
	b.WriteString("\n```")
	if sym.Kind == check.SymState {
		b.WriteString("\n\n" + stateTransitions(sym))
	}
	if sym.Doc != "" {
		b.WriteString("\n\n")
		b.WriteString(sym.Doc)
	}
	return b.String()
}

// stateTransitions describes a state's incoming and outgoing transitions.
func stateTransitions(sym *check.Symbol) string {
	if sym.Parent == nil {
		return ""
	}
	m, ok := sym.Parent.Decl.(*ast.Machine)
	if !ok {
		return ""
	}
	var in, out []string
	for _, st := range m.States {
		for _, t := range st.Transitions {
			if st.Name.Name == sym.Name {
				out = append(out, fmt.Sprintf("`%s` → `%s`", t.Event.Name, t.Target.Name))
			}
			if t.Target.Name == sym.Name {
				in = append(in, fmt.Sprintf("`%s` on `%s`", st.Name.Name, t.Event.Name))
			}
		}
	}
	if m.Initial.Name == sym.Name {
		in = append([]string{"initial state"}, in...)
	}
	s := ""
	if len(in) > 0 {
		s += "**in:** " + strings.Join(in, ", ")
	}
	if len(out) > 0 {
		if s != "" {
			s += "  \n"
		}
		s += "**out:** " + strings.Join(out, ", ")
	}
	if s == "" {
		s = "*no transitions*"
	}
	return s
}

func effectMarkdown(e *catalog.Effect) string {
	return fmt.Sprintf("```capsulang\neffect %s\n```\n%s\n\n- domain: `%s`\n- determinism: `%s`\n- target: %s\n- admitted by profiles: %s",
		e.Name, e.Description, e.Domain, e.Determinism, targetText(e), admitting(e))
}

func targetText(e *catalog.Effect) string {
	if e.Target == "none" {
		return "none"
	}
	s := "`" + e.Target + "`"
	if e.OptionalTarget {
		s += " (optional)"
	}
	return s
}

func admitting(e *catalog.Effect) string {
	var names []string
	for _, p := range catalog.AdmittingProfiles(e) {
		names = append(names, "`"+p.Name+"`")
	}
	if len(names) == 0 {
		return "none (only modules without profiles)"
	}
	return strings.Join(names, ", ")
}

func profileMarkdown(p *catalog.Profile) string {
	s := fmt.Sprintf("```capsulang\nprofile %s\n```\n%s", p.Name, p.Description)
	if len(p.Domains) > 0 {
		s += "\n\nadmits effect domains: `" + strings.Join(p.Domains, "`, `") + "`"
	}
	if len(p.Effects) > 0 {
		s += "\n\nadmits effects: `" + strings.Join(p.Effects, "`, `") + "`"
	}
	return s
}

func definition(_ context.Context, sn *snapshot, off int) (any, error) {
	v := sn.view()
	sym, _ := v.at(off)
	if sym == nil || sym.Span == (syntax.Span{}) && v.local(sym) {
		return []protocol.Location{}, nil
	}
	return []protocol.Location{sn.location(sym)}, nil
}

func references(ctx context.Context, s *Server, sn *snapshot, p *protocol.ReferenceParams) (any, error) {
	off, err := sn.offset(p.Position)
	if err != nil {
		return nil, err
	}
	ix := sn.Index()
	sym, _, _ := ix.at(off)
	out := []protocol.Location{}
	if sym == nil {
		return out, nil
	}
	if p.Context.IncludeDeclaration {
		out = append(out, sn.location(sym))
	}
	for _, sp := range ix.uses[sym] {
		out = append(out, protocol.Location{URI: sn.uri, Range: sn.rng(sp)})
	}
	// uses in the other workspace files
	for path, spans := range s.fileUses(sn, sym) {
		out = append(out, s.locations(path, spans, sn.enc)...)
	}
	return out, nil
}

func highlight(_ context.Context, sn *snapshot, off int) (any, error) {
	ix := sn.Index()
	sym, _, _ := ix.at(off)
	out := []protocol.DocumentHighlight{}
	if sym == nil {
		return out, nil
	}
	if sn.Package().Result.Local(sym) {
		out = append(out, protocol.DocumentHighlight{Range: sn.rng(sym.Span), Kind: protocol.DocumentHighlightKindWrite})
	}
	for _, sp := range ix.uses[sym] {
		out = append(out, protocol.DocumentHighlight{Range: sn.rng(sp), Kind: protocol.DocumentHighlightKindRead})
	}
	return out, nil
}

func foldingRanges(_ context.Context, sn *snapshot) (any, error) {
	src := sn.Package()
	lines := sn.lines()
	out := []protocol.FoldingRange{}
	var walk func(fs []*syntax.Form, depth int)
	walk = func(fs []*syntax.Form, depth int) {
		for _, f := range fs {
			if f.Kind != syntax.FormList {
				continue
			}
			a, b := lines.Line(f.Span().Start), lines.Line(f.Span().End)
			if b > a {
				out = append(out, protocol.FoldingRange{StartLine: uint32(a), EndLine: uint32(b)})
			}
			walk(f.Items(), depth+1)
		}
	}
	walk(src.File.Source.Forms, 0)
	// runs of full-line comments
	comments := src.File.Source.Comments
	for i := 0; i < len(comments); {
		j := i
		for j+1 < len(comments) && lines.Line(comments[j+1].Start) == lines.Line(comments[j].Start)+1 {
			j++
		}
		if j > i {
			out = append(out, protocol.FoldingRange{StartLine: uint32(lines.Line(comments[i].Start)), EndLine: uint32(lines.Line(comments[j].Start)), Kind: protocol.CommentFoldingRange})
		}
		i = j + 1
	}
	return out, nil
}

func selectionRanges(ctx context.Context, _ *Server, sn *snapshot, p *protocol.SelectionRangeParams) (any, error) {
	pkg := sn.Package()
	out := []*protocol.SelectionRange{}
	for _, pos := range p.Positions {
		off, err := sn.offset(pos)
		if err != nil {
			return nil, err
		}
		path := formPath(pkg.File.Source.Forms, off)
		full := syntax.Span{Start: 0, End: len(sn.cst.Src)}
		cur := &protocol.SelectionRange{Range: sn.rng(full)}
		for _, f := range path {
			cur = &protocol.SelectionRange{Range: sn.rng(f.Span()), Parent: cur}
		}
		if len(path) == 0 {
			cur = &protocol.SelectionRange{Range: sn.rng(syntax.Span{Start: off, End: off}), Parent: cur}
		}
		out = append(out, cur)
	}
	return out, nil
}

// codeHover explains a diagnostic code named at off (in a comment, say).
func codeHover(sn *snapshot, off int) *protocol.Hover {
	src := sn.cst.Src
	isCodeByte := func(b byte) bool { return b == '_' || b >= 'A' && b <= 'Z' }
	a, b := off, off
	for a > 0 && isCodeByte(src[a-1]) {
		a--
	}
	for b < len(src) && isCodeByte(src[b]) {
		b++
	}
	if b-a < 4 {
		return nil
	}
	k := codes.Lookup(string(src[a:b]))
	if k == nil {
		return nil
	}
	md := fmt.Sprintf("**%s** (%s): %s\n\n%s\n\n**Fix:** %s\n\n[Documentation](%s)", k.Code, k.Severity, k.Title, k.Summary, k.Fix, k.URL())
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: ptrRange(sn.rng(syntax.Span{Start: a, End: b}))}
}
