// Package load reads, parses and checks Capsulang files together with the
// modules they import. A module path a.b.c names the file a/b/c.caps, looked
// up first in the importing file's folder and then in each configured root;
// no import can name a file outside those folders (symbolic links that
// lead outside are refused too).
package load

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/ir"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// MaxFileSize bounds the size of a source file: the CLI reads no larger
// file (cli.MaxSourceSize is this) and the language server analyses no
// larger document.
const MaxFileSize = 16 << 20

// Package is a loaded, checked file.
type Package struct {
	Path   string
	Src    []byte
	File   *ast.File
	Result *check.Result
	Hash   string // semantic hash; "" when the file has no module

	// epoch is the loader's epoch when the check began (see Offer);
	// hashed is set once Hash was computed (or the file has no module).
	epoch  uint64
	hashed bool
	hashMu sync.Mutex
	// lean is set when File was built lean (Loader.LeanFrom): its result
	// answers no import, and of its functions only those with contracts,
	// effect arguments or examples, and those the examples may call
	// (ast.UndeferReach), are whole. leanGrowth is what its check is
	// expected to add to the live heap, in bytes (leanMemoryLimit).
	lean       bool
	leanGrowth int64
	// partial is set on a package whose result lacks the types and
	// references of some bodies (check.Result.Partial: an engine answer
	// the language server offered, or one Answer gave): it answers
	// imports, not Load.
	partial bool
}

// CheckHook, when not nil, is called with the absolute path of every file
// a Loader parses and checks, once per check (imports included): tests
// use it to count how often a run checks each module. It must be set
// before any loader runs and left alone while one does.
var CheckHook func(abs string)

// Loader loads files and resolves imports between them, caching each
// file once. It is safe for concurrent use.
type Loader struct {
	// Roots are extra folders searched for imports.
	Roots []string
	// ReadFile reads a source file; nil means ReadSource. The language
	// server substitutes the editor's unsaved text here.
	ReadFile func(path string) ([]byte, error)
	// OneShot says that the packages loaded are checked once and never
	// rechecked (a command line run, not the language server): each
	// result drops the state incremental rechecks need
	// (check.Result.DropRecheckState) as soon as its check ends, which
	// lowers the peak memory of checking a large file.
	OneShot bool
	// Answer, when not nil, gives for a file (by absolute path) that an
	// import needs and the cache lacks a result of the engine that may
	// answer it without a check (the language server's last answer for
	// an open document, usually a fast Recheck's), or nil. The loader
	// uses it, made importable (check.Result.Importable), only when it
	// is of the text ReadFile reads now, every import of it resolved,
	// to the files an import resolves to now, whose cached results
	// (and hashes) are those it read; otherwise the file is checked.
	// It is called with the loader's lock held: it must not call the
	// loader.
	Answer func(abs string) *check.Result
	// CacheIR keeps each hashed file's IR declarations (ir.DeclCache), so
	// that hashing the same tree again, after one of its imports changed,
	// encodes only its import list: the language server sets it.
	CacheIR bool
	// LeanFrom, when not 0, is the smallest source, in bytes, that a
	// one-shot loader builds lean (ast.BuildLean) when Load names it:
	// most function bodies are built again from the text, one at a time,
	// when the check and the semantic hash read them, so that the whole
	// file's forms and bodies are never in memory at once (issue 19:
	// caps check's peak memory on a large file). Its diagnostics, hash and
	// example outcomes are those of a whole build: the functions the
	// examples may call are built whole (ast.UndeferReach). A file whose
	// text stays mostly whole is built whole: at once when the scan of
	// its items shows it (ast.LeanBound), else its other functions are
	// built whole in place (ast.Undefer). A lean package that another
	// file imports is checked again whole.
	LeanFrom int
	// leanAlways has a lean tree checked lean even when most of it is
	// whole (tests: the corpus's small files); leanUnbounded has a file
	// built lean whatever ast.LeanBound says (tests: ast.Undefer then
	// builds most of them whole).
	leanAlways, leanUnbounded bool

	mu    sync.Mutex
	cache map[string]*Package
	// graph holds the imports between the files checked so far, for
	// finding cycles (see cycle.go).
	graph importGraph
	// epoch counts the Forget and Reset calls: a package checked while
	// one happened may have read an import that changed since (Offer).
	epoch uint64
	// inside holds root+"\x00"+file for each import file found under an
	// import root (links resolved) since the file was last forgotten.
	inside map[string]bool
	// irDecls holds each hashed file's IR declaration cache.
	irDecls map[string]*ir.DeclCache
	// visiting holds the files whose cached package importsCached is
	// deciding on while it loads their imports.
	visiting map[string]bool
	// answerHashes holds, by file, the last answer hashed (answerHash).
	answerHashes map[string]answerHashed
	// forms holds, by file, the import forms of the last text of it that
	// an import cycle's message was read from (textImports).
	forms map[string]textForms
}

// ReadSource reads a file for the toolchain with clear errors: missing
// files, folders, files too large, binary or non-UTF-8 content.
func ReadSource(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file", path)
		}
		return nil, fmt.Errorf("%s: %v", path, unwrapPathError(err))
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a .caps file", path)
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s: file is %.1f MB; Capsulang source files are limited to %d MB", path, float64(st.Size())/1e6, MaxFileSize>>20)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, unwrapPathError(err))
	}
	if err := ValidateText(src); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return src, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ValidateText rejects binary and non-UTF-8 content, naming the place.
// Lines and columns are those of text output (syntax.Point).
func ValidateText(src []byte) error {
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size <= 1 {
			p := syntax.NewMapper(src).Point(i)
			return fmt.Errorf("not UTF-8 text (invalid byte 0x%02x at line %d, column %d)", src[i], p.Line, p.Column)
		}
		if r == 0 {
			p := syntax.NewMapper(src).Point(i)
			return fmt.Errorf("binary content (NUL byte at line %d, column %d)", p.Line, p.Column)
		}
		i += size
	}
	return nil
}

