package load

import (
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax/ast"
)

// FuzzLean holds a lean build (ast.BuildLean, with the examples' reach
// built whole as the loader does) of any text it accepts to the whole
// build of the same text: the same build diagnostics, the same check
// diagnostics, the same semantic hash (imports unresolved) and, when the
// examples run, the same outcomes; and so is that lean build built whole
// in place (ast.Undefer).
func FuzzLean(f *testing.F) {
	for _, p := range []string{
		"../../examples/01_abs_i64.caps",
		"../../examples/03_claim_review_machine.caps",
		"../../testdata/check/e_effect_not_declared.caps",
		"../../testdata/check/cascade_one_mistake.caps",
	} {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add(gen.Functions(2 << 10))
	f.Add([]byte("(module m (capsule \"1\") (function f (input (x I64) (x Bool)) (output I64) (effects (db.write s.c)) (body (let ((y x)) (+ y 1)))) (function g (output Nope) (body (f 1 2))))"))
	f.Add([]byte("(module m (function f (input (result I64)) (output (List I64)) (summary \"s\") (body (list result)) (body 2)) (type T I64))"))
	f.Add([]byte("(module m (capsule \"1\") (function g (input (x I64)) (output I64) (body (* 2 x))) (function f (input (x I64)) (output I64) (requires (> x 0)) (body (g x))) (function h (output I64) (body (f 2)) (example (h) 4)))"))
	f.Add([]byte("(module m (capsule \"1\") (function g (input (x I64)) (output I64) (body (* 2 x))) (function f (input (x I64)) (output I64) (ensures (> result 0)) (body (g x))) (function h (output I64) (body (f 2)) (example (h) 5)))"))
	f.Fuzz(func(t *testing.T, src []byte) {
		lf, ok := ast.BuildLean(src)
		if !ok {
			return
		}
		if lf.Module != nil && hasExamples(lf.Module) {
			ast.UndeferReach(lf)
		}
		wf := parseSource(src)
		if d := cmp.Diff(wf.Diagnostics, lf.Diagnostics); d != "" {
			t.Fatalf("build diagnostics (-whole +lean):\n%s", d)
		}
		check1 := func(f *ast.File) ([]string, string) {
			res := check.Check(f, check.Options{Path: "/f.caps", Once: true})
			h, _ := IROptions(res).Hash(f.Module)
			ds := res.Diagnostics
			if !res.HasErrors() && len(res.Examples) > 0 {
				ds = append(ds, examples.Diagnostics(examples.Evaluate(res))...)
			}
			var out []string
			for _, d := range ds {
				out = append(out, fmt.Sprintf("%s %d-%d %s", d.Code, d.Span.Start, d.Span.End, d.Message))
			}
			return out, h
		}
		wd, wh := check1(wf)
		ld, lh := check1(lf)
		if d := cmp.Diff(wd, ld); d != "" {
			t.Fatalf("check diagnostics (-whole +lean):\n%s", d)
		}
		if wh != lh {
			t.Fatalf("hash %s, whole %s", lh, wh)
		}
		// Built lean again, then whole in place (ast.Undefer, as the
		// loader does with a mostly whole lean tree): a whole build's
		// tree, checked as one.
		uf, _ := ast.BuildLean(src)
		if uf.Module != nil && hasExamples(uf.Module) {
			ast.UndeferReach(uf)
		}
		ast.Undefer(uf)
		if d := cmp.Diff(wf.Diagnostics, uf.Diagnostics); d != "" {
			t.Fatalf("undeferred build diagnostics (-whole +undeferred):\n%s", d)
		}
		if wf.Exprs != uf.Exprs {
			t.Fatalf("undeferred: %d expressions, whole %d", uf.Exprs, wf.Exprs)
		}
		ud, uh := check1(uf)
		if d := cmp.Diff(wd, ud); d != "" {
			t.Fatalf("undeferred check diagnostics (-whole +undeferred):\n%s", d)
		}
		if wh != uh {
			t.Fatalf("undeferred hash %s, whole %s", uh, wh)
		}
	})
}
