package capsulang

// #include "flatten.h"
import "C"

import (
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
}

// Info returns the tree's summary.
func Info(t *sitter.Tree) TreeInfo {
	var e, a, b C.uint32_t
	n := C.caps_tree_info(treePtr(t), &e, &a, &b)
	return TreeInfo{Nodes: int(n), HasError: e != 0, Start: uint32(a), End: uint32(b)}
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

// FlattenAt flattens the subtree of the node at path (see Children) into a
// new slice; its root has Parent -1 and Next -1. size is the subtree's node
// count, as Children reports it.
func FlattenAt(t *sitter.Tree, path []uint32, size uint32) []RawNode {
	out := make([]RawNode, size)
	if size == 0 {
		return out
	}
	var p *C.uint32_t
	if len(path) > 0 {
		p = (*C.uint32_t)(unsafe.Pointer(&path[0]))
	}
	got := C.caps_flatten_at(treePtr(t), p, C.uint32_t(len(path)), (*C.CapsNode)(unsafe.Pointer(&out[0])), C.uint32_t(size))
	return out[:got]
}
