package check

import (
	"strings"
	"testing"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// BenchmarkEditRecheck100k is the language server's per-edit work on a
// 100,000-line module shaped like the spec's examples: a one-character
// edit inside a transition through syntax.Document, then Recheck against
// the full check of the text before the first edit.
func BenchmarkEditRecheck100k(b *testing.B) {
	benchEdit100k(b, "(transition ", func(base *Result, cst *syntax.CST) *Result {
		if _, ok := base.Recheck(cst); !ok {
			b.Fatal("Recheck declined")
		}
		return base
	})
}

// BenchmarkChainedEditRecheck100k is the language server's per-edit work
// on a 100,000-line module shaped like the spec's examples when no full
// check runs between edits: a one-character edit inside a transition
// through syntax.Document, then RecheckResult against the previous
// edit's answer (the chain of bases, merged past maxChain, included).
func BenchmarkChainedEditRecheck100k(b *testing.B) {
	benchEdit100k(b, "(target ", func(base *Result, cst *syntax.CST) *Result {
		next, ok := base.RecheckResult(cst)
		if !ok {
			b.Fatal("Recheck declined")
		}
		return next
	})
}

// benchEdit100k times, on the 100,000-line module, a space typed and
// deleted in turn after the first marker past the middle, each edit
// followed by recheck of the document's tree against base (the full
// check of the first text), whose result is the next edit's base.
func benchEdit100k(b *testing.B, marker string, recheck func(base *Result, cst *syntax.CST) *Result) {
	src, err := gen.SpecShapedFrom("../../examples", 100000)
	if err != nil {
		b.Fatal(err)
	}
	d, err := syntax.NewDocument(src)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	base := checkCST(d.CST())
	off := strings.Index(string(src[len(src)/2:]), marker) + len(src)/2 + len(marker) - 1
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if i%2 == 0 {
			err = d.Edit(off, off, []byte(" "))
		} else {
			err = d.Edit(off, off+1, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
		base = recheck(base, d.CST())
	}
}
