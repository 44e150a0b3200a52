package lsp

// This file computes and publishes diagnostics: incrementally after an
// edit (each answer the base of the next, the examples' results from it:
// examples.go), and in full when the engine declines.

import (
	"bytes"
	"context"
	"reflect"
	"runtime/debug"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/codes"
	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax"
)

// fullCheckDelay is how long the server waits before a full check that
// is off the path to an edit's diagnostics (documents whose imports may
// resolve differently, importers other documents import), and before it
// evaluates the examples an edit changed (exampleDelay): a new edit
// within it makes the work unnecessary.
const fullCheckDelay = 120 * time.Millisecond

// quickChecks counts the diagnostics the server computed incrementally,
// for tests; chainedChecks those of them whose base
// was the engine's previous answer, cleanChecks those whose base was the
// last one before a syntax error (document.clean), and idleFullChecks
// the full checks run after an incremental answer (publishFull).
var quickChecks, chainedChecks, cleanChecks, idleFullChecks atomic.Int64

// baseKind says which of a document's bases currentBase returned.
type baseKind int

const (
	fromBase   baseKind = iota // its full check
	fromEngine                 // the engine's last answer
	fromClean                  // the last base before a syntax error
)

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
		snap, base, from := s.currentBase(u, seq)
		if snap == nil || base == nil && s.awaitsImporterJob(u) {
			return // (an importer job answers it: deps.go)
		}
		// Phase 1: parse and check diagnostics, as soon as they exist:
		// re-checking only what changed since the base when that is sound,
		// checking in full otherwise.
		quick := false
		var diags []syntax.Diagnostic
		var res *check.Result
		own := false // (base is a check of snap's text)
		if base != nil {
			if own = base.TreeCurrent() && base.File != nil && base.File.Source != nil && base.File.Source.CST != nil && bytes.Equal(base.File.Source.CST.Src, snap.cst.Src); own {
				// A snapshot of the base's own text (an importer job
				// that kept the document's view of an import schedules
				// its check): the base answers it. A Recheck would give
				// the same diagnostics as a chained answer, which the
				// next job cannot narrow its importers by
				// (check.Result.SameImportReads reads no chained answer):
				// an importer of a module edited next was then checked
				// again although it read no member that changed.
				res, quick = base, true
			} else {
				res, quick = s.recheck(base, snap)
			}
		}
		// examples: the full check's examples are evaluated next;
		// engineExamples: the engine answer's are
		var examples, fromAnswer bool
		if quick {
			quickChecks.Add(1)
			switch from {
			case fromEngine:
				chainedChecks.Add(1)
			case fromClean:
				cleanChecks.Add(1)
			}
			diags = res.Diagnostics
			// the answer is the next edit's base: no full check is needed
			// to refresh it
			if !own {
				s.setEngineBase(snap, base, res)
			}
			fromAnswer = res.MayRunExamples()
		} else {
			diags = snap.Package().Result.Diagnostics
			s.setBase(snap)
			examples = snap.runsExamples()
		}
		// A check (full or incremental) of a file whose examples do not
		// run has the last word: its publish is the version's final one.
		if !s.publish(snap, s.toProtocol(snap, diags), !examples && !fromAnswer) && !s.awaitsFinal(snap) {
			return
		}
		// Phase 2: the examples' results when the file checks cleanly and
		// has examples (a later publish of the same version replaces the
		// earlier one). After an incremental phase 1, from the engine's
		// answer (examples.go): at once, those whose outcome is known (all
		// of them when the edit changed no example's reach: that publish
		// is the version's final one), the others once the edits pause.
		if fromAnswer {
			s.publishKnownExamples(snap, res)
			return
		}
		if !quick {
			s.publishExamples(snap)
		}
	}()
}

// current returns the document's snapshot and incremental base (the
// engine's last answer, else the last full check) if the snapshot is
// still the one numbered seq, else nil.
func (s *Server) current(u protocol.DocumentURI, seq uint64) (*snapshot, *check.Result) {
	snap, base, _ := s.currentBase(u, seq)
	return snap, base
}

// currentBase is current, also reporting which base it is.
func (s *Server) currentBase(u protocol.DocumentURI, seq uint64) (*snapshot, *check.Result, baseKind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[u]; ok && d.snap != nil && d.snap.seq == seq {
		if d.engine != nil {
			return d.snap, d.engine, fromEngine
		}
		if d.clean != nil && !d.snap.cst.HasError(0) {
			// a syntax error fixed: the text before it is the base
			return d.snap, d.clean, fromClean
		}
		return d.snap, d.base, fromBase
	}
	return nil, nil, fromBase
}

