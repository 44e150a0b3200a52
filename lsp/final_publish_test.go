package lsp

import (
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// TestFinalPublishAfterSameVersionSnapshot: a document whose check
// published its version's diagnostics without the examples' results,
// then was given a new snapshot of the same text by an importer job (its
// engine answer kept as the base, as importersJob's default case does),
// must still publish its final diagnostics. The check of the new snapshot
// found the version published already, skipped its publish and returned
// before running the examples: the document never published its
// examples' results (TestWorkspaceDifferential, modules opened in quick
// succession under load).
func TestFinalPublishAfterSameVersionSnapshot(t *testing.T) {
	s, c := startServer(t, Options{}, "")
	u := protocol.DocumentURI("file:///tmp/final/a.caps")
	text := "(module a (capsule \"1\")\n  (function f (input (x I64)) (output I64) (body (+ x 1)) (example (f 1) 2)))\n"
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": text}})
	c.Call("workspace/symbol", map[string]any{"query": "zz"}, nil)
	s.settled(t, u, 1)

	s.mu.Lock()
	d := s.docs[u]
	if d.base == nil {
		s.mu.Unlock()
		t.Fatal("no base after the first check")
	}
	// the state importersJob leaves: the first publish was not final, a
	// new snapshot of the same version, the answer as the engine base
	d.publishedFinal = false
	d.snap = s.newSnapshot(d, d.snap.version)
	d.engine, d.base = d.base, nil
	s.scheduleDiagnostics(d)
	s.mu.Unlock()

	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		final, published := d.publishedFinal, d.published
		s.mu.Unlock()
		if final && published == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("version 1 never published its final diagnostics (published %d, final %v)", published, final)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
