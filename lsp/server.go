package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
)

// Options configure a server.
type Options struct {
	// Debounce delays diagnostics after an edit; later edits within it
	// supersede earlier ones. Zero publishes as soon as the check is done.
	Debounce time.Duration
	// Log receives the server's log; nil discards it. Each line is one
	// Write, so an unbuffered writer (a file) has it as soon as it is
	// logged.
	Log io.Writer
	// LogMessages also logs every message read and written: "<-" or "->",
	// then its kind, method, id and size (see messageSummary).
	LogMessages bool
	// Version is reported in serverInfo.
	Version string
	// MaxDocumentSize is the size in bytes of the largest document the
	// server analyses; zero means load.MaxFileSize, the CLI's limit.
	MaxDocumentSize int
}

// Server is one language server session.
type Server struct {
	opts   Options
	conn   jsonrpc2.Conn
	stream *stream
	log    *log.Logger

	mu          sync.Mutex
	docs        map[protocol.DocumentURI]*document
	enc         syntax.Encoding
	initialized bool
	shutdown    bool
	loader      *load.Loader
	// answers holds each open document's last result, for the import
	// cache (deps.go, answerBoard)
	answers answerBoard
	cancels map[string]context.CancelFunc
	ws      *workspace
	// from the client's initialize params
	folders            []string
	clientProgress     bool
	clientWatch        bool
	progressN          int
	clientInlayRefresh bool
	exited             chan struct{}
	exitCode           int
	// stopping is closed when serve ends; bg counts the background work
	// (the workspace index) serve waits for, so that nothing writes to
	// the connection or the log after it returns.
	stopping chan struct{}
	bg       sync.WaitGroup
	// logw is the log's writer, closed when serve returns: a request
	// still finishing then logs nothing into the caller's writer.
	logw      *gatedWriter
	snapshots uint64 // how many snapshots were made
	// release returns closed documents' memory (release.go).
	release *time.Timer
	// capsules are the open Capsule contracts (capsule.go).
	capsules map[protocol.DocumentURI]*capsuleDoc
	// srcMu guards srcs, the open documents' text by path, which the
	// loader reads (readFile) while it holds its own lock: it must not
	// wait for s.mu, which is held while the loader is told of a change
	// (Forget), or the two wait for each other.
	srcMu sync.Mutex
	srcs  map[string]openSource
	// exCaches are the open documents' example outcomes (examples.go).
	exCaches exampleCaches
	// keys caches imported modules' interface keys (deps.go);
	// importJobs counts the importer jobs under way.
	keys       keyCache
	importJobs atomic.Int64
}

// openSource is what readFile answers for an open document: its current
// text, or why it has none (over the size limit).
type openSource struct {
	src []byte
	err error
}

// noteSource records an open document's current text for readFile; s.mu
// must be held.
func (s *Server) noteSource(d *document) {
	o := openSource{}
	if d.snap != nil {
		o.src = d.snap.cst.Src
	} else {
		o.err = fmt.Errorf("%s: %s", d.path, s.tooLarge(d))
	}
	s.srcMu.Lock()
	defer s.srcMu.Unlock()
	if s.srcs == nil {
		s.srcs = map[string]openSource{}
	}
	s.srcs[d.path] = o
}

// forgetSource drops a closed document's text; s.mu must be held.
func (s *Server) forgetSource(path string) {
	s.srcMu.Lock()
	defer s.srcMu.Unlock()
	delete(s.srcs, path)
}

// document is an open editor document.

// Serve runs a server on r/w until the client exits or the input ends. It
// returns the process exit code the LSP specification asks for (0 after
// shutdown, 1 otherwise).
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) int {
	return newServer(r, w, opts).serve(ctx)
}

// newServer makes a server that talks over r/w.
func newServer(r io.Reader, w io.Writer, opts Options) *Server {
	s := &Server{
		opts:     opts,
		docs:     map[protocol.DocumentURI]*document{},
		cancels:  map[string]context.CancelFunc{},
		exited:   make(chan struct{}),
		stopping: make(chan struct{}),
		loader:   &load.Loader{Roots: load.EnvRoots(), CacheIR: true},
		ws:       newWorkspace(),
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	s.logw = &gatedWriter{w: logw}
	s.log = log.New(s.logw, "caps lsp: ", log.Ltime|log.Lmicroseconds)
	s.loader.ReadFile = s.readFile
	s.loader.Answer = s.answers.get
	s.stream = newStream(r, w, nil)
	s.stream.onBadMessage = func(err error) { s.log.Printf("bad message: %v", err) }
	if opts.LogMessages && opts.Log != nil {
		s.stream.onMessage = func(dir string, body []byte) { s.log.Printf("%s %s", dir, messageSummary(body)) }
	}
	s.conn = jsonrpc2.NewConn(s.stream)
	return s
}

// serve handles messages until the client exits or the input ends and
// returns the exit code (see Serve).
func (s *Server) serve(ctx context.Context) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.conn.Go(ctx, s.handle)
	select {
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
			s.log.Printf("connection ended: %v", err)
		}
	case <-s.exited:
	}
	close(s.stopping)
	s.bg.Wait()
	s.closeAll()
	defer s.logw.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return 0
	}
	return 1
}

func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		d.close()
	}
	s.docs = map[protocol.DocumentURI]*document{}
}

// readFile serves open documents' text to the import loader; a document
// over the size limit cannot be imported, as the file could not.
func (s *Server) readFile(path string) ([]byte, error) {
	s.srcMu.Lock()
	o, ok := s.srcs[path]
	s.srcMu.Unlock()
	if ok {
		return o.src, o.err
	}
	return load.ReadSource(path)
}

// gatedWriter passes writes to w until it is closed, then drops them.
type gatedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gatedWriter) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}
