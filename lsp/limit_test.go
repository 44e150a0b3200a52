package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulang/caps/syntax"
)

// largeOffset, which needs no index of the whole text, converts positions
// exactly as syntax.Mapper does, errors included.
func TestLargeOffsetMatchesLines(t *testing.T) {
	r := rand.New(rand.NewSource(19))
	pieces := []string{"a", "é", "😀", "\n", "\r\n", "\r", " ", "xyz"}
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for n := r.Intn(12); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		text := []byte(b.String())
		lines := syntax.NewMapper(text)
		for _, enc := range []syntax.Encoding{syntax.UTF8, syntax.UTF16, syntax.UTF32} {
			p := syntax.Position{Line: r.Intn(lines.Count() + 2), Character: r.Intn(12)}
			want, wantErr := lines.Offset(p, enc)
			got, err := largeOffset(text, p, enc)
			if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("%q %v in %v: largeOffset %d, %v; Lines %d, %v", text, p, enc, got, err, want, wantErr)
			}
		}
	}
}

func TestMiB(t *testing.T) {
	for n, want := range map[int]string{1000: "1000 bytes", 16 << 20: "16 MiB", 16<<20 + 1: "16.1 MiB", 60000026: "57.3 MiB", 64 << 20: "64 MiB"} {
		if got := mib(n); got != want {
			t.Errorf("mib(%d) = %q, want %q", n, got, want)
		}
	}
}

// A document over the size limit is kept as text: edits, whole or ranged,
// still apply to it, take it over and back under the limit, and the
// server's text is always the client's. Over the limit it has no tree and
// no snapshot, one diagnostic, and a warning each time it crosses over
// (issue 19, item 2).
func TestLargeDocumentsKeepTheirText(t *testing.T) {
	const uri = "file:///tmp/sync/fuzz.caps"
	text := "(module m\r\n  (capsule \"1\") ; 😀\n  (machine M (context (n U32)) (event Go) (initial a)\n    (state a (on Go (target b)))\n    (state b (type final))))\n"
	limit := len(text) + 30
	s, c := startServer(t, Options{MaxDocumentSize: limit}, "")
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
	r := rand.New(rand.NewSource(2))
	version, crossings, largeEdits, large := 1, 0, 0, false
	for i := 0; i < 600; i++ {
		var changes []any
		if r.Intn(40) == 0 {
			// a whole-document change, alternately over and under the limit
			if len(text) > limit {
				text = strings.Repeat("; é\n", limit/8)
			} else {
				text += strings.Repeat("; 😀 padding\r\n", 4)
			}
			changes = append(changes, map[string]any{"text": text})
		}
		for n := r.Intn(3); n > 0; n-- {
			a, b, ins := randomEdit(r, text)
			if r.Intn(3) == 0 {
				ins += strings.Repeat("x", r.Intn(20))
			}
			changes = append(changes, map[string]any{"range": map[string]any{"start": utf16Pos(text, a), "end": utf16Pos(text, b)}, "text": ins})
			text = text[:a] + ins + text[b:]
		}
		version++
		c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": changes})
		if v, got := documentText(t, c, uri); v != version || got != text {
			t.Fatalf("edit %d: the server has version %d %q, want version %d %q", i, v, got, version, text)
		}
		if len(text) > limit && !large {
			crossings++
		}
		if large && len(text) > limit {
			largeEdits++
		}
		large = len(text) > limit
		s.mu.Lock()
		d := s.docs[uri]
		state := fmt.Sprintf("tree %v, snapshot %v", d.doc != nil, d.snap != nil)
		s.mu.Unlock()
		if want := fmt.Sprintf("tree %v, snapshot %v", !large, !large); state != want {
			t.Fatalf("edit %d (%d bytes, limit %d): %s, want %s", i, len(text), limit, state, want)
		}
	}
	t.Logf("%d edits crossed the limit, %d were made over it", crossings, largeEdits)
	if crossings < 5 || largeEdits < 50 {
		t.Fatalf("the edits crossed the limit %d times and %d were made over it", crossings, largeEdits)
	}
	for i := 0; i < crossings; i++ {
		if typ, msg := showMessage(t, c); typ != 2 || !strings.Contains(msg, "over the "+mib(limit)+" limit") {
			t.Fatalf("warning %d: %d %q", i+1, typ, msg)
		}
	}
	c.Timeout = 200 * time.Millisecond
	if m, err := c.Wait("window/showMessage", nil); err == nil {
		t.Fatalf("a warning too many: %s", m.Params)
	}
	c.Timeout = 10 * time.Second
	if !large {
		if diff := diagnosticsVsFresh(t, c, version, text); diff != "" {
			t.Fatalf("diagnostics differ from a fresh check (-fresh +server):\n%s", diff)
		}
	}
}

