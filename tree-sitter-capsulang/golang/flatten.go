package capsulang

// #include "flatten.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// Node flags, as set by Flatten. FlagHasError is set on the root only.
const (
	FlagMissing  = C.CAPS_MISSING
	FlagError    = C.CAPS_ERROR
	FlagHasError = C.CAPS_HAS_ERROR
)

// RawNode is one node of a flattened tree. Parent, Next (next sibling) and
// Last (last child) are indexes into the same slice, -1 when absent. Nodes
// are in preorder: a node's first child, if any, directly follows it.
type RawNode struct {
	Start  uint32
	End    uint32
	Parent int32
	Next   int32
	Last   int32
	Symbol uint16
	Flags  uint16
}

// FirstChild returns the index of node i's first child, or -1.
func FirstChild(nodes []RawNode, i int32) int32 {
	if nodes[i].Last < 0 {
		return -1
	}
	return i + 1
}

func init() {
	if unsafe.Sizeof(RawNode{}) != unsafe.Sizeof(C.CapsNode{}) {
		panic("capsulang: RawNode and CapsNode layouts differ")
	}
}

// treePtr extracts the C TSTree pointer from a go-tree-sitter Tree. The Tree
// embeds *BaseTree first, whose first field is the TSTree pointer; the
// binding test checks Flatten against the binding's own node API so that a
// layout change in go-tree-sitter is caught.
func treePtr(t *sitter.Tree) *C.TSTree {
	base := *(*unsafe.Pointer)(unsafe.Pointer(t))
	return *(**C.TSTree)(base)
}

// Flatten copies the tree into buf (reused when large enough) in one cgo
// call and returns the nodes. The tree must not be closed.
func Flatten(t *sitter.Tree, buf []RawNode) []RawNode {
	ts := treePtr(t)
	n := int(C.caps_node_count(ts))
	if cap(buf) < n {
		buf = make([]RawNode, n)
	}
	buf = buf[:n]
	if n == 0 {
		return buf
	}
	got := C.caps_flatten(ts, (*C.CapsNode)(unsafe.Pointer(&buf[0])), C.uint32_t(n))
	return buf[:got]
}

// Child describes one child of a tree node, as listed by Children.
type Child struct {
	Start  uint32
	End    uint32
	Size   uint32 // nodes in its subtree, itself included
	Symbol uint16
	Flags  uint16 // FlagMissing, and FlagHasError for an error anywhere inside
}

func init() {
	if unsafe.Sizeof(Child{}) != unsafe.Sizeof(C.CapsChild{}) {
		panic("capsulang: Child and CapsChild layouts differ")
	}
}

// TreeInfo summarises a tree without walking it.
type TreeInfo struct {
	Nodes      int // node count, the root included
	HasError   bool
	Start, End uint32 // the root's byte range
	Symbol     uint16 // the root's symbol
}

// Info returns the tree's summary.
func Info(t *sitter.Tree) TreeInfo {
	var e, a, b C.uint32_t
	var sym C.uint16_t
	n := C.caps_tree_info(treePtr(t), &e, &a, &b, &sym)
	return TreeInfo{Nodes: int(n), HasError: e != 0, Start: uint32(a), End: uint32(b), Symbol: uint16(sym)}
}

// Children lists the children of the node reached from the root by
// following path (child indexes), appending to buf. A path that leaves the
// tree yields no children.
func Children(t *sitter.Tree, path []uint32, buf []Child) []Child {
	ts := treePtr(t)
	var p *C.uint32_t
	if len(path) > 0 {
		p = (*C.uint32_t)(unsafe.Pointer(&path[0]))
	}
	// A first call with a small buffer usually suffices; the count is
	// exact on the second.
	for size := max(cap(buf)-len(buf), 64); ; size *= 4 {
		start := len(buf)
		buf = append(buf, make([]Child, size)...)
		got := int(C.caps_children_at(ts, p, C.uint32_t(len(path)), (*C.CapsChild)(unsafe.Pointer(&buf[start])), C.uint32_t(size)))
		if got < size {
			return buf[:start+got]
		}
		buf = buf[:start]
	}
}

// parallelMin is the node count from which FlattenParallel splits the work.
const parallelMin = 20_000

