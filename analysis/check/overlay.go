package check

import (
	"maps"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax/ast"
)

// Overlay checks declarations of a later version of a file against the
// module state an earlier full check of it ended in (its declarations,
// signatures, resolved types and members), without checking the rest of
// the file again: the language server answers requests sent right after
// an edit (completion, hover, definition) with it.
//
// Every declaration given replaces the earlier check's declaration of the
// same name; the others are seen as they were. The symbols and references
// of the declarations checked carry the later version's offsets (they are
// built from its text); those of the earlier check keep theirs. Diagnostics
// are not kept: they are the diagnostics path's business (Recheck).
//
// An Overlay never writes to the earlier check's state, so that several may
// be used at once, but one Overlay is not safe for concurrent use.
type Overlay struct {
	ch    *checker
	decls []ast.Decl
	done  bool
}

// Overlay returns an overlay of r for the declarations decls, built from
// a later version of r's file; nil when r keeps no module state. The
// names gone are those of r's declarations the later version no longer
// declares (removed or renamed): they resolve to nothing in the overlay,
// as in a full check of that version. r may be
// a full check or an engine answer whose trees are at its own text's
// offsets (RecheckImports, RecheckImportsAt: TreeCurrent); a fast
// Recheck's answer, and the answers chained on one, are declined: their
// kept declarations' trees hold older texts' offsets, which the
// overlay's lookups would hand out as r's. (What a request reads of r
// besides, its symbols and references, is a full check's only when r
// is not Partial.)
func (r *Result) Overlay(decls []ast.Decl, gone ...string) *Overlay {
	base := r.checker
	if base == nil || base.base != nil || base.kept || base.mod == nil {
		return nil
	}
	return r.overlayOn(decls, nil, gone)
}

// overlayOn is Overlay, over the imports st when not nil.
func (r *Result) overlayOn(decls []ast.Decl, st *ImportSet, gone []string) *Overlay {
	base := r.checker
	ch := &checker{
		res:           &Result{Path: r.Path, File: r.File, Types: &TypeMap{}, FuncEffects: map[*ast.Function][]EffectUse{}},
		opts:          base.opts,
		mod:           base.mod,
		decls:         maps.Clone(base.decls), // names the overlay does not declare resolve as in r
		typeCache:     maps.Clone(base.typeCache),
		resolving:     map[*ast.TypeDecl]bool{},
		imports:       base.imports,
		failedImports: base.failedImports,
		base:          base,
	}
	if st != nil {
		ch.imports, ch.failedImports = st.imports, st.failed
		ch.res.Symbols = append(ch.res.Symbols, st.syms...)
	}
	o := &Overlay{ch: ch}
	for _, n := range gone {
		delete(ch.decls, n)
		if ch.overlayGone == nil {
			ch.overlayGone = map[string]bool{}
		}
		ch.overlayGone[n] = true
	}
	ch.overlayDecls = decls
	seen := map[string]bool{}
	for _, d := range decls {
		b := d.Base()
		if !b.Name.Valid() {
			continue
		}
		// every declaration has its symbol; the first of a name is the
		// one it resolves to (as in a full check, which reports the
		// others)
		s := ch.define(&Symbol{Kind: SymbolKind(d.Kind()), Name: b.Name.Name, Span: b.Name.Span, Full: b.Form.Span(), Doc: b.Doc, Decl: d, Detail: string(d.Kind()) + " " + b.Name.Name})
		if !seen[b.Name.Name] {
			seen[b.Name.Name] = true
			ch.decls[b.Name.Name] = s
		}
	}
	// The passes of a full check (module), over the declarations given
	// (a type declared twice is resolved too, its members those of the
	// first: interfaces).
	// (a declaration given that r resolved is resolved again; one this
	// loop resolved while resolving an earlier one keeps that type, as in
	// a full check, which resolves each declaration once: resolving it
	// again after the earlier one is done could see an alias cycle the
	// first resolution broke at another place)
	for _, d := range decls {
		if td, ok := d.(*ast.TypeDecl); ok {
			delete(ch.typeCache, td)
		}
	}
	for _, d := range decls {
		if td, ok := d.(*ast.TypeDecl); ok {
			t := ch.declType(td)
			if s := ch.declSym(td); s != nil {
				s.Type = t
				s.Detail = "type " + td.Name.Name + " = " + typeDetail(td, t)
			}
			ch.typeMembers(td, t)
		}
	}
	for _, d := range decls {
		ch.declOperations(d)
	}
	for _, d := range decls {
		if f, ok := d.(*ast.Function); ok {
			ch.functionSignature(f)
		}
	}
	o.decls = decls
	return o
}

// Check checks the overlay's declarations (once) and returns the symbols
// they declare and the references they make, in the later version's
// offsets: references to declarations the overlay does not replace point
// to the earlier check's symbols.
func (o *Overlay) Check() (syms []*Symbol, refs []Ref) {
	if !o.done {
		o.done = true
		ch := o.ch
		for _, d := range o.decls {
			switch d := d.(type) {
			case *ast.Function:
				ch.function(d)
			case *ast.Machine:
				ch.machine(d)
			case *ast.Store:
				ch.store(d)
			case *ast.Port:
				ch.port(d)
			case *ast.Agent:
				ch.agent(d)
			case *ast.ClauseDecl:
				ch.clauseDecl(d)
				if d.DeclKind == ast.KindZKProof {
					ch.zkProof(d)
				}
			}
		}
		for _, d := range o.decls {
			if s, ok := d.(*ast.Surface); ok {
				ch.surface(s)
			}
		}
	}
	return o.ch.res.Symbols, o.ch.res.Refs
}

