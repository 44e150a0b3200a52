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