// FlattenParallel is Flatten for large trees on more than one CPU: the
// children of the root's largest child (a file's module form) are
// flattened by two goroutines at once, each into its own part of the
// result, whose offsets follow from the subtree sizes. Trees are immutable,
// so concurrent reads of one are safe. The result equals Flatten's.
func FlattenParallel(t *sitter.Tree, buf []RawNode) []RawNode {
	info := Info(t)
	if info.Nodes < parallelMin || runtime.GOMAXPROCS(0) < 2 {
		return Flatten(t, buf)
	}
	roots := Children(t, nil, nil)
	big := 0
	for i := range roots {
		if roots[i].Size > roots[big].Size {
			big = i
		}
	}
	if len(roots) == 0 || int(roots[big].Size) < info.Nodes/2 {
		return Flatten(t, buf)
	}
	kids := Children(t, []uint32{uint32(big)}, nil)
	if cap(buf) < info.Nodes {
		buf = make([]RawNode, info.Nodes)
	}
	out := buf[:info.Nodes]
	out[0] = RawNode{Start: info.Start, End: info.End, Parent: -1, Next: -1, Last: -1, Symbol: info.Symbol, Flags: nodeFlags(info.Symbol, false)}
	if info.HasError {
		out[0].Flags |= FlagHasError
	}
	idx, prev := 1, -1
	link := func(parent, c int) {
		if prev >= 0 {
			out[prev].Next = int32(c)
		}
		out[parent].Last = int32(c)
		prev = c
	}
	for i, r := range roots {
		if i != big {
			n := FlattenChildren(t, nil, i, i+1, out, idx, 0)
			if n != int(r.Size) {
				return Flatten(t, buf)
			}
			link(0, idx)
			idx += n
			continue
		}
		b := idx
		out[b] = RawNode{Start: r.Start, End: r.End, Parent: 0, Next: -1, Last: -1, Symbol: r.Symbol, Flags: nodeFlags(r.Symbol, r.Flags&FlagMissing != 0)}
		link(0, b)
		// split the children where half of the nodes come before
		total, half, split := 0, int(r.Size-1)/2, len(kids)
		for k := range kids {
			if total >= half && split == len(kids) {
				split = k
			}
			total += int(kids[k].Size)
		}
		if total != int(r.Size)-1 {
			return Flatten(t, buf)
		}
		firstLen := 0
		for _, k := range kids[:split] {
			firstLen += int(k.Size)
		}
		path := []uint32{uint32(big)}
		var wg sync.WaitGroup
		var n2 int
		wg.Add(1)
		go func() {
			defer wg.Done()
			n2 = FlattenChildren(t, path, split, len(kids), out, b+1+firstLen, b)
		}()
		n1 := FlattenChildren(t, path, 0, split, out, b+1, b)
		wg.Wait()
		if n1 != firstLen || n2 != total-firstLen {
			return Flatten(t, buf)
		}
		if len(kids) > 0 {
			if split > 0 && split < len(kids) {
				out[b+1+firstLen-int(kids[split-1].Size)].Next = int32(b + 1 + firstLen)
			}
			out[b].Last = int32(b + 1 + total - int(kids[len(kids)-1].Size))
		}
		idx += 1 + total
	}
	if idx != info.Nodes {
		return Flatten(t, buf)
	}
	return out
}

// nodeFlags are the flags fill gives a node.
func nodeFlags(symbol uint16, missing bool) uint16 {
	var f uint16
	if symbol == 0xFFFF {
		f |= FlagError
	}
	if missing {
		f |= FlagMissing
	}
	return f
}

// FlattenChildren flattens children [from, to) of the node at path (see
// Children) into out from index base, as consecutive subtrees numbered as
// they stand in out: each subtree root gets parent parent and the next root
// as its next sibling (the last one -1). It returns the node count.
func FlattenChildren(t *sitter.Tree, path []uint32, from, to int, out []RawNode, base, parent int) int {
	if from >= to || base >= len(out) {
		return 0
	}
	var p *C.uint32_t
	if len(path) > 0 {
		p = (*C.uint32_t)(unsafe.Pointer(&path[0]))
	}
	n := C.caps_flatten_children(treePtr(t), p, C.uint32_t(len(path)), C.uint32_t(from), C.uint32_t(to),
		(*C.CapsNode)(unsafe.Pointer(&out[base])), C.uint32_t(len(out)-base), C.int32_t(base), C.int32_t(parent))
	return int(n)
}
