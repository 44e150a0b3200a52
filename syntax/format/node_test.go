package format

import (
	"testing"
	"unsafe"
)

// TestNodeSize guards the layout node's size: a large file has one for
// every form, so each byte here is about a quarter of a byte of peak
// memory per byte of source (issue 19).
func TestNodeSize(t *testing.T) {
	if got := unsafe.Sizeof(node{}); got > 64 {
		t.Errorf("node is %d bytes, want at most 64", got)
	}
}
