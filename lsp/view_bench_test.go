package lsp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/capsulang/caps/bench/gen"
)

// BenchmarkRequestAfterEdit measures completion and hover sent right after
// an edit of a 10,000-line spec-shaped module: a view on the previous full
// check and the edited declaration, as the server answers them.
func BenchmarkRequestAfterEdit(b *testing.B) {
	ts, err := gen.SpecTemplates("../examples")
	if err != nil {
		b.Fatal(err)
	}
	src, err := gen.SpecShaped(10000, ts...)
	if err != nil {
		b.Fatal(err)
	}
	text := string(src)
	base := testSnapshot(b, "/tmp/spec.caps", text, nil).Package().Result
	at := strings.Index(text[len(text)/2:], "(target awaiting_human_decision)") + len(text)/2 + len("(target ")
	edited := text[:at] + "awaiting_review" + text[at+len("awaiting_human_decision"):]
	hov := strings.Index(edited[len(edited)*7/10:], "(target accepted)") + len(edited)*7/10 + len("(target ac")
	ctx := context.Background()
	for _, req := range []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
		off  int
	}{{"completion", completion, at + 3}, {"hover", hover, hov}} {
		b.Run(req.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				sn := testSnapshot(b, "/tmp/spec.caps", edited, base)
				sn.cache = &docCache{}
				b.StartTimer()
				t0 := time.Now()
				v := sn.view()
				t1 := time.Now()
				if _, err := req.f(ctx, sn, req.off); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(t1.Sub(t0).Microseconds()), "view-µs")
				b.ReportMetric(float64(time.Since(t1).Microseconds()), "request-µs")
				_ = v
				if sn.done.Load() {
					b.Fatal("answered from a full check")
				}
			}
		})
	}
}