func (l *Loader) read(path string) ([]byte, error) {
	if l.ReadFile != nil {
		return l.ReadFile(path)
	}
	return ReadSource(path)
}

// Load loads and checks the file at path (and, through it, its imports).
func (l *Loader) Load(path string) (*Package, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.load(abs, path, false, nil)
}

// LoadSource checks src as the content of path, without caching it (for
// files being edited); its imports are loaded and cached.
func (l *Loader) LoadSource(path string, src []byte) *Package {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	p := &Package{Path: path, Src: src, File: parseSource(src)}
	l.checkTop(abs, p, true)
	return p
}

// load returns the package of the file abs, from the cache or checked
// (with l.mu held). An import (forImport) takes a partial package (see
// Package.partial) and may be answered by Answer; a Load is answered by a
// full check's result (its references cover every body). A Load of a
// file of LeanFrom bytes or more by a one-shot loader builds it lean; an
// import never takes a lean package (only whole trees run).
//
// answers, when not nil, are the results an importer job's check reads
// its files from (RecheckImportsAt, after closeAnswers): a file checked
// here reads them too, and a cached package is taken only when it read
// them (importsCached), so that every check in the job reads one result
// of each file.
func (l *Loader) load(abs, display string, forImport bool, answers map[string]*check.Result) (*Package, error) {
	if p, ok := l.cache[abs]; ok && (forImport || !p.partial) && !(forImport && p.lean) {
		if l.importsCached(abs, p, answers) {
			return p, nil
		}
		delete(l.cache, abs) // (checked over another result of an import)
	}
	src, err := l.read(display)
	if err != nil {
		return nil, err
	}
	var p *Package
	if forImport {
		p = l.answered(abs, display, src, answers)
	}
	if p == nil {
		lean := !forImport && l.OneShot && l.LeanFrom > 0 && len(src) >= l.LeanFrom
		p = l.checkSource(abs, display, src, lean, answers)
	}
	if l.cache == nil {
		l.cache = map[string]*Package{}
	}
	l.cache[abs] = p
	return p, nil
}

// importsCached reports whether the cached package p of the file abs
// read, of each of its imports, the result a check reading answers (see
// load) reads now: the answer, else the cache's package, loaded first
// when the cache lacks it (with l.mu held). A package offered after a
// check that read an import's answer (an importer job's), or checked in
// such a job, may have read another result of the import than the one
// the cache holds or a later load gives: an importer of both then read
// two types of one declaration ("expected record Point, found record
// Point").
func (l *Loader) importsCached(abs string, p *Package, answers map[string]*check.Result) bool {
	if p.Result == nil {
		return true
	}
	if l.visiting[abs] {
		return false // (a cycle through cached packages: check it again)
	}
	for _, im := range p.Result.Imports {
		if im == nil || im.Imported == nil || im.Result == nil {
			continue
		}
		want := answers[im.File]
		if want == nil {
			q := l.cache[im.File]
			if q == nil {
				if l.visiting == nil {
					l.visiting = map[string]bool{}
				}
				l.visiting[abs] = true
				var err error
				q, err = l.load(im.File, im.File, true, answers)
				delete(l.visiting, abs)
				if err != nil {
					return false
				}
			}
			want = q.Result
		}
		if want != im.Result {
			return false
		}
	}
	return true
}

func (l *Loader) checkSource(abs, display string, src []byte, lean bool, answers map[string]*check.Result) *Package {
	p := &Package{Path: display, Src: src}
	if lean {
		// A text whose functions that may be deferred span less than
		// half of it would be kept mostly whole (below): it is built
		// whole at once, decided from the scan of its items.
		if r, ok := syntax.ReadModuleItems(src, "module"); ok && (2*ast.LeanBound(r) >= len(src) || l.leanAlways || l.leanUnbounded) {
			leanBuilds.Add(1)
			p.File, p.lean = ast.BuildLeanItems(r)
		}
	}
	if p.lean {
		m := p.File.Module
		deferred, whole := ast.LeanShare(m)
		if (2*deferred >= len(src) || l.leanAlways) && hasExamples(m) {
			// Its examples run when it checks without errors (caps
			// check evaluates them): the functions they may call are
			// built whole. (A tree already mostly whole is built whole
			// below, reached or not.)
			ast.UndeferReach(p.File)
			deferred, whole = ast.LeanShare(m)
		}
		if 2*deferred < len(src) && !l.leanAlways {
			// Mostly whole (functions the examples reach, machines,
			// types): building its functions again three times would
			// cost more than it saves. The few deferred ones are built
			// whole in place, and the tree is the one a whole build
			// makes (not read and built again). (LeanBound sees no
			// examples' reach, nor an effect with arguments.)
			ast.Undefer(p.File)
			p.lean = false
		} else {
			p.leanGrowth = leanGrowthPerDeferredByte*int64(len(src)-whole) + wholeGrowthPerByte*int64(whole)
		}
	} else {
		p.File = parseSource(src)
	}
	l.check(abs, p, true, answers)
	return p
}

// hasExamples reports whether a function of m has examples.
func hasExamples(m *ast.Module) bool {
	for _, d := range m.Decls {
		if fn, ok := d.(*ast.Function); ok && len(fn.Examples) > 0 {
			return true
		}
	}
	return false
}

