package syntax

import (
	"bytes"
	"slices"
)

// This file keeps an edited CST in pieces shared with the versions before
// it, so that an edit costs time in proportion to the list it rescans and
// the depth of the tree rather than to the file (issue 17).
//
// A piece is a run of consecutive node IDs whose nodes live in an array
// of an earlier version (or a fresh one), stored "raw": with the offsets
// and links they had there. Every piece but a spine piece is a run of
// whole sibling subtrees under one parent, so the only links that leave
// it are its roots' parent and its last root's next sibling, which the
// piece stores; every other link is inside the run and moves with it by
// one constant. Reading a node converts its raw offsets and links:
//
//   - offsets: raw + dPos;
//   - a link below rawLo (a root's parent): parent;
//   - the next sibling of the last root: lastNext;
//   - any other link: raw - rawLo + lo.
//
// A spine piece is one node on the path from the root to the edit, whose
// children lie in other pieces; it is written afresh for each version,
// with its links already final (rawLo = lo, lastRoot = lo), and copied,
// not shared, when a later version keeps it.

// piece is a run of node IDs [lo, hi).
type piece struct {
	lo, hi   int32
	nodes    []Node // nodes[g-lo] is node g, raw
	rawLo    int32  // the raw ID of nodes[0]
	dPos     uint32 // added to raw offsets (mod 2^32: it may stand for a negative shift)
	parent   int32  // the roots' parent
	lastRoot int32  // the last root
	lastNext int32  // its next sibling
	spine    bool
}

// pageBits sets the size of the pages of CST.page: 2^pageBits IDs.
const pageBits = 8

// maxPieces is the piece count over which an edit assembles the nodes
// into one array again: the pieces left around earlier edits cost a
// little on every access, the assembly a copy of the whole tree.
const maxPieces = 96

// pieceOf returns the piece holding node i.
func (c *CST) pieceOf(i int32) *piece {
	k := c.page[i>>pageBits]
	for c.pieces[k].hi <= i {
		k++
	}
	return &c.pieces[k]
}

// link converts a raw link other than a root's parent or the last root's
// next sibling.
func (p *piece) link(raw int32) int32 {
	if raw < 0 {
		return -1
	}
	return raw - p.rawLo + p.lo
}

func (p *piece) next(g int32) int32 {
	if g == p.lastRoot {
		return p.lastNext
	}
	return p.link(p.nodes[g-p.lo].Next)
}

func (p *piece) parentOf(g int32) int32 {
	raw := p.nodes[g-p.lo].Parent
	if raw < p.rawLo {
		return p.parent
	}
	return raw - p.rawLo + p.lo
}

// node returns node g as it stands in the tree.
func (p *piece) node(g int32) Node {
	n := p.nodes[g-p.lo]
	n.Start += p.dPos
	n.End += p.dPos
	n.Parent = p.parentOf(g)
	n.Next = p.next(g)
	n.Last = p.link(n.Last)
	return n
}

// newPieced returns the CST of src made of pieces, or one flat array
// when there are too many of them.
func newPieced(src []byte, lines *Mapper, pieces []piece) *CST {
	c := &CST{Src: src, Lines: lines, pieces: pieces, n: pieces[len(pieces)-1].hi}
	if len(pieces) > maxPieces {
		return newFlat(src, c.Nodes(), lines)
	}
	c.page = make([]int32, ((c.n-1)>>pageBits)+1)
	k := int32(0)
	for pg := range c.page {
		first := int32(pg) << pageBits
		for pieces[k].hi <= first {
			k++
		}
		c.page[pg] = k
	}
	return c
}

