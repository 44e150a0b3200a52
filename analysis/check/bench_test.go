package check_test

import (
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax/ast"
)

// BenchmarkCheck10k measures checking a 10,000-line module after parsing
// (the target: under 30 ms).
func BenchmarkCheck10k(b *testing.B) {
	src := gen.Module(10000)
	f, err := ast.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := check.Check(f, check.Options{})
		if res.HasErrors() {
			b.Fatal(res.Diagnostics[0])
		}
	}
}
