package check

import (
	"bytes"
	"sync"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Recheck returns the diagnostics that checking cur, a later version of
// the file r was checked from, would report, checking again only the
// declarations whose inputs changed: the language server's path from an
// edit to diagnostics. The result is exactly a full check's (codes,
// spans, messages, related places, order); differential tests hold it to
// that after every edit.
//
// A check records, for every declaration of the module: its text's hash;
// its interface hash (its text without the parts only its own check reads
// (a function's body, examples and contracts, a machine's states, a
// surface's title and route, a store's backend), combined with the
// interfaces of every declaration its interface refers to, transitively);
// what its checks looked up (declarations by name, found or not, and
// module facts: the names of a kind, the surfaces bound to a machine, the
// profile line, the variant types, the import aliases it read (keyAlias:
// whether each names an import, a failed one or none, and which file it
// resolves to) and the imported members it read (keyImport)); and its
// diagnostics, relative to its start.
//
// Recheck aligns cur's declarations with r's (those before and after the
// edited region in order, those inside it by content) and checks again
// each declaration that
//   - is new or whose text changed, or
//   - looked up a name that now finds nothing, another declaration, or
//     one whose interface changed, or read a module fact that changed, or
//   - whose own interface changed through what it refers to, or
//   - reported a diagnostic outside its own text.
//
// Every other declaration keeps its diagnostics, moved to its new start.
// The module-level checks (the header, profiles, imports, duplicate
// declarations, authority-policy conditions, acceptance policies no claim
// names) run on the new version; an acceptance policy whose check is
// reused is malformed when that check reported a diagnostic.
//
// An edit of the module's own imports (an import added, removed,
// pointed at another module, given another alias, duplicated, moved) is
// decided the same way: only the declarations that read an alias whose
// answer changed, or a member whose interface differs in the module it
// now names, are checked again, with what depends on them through
// interfaces, transitively; an unused import toggled checks no body
// again.
//
// Normally (fastRecheck) only the declarations checked again are read
// from cur and built, over r's trees, types, signatures and members for
// the rest; a changed header (its imports included) is read alone. When
// the text after the module's last declaration changed, or either
// version is laid out otherwise (a form outside the module, a header
// clause after a declaration, a list that is no declaration), Recheck
// reads and builds all of cur, and still checks again only what
// changed.
//
// r may be a full check, or the answer of an earlier RecheckResult or
// RecheckImports (chain.go): a run of edits needs no full check in
// between. Recheck reports ok=false, and the caller checks cur in full,
// only when r kept no checker state (DropRecheckState, a file without a
// module), when cur has a syntax error (the reader's
// recovery may regroup forms around it; when r's text had one, a
// declaration of r keeps its diagnostics only if reading it alone gives
// the same form), or when cur imports a module r's check did not
// resolve. The imports r resolved are taken as
// they were; the caller must not use a result whose imports may have
// changed since.
func (r *Result) Recheck(cur *syntax.CST) (diags []syntax.Diagnostic, ok bool) {
	d, _, ok := r.recheck(cur)
	return d, ok
}

// acceptanceWord marks a text that may declare acceptance policies
// (claims before facts): only such a text needs their module-wide check
// (W_CLAIM_UNUSED_POLICY) after an edit.
var acceptanceWord = []byte("acceptance")

// mayDeclareAcceptance reports whether the base's text or cur contains
// the word acceptance. The base's answer is computed once; cur is
// searched only where it differs from the base's text (pre and suf are
// their common prefix's and suffix's lengths: an occurrence
// that does not overlap the difference is one the base has too).
func mayDeclareAcceptance(old *version, cur []byte, pre, suf int) bool {
	if old.acceptance {
		return true
	}
	from := max(0, pre-len(acceptanceWord)+1)
	to := min(len(cur), len(cur)-suf+len(acceptanceWord)-1)
	return from < to && bytes.Contains(cur[from:to], acceptanceWord)
}

// RecheckResult is Recheck returning a Result: its Diagnostics are
// Recheck's, and it is a base for the next Recheck (chain.go), so that a
// language server answers a run of edits without checking in full. It is
// not a full check's Result otherwise: Types, Refs, Symbols and the
// trees of the declarations it kept (which keep the offsets of the text
// they were built from) are not for requests; check the text in full for
// those.
func (r *Result) RecheckResult(cur *syntax.CST) (*Result, bool) {
	res, _, ok := r.recheckResult(cur)
	return res, ok
}

// RecheckResultWith is RecheckResult with imp answering the imports of
// cur that r's check did not resolve (an import added that names a module
// r's file did not import), as a full check of cur with imp would: the
// language server passes its loader's importer, which records the import
// in its graph and refuses a cycle as a full check does. The imports r
// resolved are answered as they were. imp nil is RecheckResult.
func (r *Result) RecheckResultWith(cur *syntax.CST, imp Importer) (*Result, bool) {
	res, _, ok := r.recheckResultWith(cur, imp)
	return res, ok
}

// recheck is Recheck, also returning the run's counts (for tests).
func (r *Result) recheck(cur *syntax.CST) ([]syntax.Diagnostic, *engineRun, bool) {
	res, eng, ok := r.recheckResult(cur)
	if !ok {
		return nil, nil, false
	}
	return res.Diagnostics, eng, true
}

// recheckResult is RecheckResult, also returning the run's counts.
func (r *Result) recheckResult(cur *syntax.CST) (*Result, *engineRun, bool) {
	return r.recheckResultWith(cur, nil)
}

// recheckResultWith is RecheckResultWith, also returning the run's
// counts.
func (r *Result) recheckResultWith(cur *syntax.CST, more Importer) (*Result, *engineRun, bool) {
	base := r.checker
	if base == nil || base.eng != nil || r.File == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return nil, nil, false
	}
	if cur == nil || cur.Len() == 0 || cur.HasError(0) {
		return nil, nil, false
	}
	old := base.version(r.File.Source.CST)
	pre, suf := cur.EditedEnds(r.File.Source.CST)
	if !wholeRecheck { // (set by benchmarks only)
		if res, eng, ok := r.fastRecheck(cur, pre, suf, more); ok {
			return res, eng, true
		}
	}
	f := ast.Build(syntax.Read(cur))
	if f.Module == nil {
		// nothing to check beyond reading and building
		diags := append([]syntax.Diagnostic(nil), f.Diagnostics...)
		sortDiagnostics(diags)
		// (no checker: not a base for the next Recheck)
		return &Result{Path: r.Path, File: f, Diagnostics: diags}, &engineRun{whole: true}, true
	}
	eng := &engineRun{old: old, src: cur.Src, whole: true, base: base}
	// When the imports changed, a body is checked again only when an
	// alias or imported member it read has another value (keyAlias,
	// keyImport); the imports are answered as r's check resolved them,
	// and one it did not resolve is answered by more (RecheckResultWith)
	// or, when more is nil, makes Recheck decline.
	eng.importsChanged = !sameImports(r.File.Source.CST.Src, r.File.Module, cur.Src, f.Module)
	opts := base.opts
	var replay *replayImporter
	if opts.Importer != nil {
		replay = &replayImporter{log: base.importLog, more: more}
		opts.Importer = replay
	}
	c := runEngine(opts, f, eng)
	if replay != nil {
		replay.more = nil // (the answer does not keep the caller's importer)
	}
	eng.base, eng.keep = nil, nil // (the answer does not keep its base alive)
	if replay != nil && replay.missed {
		return nil, nil, false
	}
	// The check is a full check's but for the bodies it reused (their
	// records are the base's): a base for the next Recheck.
	c.keepInterfaceDiagnostics()
	sortDiagnostics(c.res.Diagnostics)
	c.eng = nil
	c.res.checker = c
	return c.res, eng, true
}