// leanMemoryLimit sets the process's soft memory limit for the check of a
// lean tree, whose live heap is expected to reach live bytes, and returns
// the function that ends it. A lean check keeps little (8 bytes per
// deferred source byte at its end, 27 per byte kept whole), but it makes
// several times the source in garbage (each deferred function is built
// again three times): the collector, whose next run is due when the heap
// has doubled since its last, let the heap reach twice the live data,
// and caps check's peak memory stayed where it was with half the live
// data (issue 19). Under a limit of 1.75 times the expected live data
// (plus 8 MiB for the runtime) the collector runs before the heap passes
// it, at the cost of a few more collections, each of them marking little.
// A limit below the live data would have the collector run without end:
// the caller counts the whole live heap (liveHeap: imports checked, other
// packages cached), and the lean checks running at once share the
// largest limit they ask for (leanLimits). A lower limit set by the user
// (GOMEMLIMIT) stays.
func leanMemoryLimit(live int64) (end func()) {
	limit := live*7/4 + leanLimitBase
	leanLimits.Lock()
	defer leanLimits.Unlock()
	if len(leanLimits.active) == 0 {
		leanLimits.saved = debug.SetMemoryLimit(-1)
	}
	leanLimits.active = append(leanLimits.active, limit)
	leanLimits.apply()
	return func() {
		leanLimits.Lock()
		defer leanLimits.Unlock()
		a := leanLimits.active
		i := slices.Index(a, limit)
		leanLimits.active = append(a[:i], a[i+1:]...)
		if len(leanLimits.active) == 0 {
			debug.SetMemoryLimit(leanLimits.saved)
			return
		}
		leanLimits.apply()
	}
}

// leanLimits holds the soft memory limit the process had before the lean
// checks running now began (saved) and the limits they ask for.
var leanLimits leanLimitSet

type leanLimitSet struct {
	sync.Mutex
	saved  int64
	active []int64
}

// apply sets the largest of the active limits, unless the saved one is
// lower.
func (l *leanLimitSet) apply() {
	debug.SetMemoryLimit(min(slices.Max(l.active), l.saved))
}

// liveHeap returns the live heap, in bytes, as the collector measured it
// last, or at least size*leanLivePerSourceByte (a lean tree's text and
// stubs, when no collection has run since they were built).
func liveHeap(size int) int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	live := int64(0)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		live = int64(sample[0].Value.Uint64())
	}
	return max(live, leanLivePerSourceByte*int64(size))
}

// What a lean check's live heap holds and gains, in bytes per source
// byte: its text and stubs once built (bench/memprof: 5.3 on a module of
// one-line functions), and what the check adds for a deferred function
// (2.5 measured) and for a declaration kept whole (about 7: the checker's
// tables and types); leanLimitBase is what leanMemoryLimit adds for the
// runtime. Peak RSS stays under 20 times the source from a few MB on, the
// binary's pages being the rest.
const (
	leanLivePerSourceByte     = 6
	leanGrowthPerDeferredByte = 3
	wholeGrowthPerByte        = 8
	leanLimitBase             = 8 << 20
)

// parseSource parses and builds a file for the loader. ReadText reads
// clean text without building the CST's node array; dropNodes lets go of
// the one tree-sitter builds for other text.
func parseSource(src []byte) *ast.File {
	wholeBuilds.Add(1)
	f := &ast.File{}
	if rd, err := syntax.ReadText(src); err == nil { // err only on parser cancellation
		f = ast.Build(rd)
	}
	dropNodes(f)
	return f
}

// wholeBuilds and leanBuilds count the loader's reads and builds of a
// text, whole (parseSource) and lean (tests: a text is built once).
var wholeBuilds, leanBuilds atomic.Int64

// dropNodes replaces the CST of a freshly parsed file by one with its text
// and line index but no node array. Nothing after the AST is built reads
// the nodes of a loaded file (diagnostics need only the text and its
// lines; an incremental Recheck of such a result falls back to a full
// check), and the node array is about ten bytes per source byte, kept for
// as long as the package is.
func dropNodes(f *ast.File) {
	if f.Source != nil && f.Source.CST != nil {
		c := f.Source.CST
		f.Source.CST = &syntax.CST{Src: c.Src, Lines: c.Lines}
	}
}

// collectAfterCheck is the smallest source, in bytes, after whose check a
// one-shot loader runs the garbage collector (on a small file there is
// nothing to gain).
const collectAfterCheck = 1 << 20

// collectAfterHash is the smallest source, in bytes, after whose hash a
// one-shot loader runs the garbage collector before the check goes on
// (hashedEarly). The collection marks the syntax tree (a few
// milliseconds a megabyte) and lowers caps check's peak RSS from 64 to 58
// MB on a 1 MB module and from 34 to 32 MB on a 300 KB one.
const collectAfterHash = 256 << 10

// check checks p.File as the file abs, recording its imports in the
// import graph, and computes its semantic hash if asked. It runs with l.mu
// held (an import being loaded, or a file the CLI names). Its imports
// are answered from answers when they map them (see load).
func (l *Loader) check(abs string, p *Package, hash bool, answers map[string]*check.Result) {
	if CheckHook != nil {
		CheckHook(abs)
	}
	p.epoch = l.epoch
	l.graph.begin(abs, p.File)
	opts := l.checkOptions(abs, p, l.heldImporter(answers), hash)
	if p.lean {
		// The limit is set once the imports are checked (whole, and
		// without it) and hashed, from the live heap then.
		var restore func()
		defer func() {
			if restore != nil {
				restore()
			}
		}()
		resolved := opts.ImportsResolved
		opts.ImportsResolved = func(res *check.Result) {
			if resolved != nil {
				resolved(res)
			}
			restore = leanMemoryLimit(liveHeap(len(p.Src)) + p.leanGrowth)
		}
	}
	p.Result = check.Check(p.File, opts)
	l.afterCheck(p)
	l.graph.end(abs, p.File)
	if hash {
		l.hash(p)
	}
}

// checkOptions returns the options p's check runs with, as the file abs
// with the importer im. A one-shot loader that hashes p (hash) does so
// while p is checked, as soon as its imports are resolved
// (check.Options.ImportsResolved): the hash reads only the syntax tree
// and the imports' hashes, and allocates about five bytes per source
// byte, all of it garbage once each declaration is encoded. Computed
// after the check, it landed on top of the checked result and raised
// caps check's peak RSS; computed before the declarations are checked,
// its garbage is collected (on a large file at once, hashedEarly) and the
// check reuses the memory. The language server's loader keeps each
// declaration's IR (CacheIR) and hashes when it asks.
func (l *Loader) checkOptions(abs string, p *Package, im check.Importer, hash bool) check.Options {
	opts := check.Options{Path: abs, Importer: im, Once: l.OneShot}
	if l.OneShot && hash && !l.CacheIR {
		opts.ImportsResolved = func(res *check.Result) { l.hashedEarly(p, res) }
	}
	return opts
}

