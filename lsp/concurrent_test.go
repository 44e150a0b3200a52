package lsp

import (
	"fmt"
	"strings"
	"testing"
)

// TestConcurrentRequestsOnOneSnapshot sends requests of every kind that
// reads a document, all at once, right after each edit, so that they
// share one fresh snapshot whose package is not checked yet: the first to
// need it checks it while the others wait (issue 21). Run it with -race:
// a handler that reads the snapshot's state past its accessor races with
// the one that computes it.
func TestConcurrentRequestsOnOneSnapshot(t *testing.T) {
	dir := t.TempDir()
	_, c := startServer(t, Options{}, dir)
	u := "file://" + dir + "/claims.caps"
	text := func(v int) string {
		return fmt.Sprintf(`(module demo.claims
  (capsule "1")
  (function bump (input (x U32)) (output U32) (body (+ x %d)) (example (bump 1) %d))
  (machine Claim
    (context (score U32))
    (event Submit (score U32))
    (initial open)
    (state open
      (on Submit (target closed) (assign (score (bump event.score)))))
    (state closed (type final))))
`, v, v+1)
	}
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": text(1)}})
	td := map[string]any{"uri": u}
	at := func(line, char int) map[string]any {
		return map[string]any{"textDocument": td, "position": map[string]any{"line": line, "character": char}}
	}
	whole := map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 10, "character": 0}}
	requests := []struct {
		method string
		params any
	}{
		{"textDocument/foldingRange", map[string]any{"textDocument": td}},
		{"textDocument/documentSymbol", map[string]any{"textDocument": td}},
		{"textDocument/semanticTokens/full", map[string]any{"textDocument": td}},
		{"textDocument/codeLens", map[string]any{"textDocument": td}},
		{"textDocument/documentLink", map[string]any{"textDocument": td}},
		{"textDocument/formatting", map[string]any{"textDocument": td, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}},
		{"textDocument/inlayHint", map[string]any{"textDocument": td, "range": whole}},
		{"textDocument/codeAction", map[string]any{"textDocument": td, "range": whole, "context": map[string]any{"diagnostics": []any{}}}},
		{"textDocument/hover", at(8, 60)},
		{"textDocument/definition", at(8, 53)},
		{"textDocument/declaration", at(8, 53)},
		{"textDocument/references", map[string]any{"textDocument": td, "position": map[string]any{"line": 2, "character": 14}, "context": map[string]any{"includeDeclaration": true}}},
		{"textDocument/documentHighlight", at(2, 14)},
		{"textDocument/completion", at(8, 46)},
		{"textDocument/signatureHelp", at(8, 53)},
		{"textDocument/prepareRename", at(2, 14)},
		{"textDocument/rename", map[string]any{"textDocument": td, "position": map[string]any{"line": 2, "character": 14}, "newName": "raise"}},
		{"textDocument/selectionRange", map[string]any{"textDocument": td, "positions": []any{map[string]any{"line": 8, "character": 53}}}},
	}
	for v := 2; v <= 6; v++ {
		c.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": v},
			"contentChanges": []any{map[string]any{"text": text(v)}},
		})
		var waits []func() error
		for round := 0; round < 2; round++ {
			for _, r := range requests {
				_, wait := c.Go(r.method, r.params)
				waits = append(waits, func() error {
					m, err := wait()
					if err != nil {
						return err
					}
					if m.Error != nil {
						return fmt.Errorf("%s: %v", r.method, m.Error)
					}
					return nil
				})
			}
		}
		for _, w := range waits {
			if err := w(); err != nil && !strings.Contains(err.Error(), "content modified") {
				t.Errorf("version %d: %v", v, err)
			}
		}
	}
}
