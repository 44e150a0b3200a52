package lsp

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/bench/gen"
)

// TestImporterOpenedAfterLibraryEditWithoutFullCheck edits the module
// every other one imports (m00, open with m01, which imports it) with
// the structured edits of the differential test, each answered by the
// engine (a fast Recheck of m00, the engine for m01), then opens another
// importer (m02 to m06 in turn, m03 and m05 through m01, m03 and m06 with
// examples) and closes it again. Opening a module checks it in full, and
// closing one checks the open importers again in full: their imports of
// m00 and m01 must be answered from the documents' last answers through
// the import cache (load.Loader.Answer), never by a full check of m00 or
// m01. Every published diagnostic is compared with a fresh full check.
// The examples of m03 and m06 call m00's functions: the interpreter reads
// m00 from a full check of its text (check.CompletionHook counts them, at
// most one per m00 answer and importing result).
func TestImporterOpenedAfterLibraryEditWithoutFullCheck(t *testing.T) {
	dir := t.TempDir()
	const n = 7
	texts := wsModulesOf(t, dir, n, 30, true)
	var counting atomic.Bool
	var mu sync.Mutex
	checks, completions := map[string]int{}, map[string]int{}
	load.CheckHook = func(abs string) {
		if counting.Load() {
			mu.Lock()
			checks[filepath.Base(abs)]++
			mu.Unlock()
		}
	}
	check.CompletionHook = func(path string) {
		if counting.Load() {
			mu.Lock()
			completions[filepath.Base(path)]++
			mu.Unlock()
		}
	}
	t.Cleanup(func() { load.CheckHook, check.CompletionHook = nil, nil })
	s, c := wsServer(t, dir)
	uris := make([]protocol.DocumentURI, n)
	for i := range uris {
		uris[i] = protocol.DocumentURI("file://" + filepath.Join(dir, fmt.Sprintf("m%02d.caps", i)))
	}
	open := func(i int) {
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uris[i], "languageId": "capsulang", "version": 1, "text": texts[i]}})
	}
	open(0)
	open(1)
	s.settled(t, uris[0], 1)
	s.settled(t, uris[1], 1)

	var kept []importerEdit
	for _, e := range m00Edits {
		if e.name != "the module renamed" { // (its importers' imports fail)
			kept = append(kept, e)
		}
	}
	r := rand.New(rand.NewSource(7))
	steps := 30
	if testing.Short() {
		steps = 10
	}
	version := 1
	a0, d0, r0 := load.AnswerStats.Answered.Load(), load.AnswerStats.Declined.Load(), load.AnswerStats.Rechecked.Load()
	q0 := quickChecks.Load()
	var opened, totalCompletions int
	for step := 0; step < steps; step++ {
		e := kept[r.Intn(len(kept))]
		a, b, ins, ok := e.apply(texts[0])
		if !ok {
			continue
		}
		version++
		texts[0] = replaceText(c, uris[0], version, texts[0], a, b, ins)
		s.settled(t, uris[0], version)
		k := 2 + step%(n-2)
		when := fmt.Sprintf("step %d (m00: %s; m%02d opened)", step, e.name, k)
		counting.Store(true)
		open(k)
		s.settled(t, uris[k], 1)
		counting.Store(false) // (the fresh checks compared with are not counted)
		// opened: neither m00 nor m01 is checked in full
		verify := func(when string, allowed map[string]int) {
			mu.Lock()
			defer mu.Unlock()
			var bad []string
			for f, k := range checks {
				if (f == "m00.caps" || f == "m01.caps") && k > allowed[f] {
					bad = append(bad, fmt.Sprintf("%s %d", f, k))
				}
			}
			for _, k := range completions {
				totalCompletions += k
			}
			clear(checks)
			clear(completions)
			if len(bad) > 0 {
				sort.Strings(bad)
				t.Errorf("%s: the open modules were checked in full: %s", when, strings.Join(bad, ", "))
			}
		}
		verify(when, nil)
		compareWithFullCheck(t, s, dir, []protocol.DocumentURI{uris[0], uris[1], uris[k]}, when)
		counting.Store(true)
		c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uris[k]}})
		s.settled(t, uris[1], 1)
		counting.Store(false)
		// closed: m01's document is checked again in full (every open
		// document with imports is, after a close), its import of m00
		// answered by the cache
		verify(when+", closed", map[string]int{"m01.caps": 1})
		compareWithFullCheck(t, s, dir, uris[:2], when+", closed")
		opened++
	}
	answered, declined, rechecked := load.AnswerStats.Answered.Load()-a0, load.AnswerStats.Declined.Load()-d0, load.AnswerStats.Rechecked.Load()-r0
	t.Logf("%d edits of m00 (%d answered by a fast Recheck), each followed by an importer opened and closed: %d imports answered from the documents' last answers (%d of them checked again by the engine first: an import had changed), %d declined; %d full checks of an imported module for the interpreter (examples)",
		opened, quickChecks.Load()-q0, answered, rechecked, declined, totalCompletions)
	if answered == 0 {
		t.Errorf("no import was answered from a document's answer")
	}
}

// BenchmarkImporterOpenedAfterLibraryEdit times opening a module that
// imports an open library of 3,000 generated lines right after a body
// edit of the library (answered by a fast Recheck), until the importer's
// diagnostics are published; the importer is closed again after each.
// "answer": the import cache takes the library's last answer
// (load.Loader.Answer); "check": the cache checks the library in full
// (as before it took answers). Both run in the same process, one after
// the other; alternate them with -count.
func BenchmarkImporterOpenedAfterLibraryEdit(b *testing.B) {
	for _, mode := range []string{"check", "answer"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			lib := strings.Replace(string(gen.Module(3000)), "(module bench.generated", "(module lib", 1)
			app := "(module app\n  (capsule \"1.0\")\n  (import lib)\n  (function two (input (x I64)) (output I64) (body (+ (lib.clamp_0 x 0 10) 1))))\n"
			for name, text := range map[string]string{"lib.caps": lib, "app.caps": app} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			s, c := wsServer(b, dir)
			if mode == "check" {
				s.loader.Answer = nil // (no document is open yet)
			}
			libURI := protocol.DocumentURI("file://" + filepath.Join(dir, "lib.caps"))
			appURI := protocol.DocumentURI("file://" + filepath.Join(dir, "app.caps"))
			c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": libURI, "languageId": "capsulang", "version": 1, "text": lib}})
			s.settled(b, libURI, 1)
			at := strings.Index(lib, "(if (< x lo)") + len("(if (< x ")
			version := 1
			a0 := load.AnswerStats.Answered.Load()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				from, to := "lo", "hi"
				if !strings.HasPrefix(lib[at:], from) {
					from, to = to, from
				}
				version++
				lib = replaceText(c, libURI, version, lib, at, at+len(from), to)
				s.settled(b, libURI, version)
				c.Drain()
				b.StartTimer()
				c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": appURI, "languageId": "capsulang", "version": 1, "text": app}})
				s.settled(b, appURI, 1)
				b.StopTimer()
				c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": appURI}})
				s.settled(b, libURI, version)
				c.Drain()
				b.StartTimer()
			}
			b.ReportMetric(float64(load.AnswerStats.Answered.Load()-a0)/float64(b.N), "answered/op")
		})
	}
}
