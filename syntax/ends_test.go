package syntax

import (
	"math/rand"
	"strings"
	"testing"
)

// TestSharedEnds holds SharedEnds, which compares blocks then bytes, to
// a byte-at-a-time reference (commonEnds), on exact cases around the
// block size and on random edits of a long text.
func TestSharedEnds(t *testing.T) {
	long := strings.Repeat("(function f (body 1))\n", 200) // 4,400 bytes
	cases := []struct {
		a, b     string
		pre, suf int
	}{
		{"", "", 0, 0},
		{"abc", "abc", 3, 0},
		{"abc", "abxc", 2, 1},
		{"aaaa", "aa", 2, 0},
		{"xabc", "yabc", 0, 3},
		{long, long[:256] + "!" + long[256:], 256, len(long) - 256},
		{long, long[:300] + long[301:], 300, len(long) - 301},
	}
	for _, c := range cases {
		pre, suf := SharedEnds([]byte(c.a), []byte(c.b))
		if pre != c.pre || suf != c.suf {
			t.Errorf("SharedEnds(%.20q…, %.20q…) = %d, %d, want %d, %d", c.a, c.b, pre, suf, c.pre, c.suf)
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 500; i++ {
		from := r.Intn(len(long))
		to := min(len(long), from+r.Intn(600))
		ins := strings.Repeat("x", r.Intn(3))
		next := long[:from] + ins + long[to:]
		pre, suf := SharedEnds([]byte(long), []byte(next))
		wpre, wsuf := commonEnds(long, next)
		if pre != wpre || suf != wsuf {
			t.Fatalf("edit [%d,%d) → %q: SharedEnds = %d, %d, byte by byte %d, %d", from, to, ins, pre, suf, wpre, wsuf)
		}
	}
}
