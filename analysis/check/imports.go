package check

// This file is the engine's cross-file part: a check records, per
// declaration, which members of imported modules it read (keyImport
// facts), and RecheckImports checks a file again after modules it imports
// changed, checking again only the declarations that read a member whose
// interface changed.

import (
	"hash/maphash"
	"sort"
	"strings"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// importValue is the value of the fact keyImport+name (ALIAS.MEMBER) in
// v: what an importer's check can read of that member. It is
//   - for a member found, its eff in the imported module's check (its
//     interface with those of everything its interface reaches, the
//     members it reads of that module's own imports included, so that a
//     change two imports away counts), and for a declaration other than
//     a function its whole text as well (an importer reads no function
//     body, but may read a machine's states);
//   - for a member not found, the names the imported module declares
//     (messages may suggest one of them);
//   - for an alias that resolves to nothing, a constant (RecheckImports
//     declines when which aliases resolve changed).
//
// A member whose module's check keeps no engine state gets a value no
// other version has: its readers are always checked again.
func (v *version) importValue(name string) uint64 {
	dot := strings.IndexByte(name, '.')
	if dot < 0 {
		return mix(hashString(name), 4)
	}
	imp := v.imports[name[:dot]]
	if imp == nil || imp.Imported == nil || imp.Result == nil {
		return mix(hashString(name), 5)
	}
	r, member := imp.Result, name[dot+1:]
	var found *Symbol
	for _, s := range r.Symbols {
		if s.Name == member && s.Decl != nil {
			found = s
			break
		}
	}
	if found == nil {
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteString(member)
		for _, s := range r.Symbols {
			if s.Decl != nil {
				h.WriteByte(0)
				h.WriteString(s.Name)
				h.WriteString(string(s.Kind))
			}
		}
		return mix(6, h.Sum64())
	}
	ic := r.checker
	if ic == nil || ic.mod == nil || r.File == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return mix(versions.Add(1), 7)
	}
	j, ok := ic.index[found.Decl]
	if !ok {
		return mix(versions.Add(1), 7)
	}
	iv := ic.importView(r)
	x := mix(8, hashString(string(found.Kind)), iv.eff(j))
	if _, fn := found.Decl.(*ast.Function); !fn {
		sp := found.Decl.Base().Form.Span()
		x = mix(x, maphash.Bytes(seed, iv.src[sp.Start:sp.End]))
	}
	return x
}

// importView returns what importers' engines read of the check c ended
// (r, its result): its declarations' text and interface hashes and what
// their interfaces looked up, from which eff combines a member's value.
// Unlike version it needs no syntax tree (a module the loader read has
// none left). In a file with a syntax error, a declaration that may
// have been read otherwise than the same text without errors around it
// (untrusted; every declaration when the tree is gone) gets an interface
// equal to no other version's.
func (c *checker) importView(r *Result) *version {
	c.viewOnce.Do(func() {
		c.compactOnce.Do(func() { compact(c.info) })
		src := r.File.Source.CST.Src
		// (no content hashes: nothing aligns another version with this
		// one; importValue hashes the few non-function members it needs)
		v := &version{src: src, mod: c.mod, info: c.info, decls: make([]declState, len(c.mod.Decls)), first: make(map[string]int, len(c.decls)), keyV: map[string]uint64{}, imports: c.imports, failed: c.failedImports}
		for name, s := range c.decls {
			if i, ok := c.index[s.Decl]; ok {
				v.first[name] = i
			}
		}
		for i, d := range c.mod.Decls {
			v.decls[i] = declState{start: d.Base().Form.Span().Start, iface: ifaceHash(src, d)}
		}
		var bad []bool // the declarations read in doubt
		if cst := r.File.Source.CST; cst.Len() > 0 {
			if cst.HasError(0) {
				bad = untrusted(cst, c.mod)
			}
		} else {
			for _, d := range r.File.Diagnostics {
				if d.Code == syntax.CodeParse {
					bad = make([]bool, len(v.decls))
					for i := range bad {
						bad[i] = true
					}
					break
				}
			}
		}
		for i, b := range bad {
			if b {
				v.decls[i].iface = mix(versions.Add(1), uint64(i))
			}
		}
		c.view = v
	})
	return c.view
}

