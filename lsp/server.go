package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/codes"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
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
	cancels     map[string]context.CancelFunc
	ws          *workspace
	// from the client's initialize params
	folders            []string
	clientProgress     bool
	clientWatch        bool
	progressN          int
	clientInlayRefresh bool
	exited             chan struct{}
	exitCode           int
	snapshots          uint64 // how many snapshots were made
	// release returns closed documents' memory (release.go).
	release *time.Timer
	// capsules are the open Capsule contracts (capsule.go).
	capsules map[protocol.DocumentURI]*capsuleDoc
}

// document is an open editor document.
type document struct {
	uri  protocol.DocumentURI
	path string
	doc  *syntax.Document // mutated only by notifications, under Server.mu
	// large is the text of a document over the size limit, kept so that
	// edits apply but never parsed: doc, snap and base are nil meanwhile
	// (limit.go).
	large []byte
	// version is the version of the current text.
	version int32
	snap    *snapshot
	// published is the version of the last published diagnostics, and
	// publishedFinal whether they included the examples' results.
	published      int32
	publishedFinal bool
	// base is the newest full check of this document, from which later
	// versions are re-checked incrementally (check.Result.Recheck); nil
	// when there is none or another file it imports may have changed.
	base *check.Result
	// fullCheck is the pending full check after incremental ones.
	fullCheck *time.Timer
	// cache is what requests remember about the document, shared with
	// its snapshots.
	cache *docCache
}

// docCache holds what requests remember about a document from one version
// to the next: the semantic tokens last sent (for deltas) and the last dry
// run of each machine (for inlay hints). The document and its snapshots
// share it, so that it goes with them when the document is closed.
type docCache struct {
	mu      sync.Mutex
	tokens  tokenResult
	dryRuns map[string]dryRun
}

// close releases the document's tree and stops its pending full check.
func (d *document) close() {
	if d.fullCheck != nil {
		d.fullCheck.Stop()
	}
	if d.doc != nil {
		d.doc.Close()
	}
}

// refreshImporters is called, with s.mu held, when a document's text or a
// watched file changes: documents other than except whose module imports
// anything may see different imports now. Each gets a new snapshot of its
// unchanged text (so checks still running on the old one publish nothing
// and set no base), loses its incremental base, and is checked in full
// after the usual pause.
func (s *Server) refreshImporters(except *document) {
	for _, d := range s.docs {
		if d == except || !importsAnything(d.base) {
			continue
		}
		d.base = nil
		d.snap = s.newSnapshot(d, d.snap.version)
		d.published, d.publishedFinal = d.snap.version-1, false
		s.scheduleFullCheckLocked(d, d.snap.seq)
	}
}

// importsAnything reports whether a checked module has an import form
// (resolved or not: a failed import may resolve after a change).
func importsAnything(r *check.Result) bool {
	return r != nil && r.File != nil && r.File.Module != nil && len(r.File.Module.Imports) > 0
}

// Serve runs a server on r/w until the client exits or the input ends. It
// returns the process exit code the LSP specification asks for (0 after
// shutdown, 1 otherwise).
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) int {
	return newServer(r, w, opts).serve(ctx)
}