// version returns what the engine needs of the check that c ended (built
// once, on the first Recheck against it).
func (c *checker) version(cst *syntax.CST) *version {
	c.verOnce.Do(func() {
		if c.next != nil {
			// a fast Recheck's checker (chain.go)
			c.ver, c.next = c.next, nil
			if v := c.ver; v.rev == nil {
				v.rev = v.reverse()
				v.rev.ownKeys()
			}
			return
		}
		c.compactOnce.Do(func() { compact(c.info) })
		m := c.mod
		if m == nil {
			m = &ast.Module{} // a file without a module: no declarations
		}
		c.ver = newVersion(cst.Src, m, c.info, c.decls, c.index)
		c.ver.imports, c.ver.failed = c.imports, c.failedImports
		c.ver.acceptance = bytes.Contains(cst.Src, acceptanceWord)
		c.ver.ifaces(nil, nil)
		c.ver.rev = c.ver.reverse()
		if l, ok := cut(cst); ok {
			c.ver.layout, c.ver.layoutOK = &l, true
		}
		c.ver.policy, c.ver.policyOK = make([][]syntax.Diagnostic, len(m.Decls)), true
		for _, d := range c.policyDiags {
			j := declAtOffset(m, d.Span)
			if j < 0 {
				c.ver.policyOK = false
				break
			}
			rd, out := relative(d, m.Decls[j].Base().Form.Span())
			if out {
				c.ver.policyOK = false
				break
			}
			c.ver.policy[j] = append(c.ver.policy[j], rd)
		}
		if cst.HasError(0) {
			// An untrusted declaration's text may be the same as a later
			// version's while its tree is not: its interface is equal to
			// no other.
			c.ver.untrusted = untrusted(cst, m)
			for i, u := range c.ver.untrusted {
				if u {
					c.ver.decls[i].iface = mix(versions.Add(1), uint64(i))
				}
			}
		}
	})
	return c.ver
}

