package lsp

// Regression tests for three fixes in the importer path (each fails when
// its fix is reverted): the fallback of an engine answer's examples
// publishes through the caller's publish; an importer whose examples a
// job re-runs is marked as being checked; a check or verification ending
// after didClose does not bring the closed document's example cache back.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/lsp/lsptest"
	"github.com/capsulang/caps/syntax"
)

// fixModules writes the modules of these tests to a temporary folder and
// returns it: lib (f, which main's example calls), lib2 (h, which main
// calls outside any example) and main.
func fixModules(t *testing.T) (dir string, texts map[string]string) {
	t.Helper()
	dir = t.TempDir()
	texts = map[string]string{
		"lib": `(module lib
  (capsule "1.0")
  (function f
    (input (x I64))
    (output I64)
    (effects pure)
    (body x)))
`,
		"lib2": `(module lib2
  (capsule "1.0")
  (function h
    (input (x I64))
    (output I64)
    (effects pure)
    (body x)))
`,
		"main": `(module main
  (capsule "1.0")
  (import lib)
  (import lib2)
  (function g
    (input (x I64))
    (output I64)
    (effects pure)
    (example (g 1) 1)
    (body (lib.f x)))
  (function k
    (input (x I64))
    (output I64)
    (effects pure)
    (body (lib2.h x))))
`,
	}
	for name, text := range texts {
		if err := os.WriteFile(filepath.Join(dir, name+".caps"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, texts
}

// openFix opens the named modules of fixModules and waits until the
// server settled; it returns their URIs by name.
func openFix(t *testing.T, s *Server, c *lsptest.Client, dir string, texts map[string]string, names ...string) map[string]protocol.DocumentURI {
	t.Helper()
	uris := map[string]protocol.DocumentURI{}
	for _, name := range names {
		uris[name] = protocol.DocumentURI("file://" + filepath.Join(dir, name+".caps"))
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uris[name], "languageId": "capsulang", "version": 1, "text": texts[name]}})
	}
	for _, name := range names {
		s.settled(t, uris[name], 1)
	}
	return uris
}

// codesOf returns the codes of a document's last published diagnostics.
func (s *Server) codesOf(u protocol.DocumentURI) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	if d, ok := s.docs[u]; ok {
		for _, pd := range d.lastDiags {
			out = append(out, pd.Code.(string))
		}
	}
	return out
}

// When the examples of an importer cannot be evaluated from the engine's
// answer, the fallback checks it in full and publishes through the
// caller's publish: an importer job's snapshot keeps its version, which
// was published already, and s.publish refuses that version again, so the
// full check's diagnostics were never published.
func TestImporterExampleFallbackPublishes(t *testing.T) {
	dir, texts := fixModules(t)
	s, c := wsServer(t, dir)
	uris := openFix(t, s, c, dir, texts, "main")
	mainURI := uris["main"]
	if got := s.codesOf(mainURI); len(got) != 0 {
		t.Fatalf("main's diagnostics before: %v, want none", got)
	}
	// what an importer job does: a new snapshot of the same version (its
	// diagnostics published and final), whose last published diagnostics
	// the full check will not repeat
	s.mu.Lock()
	d := s.docs[mainURI]
	d.snap = s.newSnapshot(d, d.snap.version)
	sn := d.snap
	d.lastDiags = []protocol.Diagnostic{{Code: "E_STALE", Message: "published before the import changed"}}
	s.mu.Unlock()
	before := exampleFallbacks.Load()
	// an answer without engine state: its examples cannot be evaluated
	s.publishEngineExamples(sn, &check.Result{}, s.publishChanged)
	if n := exampleFallbacks.Load() - before; n != 1 {
		t.Fatalf("fallbacks: %d, want 1", n)
	}
	// (publishFullWith publishes before it returns)
	if got := s.codesOf(mainURI); len(got) != 0 {
		t.Errorf("main's last published diagnostics: %v, want none (the fallback's full check was not published)", got)
	}
}

