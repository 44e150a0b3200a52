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

// randomEdit returns an edit of src: mostly edits that keep a valid file
// valid (spaces, letters inside symbols, balanced lists, deleting a token),
// sometimes ones that break it (a lone paren, a quote) so that the next
// edits also start from and return to broken trees.
func randomEdit(r *rand.Rand, src []byte) (start, end int, text string) {
	n := len(src)
	at := r.Intn(n + 1)
	switch r.Intn(10) {
	case 0, 1:
		return at, at, " "
	case 2:
		return at, at, []string{"x", "é", "😀", "7"}[r.Intn(4)]
	case 3:
		return at, at, []string{"(f a)", "(g \"s\" 1)", "\n  (h)", "\r\n"}[r.Intn(4)]
	case 4, 5:
		// delete one byte that is a letter or a space, if there is one here
		for i := at; i < n && i < at+40; i++ {
			if c := src[i]; c == ' ' || c >= 'a' && c <= 'z' {
				return i, i + 1, ""
			}
		}
		return at, at, ""
	case 6:
		// delete a whole innermost list
		for i := at; i < n; i++ {
			if src[i] == '(' {
				for j := i + 1; j < n && src[j] != '('; j++ {
					if src[j] == ')' {
						return i, j + 1, ""
					}
				}
				break
			}
		}
		return at, at, ""
	case 7:
		return at, at, []string{"(", ")", "\"", ";"}[r.Intn(4)]
	case 8:
		// undo a breakage: delete a lone paren or quote
		for i := at; i < n && i < at+200; i++ {
			if c := src[i]; c == '(' || c == ')' || c == '"' {
				return i, i + 1, ""
			}
		}
		return at, at, ""
	}
	end = min(n, at+r.Intn(8))
	return at, end, ""
}

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
			start, end, text := randomEdit(r, cur)
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
