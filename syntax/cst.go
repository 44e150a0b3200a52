package syntax

import (
	"context"
	"fmt"

	sitter "github.com/smacker/go-tree-sitter"

	capsulang "github.com/capsulang/caps/tree-sitter-capsulang/golang"
)

// Kind classifies CST nodes.
type Kind uint8

const (
	KindOther         Kind = iota
	KindSource             // the whole file
	KindList               // ( form... )
	KindSymbol             // names, operators, true/false/none
	KindNumber             // 42, -7, 0.5, 30m
	KindString             // "..."
	KindStringContent      // text inside a string
	KindEscape             // \n inside a string
	KindComment            // ; to end of line
	KindLParen             // (
	KindRParen             // )
	KindQuote              // " delimiters
	KindError              // tree-sitter ERROR node
)

var kindNames = map[string]Kind{
	"source_file":     KindSource,
	"list":            KindList,
	"symbol":          KindSymbol,
	"number":          KindNumber,
	"string":          KindString,
	"string_content":  KindStringContent,
	"escape_sequence": KindEscape,
	"comment":         KindComment,
	"(":               KindLParen,
	")":               KindRParen,
	"\"":              KindQuote,
	"ERROR":           KindError,
}

var (
	language  = capsulang.Language()
	maxSymbol = language.SymbolCount()
	symKinds  = kindsBySymbol()
)

// kindsBySymbol returns the kind of each tree-sitter symbol.
func kindsBySymbol() []Kind {
	kinds := make([]Kind, maxSymbol+1)
	for s := uint32(0); s < maxSymbol; s++ {
		name := language.SymbolName(sitter.Symbol(s))
		if k, ok := kindNames[name]; ok {
			// Anonymous "(" and named nodes share no names, so the name alone
			// identifies the kind.
			if kinds[s] == KindOther {
				kinds[s] = k
			}
		}
	}
	return kinds
}

// Language returns the tree-sitter language (for queries and tests).
func Language() *sitter.Language { return language }

// Node is one CST node, as flattened from the tree-sitter tree.
type Node = capsulang.RawNode

// CST is an immutable concrete syntax tree with its source text. Node 0 is
// the root; children follow their parent in preorder.
type CST struct {
	Src   []byte // never modified after parsing
	Nodes []Node
	// Lines is the position mapper of Src, built once with the tree.
	Lines *Mapper
}

// Kind returns the kind of node i.
func (c *CST) Kind(i int32) Kind {
	s := c.Nodes[i].Symbol
	if s == 65535 { // ts_builtin_sym_error
		return KindError
	}
	if int(s) < len(symKinds) {
		return symKinds[s]
	}
	return KindOther
}

// Span returns the byte span of node i.
func (c *CST) Span(i int32) Span {
	n := &c.Nodes[i]
	return Span{int(n.Start), int(n.End)}
}

// Text returns the source text of node i.
func (c *CST) Text(i int32) string {
	n := &c.Nodes[i]
	return string(c.Src[n.Start:n.End])
}

// FirstChild returns the first child of node i, or -1.
func (c *CST) FirstChild(i int32) int32 { return capsulang.FirstChild(c.Nodes, i) }

// Next returns the next sibling of node i, or -1.
func (c *CST) Next(i int32) int32 { return c.Nodes[i].Next }

// ListHead returns the symbol that list node i starts with (comments
// before it skipped), or "" when its first item is not a symbol.
func (c *CST) ListHead(i int32) string { return string(c.ListHeadBytes(i)) }

// ListHeadBytes is ListHead without a copy: the head's bytes in c.Src
// (nil when the list has no symbol head).
func (c *CST) ListHeadBytes(i int32) []byte {
	for j := c.FirstChild(i); j >= 0; j = c.Next(j) {
		switch c.Kind(j) {
		case KindLParen, KindComment:
			continue
		case KindSymbol:
			sp := c.Span(j)
			return c.Src[sp.Start:sp.End]
		}
		return nil
	}
	return nil
}

// Missing reports whether node i was inserted by error recovery.
func (c *CST) Missing(i int32) bool { return c.Nodes[i].Flags&capsulang.FlagMissing != 0 }

// HasError reports whether node i is an error or a missing node; for the
// root (i == 0) whether the tree has an error anywhere.
func (c *CST) HasError(i int32) bool {
	return c.Nodes[i].Flags&(capsulang.FlagHasError|capsulang.FlagError|capsulang.FlagMissing) != 0
}