// hashedEarly computes p's semantic hash from res, p's check while it
// runs (checkOptions), and after a large file collects the hash's
// garbage, with the syntax tree's, before the check allocates.
func (l *Loader) hashedEarly(p *Package, res *check.Result) {
	if p.hashed {
		return
	}
	p.hashed = true
	p.Hash, _ = IROptions(res).Hash(p.File.Module)
	if len(p.Src) >= collectAfterHash {
		runtime.GC()
	}
}

// afterCheck runs when p's check ends: a one-shot loader drops the state
// only incremental rechecks read (its checks keep none: check.Options.Once
// says so), and after a large file it did not hash during its check
// (hashedEarly) collects garbage.
func (l *Loader) afterCheck(p *Package) {
	if l.OneShot {
		p.Result.DropRecheckState()
		if len(p.Src) >= collectAfterCheck && !p.hashed {
			// A complement to keeping less, not a substitute: the check
			// of a large file ends with its garbage and the dropped
			// state still on the heap, and hashing allocates on top of
			// them before the collector's next scheduled run (at twice
			// the live heap of its last one). Collecting here lets the
			// hash reuse that memory: caps check's peak RSS falls from
			// about 270 MB to 240 MB on a 4 MB module and from 950 MB to
			// 810 MB on a 15 MB one, for one collection (about a tenth of
			// the check's CPU time; on a large file it replaces the one
			// that would have run during the hash).
			runtime.GC()
		}
	}
}

// checkTop is check for a file that no other file imports in this check
// (a file being edited, or one given as source): l.mu is held only while
// its imports are resolved and loaded, not while the file itself is
// checked, so that files importing the same modules are checked in
// parallel. Their imports are loaded one at a time, each once.
func (l *Loader) checkTop(abs string, p *Package, hash bool) {
	if CheckHook != nil {
		CheckHook(abs)
	}
	l.mu.Lock()
	p.epoch = l.epoch
	l.graph.begin(abs, p.File)
	l.mu.Unlock()
	p.Result = check.Check(p.File, l.checkOptions(abs, p, (*lockedImporter)(l), hash))
	l.afterCheck(p)
	l.mu.Lock()
	l.graph.end(abs, p.File)
	l.mu.Unlock()
	if hash {
		l.hash(p)
	}
}

// hash computes p's semantic hash once (a package checked without it, then
// offered for importing, gets it on its first import), with l.mu held or
// before p is shared.
func (l *Loader) hash(p *Package) {
	if p.hashed {
		return
	}
	p.hashed = true
	if p.File.Module != nil {
		p.Hash, _ = cachedIROptions(p.Result, l.declCache(p)).Hash(p.File.Module)
	}
}

// declCache returns the IR declaration cache of p's file (with l.mu
// held): hashing a file's unchanged tree again, after one of its imports
// changed, encodes none of its declarations again.
func (l *Loader) declCache(p *Package) *ir.DeclCache {
	if !l.CacheIR {
		return nil
	}
	abs := p.absPath()
	c := l.irDecls[abs]
	if c == nil {
		if l.irDecls == nil {
			l.irDecls = map[string]*ir.DeclCache{}
		}
		c = &ir.DeclCache{}
		l.irDecls[abs] = c
	}
	return c
}

// hashOnce is hash for a package offered from outside: concurrent offers
// of one package compute its hash once.
func (l *Loader) hashOnce(p *Package) {
	p.hashMu.Lock()
	defer p.hashMu.Unlock()
	l.mu.Lock()
	done := p.hashed
	dc := l.declCache(p)
	l.mu.Unlock()
	if done {
		return
	}
	var h string
	if p.File.Module != nil {
		h, _ = cachedIROptions(p.Result, dc).Hash(p.File.Module)
	}
	l.mu.Lock()
	if !p.hashed {
		p.Hash, p.hashed = h, true
	}
	l.mu.Unlock()
}

// cachedIROptions are IROptions(res) with the file's declaration cache
// dc (nil: none), which also finds declarations by their text when res's
// trees are at its text's offsets and it reads without a syntax error
// (ir.Options.Src): a new version's
// hash, every tree of it new, encodes again only the declarations whose
// text changed.
func cachedIROptions(res *check.Result, dc *ir.DeclCache) ir.Options {
	o := IROptions(res)
	o.Decls = dc
	// (not in a text with a syntax error: the reader's recovery reads a
	// form by its columns and by what follows it, so the same form text
	// may give another tree elsewhere)
	if dc != nil && res.TreeCurrent() && res.File.Source != nil && res.File.Source.CST != nil && !res.File.Source.TooDeep && readsClean(res.File) {
		o.Src = res.File.Source.CST.Src
	}
	return o
}

// readsClean reports whether f's text reads without a syntax error: its
// tree says so, or, when the loader dropped it (a file only imported),
// its diagnostics hold no syntax error.
func readsClean(f *ast.File) bool {
	if cst := f.Source.CST; cst.Len() > 0 {
		return !cst.HasError(0)
	}
	for _, d := range f.Diagnostics {
		if d.Code == syntax.CodeParse {
			return false
		}
	}
	return true
}

// IROptions are the IR options of a checked file: each import that
// resolved is recorded with its module's semantic hash, so that a change
// in an imported module, or in one that it imports, changes the
// importer's IR and hash. An import that did not resolve is recorded by
// path and alias only. Package.Hash is computed with them, and so is the
// IR that caps ir prints.
func IROptions(res *check.Result) ir.Options {
	return ir.Options{ImportHash: func(path string) (string, error) {
		for _, im := range res.Imports {
			if im.Import.Path.Name == path {
				return im.Hash, nil
			}
		}
		return "", nil
	}}
}

