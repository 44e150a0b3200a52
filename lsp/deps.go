package lsp

// This file is the cross-file part of the incremental engine: what an
// open document's check read of the modules it imports, and, when an open
// module changes, which of the documents importing it must be checked
// again (see docs/lsp.md, "Across files").

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"maps"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// answerBoard holds, by absolute path, each open document's last result
// (a full check's, or the engine's answer to an edit or to an import
// change), for the import cache (load.Loader.Answer): a check that
// imports the document reads that result, made importable, instead of
// checking the document's text in full, when it is of that text and its
// imports are still the cache's (the loader decides). It has a lock of
// its own: the loader asks with its lock held, and the server calls the
// loader with s.mu held.
type answerBoard struct {
	mu sync.Mutex
	m  map[string]*boardEntry
}

// boardEntry is a document's last result and, made once on demand, that
// result made importable (check.Result.Importable: a fast Recheck's
// answer has its text read again and its module pass run), shared by
// the import cache and the importer jobs (answerOf, openAnswers). Only
// the last result's is kept.
type boardEntry struct {
	res  *check.Result
	once sync.Once
	imp  *check.Result
}

// importable returns the entry's result made importable, or nil.
func (e *boardEntry) importable() *check.Result {
	e.once.Do(func() {
		defer func() {
			if recover() != nil {
				e.imp = nil // (a full check answers instead)
			}
		}()
		if r, ok := e.res.Importable(); ok {
			e.imp = r
		}
	})
	return e.imp
}

// put makes res the last result of the document at path.
func (b *answerBoard) put(path string, res *check.Result) {
	if res == nil || res.File == nil || res.File.Module == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]*boardEntry{}
	}
	b.m[absPath(path)] = &boardEntry{res: res}
}

// importableOf returns res, a result of the document at path, made
// importable: the board's, made once, when res is the document's last.
func (b *answerBoard) importableOf(path string, res *check.Result) (*check.Result, bool) {
	b.mu.Lock()
	e := b.m[absPath(path)]
	b.mu.Unlock()
	if e != nil && e.res == res {
		r := e.importable()
		return r, r != nil
	}
	return res.Importable()
}

// drop forgets the document at path (closed).
func (b *answerBoard) drop(path string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, absPath(path))
}

// get returns the last result of the document at abs made importable,
// or nil (load.Loader.Answer).
func (b *answerBoard) get(abs string) *check.Result {
	b.mu.Lock()
	e := b.m[abs]
	b.mu.Unlock()
	if e == nil {
		return nil
	}
	return e.importable()
}

// importDeps is what a document's check depended on in other files.
type importDeps struct {
	// seen holds, for every module in the check's import closure (its
	// imports, theirs, and so on), by absolute path, the interface key
	// (moduleKey) of the text the check read.
	seen map[string]uint64
	// failed is set when an import in the closure did not resolve (or
	// was refused): a change of any file may resolve it.
	failed bool
	// reach holds the files whose functions the document's examples can
	// call, directly or through other functions: their bodies decide the
	// examples' outcomes though importers' checks never read them.
	reach map[string]bool
	// base is the check these dependencies were read from (a full check,
	// or an engine's answer after an import changed): the base of
	// check.Result.RecheckImports when an import changes next, kept while
	// the document's own base is dropped (it answers imports as they
	// were).
	base *check.Result
}

// importsOthers reports whether a check with these dependencies read
// another file or tried to (a document kept after an import changed has
// its dependencies but no base).
func importsOthers(d *importDeps) bool {
	return d != nil && (len(d.seen) > 0 || d.failed)
}

// keySeed seeds the interface keys; keys are compared only within one
// server process.
var keySeed = maphash.MakeSeed()

// moduleKey hashes what a module's importers' checks can read of it: every
// top-level form except the body, examples and contracts of its
// functions (an importer's check reads a function's name, inputs, output
// and effects, never how it computes), as forms (syntax.HashForms: each
// atom's kind and source text, each list's structure), so that neither
// positions nor layout count, and the read diagnostics' codes (a list
// left open at the end of the text reads as the same forms as a closed
// one, and makes the module one with errors). Moving a declaration,
// editing a body above it, reformatting a signature or commenting inside
// it keeps the key. Two texts with the same key give every importer the
// same diagnostics, provided the modules they import in turn have the
// same keys too. src's forms must be at its text's offsets (a full
// check's tree, or a fresh read); a tree that does not fit its text gets
// a key no other text has.
func moduleKey(src *syntax.Source) (key uint64) {
	if src == nil || src.CST == nil {
		return uniqueKey()
	}
	text := src.CST.Src
	defer func() {
		if recover() != nil {
			key = uniqueKey() // (a span outside the text: not its tree)
		}
	}()
	var h maphash.Hash
	h.SetSeed(keySeed)
	one := make([]*syntax.Form, 1)
	write := func(f *syntax.Form) {
		h.WriteByte(0)
		one[0] = f
		syntax.HashForms(&h, text, 0, one, nil)
	}
	for _, f := range src.Forms {
		if f.Head() != "module" {
			write(f)
			continue
		}
		h.WriteString("(module")
		for _, it := range f.Items() {
			if it.Head() != "function" {
				write(it)
				continue
			}
			h.WriteString("(function")
			for _, part := range it.Items() {
				switch part.Head() {
				case "body", "example", "requires", "ensures":
					continue
				}
				write(part)
			}
		}
	}
	h.WriteByte(1)
	for _, d := range src.Diagnostics {
		h.WriteString(d.Code)
		h.WriteByte(0)
	}
	if src.TooDeep {
		h.WriteByte(2)
	}
	return h.Sum64()
}

