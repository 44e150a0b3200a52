package syntax

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"

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
// the root; children follow their parent in preorder, so a node's ID is
// its place in that order and its subtree's IDs follow it contiguously.
//
// The nodes are either one flat array (a fresh parse) or, after edits
// through a Document, a sequence of pieces (piece.go) shared with the
// versions before: an edit then costs time in proportion to the edited
// list and the depth of the tree, not to the file. Read nodes through the
// accessor methods (Kind, Span, Next, Node, ...), which answer the same
// for both.
type CST struct {
	Src []byte // never modified after parsing
	// Lines is the position mapper of Src, built once with the tree.
	Lines *Mapper

	flat   []Node  // all the nodes, when the tree is not in pieces
	pieces []piece // otherwise its pieces, in ID order
	page   []int32 // page[i>>pageBits]: the piece holding node i<<pageBits
	n      int32   // node count

	id    atomic.Uint64 // ID, assigned on first use
	edit  *ListEdit     // how the tree follows from its parent's (Rescanned)
	since []sharedEnds  // the text's ends shared with earlier trees (CommonEnds)
}

// sharedEnds says that a tree's text and the text of an earlier tree of
// the same Document (by ID) share their first pre and last suf bytes.
type sharedEnds struct {
	id       uint64
	pre, suf int
}

// maxSince bounds how many earlier trees a tree knows its shared ends with
// (the language server checks a document in full once typing pauses: its
// base may be a few hundred edits old).
const maxSince = 256

// CommonEnds returns the lengths of a prefix and a suffix that c's text
// shares with base's (pre+suf at most the shorter text's length), known
// without comparing the texts when base is one of the last trees of the
// Document that made c by edits (Edit): the text outside the bytes those
// edits replaced. They need not be the longest such runs (an edit may
// put back the bytes it replaced). ok is false when c does not know base.
func (c *CST) CommonEnds(base *CST) (pre, suf int, ok bool) {
	if len(c.since) == 0 {
		return 0, 0, false
	}
	id := base.ID()
	for _, e := range c.since {
		if e.id == id {
			return e.pre, e.suf, true
		}
	}
	return 0, 0, false
}

// EditedEnds returns the lengths of a prefix and a suffix that c's text
// shares with base's, which overlap in neither: those c knows
// (CommonEnds) when it was made from base by a Document's edits, without
// comparing the texts; else the longest ones (SharedEnds). Callers read
// them as bytes known to be equal, not as the longest such runs.
func (c *CST) EditedEnds(base *CST) (pre, suf int) {
	if pre, suf, ok := c.CommonEnds(base); ok && pre+suf <= min(len(base.Src), len(c.Src)) {
		return pre, suf
	}
	return SharedEnds(base.Src, c.Src)
}