// Forget drops a cached file (after it changed on disk) and every cached
// file that imports it, directly or not: their hashes include its hash,
// and their import cycles may have changed.
func (l *Loader) Forget(path string) {
	abs, _ := filepath.Abs(path)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.epoch++
	for k := range l.inside {
		if strings.HasSuffix(k, "\x00"+abs) {
			delete(l.inside, k) // the file may be another one now
		}
	}
	for _, f := range l.graph.importers(abs) {
		delete(l.cache, f)
	}
	l.graph.forget(abs)
	delete(l.forms, abs)
}

// Reset drops every cached file (the language server's import cache when
// no document is open any more).
func (l *Loader) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.epoch++
	l.cache, l.inside, l.irDecls, l.answerHashes, l.forms = nil, nil, nil, nil, nil
}

// Offer gives the loader a package checked by CheckFile or
// CheckFileNoHash (the language server's check of an open document), to
// answer later imports of its file with instead of checking the file
// again. The loader keeps it only if it has no package for the file, no
// Forget or Reset happened since the package's check began (its imports
// are still current) and the file's text, as ReadFile reads it now, is
// the package's. It reports whether it kept it.
func (l *Loader) Offer(pkg *Package) bool {
	if pkg == nil || pkg.Result == nil || pkg.File == nil {
		return false
	}
	return l.offer(pkg)
}

// OfferHashed is Offer for a package that other files import: its
// semantic hash, which their checks read, is computed first, by the
// caller rather than under the loader's lock (several callers hash in
// parallel). The package must not be in use elsewhere while it is hashed
// (no one else reads its Hash).
func (l *Loader) OfferHashed(pkg *Package) bool {
	if pkg == nil || pkg.Result == nil || pkg.File == nil {
		return false
	}
	l.mu.Lock()
	cached := !l.replaces(pkg.absPath(), pkg)
	stale := pkg.epoch != l.epoch
	l.mu.Unlock()
	if cached || stale {
		return false
	}
	l.hashOnce(pkg)
	return l.offer(pkg)
}

// replaces reports whether an offer of pkg for the file abs may take the
// cache's place (with l.mu held): the cache has no package for the file,
// or a partial one where pkg's result is a full check's.
func (l *Loader) replaces(abs string, pkg *Package) bool {
	p, ok := l.cache[abs]
	return !ok || p.partial && !pkg.Result.Partial()
}

func (p *Package) absPath() string {
	abs, err := filepath.Abs(p.Path)
	if err != nil {
		return p.Path
	}
	return abs
}

func (l *Loader) offer(pkg *Package) bool {
	abs, err := filepath.Abs(pkg.Path)
	if err != nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.replaces(abs, pkg) || pkg.epoch != l.epoch {
		return false
	}
	src, err := l.read(pkg.Path)
	if err != nil || !bytes.Equal(src, pkg.Src) {
		return false
	}
	if l.cache == nil {
		l.cache = map[string]*Package{}
	}
	pkg.partial = pkg.Result.Partial()
	l.cache[abs] = pkg
	return true
}

// AnswerStats counts the imports the loader answered from Answer's
// results instead of
// checking the file (answered), and the results it refused (declined:
// another text, an import that failed, or one the engine could not
// follow), over the process's life, for tests and benchmarks.
var AnswerStats struct {
	Answered, Declined atomic.Int64
	// Rechecked counts the answered imports whose answer the engine
	// checked again first (an import of it had changed: recheckAnswer)
	Rechecked atomic.Int64
}

// recheckAnswer is adopt for an answer r (importable) some of whose
// imports changed since it was made, or are not in the cache: the engine
// checks it again with its imports resolved as a check's are now
// (check.Result.RecheckImports: only the bodies that read a member whose
// interface changed), which costs no body when only imported bodies
// changed; those answers maps are answered from it (see load). nil when
// the engine declines (the file is then checked).
func (l *Loader) recheckAnswer(abs, display string, src []byte, r *check.Result, answers map[string]*check.Result) (p *Package) {
	l.graph.begin(abs, r.File)
	defer func() {
		l.graph.end(abs, r.File)
		if rec := recover(); rec != nil {
			p = nil
		}
		if p == nil {
			l.graph.forget(abs)
		}
	}()
	res, ok := r.RecheckImports(l.heldImporter(answers))
	if !ok || res.File == nil || res.File.Module == nil || len(res.Imports) != len(res.File.Module.Imports) {
		return nil
	}
	AnswerStats.Rechecked.Add(1)
	return &Package{Path: display, Src: src, File: res.File, Result: res, epoch: l.epoch, partial: res.Partial()}
}

// importable is check.Result.Importable, a panic in it a decline (the
// file is then checked).
func importable(r *check.Result) (res *check.Result, ok bool) {
	defer func() {
		if recover() != nil {
			res, ok = nil, false
		}
	}()
	return r.Importable()
}

// answered returns a package of the file abs, whose text is src, made
// from the result Answer gives for it, or nil when there is none or it
// cannot stand for a check of src now (with l.mu held; see Answer). Its
// imports join the import graph as its check's would have. answers are
// those of the importer job loading it (see load).
func (l *Loader) answered(abs, display string, src []byte, answers map[string]*check.Result) (p *Package) {
	if l.Answer == nil {
		return nil
	}
	return l.adopt(abs, display, src, l.Answer(abs), answers)
}

