package lsp

import (
	"context"
	"sort"
	"strconv"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Semantic token types and modifiers, in legend order.
var (
	tokenTypes = []string{"namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter", "variable", "property", "enumMember", "event", "function", "method", "macro", "keyword", "modifier", "comment", "string", "number", "regexp", "operator"}
	tokenMods  = []string{"declaration", "definition", "readonly", "static", "deprecated", "abstract", "async", "modification", "documentation", "defaultLibrary"}
)

func tokenType(name string) uint32 {
	for i, t := range tokenTypes {
		if t == name {
			return uint32(i)
		}
	}
	panic("unknown token type " + name)
}

const (
	modDeclaration    = 1 << 0
	modReadonly       = 1 << 2
	modDefaultLibrary = 1 << 9
)

func init() {
	requests["textDocument/semanticTokens/full"] = documentOnly(semanticTokensFull)
	requests["textDocument/semanticTokens/full/delta"] = onDocument(func(p *protocol.SemanticTokensDeltaParams) protocol.DocumentURI { return p.TextDocument.URI }, semanticTokensDelta)
	extraFeatures = append(extraFeatures, func(c *protocol.ServerCapabilities) {
		c.SemanticTokensProvider = map[string]any{
			"legend": map[string]any{"tokenTypes": tokenTypes, "tokenModifiers": tokenMods},
			"full":   map[string]any{"delta": true},
		}
	})
}

type semTok struct {
	span syntax.Span
	typ  uint32
	mods uint32
}

func symbolTokenType(s *check.Symbol) (string, uint32) {
	switch s.Kind {
	case check.SymState:
		return "enumMember", 0
	case check.SymEvent:
		return "event", 0
	case check.SymContextField, check.SymField, check.SymEventField:
		return "property", 0
	case check.SymInput, check.SymProofInput:
		return "parameter", 0
	case check.SymLocal:
		return "variable", modReadonly
	case check.SymEnumMember, check.SymVariantCase:
		return "enumMember", 0
	case check.SymOperation:
		return "method", 0
	case check.SymCollection:
		return "property", 0
	case check.SymImport, check.SymModule:
		return "namespace", 0
	case check.SymbolKind(ast.KindType):
		return "type", 0
	case check.SymbolKind(ast.KindFunction):
		return "function", 0
	case check.SymbolKind(ast.KindMachine):
		return "class", 0
	case check.SymbolKind(ast.KindStore), check.SymbolKind(ast.KindSurface), check.SymbolKind(ast.KindPort), check.SymbolKind(ast.KindAgent):
		return "interface", 0
	}
	return "struct", 0
}

// tokens computes the snapshot's semantic tokens: names from the checker's
// symbols and references, and keywords, effects, types, literals and
// comments from the forms.
func tokens(sn *snapshot) []semTok {
	pkg := sn.Package()
	named := map[int]semTok{}
	for _, s := range pkg.Result.Symbols {
		if !pkg.Result.Local(s) || s.Span.End <= s.Span.Start {
			continue
		}
		t, m := symbolTokenType(s)
		named[s.Span.Start] = semTok{s.Span, tokenType(t), m | modDeclaration}
	}
	for _, r := range pkg.Result.Refs {
		t, m := symbolTokenType(r.Sym)
		if _, ok := named[r.Span.Start]; !ok {
			named[r.Span.Start] = semTok{r.Span, tokenType(t), m}
		}
	}
	var out []semTok
	var walk func(fs []*syntax.Form, head bool)
	walk = func(fs []*syntax.Form, inList bool) {
		for i, f := range fs {
			switch f.Kind {
			case syntax.FormList:
				walk(f.Items(), true)
			case syntax.FormString:
				out = append(out, semTok{f.Span(), tokenType("string"), 0})
			case syntax.FormNumber:
				out = append(out, semTok{f.Span(), tokenType("number"), 0})
			case syntax.FormSymbol:
				if t, ok := named[f.Span().Start]; ok {
					out = append(out, t)
					// dotted references: tokens for each resolved segment
					for off := f.Span().Start + 1; off < f.Span().End; off++ {
						if t2, ok := named[off]; ok {
							out = append(out, t2)
						}
					}
					continue
				}
				if seg := segmentTokens(f, named); len(seg) > 0 {
					out = append(out, seg...)
					continue
				}
				switch {
				case catalog.LookupEffect(f.Text()) != nil:
					out = append(out, semTok{f.Span(), tokenType("function"), modDefaultLibrary})
				case types.Builtins[f.Text()] != nil || types.Constructors[f.Text()] > 0:
					out = append(out, semTok{f.Span(), tokenType("type"), modDefaultLibrary})
				case f.Text() == "true" || f.Text() == "false" || f.Text() == "none":
					out = append(out, semTok{f.Span(), tokenType("macro"), modDefaultLibrary})
				case i == 0 && inList && isOperator(f.Text()):
					out = append(out, semTok{f.Span(), tokenType("operator"), 0})
				case i == 0 && inList:
					out = append(out, semTok{f.Span(), tokenType("keyword"), 0})
				}
			}
		}
	}
	walk(pkg.File.Source.Forms, false)
	for _, c := range pkg.File.Source.Comments {
		out = append(out, semTok{c, tokenType("comment"), 0})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].span.Start < out[j].span.Start })
	return out
}

