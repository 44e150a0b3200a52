package lsp

// This file publishes the results of a document's function examples from
// the engine's answers, without a full check: each open document keeps
// its examples' outcomes by function key (diagnose.ExampleCache), and an
// edit evaluates only the functions whose reach it changed. Right after
// the edit's first publish (the checker's diagnostics) a second one adds
// the outcomes known already; when those are all of them (the edit
// changed no example's reach) it is the version's final publish,
// otherwise the others are evaluated once the edits pause (exampleDelay),
// abandoned as soon as a newer version exists.

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/syntax"
)

// exampleDelay is how long the server waits, after publishing an engine
// answer whose examples must run again, before it evaluates them: a new
// edit within it makes the evaluation unnecessary.
const exampleDelay = fullCheckDelay

// Counters for tests and the debug request: engineExamples counts the
// examples' publishes made from an engine answer (inline: right after the
// checker's, every outcome reused), exampleFallbacks the times the
// examples of an engine answer could not be evaluated from it and a full
// check was run instead.
var engineExamples, inlineExamples, exampleFallbacks atomic.Int64

// exampleCaches holds each open document's example outcomes.
type exampleCaches struct {
	mu sync.Mutex
	m  map[protocol.DocumentURI]*diagnose.ExampleCache
}

// of returns the document's cache, made on first use.
func (c *exampleCaches) of(u protocol.DocumentURI) *diagnose.ExampleCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[protocol.DocumentURI]*diagnose.ExampleCache{}
	}
	ec := c.m[u]
	if ec == nil {
		ec = &diagnose.ExampleCache{}
		c.m[u] = ec
	}
	return ec
}

// exampleCache returns the example cache of snap's document, or one kept
// nowhere when the document is closed: a check or verification that ends
// after didClose dropped the cache must not bring it back.
func (s *Server) exampleCache(snap *snapshot) *diagnose.ExampleCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, open := s.docs[snap.uri]; !open {
		return &diagnose.ExampleCache{}
	}
	return s.exCaches.of(snap.uri)
}

// drop forgets a closed document's outcomes.
func (c *exampleCaches) drop(u protocol.DocumentURI) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, u)
}

// publishKnownExamples publishes, right after the checker's diagnostics
// of snap (res, the engine's answer), those with the results of the
// examples whose outcome is known already (nothing is evaluated; only if
// they differ from what was published): as the version's final
// diagnostics when those are all of them, else the others are evaluated
// once the edits pause (scheduleExamples). Computing the keys reads the
// engine's version of the answer, which the next edit's check reads too:
// it is done after the first publish, so that the checker's diagnostics
// never wait for it.
func (s *Server) publishKnownExamples(snap *snapshot, res *check.Result) {
	ds, complete, ok := s.exampleCache(snap).Known(res)
	if ok {
		if complete {
			inlineExamples.Add(1)
			engineExamples.Add(1)
		}
		s.publishChanged(snap, s.withExamples(snap, res, ds), complete)
	}
	if !ok || !complete {
		s.scheduleExamples(snap, res, s.publish)
	}
}

// withExamples returns the protocol diagnostics of snap checked as res
// with the examples' diagnostics exds (and the verification's).
func (s *Server) withExamples(snap *snapshot, res *check.Result, exds []syntax.Diagnostic) []protocol.Diagnostic {
	diags := append(append([]syntax.Diagnostic(nil), res.Diagnostics...), exds...)
	if vd := verificationDiagnostics(snap); len(vd) > 0 {
		diags = append(diags, vd...)
	}
	return s.toProtocol(snap, diags)
}

// scheduleExamples evaluates, exampleDelay from now, the examples of
// res, the engine's answer for snap (numbered seq), if snap is then still
// its document's current snapshot, and publishes the version's final
// diagnostics with them through publish. The evaluation stops as soon as
// snap is no longer current. When the examples cannot be evaluated from
// res, snap is checked in full (publishFull). A later call for the
// document replaces an earlier one.
func (s *Server) scheduleExamples(snap *snapshot, res *check.Result, publish func(*snapshot, []protocol.Diagnostic, bool) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[snap.uri]
	if !ok || d.snap != snap {
		return
	}
	if d.fullCheck != nil {
		d.fullCheck.Stop()
	}
	d.fullCheck = time.AfterFunc(exampleDelay, func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Printf("panic evaluating examples: %v\n%s", r, debug.Stack())
			}
		}()
		s.publishEngineExamples(snap, res, publish)
	})
}