// adopt returns a package of the file abs, whose text is src, made from
// r, an engine's answer for it, or nil when r cannot stand for a check of
// src now (with l.mu held): see Answer. It must have read the result of
// each import answers maps it to, else the cache's.
func (l *Loader) adopt(abs, display string, src []byte, r *check.Result, answers map[string]*check.Result) (p *Package) {
	if r == nil {
		return nil
	}
	defer func() {
		if p == nil {
			AnswerStats.Declined.Add(1)
		} else {
			AnswerStats.Answered.Add(1)
		}
	}()
	if r.File == nil || r.File.Source == nil || r.File.Source.CST == nil || !bytes.Equal(r.File.Source.CST.Src, src) {
		return nil
	}
	res, ok := importable(r)
	if !ok || res.File == nil || res.File.Module == nil || len(res.Imports) != len(res.File.Module.Imports) {
		// (an import that failed may resolve now)
		return nil
	}
	stale := false
	for _, im := range res.Imports {
		if im.Imported == nil || im.Result == nil || im.Import == nil {
			return nil
		}
		// the file the import resolves to now, its result and hash in
		// the cache those the answer read (the cache's results are
		// current: Forget drops a file's importers with it)
		if cand, err := l.locateWith(abs, im.Import.Path.Name, answers); err != nil || cand != im.File {
			return nil
		}
		if a := answers[im.File]; a != nil {
			if a != im.Result {
				stale = true
			}
			continue
		}
		q := l.cache[im.File]
		if q == nil || q.Result != im.Result {
			stale = true
			continue
		}
		l.hash(q)
		if q.Hash != im.Hash {
			stale = true
		}
	}
	if stale {
		return l.recheckAnswer(abs, display, src, res, answers)
	}
	l.graph.begin(abs, res.File)
	for _, im := range res.Imports {
		l.graph.add(abs, im.Import.Path.Name, im.File)
	}
	l.graph.end(abs, res.File)
	for _, im := range res.Imports {
		if l.inCycle(abs, im.File) {
			// (a check reports it)
			l.graph.forget(abs)
			return nil
		}
	}
	return &Package{Path: display, Src: src, File: res.File, Result: res, epoch: l.epoch, partial: res.Partial()}
}

// Cached reports whether the loader holds a package for the file at path
// (its imports are answered without a check).
func (l *Loader) Cached(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.cache[abs]
	return ok
}

// Len returns how many files the loader has cached.
func (l *Loader) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.cache)
}

// importer adapts a Loader to check.Importer. It runs with l.mu held.
type importer Loader

// lockedImporter is importer for a check that runs without l.mu (checkTop):
// it holds the lock while it resolves and loads one import.
type lockedImporter Loader

func (im *lockedImporter) Import(from, modPath string) (*check.Imported, error) {
	l := (*Loader)(im)
	l.mu.Lock()
	defer l.mu.Unlock()
	return (*importer)(l).Import(from, modPath)
}

func (im *importer) Import(from, modPath string) (*check.Imported, error) {
	return (*Loader)(im).importWith(from, modPath, nil)
}

// heldImporter is importer with some files answered from results given:
// the imports of a file an importer job's check loads (see load). It
// runs with l.mu held.
type heldImporter struct {
	l       *Loader
	answers map[string]*check.Result
}

func (im *heldImporter) Import(from, modPath string) (*check.Imported, error) {
	return im.l.importWith(from, modPath, im.answers)
}

// heldImporter returns the importer of a check that runs with l.mu held:
// answering the files answers maps from it (see load), when not nil.
func (l *Loader) heldImporter(answers map[string]*check.Result) check.Importer {
	if answers == nil {
		return (*importer)(l)
	}
	return &heldImporter{l: l, answers: answers}
}

// RecheckImports checks the file at path again with
// check.Result.RecheckImports, after modules it imports changed, its text
// being base's: the language server's path for an open document whose
// imports changed. Its imports are resolved as a check's are, except that
// a file answers maps to (by absolute path) is answered with that result,
// not loaded: the language server's RecheckImports results of other
// documents. ok is false when RecheckImports declines.
func (l *Loader) RecheckImports(path string, base *check.Result, answers map[string]*check.Result) (*check.Result, bool) {
	pkg, ok := l.RecheckImportsAt(path, base, nil, answers)
	if !ok {
		return nil, false
	}
	return pkg.Result, true
}

// RecheckImportsAt is RecheckImports with check.Result.RecheckImportsAt:
// f is the file's text now, read and built (nil: base's text), which
// may be a later version than base's (a document edited since). The
// package returned holds the answer; when the answer covers every body
// (check.Result.Complete), OfferHashed can give it to the loader, to
// answer later imports of the file without a check.
func (l *Loader) RecheckImportsAt(path string, base *check.Result, f *ast.File, answers map[string]*check.Result) (*Package, bool) {
	return l.RecheckImportsOver(path, base, f, l.CloseAnswers(answers))
}

// Answers are results given for files in place of their checks, closed
// over what they read (CloseAnswers): the answers of one importer job,
// shared by the checks of a level of it.
type Answers struct {
	byFile map[string]*check.Result
}

// CloseAnswers returns answers, by absolute path, closed over the results
// they read (see closeAnswers), for RecheckImportsOver. The closing walks
// every answer and each one's imports: a job whose checks read the same
// answers closes them once, not once per check (at 200 modules, closing
// them for each importer cost an interface edit 8 ms of CPU, issue 17).
// answers is not kept: the caller may change it afterwards.
func (l *Loader) CloseAnswers(answers map[string]*check.Result) *Answers {
	return &Answers{byFile: l.closeAnswers(answers)}
}