// Type returns the checked type of an expression of the overlay's
// declarations (after Check), nil when it has none.
func (o *Overlay) Type(e ast.Expr) types.Type { return o.ch.res.Types.Type(e) }

// Users returns the declarations of r's module a later version must check
// again when the declarations called names no longer resolve as in r
// (removed, renamed, or declared anew with another type identity): those
// whose check looked one of them up, found or not, and, transitively,
// those whose interface (resolved type, members, signature) looked up a
// declaration whose interface did, as that interface changes with them.
// A bare variant constructor searches every type declaration: when a
// variant type is among them, the declarations that searched are users
// too; and a machine reads the surfaces bound to it: when a surface's
// interface changes, the declarations that read bound surfaces are. The
// users are in r's order and do not include the declarations called
// names themselves. ok is false when r keeps no record of what its
// declarations looked up (a check with Options.Once, a fast Recheck).
func (r *Result) Users(names []string) (users []ast.Decl, ok bool) {
	base := r.checker
	if base == nil || base.base != nil || base.kept || base.mod == nil || len(base.info) != len(base.mod.Decls) {
		return nil, false
	}
	// (Recheck compacts the body lookups once, in place)
	base.compactOnce.Do(func() { compact(base.info) })
	iface := map[string]bool{} // names whose interface changed
	variant, surface := false, false
	changed := func(name string, d ast.Decl) {
		iface[name] = true
		if td, ok := d.(*ast.TypeDecl); ok {
			if _, ok := base.typeCache[td].(*types.Variant); ok {
				variant = true
			}
		}
		if _, ok := d.(*ast.Surface); ok {
			surface = true
		}
	}
	for _, n := range names {
		iface[n] = true
		if s := base.decls[n]; s != nil && s.Decl != nil {
			changed(n, s.Decl)
		}
	}
	hits := func(dp *deps) bool {
		for _, n := range dp.names {
			if iface[n] {
				return true
			}
		}
		if variant || surface {
			for _, k := range dp.keys {
				if variant && k == keyVariants || surface && strings.HasPrefix(k, keyBound) {
					return true
				}
			}
		}
		return false
	}
	user := make([]bool, len(base.mod.Decls))
	for more := true; more; {
		more = false
		for i, d := range base.mod.Decls {
			n := d.Base().Name
			if n.Valid() && iface[n.Name] {
				continue
			}
			if hits(&base.info[i].p1) {
				user[i] = true
				if n.Valid() {
					changed(n.Name, d)
					more = true
				}
				continue
			}
			if !user[i] && hits(&base.info[i].body) {
				user[i] = true
			}
		}
	}
	for i, d := range base.mod.Decls {
		if user[i] {
			users = append(users, d)
		}
	}
	return users, true
}

// ImportSet is the imports of a later version of r's file resolved anew
// (Result.ResolveImports): what an Overlay of that version reads instead
// of r's imports when its import forms changed.
type ImportSet struct {
	imports map[string]*ImportInfo
	failed  map[string]bool
	syms    []*Symbol // the imports' symbols (SymImport), as a check defines them
	changed []string
}

// ResolveImports resolves imports, the import forms of a later version of
// r's file in order, with imp as a full check of that version resolves
// them (the same diagnostics aside, which it does not keep), and reports
// which aliases resolve otherwise than in r (Changed). nil when r keeps
// no module state.
func (r *Result) ResolveImports(imports []*ast.Import, imp Importer) *ImportSet {
	base := r.checker
	if base == nil || base.mod == nil {
		return nil
	}
	opts := base.opts
	opts.Importer = imp
	ch := &checker{res: &Result{Path: r.Path}, opts: opts}
	ch.importsOf(&ast.Module{Imports: imports})
	st := &ImportSet{imports: ch.imports, failed: ch.failedImports, syms: ch.res.Symbols}
	names := map[string]bool{}
	for _, m := range []map[string]*ImportInfo{base.imports, ch.imports} {
		for n := range m {
			names[n] = true
		}
	}
	for _, m := range []map[string]bool{base.failedImports, ch.failedImports} {
		for n := range m {
			names[n] = true
		}
	}
	for n := range names {
		a, b := base.imports[n], ch.imports[n]
		// the alias's answer as the engine compares it (aliasValue), and
		// the same module's check: the same symbols and named types
		same := aliasValue(base.imports, base.failedImports, n) == aliasValue(ch.imports, ch.failedImports, n)
		if same && a != nil {
			same = a.Imported != nil && b.Imported != nil && a.Result == b.Result && a.Hash == b.Hash && a.Module == b.Module
		}
		if !same {
			st.changed = append(st.changed, n)
		}
	}
	sort.Strings(st.changed)
	return st
}

// Changed returns the aliases the set resolves otherwise than the result
// it was resolved for (added, removed, failing now or no longer, or
// naming another module's check), sorted.
func (st *ImportSet) Changed() []string { return st.changed }

// OverlayImports is Overlay over the imports st (ResolveImports of r):
// the declarations given read those, and the overlay's symbols include
// the imports' own. The caller gives every declaration that names an
// alias st changed (they would resolve it as r did otherwise), and those
// whose interface refers to one of them; gone as for Overlay.
func (r *Result) OverlayImports(decls []ast.Decl, st *ImportSet, gone ...string) *Overlay {
	base := r.checker
	if st == nil || base == nil || base.base != nil || base.kept || base.mod == nil {
		return nil
	}
	return r.overlayOn(decls, st, gone)
}
