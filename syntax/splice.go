package syntax

import (
	"slices"

	sitter "github.com/smacker/go-tree-sitter"

	capsulang "github.com/capsulang/caps/tree-sitter-capsulang/golang"
)

// splice builds the flattened nodes of tree, the incremental reparse of
// old after the edit that replaced old's bytes [start, oldEnd) with
// newEnd-start new bytes, by copying every subtree the edit did not touch
// from old's nodes (shifting the offsets of those after it) and flattening
// only the children of the smallest node that contains the edit. The cost
// is a copy of the node array plus tree-sitter work proportional to the
// edited region, instead of a walk of the whole tree.
//
// It returns nil, and the caller flattens the whole tree, when either tree
// has a syntax error: only error-free subtrees are context-free (a list's
// structure follows from its text alone), which is what makes reusing one
// by its text and position sound.
func splice(old *CST, tree *sitter.Tree, start, oldEnd, newEnd int) []Node {
	info := capsulang.Info(tree)
	if info.HasError || len(old.Nodes) == 0 || old.HasError(0) {
		return nil
	}
	sp := &splicer{
		old: old, tree: tree, start: start, oldEnd: oldEnd, delta: newEnd - oldEnd,
		out: make([]Node, 0, info.Nodes),
	}
	root := old.Nodes[0]
	root.Start, root.End = info.Start, info.End
	if !sp.container(0, root, -1) || len(sp.out) != info.Nodes {
		return nil
	}
	return sp.out
}

// maxSpliceDepth bounds how deep splice descends towards an edit: each
// level costs a walk from the root (tree-sitter nodes have no parent
// links), so in a pathologically nested file the deepest lists are
// flattened afresh instead.
const maxSpliceDepth = 64

type splicer struct {
	old    *CST
	tree   *sitter.Tree
	start  int // the edit, in old offsets
	oldEnd int
	delta  int // new length minus old length
	out    []Node
	path   []uint32 // child indexes from the new root to the current container
	kids   []capsulang.Child
	oldIDs []int32
}

// container appends the node old.Nodes[oi], which contains the edit, with
// the new header hdr, then its children: those before and after the edit
// copied from old, the ones the edit touched either descended into (one
// list that still contains the whole edit) or flattened afresh.
func (sp *splicer) container(oi int32, hdr Node, parent int32) bool {
	ni := int32(len(sp.out))
	hdr.Parent, hdr.Next, hdr.Last = parent, -1, -1
	sp.out = append(sp.out, hdr)

	newKids := capsulang.Children(sp.tree, sp.path, sp.kids[:0])
	sp.kids = newKids[len(newKids):] // later calls append past this level's list
	oldKids := sp.oldIDs[len(sp.oldIDs):]
	for k := sp.old.FirstChild(oi); k >= 0; k = sp.old.Next(k) {
		oldKids = append(oldKids, k)
	}
	sp.oldIDs = oldKids[len(oldKids):]

	nodes := sp.old.Nodes
	p := 0
	for p < len(oldKids) && p < len(newKids) {
		o, n := &nodes[oldKids[p]], &newKids[p]
		if int(o.End) > sp.start || n.Start != o.Start || n.End != o.End || n.Symbol != o.Symbol {
			break
		}
		p++
	}
	s := 0
	for s < len(oldKids)-p && s < len(newKids)-p {
		o, n := &nodes[oldKids[len(oldKids)-1-s]], &newKids[len(newKids)-1-s]
		if int(o.Start) < sp.oldEnd || int(n.Start) != int(o.Start)+sp.delta || int(n.End) != int(o.End)+sp.delta || n.Symbol != o.Symbol {
			break
		}
		s++
	}

	prev := int32(-1)
	link := func(c int32) {
		if prev >= 0 {
			sp.out[prev].Next = c
		}
		sp.out[ni].Last = c
		prev = c
	}
	for i := 0; i < p; i++ {
		c, ok := sp.copySubtree(oldKids[i], newKids[i].Size, 0, ni)
		if !ok {
			return false
		}
		link(c)
	}
	oldWin, newWin := oldKids[p:len(oldKids)-s], newKids[p:len(newKids)-s]
	if len(oldWin) == 1 && len(newWin) == 1 {
		o, n := nodes[oldWin[0]], newWin[0]
		if n.Symbol == o.Symbol && o.Last >= 0 && int(o.Start) <= sp.start && sp.oldEnd <= int(o.End) && n.Size > 1 && len(sp.path) < maxSpliceDepth {
			o.Start, o.End = n.Start, n.End
			c := int32(len(sp.out))
			sp.path = append(sp.path, uint32(p))
			ok := sp.container(oldWin[0], o, ni)
			sp.path = sp.path[:len(sp.path)-1]
			if !ok {
				return false
			}
			link(c)
			newWin = nil
		}
	}
	if len(newWin) > 0 {
		c := int32(len(sp.out))
		if !sp.fresh(p, newWin, ni) {
			return false
		}
		for _, w := range newWin {
			link(c)
			c += int32(w.Size)
		}
	}
	for i := len(oldKids) - s; i < len(oldKids); i++ {
		c, ok := sp.copySubtree(oldKids[i], newKids[i-len(oldKids)+len(newKids)].Size, sp.delta, ni)
		if !ok {
			return false
		}
		link(c)
	}
	return true
}

// copySubtree appends old's subtree at oi, which the new tree has
// unchanged (size nodes), moved by delta bytes, as a child of parent.
func (sp *splicer) copySubtree(oi int32, size uint32, delta int, parent int32) (int32, bool) {
	end := int(oi) + int(size)
	if end > len(sp.old.Nodes) || sp.old.skip(oi) != int32(end) {
		return 0, false // the subtrees differ after all
	}
	ni := int32(len(sp.out))
	shift := ni - oi
	sp.out = append(sp.out, sp.old.Nodes[oi:end]...)
	if shift != 0 || delta != 0 {
		d := uint32(int32(delta))
		for i := range sp.out[ni:] {
			n := &sp.out[int(ni)+i]
			n.Start += d
			n.End += d
			n.Parent += shift
			if n.Next >= 0 {
				n.Next += shift
			}
			if n.Last >= 0 {
				n.Last += shift
			}
		}
	}
	sp.out[ni].Parent, sp.out[ni].Next = parent, -1
	return ni, true
}

// fresh appends the new tree's children of the current container from
// index from on, those described by kids, as children of parent.
func (sp *splicer) fresh(from int, kids []capsulang.Child, parent int32) bool {
	total := 0
	for _, k := range kids {
		total += int(k.Size)
	}
	base := len(sp.out)
	sp.out = slices.Grow(sp.out, total)[:base+total]
	return capsulang.FlattenChildren(sp.tree, sp.path, from, from+len(kids), sp.out, base, int(parent)) == total
}