// RecheckImportsOver is RecheckImportsAt over answers closed already.
// The results a's files are answered with must not change meanwhile:
// a is read, not copied.
func (l *Loader) RecheckImportsOver(path string, base *check.Result, f *ast.File, a *Answers) (*Package, bool) {
	if base == nil || base.File == nil {
		return nil, false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	file := f
	if file == nil {
		file = base.File
	}
	l.mu.Lock()
	epoch := l.epoch
	l.graph.begin(abs, file)
	l.mu.Unlock()
	var answers map[string]*check.Result
	if a != nil {
		answers = a.byFile
	}
	im := &answeringImporter{l: l, answers: answers}
	res, ok := base.RecheckImportsAt(f, im)
	im.answers = nil // the result keeps its importer: not the others' results
	l.mu.Lock()
	l.graph.end(abs, file)
	l.mu.Unlock()
	if !ok {
		return nil, false
	}
	return &Package{Path: path, Src: res.File.Source.CST.Src, File: res.File, Result: res, epoch: epoch}, true
}

// RecheckResult checks cur, a later text of the file at path than base's
// (base a check of it, full or the engine's), with the engine
// (check.Result.RecheckResultWith): an import base's check did not
// resolve (a module the file imports now and did not) is resolved by the
// loader, as a full check's import is (the import graph records it, a
// cycle is refused, the module is loaded or taken from the cache). When
// the imports' files changed, the graph takes the answer's as a full
// check's would, and an import that closes a cycle makes it decline (a
// full check reports it). ok is false when the engine declines.
func (l *Loader) RecheckResult(path string, base *check.Result, cur *syntax.CST) (*check.Result, bool) {
	res, ok := base.RecheckResultWith(cur, (*lockedImporter)(l))
	if !ok || res.File == nil || res.File.Module == nil || SameImportFiles(base, res) {
		return res, ok
	}
	if !OneResultPerFile(res) {
		// (a new import's module read another result of a file than
		// the replayed imports did: a full check reads one)
		return nil, false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// (as a full check's importWith does: every import that names a
	// file, whether it then loads, fails or closes a cycle)
	l.recordAnswer(abs, res, nil)
	for _, im := range res.Imports {
		if im != nil && im.Imported != nil && l.inCycle(abs, im.File) {
			return nil, false
		}
	}
	return res, true
}

// OneResultPerFile reports whether r's import closure (its imports,
// theirs, and so on) holds one result of each file: a check that read
// two results of a file may take one type for two ("expected record
// Point, found record Point").
func OneResultPerFile(r *check.Result) bool {
	seen := map[string]*check.Result{}
	done := map[*check.Result]bool{}
	var walk func(r *check.Result) bool
	walk = func(r *check.Result) bool {
		if r == nil || done[r] {
			return true
		}
		done[r] = true
		for _, im := range r.ResolvedImports() {
			if im == nil || im.Imported == nil || im.Result == nil {
				continue
			}
			if q, ok := seen[im.File]; ok && q != im.Result {
				return false
			}
			seen[im.File] = im.Result
			if !walk(im.Result) {
				return false
			}
		}
		return true
	}
	return walk(r)
}

// SameImportFiles reports whether a and b, two checks of one file, have
// the same import forms (by module path, in order) and resolved the same
// aliases to the same files. (An engine answer's Result.Imports may be
// empty: ResolvedImports is read.)
func SameImportFiles(a, b *check.Result) bool {
	if a.File == nil || b.File == nil || a.File.Module == nil || b.File.Module == nil || len(a.File.Module.Imports) != len(b.File.Module.Imports) {
		return false
	}
	for i, x := range a.File.Module.Imports {
		y := b.File.Module.Imports[i]
		if x == nil || y == nil || x.Path.Name != y.Path.Name {
			return false
		}
	}
	ai, bi := a.ResolvedImports(), b.ResolvedImports()
	if len(ai) != len(bi) {
		return false
	}
	for i, x := range ai {
		y := bi[i]
		if x.Name != y.Name || (x.Imported == nil) != (y.Imported == nil) || x.Imported != nil && x.File != y.File {
			return false
		}
	}
	return true
}

// closeAnswers returns answers with, for each file an answer read
// (directly or through another such file) that answers lacks, the result
// the answer read, when that result is of the file's text now; then
// without the answers that read another result of a file than the one
// returned for it (or an older text of it), and so on until none does:
// a check answered from them (and every file it loads: see load) then
// reads one result of each file. Without it a file the answers imported
// was loaded again by the check, as another result whose types are other
// objects than those the answers' signatures hold ("expected record
// Point, found record Point" where a full check finds nothing). An
// answer left out is checked by the loader, over those kept.
func (l *Loader) closeAnswers(answers map[string]*check.Result) map[string]*check.Result {
	if answers == nil {
		return nil
	}
	out := make(map[string]*check.Result, len(answers))
	var queue []string
	for k, r := range answers {
		if r != nil {
			out[k] = r
			queue = append(queue, k)
		}
	}
	slices.Sort(queue) // (the first reader of a file decides which result of it is kept)
	for len(queue) > 0 {
		r := out[queue[0]]
		queue = queue[1:]
		for _, im := range r.Imports {
			if im == nil || im.Imported == nil || im.Result == nil || out[im.File] != nil {
				continue
			}
			if l.current(im.File, im.Result) {
				out[im.File] = im.Result
				queue = append(queue, im.File)
			}
		}
	}
	for dropped := true; dropped; {
		dropped = false
		for k, r := range out {
			for _, im := range r.Imports {
				if im != nil && im.Imported != nil && im.Result != nil && out[im.File] != im.Result {
					delete(out, k)
					dropped = true
					break
				}
			}
		}
	}
	return out
}

// current reports whether r, a result of the file abs, is of the file's
// text now: the cache's (whose results are current: Forget drops a
// file's importers with it) or of the text ReadFile reads.
func (l *Loader) current(abs string, r *check.Result) bool {
	if r.File == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.cache[abs]; p != nil && p.Result == r {
		return true
	}
	src, err := l.read(abs)
	return err == nil && bytes.Equal(src, r.File.Source.CST.Src)
}

// ResolveImports resolves imports, the import forms of a later version of
// the file at path than r's (r a check of it), as a check of that version
// by l resolves them (CheckFile: the import graph records them, a cycle
// is refused), for an Overlay of it: check.Result.ResolveImports. nil
// when r keeps no module state.
func (l *Loader) ResolveImports(path string, r *check.Result, imports []*ast.Import) *check.ImportSet {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	file := &ast.File{Module: &ast.Module{Imports: imports}}
	l.mu.Lock()
	l.graph.begin(abs, file)
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.graph.end(abs, file)
		l.mu.Unlock()
	}()
	return r.ResolveImports(imports, (*lockedImporter)(l))
}

// answeringImporter is lockedImporter with some files answered from
// results given (Loader.RecheckImports).
type answeringImporter struct {
	l       *Loader
	answers map[string]*check.Result
}

func (im *answeringImporter) Import(from, modPath string) (*check.Imported, error) {
	im.l.mu.Lock()
	defer im.l.mu.Unlock()
	return im.l.importWith(from, modPath, im.answers)
}

// importWith resolves an import (with l.mu held), answering a file that
// answers maps by its absolute path with that result.
func (l *Loader) importWith(from, modPath string, answers map[string]*check.Result) (*check.Imported, error) {
	cand, err := l.locateWith(from, modPath, answers)
	if err != nil {
		return nil, err
	}
	// A cycle is reported on every import that is part of it, whichever
	// file was checked first: before loading cand (which may be being
	// checked further up) and after (cand may lead back here).
	l.graph.add(from, modPath, cand)
	if err := l.cycleError(from, cand); err != nil {
		return nil, err
	}
	if r := answers[cand]; r != nil && r.File != nil && r.File.Module != nil && r.File.Module.Name.Name == modPath {
		// (its semantic hash, the offered package's or hashed once per
		// answer, answerHash; the cache takes such a result, through
		// Answer, only when a later check asks for the file: adopting
		// each here cost the importer jobs more than a hash of every
		// module they answered)
		l.recordAnswer(cand, r, answers) // (see cycle.go)
		if err := l.cycleError(from, cand); err != nil {
			return nil, err
		}
		hash := l.answerHash(cand, r)
		return &check.Imported{File: cand, Module: r.File.Module, Hash: hash, Result: r}, nil
	}
	p, err := l.load(cand, cand, true, answers)
	if err != nil {
		return nil, &check.ImportError{Code: check.ImportNotFound, Message: fmt.Sprintf("cannot read import %s: %v", modPath, err)}
	}
	if err := l.cycleError(from, cand); err != nil {
		return nil, err
	}
	if p.File.Module == nil {
		return nil, &check.ImportError{Code: check.ImportNotFound, Message: fmt.Sprintf("%s holds no module", cand)}
	}
	if p.File.Module.Name.Name != modPath {
		return nil, &check.ImportError{Code: check.ImportNotFound, Message: fmt.Sprintf("%s declares module %s, not %s", cand, p.File.Module.Name.Name, modPath)}
	}
	l.hash(p)
	return &check.Imported{File: cand, Module: p.File.Module, Hash: p.Hash, Result: p.Result}, nil
}

// locate returns the file an import of modPath from the file from
// resolves to (with l.mu held): the first of from's folder and the roots
// that holds it, refused when its links lead outside its root.
func (l *Loader) locate(from, modPath string) (string, error) {
	return l.locateWith(from, modPath, nil)
}

// locateWith is locate, a file that answers maps counting as found.
func (l *Loader) locateWith(from, modPath string, answers map[string]*check.Result) (string, error) {
	rel := filepath.FromSlash(strings.ReplaceAll(modPath, ".", "/")) + ".caps"
	dirs := append([]string{filepath.Dir(from)}, l.Roots...)
	var tried []string
	for _, dir := range dirs {
		root, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		cand := filepath.Join(root, rel)
		if slices.Contains(tried, cand) {
			continue // (a root that is from's folder: looked at already)
		}
		tried = append(tried, cand)
		// A file loaded already, found under this root before, needs no
		// second look at the file system (importers of one module in a
		// folder would each stat it and resolve its links).
		// (nor does one answered by a result given, found here before)
		if _, ok := l.cache[cand]; !ok && answers[cand] == nil || !l.inside[root+"\x00"+cand] {
			if _, err := os.Stat(cand); err != nil {
				if l.ReadFile == nil {
					continue
				}
				if _, err := l.ReadFile(cand); err != nil {
					continue
				}
			}
			if err := within(root, cand); err != nil {
				return "", &check.ImportError{Code: check.ImportNotFound, Message: err.Error()}
			}
			if l.inside == nil {
				l.inside = map[string]bool{}
			}
			l.inside[root+"\x00"+cand] = true
		}
		return cand, nil
	}
	return "", &check.ImportError{Code: check.ImportNotFound, Message: fmt.Sprintf("module %s not found (looked for %s)", modPath, strings.Join(tried, ", "))}
}

// within checks that path, after resolving symbolic links, stays under root.
func within(root, path string) error {
	r, p, inside, err := resolveUnder(root, path)
	if err != nil {
		return err
	}
	if !inside {
		return fmt.Errorf("import resolves to %s, outside the import root %s; imports cannot leave their roots", p, r)
	}
	return nil
}

// Inside reports whether path, once its symbolic links are resolved, lies
// under root (its links resolved too): the rule that keeps every import in
// its root, for other files read on a client's behalf (the language
// server's dry-run scenarios). It returns the resolved path; an error
// means path or root cannot be resolved (a missing file, say).
func Inside(root, path string) (string, bool, error) {
	_, p, inside, err := resolveUnder(root, path)
	return p, inside, err
}

// resolveUnder resolves the symbolic links of root and path and reports
// whether the resolved path lies under the resolved root.
func resolveUnder(root, path string) (r, p string, inside bool, err error) {
	if r, err = filepath.EvalSymlinks(root); err != nil {
		return "", "", false, err
	}
	if p, err = filepath.EvalSymlinks(path); err != nil {
		return "", "", false, err
	}
	rel, err := filepath.Rel(r, p)
	inside = err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	return r, p, inside, nil
}

// CheckFile checks an already parsed file as the content of path, without
// caching it (the language server parses incrementally and checks here).
func (l *Loader) CheckFile(path string, f *ast.File) *Package {
	return l.checkFile(path, f, true)
}

// CheckFileNoHash is CheckFile without computing the semantic hash (the
// language server checks on every keystroke and hashes only on demand).
func (l *Loader) CheckFileNoHash(path string, f *ast.File) *Package {
	return l.checkFile(path, f, false)
}

func (l *Loader) checkFile(path string, f *ast.File, hash bool) *Package {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	p := &Package{Path: path, Src: f.Source.CST.Src, File: f}
	l.checkTop(abs, p, hash)
	return p
}
