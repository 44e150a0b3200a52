package diagnose_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// BenchmarkExampleCacheKnown measures what an edit outside every
// example's reach costs the examples, on spec-shaped modules of 10,000
// and 100,000 lines: the keys of every function with examples over the
// engine's answer, every outcome reused (ExampleCache.Known), with the
// answer's engine version (which the next edit's check computes
// otherwise) and without it (keys), beside evaluating them all from a
// full check (Run), as the server did before (after the full check).
func BenchmarkExampleCacheKnown(b *testing.B) {
	for _, lines := range []int{10000, 100000} {
		src, err := gen.SpecShapedFrom("../../examples", lines)
		if err != nil {
			b.Fatal(err)
		}
		from, to := []byte(`(title "Claim decision")`), []byte(`(title "Claim decisioN")`)
		at := bytes.Index(src[len(src)/2:], from) + len(src)/2
		d, err := syntax.NewDocument(src)
		if err != nil {
			b.Fatal(err)
		}
		full := check.Check(ast.Build(syntax.Read(d.CST())), check.Options{Path: "/virtual/spec.caps"})
		cache := &diagnose.ExampleCache{}
		if _, _, ok := cache.Diagnostics(full, nil); !ok {
			b.Fatal("not evaluated")
		}
		base := full
		known := func(b *testing.B, keysOnly bool) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				f, t := from, to
				if i%2 == 1 {
					f, t = to, from
				}
				if err := d.Edit(at, at+len(f), t); err != nil {
					b.Fatal(err)
				}
				res, ok := base.RecheckResult(d.CST())
				if !ok {
					b.Fatal("the engine declined")
				}
				base = res
				if keysOnly {
					res.DeclStarts() // (the answer's engine version, which the next edit's check reads too)
				}
				b.StartTimer()
				if _, complete, ok := cache.Known(res); !ok || !complete {
					b.Fatal("not every outcome is known")
				}
			}
		}
		b.Run(fmt.Sprintf("known/%dk", lines/1000), func(b *testing.B) { known(b, false) })
		b.Run(fmt.Sprintf("keys/%dk", lines/1000), func(b *testing.B) { known(b, true) })
		b.Run(fmt.Sprintf("full-run/%dk", lines/1000), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				diagnose.Run(full)
			}
		})
		d.Close()
	}
}