// An open document over the size limit cannot be imported, as a file over
// it could not.
func TestLargeDocumentsCannotBeImported(t *testing.T) {
	dir := t.TempDir()
	lib := `(module lib (capsule "1") (function one (output I64) (body 1)))`
	if err := os.WriteFile(filepath.Join(dir, "lib.caps"), []byte(lib), 0o644); err != nil {
		t.Fatal(err)
	}
	_, c := startServer(t, Options{MaxDocumentSize: 200}, dir)
	open := func(name, text string) {
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file://" + filepath.Join(dir, name), "languageId": "capsulang", "version": 1, "text": text}})
	}
	open("lib.caps", lib+"\n;"+strings.Repeat("x", 200))
	open("main.caps", `(module main (capsule "1") (import lib) (function f (output I64) (body (lib.one))))`)
	m, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool { return strings.Contains(string(p), "main.caps") })
	if err != nil {
		t.Fatal(err)
	}
	want := "cannot read import lib: " + filepath.Join(dir, "lib.caps") + ": this document is 265 bytes, over the 200 bytes limit"
	if !strings.Contains(string(m.Params), want) || !strings.Contains(string(m.Params), "E_IMPORT_NOT_FOUND") {
		t.Errorf("diagnostics of main.caps: %s\nwant E_IMPORT_NOT_FOUND saying %q", m.Params, want)
	}
}

// An importer edited right after the module it imports grew over the
// size limit gets its new version's diagnostics: the limit sends the
// importers to full checks without an importer job, and they must not
// wait for one (their count of awaited jobs went up and never down, so
// every later version of the importer went unpublished).
func TestImporterEditedAfterImportGrewOverLimit(t *testing.T) {
	dir := t.TempDir()
	lib := `(module lib (capsule "1") (function one (output I64) (body 1)))`
	if err := os.WriteFile(filepath.Join(dir, "lib.caps"), []byte(lib), 0o644); err != nil {
		t.Fatal(err)
	}
	_, c := startServer(t, Options{MaxDocumentSize: 300}, dir)
	c.Timeout = 5 * time.Second
	uri := func(name string) string { return "file://" + filepath.Join(dir, name) }
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri("lib.caps"), "languageId": "capsulang", "version": 1, "text": lib}})
	mainText := `(module main (capsule "1") (import lib) (function f (output I64) (body (lib.one))))`
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri("main.caps"), "languageId": "capsulang", "version": 1, "text": mainText}})
	published := func(name string, version int) func(json.RawMessage) bool {
		return func(p json.RawMessage) bool {
			var d struct {
				URI     string `json:"uri"`
				Version int    `json:"version"`
			}
			return json.Unmarshal(p, &d) == nil && d.URI == uri(name) && d.Version == version
		}
	}
	if _, err := c.Wait("textDocument/publishDiagnostics", published("main.caps", 1)); err != nil {
		t.Fatal(err)
	}
	change := func(name string, version int, text string) {
		c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri(name), "version": version}, "contentChanges": []map[string]any{{"text": text}}})
	}
	change("lib.caps", 2, lib+"\n;"+strings.Repeat("x", 300))
	change("main.caps", 2, strings.Replace(mainText, "(body (lib.one))", "(body (+ (lib.one) 2))", 1))
	m, err := c.Wait("textDocument/publishDiagnostics", published("main.caps", 2))
	if err != nil {
		t.Fatalf("main.caps version 2 was never published: %v", err)
	}
	if !strings.Contains(string(m.Params), "E_IMPORT_NOT_FOUND") {
		t.Errorf("main.caps version 2: %s\nwant E_IMPORT_NOT_FOUND (lib is over the limit)", m.Params)
	}
}