// uniqueKeys counts the keys uniqueKey made.
var uniqueKeys atomic.Uint64

// uniqueKey returns an interface key no text has: every importer's check
// reads it as changed.
func uniqueKey() uint64 {
	var h maphash.Hash
	h.SetSeed(keySeed)
	h.WriteString("unique")
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uniqueKeys.Add(1))
	h.Write(n[:])
	return h.Sum64()
}

// keyCache remembers the key of each imported module the server has seen
// (by its tree: the loader shares one tree among all its importers), so
// that the documents importing one module hash it once. It is dropped
// when it grows past keyCacheSize (old trees are not kept alive).
type keyCache struct {
	mu   sync.Mutex
	keys map[*ast.Module]uint64
}

const keyCacheSize = 4096

func (kc *keyCache) key(m *ast.Module, src *syntax.Source) uint64 {
	kc.mu.Lock()
	k, ok := kc.keys[m]
	kc.mu.Unlock()
	if ok {
		return k
	}
	k = moduleKey(src)
	kc.mu.Lock()
	if kc.keys == nil || len(kc.keys) >= keyCacheSize {
		kc.keys = map[*ast.Module]uint64{}
	}
	kc.keys[m] = k
	kc.mu.Unlock()
	return k
}

// depsOf computes what a document's check read of other files.
func (kc *keyCache) depsOf(res *check.Result) *importDeps {
	d := kc.seenOf(res)
	if len(res.Examples) > 0 && len(d.seen) > 0 {
		d.reach = exampleReach(res)
	}
	return d
}

// seenOf is depsOf without the files the examples can call (reach).
func (kc *keyCache) seenOf(res *check.Result) *importDeps {
	d := &importDeps{seen: map[string]uint64{}, base: res}
	var walk func(r *check.Result)
	walk = func(r *check.Result) {
		if r == nil || r.File == nil {
			return
		}
		if r.File.Module != nil && len(r.Imports) != len(r.File.Module.Imports) {
			d.failed = true
		}
		for _, im := range r.Imports {
			if im.Imported == nil || im.Result == nil || im.Result.File == nil || im.Result.File.Source == nil {
				d.failed = true
				continue
			}
			if _, ok := d.seen[im.File]; ok {
				continue
			}
			d.seen[im.File] = kc.key(im.Module, im.Result.File.Source)
			walk(im.Result)
		}
	}
	walk(res)
	return d
}

// exampleReach returns the other files whose functions the examples of
// res can call: the functions with examples, then every function their
// forms refer to, in this file or in an imported one, transitively.
func exampleReach(res *check.Result) map[string]bool {
	// the results by file, and each file's references by the top-level
	// declaration they lie in
	results := map[string]*check.Result{}
	var collect func(r *check.Result)
	collect = func(r *check.Result) {
		if r == nil || results[r.Path] != nil {
			return
		}
		results[r.Path] = r
		for _, im := range r.Imports {
			if im.Imported != nil {
				collect(im.Result)
			}
		}
	}
	collect(res)
	type fn struct {
		file string
		decl ast.Decl
	}
	refsIn := map[string]map[ast.Decl][]*check.Symbol{}
	byDecl := func(file string) map[ast.Decl][]*check.Symbol {
		if m, ok := refsIn[file]; ok {
			return m
		}
		r := results[file]
		m := map[ast.Decl][]*check.Symbol{}
		refsIn[file] = m
		if r == nil || r.File == nil || r.File.Module == nil {
			return m
		}
		decls := r.File.Module.Decls
		for _, ref := range r.Refs {
			if ref.Sym == nil || ref.Sym.Kind != check.SymbolKind(ast.KindFunction) {
				continue
			}
			if i := declAt(decls, ref.Span); i >= 0 {
				m[decls[i]] = append(m[decls[i]], ref.Sym)
			}
		}
		return m
	}
	out := map[string]bool{}
	seen := map[fn]bool{}
	var stack []fn
	for _, ex := range res.Examples {
		f := fn{res.Path, ex.Function}
		if !seen[f] {
			seen[f] = true
			stack = append(stack, f)
		}
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range byDecl(f.file)[f.decl] {
			if s.Decl == nil {
				continue
			}
			g := fn{s.File, s.Decl}
			if seen[g] {
				continue
			}
			seen[g] = true
			if s.File != res.Path {
				out[s.File] = true
				if r := results[s.File]; r.Partial() {
					// a partial result (the import cache's) lacks the
					// references of bodies it reused: every file its
					// functions may call counts
					closure(r, out, map[*check.Result]bool{})
					continue
				}
			}
			stack = append(stack, g)
		}
	}
	return out
}

// closure adds to out the files r imports, directly or not.
func closure(r *check.Result, out map[string]bool, seen map[*check.Result]bool) {
	for _, im := range r.Imports {
		if im.Imported != nil && im.Result != nil && !seen[im.Result] {
			seen[im.Result] = true
			out[im.File] = true
			closure(im.Result, out, seen)
		}
	}
}

