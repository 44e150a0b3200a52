package syntax_test

import (
	"hash/maphash"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax"
)

// TestHashForms checks that HashForms writes the same bytes for texts
// that differ only in layout (white space, comments, offsets) and
// different bytes for texts whose forms differ (an atom's text or kind,
// the nesting), and that shift reads a tree's atoms where its text moved.
func TestHashForms(t *testing.T) {
	const base = "(f (g x 1) \"a b\")"
	seed := maphash.MakeSeed()
	sum := func(src string, shift int, pad string) uint64 {
		rd, err := syntax.ReadText([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var h maphash.Hash
		h.SetSeed(seed)
		syntax.HashForms(&h, []byte(pad+src), shift, rd.Forms, nil)
		return h.Sum64()
	}
	tests := []struct {
		name, src string
		same      bool
	}{
		{"the same text", base, true},
		{"reindented", "(f\n    (g x 1)\n    \"a b\")", true},
		{"a comment inside", "(f ; note\n (g x 1) \"a b\")", true},
		{"spaces inside parentheses", "( f (g  x 1 ) \"a b\" )", true},
		{"moved", "\n\n  " + base, true},
		{"an atom changed", "(f (g x 2) \"a b\")", false},
		{"a string's text", "(f (g x 1) \"a  b\")", false},
		{"a symbol for a string", "(f (g x 1) a)", false},
		{"nesting", "(f (g x) 1 \"a b\")", false},
		{"an atom split", "(f (g x 1) \"a b\" )(h)", false},
	}
	want := sum(base, 0, "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.same, sum(tt.src, 0, "") == want); diff != "" {
				t.Errorf("equal hashes (-want +got):\n%s", diff)
			}
			// the same tree read from a text moved 3 bytes later
			if diff := cmp.Diff(sum(tt.src, 0, ""), sum(tt.src, 3, "abc")); diff != "" {
				t.Errorf("shifted (-want +got):\n%s", diff)
			}
		})
	}
}
