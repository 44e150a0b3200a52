package check

import (
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// editSite is where chainTexts edits: ins is inserted at off, and removed
// by the next edit of the site.
type editSite struct {
	off int
	ins string
}

// TestChainReleasesOldTexts runs chained fast Rechecks over a module, as
// the language server does after every edit, keeping only the newest
// answer, and counts the versions' texts still reachable: the newest, and
// those some declaration of the newest module was last read from (its
// tree's atoms point into them). The chain of bases below the newest
// checker provides tables only: it must not keep an older version's
// text, its version state, nor the trees of declarations an edit
// replaced.
func TestChainReleasesOldTexts(t *testing.T) {
	src, err := gen.SpecShapedFrom("../../examples", 3000)
	if err != nil {
		t.Fatal(err)
	}
	// three transition targets in three machines, far apart (a space
	// inserted after "(target"), and a function renamed (approvable_4x:
	// its name is then unknown to its examples and to a guard of
	// ClaimReview_4, which are read and checked again; the module's
	// names change, so that the version's index of dependencies is built
	// anew)
	var sites []editSite
	for _, frac := range []int{1, 2, 3} {
		from := len(src) * frac / 4
		k := strings.Index(string(src[from:]), "(target ")
		if k < 0 {
			t.Fatalf("no transition target after offset %d", from)
		}
		sites = append(sites, editSite{from + k + len("(target"), " "})
	}
	fn := strings.Index(string(src), "(function approvable_4\n")
	if fn < 0 {
		t.Fatal("no function approvable_4")
	}
	sites = append(sites, editSite{fn + len("(function approvable_4"), "x"})

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
		// the second declaration's last read is the first edit's text
		{"two declarations, one edited once", []int{1, 0, 0, 0, 0, 0, 0}, 3},
		// the function, its machine, and the first text
		{"a function renamed", repeat(3, maxChain-1), 2},
		{"a function renamed, then a transition edited", []int{3, 3, 3, 0, 0, 0, 0, 0, 0, 0}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			texts, newest := chainTexts(t, src, append([]editSite(nil), sites...), tc.at)
			depth := newest.checker.depth
			runtime.GC()
			runtime.GC()
			var live []int
			for k, w := range texts {
				if w.Value() != nil {
					live = append(live, k)
				}
			}
			if len(live) != tc.want {
				t.Errorf("after %d chained Rechecks (depth %d), %d of %d texts are reachable (versions %v), want %d", len(tc.at), depth, len(live), len(texts), live, tc.want)
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

// chainTexts checks src in full, then answers each edit of a site by a
// fast Recheck of the previous answer (compared with a full check),
// keeping only the newest; it returns weak pointers to every version's
// text (the first is src's) and the newest answer, which is all that is
// left of the run (the document is closed).
func chainTexts(t *testing.T, src []byte, sites []editSite, at []int) ([]weak.Pointer[byte], *Result) {
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
	done := make([]bool, len(sites)) // whether the site holds its insertion
	for n, s := range at {
		off, ins := sites[s].off, sites[s].ins
		delta := len(ins)
		if done[s] {
			delta = -delta
		}
		for k := range sites { // (each site moves with the edits before it)
			if k != s && sites[k].off > off {
				sites[k].off += delta
			}
		}
		if done[s] {
			err = d.Edit(off, off+len(ins), nil)
		} else {
			err = d.Edit(off, off, []byte(ins))
		}
		done[s] = !done[s]
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, weak.Make(&d.CST().Src[0]))
		got, eng, ok := base.recheckResult(d.CST())
		if !ok || eng.whole {
			t.Fatalf("edit %d: the fast path did not answer (ok %v)", n, ok)
		}
		if diff := cmp.Diff(checkCST(d.CST()).Diagnostics, got.Diagnostics); diff != "" {
			t.Fatalf("edit %d: Recheck differs from Check (-check +recheck):\n%s", n, diff)
		}
		base = got
	}
	return texts, base
}