// RecheckImports checks r's file again, its text unchanged, with its
// imports resolved by imp now (after modules it imports changed): the
// language server's path for the documents importing an edited one. The
// diagnostics are exactly a full check's with imp; a declaration's body
// is checked again only when what it reads changed: a member of an
// imported module whose interface changed (see importValue), or a
// declaration of the file whose interface changed through one. The
// module pass (names, types, members, signatures) and the module-wide
// checks run in full.
//
// The Result returned has the diagnostics, symbols and interfaces of a
// full check, and what the engine needs to be the base of a later
// RecheckImports, or to answer the imports of other files' checks. When
// r covers every body (a full check, or such an answer over one: not
// Partial), so does the result: the types, references and local symbols
// of the bodies it did not check again are r's (references to imported
// names moved to imp's symbols), and it answers requests (hover,
// definition) and can be an Overlay's base. Otherwise the types and
// references inside those bodies are missing (Partial), so that it must
// not answer requests: a full check should follow.
//
// r may be a full check or any answer of the engine (RecheckResult,
// RecheckImports, chained): an answer whose trees keep older texts'
// offsets (a fast Recheck's) has its text read and built again first
// (RecheckImportsAt). ok is false, and the caller checks the file in
// full, when r kept no engine state, or when imp resolves other aliases,
// or fails on other ones, than r's imports did.
func (r *Result) RecheckImports(imp Importer) (res *Result, ok bool) {
	res, _, ok = r.recheckImports(imp)
	return res, ok
}

// RecheckImportsAt is RecheckImports for f, r's text or a later version
// of it, read and built (ast.Build; f.Source.CST is its text): the
// language server's path for a document whose imports changed while its
// own text was edited since its last full check. r may be any base of
// Recheck (a full check, or a RecheckResult or RecheckImports answer,
// chained: chain.go); f nil means r's text.
//
// The diagnostics are exactly a full check of f's with imp. A
// declaration's body is checked again when its text changed, when a name
// or module fact it read changed (as Recheck decides it), or when it
// read a member of an imported module whose interface changed (as
// RecheckImports decides it); every other body keeps its diagnostics.
// When r's tree is not f's (f is a later version, or r an answer whose
// declarations keep the trees of older texts) the module pass runs in
// full over f; only the bodies are reused.
//
// The Result is a base for the next Recheck, RecheckImports or
// RecheckImportsAt, and answers the imports of other files' checks (as a
// RecheckImports answer does). ok is false, and the caller checks f in
// full, when r kept no engine state, when f has a syntax error or no
// module, when r's text must be aligned with f's but r kept no tree (a
// file a loader read), or when, f's imports being r's, imp resolves other aliases, or
// fails on other ones, than r's check did.
func (r *Result) RecheckImportsAt(f *ast.File, imp Importer) (*Result, bool) {
	if imp == nil {
		return nil, false
	}
	res, _, ok := r.recheckImportsAt(f, imp)
	return res, ok
}

// recheckImportsAt is RecheckImportsAt, also returning the run's counts
// (imp nil stands for a check without an Importer: Importable).
func (r *Result) recheckImportsAt(f *ast.File, imp Importer) (*Result, *engineRun, bool) {
	base := r.checker
	if base == nil || base.eng != nil || r.File == nil || r.File.Module == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return nil, nil, false
	}
	oldCST := r.File.Source.CST
	chained := base.base != nil || base.kept
	if f == nil || f == r.File {
		if !chained {
			// r's own tree, at its text's offsets: nothing is read again
			return r.recheckImports(imp)
		}
		if oldCST.Len() == 0 || oldCST.HasError(0) {
			return nil, nil, false
		}
		f = ast.Build(syntax.Read(oldCST))
	}
	if f.Module == nil || f.Source == nil || f.Source.CST == nil {
		return nil, nil, false
	}
	cur := f.Source.CST
	if cur.Len() == 0 || cur.HasError(0) || oldCST.Len() == 0 {
		// (a base the loader read keeps no tree to align with)
		return nil, nil, false
	}
	// The whole-file Recheck (recheckResult) with imp answering the
	// imports instead of a replay of r's: the declarations are aligned
	// with r's version (the chain's, for an answer), and keyImport facts
	// compare r's imports' members with imp's.
	old := base.version(oldCST)
	eng := &engineRun{old: old, src: cur.Src, whole: true, base: base}
	eng.importsChanged = !sameImports(oldCST.Src, r.File.Module, cur.Src, f.Module)
	opts := base.opts
	opts.Importer = imp
	c := runEngine(opts, f, eng)
	eng.base, eng.keep = nil, nil // (the answer does not keep its base alive)
	if !eng.importsChanged && !sameResolution(base, c) {
		// (with other imports, every body was checked again)
		return nil, nil, false
	}
	c.keepInterfaceDiagnostics()
	sortDiagnostics(c.res.Diagnostics)
	c.res.checker = c
	// importers read the version the run built, as after RecheckImports
	c.compactOnce.Do(func() { compact(c.info) })
	c.viewOnce.Do(func() { c.view = eng.cur })
	c.eng = nil
	eng.old = nil
	return c.res, eng, true
}

