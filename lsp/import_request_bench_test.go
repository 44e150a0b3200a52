package lsp

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/lsp/lsptest"
)

// BenchmarkRequestAfterImportEdit times, through the server, a completion
// in an importer (m01, lines long) sent right after an edit of the module
// it imports (m00, as long, open too): an edit of a function's body (the
// interface importers read stays) and of a function's input type (it
// changes). The server settles between iterations (not timed). It
// reports the request's median and slowest times (ms).
func BenchmarkRequestAfterImportEdit(b *testing.B) {
	for _, lines := range []int{2000, 10000} {
		for _, e := range []importerEdit{m00Edits[0], m00Edits[4]} {
			b.Run(fmt.Sprintf("lines=%d/%s", lines, strings.ReplaceAll(e.name, " ", "_")), func(b *testing.B) {
				s, c, texts, uris, pos := openImporterPair(b, lines)
				text, version := texts[0], 1
				var times []time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					a, z, ins, ok := e.apply(text)
					if !ok {
						b.Fatalf("edit %q does not apply", e.name)
					}
					version++
					b.StartTimer()
					t0 := time.Now()
					text = replaceText(c, uris[0], version, text, a, z, ins)
					if err := c.Call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uris[1]}, "position": pos}, nil); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(t0))
					b.StopTimer()
					s.settled(b, uris[0], version)
					b.StartTimer()
				}
				sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "max-ms")
			})
		}
	}
}

// BenchmarkRequestAfterOwnImportEdit times, through the server, a
// completion in an importer (m01, lines long, importing m00, open too)
// sent right after an edit of its own import forms, toggled at each
// iteration: unused-import adds an import of m00 under an alias nothing
// names, then removes it; alias-used gives the import of m00 that m01's
// declarations name (m00.NAME) an alias, which unresolves those names,
// then takes it back. Each is timed from the edit's notification to the
// answer; the server settles between iterations (not timed). It reports
// the request's median and slowest times (ms).
func BenchmarkRequestAfterOwnImportEdit(b *testing.B) {
	for _, lines := range []int{2000, 10000} {
		for _, e := range []importerEdit{
			{"unused-import", "(capsule", "(import m00)\n", "(import m00) (import m00 (as unused))\n"},
			{"alias-used", "(capsule", "(import m00)\n", "(import m00 (as m))\n"},
		} {
			b.Run(fmt.Sprintf("lines=%d/%s", lines, e.name), func(b *testing.B) {
				s, c, texts, uris, pos := openImporterPair(b, lines)
				imp, version := texts[1], 1
				var times []time.Duration
				var full int64 // requests answered by a full check
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					a, z, ins, ok := e.apply(imp)
					if !ok {
						b.Fatalf("edit %q does not apply", e.name)
					}
					version++
					b.StartTimer()
					f0 := fullViews.Load()
					t0 := time.Now()
					imp = replaceText(c, uris[1], version, imp, a, z, ins)
					if err := c.Call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uris[1]}, "position": pos}, nil); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(t0))
					b.StopTimer()
					full += fullViews.Load() - f0
					s.settled(b, uris[1], version)
					b.StartTimer()
				}
				sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "max-ms")
				b.ReportMetric(float64(full)/float64(b.N), "full-views/op")
			})
		}
	}
}

// BenchmarkRequestAfterImportThenOwnEdit times, through the server, the
// requests of an importer (m01) after its own edits that follow an edit
// of the module it imports (m00, open too): m00's body is edited, then
// m01's (a body's literal, the same length) twice, each edit followed at
// once by a completion in m01 (the first edit changes a literal, the
// second another one); own-1 is the first edit's (which pays for the
// answer later views are built over, when there is one), own-2 the
// second's. Each is timed from the edit's notification to the answer;
// the server settles between iterations (not timed). It reports the
// medians and the slowest times (ms).
func BenchmarkRequestAfterImportThenOwnEdit(b *testing.B) {
	for _, lines := range []int{2000, 10000} {
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			s, c, texts, uris, pos := openImporterPair(b, lines)
			own := []importerEdit{
				{"m01 body", "(function uses_m01", "0 10)))", "0 12)))"},
				{"m01 call", "(function uses_m01", "x 0 10) (", "x 0 13) ("},
			}
			text, version := texts[0], 1
			imp, impVersion := texts[1], 1
			var times [2][]time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				a, z, ins, ok := m00Edits[0].apply(text)
				if !ok {
					b.Fatalf("edit %q does not apply", m00Edits[0].name)
				}
				version++
				text = replaceText(c, uris[0], version, text, a, z, ins)
				b.StartTimer()
				for k := 0; k < 2; k++ {
					a, z, ins, ok := own[k].apply(imp)
					if !ok {
						b.Fatal("m01's edit does not apply")
					}
					impVersion++
					t0 := time.Now()
					imp = replaceText(c, uris[1], impVersion, imp, a, z, ins)
					if err := c.Call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uris[1]}, "position": pos}, nil); err != nil {
						b.Fatal(err)
					}
					times[k] = append(times[k], time.Since(t0))
				}
				b.StopTimer()
				s.settled(b, uris[0], version)
				s.settled(b, uris[1], impVersion)
				b.StartTimer()
			}
			for k, ts := range times {
				sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
				b.ReportMetric(float64(ts[len(ts)/2].Microseconds())/1000, fmt.Sprintf("own-%d-p50-ms", k+1))
				b.ReportMetric(float64(ts[len(ts)-1].Microseconds())/1000, fmt.Sprintf("own-%d-max-ms", k+1))
			}
		})
	}
}

// openImporterPair opens two generated modules of the given length in a
// server, m01 importing m00, waits until m01 is published, and returns
// the server, its client, the texts, their URIs and the position in m01
// of a name it reads from m00 (where the benchmarks ask for completion).
func openImporterPair(b *testing.B, lines int) (*Server, *lsptest.Client, []string, []protocol.DocumentURI, map[string]int) {
	b.Helper()
	dir := b.TempDir()
	texts := wsModulesOf(b, dir, 2, lines, false)
	s, c := wsServer(b, dir)
	uris := make([]protocol.DocumentURI, 2)
	for i, text := range texts {
		uris[i] = protocol.DocumentURI("file://" + filepath.Join(dir, fmt.Sprintf("m%02d.caps", i)))
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uris[i], "languageId": "capsulang", "version": 1, "text": text}})
	}
	s.settled(b, uris[1], 1)
	at := strings.Index(texts[1], "(m00.clamp_0") + len("(m00.")
	return s, c, texts, uris, utf16Pos(texts[1], at)
}
