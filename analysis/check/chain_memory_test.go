package check

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// TestChainReleasesOldTexts runs chained fast Rechecks over a module, as
// the language server does after every edit, keeping only the newest
// answer (and the document's newest text), and counts the versions' texts
// still reachable: the newest, and those some declaration of the newest
// module was last read from (its tree's atoms point into them). The
// chain of bases below the newest checker provides tables only: it must
// not keep an older version's text, its version state, nor the trees of
// declarations an edit replaced.
func testSrc(t *testing.T) []byte {
	src, err := gen.SpecShapedFrom("../../examples", 3000)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func testSites(t *testing.T, src []byte) []int {
	// three transition targets in three machines, far apart
	var sites []int
	for _, frac := range []int{1, 2, 3} {
		from := len(src) * frac / 4
		k := strings.Index(string(src[from:]), "(target ")
		if k < 0 {
			t.Fatalf("no transition target after offset %d", from)
		}
		sites = append(sites, from+k+len("(target"))
	}
	return sites
}

func TestChainReleasesOldTexts(t *testing.T) {
	src := testSrc(t)
	sites := testSites(t, src)
	for _, tc := range []struct {
		name string
		// at lists, per edit, the site edited (an index of sites)
		at []int
		// want is how many texts are reachable after the edits
		want int
	}{
		// the first text (every declaration but one) and the newest
		{"one declaration, maxChain-1 edits", repeat(0, maxChain-1), 2},
		{"one declaration, past two merges", repeat(0, 2*maxChain+3), 2},
		// the first text, and the last read of each machine edited (the
		// newest is one)
		{"three declarations in turn", []int{0, 1, 2, 0, 1, 2, 0}, 4},
		{"three declarations, past a merge", []int{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 0, 0, 0}, 4},
		// the second declaration's last read is the newest text
		{"two declarations, one edited once", []int{1, 0, 0, 0, 0, 0, 0}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			texts, newest := chainTexts(t, src, append([]int(nil), sites...), tc.at)
			depth := newest.checker.depth
			runtime.GC()
			runtime.GC()
			live := 0
			var which []int
			for k, w := range texts {
				if w.Value() != nil {
					live++
					which = append(which, k)
				}
			}
			if live != tc.want {
				t.Errorf("after %d chained Rechecks (depth %d), %d of %d texts are reachable (versions %v), want %d", len(tc.at), depth, live, len(texts), which, tc.want)
			}
			runtime.KeepAlive(newest)
		})
	}
}

func repeat(x, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = x
	}
	return out
}

// chainTexts checks src in full, then answers each edit (a space inserted
// or removed after the site's "(target") by a fast Recheck of the
// previous answer, keeping only the newest; it returns weak pointers to
// every version's text (the first is src's) and the newest answer, which
// is all that is left of the run (the document is closed).
func chainTexts(t *testing.T, src []byte, sites []int, at []int) ([]weak.Pointer[byte], *Result) {
	t.Helper()
	d, err := syntax.NewDocument(append([]byte(nil), src...))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	texts := []weak.Pointer[byte]{weak.Make(&d.CST().Src[0])}
	base := checkCST(d.CST())
	if len(base.Diagnostics) != 0 {
		t.Fatalf("the generated module has diagnostics: %v", base.Diagnostics[0])
	}
	spaced := make([]bool, len(sites))
	for n, s := range at {
		off := sites[s]
		// (each site moves with the edits before it)
		for k, o := range sites {
			if k != s && o > off {
				if spaced[s] {
					sites[k]--
				} else {
					sites[k]++
				}
			}
		}
		if spaced[s] {
			err = d.Edit(off, off+1, nil)
		} else {
			err = d.Edit(off, off, []byte(" "))
		}
		spaced[s] = !spaced[s]
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, weak.Make(&d.CST().Src[0]))
		got, eng, ok := base.recheckResult(d.CST())
		if !ok || eng.whole {
			t.Fatalf("edit %d: the fast path did not answer (ok %v)", n, ok)
		}
		if want := checkCST(d.CST()); fmt.Sprint(want.Diagnostics) != fmt.Sprint(got.Diagnostics) {
			t.Fatalf("edit %d: Recheck %v, Check %v", n, got.Diagnostics, want.Diagnostics)
		}
		base = got
	}
	return texts, base
}