// recheckImports is RecheckImports, also returning the run's counts.
func (r *Result) recheckImports(imp Importer) (*Result, *engineRun, bool) {
	base := r.checker
	if base == nil || imp == nil || r.File == nil || r.File.Module == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return nil, nil, false
	}
	if base.base != nil || base.kept {
		// a fast Recheck's answer: its trees keep older texts' offsets,
		// the text is read again
		return r.recheckImportsAt(nil, imp)
	}
	// the base as importers see it: no layout or reverse index is needed
	// (nothing is read again), and no tree
	old := base.importView(r)
	f := r.File // the same text: the same tree
	opts := base.opts
	opts.Importer = imp
	eng := &engineRun{old: old, src: old.src, whole: true, sameTree: true, base: base}
	c := runEngine(opts, f, eng)
	eng.base, eng.keep = nil, nil // (the answer does not keep its base alive)
	if !sameResolution(base, c) {
		return nil, nil, false
	}
	c.keepInterfaceDiagnostics()
	sortDiagnostics(c.res.Diagnostics)
	c.res.checker = c
	if base.complete {
		// (over imports that are not complete the answer is not Complete
		// either, but its own bodies are covered: the language server's
		// requests read it, and later views are built over it)
		c.carryBodies(r, eng.checked)
	}
	// What importers see of the answer is the version the run built (the
	// base's declarations, hashes and names, the new lookups and
	// imports): the next RecheckImports against it, and the importers of
	// this file, read it without hashing the text again.
	c.compactOnce.Do(func() { compact(c.info) })
	c.viewOnce.Do(func() { c.view = eng.cur })
	// the base (and the imports it read) is not kept alive by its answer
	eng.old = nil
	// the answer is a full check's but for the bodies it reused (their
	// records are the base's): a base for Recheck too
	c.eng = nil
	return c.res, eng, true
}

// sameResolution reports whether two checks of one text resolved the
// same aliases to the same files, and failed on the same ones: the
// checks' lookups of aliases (c.imports, c.failedImports) are not
// recorded per declaration.
func sameResolution(a, b *checker) bool {
	if len(a.imports) != len(b.imports) || len(a.failedImports) != len(b.failedImports) {
		return false
	}
	for name, x := range a.imports {
		y := b.imports[name]
		// (the same import form: one tree's node, or the same path in
		// a tree read again from the same text)
		if y == nil || x.Imported == nil || y.Imported == nil || x.File != y.File || x.Import != y.Import && x.Import.Path.Name != y.Import.Path.Name {
			return false
		}
	}
	for name := range a.failedImports {
		if !b.failedImports[name] {
			return false
		}
	}
	return true
}

// Importable returns a result of r's text that can answer other files'
// imports (Imported.Result): r itself when it is a full check or an
// answer of RecheckImports or RecheckImportsAt; for a fast Recheck's
// answer, whose symbols are only those of the declarations it checked
// again and whose trees keep older texts' offsets, the text is read and
// built again and the module pass run in full, its imports answered as
// r's were, every body's diagnostics reused (RecheckImportsAt). The
// result is also a base for the next Recheck. ok is false when r kept no
// engine state or its imports cannot be answered again.
func (r *Result) Importable() (*Result, bool) {
	if r == nil || r.checker == nil || r.File == nil || r.File.Module == nil {
		return nil, false
	}
	base := r.checker
	if base.base == nil && !base.kept {
		return r, true
	}
	var replay *replayImporter
	var imp Importer // (a check without an Importer: none either)
	if base.opts.Importer != nil {
		replay = &replayImporter{log: base.importLog}
		imp = replay
	}
	res, _, ok := r.recheckImportsAt(nil, imp)
	if !ok || replay != nil && replay.missed {
		return nil, false
	}
	if replay != nil {
		// later Rechecks replay the imports as r's check resolved them
		res.checker.opts.Importer = base.opts.Importer
	}
	return res, true
}