// setEngineBase makes res, the engine's answer for snap over base, the
// base of the document's next incremental check, if snap is still its
// current snapshot and base still its base (an import that changed
// meanwhile dropped it: res, which read the old one, must not return).
func (s *Server) setEngineBase(snap *snapshot, base, res *check.Result) {
	if !res.Rechecks() {
		return // (a file without a module) the base stays
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[snap.uri]
	if !ok || d.snap != snap {
		return
	}
	if cur := d.engine; cur == base || cur == nil && (d.base == base || d.clean == base) {
		// (deps are base's, or d.base's when base is the base before a
		// syntax error)
		depsOf := base
		if base == d.clean {
			depsOf = d.base
		}
		d.engine, d.clean = res, nil
		if load.SameImportFiles(depsOf, res) {
			d.deps = d.deps.withBase(res) // and of the next import change's
		} else {
			d.deps = d.deps.withImports(s.keys.seenOf(res), len(res.Examples) > 0)
		}
		s.answers.put(d.path, res) // and of checks importing it
	}
}

// scheduleFullCheckLocked checks the document in full fullCheckDelay
// from now, if its snapshot is then still the one numbered seq, and
// publishes the result as the version's final diagnostics (see
// publishFull); s.mu is held. A later call for the document replaces an
// earlier one; a call for a snapshot that is no longer current does
// nothing. Only the document's name and the snapshot's number wait, not
// the snapshot, so that a burst of edits keeps no old versions alive.
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
func (s *Server) publishFull(snap *snapshot) { s.publishFullWith(snap, s.publish) }

// publishFullWith is publishFull publishing through publish (an importer
// job's snapshot keeps its version, already published: it publishes
// through publishChanged).
func (s *Server) publishFullWith(snap *snapshot, publish func(*snapshot, []protocol.Diagnostic, bool) bool) {
	idleFullChecks.Add(1)
	s.setBase(snap)
	if snap.runsExamples() && s.publishFullExamples(snap, publish) {
		return
	}
	publish(snap, s.diagnostics(snap, snap.runsExamples()), true)
}

// publishExamples publishes the snapshot's diagnostics with its examples'
// results when it checks cleanly and has examples.
func (s *Server) publishExamples(snap *snapshot) {
	if !snap.runsExamples() || !s.isCurrent(snap) {
		return
	}
	if s.publishFullExamples(snap, s.publish) {
		return
	}
	s.publish(snap, s.diagnostics(snap, true), true)
}

// recheck re-checks snap incrementally against base; a panic in it is
// logged and answered by the full check instead. An import base's check
// did not resolve is resolved by the loader (load.Loader.RecheckResult).
func (s *Server) recheck(base *check.Result, snap *snapshot) (res *check.Result, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic in an incremental check of %s (checking in full): %v\n%s", snap.uri, r, debug.Stack())
			res, ok = nil, false
		}
	}()
	return s.loader.RecheckResult(snap.path, base, snap.cst)
}

// setBase makes the snapshot's full check the base of later incremental
// checks, if the snapshot is still its document's current one.
func (s *Server) setBase(snap *snapshot) {
	res := snap.Package().Result
	if !s.isCurrent(snap) {
		return
	}
	s.loader.Offer(snap.Package())
	deps := s.keys.depsOf(res)
	stale := s.staleImports(deps)
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[snap.uri]
	if !ok || d.snap != snap {
		return
	}
	if stale {
		// An open document it imports changed while it was checked, and
		// the job that followed that change could not know it imports
		// it: it is checked again (its diagnostics are not published).
		d.snap = s.newSnapshot(d, d.snap.version)
		d.published, d.publishedFinal = d.snap.version-1, false
		s.scheduleDiagnostics(d)
		return
	}
	// A check of a text with a syntax error keeps, as clean, the base the
	// next version without one is answered from: the last base or engine
	// answer whose text had none.
	// (cleanFull likewise, the last full check whose text had none: the
	// base of the views of such a version)
	clean, cleanFull := d.clean, d.cleanFull
	if !snap.cst.HasError(0) {
		clean, cleanFull = nil, nil
	} else {
		prev := d.engine
		if prev == nil {
			prev = d.base
		}
		if clean == nil && withoutSyntaxErrors(prev) {
			clean = prev
		}
		if cleanFull == nil && withoutSyntaxErrors(d.base) {
			cleanFull = d.base
		}
		// Only while this check imports the same files: its deps decide
		// when a change of an imported module drops the document's
		// bases, and one it no longer imports (an import deleted while
		// the error stands) would not drop these, which would then
		// answer that module as it was.
		if clean != nil && !load.SameImportFiles(clean, res) {
			clean = nil
		}
		if cleanFull != nil && !load.SameImportFiles(cleanFull, res) {
			cleanFull = nil
		}
	}
	d.base, d.deps, d.engine, d.clean, d.cleanFull = res, deps, nil, clean, cleanFull
	d.views = nil // (views are built over base again: dropViews starts from it)
	s.answers.put(d.path, res)
	d.cache.prepareBase(res) // (in the background)
}