// SharedEnds returns the lengths of the longest common prefix of a and
// b, and of their longest common suffix in what the prefix leaves.
func SharedEnds(a, b []byte) (pre, suf int) {
	n := min(len(a), len(b))
	// whole blocks compared by bytes.Equal (vectorized), then bytes
	const block = 256
	for pre+block <= n && bytes.Equal(a[pre:pre+block], b[pre:pre+block]) {
		pre += block
	}
	for pre < n && a[pre] == b[pre] {
		pre++
	}
	m := n - pre
	for suf+block <= m && bytes.Equal(a[len(a)-suf-block:len(a)-suf], b[len(b)-suf-block:len(b)-suf]) {
		suf += block
	}
	for suf < m && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// sinceAfter returns the shared ends of a tree made from old by replacing
// its bytes [start, end): with old itself, and with each tree old knows,
// the run before the edit and the run after it.
func sinceAfter(old *CST, start, end int) []sharedEnds {
	after := len(old.Src) - end
	out := make([]sharedEnds, 0, min(len(old.since)+1, maxSince))
	out = append(out, sharedEnds{id: old.ID(), pre: start, suf: after})
	for _, e := range old.since {
		if len(out) == maxSince {
			break
		}
		out = append(out, sharedEnds{id: e.id, pre: min(e.pre, start), suf: min(e.suf, after)})
	}
	return out
}

// cstIDs numbers the trees that ask for an ID.
var cstIDs atomic.Uint64

// ID returns a number that identifies this tree among all trees of the
// process (assigned on first use): a later tree's Rescanned names the
// tree it was edited from by its ID, without keeping that tree alive.
func (c *CST) ID() uint64 {
	if id := c.id.Load(); id != 0 {
		return id
	}
	c.id.CompareAndSwap(0, cstIDs.Add(1))
	return c.id.Load()
}

// ListEdit says how a tree that a Document edit rescanned follows from
// the tree before the edit: the subtree of one list, node From.List, was
// read again from the new text; every node before it in ID order keeps
// its ID, offsets and links (the list's ancestors' ends and next links
// aside), and every node after its subtree is the same node, its ID moved
// by NodeDelta and its offsets by ByteDelta.
type ListEdit struct {
	From      uint64 // the ID of the tree before the edit
	List      int32  // the list read again (the same ID in both trees)
	Span      Span   // its span in the tree before the edit
	NodeDelta int32  // its subtree's node count after, minus before
	ByteDelta int    // its length after, minus before
}

// Rescanned reports how the tree follows from the one before the edit
// that made it, when that edit read one list again and took every other
// node from the tree before (see ListEdit); ok is false otherwise (the
// first tree, a full scan or parse, an edit between top-level forms).
func (c *CST) Rescanned() (e ListEdit, ok bool) {
	if c.edit == nil {
		return ListEdit{}, false
	}
	return *c.edit, true
}

// newFlat returns the CST of src whose nodes are nodes.
func newFlat(src []byte, nodes []Node, lines *Mapper) *CST {
	return &CST{Src: src, Lines: lines, flat: nodes, n: int32(len(nodes))}
}

// Len returns the number of nodes (0 for a CST without nodes).
func (c *CST) Len() int {
	if c.flat != nil {
		return len(c.flat)
	}
	return int(c.n)
}

// Node returns node i with its links and offsets as they stand in this
// tree.
func (c *CST) Node(i int32) Node {
	if c.flat != nil {
		return c.flat[i]
	}
	p := c.pieceOf(i)
	return p.node(i)
}

// Nodes returns all the nodes as one array in ID order: the CST's own
// array when it has one (the caller must not modify it), else a copy
// assembled from its pieces.
func (c *CST) Nodes() []Node {
	if c.flat != nil || c.n == 0 {
		return c.flat
	}
	out := make([]Node, c.n)
	for k := range c.pieces {
		p := &c.pieces[k]
		for g := p.lo; g < p.hi; g++ {
			out[g] = p.node(g)
		}
	}
	return out
}

// flags returns the flags of node i.
func (c *CST) flags(i int32) uint16 {
	if c.flat != nil {
		return c.flat[i].Flags
	}
	return c.flagsSlow(i)
}

//go:noinline
func (c *CST) flagsSlow(i int32) uint16 {
	p := c.pieceOf(i)
	return p.nodes[i-p.lo].Flags
}

// Kind returns the kind of node i.
func (c *CST) Kind(i int32) Kind {
	if c.flat != nil {
		return kindOfSymbol[c.flat[i].Symbol]
	}
	return kindOfSymbol[c.symbolSlow(i)]
}

// kindOfSymbol is the kind of every possible symbol: one load instead of
// tests keeps Kind small enough to inline.
var kindOfSymbol = func() *[1 << 16]Kind {
	var t [1 << 16]Kind
	copy(t[:], symKinds)
	t[65535] = KindError // ts_builtin_sym_error
	return &t
}()

// The accessors read a flat CST inline and call these, kept out of line
// so that the accessors stay small enough to inline, for a CST in pieces.

//go:noinline
func (c *CST) symbolSlow(i int32) uint16 {
	p := c.pieceOf(i)
	return p.nodes[i-p.lo].Symbol
}

//go:noinline
func (c *CST) spanSlow(i int32) Span {
	p := c.pieceOf(i)
	n := &p.nodes[i-p.lo]
	return Span{int(n.Start + p.dPos), int(n.End + p.dPos)}
}

//go:noinline
func (c *CST) nextSlow(i int32) int32 { return c.pieceOf(i).next(i) }

//go:noinline
func (c *CST) parentSlow(i int32) int32 { return c.pieceOf(i).parentOf(i) }

//go:noinline
func (c *CST) firstChildSlow(i int32) int32 {
	p := c.pieceOf(i)
	if p.nodes[i-p.lo].Last < 0 {
		return -1
	}
	return i + 1
}

// Span returns the byte span of node i.
func (c *CST) Span(i int32) Span {
	if c.flat != nil {
		n := &c.flat[i]
		return Span{int(n.Start), int(n.End)}
	}
	return c.spanSlow(i)
}

// Text returns the source text of node i.
func (c *CST) Text(i int32) string {
	sp := c.Span(i)
	return string(c.Src[sp.Start:sp.End])
}

// FirstChild returns the first child of node i, or -1.
func (c *CST) FirstChild(i int32) int32 {
	if c.flat != nil {
		if c.flat[i].Last < 0 {
			return -1
		}
		return i + 1
	}
	return c.firstChildSlow(i)
}

// Next returns the next sibling of node i, or -1.
func (c *CST) Next(i int32) int32 {
	if c.flat != nil {
		return c.flat[i].Next
	}
	return c.nextSlow(i)
}

// Parent returns the parent of node i, or -1 for the root.
func (c *CST) Parent(i int32) int32 {
	if c.flat != nil {
		return c.flat[i].Parent
	}
	return c.parentSlow(i)
}

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
func (c *CST) Missing(i int32) bool { return c.flags(i)&capsulang.FlagMissing != 0 }

// HasError reports whether node i is an error or a missing node; for the
// root (i == 0) whether the tree has an error anywhere.
func (c *CST) HasError(i int32) bool {
	return c.flags(i)&(capsulang.FlagHasError|capsulang.FlagError|capsulang.FlagMissing) != 0
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
	return newFlat(src, capsulang.FlattenParallel(tree, nil), lines)
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

// Document is an editable source file. Every edit produces a new
// immutable CST; earlier CSTs stay valid. While the text is free of syntax
// errors an edit rescans only the innermost list around it and shares
// every other node with the CST before (rescan); text with errors is
// parsed by tree-sitter, incrementally from the document's tree, which
// exists from the first such text on and follows every edit after. A
// Document is not safe for concurrent use; Close releases its C memory.
type Document struct {
	parser *Parser
	tree   *sitter.Tree // nil until some text needs tree-sitter
	cst    *CST
}

// NewDocument parses src and returns a document holding it.
func NewDocument(src []byte) (*Document, error) {
	d := &Document{parser: NewParser()}
	if c := scanned(src); c != nil {
		d.cst = c
		return d, nil
	}
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

// Edit replaces the bytes [start, end) with text and parses the result:
// by rescanning the list around the edit when it can, else by scanning
// the whole text, else with tree-sitter.
func (d *Document) Edit(start, end int, text []byte) error {
	old := d.cst
	if start < 0 || end < start || end > len(old.Src) {
		return fmt.Errorf("edit range [%d, %d) is outside the document (%d bytes)", start, end, len(old.Src))
	}
	// bytes.Join allocates without zeroing what it then copies over
	src := bytes.Join([][]byte{old.Src[:start], text, old.Src[end:]}, nil)
	lines := old.Lines.edit(src, start, end, len(text))
	newEnd := start + len(text)
	if d.tree != nil {
		d.tree.Edit(sitter.EditInput{
			StartIndex:  uint32(start),
			OldEndIndex: uint32(end),
			NewEndIndex: uint32(newEnd),
			StartPoint:  point(old.Lines, start),
			OldEndPoint: point(old.Lines, end),
			NewEndPoint: point(lines, newEnd),
		})
	}
	since := sinceAfter(old, start, end)
	if c := rescan(old, src, start, end, newEnd, lines); c != nil {
		if c.edit != nil {
			c.edit.From = old.ID()
		}
		c.since = since
		d.cst = c
		return nil
	}
	if nodes := scan(src); nodes != nil {
		d.cst = newFlat(src, nodes, lines)
		d.cst.since = since
		return nil
	}
	tree, err := d.parser.p.ParseCtx(context.Background(), d.tree, src)
	if err != nil {
		return fmt.Errorf("reparse: %w", err)
	}
	if d.tree != nil {
		d.tree.Close()
	}
	d.tree = tree
	d.cst = newCST(tree, src, lines)
	d.cst.since = since
	return nil
}

// Replace swaps in a whole new text (a full-document change).
func (d *Document) Replace(src []byte) error {
	if d.tree != nil {
		d.tree.Close()
		d.tree = nil
	}
	if c := scanned(src); c != nil {
		d.cst = c
		return nil
	}
	tree, err := d.parser.p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		return fmt.Errorf("parse: %w", err)
	}
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
