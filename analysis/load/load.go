// Package load reads, parses and checks Capsulang files together with the
// modules they import. A module path a.b.c names the file a/b/c.caps, looked
// up first in the importing file's folder and then in each configured root;
// no import can name a file outside those folders (symbolic links that
// lead outside are refused too).
package load

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
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
}

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

	mu    sync.Mutex
	cache map[string]*Package
	// graph holds the imports between the files checked so far, for
	// finding cycles (see cycle.go).
	graph importGraph
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
	return l.load(abs, path)
}

// LoadSource checks src as the content of path, without caching it (for
// files being edited); its imports are loaded and cached.
func (l *Loader) LoadSource(path string, src []byte) *Package {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checkSource(abs, path, src)
}

func (l *Loader) load(abs, display string) (*Package, error) {
	if p, ok := l.cache[abs]; ok {
		return p, nil
	}
	src, err := l.read(display)
	if err != nil {
		return nil, err
	}
	p := l.checkSource(abs, display, src)
	if l.cache == nil {
		l.cache = map[string]*Package{}
	}
	l.cache[abs] = p
	return p, nil
}

func (l *Loader) checkSource(abs, display string, src []byte) *Package {
	// ReadText reads clean text without building the CST's node array;
	// dropNodes lets go of the one tree-sitter builds for other text.
	f := &ast.File{}
	if rd, err := syntax.ReadText(src); err == nil { // err only on parser cancellation
		f = ast.Build(rd)
	}
	dropNodes(f)
	p := &Package{Path: display, Src: src, File: f}
	l.check(abs, p, true)
	return p
}

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

// check checks p.File as the file abs, recording its imports in the
// import graph, and computes its semantic hash if asked.
func (l *Loader) check(abs string, p *Package, hash bool) {
	l.graph.begin(abs, p.File)
	p.Result = check.Check(p.File, check.Options{Path: abs, Importer: (*importer)(l)})
	if l.OneShot {
		p.Result.DropRecheckState()
		if len(p.Src) >= collectAfterCheck {
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
	l.graph.end(abs)
	if hash && p.File.Module != nil {
		p.Hash, _ = IROptions(p.Result).Hash(p.File.Module)
	}
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
	for _, f := range l.graph.importers(abs) {
		delete(l.cache, f)
	}
	l.graph.forget(abs)
}

// Reset drops every cached file (the language server's import cache when
// no document is open any more).
func (l *Loader) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cache = nil
}

// Len returns how many files the loader has cached.
func (l *Loader) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.cache)
}

// importer adapts a Loader to check.Importer. It runs with l.mu held.
type importer Loader

func (im *importer) Import(from, modPath string) (*check.Imported, error) {
	l := (*Loader)(im)
	rel := filepath.FromSlash(strings.ReplaceAll(modPath, ".", "/")) + ".caps"
	dirs := append([]string{filepath.Dir(from)}, l.Roots...)
	var tried []string
	for _, dir := range dirs {
		root, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		cand := filepath.Join(root, rel)
		tried = append(tried, cand)
		if _, err := os.Stat(cand); err != nil {
			if l.ReadFile == nil {
				continue
			}
			if _, err := l.ReadFile(cand); err != nil {
				continue
			}
		}
		if err := within(root, cand); err != nil {
			return nil, &check.ImportError{Code: check.ImportNotFound, Message: err.Error()}
		}
		// A cycle is reported on every import that is part of it, whichever
		// file was checked first: before loading cand (which may be being
		// checked further up) and after (cand may lead back here).
		l.graph.add(from, modPath, cand)
		if err := l.graph.cycleError(from, cand); err != nil {
			return nil, err
		}
		p, err := l.load(cand, cand)
		if err != nil {
			return nil, &check.ImportError{Code: check.ImportNotFound, Message: fmt.Sprintf("cannot read import %s: %v", modPath, err)}
		}
		if err := l.graph.cycleError(from, cand); err != nil {
			return nil, err
		}
		if p.File.Module == nil {
			return nil, &check.ImportError{Code: check.ImportNotFound, Message: fmt.Sprintf("%s holds no module", cand)}
		}
		if p.File.Module.Name.Name != modPath {
			return nil, &check.ImportError{Code: check.ImportNotFound, Message: fmt.Sprintf("%s declares module %s, not %s", cand, p.File.Module.Name.Name, modPath)}
		}
		return &check.Imported{File: cand, Module: p.File.Module, Hash: p.Hash, Result: p.Result}, nil
	}
	return nil, &check.ImportError{Code: check.ImportNotFound, Message: fmt.Sprintf("module %s not found (looked for %s)", modPath, strings.Join(tried, ", "))}
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
	l.mu.Lock()
	defer l.mu.Unlock()
	p := &Package{Path: path, Src: f.Source.CST.Src, File: f}
	l.check(abs, p, hash)
	return p
}
