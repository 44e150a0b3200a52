package lsp

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"

	"go.lsp.dev/protocol"
)

// capsulang/debug.documentText returns the server's copy of a document and
// its version. Tests use it to prove the server never disagrees with the
// editor about the text; it is documented in docs/lsp.md as a debugging aid.
func init() {
	requests["capsulang/debug.documentText"] = func(s *Server, params json.RawMessage) (func(context.Context) (any, error), error) {
		var p struct {
			TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
		}
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		d, err := s.openDocument(p.TextDocument.URI)
		if err != nil {
			return nil, err
		}
		res := map[string]any{"version": d.version, "text": string(d.text())}
		return func(context.Context) (any, error) { return res, nil }, nil
	}
}

// capsulang/debug.memory reports what the server holds: the soft memory
// limit in force (`caps lsp` sets one, see docs/lsp.md), the Go heap, and
// how many documents and imported files it keeps. Tests use it to check
// the limit and that closed documents are released; it is a debugging aid,
// not a stable API.
func init() {
	requests["capsulang/debug.memory"] = func(s *Server, _ json.RawMessage) (func(context.Context) (any, error), error) {
		return func(context.Context) (any, error) { return s.memory(), nil }, nil
	}
}

// memoryReport is the answer of capsulang/debug.memory; sizes are in bytes.
type memoryReport struct {
	// MemoryLimit is the Go runtime's soft memory limit.
	MemoryLimit int64 `json:"memoryLimit"`
	// HeapInUse is the Go heap in use; HeapHeld what the heap holds from
	// the operating system (in use, free, not yet returned).
	HeapInUse uint64 `json:"heapInUse"`
	HeapHeld  uint64 `json:"heapHeld"`
	Documents int    `json:"documents"`
	// CachedFiles counts the files in the import cache.
	CachedFiles int `json:"cachedFiles"`
}

// memory reports what the server holds.
func (s *Server) memory() memoryReport {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.mu.Lock()
	docs := len(s.docs)
	s.mu.Unlock()
	return memoryReport{
		MemoryLimit: debug.SetMemoryLimit(-1),
		HeapInUse:   ms.HeapInuse,
		HeapHeld:    ms.HeapSys - ms.HeapReleased,
		Documents:   docs,
		CachedFiles: s.loader.Len(),
	}
}

// writeHeapProfile writes, when the environment variable
// CAPS_LSP_MEMPROFILE names a file, the heap profile of what the server
// holds at shutdown, its documents still open: a debugging aid for the
// server's memory (docs/lsp.md; bench/lspbench profiles the 100,000-line
// module with it). A failure is logged; the server shuts down anyway.
func writeHeapProfile(s *Server) {
	name := os.Getenv("CAPS_LSP_MEMPROFILE")
	if name == "" {
		return
	}
	runtime.GC()
	f, err := os.Create(name)
	if err == nil {
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		s.log.Printf("CAPS_LSP_MEMPROFILE: %v", err)
	}
}
