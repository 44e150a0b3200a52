package check

import (
	"strings"
	"testing"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// BenchmarkChainedEditRecheck100k is the language server's per-edit work
// on a 100,000-line module shaped like the spec's examples when no full
// check runs between edits: a one-character edit inside a transition
// through syntax.Document, then RecheckResult against the previous
// edit's answer (the chain of bases, merged past maxChain, included).
func BenchmarkChainedEditRecheck100k(b *testing.B) {
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
	off := strings.Index(string(src[len(src)/2:]), "(target ") + len(src)/2 + len("(target")
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
		next, ok := base.RecheckResult(d.CST())
		if !ok {
			b.Fatal("Recheck declined")
		}
		base = next
	}
}
