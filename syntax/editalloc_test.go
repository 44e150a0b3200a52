package syntax

import (
	"runtime"
	"testing"

	"github.com/capsulang/caps/bench/gen"
)

// An edit of a large document allocates one copy of the text and little
// else: the rescanned list's nodes, the line index's runs around the edit.
// The language server's CPU profile over a 10,000-line session puts the
// per-edit text copy first (docs/lsp.md, "Not yet"), so a second whole
// copy per edit (a clone before the join, a string conversion of the
// text) fails here.
func TestEditAllocatesOneCopyOfTheText(t *testing.T) {
	src := gen.Module(10000)
	d, err := NewDocument(src)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	at := editPoint(src)
	const edits = 50
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < edits; i++ {
		var err error
		if i%2 == 0 {
			err = d.Edit(at, at, []byte(" "))
		} else {
			err = d.Edit(at, at+1, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if _, ok := d.CST().Rescanned(); !ok {
		t.Fatal("the edits were not rescanned: the test measures the wrong path")
	}
	perEdit := int(after.TotalAlloc-before.TotalAlloc) / edits
	t.Logf("%d bytes of text, %d bytes allocated per edit", len(src), perEdit)
	if limit := len(src) + 16<<10; perEdit > limit {
		t.Errorf("an edit of a %d-byte text allocates %d bytes, over one copy of the text and 16 KiB (%d)", len(src), perEdit, limit)
	}
}