// declAt returns the index of the declaration whose form holds sp, or -1
// (declarations are in source order).
func declAt(decls []ast.Decl, sp syntax.Span) int {
	lo, hi := 0, len(decls)
	for lo < hi {
		mid := (lo + hi) / 2
		if decls[mid].Base().Form.Span().End < sp.End {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(decls) {
		if w := decls[lo].Base().Form.Span(); w.Start <= sp.Start && sp.End <= w.End {
			return lo
		}
	}
	return -1
}

// textKey is the interface key of the snapshot's text (moduleKey),
// computed once.
func (sn *snapshot) textKey() uint64 {
	sn.keyOnce.Do(func() {
		if sn.done.Load() {
			sn.key = moduleKey(sn.checked.File.Source)
		} else {
			sn.key = moduleKey(sn.source()) // (its full check reads it no second time)
		}
	})
	return sn.key
}

// importersOf is called, with s.mu held, when the text of the open
// document x changed: the other open documents that may have read x
// through their imports lose their incremental base (it answers imports
// as they were), and a job decides, once x's new text is read, which of
// them to check again (importersJob).
func (s *Server) importersOf(x *document) {
	var cands []protocol.DocumentURI
	for u, d := range s.docs {
		if d == x || d.snap == nil {
			continue
		}
		if d.deps == nil && !importsAnything(d.base) && !importsAnything(d.engine) {
			continue
		}
		if d.deps != nil && !d.deps.failed {
			if _, ok := d.deps.seen[x.path]; !ok {
				continue
			}
		}
		d.dropViews()
		d.dropBases()
		cands = append(cands, u)
	}
	if len(cands) == 0 {
		return
	}
	if x.snap != nil {
		// requests read x's new text at once (document.reqSnap)
		for _, u := range cands {
			d := s.docs[u]
			if d.doc == nil || d.doc.CST() != d.snap.cst {
				continue
			}
			// (without an engine answer to start from, its requests check
			// it in full: its current snapshot read the old imports)
			d.reqSnap = s.newSnapshot(d, d.snap.version)
		}
	}
	if x.snap == nil {
		// x is over the size limit: it cannot be imported now, and its
		// importers are checked again in full (no job follows: they await
		// none)
		for _, u := range cands {
			d := s.docs[u]
			d.snap = s.newSnapshot(d, d.snap.version)
			d.published, d.publishedFinal = d.snap.version-1, false
			s.scheduleFullCheckLocked(d, d.snap.seq)
		}
		return
	}
	for _, u := range cands {
		s.docs[u].awaiting++
	}
	u, seq, text := x.uri, x.snap.seq, x.snap.cst
	s.importJobs.Add(1)
	go func() {
		defer s.importJobs.Add(-1)
		var released atomic.Bool
		defer func() {
			if r := recover(); r != nil {
				s.log.Printf("panic checking the importers of %s: %v\n%s", u, r, debug.Stack())
				if !released.Load() {
					// the candidates await this job no more: their own
					// checks answer them
					s.releaseAwaiting(cands, true)
				}
			}
		}()
		if s.opts.Debounce > 0 {
			time.Sleep(s.opts.Debounce)
		}
		s.importersJob(u, seq, text, cands, &released)
	}()
}

// releaseAwaiting takes back, for each of cands, the count of the
// importer job (importersOf) that no longer answers them; with schedule,
// each is checked by its own diagnostics run again.
func (s *Server) releaseAwaiting(cands []protocol.DocumentURI, schedule bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range cands {
		if d, ok := s.docs[u]; ok && d.awaiting > 0 {
			d.awaiting--
			if schedule && d.snap != nil {
				s.scheduleDiagnostics(d)
			}
		}
	}
}

// importersJob checks again the candidates (see importersOf) whose view of
// the changed document x may differ, and publishes what changed:
//
//   - a document that read another interface key for x (or whose imports
//     did not all resolve, or that was never checked in full) is checked
//     again, in import order (a document before those importing it, so
//     that the loader answers their imports with its new check instead of
//     checking it twice), as many at a time as there are cores, and its
//     diagnostics are published if they differ from the last ones;
//   - a document whose examples can call x's functions has its examples
//     evaluated again, and published if their outcome differs;
//   - any other document read the same interface: its diagnostics stand,
//     and nothing is published. It gets a new snapshot of its unchanged
//     text (a request checks it again, reading x's new declarations).
func (s *Server) importersJob(xu protocol.DocumentURI, seq uint64, text *syntax.CST, cands []protocol.DocumentURI, released *atomic.Bool) {
	xs := s.sameText(xu, seq, text)
	if xs == nil {
		released.Store(true)
		s.releaseAwaiting(cands, false)
		return // x changed again: its next job decides
	}
	key := xs.textKey()
	// x's new text as its importers' checks would read it, for the
	// importers whose interface key for x changed but that read none of
	// the members whose interface changed (readsSame); made before s.mu is
	// taken (answerOf takes it)
	var xr *check.Result
	s.mu.Lock()
	mayNarrow := false
	for _, u := range cands {
		if d, ok := s.docs[u]; ok && d.deps != nil && !d.deps.failed {
			if k, seen := d.deps.seen[xs.path]; seen && k != key {
				mayNarrow = true
				break
			}
		}
	}
	s.mu.Unlock()
	if mayNarrow {
		xr = s.answerOf(xs)
	}
	var recheck, examples []*snapshot
	deps := map[*snapshot]*importDeps{}
	// the documents the engine may answer: those whose last check (its
	// base) read the text they still have
	engineBase := map[*snapshot]*check.Result{}
	exDeps := map[*snapshot]*importDeps{}
	s.mu.Lock()
	for _, u := range cands {
		d, ok := s.docs[u]
		if ok && d.awaiting > 0 {
			d.awaiting--
		}
		if !ok || d.snap == nil {
			continue
		}
		k, seen := uint64(0), false
		if d.deps != nil {
			k, seen = d.deps.seen[xs.path]
		}
		old := d.snap
		d.snap = s.newSnapshot(d, d.snap.version)
		if old.cst == d.snap.cst && old.done.Load() {
			d.snap.file = old.checked.File // the same text: the same tree
		} else if b := d.deps.engineBase(); b != nil && b.TreeCurrent() && bytes.Equal(b.File.Source.CST.Src, d.snap.cst.Src) {
			d.snap.file = b.File
		}
		// another job checking the document again (its snapshot, now
		// replaced, will not publish): this one does
		inFlight := d.rechecking == old
		d.rechecking = nil
		narrowed := false
		if narrowImporters && seen && k != key && !inFlight && d.deps != nil && !d.deps.failed && d.published == d.snap.version {
			narrowed = readsSame(d.deps, xs, d.snap, xr)
		}
		switch {
		case d.deps == nil || d.deps.failed || seen && k != key && !narrowed || inFlight:
			recheck = append(recheck, d.snap)
			d.rechecking = d.snap
			d.dropViews()
			d.dropBases() // (another job may have kept one)
			deps[d.snap] = d.deps
			if b := d.deps.engineBase(); b != nil {
				engineBase[d.snap] = b
			}
		case d.published != d.snap.version && d.deps.engineBase() != nil:
			// its own check was still to come, and importersOf dropped
			// its base: the engine answers its new text with the imports
			// as they are now (another job may be following another
			// import's change, which its last answer did not see)
			recheck = append(recheck, d.snap)
			deps[d.snap] = d.deps
			engineBase[d.snap] = d.deps.engineBase()
			d.rechecking = d.snap
		case seen && d.deps.reach[xs.path] && d.publishedFinal:
			examples = append(examples, d.snap)
			exDeps[d.snap] = d.deps
			// (a later job replacing this snapshot re-runs them: its
			// publish will not happen)
			d.rechecking = d.snap
		default:
			// its view of x did not change: its last answer stays the
			// base of its next check (a job following another import's
			// change that it did not see yet drops it again). Not when
			// only the members it read kept their interface (narrowed):
			// an edit's Recheck over that answer replays x's old text,
			// and the edit may read another member of x; its next check
			// is a full one (its deps' base still answers the next
			// change of an import, read against the imports as they are)
			if narrowed {
				importStats.narrowed.Add(1)
			}
			if b := d.deps.engineBase(); b != nil && !narrowed && d.base == nil && d.engine == nil && bytes.Equal(b.File.Source.CST.Src, d.snap.cst.Src) {
				d.engine = b
			}
			if d.published != d.snap.version || !d.publishedFinal {
				s.scheduleDiagnostics(d) // its own check was still to come
			}
		}
	}
	released.Store(true) // (every candidate's count was taken back above)
	s.mu.Unlock()
	if hook := importersHook.Load(); hook != nil {
		(*hook)(recheck, examples)
	}
	importStats.rechecked.Add(int64(len(recheck)))
	importStats.examples.Add(int64(len(examples)))
	importStats.kept.Add(int64(len(cands) - len(recheck) - len(examples)))
	// the documents whose examples must run again are answered by the
	// engine too, when it can (examples.go): their diagnostics stand, and
	// only the functions whose examples reach x run again
	recheck, examples, viaEngine := examplesByEngine(recheck, examples, deps, engineBase, exDeps)
	// check in import order, a level at a time; a document the next
	// levels import is hashed here, in parallel, and answers their imports
	imported := map[string]bool{}
	for _, d := range deps {
		if d != nil {
			for p := range d.seen {
				imported[p] = true
			}
		}
	}
	//
	// A document whose text is its last check's is checked by the engine
	// first (check.Result.RecheckImports: only the declarations that read
	// a changed member of an import are checked again); its answer
	// answers the imports of the next levels' engine checks (answers) and
	// is the base of the document's next incremental check, and no full
	// check follows; its examples' results come from the answer
	// (examples.go). When the
	// engine declines, the document is checked in full, and offered to the
	// loader when other documents import it.
	var mu sync.Mutex
	answers := s.openAnswers(xs, recheck, deps)
	if len(recheck) > 0 {
		if xr := s.answerOf(xs); xr != nil {
			answers[absPath(xs.path)] = xr
			s.loader.HashAnswer(xs.path, xr) // (outside the loader's lock)
		}
	}
	engine := map[*snapshot]*check.Result{}
	for _, level := range importLevels(recheck, deps) {
		// (closed once for the level: every check of it reads them)
		mu.Lock()
		known := s.loader.CloseAnswers(answers)
		mu.Unlock()
		s.parallel(level, func(sn *snapshot) {
			defer s.doneRechecking(sn)
			if b := engineBase[sn]; b != nil {
				if pkg, ok := s.recheckImports(sn, b, known); ok {
					res := pkg.Result
					if b.TreeCurrent() || sn.file != nil {
						sn.offerImportAnswer(pkg) // (its trees at the text's offsets)
					}
					if viaEngine[sn] {
						importStats.exampleEngine.Add(1)
					} else {
						importStats.engine.Add(1)
					}
					if imported[sn.path] {
						if res.Complete() {
							// the next levels, and later checks of the
							// documents importing it, read it from the cache
							s.loader.OfferHashed(pkg)
						} else {
							// the next levels read it from answers: its
							// hash is made here, in parallel
							s.loader.HashAnswer(sn.path, res)
						}
					}
					mu.Lock()
					answers[absPath(sn.path)] = res
					engine[sn] = res
					mu.Unlock()
					s.engineAnswered(sn, res, deps[sn])
					return
				}
			}
			importStats.full.Add(1)
			pkg := sn.Package()
			if imported[sn.path] {
				s.loader.OfferHashed(pkg)
			}
			s.setBase(sn)
			s.publishChanged(sn, s.toProtocol(sn, pkg.Result.Diagnostics), false)
		})
	}
	// then the examples, of the documents checked again in full and of
	// those whose examples call x
	checked := map[*snapshot]bool{}
	var full []*snapshot
	for _, sn := range recheck {
		checked[sn] = true
		if engine[sn] == nil {
			full = append(full, sn)
		}
	}
	s.parallel(append(full, examples...), func(sn *snapshot) {
		defer s.doneRechecking(sn)
		if !checked[sn] {
			s.setBase(sn)
		}
		s.publishChangedFull(sn)
	})
}

// openAnswers returns, by absolute path, the last answers of the open
// documents that the documents to check again (recheck) import and that
// are not checked again here (nor x, whose new text the loader checks):
// so that the loader answers their imports without checking them. A
// document qualifies when the loader holds no package for it and its
// last answer (a full check or the engine's) is of its current text; a
// fast Recheck's answer is made importable first (check.Result.Importable:
// its text read again, no body checked). Such a document kept its view
// of x (it would be checked again otherwise), or does not import it; but
// a kept view is its interface only: its answer still holds the results
// of its imports that it read (x's old text among them), whose bodies
// and clause text the importers' examples run and quote. So a document
// qualifies only when every open module in its answer's import closure
// was read at its current text (closureCurrent); otherwise the loader
// checks it again against the current closure.
func (s *Server) openAnswers(x *snapshot, recheck []*snapshot, deps map[*snapshot]*importDeps) map[string]*check.Result {
	out := map[string]*check.Result{}
	need := map[string]bool{}
	for _, sn := range recheck {
		if d := deps[sn]; d != nil {
			for p := range d.seen {
				need[p] = true
			}
		}
	}
	for _, sn := range recheck {
		delete(need, sn.path)
	}
	delete(need, x.path)
	if len(need) == 0 {
		return out
	}
	type last struct {
		path string
		res  *check.Result
	}
	var lasts []last
	s.mu.Lock()
	open := s.openTextsLocked()
	for _, d := range s.docs {
		if d.snap == nil || !need[d.path] {
			continue
		}
		b := d.engine
		if b == nil {
			b = d.base
		}
		if b == nil {
			b = d.deps.engineBase()
		}
		if b != nil && b.File != nil && b.File.Source != nil && b.File.Source.CST != nil && bytes.Equal(b.File.Source.CST.Src, d.snap.cst.Src) && closureCurrent(b, open) {
			lasts = append(lasts, last{d.path, b})
		}
	}
	s.mu.Unlock()
	for _, l := range lasts {
		if s.loader.Cached(l.path) {
			continue
		}
		if r, ok := s.answers.importableOf(l.path, l.res); ok {
			out[absPath(l.path)] = r
		}
	}
	return out
}

// awaitsImporterJob reports whether the document u lost its base to an
// importer job that has not taken it up yet and that will answer its
// current text with the engine (see importersJob): its own check, which
// would check it in full, is left to the job.
func (s *Server) awaitsImporterJob(u protocol.DocumentURI) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[u]
	return ok && d.awaiting > 0 && d.base == nil && d.engine == nil && d.deps.engineBase() != nil
}

// doneRechecking notes that an importer job published its check of sn
// (see document.rechecking).
func (s *Server) doneRechecking(sn *snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[sn.uri]; ok && d.rechecking == sn {
		d.rechecking = nil
	}
}

// sameText returns the current snapshot of document u if it is the one
// numbered seq, or a later one of the same text (tree): another
// document's importer job gives x a new snapshot of its text when x
// imports that document, and x's own job must still follow x's change.
// It returns nil when u's text changed since.
func (s *Server) sameText(u protocol.DocumentURI, seq uint64, text *syntax.CST) *snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[u]
	if !ok || d.snap == nil || d.snap.seq != seq && (d.snap.cst != text || d.snap.seq < seq) {
		return nil
	}
	return d.snap
}

