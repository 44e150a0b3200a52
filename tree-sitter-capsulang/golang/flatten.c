#include <stdbool.h>
#include "flatten.h"

// The subset of tree-sitter's api.h (runtime 0.22, as vendored by
// github.com/smacker/go-tree-sitter) that this file uses. The symbols are
// linked from that package's compiled runtime.
typedef uint16_t TSSymbol;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
TSNode ts_tree_root_node(const TSTree *self);
uint32_t ts_node_descendant_count(TSNode self);
TSSymbol ts_node_symbol(TSNode self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
bool ts_node_is_named(TSNode self);
bool ts_node_is_missing(TSNode self);
bool ts_node_is_extra(TSNode self);
bool ts_node_is_error(TSNode self);
bool ts_node_has_error(TSNode self);
TSNode ts_node_child(TSNode self, uint32_t child_index);
uint32_t ts_node_child_count(TSNode self);
TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);

uint32_t caps_node_count(const TSTree *tree) {
	return ts_node_descendant_count(ts_tree_root_node(tree));
}

// fill records one node. Only the flags the syntax layer reads are
// computed per node (each accessor decodes the subtree again): MISSING, and
// ERROR from the symbol. HAS_ERROR is set for the root alone, by
// caps_flatten.
static void fill(CapsNode *n, TSNode node, int32_t parent) {
	n->start = ts_node_start_byte(node);
	n->end = ts_node_end_byte(node);
	n->parent = parent;
	n->next = -1;
	n->last = -1;
	n->symbol = ts_node_symbol(node);
	uint16_t f = 0;
	if (n->symbol == (uint16_t)-1) f |= CAPS_ERROR;
	if (ts_node_is_missing(node)) f |= CAPS_MISSING;
	n->flags = f;
}

static void link_child(CapsNode *out, int32_t parent, int32_t child) {
	if (parent < 0) return;
	int32_t prev = out[parent].last;
	if (prev >= 0) out[prev].next = child;
	out[parent].last = child;
}

// flatten_node writes node's subtree in preorder, node first (with parent
// -1), and returns how many nodes it wrote.
static uint32_t flatten_node(TSNode root, CapsNode *out, uint32_t cap) {
	if (cap == 0) return 0;
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t n = 0;
	fill(&out[n], root, -1);
	int32_t cur = (int32_t)n++;
	for (;;) {
		if (n >= cap) break;
		if (ts_tree_cursor_goto_first_child(&c)) {
			fill(&out[n], ts_tree_cursor_current_node(&c), cur);
			link_child(out, cur, (int32_t)n);
			cur = (int32_t)n++;
			continue;
		}
		bool moved = false;
		while (!(moved = ts_tree_cursor_goto_next_sibling(&c))) {
			if (cur == 0 || !ts_tree_cursor_goto_parent(&c)) break;
			cur = out[cur].parent;
		}
		if (!moved) break;
		int32_t parent = out[cur].parent;
		fill(&out[n], ts_tree_cursor_current_node(&c), parent);
		link_child(out, parent, (int32_t)n);
		cur = (int32_t)n++;
	}
	ts_tree_cursor_delete(&c);
	return n;
}

uint32_t caps_flatten(const TSTree *tree, CapsNode *out, uint32_t cap) {
	TSNode root = ts_tree_root_node(tree);
	uint32_t n = flatten_node(root, out, cap);
	if (n > 0 && ts_node_has_error(root)) out[0].flags |= CAPS_HAS_ERROR;
	return n;
}

// at follows path (child indexes) down from the root. It reports false
// when an index is out of range.
static bool at(const TSTree *tree, const uint32_t *path, uint32_t depth, TSNode *node) {
	TSNode n = ts_tree_root_node(tree);
	for (uint32_t i = 0; i < depth; i++) {
		if (path[i] >= ts_node_child_count(n)) return false;
		n = ts_node_child(n, path[i]);
	}
	*node = n;
	return true;
}

uint32_t caps_children_at(const TSTree *tree, const uint32_t *path, uint32_t depth, CapsChild *out, uint32_t cap) {
	TSNode n;
	if (!at(tree, path, depth, &n)) return 0;
	TSTreeCursor c = ts_tree_cursor_new(n);
	uint32_t k = 0;
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			if (k >= cap) break;
			TSNode ch = ts_tree_cursor_current_node(&c);
			out[k].start = ts_node_start_byte(ch);
			out[k].end = ts_node_end_byte(ch);
			out[k].size = ts_node_descendant_count(ch);
			out[k].symbol = ts_node_symbol(ch);
			out[k].flags = (ts_node_is_missing(ch) ? CAPS_MISSING : 0) | (ts_node_has_error(ch) ? CAPS_HAS_ERROR : 0);
			k++;
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return k;
}

uint32_t caps_tree_info(const TSTree *tree, uint32_t *has_error, uint32_t *start, uint32_t *end, uint16_t *symbol) {
	TSNode root = ts_tree_root_node(tree);
	*symbol = ts_node_symbol(root);
	*has_error = ts_node_has_error(root) ? 1 : 0;
	*start = ts_node_start_byte(root);
	*end = ts_node_end_byte(root);
	return ts_node_descendant_count(root);
}

uint32_t caps_flatten_children(const TSTree *tree, const uint32_t *path, uint32_t depth, uint32_t from, uint32_t to,
                               CapsNode *out, uint32_t cap, int32_t base, int32_t parent) {
	TSNode n;
	if (!at(tree, path, depth, &n)) return 0;
	TSTreeCursor c = ts_tree_cursor_new(n);
	uint32_t written = 0;
	int32_t prev = -1;
	if (ts_tree_cursor_goto_first_child(&c)) {
		uint32_t k = 0;
		do {
			if (k >= to) break;
			if (k++ < from) continue;
			uint32_t got = flatten_node(ts_tree_cursor_current_node(&c), out + written, cap - written);
			if (got == 0) break;
			int32_t off = base + (int32_t)written;
			for (uint32_t i = written; i < written + got; i++) {
				CapsNode *x = &out[i];
				x->parent += off;
				if (x->next >= 0) x->next += off;
				if (x->last >= 0) x->last += off;
			}
			out[written].parent = parent;
			out[written].next = -1;
			if (prev >= 0) out[prev].next = off;
			prev = (int32_t)written;
			written += got;
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return written;
}
