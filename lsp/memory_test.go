package lsp

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/lsp/lsptest"
)

// startServer runs a server on pipes, initialized with folder as its
// workspace folder ("" for none), and returns it with a client for it.
func startServer(t testing.TB, opts Options, folder string) (*Server, *lsptest.Client) {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	s := newServer(sr, sw, opts)
	done := make(chan struct{})
	go func() {
		s.serve(context.Background())
		sw.Close()
		close(done)
	}()
	c := lsptest.New(cr, cw)
	t.Cleanup(func() { c.Close(); <-done })
	params := map[string]any{"capabilities": map[string]any{}}
	if folder != "" {
		params["rootUri"] = "file://" + folder
	}
	if err := c.Call("initialize", params, nil); err != nil {
		t.Fatal(err)
	}
	c.Notify("initialized", map[string]any{})
	return s, c
}

// held lists what the server still holds for documents: anything keyed by
// a document or cached from one.
func (s *Server) held() []string {
	var out []string
	s.mu.Lock()
	if n := len(s.docs); n > 0 {
		out = append(out, fmt.Sprintf("%d documents", n))
	}
	if n := len(s.cancels); n > 0 {
		out = append(out, fmt.Sprintf("%d running requests", n))
	}
	s.mu.Unlock()
	if n := s.loader.Len(); n > 0 {
		out = append(out, fmt.Sprintf("%d files in the import cache", n))
	}
	return out
}

// Closing documents releases everything the server held for them: its
// maps are empty and their snapshots are collected (issue 19, item 2).
func TestClosingDocumentsReleasesThem(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.caps"), []byte(`(module lib (capsule "1") (function one (output I64) (body 1)))`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, c := startServer(t, Options{MaxDocumentSize: 4 << 10}, dir)
	const n = 40
	var snaps []weak.Pointer[snapshot]
	var caches []weak.Pointer[docCache]
	for i := 0; i < n; i++ {
		u := fmt.Sprintf("file://%s/d%d.caps", dir, i)
		text := fmt.Sprintf(`(module d%d (capsule "1") (import lib)
  (function f (output I64) (body (lib.one)) (example (f) 1))
  (machine M (event Go) (initial a) (state a (on Go (target b))) (state b (type final))))`, i)
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": text}})
		doc := map[string]any{"uri": u}
		for _, call := range []struct {
			method string
			params any
		}{
			{"textDocument/semanticTokens/full", map[string]any{"textDocument": doc}},
			{"workspace/executeCommand", map[string]any{"command": "capsulang.dryRun", "arguments": []any{map[string]any{"uri": u, "machine": "M"}}}},
			{"textDocument/hover", map[string]any{"textDocument": doc, "position": map[string]int{"line": 1, "character": 13}}},
		} {
			if err := c.Call(call.method, call.params, nil); err != nil {
				t.Fatalf("%s: %v", call.method, err)
			}
		}
		s.mu.Lock()
		d := s.docs[protocol.DocumentURI(u)]
		snaps = append(snaps, weak.Make(d.snap))
		caches = append(caches, weak.Make(d.cache))
		s.mu.Unlock()
	}
	// and one over the size limit
	large := "file://" + dir + "/large.caps"
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": large, "languageId": "capsulang", "version": 1, "text": strings.Repeat(";\n", 4<<10)}})
	c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": large}})
	for i := 0; i < n; i++ {
		c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": fmt.Sprintf("file://%s/d%d.caps", dir, i)}})
	}
	// Notifications are handled in order, before the next request.
	c.Call("workspace/symbol", map[string]any{"query": "x"}, nil)
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		held := s.held()
		alive := countAlive(snaps)
		if alive > 0 {
			held = append(held, fmt.Sprintf("%d snapshots", alive))
		}
		if n := countAlive(caches); n > 0 {
			held = append(held, fmt.Sprintf("the caches (tokens, dry runs) of %d documents", n))
		}
		if len(held) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing every document the server still holds %v", held)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countAlive counts the pointers whose object has not been collected.
func countAlive[T any](ps []weak.Pointer[T]) int {
	n := 0
	for _, p := range ps {
		if p.Value() != nil {
			n++
		}
	}
	return n
}

// TestHeapProfileAtShutdown: with CAPS_LSP_MEMPROFILE set, shutdown writes
// a heap profile taken while the documents are still open, so it shows
// what the server retains for them (the document's text, read at didOpen,
// is among the sampled allocations); without it, nothing is written.
func TestHeapProfileAtShutdown(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "heap.prof")
	t.Setenv("CAPS_LSP_MEMPROFILE", prof)
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1 // sample every allocation, however small
	t.Cleanup(func() { runtime.MemProfileRate = old })
	_, c := startServer(t, Options{}, "")
	u := "file://" + dir + "/p.caps"
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1,
		"text": `(module p (capsule "1") (function one (output I64) (body 1)))`}})
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]int{"line": 0, "character": 40}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatalf("no heap profile at shutdown: %v", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the heap profile is not a gzipped pprof profile: %v", err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	// the profile's string table names the functions of its stacks
	if !bytes.Contains(data, []byte("github.com/capsulang/caps/lsp.didOpen")) {
		t.Errorf("the heap profile has no allocation made by didOpen: the document was not open when it was taken")
	}
}