// newServer makes a server that talks over r/w.
func newServer(r io.Reader, w io.Writer, opts Options) *Server {
	s := &Server{
		opts:    opts,
		docs:    map[protocol.DocumentURI]*document{},
		cancels: map[string]context.CancelFunc{},
		exited:  make(chan struct{}),
		loader:  &load.Loader{Roots: envRoots()},
		ws:      newWorkspace(),
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	s.log = log.New(logw, "caps lsp: ", log.Ltime|log.Lmicroseconds)
	s.loader.ReadFile = s.readFile
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
	s.closeAll()
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

// envRoots returns the import roots from CAPS_PATH, as the CLI uses.
func envRoots() []string {
	var out []string
	for _, r := range filepath.SplitList(os.Getenv("CAPS_PATH")) {
		if r != "" {
			out = append(out, r)
		}
	}
	return out
}

// readFile serves open documents' text to the import loader; a document
// over the size limit cannot be imported, as the file could not.
func (s *Server) readFile(path string) ([]byte, error) {
	s.mu.Lock()
	for _, d := range s.docs {
		if d.path == path {
			defer s.mu.Unlock()
			if d.snap == nil {
				return nil, fmt.Errorf("%s: %s", path, s.tooLarge(d))
			}
			return d.snap.cst.Src, nil
		}
	}
	s.mu.Unlock()
	return load.ReadSource(path)
}

// notificationHandler handles a notification in order, on the reading
// goroutine.
type notificationHandler func(s *Server, params json.RawMessage) error

// requestHandler parses a request and captures what it needs (snapshots)
// synchronously; the returned function runs on its own goroutine.
type requestHandler func(s *Server, params json.RawMessage) (func(ctx context.Context) (any, error), error)

var (
	notifications = map[string]notificationHandler{}
	requests      = map[string]requestHandler{}
)

func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic in %s: %v\n%s", req.Method(), r, debug.Stack())
			if _, ok := req.(*jsonrpc2.Call); ok {
				err = reply(ctx, nil, &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: fmt.Sprintf("internal error in %s: %v", req.Method(), r)})
			}
			err = nil
		}
	}()
	call, isCall := req.(*jsonrpc2.Call)
	if !isCall {
		return s.handleNotification(req)
	}
	method := req.Method()
	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	s.mu.Unlock()
	switch {
	case method == "initialize":
	case !initialized:
		return reply(ctx, nil, &jsonrpc2.Error{Code: jsonrpc2.ServerNotInitialized, Message: "the server is not initialized; send initialize first"})
	case shutdown && method != "shutdown":
		return reply(ctx, nil, &jsonrpc2.Error{Code: jsonrpc2.InvalidRequest, Message: "the server is shutting down"})
	}
	h, ok := requests[method]
	if ch := s.capsuleRequest(method, req.Params()); ch != nil {
		h, ok = ch, true // a Capsule contract (capsule.go)
	}
	if !ok {
		return reply(ctx, nil, &jsonrpc2.Error{Code: jsonrpc2.MethodNotFound, Message: "method not supported: " + method})
	}
	run, err := h(s, req.Params())
	if err != nil {
		return reply(ctx, nil, asRPCError(err))
	}
	id := idKey(call.ID())
	rctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.cancels[id] = cancel
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.cancels, id)
			s.mu.Unlock()
			cancel()
		}()
		res, err := s.runRequest(rctx, method, run)
		if rctx.Err() != nil && err == nil && res == nil {
			err = &jsonrpc2.Error{Code: jsonrpc2.Code(-32800), Message: "request cancelled"}
		}
		if err != nil {
			reply(ctx, nil, asRPCError(err))
			return
		}
		reply(ctx, res, nil)
	}()
	return nil
}

func (s *Server) runRequest(ctx context.Context, method string, run func(context.Context) (any, error)) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic in %s: %v\n%s", method, r, debug.Stack())
			res, err = nil, &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: fmt.Sprintf("internal error in %s: %v", method, r)}
		}
	}()
	start := time.Now()
	res, err = run(ctx)
	s.log.Printf("%s in %v", method, time.Since(start))
	return res, err
}

func idKey(id jsonrpc2.ID) string {
	b, _ := json.Marshal(id)
	return string(b)
}

func asRPCError(err error) error {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e
	}
	return &jsonrpc2.Error{Code: jsonrpc2.InvalidParams, Message: err.Error()}
}

func (s *Server) handleNotification(req jsonrpc2.Request) error {
	method := req.Method()
	switch method {
	case "exit":
		select {
		case <-s.exited:
		default:
			close(s.exited)
		}
		return nil
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			s.mu.Lock()
			if cancel := s.cancels[string(p.ID)]; cancel != nil {
				cancel()
			}
			s.mu.Unlock()
		}
		return nil
	}
	s.mu.Lock()
	initialized := s.initialized
	s.mu.Unlock()
	if !initialized {
		return nil // notifications before initialize are dropped
	}
	h, ok := notifications[method]
	if ch := s.capsuleNotification(method, req.Params()); ch != nil {
		h, ok = ch, true // a Capsule contract (capsule.go)
	}
	if !ok {
		if !strings.HasPrefix(method, "$/") {
			s.log.Printf("ignoring notification %s", method)
		}
		return nil
	}
	if err := h(s, req.Params()); err != nil {
		s.log.Printf("%s: %v", method, err)
		s.showMessage(protocol.MessageTypeError, fmt.Sprintf("Capsulang: %s failed: %v", method, err))
	}
	return nil
}

