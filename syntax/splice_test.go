package syntax

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax/edittest"
	capsulang "github.com/capsulang/caps/tree-sitter-capsulang/golang"
)

// TestSpliceMatchesFlatten edits documents at random and checks after
// every edit that the spliced node array equals a full flattening of the
// same tree, node for node.
func TestSpliceMatchesFlatten(t *testing.T) {
	srcs := map[string][]byte{"gen": gen.Module(400)}
	files, _ := filepath.Glob("../examples/*.caps")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[filepath.Base(f)] = b
	}
	spliced, edits := 0, 0
	for name, src := range srcs {
		r := rand.New(rand.NewSource(int64(len(src))))
		d, err := NewDocument(src)
		if err != nil {
			t.Fatal(err)
		}
		good := src // the last error-free text
		for i := 0; i < 150; i++ {
			cur := d.Text()
			start, end, text := edittest.Random(r, cur)
			if d.CST().HasError(0) && r.Intn(3) > 0 {
				start, end, text = edittest.Undo(cur, good)
			}
			before := d.CST()
			if err := d.Edit(start, end, []byte(text)); err != nil {
				t.Fatal(err)
			}
			edits++
			want := capsulang.Flatten(d.tree, nil)
			if got := d.CST().Nodes; !slices.Equal(want, got) {
				t.Fatalf("%s: edit %d [%d,%d)->%q: the document's nodes differ from a full flatten (-want +got):\n%s", name, i, start, end, text, cmp.Diff(want, got))
			}
			if got := splice(before, d.tree, start, end, start+len(text)); got != nil {
				spliced++
				if !slices.Equal(want, got) {
					t.Fatalf("%s: edit %d [%d,%d)->%q: spliced nodes differ from a full flatten (-want +got):\n%s", name, i, start, end, text, cmp.Diff(want, got))
				}
			} else if !before.HasError(0) && !d.CST().HasError(0) {
				t.Fatalf("%s: edit %d [%d,%d)->%q between error-free trees was not spliced", name, i, start, end, text)
			}
			if !d.CST().HasError(0) {
				good = d.Text()
			}
		}
		d.Close()
	}
	if spliced < edits/3 {
		t.Fatalf("only %d of %d edits were spliced; the test does not exercise splicing", spliced, edits)
	}
	t.Logf("%d edits, %d spliced", edits, spliced)
}

// TestSpliceDeepNesting edits the middle of 50,000 nested lists: splicing
// stops descending at maxSpliceDepth (each level walks from the root), so
// the edit stays fast, and the nodes still equal a full flatten.
func TestSpliceDeepNesting(t *testing.T) {
	const depth = 50_000
	src := []byte(strings.Repeat("(a ", depth) + strings.Repeat(")", depth))
	d, err := NewDocument(src)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	mid := 3 * depth / 2 // inside the nesting, on an "a"
	for i := 0; i < 4; i++ {
		if err := d.Edit(mid, mid, []byte("b")); err != nil {
			t.Fatal(err)
		}
		if err := d.Edit(mid, mid+1, nil); err != nil {
			t.Fatal(err)
		}
	}
	if want := capsulang.Flatten(d.tree, nil); !slices.Equal(want, d.CST().Nodes) {
		t.Fatal("the document's nodes differ from a full flatten")
	}
}