// carryBodies completes the Types, Refs and Symbols of c's result, a RecheckImports
// answer over r (the same tree), with r's for the bodies the run reused:
// r's entries inside a declaration whose body was reused stand (the same
// nodes and spans, of the same text), but where the run made its own:
// the references of the declaration's interface, resolved again (its
// imported members may have changed without changing what its body
// reads: a type reading one is never checked as a body, and carries
// nothing of r's). Everywhere else the run's own are the answer's. The
// answer is then a full check's for the interpreter and for importers
// (Complete). A reference kept from r to a symbol of this file points
// to r's symbol of the same declaration.
func (c *checker) carryBodies(r *Result, checked []int) {
	decls := c.mod.Decls
	again := make([]bool, len(decls))
	for _, i := range checked {
		again[i] = true
	}
	for i, d := range decls {
		// (a declaration without a body is all interface, which the
		// run resolved again: r's references in it may name symbols
		// the new imports no longer declare)
		again[i] = again[i] || !hasBody(d)
	}
	last := -1 // the declaration the last span asked about lay in
	reused := func(sp syntax.Span) bool {
		if last >= 0 {
			// (the spans come mostly in order: the same declaration
			// as the last one's, found without a search)
			if w := decls[last].Base().Form.Span(); w.Start <= sp.Start && sp.End <= w.End {
				return !again[last]
			}
		}
		i := sort.Search(len(decls), func(k int) bool { return decls[k].Base().Form.Span().End > sp.Start })
		if i == len(decls) {
			return false
		}
		w := decls[i].Base().Form.Span()
		if w.Start <= sp.Start && sp.End <= w.End {
			last = i
			return !again[i]
		}
		return false
	}
	n := 0
	for _, m := range []*TypeMap{r.Types, c.res.Types} {
		if m != nil {
			n = max(n, len(m.dense))
		}
	}
	types := NewTypeMap(n)
	if r.Types != nil {
		// (a slot of r's table goes to the same slot of the answer's,
		// which is as long and empty: as Set would put it)
		for i := range r.Types.dense {
			if sl := &r.Types.dense[i]; sl.e != nil && reused(sl.e.ExprSpan()) {
				types.dense[i] = *sl
				types.n++
			}
		}
		for e, t := range r.Types.extra {
			if reused(e.ExprSpan()) {
				types.Set(e, t)
			}
		}
	}
	for e, t := range c.res.Types.All() {
		types.Set(e, t)
	}
	c.res.Types = types
	// The run's references stand where it made one: the reused
	// declarations' interfaces, resolved again, refer to the run's
	// symbols, whose types and details may differ from r's (a type
	// reading an imported member that changed). r's references fill in
	// the reused bodies.
	ran := make(map[syntax.Span]bool, len(c.res.Refs))
	for _, ref := range c.res.Refs {
		ran[ref.Span] = true
	}
	var refs []Ref
	var imported *counterparts // (made on first use)
	whole := true
	for _, ref := range r.Refs {
		if !reused(ref.Span) || ran[ref.Span] {
			continue
		}
		if ref.Sym != nil && ref.Sym.File != r.Path {
			// a name of an imported module: the run's import of it (its
			// text may have moved, its doc changed) answers
			if imported == nil {
				imported = newCounterparts(c.res)
			}
			n := imported.find(ref.Sym)
			if n == nil {
				whole = false // (not expected: the body would have been checked again)
				continue
			}
			ref.Sym = n
		}
		refs = append(refs, ref)
	}
	c.res.Refs = append(refs, c.res.Refs...)
	// the symbols the reused bodies declare (their locals): the run made
	// only its declarations' interfaces' own
	type symAt struct {
		span syntax.Span
		kind SymbolKind
		name string
	}
	made := make(map[symAt]bool, len(c.res.Symbols))
	for _, s := range c.res.Symbols {
		made[symAt{s.Span, s.Kind, s.Name}] = true // (a postcondition's result is at its function's name)
	}
	var carried []*Symbol
	for _, s := range r.Symbols {
		if s.File == r.Path && !made[symAt{s.Span, s.Kind, s.Name}] && reused(s.Span) {
			c.res.Symbols = append(c.res.Symbols, s)
			carried = append(carried, s)
		}
	}
	// and they are members of c's symbols as they were of r's (a
	// machine's events, which a surface checked again later looks up
	// among its machine's members: Overlay), under the carried symbol
	// itself or c's symbol of the same name
	if len(carried) > 0 {
		isCarried := make(map[*Symbol]bool, len(carried))
		for _, s := range carried {
			isCarried[s] = true
		}
		var mine map[string]*Symbol
		for _, s := range carried {
			p := s.Parent
			if p == nil {
				continue
			}
			if !isCarried[p] {
				if mine == nil {
					mine = make(map[string]*Symbol, len(c.res.Symbols))
					for _, m := range c.res.Symbols {
						if m.File == r.Path && !isCarried[m] {
							if k := SymbolKey(m); mine[k] == nil {
								mine[k] = m
							}
						}
					}
				}
				if p = mine[SymbolKey(p)]; p == nil {
					whole = false // (not expected: the run made every declaration's symbol)
					continue
				}
			}
			if c.children == nil {
				c.children = map[*Symbol][]*Symbol{}
			}
			c.children[p] = append(c.children[p], s)
		}
	}
	c.complete = whole
}