// segmentTokens colours the resolved segments of a dotted symbol whose
// first segment is not itself a reference (e.g. event.amount).
func segmentTokens(f *syntax.Form, named map[int]semTok) []semTok {
	var out []semTok
	for off := f.Span().Start; off < f.Span().End; off++ {
		if t, ok := named[off]; ok {
			out = append(out, t)
		}
	}
	return out
}

func isOperator(s string) bool {
	switch s {
	case "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "not":
		return true
	}
	return false
}

// encode turns tokens into the LSP's relative integer encoding. Tokens
// spanning lines are split per line, as clients require.
func encode(sn *snapshot, toks []semTok) []uint32 {
	lines := sn.lines()
	data := make([]uint32, 0, len(toks)*5)
	prevLine, prevChar := 0, 0
	emit := func(line, char, length int, t semTok) {
		dl := line - prevLine
		dc := char
		if dl == 0 {
			dc = char - prevChar
		}
		data = append(data, uint32(dl), uint32(dc), uint32(length), t.typ, t.mods)
		prevLine, prevChar = line, char
	}
	lastEnd := -1
	for _, t := range toks {
		if t.span.Start < lastEnd {
			continue // overlapping: keep the first
		}
		lastEnd = t.span.End
		a := lines.Position(t.span.Start, sn.enc)
		b := lines.Position(t.span.End, sn.enc)
		if a.Line == b.Line {
			emit(a.Line, a.Character, b.Character-a.Character, t)
			continue
		}
		for l := a.Line; l <= b.Line; l++ {
			start := 0
			if l == a.Line {
				start = a.Character
			}
			end := b.Character
			if l != b.Line {
				end = lines.Position(lines.LineStart(l+1)-1, sn.enc).Character
			}
			if end > start {
				emit(l, start, end-start, t)
			}
		}
	}
	return data
}

// tokenResult is the semantic tokens last sent for a document, the base of
// the next delta.
type tokenResult struct {
	id   string
	data []uint32
}

// tokenResultIDs numbers the token results, across documents and
// reopenings, so that a stale id never matches.
var tokenResultIDs atomic.Uint64

// rememberTokens makes data the document's last tokens and returns their
// result id.
func (c *docCache) rememberTokens(data []uint32) string {
	id := strconv.FormatUint(tokenResultIDs.Add(1), 10)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tokens = tokenResult{id, data}
	return id
}

// lastTokens returns the document's last tokens (zero if none were sent).
func (c *docCache) lastTokens() tokenResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tokens
}

func semanticTokensFull(_ context.Context, sn *snapshot) (any, error) {
	data := encode(sn, tokens(sn))
	return &protocol.SemanticTokens{ResultID: sn.cache.rememberTokens(data), Data: data}, nil
}

func semanticTokensDelta(ctx context.Context, s *Server, sn *snapshot, p *protocol.SemanticTokensDeltaParams) (any, error) {
	data := encode(sn, tokens(sn))
	prev := sn.cache.lastTokens()
	id := sn.cache.rememberTokens(data)
	if prev.id == "" || prev.id != p.PreviousResultID {
		return &protocol.SemanticTokens{ResultID: id, Data: data}, nil
	}
	// one edit: the common prefix and suffix stay
	a, b := prev.data, data
	start := 0
	for start < len(a) && start < len(b) && a[start] == b[start] {
		start++
	}
	ea, eb := len(a), len(b)
	for ea > start && eb > start && a[ea-1] == b[eb-1] {
		ea--
		eb--
	}
	edits := []protocol.SemanticTokensEdit{}
	if start != ea || start != eb {
		edits = append(edits, protocol.SemanticTokensEdit{Start: uint32(start), DeleteCount: uint32(ea - start), Data: append([]uint32{}, b[start:eb]...)})
	}
	return &protocol.SemanticTokensDelta{ResultID: id, Edits: edits}, nil
}
