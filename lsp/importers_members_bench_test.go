package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
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

// BenchmarkImporterChainMiddleKept times the case closureCurrent exists
// for: app imports lib and base, lib imports base; all three are open.
// An edit of base changes the interface of the function app calls
// (fb's output, toggled) but not of the one lib calls (fa): lib keeps its
// answer, which still holds base's old result, so when app is checked
// again its import of lib is not answered by lib's last answer
// (openAnswers: closureCurrent is false) and the loader checks lib again.
// Timed until every document has its final diagnostics.
func BenchmarkImporterChainMiddleKept(b *testing.B) {
	dir := b.TempDir()
	mods := map[string]string{
		"base": `(module base
  (capsule "1")
  (function fa (input (x I64)) (output I64) (effects pure) (body x))
  (function fb (input (x I64)) (output I64) (effects pure) (body x)))
`,
		"lib": `(module lib
  (capsule "1")
  (import base)
  (function via (input (x I64)) (output I64) (effects pure) (body (base.fa x))))
`,
		"app": `(module app
  (capsule "1")
  (import lib)
  (import base)
  (function run (input (x I64)) (output I64) (effects pure) (body (+ (lib.via x) (base.fb x)))))
`,
	}
	// lib grows to a realistic size, so that checking it again shows
	lib := mods["lib"]
	var extra strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&extra, "\n  (function g%d (input (x I64)) (output I64) (effects pure) (body (+ (base.fa x) %d)))", i, i)
	}
	mods["lib"] = lib[:len(lib)-2] + extra.String() + ")\n"
	uris := map[string]protocol.DocumentURI{}
	for name, text := range mods {
		if err := os.WriteFile(filepath.Join(dir, name+".caps"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		uris[name] = protocol.DocumentURI("file://" + filepath.Join(dir, name+".caps"))
	}
	s, c := wsServer(b, dir)
	for _, name := range []string{"base", "lib", "app"} {
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uris[name], "languageId": "capsulang", "version": 1, "text": mods[name]}})
		s.settled(b, uris[name], 1)
	}
	text := mods["base"]
	at := strings.Index(text, "(function fb")
	at += strings.Index(text[at:], "(output I64)") + len("(output ")
	version := 1
	c.Drain()
	rechecked, kept := importStats.rechecked.Load(), importStats.narrowed.Load()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		from, to := "I64", "Bool"
		if !strings.HasPrefix(text[at:], from) {
			from, to = to, from
		}
		version++
		text = replaceText(c, uris["base"], version, text, at, at+len(from), to)
		s.settled(b, uris["base"], version)
	}
	b.StopTimer()
	b.ReportMetric(float64(importStats.rechecked.Load()-rechecked)/float64(b.N), "rechecked/op")
	b.ReportMetric(float64(importStats.narrowed.Load()-kept)/float64(b.N), "kept-by-member/op")
	c.Drain()
}
