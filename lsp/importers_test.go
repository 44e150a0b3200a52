package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestImportersFollowTheImportedDocument fixes a broken import by editing
// the imported document in the editor: the importing document's
// diagnostics must follow without an edit of its own, and its next edit
// (checked incrementally) must not bring the old error back.
func TestImportersFollowTheImportedDocument(t *testing.T) {
	dir := t.TempDir()
	bDisk := "(module wrong\n  (capsule \"1\")\n  (function k (output I64) (body 1)))\n"
	aSrc := "(module a\n  (capsule \"1\")\n  (import b)\n  (function f\n    (output I64)\n    (body 1)))\n"
	os.WriteFile(filepath.Join(dir, "b.caps"), []byte(bDisk), 0o644)
	os.WriteFile(filepath.Join(dir, "a.caps"), []byte(aSrc), 0o644)
	c, root := startIn(t, dir)
	aURI, bURI := root+"/a.caps", root+"/b.caps"
	type diags struct {
		URI         string `json:"uri"`
		Version     int    `json:"version"`
		Diagnostics []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"diagnostics"`
	}
	waitA := func(version int, want func(d diags) bool) diags {
		t.Helper()
		var got diags
		_, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
			var d diags
			json.Unmarshal(p, &d)
			if d.URI == aURI && d.Version == version && want(d) {
				got = d
				return true
			}
			return false
		})
		if err != nil {
			t.Fatalf("no diagnostics of a.caps version %d as expected: %v", version, err)
		}
		return got
	}
	importError := func(d diags) bool {
		for _, x := range d.Diagnostics {
			if strings.HasPrefix(x.Code, "E_IMPORT") {
				return true
			}
		}
		return false
	}
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": aURI, "languageId": "capsulang", "version": 1, "text": aSrc}})
	waitA(1, importError)

	// The editor's b declares the right module; a is checked again.
	bFixed := strings.Replace(bDisk, "module wrong", "module b", 1)
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": bURI, "languageId": "capsulang", "version": 1, "text": bFixed}})
	waitA(1, func(d diags) bool { return !importError(d) })

	// An edit of a's body: the import error stays gone.
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": aURI, "version": 2}, "contentChanges": []any{
		map[string]any{"range": map[string]any{"start": pos{5, 10}, "end": pos{5, 11}}, "text": "2"},
	}})
	if d := waitA(2, func(diags) bool { return true }); importError(d) {
		t.Fatalf("a.caps version 2 reports the import error again: %+v", d.Diagnostics)
	}
}

// TestOpeningManyImportersPublishesEach opens, in one burst, eighty modules
// that import one another: the loader reads open documents while it holds
// its lock, and the server tells it of each new text while it holds its
// own, so the two must not wait for each other (they did: some files never
// got diagnostics). Every file must publish its first diagnostics.
func TestOpeningManyImportersPublishesEach(t *testing.T) {
	dir := t.TempDir()
	const n = 80
	texts := make([]string, n)
	for i := range texts {
		src := fmt.Sprintf("(module m%02d\n  (capsule \"1\")\n", i)
		if i > 0 {
			src += fmt.Sprintf("  (import m00)\n  (import m%02d)\n", (i-1)/2)
		}
		for k := 0; k < 40; k++ { // big enough that checks overlap the opening
			src += fmt.Sprintf("  (function f%02d_%d (input (x I64)) (output I64) (body (if (< x 0) (- 0 x) (+ x %d))))\n", i, k, k)
		}
		src += ")\n"
		texts[i] = src
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%02d.caps", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, root := startIn(t, dir)
	c.Timeout = 30 * time.Second // a deadlocked server publishes nothing more
	pending := map[string]bool{}
	for i, src := range texts {
		u := fmt.Sprintf("%s/m%02d.caps", root, i)
		pending[u] = true
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": src}})
	}
	for len(pending) > 0 {
		_, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
			var d struct{ URI string }
			json.Unmarshal(p, &d)
			if pending[d.URI] {
				delete(pending, d.URI)
				return true
			}
			return false
		})
		if err != nil {
			t.Fatalf("%v: %d of %d files never published diagnostics", err, len(pending), n)
		}
	}
}