func (s *Server) showMessage(t protocol.MessageType, msg string) {
	s.conn.Notify(context.Background(), "window/showMessage", &protocol.ShowMessageParams{Type: t, Message: msg})
}

func decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return errors.New("missing params")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return fmt.Errorf("invalid params: %v", err)
	}
	return nil
}

// ---- documents and snapshots

// uriPath converts a document URI to a file path (non-file URIs keep their
// text, so untitled buffers still work).
func uriPath(u protocol.DocumentURI) string {
	if strings.HasPrefix(string(u), "file://") {
		return uri.URI(u).Filename()
	}
	return string(u)
}

// snapshotOf returns the current snapshot of an open document; a document
// over the size limit has none.
func (s *Server) snapshotOf(u protocol.DocumentURI) (*snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.openDocument(u)
	if err != nil {
		return nil, err
	}
	if d.snap == nil {
		return nil, s.notAnalysed(d)
	}
	return d.snap, nil
}

// openDocument returns an open document, with s.mu held.
func (s *Server) openDocument(u protocol.DocumentURI) (*document, error) {
	d, ok := s.docs[u]
	if !ok {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.InvalidParams, Message: "document not open: " + string(u)}
	}
	return d, nil
}

// newSnapshot makes the document's current snapshot; s.mu must be held.
func (s *Server) newSnapshot(d *document, version int32) *snapshot {
	s.snapshots++
	return &snapshot{uri: d.uri, path: d.path, version: version, seq: s.snapshots, cst: d.doc.CST(), loader: s.loader, enc: s.enc, cache: d.cache}
}

// snapshot is an immutable view of one document version.
type snapshot struct {
	uri     protocol.DocumentURI
	path    string
	version int32
	seq     uint64 // unique among the server's snapshots
	cst     *syntax.CST
	enc     syntax.Encoding
	loader  *load.Loader
	cache   *docCache // the document's, shared by its snapshots

	// checked is the parsed and checked package: read it only through
	// Package(), which computes it once (concurrent requests on one
	// snapshot share it).
	once    sync.Once
	checked *load.Package
	idxOnce sync.Once
	idx     *index
	exOnce  sync.Once
	ex      []examples.Outcome
	// verified is the snapshot's verification by Z3 (verify.go), started
	// on save or by the capsulang.verify command; nil until then.
	verified atomic.Pointer[verification]
}

// Examples evaluates the function examples of a snapshot that checks
// without errors (once); nil otherwise.
func (sn *snapshot) Examples() []examples.Outcome {
	sn.exOnce.Do(func() {
		if sn.runsExamples() {
			sn.ex = examples.Evaluate(sn.Package().Result)
		}
	})
	return sn.ex
}

// runsExamples reports whether the snapshot's examples are evaluated: it
// checks without errors and has some.
func (sn *snapshot) runsExamples() bool {
	res := sn.Package().Result
	return !res.HasErrors() && len(res.Examples) > 0
}

// Package parses and checks the snapshot (once).
func (sn *snapshot) Package() *load.Package {
	sn.once.Do(func() {
		f := ast.Build(syntax.Read(sn.cst))
		sn.checked = sn.loader.CheckFileNoHash(sn.path, f)
	})
	return sn.checked
}

// Index returns the snapshot's symbol index (built on first use: the
// diagnostics path does not need it).
func (sn *snapshot) Index() *index {
	pkg := sn.Package()
	sn.idxOnce.Do(func() { sn.idx = newIndex(pkg) })
	return sn.idx
}

func (sn *snapshot) lines() *syntax.Lines { return sn.cst.Lines }

// offset converts a protocol position to a byte offset.
func (sn *snapshot) offset(p protocol.Position) (int, error) {
	off, err := sn.lines().Offset(syntax.Position{Line: int(p.Line), Character: int(p.Character)}, sn.enc)
	if err != nil {
		return 0, &jsonrpc2.Error{Code: jsonrpc2.InvalidParams, Message: err.Error()}
	}
	return off, nil
}

