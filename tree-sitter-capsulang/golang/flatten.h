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

uint32_t caps_node_count(const TSTree *tree);
// caps_flatten writes at most cap nodes and returns how many it wrote.
uint32_t caps_flatten(const TSTree *tree, CapsNode *out, uint32_t cap);
#endif