// answerOf returns the engine's answer for x, the current snapshot of the
// changed document, made importable (check.Result.Importable: no body
// is checked), so that its importers' checks read x without a full check
// of it: over x's base, checking x's new text again when its own check
// has not answered it yet. nil when x has no base (the loader then
// checks x's text in full).
//
// The answer is made once per snapshot and base (the importer job and the
// requests in its importers share it: importView); a caller that comes
// while it is being made waits for it. It is made again when x's base
// changed since (an import of x changed: it has none then, and no answer).
func (s *Server) answerOf(x *snapshot) *check.Result {
	x.ansMu.Lock()
	defer x.ansMu.Unlock()
	s.mu.Lock()
	var b *check.Result
	if d, ok := s.docs[x.uri]; ok && d.snap == x {
		b = d.engine
		if b == nil {
			b = d.base
		}
	}
	s.mu.Unlock()
	if b == nil {
		return nil
	}
	if x.ansFrom != b {
		x.ansFrom, x.ans = b, s.answerFrom(x, b)
	}
	return x.ans
}

// answerFrom is answerOf over x's base b, made now.
func (s *Server) answerFrom(x *snapshot, b *check.Result) (res *check.Result) {
	if !b.Rechecks() || b.File == nil || b.File.Source == nil || b.File.Source.CST == nil {
		return nil
	}
	if !bytes.Equal(b.File.Source.CST.Src, x.cst.Src) {
		r, ok := s.recheck(b, x)
		if !ok {
			return nil
		}
		b = r
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic reading %s again for its importers (checking it in full): %v\n%s", x.uri, r, debug.Stack())
			res = nil
		}
	}()
	if r, ok := s.answers.importableOf(x.path, b); ok {
		return r
	}
	return nil
}