// counterparts finds, among the symbols of the modules a result imports
// (directly or not), the one that stands where a symbol of an earlier
// check of the same file stood: the first symbol of that file (the
// first of the closure's results of it, in import order) with the same
// kind and name under the counterpart of its parent (the symbol
// SymbolKey names alike). Only the symbols asked for are looked up: a
// declaration by name in its module's table, a member among its
// parent's members. Indexing every symbol of the closure by SymbolKey
// instead cost the 200-module workspace's importers more than checking
// their bodies.
type counterparts struct {
	results map[string]*Result // by file: the first result of it
	found   map[*Symbol]*Symbol
	// byKey indexes by SymbolKey the symbols of a file whose result
	// keeps no checker state (made on first use)
	byKey map[string]map[string]*Symbol
	// members indexes the members of a parent with many of them
	members map[*Symbol]map[memberKey]*Symbol
}

func newCounterparts(res *Result) *counterparts {
	x := &counterparts{results: map[string]*Result{}, found: map[*Symbol]*Symbol{}}
	seen := map[*Result]bool{}
	var walk func(r *Result)
	walk = func(r *Result) {
		for _, im := range r.Imports {
			if im.Imported == nil || im.Result == nil || seen[im.Result] {
				continue
			}
			seen[im.Result] = true
			// (the symbols of a result are its file's own)
			if _, ok := x.results[im.Result.Path]; !ok {
				x.results[im.Result.Path] = im.Result
			}
			walk(im.Result)
		}
	}
	walk(res)
	return x
}

// find returns s's counterpart, nil when there is none.
func (x *counterparts) find(s *Symbol) *Symbol {
	if n, ok := x.found[s]; ok {
		return n
	}
	n := x.lookup(s)
	x.found[s] = n
	return n
}

func (x *counterparts) lookup(s *Symbol) *Symbol {
	r := x.results[s.File]
	if r == nil {
		return nil
	}
	ic := r.checker
	if ic == nil || ic.base != nil || ic.kept {
		// (no tables to look in: every symbol of the file by key)
		return x.keyed(r)[SymbolKey(s)]
	}
	if s.Parent == nil {
		if d := ic.decls[s.Name]; d != nil && d.Parent == nil && d.Kind == s.Kind && s.Decl != nil {
			return d // (the first declaration of the name is its first symbol)
		}
		for _, m := range r.Symbols {
			if m.Parent == nil && m.Kind == s.Kind && m.Name == s.Name {
				return m
			}
		}
		return nil
	}
	p := x.find(s.Parent)
	if p == nil {
		return nil
	}
	ms := ic.members(p)
	if len(ms) <= 2*smallScope {
		for _, m := range ms {
			if m.Kind == s.Kind && m.Name == s.Name {
				return m
			}
		}
		return nil
	}
	ix := x.members[p]
	if ix == nil {
		ix = make(map[memberKey]*Symbol, len(ms))
		for _, m := range ms {
			if k := (memberKey{m.Kind, m.Name}); ix[k] == nil {
				ix[k] = m
			}
		}
		if x.members == nil {
			x.members = map[*Symbol]map[memberKey]*Symbol{}
		}
		x.members[p] = ix
	}
	return ix[memberKey{s.Kind, s.Name}]
}