// withoutSyntaxErrors reports whether r is a base for the engine (it kept
// its checker state) of a text without syntax errors.
func withoutSyntaxErrors(r *check.Result) bool {
	return r != nil && r.Rechecks() && r.File != nil && r.File.Source != nil && r.File.Source.CST != nil && !r.File.Source.CST.HasError(0)
}

// staleImports reports whether a check read, for an open document in its
// import closure, another text than the document's current one (by
// interface key).
func (s *Server) staleImports(deps *importDeps) bool {
	if len(deps.seen) == 0 {
		return false
	}
	var open []*snapshot
	s.mu.Lock()
	for _, d := range s.docs {
		if d.snap != nil {
			if _, ok := deps.seen[d.path]; ok {
				open = append(open, d.snap)
			}
		}
	}
	s.mu.Unlock()
	for _, sn := range open {
		if sn.textKey() != deps.seen[sn.path] {
			return true
		}
	}
	return false
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
	cur.published, cur.publishedFinal, cur.lastDiags = snap.version, final, diags
	s.conn.Notify(context.Background(), "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{
		URI: snap.uri, Version: uint32(snap.version), Diagnostics: diags,
	})
	return true
}

// awaitsFinal reports whether snap is its document's current snapshot and
// its version's final diagnostics are still to be published. A check's
// publish is skipped when the version's diagnostics were published
// already (an importer job gave the document a new snapshot of the same
// text after its first check published): its examples must still run and
// publish the final ones.
func (s *Server) awaitsFinal(snap *snapshot) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.docs[snap.uri]
	return ok && cur.snap == snap && cur.published <= snap.version && !(cur.published == snap.version && cur.publishedFinal)
}

// publishChanged publishes a snapshot's diagnostics, if it is still its
// document's current one, unless they are those published last for its
// version: a document checked again because a module it imports changed
// republishes only what changed. It reports whether it published.
func (s *Server) publishChanged(snap *snapshot, diags []protocol.Diagnostic, final bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.docs[snap.uri]
	if !ok || cur.snap != snap || cur.published > snap.version {
		return false
	}
	if cur.published == snap.version && sameDiagnostics(cur.lastDiags, diags) {
		cur.publishedFinal = cur.publishedFinal || final
		return false
	}
	cur.published, cur.publishedFinal, cur.lastDiags = snap.version, final, diags
	s.conn.Notify(context.Background(), "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{
		URI: snap.uri, Version: uint32(snap.version), Diagnostics: diags,
	})
	return true
}

// sameDiagnostics reports whether two published lists are the same.
func sameDiagnostics(a, b []protocol.Diagnostic) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
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
	var outcomes []examples.Outcome
	if withExamples {
		outcomes = snap.Examples()
	}
	diags := diagnose.Merge(snap.Package().Result, outcomes)
	if vd := verificationDiagnostics(snap); len(vd) > 0 {
		diags = append(append([]syntax.Diagnostic(nil), diags...), vd...)
	}
	return s.toProtocol(snap, diags)
}

// toProtocol converts diagnostics of a snapshot to the protocol.
func (s *Server) toProtocol(snap *snapshot, diags []syntax.Diagnostic) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(diags))
	for _, d := range diagnose.Sorted(diags) {
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
	return out
}

// relatedLocation is where a related location of a snapshot's diagnostic
// is: in the snapshot's file, or in another one (the other half of an
// import cycle), whose lines the loader has.
func (s *Server) relatedLocation(snap *snapshot, r syntax.Related) protocol.Location {
	if r.File == "" || r.File == snap.path {
		return protocol.Location{URI: snap.uri, Range: snap.rng(r.Span)}
	}
	if m, ok := fileMapper(snap.loader, r.File, snap.enc); ok {
		return m.Location(protocol.DocumentURI(uri.File(r.File)), r.Span)
	}
	return protocol.Location{URI: protocol.DocumentURI(uri.File(r.File))}
}

// docURL is the documentation of a diagnostic code (codeDescription).
func docURL(code string) string {
	if u := codes.DocURL(code); u != "" {
		return u
	}
	return codes.DocsBase
}
