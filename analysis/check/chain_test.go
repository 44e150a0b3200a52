package check

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax"
)

// chained rechecks c against base and compares with a full check, as
// differential does; it returns the base for the next edit: the
// engine's answer when it answered (the server keeps no full check in
// between), the full check otherwise.
func chained(t *testing.T, what string, base *Result, c *syntax.CST, s *share) (*Result, bool) {
	t.Helper()
	full := checkCST(c)
	got, eng, ok := base.recheckResult(c)
	if !c.HasError(0) {
		s.valid++
		if ok {
			s.answered++
		}
	}
	if !ok {
		return full, false
	}
	if eng.whole && !c.HasError(0) {
		s.whole++
	}
	s.bodies += eng.rechecked + eng.reused
	s.rechecked += eng.rechecked
	if diff := cmp.Diff(full.Diagnostics, got.Diagnostics); diff != "" {
		t.Fatalf("%s: Recheck (base %s) differs from Check (-check +recheck):\n%s", what, baseKind(base), diff)
	}
	if got.checker == nil {
		return full, true // a file without a module: nothing to chain
	}
	if v := got.checker.next; v != nil && v.rev != nil && v.rev.parent != nil {
		revChecked++
		checkReverseFrom(t, what, v)
	}
	if got.checker.depth == maxChain {
		deepChains++
	}
	if got.checker.merged {
		mergedChains++
	}
	return got, true
}

// revChecked counts the indexes checkReverseFrom compared.
var revChecked int

// checkReverseFrom compares a version's index built over its base's
// (reverseFrom) with one built from scratch.
func checkReverseFrom(t *testing.T, what string, v *version) {
	t.Helper()
	got := v.rev
	want := v.reverse()
	for which, m := range []map[string][]int{want.p1Names, want.bodyNames, want.p1Keys, want.bodyKeys} {
		for k, l := range m {
			if diff := cmp.Diff(l, got.lookup(which, k)); diff != "" {
				t.Fatalf("%s: reverseFrom: table %d, %q (-reverse +reverseFrom):\n%s", what, which, k, diff)
			}
		}
	}
	for _, k := range got.keys {
		for _, which := range []int{revP1Keys, revBodyKeys} {
			if l := got.lookup(which, k); len(l) > 0 && !cmp.Equal(l, want.table(which)[k]) {
				t.Fatalf("%s: reverseFrom: table %d, %q lists %v, want %v", what, which, k, l, want.table(which)[k])
			}
		}
	}
	seen := map[string]bool{}
	for _, k := range got.keys {
		seen[k] = true
	}
	for _, k := range want.keys {
		if !seen[k] {
			t.Fatalf("%s: reverseFrom: fact %q missing", what, k)
		}
	}
	if diff := cmp.Diff(want.pinned, got.pinned); diff != "" {
		t.Fatalf("%s: reverseFrom: pinned (-reverse +reverseFrom):\n%s", what, diff)
	}
}

// deepChains and mergedChains count the answers whose chain of bases
// reached maxChain, and those merged past it.
var deepChains, mergedChains int

// baseKind says what a base was, for failure messages.
func baseKind(r *Result) string {
	switch {
	case r.checker == nil:
		return "without checker"
	case r.checker.next != nil || r.checker.ver != nil && r.checker.ver.builtOK:
		return fmt.Sprintf("a fast Recheck's, depth %d", r.checker.depth)
	case r.checker.importLog != nil || r.checker.verState.ver != nil:
		return "a check"
	}
	return "a check"
}

// TestEngineChainedTyping is TestEngineRandomTyping with the base the
// engine's own last answer: every Recheck's base is the previous
// Recheck's result (a full check only where the engine declined), and
// after every edit the diagnostics are a full check's. At least 95% of
// the edits that leave the file syntactically valid must be answered.
func TestEngineChainedTyping(t *testing.T) {
	srcs := allSources(t)
	names := sortedNames(srcs)
	var total share
	for _, name := range names {
		src := srcs[name]
		r := rand.New(rand.NewSource(int64(len(src)) + 29))
		d, err := syntax.NewDocument(src)
		if err != nil {
			t.Fatal(err)
		}
		base := checkCST(d.CST())
		typeAtRandom(t, d, r, 60, func(edit string, c *syntax.CST) {
			next, _ := chained(t, name+": "+edit, base, c, &total)
			if !c.HasError(0) {
				// (a text with a syntax error is answered in full: the
				// server keeps the last base that had none)
				base = next
			}
		})
		d.Close()
	}
	t.Logf("chained random typing over %d modules: %s", len(names), total)
	if total.answered*100 < total.valid*95 {
		t.Fatalf("only %s", total)
	}
}

// TestEngineChainedMutations applies structured mutations one after
// another, each Recheck against the previous one's result, comparing
// with a full check after every step. Every edit that leaves the file
// syntactically valid must be answered.
func TestEngineChainedMutations(t *testing.T) {
	srcs := allSources(t)
	names := sortedNames(srcs)
	var total share
	for _, name := range names {
		src := srcs[name]
		base := checkCST(mustParse(t, src))
		r := rand.New(rand.NewSource(int64(len(src)) + 3))
		cur, curFull := src, base
		for i := 0; i < 24; i++ {
			ms := structuredMutations(cur, curFull, 6)
			if len(ms) == 0 {
				break
			}
			m := ms[r.Intn(len(ms))]
			text := m.apply(cur)
			next := mustParse(t, text)
			if next.HasError(0) {
				continue
			}
			res, ok := chained(t, fmt.Sprintf("%s: chain %d: %s", name, i, m.name), base, next, &total)
			if !ok {
				t.Errorf("%s: chain %d: %s: Recheck declined (base %s)", name, i, m.name, baseKind(base))
			}
			cur, curFull, base = text, checkCST(next), res
		}
	}
	t.Logf("chained structured mutations over %d modules: %s; %d chains %d deep, %d merged", len(names), total, deepChains, maxChain, mergedChains)
	t.Logf("%d indexes built over their base's compared with reverse", revChecked)
	if deepChains == 0 || mergedChains == 0 || revChecked == 0 {
		t.Fatalf("no chain of bases reached %d (%d) or was merged (%d)", maxChain, deepChains, mergedChains)
	}
}