// importStats counts what importer jobs did, for tests and the debug
// request: documents checked again (engine: of those, the ones the
// engine answered, checking only the declarations that read what
// changed), documents whose examples were evaluated again, and documents
// kept as they were.
var importStats struct {
	rechecked, engine, examples, kept atomic.Int64
	// narrowed counts the documents kept although x's interface key
	// changed: they read none of the members whose interface changed
	// (readsSame)
	narrowed atomic.Int64
	// exampleEngine counts the documents whose examples were evaluated
	// again from the engine's answer (examples.go)
	exampleEngine atomic.Int64
	// final counts the engine's answers (every one is final: no full
	// check follows), full the documents checked again in full (the
	// others were replaced by a later snapshot before their turn)
	final, full atomic.Int64
}

// engineBase returns the base of an engine check after an import
// changed: the last check or engine answer these dependencies were read
// from or followed (a full check, an answer after an import changed, or
// the engine's answer to a local edit since: see withBase), nil when
// there is none. The document's text may have changed since (an edit not
// answered yet): the engine answers the new text and the new imports at
// once (check.Result.RecheckImportsAt). An import that failed may
// resolve now, or the other way round: the engine then declines.
func (d *importDeps) engineBase() *check.Result {
	if d == nil || d.base == nil || !d.base.Rechecks() || d.base.File == nil || d.base.File.Source == nil || d.base.File.Source.CST == nil {
		return nil
	}
	return d.base
}

