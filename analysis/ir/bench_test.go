package ir

import (
	"bytes"
	"testing"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax/ast"
)

// BenchmarkHash hashes a generated module of 10,000 lines (parsing is not
// timed).
func BenchmarkHash(b *testing.B) {
	src := gen.Module(10000)
	f, err := ast.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	if len(f.Diagnostics) > 0 {
		b.Fatalf("generated module has diagnostics: %v", f.Diagnostics[0].Message)
	}
	c, _ := Canonical(f.Module)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Hash(f.Module); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(bytes.Count(src, []byte("\n"))), "src-lines")
	b.ReportMetric(float64(len(c)), "ir-bytes")
}

// BenchmarkParseAndHash times the whole path from source text to hash.
func BenchmarkParseAndHash(b *testing.B) {
	src := gen.Module(10000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := ast.Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Hash(f.Module); err != nil {
			b.Fatal(err)
		}
	}
}
