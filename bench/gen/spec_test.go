package gen_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax/ast"
)

// TestSpecShapedChecksCleanly builds spec-shaped modules of several sizes
// and checks them: every copy's names are its own, so the module has no
// diagnostics at all, and its length is what was asked for, give or take
// one copy of a template.
func TestSpecShapedChecksCleanly(t *testing.T) {
	ts, err := gen.SpecTemplates("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, lines := range []int{300, 2000} {
		src, err := gen.SpecShaped(lines, ts...)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n < lines || n > lines+260 {
			t.Errorf("SpecShaped(%d) has %d lines", lines, n)
		}
		f, err := ast.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		res := (&load.Loader{}).CheckFile("/tmp/spec_shaped.caps", f).Result
		for _, d := range res.Diagnostics {
			t.Errorf("SpecShaped(%d): %s %s at %v", lines, d.Code, d.Message, d.Span)
		}
		kinds := map[string]int{}
		for _, d := range f.Module.Decls {
			kinds[string(d.Kind())]++
		}
		for _, k := range []string{"store", "agent", "port", "surface", "machine", "function", "gate", "budget"} {
			if kinds[k] == 0 {
				t.Errorf("SpecShaped(%d) declares no %s (%v)", lines, k, kinds)
			}
		}
	}
}

// TestSpecShapedRenames checks the renaming of one copy: declared names are
// suffixed wherever they are written, other names, strings and comments
// are not.
func TestSpecShapedRenames(t *testing.T) {
	tmpl := []byte(`;; header
(module m
  (capsule "1")
  (profile agentic ui.a2ui)
  ;; the store ops
  (store ops (backend memory) (collection items))
  (surface s (title "ops s") (bind M))
  (gate G (requires eval-suite:G passed))
  (machine M (state a (on E (target a) (effects (db.write ops.items)))))
  )
`)
	got, err := gen.SpecShaped(14, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	want := `;; A module shaped like the specification's examples, 14 lines.
(module bench.spec_shaped
  (capsule "0.7")
  (profile agentic ui.a2ui)

  ;; the store ops
  (store ops_0 (backend memory) (collection items))
  (surface s_0 (title "ops s") (bind M_0))
  (gate G_0 (requires eval-suite:G_0 passed))
  (machine M_0 (state a (on E (target a) (effects (db.write ops_0.items)))))

  ;; the store ops
  (store ops_1 (backend memory) (collection items))
  (surface s_1 (title "ops s") (bind M_1))
  (gate G_1 (requires eval-suite:G_1 passed))
  (machine M_1 (state a (on E (target a) (effects (db.write ops_1.items)))))
  )
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("SpecShaped (-want +got):\n%s", diff)
	}
}