// withBase returns d with res, the engine's answer to a local edit of
// the document, as the base of its next engine check after an import
// changed (its imports are d's: the answer replayed them). d is not
// changed (a job may be reading it).
func (d *importDeps) withBase(res *check.Result) *importDeps {
	if d == nil || !res.Rechecks() {
		return d
	}
	n := *d
	n.base = res
	return &n
}

// withImports returns the dependencies of an engine's answer to a local
// edit that changed the document's imports (nd, read from the answer:
// seenOf; examples, whether it has examples), without a base, with d's
// merged in: every module d's closure held stays (an edit of one sends
// the document to be checked again, which costs a check at most), and
// the files the examples can call are d's and every module of the new
// closure (the answer's references of the declarations it kept are not
// at their offsets, which exampleReach reads: it is not computed).
//
// An answer whose imports changed is not the base of the engine's check
// after a module it imports changes: the document is checked in full
// then. (Over such an answer, views after an importer job answered hover
// on imported members without their symbols: TestWorkspaceDifferential
// seeds 12, 22, 35.)
func (d *importDeps) withImports(nd *importDeps, examples bool) *importDeps {
	nd.base = nil
	widen := examples && len(nd.seen) > 0 // (before d's are merged in)
	var reach map[string]bool
	if d != nil {
		for p, k := range d.seen {
			if _, ok := nd.seen[p]; !ok {
				nd.seen[p] = k
			}
		}
		reach = maps.Clone(d.reach)
	}
	if widen || reach != nil {
		if reach == nil {
			reach = map[string]bool{}
		}
		for p := range nd.seen {
			reach[p] = true
		}
	}
	nd.reach = reach
	return nd
}

// recheckImports checks sn again with the engine over base, its imports
// answered by the loader or, for the documents of the job answered
// already, by answers; when sn's text is not base's (an edit of the
// document not answered yet), the new text is read and answered too. A
// panic is logged and answered by a full check.
func (s *Server) recheckImports(sn *snapshot, base *check.Result, answers *load.Answers) (pkg *load.Package, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic in an incremental check of %s after an import changed (checking in full): %v\n%s", sn.uri, r, debug.Stack())
			pkg, ok = nil, false
		}
	}()
	var f *ast.File
	if !bytes.Equal(base.File.Source.CST.Src, sn.cst.Src) {
		if sn.cst.HasError(0) {
			return nil, false
		}
		f = ast.Build(syntax.Read(sn.cst))
	}
	return s.loader.RecheckImportsOver(sn.path, base, f, answers)
}

