package lsp

// This file holds the open documents and their immutable snapshots.

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

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
	// engine, when not nil, is the engine's answer for a later version
	// than base's (check.Result.RecheckResult, or RecheckImports after an
	// import changed): the base of the next incremental check, which
	// needs no full check in between. Requests read base (view.go), never
	// engine; without a base, the view base (chainView) or the engine
	// base of deps (importView).
	engine *check.Result
	// clean, when not nil, is the base of the next incremental check of
	// a version without syntax errors while base is a full check of a
	// text with one and engine is nil: the last base or engine answer
	// whose text had none (taken by setBase when a syntax error made the
	// document check in full). A syntax error typed and then fixed is
	// then answered by the engine's fast path over the text before it,
	// not over the erroneous check (which would read the whole text and
	// compare every declaration's form alone, about 25 ms on 10,000
	// lines). It is dropped with the base, and whenever imports may
	// have changed.
	clean *check.Result
	// cleanFull is, likewise, the last full check of a text without
	// syntax errors while base is one of a text with one: the base of
	// the request views of versions without one (the view base they had
	// before the error), until the next full check.
	cleanFull *check.Result
	// fullCheck is the pending full check after incremental ones.
	fullCheck *time.Timer
	// cache is what requests remember about the document, shared with
	// its snapshots.
	cache *docCache
	// deps is what the check that set base read of other files (deps.go);
	// nil before the first full check.
	deps *importDeps
	// rechecking is the snapshot an importer job is checking again
	// (deps.go), nil when none: a job that replaces it checks it instead.
	rechecking *snapshot
	// awaiting counts the importer jobs that dropped its base and have
	// not taken it up yet (deps.go).
	awaiting int
	// reqSnap, when newer than snap, is a snapshot of snap's text made
	// when a module it imports changed (importersOf): requests read it,
	// answered from the engine with the imports as they are now
	// (importView), while snap's own check, which read the old imports,
	// still decides what is published.
	reqSnap *snapshot
	// lastDiags are the diagnostics published last.
	lastDiags []protocol.Diagnostic
	// views holds, while the document has no base because a module it
	// imports changed, its newest answer with the imports as they are
	// now that later views can be built over (viewBases); a new one is
	// made each time importersOf drops the base, so that an answer of
	// older imports lands in the one it was made for.
	views *viewBases
}

// docCache holds what requests remember about a document from one version
// to the next: the semantic tokens last sent (for deltas) and the last dry
// run of each machine (for inlay hints). The document and its snapshots
// share it, so that it goes with them when the document is closed.
type docCache struct {
	mu      sync.Mutex
	tokens  tokenResult
	dryRuns map[string]dryRun
	// base is what the views of the latest base share, units the units
	// of the last versions viewed (view.go).
	base  *baseInfo
	units []cstUnits
	// latest is the document's last full check prepared (prepareBase):
	// a background read of an older one that has not started yet
	// does nothing.
	latest *check.Result
	// baseUnits are the units of the last base whose units were cut.
	baseUnits cstUnits
}

// dropBases forgets the document's incremental bases: its full check,
// the engine's answer and the last base without syntax errors.
func (d *document) dropBases() { d.base, d.engine, d.clean, d.cleanFull = nil, nil, nil, nil }

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
		if d == except || !importsAnything(d.base) && !importsAnything(d.engine) && !importsOthers(d.deps) {
			continue
		}
		// (its full check or view base, checked again with the imports
		// as they are now, is the base of its views until its next
		// check: chainView)
		d.dropViews()
		d.dropBases()
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
	d, err := s.analysedLocked(u)
	if err != nil {
		return nil, err
	}
	return d.snap, nil
}

// analysedLocked returns the open document u, which has a snapshot (a
// document over the size limit has none: an error says so), with s.mu
// held.
func (s *Server) analysedLocked(u protocol.DocumentURI) (*document, error) {
	d, err := s.openDocument(u)
	if err != nil {
		return nil, err
	}
	if d.snap == nil {
		return nil, s.notAnalysed(d)
	}
	return d, nil
}

// requestSnapshotOf is snapshotOf for the requests answered from a view
// (completion, hover, signature help, definition: positional): the
// document's request snapshot when a module it imports changed since its
// current snapshot was made (document.reqSnap).
func (s *Server) requestSnapshotOf(u protocol.DocumentURI) (*snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.analysedLocked(u)
	if err != nil {
		return nil, err
	}
	if r := d.reqSnap; r != nil {
		if r.seq > d.snap.seq && r.cst == d.snap.cst {
			return r, nil
		}
		d.reqSnap = nil // (a later snapshot answers)
	}
	return d.snap, nil
}

// openDocument returns an open document, with s.mu held.
func (s *Server) openDocument(u protocol.DocumentURI) (*document, error) {
	d, ok := s.docs[u]
	if !ok {
		return nil, rpcError(errInvalidParams, "document not open: "+string(u))
	}
	return d, nil
}

// newSnapshot makes the document's current snapshot; s.mu must be held.
func (s *Server) newSnapshot(d *document, version int32) *snapshot {
	s.snapshots++
	sn := &snapshot{uri: d.uri, path: d.path, version: version, seq: s.snapshots, cst: d.doc.CST(), loader: s.loader, enc: s.enc, cache: d.cache, base: d.base}
	if d.cleanFull != nil && !sn.cst.HasError(0) {
		sn.base = d.cleanFull // (a syntax error fixed)
	}
	if d.base == nil {
		if b := d.deps.engineBase(); b != nil {
			if d.views == nil {
				d.views = &viewBases{}
			}
			sn.imp = &importBase{srv: s, base: b, deps: d.deps, views: d.views}
		}
	}
	return sn
}

