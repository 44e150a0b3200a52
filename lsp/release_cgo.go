//go:build cgo

package lsp

/*
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
static void caps_trim_c_heap(void) { malloc_trim(0); }
#else
static void caps_trim_c_heap(void) {}
#endif
*/
import "C"

// trimCHeap returns the free memory of the C heap, where tree-sitter keeps
// its parsers and trees, to the operating system. glibc keeps what is
// freed otherwise; other C libraries need no help or get none.
func trimCHeap() { C.caps_trim_c_heap() }
