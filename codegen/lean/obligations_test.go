package lean

import (
	"strings"
	"testing"

	"github.com/capsulang/caps/codegen/core"
	"github.com/google/go-cmp/cmp"
)

// TestObligationsStatements: a function without parameters gets
// statements without binders; goals of functions outside the subset and
// skipped goals are listed, with their reasons, and comment delimiters in
// claims cannot end the comment.
func TestObligationsStatements(t *testing.T) {
	m := &core.Module{Name: "t.m", Sites: []*core.Site{{ID: 0, Kind: core.SiteEnsures, Func: "seven"}}, Funcs: []*core.Func{{
		Name: "seven", Result: core.U32, ResultSlot: 0, Locals: []core.Kind{core.U32},
		Body:    &core.Const{K: core.U32, Bits: 7},
		Ensures: []core.Contract{{Cond: &core.Bin{Op: core.Gt, K: core.U32, A: &core.Local{Index: 0}, B: &core.Const{K: core.U32, Bits: 0}}}},
	}}}
	src, stated := Obligations(m, nil, []string{"Source: t.caps"}, []Goal{
		{ID: "t.m/seven/ensures/0", Where: "t.caps:1:1-1:2", Claim: "(> result 0) -/ oops", Kind: "ensures", Func: "seven"},
		{ID: "t.m/seven/no-failure", Where: "t.caps:1:1-1:2", Claim: "7", Kind: "no-failure", Func: "seven"},
		{ID: "t.m/seven/example/0", Where: "t.caps:1:1-1:2", Claim: "(example (seven) 7)", Kind: "example", Func: "seven", Args: []string{}, Expected: "(7 : Int)"},
		{ID: "t.m/text/no-failure", Kind: "no-failure", Func: "text"},
		{ID: "t.m/M/a.E/guard", Kind: "guard", Func: "M", Skip: "machine obligations are not stated"},
	})
	want := []Stated{
		{ID: "t.m/seven/ensures/0", Theorem: "t_m.seven.ensures_0"},
		{ID: "t.m/seven/no-failure", Theorem: "t_m.seven.no_failure"},
		{ID: "t.m/seven/example/0", Theorem: "t_m.seven.example_0"},
		{ID: "t.m/text/no-failure", Reason: "function text is outside the Lean target's subset (caps compile-plan says why)"},
		{ID: "t.m/M/a.E/guard", Reason: "machine obligations are not stated"},
	}
	if diff := cmp.Diff(want, stated); diff != "" {
		t.Errorf("stated (-want +got):\n%s", diff)
	}
	for _, part := range []string{
		"-- Source: t.caps\n",
		"def seven.pre : Except String Bool :=\n  pure true\n",
		"def seven.body : Except String Int :=\n  pure (7 : Int)\n",
		"def seven.post_0 (l0 : Int) : Except String Bool :=\n  pure (decide (l0 > (0 : Int)))\n",
		"/-- t.m/seven/ensures/0\n    at t.caps:1:1-1:2: (> result 0) - / oops -/\ntheorem seven.ensures_0 :\n    seven.pre = Except.ok true →\n    ∀ (result : Int), seven.body = Except.ok result →\n    seven.post_0 result = Except.ok true := by\n  sorry\n",
		"theorem seven.no_failure :\n    seven.pre = Except.ok true →\n    ∃ (result : Int), seven.body = Except.ok result := by\n  sorry\n",
		"theorem seven.example_0 :\n    t_m.seven = Except.ok (7 : Int) := by\n  sorry\n",
		"/- Not stated here:\n  t.m/text/no-failure: function text is outside the Lean target's subset (caps compile-plan says why)\n  t.m/M/a.E/guard: machine obligations are not stated\n-/\n\nend t_m\n",
	} {
		if !strings.Contains(src, part) {
			t.Errorf("missing:\n%s\nin:\n%s", part, src)
		}
	}
	if n := strings.Count(src, "\n  sorry\n"); n != 3 {
		t.Errorf("%d sorry proofs, want 3", n)
	}
}
