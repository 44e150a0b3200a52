package lsp

import (
	"strings"
	"testing"
)

// BenchmarkImporterUnreadMemberEdit times an edit of the module all
// others import in the 200-module workspace (wsModules) that changes the
// interface of a function no importer calls (clamp_2's output type,
// toggled between I64 and Bool), until every module has its final
// diagnostics; "members" keeps the importers that read none of the
// changed members (readsSame), "module" sends every importer whose key
// for the module changed (the behaviour before). It reports the
// importers checked again per edit.
func BenchmarkImporterUnreadMemberEdit(b *testing.B) {
	for _, narrow := range []bool{true, false} {
		name := "module"
		if narrow {
			name = "members"
		}
		b.Run(name, func(b *testing.B) {
			defer func(old bool) { narrowImporters = old }(narrowImporters)
			narrowImporters = narrow
			dir := b.TempDir()
			texts := wsModules(b, dir, 200, 60)
			s, c := wsServer(b, dir)
			uris := openAll(b, s, c, dir, texts)
			text := texts[0]
			at := strings.Index(text, "(function clamp_2")
			if at < 0 {
				b.Fatal("m00 has no clamp_2")
			}
			at += strings.Index(text[at:], "(output I64)") + len("(output ")
			version := 1
			c.Drain()
			rechecked := importStats.rechecked.Load()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				from, to := "I64", "Bool"
				if !strings.HasPrefix(text[at:], from) {
					from, to = to, from
				}
				version++
				text = replaceText(c, uris[0], version, text, at, at+len(from), to)
				s.settled(b, uris[0], version)
			}
			b.StopTimer()
			b.ReportMetric(float64(importStats.rechecked.Load()-rechecked)/float64(b.N), "rechecked/op")
			c.Drain()
		})
	}
}