// rng converts a byte span to a protocol range.
func (sn *snapshot) rng(sp syntax.Span) protocol.Range {
	r := sn.lines().Range(sp, sn.enc)
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Character)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Character)},
	}
}

// ---- diagnostics

// fullCheckDelay is how long the server waits, after publishing
// diagnostics it re-checked incrementally, before it checks the version in
// full (to evaluate the examples and to refresh the incremental base): a
// new edit within it makes the full check unnecessary.
const fullCheckDelay = 120 * time.Millisecond

// quickChecks counts the diagnostics the server computed incrementally,
// for tests and the debug request.
var quickChecks atomic.Int64

// scheduleDiagnostics checks the document's current snapshot after the
// debounce and publishes its diagnostics if it is still current.
// The goroutine holds only the snapshot's name until it runs, so that a
// burst of edits does not keep every version alive.
func (s *Server) scheduleDiagnostics(d *document) {
	u, seq := d.uri, d.snap.seq
	go func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Printf("panic computing diagnostics: %v\n%s", r, debug.Stack())
			}
		}()
		if s.opts.Debounce > 0 {
			time.Sleep(s.opts.Debounce)
		}
		snap, base := s.current(u, seq)
		if snap == nil {
			return
		}
		// Phase 1: parse and check diagnostics, as soon as they exist:
		// re-checking only what changed since the base when that is sound,
		// checking in full otherwise.
		quick := false
		var diags []syntax.Diagnostic
		if base != nil {
			diags, quick = s.recheck(base, snap)
		}
		if quick {
			quickChecks.Add(1)
		} else {
			diags = snap.Package().Result.Diagnostics
			s.setBase(snap)
		}
		if !s.publish(snap, s.toProtocol(snap, diags), false) {
			return
		}
		// Phase 2: the examples' results when the file checks cleanly and
		// has examples (a later publish of the same version replaces the
		// earlier one); after an incremental phase 1, a full check once the
		// edits pause.
		if quick {
			s.scheduleFullCheck(snap.uri, snap.seq)
			return
		}
		s.publishExamples(snap)
	}()
}

// current returns the document's snapshot and incremental base if the
// snapshot is still the one numbered seq, else nil.
func (s *Server) current(u protocol.DocumentURI, seq uint64) (*snapshot, *check.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[u]; ok && d.snap != nil && d.snap.seq == seq {
		return d.snap, d.base
	}
	return nil, nil
}

// scheduleFullCheck checks the document in full fullCheckDelay from now,
// if its snapshot is then still the one numbered seq, and publishes the
// result as the version's final diagnostics (see publishFull). A later call
// for the document replaces an earlier one; a call for a snapshot that is
// no longer current does nothing. Only the document's name and the
// snapshot's number wait, not the snapshot, so that a burst of edits keeps
// no old versions alive.
func (s *Server) scheduleFullCheck(u protocol.DocumentURI, seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[u]; ok {
		s.scheduleFullCheckLocked(d, seq)
	}
}

// scheduleFullCheckLocked is scheduleFullCheck with s.mu held.
func (s *Server) scheduleFullCheckLocked(d *document, seq uint64) {
	if d.snap == nil || d.snap.seq != seq {
		return
	}
	if d.fullCheck != nil {
		d.fullCheck.Stop()
	}
	u := d.uri
	d.fullCheck = time.AfterFunc(fullCheckDelay, func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Printf("panic in a full check: %v\n%s", r, debug.Stack())
			}
		}()
		if snap, _ := s.current(u, seq); snap != nil {
			s.publishFull(snap)
		}
	})
}

// publishFull checks snap in full, makes it the document's base, and
// publishes its diagnostics, with the examples' results when it checks
// cleanly, as the version's final ones: they replace what an incremental
// check published, so that the full check always has the last word.
func (s *Server) publishFull(snap *snapshot) {
	s.setBase(snap)
	s.publish(snap, s.diagnostics(snap, snap.runsExamples()), true)
}