// rescan returns the CST of src, the text of old after the edit that
// replaced its bytes [start, oldEnd) with newEnd-start new bytes, or nil
// when it cannot tell cheaply. Both texts must be free of syntax errors
// for it to answer: it finds the innermost list whose parentheses enclose
// the edit, scans that list's new text alone (scan.go builds the very
// nodes tree-sitter would for text without errors, and a list's nodes
// follow from its text alone), and takes every other node from old,
// moved. The nodes outside the list's path from the root are shared with
// old as pieces; the cost is the list's size plus the depth of the tree
// times the number of old's pieces along the path.
func rescan(old *CST, src []byte, start, oldEnd, newEnd int, lines *Mapper) *CST {
	if old.Len() < 2 || old.HasError(0) {
		return nil
	}
	// The last node starting before the edit: Start grows with the ID.
	lo, hi := int32(0), int32(old.Len()) // nodes [0, lo) start before, [hi, n) do not
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		if old.Span(m).Start < start {
			lo = m + 1
		} else {
			hi = m
		}
	}
	// The innermost list around the edit is that node or an ancestor.
	list := int32(-1)
	for x := lo - 1; x > 0; x = old.Parent(x) {
		if sp := old.Span(x); old.Kind(x) == KindList && sp.Start < start && oldEnd < sp.End {
			list = x
			break
		}
	}
	if list <= 0 {
		return rescanTop(old, src, start, oldEnd, newEnd, lines)
	}
	delta := newEnd - oldEnd
	sp := old.Span(list)
	text := src[sp.Start : sp.End+delta]
	fresh := scan(text)
	if len(fresh) < 2 || fresh[0].Last != 1 || fresh[1].Next != -1 || int(fresh[1].End) != len(text) || symKinds[fresh[1].Symbol] != KindList {
		return nil // not one list any more, or a syntax error
	}
	oldSize := old.skip(list) - list
	newSize := int32(len(fresh) - 1)
	b := &pieceBuilder{old: old, w0: list, w1: list + oldSize, dn: newSize - oldSize, prev: -1, pieces: make([]piece, 0, 16)}
	var path []int32 // the list's ancestors, root first
	for x := old.Parent(list); x >= 0; x = old.Parent(x) {
		path = append(path, x)
	}
	slices.Reverse(path)
	for k, a := range path {
		b.spine(a, uint32(int32(delta)))
		child := list
		if k+1 < len(path) {
			child = path[k+1]
		}
		b.run(a+1, child, 0) // a's children before the path
	}
	b.pieces = append(b.pieces, piece{
		lo: list, hi: list + newSize, nodes: fresh[1:], rawLo: 1, dPos: uint32(sp.Start),
		parent: path[len(path)-1], lastRoot: list, lastNext: b.mapID(old.Next(list)),
	})
	end := b.w1
	for k := len(path) - 1; k >= 0; k-- {
		e := old.skip(path[k])
		b.run(end, e, uint32(int32(delta))) // path[k]'s children after the path
		end = e
	}
	if end != int32(old.Len()) || len(b.pieces) == 0 {
		return nil // cannot happen: the pieces cover the tree
	}
	c := newPieced(src, lines, b.pieces)
	c.edit = &ListEdit{List: list, Span: sp, NodeDelta: newSize - oldSize, ByteDelta: delta} // From: set by Document.Edit
	return c
}

// pieceBuilder collects the pieces of a rescanned CST.
type pieceBuilder struct {
	old    *CST
	w0, w1 int32 // the old nodes rescanned: a list's subtree, or top-level forms
	dn     int32 // new node count minus old
	gone   bool  // nothing at or after w0 in the new tree
	// prev is the top-level node before rescanned top-level nodes (-1
	// for a list), prevNext its new next sibling
	prev, prevNext int32
	pieces         []piece
}

// mapID converts an old node ID to the new one: those before the
// rescanned nodes keep theirs, those after move by dn, and the first
// rescanned one (the only one nodes outside refer to, as a next sibling
// or as the rescanned list) is the first new one.
func (b *pieceBuilder) mapID(id int32) int32 {
	switch {
	case id >= b.w1:
		return id + b.dn
	case id >= b.w0 && b.gone:
		return -1
	}
	return id
}

// mapNext is mapID for the next sibling of old node x: that of the
// top-level node before rescanned ones is set by rescanTop (the first new
// node, or the one after them).
func (b *pieceBuilder) mapNext(x, id int32) int32 {
	if x == b.prev {
		return b.prevNext
	}
	return b.mapID(id)
}

// spine appends old node a, an ancestor of the rescanned list, as a spine
// piece whose end moves by delta.
func (b *pieceBuilder) spine(a int32, delta uint32) {
	n := b.old.Node(a)
	n.End += delta
	n.Next, n.Last = b.mapID(n.Next), b.mapID(n.Last)
	b.pieces = append(b.pieces, piece{
		lo: a, hi: a + 1, nodes: []Node{n}, rawLo: a, parent: n.Parent, lastRoot: a, lastNext: n.Next, spine: true,
	})
}

// run appends old nodes [from, to), whole sibling subtrees all before or
// all after the rescanned list, moved by dPos bytes: as pieces sharing
// the arrays of the old pieces they come from.
func (b *pieceBuilder) run(from, to int32, dPos uint32) {
	old := b.old
	if from >= to {
		return
	}
	if old.flat != nil {
		b.derive(&piece{lo: 0, hi: int32(len(old.flat)), nodes: old.flat, parent: -1, lastNext: -1}, from, to, dPos)
		return
	}
	for k := old.page[from>>pageBits]; k < int32(len(old.pieces)) && old.pieces[k].lo < to; k++ {
		x := &old.pieces[k]
		if x.hi <= from {
			continue
		}
		f, h := max(from, x.lo), min(to, x.hi)
		if x.spine {
			n := x.node(f)
			n.Start += dPos
			n.End += dPos
			n.Parent, n.Next, n.Last = b.mapID(n.Parent), b.mapNext(f, n.Next), b.mapID(n.Last)
			g := b.mapID(f)
			b.pieces = append(b.pieces, piece{lo: g, hi: g + 1, nodes: []Node{n}, rawLo: g, parent: n.Parent, lastRoot: g, lastNext: n.Next, spine: true})
			continue
		}
		b.derive(x, f, h, dPos)
	}
}