// untrusted marks the declarations of a module read from a text with
// syntax errors that an error-free text would not read the same: the
// reader's recovery regroups forms by indentation, so that the same text
// may have been read, and built, otherwise. A declaration is trusted when
// its text, read alone (inside one list, as inside the module), has no
// error and gives the same form.
func untrusted(cst *syntax.CST, m *ast.Module) []bool {
	out := make([]bool, len(m.Decls))
	for i, d := range m.Decls {
		f := d.Base().Form
		if !f.Closed || f.Span().End > len(cst.Src) {
			out[i] = true
			continue
		}
		text := make([]byte, 0, f.Span().Len()+2)
		text = append(append(append(text, '('), cst.Src[f.Span().Start:f.Span().End]...), ')')
		alone, err := syntax.Parse(text)
		if err != nil || alone.HasError(0) {
			out[i] = true
			continue
		}
		src := syntax.Read(alone)
		out[i] = len(src.Forms) != 1 || len(src.Diagnostics) > 0 || len(src.Forms[0].Items()) != 1 || !sameForm(src.Forms[0].Items()[0], f, f.Span().Start-1)
	}
	return out
}

// sameForm reports whether two forms are the same tree, a's spans
// being off by d.
func sameForm(a, b *syntax.Form, d int) bool {
	if a.Kind != b.Kind || a.Closed != b.Closed || shift(a.Span(), d) != b.Span() || a.Text() != b.Text() || len(a.Items()) != len(b.Items()) {
		return false
	}
	for i := range a.Items() {
		if !sameForm(a.Items()[i], b.Items()[i], d) {
			return false
		}
	}
	return true
}

// sameImports reports whether two versions import the same modules, with
// the same text.
func sameImports(oldSrc []byte, a *ast.Module, newSrc []byte, b *ast.Module) bool {
	if a == nil {
		return len(b.Imports) == 0
	}
	if len(a.Imports) != len(b.Imports) {
		return false
	}
	for i := range a.Imports {
		x, y := a.Imports[i].Form.Span(), b.Imports[i].Form.Span()
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
	// view is what importers' engines read of the check (importView).
	viewOnce sync.Once
	view     *version
	// compactOnce compacts the body dependencies once, for version and
	// importView alike.
	compactOnce sync.Once
}

// runEngine runs the module pass over f with eng deciding, declaration by
// declaration, what is checked again and what is taken from its base: the
// whole-file Recheck and RecheckImports both end here.
func runEngine(opts Options, f *ast.File, eng *engineRun) *checker {
	ndecls := len(f.Module.Decls)
	c := &checker{
		res:   &Result{Path: opts.Path, File: f, Types: &TypeMap{}, FuncEffects: make(map[*ast.Function][]EffectUse, ndecls)},
		opts:  opts,
		decls: make(map[string]*Symbol, ndecls),
		eng:   eng,
	}
	c.res.Diagnostics = append(c.res.Diagnostics, f.Diagnostics...)
	c.module(f.Module)
	return c
}