// publishExamples publishes the snapshot's diagnostics with its examples'
// results when it checks cleanly and has examples.
func (s *Server) publishExamples(snap *snapshot) {
	if !snap.runsExamples() || !s.isCurrent(snap) {
		return
	}
	s.publish(snap, s.diagnostics(snap, true), true)
}

// recheck re-checks snap incrementally against base; a panic in it is
// logged and answered by the full check instead.
func (s *Server) recheck(base *check.Result, snap *snapshot) (diags []syntax.Diagnostic, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic in an incremental check of %s (checking in full): %v\n%s", snap.uri, r, debug.Stack())
			diags, ok = nil, false
		}
	}()
	return base.Recheck(snap.cst)
}

// setBase makes the snapshot's full check the base of later incremental
// checks, if the snapshot is still its document's current one.
func (s *Server) setBase(snap *snapshot) {
	res := snap.Package().Result
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[snap.uri]; ok && d.snap == snap {
		d.base = res
	}
}

// publish sends a snapshot's diagnostics if it is still the document's
// current snapshot and nothing newer was published; it reports whether it
// did.
func (s *Server) publish(snap *snapshot, diags []protocol.Diagnostic, final bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.docs[snap.uri]
	if !ok || cur.snap != snap || cur.published > snap.version || cur.published == snap.version && (!final || cur.publishedFinal) {
		return false
	}
	cur.published, cur.publishedFinal = snap.version, final
	s.conn.Notify(context.Background(), "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{
		URI: snap.uri, Version: uint32(snap.version), Diagnostics: diags,
	})
	return true
}

func (s *Server) isCurrent(snap *snapshot) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[snap.uri]
	return ok && d.snap == snap
}

// diagnostics converts a snapshot's diagnostics to the protocol, with the
// examples' results when withExamples is set.
func (s *Server) diagnostics(snap *snapshot, withExamples bool) []protocol.Diagnostic {
	pkg := snap.Package()
	diags := pkg.Result.Diagnostics
	if withExamples {
		diags = append(append([]syntax.Diagnostic(nil), diags...), examples.Diagnostics(snap.Examples())...)
	}
	if vd := verificationDiagnostics(snap); len(vd) > 0 {
		diags = append(append([]syntax.Diagnostic(nil), diags...), vd...)
	}
	return s.toProtocol(snap, diags)
}

// toProtocol converts diagnostics of a snapshot to the protocol.
func (s *Server) toProtocol(snap *snapshot, diags []syntax.Diagnostic) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(diags))
	for _, d := range diags {
		pd := protocol.Diagnostic{
			Range:           snap.rng(d.Span),
			Severity:        protocol.DiagnosticSeverity(d.Severity),
			Code:            d.Code,
			CodeDescription: &protocol.CodeDescription{Href: protocol.URI(docURL(d.Code))},
			Source:          "capsulang",
			Message:         d.Message,
		}
		for _, r := range d.Related {
			pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{
				Location: s.relatedLocation(snap, r), Message: r.Message,
			})
		}
		out = append(out, pd)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Range.Start, out[j].Range.Start
		return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
	})
	return out
}

// relatedLocation is where a related location of a snapshot's diagnostic
// is: in the snapshot's file, or in another one (the other half of an
// import cycle), whose lines the loader has.
func (s *Server) relatedLocation(snap *snapshot, r syntax.Related) protocol.Location {
	if r.File == "" || r.File == snap.path {
		return protocol.Location{URI: snap.uri, Range: snap.rng(r.Span)}
	}
	loc := protocol.Location{URI: protocol.DocumentURI(uri.File(r.File))}
	if pkg, err := snap.loader.Load(r.File); err == nil && pkg.File.Source != nil && pkg.File.Source.CST != nil {
		rg := pkg.File.Source.CST.Lines.Range(r.Span, snap.enc)
		loc.Range = protocol.Range{
			Start: protocol.Position{Line: uint32(rg.Start.Line), Character: uint32(rg.Start.Character)},
			End:   protocol.Position{Line: uint32(rg.End.Line), Character: uint32(rg.End.Character)},
		}
	}
	return loc
}

// docURL is the documentation of a diagnostic code (codeDescription).
func docURL(code string) string {
	if u := codes.DocURL(code); u != "" {
		return u
	}
	return codes.DocsBase
}