// keyed indexes r's symbols by SymbolKey (the first of each key).
func (x *counterparts) keyed(r *Result) map[string]*Symbol {
	if m := x.byKey[r.Path]; m != nil {
		return m
	}
	m := make(map[string]*Symbol, len(r.Symbols))
	for _, s := range r.Symbols {
		if k := SymbolKey(s); m[k] == nil {
			m[k] = s
		}
	}
	if x.byKey == nil {
		x.byKey = map[string]map[string]*Symbol{}
	}
	x.byKey[r.Path] = m
	return m
}

// SymbolKey names a symbol within its file: its kind and name, and its
// parents' (the same symbol of two checks of a file has one key).
func SymbolKey(s *Symbol) string {
	var b strings.Builder
	for ; s != nil; s = s.Parent {
		b.WriteString(string(s.Kind))
		b.WriteByte(0)
		b.WriteString(s.Name)
		b.WriteByte(1)
	}
	return b.String()
}

// Complete reports whether r's Types and Refs cover every body of its
// module, as a full check's do: a full check's result, or a
// RecheckImports answer over a complete result (the bodies it reused
// keep their types and references). The interpreter can run a complete
// result's functions, so that it may answer other files' imports in a
// cache whose files' examples are evaluated. An answer of Recheck, or
// of RecheckImportsAt over another tree, is not complete.
//
// The interpreter runs imported modules' functions too: a result is
// complete only when the results of its imports are (a RecheckImports
// answer whose imports were answered by incomplete results is not).
func (r *Result) Complete() bool {
	return r != nil && r.checker != nil && r.checker.complete && importsComplete(r)
}

// Partial reports whether r is known to lack the expression types and
// references of some of its own bodies: an answer of the engine that is
// not complete (a fast Recheck's answer, an Importable or
// RecheckImportsAt answer, which reuse bodies' diagnostics without their
// types). Its symbols, interfaces, diagnostics and engine state are a
// full check's, which is all that other files' checks read of an import;
// the interpreter, which runs bodies, reads a full check of the same
// text instead (CompleteImports). A result without engine state (a
// one-shot check) is a full check's: not partial.
func (r *Result) Partial() bool {
	return r != nil && r.checker != nil && !r.checker.complete
}

// importsPartial reports whether a result r imports, directly or not, is
// Partial.
func importsPartial(r *Result) bool {
	seen := map[*Result]bool{}
	var walk func(r *Result) bool
	walk = func(r *Result) bool {
		for _, im := range r.Imports {
			if im.Imported == nil || im.Result == nil || seen[im.Result] {
				continue
			}
			seen[im.Result] = true
			if im.Result.Partial() || walk(im.Result) {
				return true
			}
		}
		return false
	}
	return walk(r)
}

// CompletionHook, when not nil, is called with the path of every file
// checked in full because a partial result of it was imported
// (CompleteImports, and the example scopes' imports): tests count those
// checks beside the loader's (load.CheckHook). It must be set before
// any check runs and left alone while one does.
var CompletionHook func(path string)

// CompleteImports returns r when no result it imports, directly or not,
// is Partial; otherwise a one-shot check of r's tree whose imports are
// answered by full checks of their texts (made once per imported
// result, shared by every importer), so that the interpreter, which
// runs imported functions' bodies and reads their types, can run r's
// functions: the language server's import cache answers imports with
// partial results, which its importers' checks need no more of. Each
// call checks r again (the callers, the interpreter and the verifier,
// keep what they make of it; r is not made to keep a second check).
func (r *Result) CompleteImports() *Result {
	if r == nil || r.File == nil || r.File.Module == nil || !importsPartial(r) {
		return r
	}
	if CompletionHook != nil {
		CompletionHook(r.Path)
	}
	imp := scopeImporter{}
	for _, im := range r.Imports {
		if im.Imported != nil && im.Import != nil {
			imp[im.Import.Path.Name] = completeImported(im.Imported)
		}
	}
	return Check(currentTree(r), Options{Path: r.Path, Importer: imp, Once: true})
}

// importsComplete reports whether the results r imports are complete.
func importsComplete(r *Result) bool {
	for _, im := range r.Imports {
		if im.Imported != nil && im.Result != nil && !im.Result.Complete() {
			return false
		}
	}
	return true
}

// TreeCurrent reports whether r's tree is at its text's offsets, as a
// full check's is: every result but a fast Recheck's answer (whose kept
// declarations' trees keep older texts' offsets). A full check of r's
// text may take its tree.
func (r *Result) TreeCurrent() bool {
	return r != nil && r.File != nil && (r.checker == nil || !r.checker.kept && r.checker.base == nil)
}