// recheckImportsFor is recheckImports for a request (importView): the
// answer's trees are read from sn's text when base's are not at their
// text's offsets (a fast Recheck's answer keeps older texts'), so that
// the answer's positions are the text's.
func (s *Server) recheckImportsFor(sn *snapshot, base *check.Result, answers *load.Answers) (pkg *load.Package, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic answering a request on %s after an import changed (checking in full): %v\n%s", sn.uri, r, debug.Stack())
			pkg, ok = nil, false
		}
	}()
	var f *ast.File
	if !bytes.Equal(base.File.Source.CST.Src, sn.cst.Src) || !base.TreeCurrent() {
		if sn.cst.HasError(0) {
			return nil, false
		}
		f = ast.Build(sn.source())
	}
	return s.loader.RecheckImportsOver(sn.path, base, f, answers)
}

// recheckImportsOwn is recheckImportsFor of base's own text (a
// tree-current answer: check.Result.RecheckImports, whose bodies reused
// keep their types and references), whatever sn's text: the base of the
// views of sn's document until its next check (chainView).
func (s *Server) recheckImportsOwn(sn *snapshot, base *check.Result, answers *load.Answers) (pkg *load.Package, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic answering a request on %s after an import changed (checking in full): %v\n%s", sn.uri, r, debug.Stack())
			pkg, ok = nil, false
		}
	}()
	if !base.TreeCurrent() {
		return nil, false
	}
	return s.loader.RecheckImportsOver(sn.path, base, nil, answers)
}

// importAnswers returns, by absolute path, answers for the open modules in
// the import closure deps read (the snapshot's document's) that the
// loader holds no package for: their engine answers of their current
// texts, made importable (answerOf), so that a request's engine check
// (importView) reads them without checking them in full. They are
// closed over what they read (load.Loader.CloseAnswers).
func (s *Server) importAnswers(sn *snapshot, deps *importDeps) *load.Answers {
	out := map[string]*check.Result{}
	if deps == nil {
		return s.loader.CloseAnswers(out)
	}
	var xs []*snapshot
	s.mu.Lock()
	open := s.openTextsLocked()
	for _, d := range s.docs {
		if d.snap == nil || d.uri == sn.uri {
			continue
		}
		if _, ok := deps.seen[d.path]; ok {
			xs = append(xs, d.snap)
		}
	}
	s.mu.Unlock()
	for _, x := range xs {
		if s.loader.Cached(x.path) {
			continue
		}
		if r := s.answerOf(x); r != nil && closureCurrent(r, open) {
			out[absPath(x.path)] = r
		}
	}
	return s.loader.CloseAnswers(out)
}

// engineAnswered publishes the engine's diagnostics for sn (checked again
// after an import changed), makes its answer the base of the next such
// check (its dependencies read from it: old's reach stays, since the
// examples were not evaluated) and of the next incremental check of an
// edit; its publish is the version's final one (its examples' results
// come from the answer, examples.go).
func (s *Server) engineAnswered(sn *snapshot, res *check.Result, old *importDeps) {
	deps := s.keys.depsOf(res)
	if old != nil {
		deps.reach = old.reach
	}
	if hook := engineHook.Load(); hook != nil {
		(*hook)(sn, res.Diagnostics)
	}
	s.mu.Lock()
	if d, ok := s.docs[sn.uri]; ok && d.snap == sn {
		d.deps = deps
		d.engine, d.clean = res, nil
		importStats.final.Add(1)
		s.answers.put(sn.path, res)
	}
	s.mu.Unlock()
	if res.MayRunExamples() {
		s.publishEngineAnswerExamples(sn, res)
		return
	}
	s.publishChanged(sn, s.toProtocol(sn, res.Diagnostics), true)
}

// importersHook, when set (by tests), sees which candidates each importer
// job checks again and which have their examples evaluated again.
var importersHook atomic.Pointer[func(recheck, examples []*snapshot)]

// engineHook, when set (by tests), sees every engine answer for an
// importer before it is published.
var engineHook atomic.Pointer[func(sn *snapshot, diags []syntax.Diagnostic)]

// absPath is path made absolute, as the loader names files.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// importLevels orders snapshots so that each comes after those it imports
// (by deps, the import closure each one's last check read): level 0
// imports none of the others, level 1 only level-0 ones, and so on.
func importLevels(sns []*snapshot, deps map[*snapshot]*importDeps) [][]*snapshot {
	byPath := map[string]*snapshot{}
	for _, sn := range sns {
		byPath[sn.path] = sn
	}
	depth := map[*snapshot]int{}
	var level func(sn *snapshot, seen map[*snapshot]bool) int
	level = func(sn *snapshot, seen map[*snapshot]bool) int {
		if l, ok := depth[sn]; ok {
			return l
		}
		if seen[sn] {
			return 0 // an import cycle: any order will do
		}
		seen[sn] = true
		l := 0
		if d := deps[sn]; d != nil {
			for p := range d.seen {
				if dep := byPath[p]; dep != nil && dep != sn {
					l = max(l, level(dep, seen)+1)
				}
			}
		}
		depth[sn] = l
		return l
	}
	var out [][]*snapshot
	for _, sn := range sns {
		l := level(sn, map[*snapshot]bool{})
		for len(out) <= l {
			out = append(out, nil)
		}
		out[l] = append(out[l], sn)
	}
	return out
}