// publishEngineExamples evaluates the examples of res, the engine's
// answer for snap, and publishes the version's final diagnostics with
// them (see scheduleExamples).
func (s *Server) publishEngineExamples(snap *snapshot, res *check.Result, publish func(*snapshot, []protocol.Diagnostic, bool) bool) {
	if !s.isCurrent(snap) {
		return
	}
	stale := func() bool { return !s.isCurrent(snap) }
	exds, _, ok := s.exampleCache(snap).Diagnostics(res, stale)
	if !ok {
		if stale() {
			return
		}
		exampleFallbacks.Add(1)
		s.log.Printf("the examples of %s could not be evaluated from the engine's answer: checking in full", snap.uri)
		s.publishFullWith(snap, publish)
		return
	}
	engineExamples.Add(1)
	publish(snap, s.withExamples(snap, res, exds), true)
}

// publishFullExamples publishes the final diagnostics of snap, checked in
// full, with its examples' results, evaluated through the document's
// cache (only the functions whose outcome it does not hold run), so that
// the engine's next answers reuse them. It reports false, publishing
// nothing, when the cache cannot evaluate them (the caller evaluates them
// all).
func (s *Server) publishFullExamples(snap *snapshot, publish func(*snapshot, []protocol.Diagnostic, bool) bool) bool {
	res := snap.Package().Result
	stale := func() bool { return !s.isCurrent(snap) }
	exds, _, ok := s.exampleCache(snap).Diagnostics(res, stale)
	if !ok {
		return stale() // (a newer version publishes)
	}
	publish(snap, s.withExamples(snap, res, exds), true)
	return true
}

// publishEngineAnswerExamples publishes the engine's answer for sn, a
// document checked again after an import changed, with its examples'
// results, as the version's final diagnostics (only when they changed).
// The examples are evaluated at once: importer jobs are debounced
// already, and a document whose examples are still to come would show
// its checker's diagnostics without their failures meanwhile. Only the
// functions whose reach changed run; the evaluation stops as soon as sn
// is no longer current.
func (s *Server) publishEngineAnswerExamples(sn *snapshot, res *check.Result) {
	s.publishEngineExamples(sn, res, s.publishChanged)
}

// publishChangedFull publishes, if they changed, the final diagnostics of
// sn checked in full, with its examples' results when they run
// (evaluated through the document's cache).
func (s *Server) publishChangedFull(sn *snapshot) {
	if sn.runsExamples() && s.publishFullExamples(sn, s.publishChanged) {
		return
	}
	s.publishChanged(sn, s.diagnostics(sn, sn.runsExamples()), true)
}

// examplesByEngine moves, from examples to recheck, the documents (of an
// importer job) whose examples must run again because they reach the
// changed file, and whose last answer the engine can start from (a
// text edited since included: check.Result.RecheckImportsAt): the
// engine's answer (check.Result.RecheckImports,
// which checks again only what read a changed interface, nothing here)
// holds the new imports, and the examples of only the functions that
// reach the changed file run again. exDeps are the documents'
// dependencies. It returns the lists and the set of documents moved.
func examplesByEngine(recheck, examples []*snapshot, deps map[*snapshot]*importDeps, engineBase map[*snapshot]*check.Result, exDeps map[*snapshot]*importDeps) ([]*snapshot, []*snapshot, map[*snapshot]bool) {
	moved := map[*snapshot]bool{}
	var rest []*snapshot
	for _, sn := range examples {
		d := exDeps[sn]
		if b := d.engineBase(); b != nil {
			recheck = append(recheck, sn)
			deps[sn], engineBase[sn] = d, b
			moved[sn] = true
			continue
		}
		rest = append(rest, sn)
	}
	return recheck, rest, moved
}