// An importer whose examples an importer job re-runs (they call a function
// of the module that changed) is marked as being checked: a second job,
// for another module it imports, replaces its snapshot before the first
// one publishes, and must check it again. Unmarked, the second job found
// its view of that other module unchanged and kept it, and the first
// job's re-run, on a snapshot no longer current, published nothing: the
// failing example was never reported.
func TestImporterExamplesRerunSurvivesASecondJob(t *testing.T) {
	dir, texts := fixModules(t)
	s, c := wsServer(t, dir)
	uris := openFix(t, s, c, dir, texts, "lib", "lib2", "main")
	mainURI, libURI, lib2URI := uris["main"], uris["lib"], uris["lib2"]
	if got := s.codesOf(mainURI); len(got) != 0 {
		t.Fatalf("main's diagnostics before: %v, want none", got)
	}
	// the first job's engine answer for main: before it is published, a
	// comment is added to lib2 and its job (which replaces main's
	// snapshot) runs to its end
	// (not a sync.Once: the second job's answer for main comes through
	// this hook while the first call waits for it)
	var first atomic.Bool
	secondDone := make(chan struct{})
	hook := func(sn *snapshot, _ []syntax.Diagnostic) {
		if sn.uri != mainURI || !first.CompareAndSwap(false, true) {
			return
		}
		func() {
			defer close(secondDone)
			replaceText(c, lib2URI, 2, texts["lib2"], 0, 0, ";; a note\n")
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
				s.mu.Lock()
				replaced := s.docs[mainURI].snap != sn && s.docs[lib2URI].version == 2
				s.mu.Unlock()
				// (this job is the only one left once lib2's ended)
				if replaced && s.importJobs.Load() == 1 {
					return
				}
			}
			t.Error("lib2's importer job did not replace main's snapshot")
		}()
	}
	engineHook.Store(&hook)
	defer engineHook.Store(nil)
	// a body edit of lib.f: its interface is the same, main's example
	// (g 1) = 1 now fails
	body := strings.Index(texts["lib"], "(body x)")
	replaceText(c, libURI, 2, texts["lib"], body, body+len("(body x)"), "(body (+ x 1))")
	select {
	case <-secondDone:
	case <-time.After(30 * time.Second):
		t.Fatal("no engine answer for main after lib's body edit")
	}
	s.settled(t, lib2URI, 2)
	if got, want := s.codesOf(mainURI), []string{"E_EXAMPLE_FAILED"}; !equalStrings(got, want) {
		t.Errorf("main's diagnostics after lib.f's body changed: %v, want %v", got, want)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A check or verification that ends after didClose does not bring back
// the closed document's example cache (the server would keep it until it
// exits), and a verification of a snapshot no longer current publishes
// nothing and checks nothing.
func TestCheckEndingAfterCloseKeepsNoExampleCache(t *testing.T) {
	dir, texts := fixModules(t)
	s, c := wsServer(t, dir)
	uris := openFix(t, s, c, dir, texts, "main")
	mainURI := uris["main"]
	s.mu.Lock()
	sn := s.docs[mainURI].snap
	s.mu.Unlock()
	hasCache := func() bool {
		s.exCaches.mu.Lock()
		defer s.exCaches.mu.Unlock()
		_, ok := s.exCaches.m[mainURI]
		return ok
	}
	if !hasCache() {
		t.Fatal("main has no example cache while open")
	}
	c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": mainURI}})
	deadline := time.Now().Add(10 * time.Second)
	for hasCache() {
		if time.Now().After(deadline) {
			t.Fatal("didClose did not drop main's example cache")
		}
		time.Sleep(time.Millisecond)
	}
	// a full check's examples, an engine answer's and a verification
	// that end now
	s.publishFullExamples(sn, s.publish)
	s.publishEngineExamples(sn, sn.Package().Result, s.publish)
	s.publishKnownExamples(sn, sn.Package().Result)
	s.publishVerified(sn)
	if hasCache() {
		t.Error("a check ending after didClose made main's example cache again")
	}
	// a stale snapshot (never checked) is not checked to publish its
	// verification
	s.mu.Lock()
	stale := &snapshot{uri: mainURI, path: sn.path, version: 1, cst: sn.cst, loader: s.loader, enc: s.enc, cache: sn.cache}
	s.mu.Unlock()
	s.publishVerified(stale)
	if stale.done.Load() {
		t.Error("publishVerified checked a snapshot that is not current")
	}
}

// TestRequestsAfterImportEdit is the differential test of requests sent
// in an importer right after an edit of the module it imports (both
// open): structured edits of m00 (bodies, signatures, the Score type, a
// function added or renamed, comments, the module's name) and random
// typing, each followed at once by completion, hover and definition in
// m03 (which imports m00 and m01, which imports m00: all open) at places
// that read m00 or m01 and at random places. Every answer must be what a
// fresh full check of m03, with m00's new text, answers; the test
// reports how many were answered from the engine's answer (importView)
// and how many from a full check of m01. After every other edit of m00,
// m03 is edited twice (a body's literal, a signature's type, a call's
// target: the places stay), each edit followed at once by the same
// requests, checked against a full check of m03's new text: the test
// reports how many of those were answered from a view over m03's view
// base (chainView) rather than by the engine or a full check.
func TestRequestsAfterImportEdit(t *testing.T) {
	dir := t.TempDir()
	// m03 imports m00, and m01, which imports m00 too
	texts := wsModulesOf(t, dir, 4, 120, true)
	// (a debounce holds the importer job back: the requests come before
	// it, as they do while typing with one)
	s, c := startServer(t, Options{Debounce: 100 * time.Millisecond}, dir)
	c.Timeout = 30 * time.Second
	uris := openAll(t, s, c, dir, texts)
	m00Path, m03Path := filepath.Join(dir, "m00.caps"), filepath.Join(dir, "m03.caps")
	importer := texts[3]
	// the places in m03 that read m00 or m01 (a name after "m00.", and
	// the qualifier), and some others
	var places []int
	for _, q := range []string{"m00.", "m01."} {
		for i := 0; ; {
			j := strings.Index(importer[i:], q)
			if j < 0 {
				break
			}
			i += j + len(q)
			places = append(places, i-2, i+1, i)
		}
	}
	r := rand.New(rand.NewSource(29))
	for k := 0; k < 6; k++ {
		places = append(places, r.Intn(len(importer)))
	}
	requests := []struct {
		method string
		f      func(context.Context, *snapshot, int) (any, error)
	}{{"textDocument/completion", completion}, {"textDocument/hover", hover}, {"textDocument/definition", definition}}
	steps := 40
	if testing.Short() {
		steps = 12
	}
	ctx := context.Background()
	version := 1
	text := texts[0]
	var probes, same int
	iv0, fv0, cv0 := importViews.Load(), fullViews.Load(), chainViews.Load()
	// the edits of m03 and those of them answered from a view over its
	// view base (chainView)
	var ownEdits, ownViewed int
	// probe sends every request at every place in m03, right after an
	// edit, and compares the answers with a fresh full check of m03's
	// text with m00's
	imp, impVersion := importer, 1
	probe := func(step int, what string) {
		type answer struct {
			req, off int
			got      json.RawMessage
		}
		var got []answer
		for _, off := range places {
			for ri, req := range requests {
				var res json.RawMessage
				if err := c.Call(req.method, map[string]any{"textDocument": map[string]any{"uri": uris[3]}, "position": utf16Pos(imp, off)}, &res); err != nil {
					t.Fatalf("step %d (%s): %s at %d: %v", step, what, req.method, off, err)
				}
				got = append(got, answer{ri, off, res})
			}
		}
		if err := os.WriteFile(m00Path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		fresh := testSnapshot(t, m03Path, imp, nil)
		for _, g := range got {
			want, err := requests[g.req].f(ctx, fresh, g.off)
			if err != nil {
				t.Fatal(err)
			}
			wj, _ := json.Marshal(want)
			var gv, wv any
			json.Unmarshal(g.got, &gv)
			json.Unmarshal(wj, &wv)
			probes++
			if d := cmp.Diff(wv, gv); d != "" {
				t.Errorf("step %d (%s): %s in m03 at %d (%q): (-full check +answer)\n%s", step, what, requests[g.req].method, g.off, imp[max(0, g.off-12):min(len(imp), g.off+12)], d)
			} else {
				same++
			}
		}
	}
	// edits of m03 itself, of the same length (the places stay): a body's
	// literal, a signature's type (what others see of it), and a call's
	// target (the name it refers to)
	m03Edits := []importerEdit{
		{"m03 body", "(function uses_m03", "0 10)))", "0 12)))"},
		{"m03 signature", "(function pass", "(output m00.Score)", "(output I64      )"},
		{"m03 call", "(function uses_m03", "m00.clamp_0 x", "m01.clamp_0 x"},
	}
	for step := 0; step < steps; step++ {
		var a, b int
		var ins, what string
		if step%3 == 2 {
			a, b, ins = randomEdit(r, text)
			what = fmt.Sprintf("random edit [%d,%d) -> %q", a, b, ins)
		} else {
			e := m00Edits[r.Intn(len(m00Edits))]
			var ok bool
			if a, b, ins, ok = e.apply(text); !ok {
				continue
			}
			what = e.name
		}
		version++
		text = replaceText(c, uris[0], version, text, a, b, ins)
		// right after the edit, before anything settles
		probe(step, what)
		if step%2 == 0 {
			// edits of m03 right after (its importer job still to come),
			// each followed at once by the requests: its snapshots have
			// no full check to start from
			for k := 0; k < 2; k++ {
				e := m03Edits[r.Intn(len(m03Edits))]
				a, b, ins, ok := e.apply(imp)
				if !ok {
					t.Fatalf("edit %q does not apply to m03", e.name)
				}
				impVersion++
				imp = replaceText(c, uris[3], impVersion, imp, a, b, ins)
				cv := chainViews.Load()
				probe(step, what+", then "+e.name)
				ownEdits++
				if chainViews.Load() > cv {
					ownViewed++
				}
			}
		}
		s.settled(t, uris[0], version)
		s.settled(t, uris[3], impVersion)
	}
	t.Logf("%d answers in m03 after %d edits of m00 and %d of m03, %d as a full check's; snapshots answered from the engine's answer: %d, from a view over a view base: %d (%d of the %d edits of m03); requests answered by a full check: %d",
		probes, steps, ownEdits, same, importViews.Load()-iv0, chainViews.Load()-cv0, ownViewed, ownEdits, fullViews.Load()-fv0)
	if ownViewed == 0 {
		t.Error("no request after an edit of m03 was answered from a view over its view base")
	}
	if importViews.Load() == iv0 {
		t.Error("no request was answered from the engine's answer")
	}
}
