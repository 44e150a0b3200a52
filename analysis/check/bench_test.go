package check_test

import (
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
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

// BenchmarkParse10k measures a full tree-sitter parse of 10,000 lines.
func BenchmarkParse10k(b *testing.B) {
	src := gen.Module(10000)
	p := syntax.NewParser()
	defer p.Close()
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIncrementalEdit10k measures a one-character edit and reparse.
func BenchmarkIncrementalEdit10k(b *testing.B) {
	src := gen.Module(10000)
	d, err := syntax.NewDocument(src)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	off := len(src) / 2
	for src[off] != ' ' {
		off++
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			d.Edit(off, off, []byte(" "))
		} else {
			d.Edit(off, off+1, nil)
		}
	}
}
