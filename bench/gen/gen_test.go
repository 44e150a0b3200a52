package gen_test

import (
	"bytes"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax/ast"
)

// TestSpecModule: the spec-shaped module has about the lines asked for,
// repeats the group with renamed declarations, and checks without a
// diagnostic.
func TestSpecModule(t *testing.T) {
	for _, lines := range []int{200, 10000} {
		src := gen.SpecModule(lines)
		got := bytes.Count(src, []byte("\n"))
		if got < lines-120 || got > lines+120 {
			t.Errorf("SpecModule(%d) has %d lines", lines, got)
		}
		if !bytes.Contains(src, []byte("(machine ClaimReview_1\n")) || !bytes.Contains(src, []byte("(bind ClaimReview_1)")) {
			t.Errorf("SpecModule(%d) does not rename its copies", lines)
		}
		f, err := ast.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		res := check.Check(f, check.Options{Path: "/virtual/spec.caps"})
		if len(res.Diagnostics) > 0 {
			t.Errorf("SpecModule(%d): %d diagnostics, first %+v", lines, len(res.Diagnostics), res.Diagnostics[0])
		}
	}
}