// derive appends the nodes [f, h) of old piece x, whole sibling subtrees,
// as one piece sharing x's array.
func (b *pieceBuilder) derive(x *piece, f, h int32, dPos uint32) {
	old := b.old
	parent := old.Parent(f)
	last := h - 1 // the last root: the ancestor of the last node under parent
	for p := old.Parent(last); p != parent; p = old.Parent(last) {
		last = p
	}
	g := b.mapID(f)
	b.pieces = append(b.pieces, piece{
		lo: g, hi: g + (h - f), nodes: x.nodes[f-x.lo : h-x.lo], rawLo: x.rawLo + (f - x.lo), dPos: x.dPos + dPos,
		parent: b.mapID(parent), lastRoot: b.mapID(last), lastNext: b.mapNext(last, old.Next(last)),
	})
}

// rescanTop is rescan for an edit outside every list: it scans the text
// between the top-level forms around the edit, which must stay apart from
// the forms before and after it (whitespace on both sides, and no comment
// running into the next form).
func rescanTop(old *CST, src []byte, start, oldEnd, newEnd int, lines *Mapper) *CST {
	n := int32(old.Len())
	delta := newEnd - oldEnd
	// prev: the last top-level node ending before the edit; next: the
	// first starting after it
	prev, next := int32(-1), int32(-1)
	for k := old.FirstChild(0); k >= 0; k = old.Next(k) {
		sp := old.Span(k)
		if sp.End < start {
			prev = k
		}
		if sp.Start > oldEnd {
			next = k
			break
		}
	}
	w0, w1 := int32(1), n
	from, to := 0, len(old.Src) // the old text rescanned
	if prev >= 0 {
		w0, from = old.skip(prev), old.Span(prev).End
	}
	if next >= 0 {
		w1, to = next, old.Span(next).Start
	}
	text := src[from : to+delta]
	fresh := scan(text)
	if fresh == nil {
		return nil
	}
	if next >= 0 {
		if len(text) == 0 || !isSpace(text[len(text)-1]) {
			return nil // the next form could join a token at the end
		}
		if last := fresh[0].Last; last >= 0 && symKinds[fresh[last].Symbol] == KindComment &&
			!bytes.ContainsAny(text[fresh[last].End:], "\n\r") {
			return nil // a comment that runs on into the next form
		}
	}
	newSize := int32(len(fresh) - 1)
	b := &pieceBuilder{old: old, w0: w0, w1: w1, dn: newSize - (w1 - w0), gone: newSize == 0 && next < 0, prev: prev, prevNext: -1, pieces: make([]piece, 0, 8)}
	switch {
	case newSize > 0:
		b.prevNext = w0
	case next >= 0:
		b.prevNext = next + b.dn
	}
	root := old.Node(0)
	root.End = uint32(len(src))
	root.Next, root.Parent = -1, -1
	switch {
	case next >= 0:
		root.Last += b.dn // the last top-level node is next or after it
	case newSize > 0:
		root.Last = w0 + fresh[0].Last - 1
	case prev >= 0:
		root.Last = prev
	default:
		root.Last = -1
	}
	if prev < 0 {
		switch {
		case newSize > 0:
			root.Start = uint32(from) + fresh[1].Start
		case next >= 0:
			root.Start = uint32(int(old.Span(next).Start) + delta)
		default:
			root.Start = uint32(len(src))
		}
	}
	b.pieces = append(b.pieces, piece{lo: 0, hi: 1, nodes: []Node{root}, rawLo: 0, parent: -1, lastRoot: 0, lastNext: -1, spine: true})
	b.run(1, w0, 0)
	if newSize > 0 {
		after := int32(-1)
		if next >= 0 {
			after = next + b.dn
		}
		b.pieces = append(b.pieces, piece{
			lo: w0, hi: w0 + newSize, nodes: fresh[1:], rawLo: 1, dPos: uint32(from),
			parent: 0, lastRoot: w0 + fresh[0].Last - 1, lastNext: after,
		})
	}
	b.run(w1, n, uint32(int32(delta)))
	return newPieced(src, lines, b.pieces)
}
