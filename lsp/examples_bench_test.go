package lsp

import (
	"sort"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/bench/gen"
)

// BenchmarkExamplesEdit measures, on a 10,000-line module shaped like the
// spec's examples (96 function examples), the time from an edit to the
// publish of the version's final diagnostics, the examples' results
// included: an edit outside every example's reach (a surface's title),
// one in the body of a function with examples (their outcome changes),
// and a layout-only one there (a space doubled: their outcome is kept).
// It reports the median and the 90th percentile, and the median time to
// the version's first publish.
func BenchmarkExamplesEdit(b *testing.B) {
	src, err := gen.SpecShapedFrom("../examples", 10000)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range []struct{ name, from, to string }{
		{"title", `(title "Claim decision")`, `(title "Claim decisioN")`},
		{"example-body", "(<= review_score 30)", "(<= review_score 29)"},
		{"example-layout", "(<= review_score 30)", "(<=  review_score 30)"},
	} {
		b.Run(e.name, func(b *testing.B) {
			s, c := startServer(b, Options{}, "")
			const uri = "file:///tmp/bench/examples.caps"
			text := string(src)
			c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
			// final waits for the final publish of version v, and returns
			// when the first publish of v was seen
			final := func(v int) time.Time {
				deadline := time.Now().Add(30 * time.Second)
				var first time.Time
				for time.Now().Before(deadline) {
					s.mu.Lock()
					d := s.docs[protocol.DocumentURI(uri)]
					published := d != nil && int(d.published) == v
					done := published && d.publishedFinal
					s.mu.Unlock()
					if published && first.IsZero() {
						first = time.Now()
					}
					if done {
						return first
					}
					time.Sleep(100 * time.Microsecond)
				}
				b.Fatalf("version %d: no final publish", v)
				return first
			}
			final(1)
			// the middle copy's occurrence
			at := 0
			for k := strings.Count(text, e.from) / 2; k >= 0; k-- {
				at += strings.Index(text[at:], e.from) + len(e.from)
			}
			at -= len(e.from)
			var ds, firsts []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				from, to := e.from, e.to
				if i%2 == 1 {
					from, to = to, from
				}
				change := map[string]any{"text": to, "range": map[string]any{"start": utf16Pos(text, at), "end": utf16Pos(text, at+len(from))}}
				text = text[:at] + to + text[at+len(from):]
				t0 := time.Now()
				c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": i + 2}, "contentChanges": []any{change}})
				first := final(i + 2)
				ds = append(ds, time.Since(t0))
				firsts = append(firsts, first.Sub(t0))
			}
			b.StopTimer()
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			sort.Slice(firsts, func(i, j int) bool { return firsts[i] < firsts[j] })
			b.ReportMetric(float64(ds[len(ds)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(ds[len(ds)*9/10])/1e6, "p90-ms")
			b.ReportMetric(float64(firsts[len(firsts)/2])/1e6, "first-p50-ms")
		})
	}
}