// dropViews starts the document's view bases anew (a module it imports
// changed: its answers read the old imports), from its full check or
// its last view base: the first view after the change is built over that
// one checked again with the new imports (chainView).
func (d *document) dropViews() {
	var prev *check.Result
	switch {
	case d.base != nil && d.base.TreeCurrent() && !d.base.Partial() && d.base.Rechecks():
		prev = d.base
	case d.views != nil:
		if prev = d.views.get(); prev == nil {
			prev = d.views.prev
		}
	}
	d.views = &viewBases{prev: prev}
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

	// base is the document's base when the snapshot was made: the newest
	// full check of an earlier version, from which requests are answered
	// until the snapshot's own check is done (view.go); nil when there was
	// none.
	base *check.Result

	// checked is the parsed and checked package: read it only through
	// Package(), which computes it once (concurrent requests on one
	// snapshot share it); done is set once it is.
	once    sync.Once
	checked *load.Package
	done    atomic.Bool
	// imp, for a snapshot without a base because a module it imports
	// changed since its document's last check, answers requests from the
	// engine's last answer checked again with the imports as they are now
	// (importView); nil when there is none.
	imp *importBase
	// the views requests read (view.go)
	viewOnce sync.Once
	qv       atomic.Pointer[view]
	evOnce   sync.Once
	ev       *view
	idxOnce  sync.Once
	idx      *index
	exOnce   sync.Once
	ex       []examples.Outcome
	// src is the text read as a full check reads it (source), once
	srcOnce sync.Once
	src     *syntax.Source
	// file, when not nil, is the tree of an earlier snapshot of the same
	// text, which Package checks instead of reading the text again (a
	// document checked again because an import changed).
	file *ast.File
	// ans is the engine's answer for the snapshot, importable (answerOf),
	// once made over the document's base ansFrom
	ansMu   sync.Mutex
	ansFrom *check.Result
	ans     *check.Result
	// key is the interface key of the text (textKey), computed once
	keyOnce sync.Once
	key     uint64
	// verified is the snapshot's verification by Z3 (verify.go), started
	// on save or by the capsulang.verify command; nil until then.
	verified atomic.Pointer[verification]
}

// Examples evaluates the function examples of a snapshot that checks
// without errors (once); nil otherwise.
func (sn *snapshot) Examples() []examples.Outcome {
	sn.exOnce.Do(func() { sn.ex = diagnose.Examples(sn.Package().Result) })
	return sn.ex
}

// runsExamples reports whether the snapshot's examples are evaluated: the
// diagnostics pipeline decides (it checks without errors and has some).
func (sn *snapshot) runsExamples() bool { return diagnose.RunsExamples(sn.Package().Result) }

// Package parses and checks the snapshot (once).
func (sn *snapshot) Package() *load.Package {
	sn.once.Do(func() {
		f := sn.file
		if f == nil {
			f = ast.Build(sn.source())
		}
		sn.checked = sn.loader.CheckFileNoHash(sn.path, f)
		sn.done.Store(true)
	})
	return sn.checked
}

// source reads the snapshot's text as a full check reads it (once): the
// view of a text with a syntax error reads it too (view.go), and the full
// check that follows for its diagnostics reads it no second time.
func (sn *snapshot) source() *syntax.Source {
	sn.srcOnce.Do(func() { sn.src = syntax.Read(sn.cst) })
	return sn.src
}

// Index returns the snapshot's symbol index (built on first use: the
// diagnostics path does not need it).
func (sn *snapshot) Index() *index {
	pkg := sn.Package()
	sn.idxOnce.Do(func() { sn.idx = newIndex(pkg) })
	return sn.idx
}

// checkPath is the path the snapshot's checks give its own symbols
// (check.Symbol.File).
func (sn *snapshot) checkPath() string {
	if sn.base != nil {
		return sn.base.Path
	}
	if sn.imp != nil && sn.imp.base != nil {
		return sn.imp.base.Path // (the document's: the same path)
	}
	return sn.Package().Result.Path
}

// lines is the position mapper of the snapshot's text.
func (sn *snapshot) lines() *syntax.Mapper { return sn.cst.Lines }

// mapper is the snapshot's position mapper in the session's encoding.
func (sn *snapshot) mapper() mapper { return mapper{sn.cst.Lines, sn.enc} }

// offset converts a protocol position to a byte offset (mapper.Offset).
func (sn *snapshot) offset(p protocol.Position) (int, error) { return sn.mapper().Offset(p) }

// rng converts a byte span to a protocol range (mapper.Range).
func (sn *snapshot) rng(sp syntax.Span) protocol.Range { return sn.mapper().Range(sp) }

// commandSnapshot decodes a command's arguments into a and returns the
// current snapshot of the document they name (*uri, read after decoding:
// a field of a).
func (s *Server) commandSnapshot(raw json.RawMessage, a any, uri *protocol.DocumentURI) (*snapshot, error) {
	if err := decode(raw, a); err != nil {
		return nil, err
	}
	return s.snapshotOf(*uri)
}

// checkedWithoutErrors returns the snapshot's checked package, or the
// request failure a command that runs, compiles or renders the module
// answers when the file has errors ("the file has errors; fix them
// before " + doing).
func (sn *snapshot) checkedWithoutErrors(doing string) (*load.Package, error) {
	pkg := sn.Package()
	if pkg.Result.HasErrors() {
		return nil, rpcError(errRequestFailed, "the file has errors; fix them before "+doing)
	}
	return pkg, nil
}
