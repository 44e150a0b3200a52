// flatten.h: one-call export of a tree-sitter tree into a flat preorder array,
// so that Go code walks the tree without a cgo call per node.
#ifndef CAPS_FLATTEN_H
#define CAPS_FLATTEN_H
#include <stdint.h>

typedef struct TSTree TSTree;

enum {
	CAPS_MISSING = 2,   // inserted by error recovery
	CAPS_ERROR = 4,     // an ERROR node
	CAPS_HAS_ERROR = 16, // on the root only: the tree has an error somewhere
};

// CapsNode is one tree node. Links are indexes into the same array, -1 when
// absent. Nodes are stored in preorder, so a node's first child, if any, is
// the next element.
typedef struct {
	uint32_t start;
	uint32_t end;
	int32_t parent;
	int32_t next; // next sibling
	int32_t last; // last child
	uint16_t symbol;
	uint16_t flags;
} CapsNode;

// CapsChild describes one child of a node: its byte range, how many nodes
// its subtree has (itself included), its symbol, and CAPS_MISSING /
// CAPS_HAS_ERROR (an error anywhere in the subtree).
typedef struct {
	uint32_t start;
	uint32_t end;
	uint32_t size;
	uint16_t symbol;
	uint16_t flags;
} CapsChild;

uint32_t caps_node_count(const TSTree *tree);
// caps_tree_info returns the tree's node count and sets *has_error, the
// root's byte range and its symbol.
uint32_t caps_tree_info(const TSTree *tree, uint32_t *has_error, uint32_t *start, uint32_t *end, uint16_t *symbol);
// caps_children_at lists the children of the node at path.
uint32_t caps_children_at(const TSTree *tree, const uint32_t *path, uint32_t depth, CapsChild *out, uint32_t cap);
// caps_flatten writes at most cap nodes and returns how many it wrote.
uint32_t caps_flatten(const TSTree *tree, CapsNode *out, uint32_t cap);
// caps_flatten_children flattens children [from, to) of the node at path
// into out as consecutive preorder subtrees, numbering nodes from base:
// each subtree's root gets parent parent and the next root as its next
// sibling (the last one -1). It returns how many nodes it wrote.
uint32_t caps_flatten_children(const TSTree *tree, const uint32_t *path, uint32_t depth, uint32_t from, uint32_t to,
                               CapsNode *out, uint32_t cap, int32_t base, int32_t parent);
#endif
