package lsp

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
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
				pos := utf16Pos(texts[1], at)
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