// Parser parses Capsulang source with tree-sitter. A Parser is not safe for
// concurrent use; Close releases its C memory.
type Parser struct {
	p *sitter.Parser
}

// NewParser returns a parser for Capsulang.
func NewParser() *Parser {
	p := sitter.NewParser()
	p.SetLanguage(language)
	return &Parser{p: p}
}

// Close releases the parser.
func (p *Parser) Close() { p.p.Close() }

// Parse parses src from scratch and returns its CST. Text without syntax
// errors is read by a scanner that builds the very CST tree-sitter would
// (see scan); other text is parsed by tree-sitter, whose tree is released
// before returning.
func (p *Parser) Parse(src []byte) (*CST, error) {
	if c := scanned(src); c != nil {
		return c, nil
	}
	tree, err := p.p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	defer tree.Close()
	return newCST(tree, src, nil), nil
}

func newCST(tree *sitter.Tree, src []byte, lines *Mapper) *CST {
	if lines == nil {
		lines = NewMapper(src)
	}
	return &CST{Src: src, Nodes: capsulang.FlattenParallel(tree, nil), Lines: lines}
}

// Parse is a convenience that parses src with a fresh parser (made only
// when the text needs tree-sitter).
func Parse(src []byte) (*CST, error) {
	if c := scanned(src); c != nil {
		return c, nil
	}
	p := NewParser()
	defer p.Close()
	return p.Parse(src)
}

// Document is an editable source file whose tree is kept between edits, so
// that each edit reparses incrementally. Every edit produces a new immutable
// CST; earlier CSTs stay valid. A Document is not safe for concurrent use;
// Close releases its C memory.
type Document struct {
	parser *Parser
	tree   *sitter.Tree
	cst    *CST
}

// NewDocument parses src and returns a document holding it.
func NewDocument(src []byte) (*Document, error) {
	d := &Document{parser: NewParser()}
	tree, err := d.parser.p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		d.parser.Close()
		return nil, fmt.Errorf("parse: %w", err)
	}
	d.tree = tree
	d.cst = newCST(tree, src, nil)
	return d, nil
}

// CST returns the current syntax tree.
func (d *Document) CST() *CST { return d.cst }

// Text returns the current text. The caller must not modify it.
func (d *Document) Text() []byte { return d.cst.Src }

// Edit replaces the bytes [start, end) with text and reparses incrementally.
func (d *Document) Edit(start, end int, text []byte) error {
	old := d.cst
	if start < 0 || end < start || end > len(old.Src) {
		return fmt.Errorf("edit range [%d, %d) is outside the document (%d bytes)", start, end, len(old.Src))
	}
	src := make([]byte, 0, len(old.Src)-(end-start)+len(text))
	src = append(src, old.Src[:start]...)
	src = append(src, text...)
	src = append(src, old.Src[end:]...)
	lines := NewMapper(src)
	newEnd := start + len(text)
	d.tree.Edit(sitter.EditInput{
		StartIndex:  uint32(start),
		OldEndIndex: uint32(end),
		NewEndIndex: uint32(newEnd),
		StartPoint:  point(old.Lines, start),
		OldEndPoint: point(old.Lines, end),
		NewEndPoint: point(lines, newEnd),
	})
	tree, err := d.parser.p.ParseCtx(context.Background(), d.tree, src)
	if err != nil {
		return fmt.Errorf("reparse: %w", err)
	}
	nodes := splice(old, tree, start, end, newEnd)
	d.tree.Close()
	d.tree = tree
	if nodes == nil {
		d.cst = newCST(tree, src, lines)
		return nil
	}
	d.cst = &CST{Src: src, Nodes: nodes, Lines: lines}
	return nil
}

// Replace swaps in a whole new text (a full-document change).
func (d *Document) Replace(src []byte) error {
	tree, err := d.parser.p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	d.tree.Close()
	d.tree = tree
	d.cst = newCST(tree, src, nil)
	return nil
}

// Close releases the document's tree and parser.
func (d *Document) Close() {
	if d.tree != nil {
		d.tree.Close()
		d.tree = nil
	}
	if d.parser != nil {
		d.parser.Close()
		d.parser = nil
	}
}

// point converts an offset to a tree-sitter point (row, byte column).
func point(l *Mapper, off int) sitter.Point {
	line := l.Line(off)
	return sitter.Point{Row: uint32(line), Column: uint32(off - l.LineStart(line))}
}
