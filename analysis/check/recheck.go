package check

import (
	"bytes"
	"sync"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Recheck returns the diagnostics that checking cur, a later version of
// the file r was checked from, would report, checking again only the
// declarations whose inputs changed: the language server's path from an
// edit to diagnostics.
//
// A check records, for every declaration of the module, the diagnostics
// its body check reported (relative to the declaration's start) and what
// it looked up: declarations by name, found or not, and module facts (the
// names of a kind, the surfaces bound to a machine, the profile line, the
// variant types). Recheck reads and builds cur, and runs the module pass
// on it in full: the module header, profiles, imports (replayed from r),
// duplicate declarations, every type, member and function signature, the
// authority policies' conditions. It then aligns cur's declarations with
// r's (the unchanged ones before and after the edited region, and by
// content inside it) and checks again the body of each declaration that
//   - is new or whose text changed, or
//   - looked up a name that now finds another declaration, no declaration
//     or a declaration whose interface changed, or
//   - read a module fact whose value changed, or
//   - reported a diagnostic outside its own text.
//
// A declaration's interface is its text without the parts only its own
// body check reads (a function's body, examples and contracts, a
// machine's states), together with the interfaces of every declaration
// its interface refers to, transitively. Every other declaration keeps
// its diagnostics, moved to its new start.
//
// Recheck reports ok=false, and the caller checks cur in full, when r is
// not a full check of a module, when r's text or cur has a syntax error
// (the reader's recovery regroups forms, so that the same text may not
// build the same declaration), when cur's imports differ from r's, or when
// the module pass asks for an import r did not resolve. The imports r
// resolved are taken as they were; the caller must not use a result whose
// imports may have changed since.
func (r *Result) Recheck(cur *syntax.CST) (diags []syntax.Diagnostic, ok bool) {
	d, _, ok := r.recheck(cur)
	return d, ok
}

// recheck is Recheck, also returning the run's counts (for tests).
func (r *Result) recheck(cur *syntax.CST) ([]syntax.Diagnostic, *engineRun, bool) {
	base := r.checker
	if base == nil || base.eng != nil || base.info == nil || r.File == nil || r.File.Module == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return nil, nil, false
	}
	if r.File.Source.CST.HasError(0) || cur == nil || len(cur.Nodes) == 0 || cur.HasError(0) {
		return nil, nil, false
	}
	f := ast.Build(syntax.Read(cur))
	if f.Module == nil || !sameImports(r.File.Source.CST.Src, r.File.Module, cur.Src, f.Module) {
		return nil, nil, false
	}
	eng := &engineRun{old: base.version(r.File.Source.CST.Src), src: cur.Src}
	opts := base.opts
	var replay *replayImporter
	if opts.Importer != nil {
		replay = &replayImporter{log: base.importLog}
		opts.Importer = replay
	}
	ndecls := len(f.Module.Decls)
	c := &checker{
		res:   &Result{Path: opts.Path, File: f, Types: make(map[ast.Expr]types.Type), FuncEffects: make(map[*ast.Function][]EffectUse, ndecls)},
		opts:  opts,
		decls: make(map[string]*Symbol, ndecls),
		eng:   eng,
	}
	c.res.Diagnostics = append(c.res.Diagnostics, f.Diagnostics...)
	c.module(f.Module)
	if replay != nil && replay.missed {
		return nil, nil, false
	}
	sortDiagnostics(c.res.Diagnostics)
	return c.res.Diagnostics, eng, true
}

// version returns what the engine needs of the check that c ended (built
// once, on the first Recheck against it).
func (c *checker) version(src []byte) *version {
	c.verOnce.Do(func() {
		compact(c.info)
		c.ver = newVersion(src, c.mod, c.info, c.decls, c.index)
		c.ver.ident = func(i int) int { return i }
	})
	return c.ver
}

// sameImports reports whether two versions import the same modules, with
// the same text.
func sameImports(oldSrc []byte, a *ast.Module, newSrc []byte, b *ast.Module) bool {
	if len(a.Imports) != len(b.Imports) {
		return false
	}
	for i := range a.Imports {
		x, y := a.Imports[i].Form.Span, b.Imports[i].Form.Span
		if !bytes.Equal(oldSrc[x.Start:x.End], newSrc[y.Start:y.End]) {
			return false
		}
	}
	return true
}

// verState is the engine's lazily built view of a full check.
type verState struct {
	verOnce sync.Once
	ver     *version
}