// parallel runs f on each snapshot, as many at a time as there are cores.
func (s *Server) parallel(sns []*snapshot, f func(*snapshot)) {
	n := min(runtime.GOMAXPROCS(0), len(sns))
	var wg sync.WaitGroup
	next := make(chan *snapshot)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sn := range next {
				func() {
					defer func() {
						if r := recover(); r != nil {
							s.log.Printf("panic checking %s again after an import changed: %v\n%s", sn.uri, r, debug.Stack())
						}
					}()
					if s.isCurrent(sn) {
						f(sn)
					}
				}()
			}
		}()
	}
	for _, sn := range sns {
		next <- sn
	}
	close(next)
	wg.Wait()
}

// openTextsLocked returns the current texts of the open documents, by
// absolute path (s.mu held).
func (s *Server) openTextsLocked() map[string][]byte {
	out := make(map[string][]byte, len(s.docs))
	for _, d := range s.docs {
		if d.snap != nil && d.snap.cst != nil {
			out[absPath(d.path)] = d.snap.cst.Src
		}
	}
	return out
}

// closureCurrent reports whether every open module in r's import closure
// (its imports, theirs, and so on) was read by r at its current text.
// A middle module whose view of a changed import's interface did not
// change keeps its last answer (importersJob), which still holds the
// import's old result: old bodies and old clause text. Its importers'
// examples, interpreter, verification and dry runs read those through
// it, so such an answer must not answer their imports. The test is a
// walk of the closure comparing texts (a byte comparison per module,
// equal pointers in the common case).
func closureCurrent(r *check.Result, open map[string][]byte) bool {
	seen := map[*check.Result]bool{}
	var walk func(r *check.Result) bool
	walk = func(r *check.Result) bool {
		if r == nil || seen[r] {
			return true
		}
		seen[r] = true
		for _, im := range r.ResolvedImports() {
			if im == nil || im.Imported == nil {
				continue
			}
			if text, ok := open[absPath(im.File)]; ok {
				ir := im.Result
				if ir == nil || ir.File == nil || ir.File.Source == nil || ir.File.Source.CST == nil || !bytes.Equal(ir.File.Source.CST.Src, text) {
					return false
				}
			}
			if !walk(im.Result) {
				return false
			}
		}
		return true
	}
	return walk(r)
}

// narrowImporters enables readsSame (tests and benchmarks compare with
// it off: every importer whose key for x changed is checked again).
var narrowImporters = true

// readsSame reports whether the document whose dependencies are d, at
// snapshot sn, reads of x's new text (xr, its answer made importable)
// exactly what its last check read of x's old one, though x's interface
// key changed: its last check (d's base) is of sn's text, and it is
// unaffected by x's change (unaffectedBy). Its diagnostics then stand.
// Its examples may still call x's bodies: d.reach decides that as for a
// document whose key did not change.
func readsSame(d *importDeps, x, sn *snapshot, xr *check.Result) bool {
	b := d.engineBase()
	if b == nil || xr == nil || xr.File == nil || xr.File.Module == nil || !bytes.Equal(b.File.Source.CST.Src, sn.cst.Src) {
		return false
	}
	return unaffectedBy(b, x.path, xr, map[*check.Result]bool{}, map[*check.Result]bool{})
}

// unaffectedBy reports whether a check of r's text against x's new
// answer xr (x's path) would give r's diagnostics and interface: when r
// imports x, x's header is the same (its name and imports: the loader
// resolves it as before) and every member of x that r looked up has the
// same interface in xr (check.Result.SameImportReads); and every other
// import of r that reaches x is unaffected in turn (the members r reads
// of it include in their interface what they read of x, and are the
// same when it reads the same). memo holds the answers so far (a cycle
// answers false); reaches, whether a result's closure holds x.
func unaffectedBy(r *check.Result, x string, xr *check.Result, memo, reaches map[*check.Result]bool) bool {
	if v, ok := memo[r]; ok {
		return v
	}
	memo[r] = false
	direct := false
	for _, im := range r.ResolvedImports() {
		if im == nil || im.Imported == nil || im.Result == nil {
			continue
		}
		if im.File == x {
			if direct || !sameHeader(im.Result, xr) {
				return false
			}
			direct = true
			continue
		}
		if reachesFile(im.Result, x, reaches) && !unaffectedBy(im.Result, x, xr, memo, reaches) {
			return false
		}
	}
	ok := !direct || r.SameImportReads(x, xr)
	memo[r] = ok
	return ok
}

// reachesFile reports whether r's import closure holds the file x (memo
// holds the answers so far).
func reachesFile(r *check.Result, x string, memo map[*check.Result]bool) bool {
	if v, ok := memo[r]; ok {
		return v
	}
	memo[r] = false // (a cycle: the other path answers)
	for _, im := range r.ResolvedImports() {
		if im != nil && im.Imported != nil && (im.File == x || im.Result != nil && reachesFile(im.Result, x, memo)) {
			memo[r] = true
			return true
		}
	}
	return false
}

// sameHeader reports whether two checks of a module have the same module
// name and import the same module paths in the same order.
func sameHeader(a, b *check.Result) bool {
	if a == nil || b == nil || a.File == nil || b.File == nil || a.File.Module == nil || b.File.Module == nil {
		return false
	}
	am, bm := a.File.Module, b.File.Module
	if am.Name.Name != bm.Name.Name || len(am.Imports) != len(bm.Imports) {
		return false
	}
	for i := range am.Imports {
		if am.Imports[i].Path.Name != bm.Imports[i].Path.Name || am.Imports[i].Alias.Name != bm.Imports[i].Alias.Name {
			return false
		}
	}
	return true
}
