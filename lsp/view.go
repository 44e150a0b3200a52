package lsp

// This file answers requests sent right after an edit (completion, hover,
// signature help, definition) without checking the new version in full.
//
// A snapshot's view combines two things that already exist or are cheap:
//
//   - the document's base, the newest full check (check.Result), for
//     everything the edit did not touch: its module-level names, types,
//     symbols and references, with their offsets moved by the edit's shift
//     (after an imported module changed, before the document's next full
//     check, its view base instead: an engine answer with the new imports
//     that covers every body, chainView);
//   - the declarations the edit touched, read and built alone from the
//     current CST and checked against the base's module state
//     (check.Overlay), only when a request needs what they declare.
//
// Between the base's text and the current one, the edit is the span where
// the two differ (after their common prefix, before their common suffix).
// The module's children (declarations, header clauses, comments) are the
// units: a unit that touches that span changed; the others are the base's,
// shifted. A type removed or renamed, or a name a changed declaration
// shares with an unchanged one, also reads again the declarations that
// looked the name up (check.Result.Users). An edit of the imports
// resolves them anew and reads again the declarations naming an alias
// that changed (importsEdited). A text with a syntax error is cut as the
// reader's recovery reads it (errorUnits), from the read's own top-level
// forms when the tree groups them otherwise (topFromRead). When that
// picture is unsound (no base yet, a syntax error the view cannot place,
// an edit to the module form itself, a declaration outside the module),
// the view is the snapshot's own full check, counted in fullViews.

import (
	"bytes"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// quickViews and fullViews count the views built from a base and the
// views that needed the snapshot's full check, for tests and the bench.
var quickViews, fullViews atomic.Int64

// view is what requests on one snapshot read: exact (the snapshot's own
// check) or quick (its base, the edit, and the touched declarations).
type view struct {
	sn  *snapshot
	pkg *load.Package // exact views only

	// quick views
	base             *baseInfo
	baseRes          *check.Result // base's result (set first)
	oldSegs, newSegs []seg         // the versions' units, matched
	modSpan          syntax.Span   // the module form's
	top              []vunit       // the file's top-level nodes
	modDoc           string        // the module's doc comment, when modDocSet
	modDocSet        bool
	modName          string      // the module's name, when modNameSet (an edit changed it)
	modNameSpan      syntax.Span // and its span
	modNameSet       bool
	units            []vunit    // the current module's children, in order
	newDecls         []ast.Decl // the changed units' declarations, in order
	replaced         map[ast.Decl]bool
	// imps: the current version's imports, resolved anew when its import
	// forms differ from the base's (importsEdited); nil otherwise
	imps *check.ImportSet
	// gone: the names of replaced declarations no declaration of the
	// current version has (they resolve to nothing in the overlay);
	// usersRead counts the unchanged declarations read again because
	// a type they use is gone or a name they use is declared twice
	// (check.Result.Users), or because a changed declaration took their
	// name
	gone      []string
	usersRead int
	// depsRead counts the unchanged declarations check read again
	// because they refer to a changed declaration whose interface
	// changed (dependents)
	depsRead int

	modOnce sync.Once
	modForm *syntax.Form // the module form, its items shallow (modFormOf)

	rmu   sync.Mutex          // guards reads
	reads map[int32]*unitRead // by node: the units read in full

	// text with a syntax error: the text read as a full check reads it
	// (errRead), and the forms of the units in that read, by node
	errSrc     *syntax.Source
	errForms   map[int32]errForm
	errPartial bool // read from the edit only (partialRead)
	errStopped bool // and stopped before the module's end
	// modOpen: the read leaves the module form open to the end of the
	// text (a list left open in its last declaration takes in the
	// module's closing parenthesis): the module has no closing unit, and
	// its span is the read's (errorUnits)
	modOpen bool

	mu      sync.Mutex // guards what follows
	checked bool
	ov      *check.Overlay
	fsyms   []*check.Symbol // the overlay's symbols
	frefs   []check.Ref     // the overlay's references, by start
	fdefs   []*check.Symbol // its symbols with a name, by start
	fby     map[string]*check.Symbol
	mine    map[*check.Symbol]bool
}

// vunit is one child node of the module list (or a top-level node). It
// holds only what cutting the tree gives, as every version cuts all of its
// units: a unit's shallow form (formOf), its full form and declaration
// (view.read) are made when a request needs them.
type vunit struct {
	span    syntax.Span
	head    string // a list's head symbol
	shift   int    // from the base's offsets (unchanged units)
	node    int32
	item    int32 // the index among the module's items (not parentheses or comments), -1 for those
	kind    syntax.Kind
	changed bool
}

// hasForm reports whether the unit reads as a form (a list or an atom; not
// a comment or a parenthesis).
func (u *vunit) hasForm() bool {
	switch u.kind {
	case syntax.KindList, syntax.KindSymbol, syntax.KindNumber, syntax.KindString:
		return true
	}
	return false
}

// formOf returns unit u's shallow form (a list without its items, or an
// atom) in c; ok is false when it reads as no form.
func formOf(c *syntax.CST, u *vunit) (f syntax.Form, ok bool) {
	switch u.kind {
	case syntax.KindList:
		f = syntax.ListForm(u.span, nil, true)
	case syntax.KindSymbol:
		f = syntax.AtomForm(syntax.FormSymbol, u.span, c.Text(u.node))
	case syntax.KindNumber:
		f = syntax.AtomForm(syntax.FormNumber, u.span, c.Text(u.node))
	case syntax.KindString:
		f = syntax.AtomForm(syntax.FormString, u.span, "")
	default:
		return f, false
	}
	return f, true
}

// unitRead is a unit read in full, and its declaration built (once).
type unitRead struct {
	once sync.Once
	full *syntax.Form
	decl ast.Decl
}

// baseInfo is what the views of one base share: its index and the symbols
// completion lists.
type baseInfo struct {
	res   *check.Result
	cst   *syntax.CST
	enums []*check.Symbol
	// locals are the local symbols, by name start.
	locals []*check.Symbol

	recOnce        sync.Once
	recPre, recSuf int // recoversAlike's answer
	recOK          bool
	recReady       atomic.Bool // set once recoversAlike's answer is made
}

// recoversAlike tells how much of the base the reader's recovery reads as
// the base was read (syntax.RecoversAlike): a later version with a syntax
// error reads as the base where the two are alike and the recovery reads
// the base alike. It is made once per base: in the background when the
// base is installed (docCache.prepareBase), else by the first version
// with a syntax error viewed over it; a request that comes while the
// background read runs waits for that read (it started earlier than the
// request could) rather than making it a second time. pre and suf count
// the module's items from its first and from its last.
func (bi *baseInfo) recoversAlike() (pre, suf int, ok bool) {
	bi.recOnce.Do(func() { bi.readRecovery(false) })
	return bi.recPre, bi.recSuf, bi.recOK
}

// readRecovery makes recoversAlike's answer (under recOnce); background
// tells that prepareBase makes it.
func (bi *baseInfo) readRecovery(background bool) {
	if m := bi.res.File.Module; m != nil && m.Form != nil {
		recoveryReads.Add(1)
		if background {
			recoveryPrefetches.Add(1)
		}
		bi.recPre, bi.recSuf, bi.recOK = syntax.RecoversAlike(bi.res.File.Source, m.Form)
	}
	bi.recReady.Store(true)
}

// recoveryReads counts the bases' recovery reads (recoversAlike), and
// recoveryPrefetches those made in the background when a base was
// installed (prepareBase), before any request asked.
var recoveryReads, recoveryPrefetches atomic.Int64

// baseInfoOf returns the shared information about base (built once per
// base and document).
func (sn *snapshot) baseInfoOf(base *check.Result) *baseInfo {
	c := sn.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.baseInfoLocked(base)
}

// baseInfoLocked is baseInfoOf with c.mu held.
func (c *docCache) baseInfoLocked(base *check.Result) *baseInfo {
	if c.base != nil && c.base.res == base {
		return c.base
	}
	bi := &baseInfo{res: base, cst: base.File.Source.CST}
	for _, s := range base.Symbols {
		switch s.Kind {
		case check.SymEnumMember:
			bi.enums = append(bi.enums, s)
		case check.SymLocal:
			bi.locals = append(bi.locals, s)
		}
	}
	sort.SliceStable(bi.locals, func(i, j int) bool { return bi.locals[i].Span.Start < bi.locals[j].Span.Start })
	c.base = bi
	return bi
}

// prepareBase makes, off the request path, what the views over base, the
// document's new full check, share: its information (baseInfoOf) and its
// recovery read (recoversAlike), so that the first version with a syntax
// error on it reads the text from the edit without reading the whole base
// first. It returns at once; the work runs in its own goroutine, unless a
// later base was prepared meanwhile or a request made it first. A base a
// view cannot be built over (quickViewOver) is not read. It reports
// whether it started the work.
func (c *docCache) prepareBase(base *check.Result) bool {
	if !viewableBase(base) {
		return false
	}
	c.mu.Lock()
	c.latest = base
	c.mu.Unlock()
	go func() {
		// (a panic in the read leaves recoversAlike's answer "not alike":
		// views then read the whole text, as a request's own read would)
		defer func() { recover() }()
		bi := func() *baseInfo {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.latest != base {
				return nil // (a later base was installed: its own work reads it)
			}
			return c.baseInfoLocked(base)
		}()
		if bi == nil {
			return
		}
		bi.recOnce.Do(func() { bi.readRecovery(true) })
	}()
	return true
}

// viewableBase reports whether views can be built over base and may read
// its recovery (quickViewOver's and partialRead's conditions on the base).
func viewableBase(base *check.Result) bool {
	if base == nil || base.File == nil || base.File.Module == nil || base.File.Module.Form == nil || base.File.Source == nil || base.File.Source.CST == nil || base.File.Source.TooDeep {
		return false
	}
	c := base.File.Source.CST
	return c.Len() > 0 && !c.HasError(0)
}

// at answers what index.at would on an index of the base, by one pass over
// its references and symbols (sorting them all, for an index, costs more
// than a request should while the base changes at every full check): the
// reference covering off that starts first, else the symbol of the file
// whose name covers off that starts first.
func (bi *baseInfo) at(off int) (*check.Symbol, syntax.Span) { return scanAt(bi.res, off) }

// scanAt is index.at over a check result, without building an index.
func scanAt(res *check.Result, off int) (*check.Symbol, syntax.Span) {
	var best *check.Ref
	for i := range res.Refs {
		r := &res.Refs[i]
		if r.Span.Contains(off) && (best == nil || r.Span.Start < best.Span.Start) {
			best = r
		}
	}
	if best != nil {
		return best.Sym, best.Span
	}
	var def *check.Symbol
	for _, s := range res.Symbols {
		if s.Span.End > s.Span.Start && s.Span.Contains(off) && res.Local(s) && (def == nil || s.Span.Start < def.Span.Start) {
			def = s
		}
	}
	if def != nil {
		return def, def.Span
	}
	return nil, syntax.Span{}
}

// view returns the view requests on the snapshot read: its own check when
// that is done, else one built from its base when that is sound, else its
// own check (computed now).
func (sn *snapshot) view() *view {
	if v := sn.qv.Load(); v != nil {
		return v // the same answers whichever comes first
	}
	if sn.done.Load() {
		return sn.exactView()
	}
	if sn.base == nil && sn.imp != nil {
		sn.viewOnce.Do(func() {
			if v := sn.chainView(); v != nil {
				chainViews.Add(1)
				sn.qv.Store(v)
			}
		})
		if v := sn.qv.Load(); v != nil {
			return v
		}
		if v := sn.importView(); v != nil {
			return v
		}
	}
	sn.viewOnce.Do(func() {
		if v := sn.quickView(); v != nil {
			quickViews.Add(1)
			sn.qv.Store(v)
		}
	})
	if v := sn.qv.Load(); v != nil {
		return v
	}
	fullViews.Add(1)
	return sn.exactView()
}

// importBase is what a snapshot without a base, because a module its
// document imports changed, answers requests from (snapshot.imp): the
// engine's last answer for the document (importDeps.engineBase), checked
// again by the engine with the imports as they are now and the snapshot's
// text (check.Result.RecheckImportsAt, as an importer job does), the open
// modules it imports answered from their own last answers (answerOf).
type importBase struct {
	srv   *Server
	base  *check.Result
	deps  *importDeps
	views *viewBases // the document's when the snapshot was made

	once sync.Once
	pkg  *load.Package // nil when the engine declined
	v    *view
}

// importViews counts the views answered from the engine's answer after an
// import changed (importView), for tests and the bench.
var importViews atomic.Int64

// chainViews counts the views of a document's own edit, after an import
// changed, built over its engine answer of an earlier text (importBase.view)
// rather than answered by the engine again, for tests and the bench.
var chainViews atomic.Int64

// importView returns the view of a snapshot whose imports changed since
// its document's last check, from the engine's answer (importBase), or
// nil when the engine declines (the snapshot's own check answers then).
// The answer is exact: the engine's answer of a text with new imports is
// a full check's (check.Result.RecheckImportsAt), its symbols, references
// and types included.
//
// An answer of another text than its base's (the document was edited
// since: check.Result.RecheckImportsAt over a new tree) keeps the types,
// references and local symbols only of the bodies it checked again
// (check.Result.Partial): it is not used, the full check answers.
func (sn *snapshot) importView() *view {
	ib := sn.imp
	ib.once.Do(func() {
		if pkg, ok := ib.srv.recheckImportsFor(sn, ib.base, ib.srv.importAnswers(sn, ib.deps)); ok && !pkg.Result.Partial() {
			ib.pkg = pkg
			ib.views.offer(pkg.Result)
		}
		if ib.pkg != nil {
			ib.v = &view{sn: sn, pkg: ib.pkg}
			importViews.Add(1)
		}
	})
	return ib.v
}

// viewBases is what the views of a document's snapshots without a base,
// because a module it imports changed, are built over (chainView): the
// engine's answer of one of its texts with the imports as they are now,
// tree-current and covering every body (a full check's symbols,
// references and types; check.Overlay reads its module state). One is
// made each time importersOf drops the document's base, so that an
// answer of older imports is only offered to the one it was made for.
type viewBases struct {
	mu   sync.Mutex
	res  *check.Result
	once sync.Once // (made from the engine base or prev: chainView)
	// prev is a view base of the imports before the change (the
	// document's full check, or its last view base), nil when it had
	// none: checked again with the new imports, it is one of theirs
	prev *check.Result
}

// offer makes res the views' base when it can be one.
func (vb *viewBases) offer(res *check.Result) {
	if vb == nil || res == nil || !res.TreeCurrent() || res.Partial() || !res.Rechecks() || res.File == nil || res.File.Module == nil || res.File.Source == nil || res.File.Source.CST == nil {
		return
	}
	vb.mu.Lock()
	vb.res = res
	vb.mu.Unlock()
}

func (vb *viewBases) get() *check.Result {
	vb.mu.Lock()
	defer vb.mu.Unlock()
	return vb.res
}

// chainView is the view of a snapshot whose document has no base because
// a module it imports changed, and whose text is not the engine base's
// (an edit of its own followed): a quick view, as after an ordinary edit,
// over the document's view base (viewBases), made the first time from
// the engine base's own text when it is a tree-current answer covering
// every body (check.Result.RecheckImports: its bodies' types and
// references are carried over), so that the edit's declarations alone
// are read and checked (check.Overlay) instead of the whole text read,
// built and its module pass run again. nil when there is no such base
// or the quick view declines (importView, then the full check, answer).
func (sn *snapshot) chainView() *view {
	ib := sn.imp
	if ib.views == nil || ib.base == nil || ib.base.File == nil || ib.base.File.Source == nil || ib.base.File.Source.CST == nil {
		return nil
	}
	direct := ib.base.TreeCurrent() && !ib.base.Partial()
	vb := ib.views.get()
	if vb == nil {
		if direct && bytes.Equal(ib.base.File.Source.CST.Src, sn.cst.Src) {
			return nil // (the engine answers the same text: importView)
		}
		from := ib.views.prev
		if direct {
			from = ib.base // (the newer text)
		}
		if from == nil {
			return nil
		}
		ib.views.once.Do(func() {
			if pkg, ok := ib.srv.recheckImportsOwn(sn, from, ib.srv.importAnswers(sn, ib.deps)); ok {
				ib.views.offer(pkg.Result)
			}
		})
		if vb = ib.views.get(); vb == nil {
			return nil
		}
	}
	v, _ := sn.quickViewOver(vb)
	return v
}

// offerImportAnswer gives sn's requests pkg, an importer job's engine
// answer for sn (the same check importView would make), when they have not
// made their own yet and it covers every body.
func (sn *snapshot) offerImportAnswer(pkg *load.Package) {
	if pkg.Result.Partial() {
		// (it lacks the types and references of bodies it did not
		// check again: importView takes none such, the full check
		// answers; hover on an input of app17's partial_refund found
		// nothing: TestWorkspaceDifferential seed 58)
		return
	}
	if ib := sn.imp; ib != nil {
		ib.once.Do(func() {
			ib.pkg = pkg
			ib.v = &view{sn: sn, pkg: pkg}
		})
	}
}

func (sn *snapshot) exactView() *view {
	sn.evOnce.Do(func() {
		sn.ev = &view{sn: sn, pkg: sn.Package()}
		if sn.imp != nil {
			// a full check with the imports as they are now: the
			// document's later versions are viewed over it (chainView)
			sn.imp.views.offer(sn.ev.pkg.Result)
		}
	})
	return sn.ev
}

// quickView builds a view of the snapshot from its base, or returns nil
// when that is not sound.
func (sn *snapshot) quickView() *view {
	v, _ := sn.quickViewWhy()
	return v
}

// quickViewWhy is quickView with the reason it declined.
func (sn *snapshot) quickViewWhy() (*view, string) { return sn.quickViewOver(sn.base) }

// quickViewOver is quickViewWhy over base, the snapshot's base or a view
// base (chainView).
func (sn *snapshot) quickViewOver(base *check.Result) (*view, string) {
	if base == nil || base.File == nil || base.File.Module == nil || base.File.Source == nil || base.File.Source.CST == nil || base.File.Source.TooDeep {
		return nil, "no usable base"
	}
	old, cur := base.File.Source.CST, sn.cst
	if old.Len() == 0 || cur.Len() == 0 || old.HasError(0) {
		return nil, "a syntax error in the base"
	}
	_, oldTop, oldUnits, ok := sn.cache.unitsOf(old)
	if !ok {
		return nil, "no module form"
	}
	curMod, top, units, ok := sn.cache.unitsAfter(cur)
	if !ok {
		curMod, top, units, ok = moduleUnits(cur)
	}
	modSpan := syntax.Span{Start: -1, End: -1}
	switch {
	case ok:
		sn.cache.keepUnits(cur, curMod, top, units)
		modSpan = cur.Span(curMod)
	case !cur.HasError(0):
		return nil, "no module form"
	default:
		// a list left open above the module takes it in, in the tree:
		// the units are cut from the recovery's read (errorUnits), which
		// may close that list before the module
		top, units = nil, nil
	}
	v := &view{sn: sn, baseRes: base, top: top, units: units, modSpan: modSpan}
	if cur.HasError(0) {
		// the units are the module's items as a full check reads them
		if why := v.errorUnits(base); why != "" {
			return nil, why
		}
		units, top = v.units, v.top
	}
	// Match the units of the two versions: the file's top-level nodes but
	// the module, and the module's children.
	v.oldSegs, v.newSegs = segments(oldTop, oldUnits), segments(top, units)
	pre, suf, known := cur.CommonEnds(old)
	if !known {
		pre, suf = 0, 0
	}
	matchSegments(old.Src, cur.Src, pre, suf, v.oldSegs, v.newSegs)
	// The module's name (its item 1) may change: its symbol is renamed
	// (current), nothing else reads it.
	oldName, newName := nameUnit(oldUnits), nameUnit(units)
	nameOK := func(u vunit) bool {
		return u.item == 1 && u.kind == syntax.KindSymbol && oldName >= 0 && newName >= 0
	}
	importsEdited := false // an import form added, removed or changed
	for _, sg := range v.oldSegs {
		if !sg.ok && !sg.inModule {
			if sg.kind != syntax.KindComment && declaresOutside(oldTop, sg, nil) {
				// the builder reads declarations outside the module as
				// its items
				return nil, "an edit to a declaration outside the module"
			}
		}
		if !sg.ok && sg.inModule && isImportUnit(oldUnits[sg.unit]) {
			importsEdited = true
			continue
		}
		if !sg.ok && sg.inModule && !editable(oldUnits[sg.unit]) && !nameOK(oldUnits[sg.unit]) && !(v.modOpen && int(sg.unit) == len(oldUnits)-1 && oldUnits[sg.unit].kind == syntax.KindRParen) {
			// (a module left open lost its closing parenthesis to the
			// declaration left open)
			return nil, "an edit to the module form's keyword, parentheses or imports"
		}
	}
	for _, sg := range v.newSegs {
		if !sg.inModule && sg.kind != syntax.KindComment && declaresOutside(top, sg, v.errForms) {
			if !sg.ok {
				return nil, "an edit to a declaration outside the module"
			}
			// An unchanged one too: the builder reads it as one of the
			// module's items (after them), and a full check completes
			// its names and resolves through its imports, but the
			// view's declarations and imports are the module form's
			// units alone (view.decls, declFor, importsEdited): with a
			// `)` that closes the module early, every declaration after
			// it went missing from completion and signature help,
			// whatever the edit; with an `(import ...)` above the
			// module, an edit of the module's own imports lost its alias
			// (TestViewDeclOutsideModuleUnchanged).
			return nil, "a declaration outside the module"
		}
		if sg.inModule {
			units[sg.unit].shift = int(sg.shift)
		}
		if !sg.ok && sg.inModule {
			u := units[sg.unit]
			if nameOK(u) {
				v.modName, v.modNameSet = string(cur.Src[u.span.Start:u.span.End]), true
				v.modNameSpan = u.span
				continue
			}
			if isImportUnit(u) {
				importsEdited = true
			} else if !editable(u) {
				return nil, "an edit to the module form's keyword, parentheses or imports"
			}
			units[sg.unit].changed = true
		}
	}
	// Comments or stray forms around the module declare nothing (a full
	// check reports them), but the comments above the module are its doc.
	// It is read again after every edit, not only one that changed a unit
	// outside the module: a line break inserted or removed between two
	// comment lines changes no unit (each comment is matched, moved), yet
	// ends or joins the run of comments the doc is made of.
	v.modDoc, v.modDocSet = docOf(cur, top, v.modSpan.Start), true
	// The declarations replaced and their replacements.
	v.replaced = map[ast.Decl]bool{}
	// An edit above a declaration may change its doc comment: a
	// declaration after a changed unit, or whose comments above it or the
	// unit before them moved differently, is read again when its doc
	// differs.
	for j := range units {
		u := &units[j]
		if u.changed || u.kind != syntax.KindList || !isDeclHead(u.head) {
			continue
		}
		suspect := false
		k := j - 1
		// (forms before it on its own line, a stray `x` typed before its
		// `(`, do not hide the comments above it from its doc: docOf)
		for line := cur.Lines.Line(u.span.Start); k >= 0 && units[k].kind != syntax.KindComment && cur.Lines.Line(units[k].span.Start) == line; k-- {
			suspect = suspect || units[k].changed || units[k].shift != u.shift
		}
		for ; k >= 0 && units[k].kind == syntax.KindComment; k-- {
			suspect = suspect || units[k].changed || units[k].shift != u.shift
		}
		if k >= 0 {
			suspect = suspect || units[k].changed || units[k].shift != u.shift
		}
		if !suspect {
			continue
		}
		if p, ok := v.oldStart(u); ok {
			if d := v.baseDecl(p); d != nil && v.docAbove(u) != d.Base().Doc {
				u.changed = true
			}
		}
	}
	if importsEdited {
		if why := v.importsEdited(base); why != "" {
			return nil, why
		}
	}
	changedAt := map[int]bool{}
	for _, u := range units {
		if u.changed {
			changedAt[u.span.Start] = true
		}
	}
	if v.errSrc != nil {
		if why := v.errorCheck(base); why != "" {
			return nil, why
		}
	}
	// The changed declarations, and their names: a base declaration kept
	// must not have one of them.
	names := v.changedDecls(units)
	// (the declarations' starts and ends only grow: the search for their
	// units resumes where the last one stopped)
	from := 0
	var again []string // names whose declarations are read again with their users
	dup := map[ast.Decl]bool{}
	replacedNames := map[string]bool{} // of the base's declarations replaced (few)
	for _, d := range base.File.Module.Decls {
		sp, ok := v.spanFromOldAfter(d.Base().Form.Span(), &from)
		if !ok || changedAt[sp.Start] {
			v.replaced[d] = true
			if nm := d.Base().Name; nm.Valid() {
				replacedNames[nm.Name] = true
			}
		} else if nm := d.Base().Name; nm.Valid() && names[nm.Name] {
			// a changed declaration now has its name: both are read
			// again (the first resolves the name, the others are
			// reported), and so is every declaration that looked the
			// name up
			dup[d] = true
			again = append(again, nm.Name)
		}
	}
	// the declarations kept that have the name of one replaced (only
	// those names are looked up: a table of every name kept would be
	// the module's size, per request)
	kept := map[string][]ast.Decl{}
	if len(replacedNames) > 0 {
		for _, d := range base.File.Module.Decls {
			if nm := d.Base().Name; nm.Valid() && !v.replaced[d] && !names[nm.Name] && replacedNames[nm.Name] {
				kept[nm.Name] = append(kept[nm.Name], d)
			}
		}
	}
	for _, d := range base.File.Module.Decls {
		nm := d.Base().Name
		if !v.replaced[d] || !nm.Valid() || names[nm.Name] {
			continue
		}
		if ks := kept[nm.Name]; len(ks) > 0 {
			// the base declared the name twice and the edit took one
			// away: the name may resolve to the other one now
			for _, k := range ks {
				dup[k] = true
			}
			again = append(again, nm.Name)
			continue
		}
		// a name no declaration has any more
		v.gone = append(v.gone, nm.Name)
		if d.Kind() == ast.KindType {
			again = append(again, nm.Name)
		}
	}
	// A type declaration whose definition changed: what every declaration
	// that reaches it through its interface resolved (an alias of an
	// alias, a record with a field of it, a signature naming that record)
	// changes with it, so those are read again as for a removed type.
	again = append(again, v.typesRedefined(base)...)
	if len(again) > 0 {
		// A type removed or renamed, or a name declared twice: the
		// declarations that looked the name up, and those whose
		// interface changes with theirs, are read and checked again
		// (their types, signatures and members as a full check now
		// resolves them).
		users, ok := base.Users(again)
		if !ok {
			return nil, "a type removed or renamed, or a name declared twice, and the base kept no lookups"
		}
		for _, d := range users {
			dup[d] = true
		}
		from = 0
		for _, d := range base.File.Module.Decls {
			if !dup[d] || v.replaced[d] {
				continue
			}
			sp, ok := v.spanFromOldAfter(d.Base().Form.Span(), &from)
			if !ok {
				return nil, "a declaration to read again not found"
			}
			i := v.unitAt(sp.Start)
			if i < 0 || units[i].span.Start != sp.Start || units[i].changed {
				return nil, "a declaration to read again not found"
			}
			units[i].changed = true
			v.replaced[d] = true
			v.usersRead++
		}
		v.newDecls = v.newDecls[:0]
		v.changedDecls(units)
	}
	v.base = sn.baseInfoOf(base)
	return v, ""
}

// typesRedefined returns the names of the base's type declarations the
// edit replaced by a declaration of the same name with another
// definition: a type declaration has no body, so any change to its forms
// changes what others see of it, but a change of its layout or of its doc
// comment does not (the doc reaches only its own symbol, which the
// overlay gives). A declaration whose kind changed to or from a type, and
// a type whose name a changed declaration takes anew (none of the base's
// declarations had it), are among them too: the base's declarations that
// looked the name up now resolve it otherwise.
func (v *view) typesRedefined(base *check.Result) []string {
	var out []string
	byName := map[string]ast.Decl{} // the first changed declaration of each name
	for _, d := range v.newDecls {
		if nm := d.Base().Name; nm.Valid() && byName[nm.Name] == nil {
			byName[nm.Name] = d
		}
	}
	had := map[string]bool{} // of the changed declarations' names, which the base had
	for _, d := range base.File.Module.Decls {
		nm := d.Base().Name
		if !nm.Valid() {
			continue
		}
		nd := byName[nm.Name]
		if nd != nil {
			had[nm.Name] = true
		}
		if !v.replaced[d] || nd == nil || d.Kind() != ast.KindType && nd.Kind() != ast.KindType {
			continue
		}
		if nd.Kind() != d.Kind() || !sameText(d.Base().Form, nd.Base().Form) {
			out = append(out, nm.Name)
		}
	}
	for n, d := range byName {
		if !had[n] && d.Kind() == ast.KindType {
			out = append(out, n)
		}
	}
	return out
}

// sameText reports whether forms a and b have the same kinds, closing
// parentheses and atoms, all the way down, wherever they are: they differ
// at most in layout (white space, comments between atoms).
func sameText(a, b *syntax.Form) bool {
	if a == nil || b == nil {
		return a == b
	}
	return formsMatch(a, b, 0, false)
}

// changedDecls sets newDecls to the declarations of the changed units, in
// order, and returns their names.
func (v *view) changedDecls(units []vunit) map[string]bool {
	names := map[string]bool{}
	for i := range units {
		u := &units[i]
		if !u.changed || u.kind != syntax.KindList || !isDeclHead(u.head) {
			continue
		}
		d := v.declOf(u)
		if d == nil {
			continue
		}
		if nm := d.Base().Name; nm.Valid() {
			names[nm.Name] = true
		}
		v.newDecls = append(v.newDecls, d)
	}
	return names
}

// declaresOutside reports whether the top-level unit of top at sg (a form
// outside the module) may declare something: the builder reads a list
// outside the module headed by a declaration or header keyword as one of
// the module's items, and the first list headed `module` is the module.
// Any other form there (an atom, a string, another list: a line of a
// comment broken by a newline, a word typed after the module's end) is
// only reported. errForms holds the forms a text with a syntax error
// reads as (errorUnits), by node.
func declaresOutside(top []vunit, sg seg, errForms map[int32]errForm) bool {
	i := sort.Search(len(top), func(k int) bool { return top[k].span.Start >= int(sg.start) })
	if i == len(top) || top[i].span != sg.span() {
		return true // (not found: decline)
	}
	t := top[i]
	head, list := t.head, t.kind == syntax.KindList
	if e, ok := errForms[t.node]; ok {
		head, list = e.f.Head(), e.f.Kind == syntax.FormList
	}
	return list && (head == "module" || knownHeads[head] != "")
}

// nameUnit returns the index of the module's name among its children (its
// item 1, a symbol), -1 when it has none.
func nameUnit(units []vunit) int {
	for i, u := range units {
		if u.item == 1 {
			if u.kind == syntax.KindSymbol {
				return i
			}
			return -1
		}
	}
	return -1
}

// errForm is a form of a text with a syntax error as a full check reads
// it: a form read from the text, or one of the base's (base) that the read
// would give moved by shift bytes.
type errForm struct {
	f     *syntax.Form
	shift int
	base  bool
}

// form returns the form at the text's offsets (a copy when it moves).
func (e errForm) form() *syntax.Form {
	if e.shift == 0 {
		return e.f
	}
	return syntax.Shifted(e.f, e.shift)
}

// shallow returns the form at the text's offsets without its items.
func (e errForm) shallow() *syntax.Form {
	if e.shift == 0 {
		return e.f
	}
	sp := e.f.Span()
	sp.Start += e.shift
	sp.End += e.shift
	if e.f.Kind == syntax.FormList {
		return syntax.NewList(sp, nil, e.f.Closed)
	}
	return syntax.NewAtom(e.f.Kind, sp, e.f.Text())
}

// errRead is what a full check's read of a text with a syntax error gives
// (syntax.Read, with its recovery): its top-level forms, its module's
// items and span, and its comments.
type errRead struct {
	top       []errForm
	mod       int // the module's index in top, -1 when none
	modSpan   syntax.Span
	modClosed bool
	items     []errForm
	comments  []syntax.Span
	stopped   bool // the base's items follow the ones read
}

// wholeRead is errRead from a read of the whole text.
func wholeRead(src *syntax.Source) *errRead {
	r := &errRead{mod: -1, comments: src.Comments}
	for i, f := range src.Forms {
		r.top = append(r.top, errForm{f: f})
		if r.mod < 0 && f.Kind == syntax.FormList && f.Head() == "module" {
			r.mod, r.modSpan, r.modClosed = i, f.Span(), f.Closed
			for _, it := range f.Items() {
				r.items = append(r.items, errForm{f: it})
			}
		}
	}
	return r
}

// partialRead is errRead from a read of the text from the declaration
// the edit starts in until the reader is back between the module's items,
// or to the end of the text when the module closes or stays open to the
// end in the read (syntax.ReadFrom), the other forms the base's: with the base's own read
// unchanged by the recovery, the text the same as the base's before the
// edit and from the read's stop on, a full check's read gives those. It
// returns nil when that read cannot tell (a read of the whole text is
// then needed).
func (v *view) partialRead(base *check.Result) (*errRead, *syntax.Source) {
	old, cur := base.File.Source.CST, v.sn.cst
	bsrc, bmod := base.File.Source, base.File.Module.Form
	if bmod == nil {
		return nil, nil
	}
	alikePre, alikeSuf, ok := v.sn.baseInfoOf(base).recoversAlike()
	if !ok {
		return nil, nil
	}
	pre, suf := cur.EditedEnds(old)
	shift := len(cur.Src) - len(old.Src)
	items := bmod.Items()
	// the last of the module's lists that starts its line before the edit,
	// where the recovery reads the base as it was read before it (so that
	// only the module is open there)
	from := -1
	k := sort.Search(len(items), func(k int) bool { return items[k].Span().Start+1 > pre }) - 1
	for k = min(k, alikePre); k >= 0; k-- {
		st := items[k].Span().Start
		if items[k].Kind == syntax.FormList && len(bytes.TrimLeft(old.Src[old.Lines.LineStart(old.Lines.Line(st)):st], " \t\r")) == 0 {
			from = st
			break
		}
	}
	if from < 0 {
		return nil, nil
	}
	// the stop: an item's start in the version before, where the recovery
	// reads the rest of the base as it was read
	between := func(off int) bool {
		p := off - shift
		k := sort.Search(len(items), func(k int) bool { return items[k].Span().Start >= p })
		return k < len(items) && items[k].Span().Start == p && k >= len(items)-alikeSuf
	}
	res, ok := syntax.ReadFrom(cur, bmod.Span().Start, from, len(cur.Src)-suf, between)
	if !ok {
		return nil, nil
	}
	r := &errRead{mod: -1}
	bsp := bmod.Span()
	for _, f := range bsrc.Forms {
		switch {
		case f == bmod:
			r.mod = len(r.top)
			r.top = append(r.top, errForm{f: f})
		case f.Span().Start < bsp.Start:
			r.top = append(r.top, errForm{f: f, base: true})
		case res.List == nil:
			r.top = append(r.top, errForm{f: f, shift: shift, base: true})
		}
	}
	for _, f := range res.After {
		r.top = append(r.top, errForm{f: f})
	}
	for _, it := range items {
		if it.Span().Start >= from {
			break
		}
		r.items = append(r.items, errForm{f: it, base: true})
	}
	for _, it := range res.Forms {
		r.items = append(r.items, errForm{f: it})
	}
	cs := bsrc.Comments
	nc := sort.Search(len(cs), func(k int) bool { return cs[k].Start >= from })
	r.comments = append(append(r.comments, cs[:nc]...), res.Comments...)
	if res.List == nil {
		r.stopped = true
		r.modSpan, r.modClosed = syntax.Span{Start: bsp.Start, End: bsp.End + shift}, true
		stop := res.Stop - shift
		for k := sort.Search(len(items), func(k int) bool { return items[k].Span().Start >= stop }); k < len(items); k++ {
			r.items = append(r.items, errForm{f: items[k], shift: shift, base: true})
		}
		for k := sort.Search(len(cs), func(k int) bool { return cs[k].Start >= stop }); k < len(cs); k++ {
			r.comments = append(r.comments, syntax.Span{Start: cs[k].Start + shift, End: cs[k].End + shift})
		}
	} else {
		r.modSpan, r.modClosed = res.List.Span(), res.List.Closed
	}
	return r, res.Source
}

// errorUnits cuts a text with a syntax error into units as a full check
// reads it. A full check reads such a text with the reader's recovery
// (syntax.Read), which closes a list left open where the indentation says
// it ends, and so may group the text differently from the tree (where an
// open list takes in the rest of the module): the units are the items of
// the module form that read gives, with the comments between them and the
// module's parentheses, and a read of each is that form (errForms, by the
// unit's node, a number of its own below -1). That read is the edited
// declaration's, read until the reader is back between declarations, and
// the base's forms (partialRead), or the whole text's when that cannot
// tell. It declines when that read does not give the module form the tree
// has, closed, and the same other top-level forms.
func (v *view) errorUnits(base *check.Result) string {
	er, src := v.partialRead(base)
	v.errPartial = er != nil
	v.errStopped = er != nil && er.stopped
	if er == nil {
		src = v.sn.source()
		er = wholeRead(src)
	}
	forms := 0
	for i := range v.top {
		if v.top[i].hasForm() {
			forms++
		}
	}
	if er.mod < 0 {
		return "a syntax error the module form does not recover from"
	}
	// The tree groups the text as the read does when it has the read's
	// module form and as many other top-level forms. When it does not (a
	// `(` typed at column 0 leaves a list open in the tree that takes in
	// the rest of the file, an extra `)` closes the module early in the
	// tree where the recovery reads it as stray), the file's top-level
	// units are cut from the read itself (topFromRead): a full check
	// reads the read's forms, whatever the tree made of them.
	fromRead := er.modSpan != v.modSpan || len(er.top) != forms
	if !er.modClosed {
		// A list left open that the recovery does not close (nothing
		// after it starts a line at or left of its column) takes in the
		// module's closing parenthesis, and the module stays open to the
		// end: a full check reads its items all the same (the builder
		// does not look at the parenthesis), the broken declaration the
		// last of them, holding whatever followed it. A module the
		// recovery closes without its parenthesis (a list starting a line
		// at column 0 inside it) ends at its last item, before the forms
		// that follow it: the top-level units are then the read's.
		if er.mod != len(er.top)-1 {
			fromRead = true
		}
		v.modOpen = true
	}
	sp := er.modSpan
	units := make([]vunit, 0, 2*len(er.items)+2)
	v.errForms = make(map[int32]errForm, len(er.items)+len(er.top))
	if fromRead {
		v.topFromRead(er)
	}
	// the other top-level forms, read as the tree cuts them (their
	// nodes' numbers are the tree's, the module's units' below -1)
	k := 0
	for i := range v.top {
		t := &v.top[i]
		if fromRead || !t.hasForm() {
			continue
		}
		f := er.top[k]
		k++
		if k-1 == er.mod {
			if t.span != er.modSpan {
				return "a syntax error the reader's recovery groups differently from the tree"
			}
			continue
		}
		fsp := f.f.Span()
		if fsp.Start+f.shift != t.span.Start || fsp.End+f.shift != t.span.End {
			return "a syntax error the reader's recovery groups differently from the tree"
		}
		v.errForms[t.node] = f
	}
	units = append(units, vunit{node: -2, span: syntax.Span{Start: sp.Start, End: sp.Start + 1}, kind: syntax.KindLParen, item: -1})
	cs := er.comments
	c := sort.Search(len(cs), func(i int) bool { return cs[i].Start >= sp.Start })
	comments := func(before int) {
		for ; c < len(cs) && cs[c].End <= before; c++ {
			units = append(units, vunit{node: int32(-3 - len(units)), span: cs[c], kind: syntax.KindComment, item: -1})
		}
	}
	for k, e := range er.items {
		f := e.f
		fsp := f.Span()
		fsp.Start += e.shift
		fsp.End += e.shift
		comments(fsp.Start)
		for c < len(cs) && cs[c].Start < fsp.End {
			c++ // inside the item
		}
		u := vunit{node: int32(-3 - len(units)), span: fsp, item: int32(k)}
		switch f.Kind {
		case syntax.FormList:
			u.kind, u.head = syntax.KindList, f.Head()
			if known, ok := knownHeads[u.head]; ok {
				u.head = known
			}
		case syntax.FormSymbol:
			u.kind = syntax.KindSymbol
		case syntax.FormNumber:
			u.kind = syntax.KindNumber
		case syntax.FormString:
			u.kind = syntax.KindString
		default:
			return "a syntax error the module form does not recover from"
		}
		v.errForms[u.node] = e
		units = append(units, u)
	}
	if v.modOpen {
		comments(sp.End)
	} else {
		comments(sp.End - 1)
		units = append(units, vunit{node: int32(-3 - len(units)), span: syntax.Span{Start: sp.End - 1, End: sp.End}, kind: syntax.KindRParen, item: -1})
	}
	v.units, v.errSrc = units, src
	return ""
}

// topFromRead makes the file's top-level units those of er, a read of a
// text with a syntax error whose tree groups the text otherwise: its forms
// (the module's span is the read's, the others' forms in errForms under
// numbers of their own, below the module's units') and the comments
// outside them, in order.
func (v *view) topFromRead(er *errRead) {
	const first = -1 << 30
	var top []vunit
	cs := er.comments
	c := 0
	for k, f := range er.top {
		fsp := f.f.Span()
		fsp.Start += f.shift
		fsp.End += f.shift
		if k == er.mod {
			fsp = er.modSpan
		}
		for ; c < len(cs) && cs[c].Start < fsp.Start; c++ {
			top = append(top, vunit{node: int32(first - len(top)), span: cs[c], kind: syntax.KindComment, item: -1})
		}
		for c < len(cs) && cs[c].Start < fsp.End {
			c++ // inside the form
		}
		u := vunit{node: int32(first - len(top)), span: fsp, item: -1}
		switch f.f.Kind {
		case syntax.FormList:
			u.kind, u.head = syntax.KindList, f.f.Head()
		case syntax.FormSymbol:
			u.kind = syntax.KindSymbol
		case syntax.FormNumber:
			u.kind = syntax.KindNumber
		default:
			u.kind = syntax.KindString
		}
		if k != er.mod {
			v.errForms[u.node] = f
		}
		top = append(top, u)
	}
	for ; c < len(cs); c++ {
		top = append(top, vunit{node: int32(first - len(top)), span: cs[c], kind: syntax.KindComment, item: -1})
	}
	v.top, v.modSpan = top, er.modSpan
}

// errorCheck is the check a text with a syntax error passes once its
// units are matched: each unchanged unit must read exactly as the base
// read it, moved by its shift (the reader's recovery may regroup the
// tokens inside a unit whose text did not change).
func (v *view) errorCheck(base *check.Result) string {
	if base.File.Module.Form == nil {
		return "no module form"
	}
	old := base.File.Module.Form.Items()
	for i := range v.units {
		u := &v.units[i]
		e, ok := v.errForms[u.node]
		if !ok || e.base || u.changed {
			continue // (the base's forms read as the base's)
		}
		f := e.f
		p := u.span.Start - u.shift
		j := sort.Search(len(old), func(j int) bool { return old[j].Span().Start >= p })
		if j == len(old) || !sameForm(old[j], f, u.shift) {
			return "a syntax error the reader's recovery groups differently from the tree"
		}
	}
	return ""
}

// sameForm reports whether form b is form a moved by shift bytes: the
// same kinds, spans, closing parentheses and atoms, all the way down.
func sameForm(a, b *syntax.Form, shift int) bool { return formsMatch(a, b, shift, true) }

// formsMatch reports whether forms a and b have the same kinds, closing
// parentheses and atoms, all the way down, and, when spans is set, b's
// spans are a's moved by shift bytes.
func formsMatch(a, b *syntax.Form, shift int, spans bool) bool {
	if a.Kind != b.Kind || a.Closed != b.Closed {
		return false
	}
	if spans {
		if sa, sb := a.Span(), b.Span(); sa.Start+shift != sb.Start || sa.End+shift != sb.End {
			return false
		}
	}
	if a.Kind != syntax.FormList {
		return a.Text() == b.Text()
	}
	ai, bi := a.Items(), b.Items()
	if len(ai) != len(bi) {
		return false
	}
	for i := range ai {
		if !formsMatch(ai[i], bi[i], shift, spans) {
			return false
		}
	}
	return true
}

// seg is one unit of a version for matching: a top-level node other than
// the module, or a child of the module.
// Offsets are 32 bits (sources are at most a few MB), to keep the two
// arrays a view makes per version small.
type seg struct {
	start, end int32
	shift      int32 // from the old version's offsets to the new one's (ok)
	unit       int32 // the index among the module's children (inModule)
	kind       syntax.Kind
	inModule   bool
	ok         bool // matched with a unit of the same text in the other version
}

// span is the unit's span.
func (sg *seg) span() syntax.Span { return syntax.Span{Start: int(sg.start), End: int(sg.end)} }

// segments lists a version's units in order.
func segments(top, units []vunit) []seg {
	out := make([]seg, 0, len(top)+len(units))
	for _, t := range top {
		if len(units) > 0 && t.span.Start <= units[0].span.Start && units[len(units)-1].span.End <= t.span.End && t.kind == syntax.KindList {
			for i, u := range units {
				out = append(out, seg{start: int32(u.span.Start), end: int32(u.span.End), kind: u.kind, inModule: true, unit: int32(i)})
			}
			continue
		}
		out = append(out, seg{start: int32(t.span.Start), end: int32(t.span.End), kind: t.kind})
	}
	return out
}

// matchLookahead bounds how far matchSegments looks for the next unit
// the two versions share after a difference.
const matchLookahead = 8

// matchSegments pairs the units of two versions that have the same text,
// in order: where they differ, the nearest pair of equal units within
// matchLookahead resumes the matching and the units skipped are changed.
//
// The two texts share their first pre and last suf bytes
// (syntax.CST.CommonEnds; 0 when unknown): two units of the same length
// at the same offset in the shared prefix, or at the same distance from
// the end in the shared suffix, have the same text without comparing it,
// so that only the units around the edit are compared byte by byte.
func matchSegments(osrc, nsrc []byte, pre, suf int, os, ns []seg) {
	olen, nlen := len(osrc), len(nsrc)
	same := func(i, j int) bool {
		a, b := os[i], ns[j]
		sa, sb := a.span(), b.span()
		if a.kind != b.kind || a.inModule != b.inModule || sa.Len() != sb.Len() {
			return false
		}
		if sa == sb && sa.End <= pre {
			return true // in the shared prefix
		}
		if olen-sa.Start <= suf && olen-sa.Start == nlen-sb.Start {
			return true // in the shared suffix
		}
		return bytes.Equal(osrc[sa.Start:sa.End], nsrc[sb.Start:sb.End])
	}
	i, j := 0, 0
	for i < len(os) && j < len(ns) {
		if same(i, j) {
			os[i].ok, ns[j].ok = true, true
			os[i].shift = ns[j].start - os[i].start
			ns[j].shift = os[i].shift
			i, j = i+1, j+1
			continue
		}
		di, dj := 1, 1 // replace one unit by one when nothing matches nearby
	search:
		for d := 1; d <= matchLookahead; d++ {
			for k := 0; k <= d; k++ {
				for _, p := range [][2]int{{k, d}, {d, k}} {
					if i+p[0] < len(os) && j+p[1] < len(ns) && same(i+p[0], j+p[1]) {
						di, dj = p[0], p[1]
						break search
					}
				}
			}
		}
		i, j = i+di, j+dj
	}
}

// baseDecl returns the base's declaration whose form starts at p, nil
// when none does (the declarations are in source order).
func (v *view) baseDecl(p int) ast.Decl {
	ds := v.baseRes.File.Module.Decls
	i := sort.Search(len(ds), func(k int) bool { return ds[k].Base().Form.Span().Start >= p })
	if i < len(ds) && ds[i].Base().Form.Span().Start == p {
		return ds[i]
	}
	return nil
}

// editable reports whether an edit may touch unit u with the view still
// built from the base: a declaration, a comment, the capsule or profile
// clause (they declare nothing requests read), not the module's keyword,
// name, parentheses or imports.
func editable(u vunit) bool {
	switch u.kind {
	case syntax.KindComment:
		return true
	case syntax.KindList:
		return u.item >= 2 && u.head != "import" // a list that is no declaration declares nothing
	case syntax.KindSymbol, syntax.KindNumber, syntax.KindString:
		return u.item >= 2 // a stray atom among the declarations declares nothing
	}
	return false
}

func isDeclHead(h string) bool {
	for _, k := range ast.DeclKinds {
		if string(k) == h {
			return true
		}
	}
	return false
}

// cstUnits are the units of one version, kept so that the view of a later
// version, whose base is this one's check, does not cut it again.
type cstUnits struct {
	cst        *syntax.CST
	mod        int32
	top, units []vunit
}

// unitsOf returns the units of c (the base's text): those kept when c was
// a snapshot's or the last base's, else cut now (and kept as the base's). Only their spans, kinds, heads and item
// numbers are read.
func (dc *docCache) unitsOf(c *syntax.CST) (mod int32, top, units []vunit, ok bool) {
	dc.mu.Lock()
	for _, k := range dc.units {
		if k.cst == c {
			dc.mu.Unlock()
			return k.mod, k.top, k.units, true
		}
	}
	if k := dc.baseUnits; k.cst == c {
		dc.mu.Unlock()
		return k.mod, k.top, k.units, true
	}
	dc.mu.Unlock()
	mod, top, units, ok = moduleUnits(c)
	if ok {
		// kept apart from the last versions': a base stays the base of
		// many versions, while typing, until the next full check
		dc.mu.Lock()
		dc.baseUnits = cstUnits{c, mod, top, units}
		dc.mu.Unlock()
	}
	return mod, top, units, ok
}

// keepUnits keeps the units of the last few versions.
func (dc *docCache) keepUnits(c *syntax.CST, mod int32, top, units []vunit) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	dc.units = append(dc.units, cstUnits{c, mod, top, units})
	if len(dc.units) > 4 {
		dc.units = append(dc.units[:0:0], dc.units[len(dc.units)-4:]...)
	}
}

// unitsAfter returns the units of c derived from those kept for the tree
// c was edited from, when c says that edit read one list again inside a
// module child (syntax.CST.Rescanned): the units before that list are the
// same nodes, those after it the same nodes moved, and only the unit
// holding it is cut again, so that the tree is not walked. ok is false
// when those units are not kept or the edit was elsewhere (moduleUnits
// then cuts c). The units are fresh (their read state and forms are c's
// own), and the same as moduleUnits would return.
func (dc *docCache) unitsAfter(c *syntax.CST) (mod int32, top, units []vunit, ok bool) {
	e, ok := c.Rescanned()
	if !ok {
		return -1, nil, nil, false
	}
	var prev cstUnits
	dc.mu.Lock()
	for _, k := range dc.units {
		if k.cst.ID() == e.From {
			prev, ok = k, true
		}
	}
	dc.mu.Unlock()
	if !ok || e.List <= prev.mod {
		return -1, nil, nil, false // the module's own list, or outside it
	}
	inModule := false
	for _, t := range prev.top {
		if t.node == prev.mod && t.span.Start < e.Span.Start && e.Span.End < t.span.End {
			inModule = true
		}
	}
	if !inModule {
		return -1, nil, nil, false
	}
	top = make([]vunit, len(prev.top))
	for i, u := range prev.top {
		top[i] = movedUnit(c, u, e)
	}
	units = make([]vunit, len(prev.units))
	for i, u := range prev.units {
		units[i] = movedUnit(c, u, e)
	}
	return prev.mod, top, units, true
}

// movedUnit returns unit u of the tree before edit e as a unit of c, the
// tree after it: the same node before the list e read again, the node
// moved after it, the node holding it cut again.
func movedUnit(c *syntax.CST, u vunit, e syntax.ListEdit) vunit {
	switch {
	case u.span.End <= e.Span.Start:
	case e.Span.End <= u.span.Start:
		u.node += e.NodeDelta
		u.span = syntax.Span{Start: u.span.Start + e.ByteDelta, End: u.span.End + e.ByteDelta}
	default:
		nu := unitOf(c, u.node)
		nu.item = u.item
		return nu
	}
	return vunit{node: u.node, span: u.span, kind: u.kind, head: u.head, item: u.item}
}

// moduleUnits finds the file's module list (the first list headed
// `module`) and cuts the file into its top-level nodes and the module into
// its children; ok is false when there is no module.
func moduleUnits(c *syntax.CST) (mod int32, top, units []vunit, ok bool) {
	mod = -1
	for k := c.FirstChild(0); k >= 0; k = c.Next(k) {
		top = append(top, unitOf(c, k))
		if mod < 0 && c.Kind(k) == syntax.KindList && c.ListHead(k) == "module" {
			mod = k
		}
	}
	if mod < 0 {
		return -1, nil, nil, false
	}
	items := 0
	n := 0
	for j := c.FirstChild(mod); j >= 0; j = c.Next(j) {
		n++
	}
	units = make([]vunit, 0, n)
	for j := c.FirstChild(mod); j >= 0; j = c.Next(j) {
		u := unitOf(c, j)
		if k := u.kind; k != syntax.KindLParen && k != syntax.KindRParen && k != syntax.KindComment {
			u.item = int32(items)
			items++
		}
		units = append(units, u)
	}
	return mod, top, units, true
}

// unitOf makes node k a unit.
func unitOf(c *syntax.CST, k int32) vunit {
	u := vunit{node: k, span: c.Span(k), kind: c.Kind(k), item: -1}
	if u.kind == syntax.KindList {
		u.head = listHead(c, k)
	}
	return u
}

// knownHeads are the list heads of a module's children that listHead
// returns without copying: the declaration kinds and header clauses.
var knownHeads = func() map[string]string {
	m := map[string]string{"module": "module", "capsule": "capsule", "profile": "profile", "import": "import"}
	for _, k := range ast.DeclKinds {
		m[string(k)] = string(k)
	}
	return m
}()

// listHead is CST.ListHead, without a copy of a known head's text.
func listHead(c *syntax.CST, k int32) string {
	h := c.ListHeadBytes(k)
	if known, ok := knownHeads[string(h)]; ok {
		return known
	}
	return string(h)
}

// read returns unit u's form read in full, and its declaration built from
// it (once).
func (v *view) read(u *vunit) (*syntax.Form, ast.Decl) {
	v.rmu.Lock()
	r := v.reads[u.node]
	if r == nil {
		if v.reads == nil {
			v.reads = map[int32]*unitRead{}
		}
		r = &unitRead{}
		v.reads[u.node] = r
	}
	v.rmu.Unlock()
	r.once.Do(func() {
		if e, ok := v.errForms[u.node]; ok || v.errSrc != nil {
			if !ok {
				return
			}
			f := e.form()
			r.full = f
			if u.kind == syntax.KindList && isDeclHead(u.head) {
				d, _ := ast.BuildDecl(v.errSrc, f)
				if d != nil {
					d.Base().Doc = v.docAbove(u)
				}
				r.decl = d
			}
			return
		}
		if u.kind != syntax.KindList {
			if f, ok := formOf(v.sn.cst, u); ok {
				r.full = &f
			}
			return
		}
		src := syntax.ReadNode(v.sn.cst, u.node, 1)
		if len(src.Forms) != 1 {
			return
		}
		r.full = src.Forms[0]
		if isDeclHead(u.head) {
			d, _ := ast.BuildDecl(src, r.full)
			if d != nil {
				d.Base().Doc = v.docAbove(u)
			}
			r.decl = d
		}
	})
	return r.full, r.decl
}

func (v *view) declOf(u *vunit) ast.Decl {
	_, d := v.read(u)
	return d
}

// docAbove is the doc comment of a module child: the run of full-line
// `;;` comments on the lines just above it (as the builder reads them).
func (v *view) docAbove(u *vunit) string { return docOf(v.sn.cst, v.units, u.span.Start) }

// docOf is the doc comment of what starts at start, among siblings.
func docOf(c *syntax.CST, siblings []vunit, start int) string {
	i := sort.Search(len(siblings), func(k int) bool { return siblings[k].span.Start >= start })
	line := c.Lines.Line(start)
	k := i - 1
	// (forms before it on its own line, a stray `x` typed before its `(`,
	// do not hide the comments above: the builder takes the run of
	// comments that ends on the line above the form's)
	for k >= 0 && siblings[k].kind != syntax.KindComment && c.Lines.Line(siblings[k].span.Start) == line {
		k--
	}
	var run []string
	for ; k >= 0; k-- {
		cu := siblings[k]
		if cu.kind != syntax.KindComment {
			break
		}
		l := c.Lines.Line(cu.span.Start)
		text := string(c.Src[cu.span.Start:cu.span.End])
		if l != line-1 || strings.TrimSpace(string(c.Src[c.Lines.LineStart(l):cu.span.Start])) != "" || !strings.HasPrefix(text, ";;") {
			break
		}
		run = append(run, strings.TrimSpace(strings.TrimLeft(text, ";")))
		line = l
	}
	for l, r := 0, len(run)-1; l < r; l, r = l+1, r-1 {
		run[l], run[r] = run[r], run[l]
	}
	return strings.Join(run, "\n")
}

// unitAt returns the index of the unit whose span holds off (its end
// included), preferring a changed one; -1 when none does.
func (v *view) unitAt(off int) int {
	i := sort.Search(len(v.units), func(k int) bool { return v.units[k].span.End >= off })
	found := -1
	for ; i < len(v.units) && v.units[i].span.Start <= off; i++ {
		if found < 0 || v.units[i].changed {
			found = i
		}
	}
	return found
}

// inEdit reports whether a current offset lies in a changed unit.
func (v *view) inEdit(off int) bool {
	if v.pkg != nil {
		return false
	}
	if sg, ok := segAt(v.newSegs, off, false); ok && !sg.ok {
		return true
	}
	i := v.unitAt(off)
	return i >= 0 && v.units[i].changed
}

// segAt returns the unit whose span holds p (its end included) or, in a
// gap, the unit before it; on a boundary two units share, preferMatched
// picks a matched one, else a changed one.
func segAt(segs []seg, p int, preferMatched bool) (seg, bool) {
	i := sort.Search(len(segs), func(k int) bool { return int(segs[k].end) >= p })
	return segFrom(segs, i, p, preferMatched)
}

// segAfter is segAt for offsets asked in increasing order: *from, where
// the search starts, is where the last one ended.
func segAfter(segs []seg, p int, preferMatched bool, from *int) (seg, bool) {
	i := *from
	for i < len(segs) && int(segs[i].end) < p {
		i++
	}
	*from = i
	return segFrom(segs, i, p, preferMatched)
}

// segFrom is segAt once i, the first unit that ends at or after p, is
// found.
func segFrom(segs []seg, i, p int, preferMatched bool) (seg, bool) {
	var best seg
	found := false
	for ; i < len(segs) && int(segs[i].start) <= p; i++ {
		if !found || segs[i].ok && !best.ok && preferMatched || !segs[i].ok && best.ok && !preferMatched {
			best, found = segs[i], true
		}
	}
	if found {
		return best, true
	}
	if i > 0 {
		return segs[i-1], true // in the gap after unit i-1
	}
	if len(segs) > 0 {
		return seg{ok: true}, true // before the first unit: nothing moved there
	}
	return seg{}, false
}

// toOld maps a current offset outside the changed units to the base's.
func (v *view) toOld(off int) (int, bool) {
	sg, ok := segAt(v.newSegs, off, false)
	if !ok || !sg.ok {
		return 0, false
	}
	return off - int(sg.shift), true
}

// oldStart is the base's offset of unchanged unit u's start (false for a
// changed unit). A unit's own shift, not toOld: at a unit that starts
// where a changed one ends (an `x` typed right before a declaration's
// `(`), toOld maps the offset by the changed unit, finds nothing, and the
// declaration went missing from the view.
func (v *view) oldStart(u *vunit) (int, bool) {
	if u.changed {
		return 0, false
	}
	return u.span.Start - u.shift, true
}

// fromOld maps a base offset outside the changed units to the current
// text's; ok is false inside a changed unit.
func (v *view) fromOld(p int) (int, bool) {
	sg, ok := segAt(v.oldSegs, p, true)
	if !ok || !sg.ok {
		return 0, false
	}
	return p + int(sg.shift), true
}

func (v *view) spanFromOld(sp syntax.Span) (syntax.Span, bool) {
	s, ok1 := v.fromOld(sp.Start)
	e, ok2 := v.fromOld(sp.End)
	return syntax.Span{Start: s, End: e}, ok1 && ok2
}

// spanFromOldAfter is spanFromOld for spans asked in the base's order
// (segAfter).
func (v *view) spanFromOldAfter(sp syntax.Span, from *int) (syntax.Span, bool) {
	a, ok1 := segAfter(v.oldSegs, sp.Start, true, from)
	b, ok2 := segAfter(v.oldSegs, sp.End, true, from)
	if !ok1 || !a.ok || !ok2 || !b.ok {
		return syntax.Span{}, false
	}
	return syntax.Span{Start: sp.Start + int(a.shift), End: sp.End + int(b.shift)}, true
}

// check checks the changed declarations against the base (once). When
// an edit changed what other declarations see of a declaration (a type, a
// function's signature, a name added or removed), the unchanged
// declarations that refer to it are read again and checked with them.
func (v *view) check() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.checked {
		return
	}
	v.checked = true
	v.overlay()
	if deps := v.dependents(); len(deps) > 0 {
		v.depsRead = len(deps)
		for _, i := range deps {
			u := &v.units[i]
			if p, ok := v.oldStart(u); ok && v.baseDecl(p) != nil {
				v.replaced[v.baseDecl(p)] = true
			}
			u.changed = true
		}
		v.newDecls = v.newDecls[:0]
		for i := range v.units {
			if u := &v.units[i]; u.changed {
				if d := v.declOf(u); d != nil {
					v.newDecls = append(v.newDecls, d)
				}
			}
		}
		v.overlay()
	}
}

// overlay checks newDecls over the base.
func (v *view) overlay() {
	v.fby = map[string]*check.Symbol{}
	v.mine = map[*check.Symbol]bool{}
	v.fsyms, v.frefs, v.fdefs = nil, nil, nil
	if v.imps != nil {
		// (the imports' own symbols come from the overlay, even when no
		// declaration changed)
		v.ov = v.base.res.OverlayImports(v.newDecls, v.imps, v.gone...)
	} else if len(v.newDecls) > 0 {
		v.ov = v.base.res.Overlay(v.newDecls, v.gone...)
	}
	if v.ov == nil {
		return
	}
	v.fsyms, v.frefs = v.ov.Check()
	v.frefs = append([]check.Ref(nil), v.frefs...)
	sort.SliceStable(v.frefs, func(i, j int) bool { return v.frefs[i].Span.Start < v.frefs[j].Span.Start })
	for _, s := range v.fsyms {
		v.mine[s] = true
		if k := check.SymbolKey(s); v.fby[k] == nil {
			v.fby[k] = s
		}
		if s.Span.End > s.Span.Start {
			v.fdefs = append(v.fdefs, s)
		}
	}
	sort.SliceStable(v.fdefs, func(i, j int) bool { return v.fdefs[i].Span.Start < v.fdefs[j].Span.Start })
}

// dependents returns the unchanged units that must be checked again with
// the changed ones: those that refer to a replaced declaration whose
// interface changed (a type; a function whose one-line signature
// changed; a declaration whose name or kind is gone) or that use, unresolved
// in the base, a name a changed declaration now declares.
func (v *view) dependents() []int {
	dirty := map[ast.Decl]bool{}
	added := map[string]bool{}
	for _, d := range v.newDecls {
		if n := d.Base().Name; n.Valid() {
			added[n.Name] = true
		}
	}
	for d := range v.replaced {
		n := d.Base().Name
		if !n.Valid() {
			continue
		}
		delete(added, n.Name)
		old := v.base.res.Symbols
		var oldSym *check.Symbol
		for _, s := range old {
			if s.Decl == d {
				oldSym = s
				break
			}
		}
		nw := v.fby[string(check.SymbolKind(d.Kind()))+"\x00"+n.Name+"\x01"]
		switch {
		case nw == nil || oldSym == nil:
			dirty[d] = true
		case d.Kind() == ast.KindType || nw.Detail != oldSym.Detail:
			dirty[d] = true
		}
	}
	if len(dirty) == 0 && len(added) == 0 {
		return nil
	}
	seen := map[int]bool{}
	var out []int
	mark := func(oldOff int) {
		p, ok := v.fromOld(oldOff)
		if !ok {
			return
		}
		if i := v.unitAt(p); i >= 0 && !v.units[i].changed && !seen[i] && v.units[i].kind == syntax.KindList && isDeclHead(v.units[i].head) {
			seen[i] = true
			out = append(out, i)
		}
	}
	if len(dirty) > 0 {
		for _, r := range v.base.res.Refs {
			if r.Sym.File == v.base.res.Path && dirty[rootDecl(r.Sym)] {
				mark(r.Span.Start)
			}
		}
	}
	if len(added) > 0 {
		src := v.base.cst.Src
		for _, d := range v.base.res.Diagnostics {
			if d.Span.End <= len(src) && added[string(src[d.Span.Start:d.Span.End])] {
				mark(d.Span.Start)
			}
		}
	}
	sort.Ints(out)
	return out
}

// rootDecl is the declaration a symbol belongs to, nil for the module.
func rootDecl(s *check.Symbol) ast.Decl {
	for s.Parent != nil {
		s = s.Parent
	}
	return s.Decl
}

// current returns what a symbol of the base or of the overlay is in the
// current version: the overlay's own symbols as they are; imported ones as
// they are; the base's symbols of unchanged declarations with their spans
// moved; those of replaced declarations by their replacement (nil when
// the edit removed them).
func (v *view) current(s *check.Symbol) *check.Symbol {
	if s == nil || v.pkg != nil || v.mine[s] || s.File != v.base.res.Path {
		return s
	}
	if d := rootDecl(s); d != nil && v.replaced[d] {
		v.check()
		return v.fby[check.SymbolKey(s)]
	}
	c := *s
	if s.Kind == check.SymModule && v.modDocSet {
		c.Doc = v.modDoc
	}
	if s.Kind == check.SymModule && v.modOpen {
		// the module form open to the end: its span is the read's (and
		// the base's closing parenthesis has no place in it)
		c.Full = v.modSpan
		if v.modNameSet {
			c.Name, c.Detail, c.Span = v.modName, "module "+v.modName, v.modNameSpan
			return &c
		}
		var ok bool
		if c.Span, ok = v.spanFromOld(s.Span); !ok {
			return nil
		}
		return &c
	}
	if s.Kind == check.SymModule && v.modNameSet {
		// renamed: the name and the detail the checker makes of it
		// (check's module symbol), the span of the new name
		c.Name, c.Detail = v.modName, "module "+v.modName
		var ok bool
		if c.Full, ok = v.spanFromOld(s.Full); !ok {
			return nil
		}
		c.Span = v.modNameSpan
		return &c
	}
	var ok1, ok2 bool
	c.Span, ok1 = v.spanFromOld(s.Span)
	c.Full, ok2 = v.spanFromOld(s.Full)
	if s.Span == (syntax.Span{}) {
		c.Span, ok1 = s.Span, true
	}
	if !ok1 || !ok2 {
		return nil
	}
	return &c
}

// at returns the symbol whose name (declaration or reference) covers off,
// and the span of that name, in the current version.
func (v *view) at(off int) (*check.Symbol, syntax.Span) {
	if v.pkg != nil {
		return scanAt(v.pkg.Result, off)
	}
	v.check()
	if v.modNameSet && v.modNameSpan.Contains(off) {
		for _, s := range v.base.res.Symbols {
			if s.Kind == check.SymModule && s.File == v.base.res.Path {
				if c := v.current(s); c != nil {
					return c, c.Span
				}
			}
		}
		return nil, syntax.Span{}
	}
	if q, ok := v.toOld(off); ok && !v.inEdit(off) {
		s, sp := v.base.at(q)
		if s == nil {
			return nil, syntax.Span{}
		}
		sp, ok := v.spanFromOld(sp)
		if s = v.current(s); s == nil || !ok {
			return nil, syntax.Span{}
		}
		return s, sp
	}
	// off is in a changed unit; at its start, it is also the end of the
	// unchanged unit before it, whose names ending there a full check
	// (scanAt) weighs too: a reference before any definition, the one
	// starting first (theirs start before the changed unit's)
	bref, bdef := v.endingAt(off)
	if bref != nil {
		if s := v.current(bref.Sym); s != nil {
			if sp, ok := v.spanFromOld(bref.Span); ok {
				return s, sp
			}
		}
		return nil, syntax.Span{}
	}
	i := sort.Search(len(v.frefs), func(i int) bool { return v.frefs[i].Span.End >= off })
	for ; i < len(v.frefs) && v.frefs[i].Span.Start <= off; i++ {
		if v.frefs[i].Span.Contains(off) {
			if s := v.current(v.frefs[i].Sym); s != nil {
				return s, v.frefs[i].Span
			}
			return nil, syntax.Span{}
		}
	}
	if bdef != nil {
		if s := v.current(bdef); s != nil {
			return s, s.Span
		}
		return nil, syntax.Span{}
	}
	j := sort.Search(len(v.fdefs), func(i int) bool { return v.fdefs[i].Span.End >= off })
	for ; j < len(v.fdefs) && v.fdefs[j].Span.Start <= off; j++ {
		if v.fdefs[j].Span.Contains(off) {
			return v.fdefs[j], v.fdefs[j].Span
		}
	}
	return nil, syntax.Span{}
}

// endingAt returns the base's reference and symbol (as scanAt picks them:
// the one starting first) whose names end at off, when off is the end of
// an unchanged unit (in the current text); nil otherwise.
func (v *view) endingAt(off int) (ref *check.Ref, def *check.Symbol) {
	if off == 0 || v.inEdit(off-1) {
		return nil, nil
	}
	q, ok := v.toOld(off - 1)
	if !ok {
		return nil, nil
	}
	end := q + 1
	res := v.base.res
	for i := range res.Refs {
		r := &res.Refs[i]
		if r.Span.End == end && r.Span.Start <= q && (ref == nil || r.Span.Start < ref.Span.Start) {
			ref = r
		}
	}
	if ref != nil {
		return ref, nil
	}
	for _, s := range res.Symbols {
		if s.Span.End == end && s.Span.Start <= q && res.Local(s) && (def == nil || s.Span.Start < def.Span.Start) {
			def = s
		}
	}
	return nil, def
}

// local reports whether a symbol is declared in the snapshot's file.
func (v *view) local(s *check.Symbol) bool { return s.File == v.result().Path }

// path returns the chain of forms containing off, outermost first (as
// formPath over the file's forms).
func (v *view) path(off int) []*syntax.Form {
	if v.pkg != nil {
		return formPath(v.pkg.File.Source.Forms, off)
	}
	holds := func(sp syntax.Span, list bool) bool {
		return sp.Start <= off && (off < sp.End || off == sp.End && !list)
	}
	// (a list holds its end unless it is closed, as formPath has it: a
	// list a text with a syntax error leaves open holds it)
	holdsUnit := func(u *vunit) bool {
		closed := u.kind == syntax.KindList
		if e, ok := v.errForms[u.node]; ok {
			closed = e.f.Kind == syntax.FormList && e.f.Closed
		}
		return u.hasForm() && holds(u.span, closed)
	}
	// pathIn is the path from unit u down.
	pathIn := func(u *vunit) []*syntax.Form {
		full, _ := v.read(u)
		if full == nil {
			return nil
		}
		if full.Kind != syntax.FormList {
			return []*syntax.Form{full}
		}
		return append([]*syntax.Form{full}, formPath(full.Items(), off)...)
	}
	for i := range v.top {
		t := &v.top[i]
		if t.span != v.modSpan {
			if holdsUnit(t) {
				return pathIn(t)
			}
			continue
		}
		if !holds(v.modSpan, !v.modOpen) {
			continue
		}
		path := []*syntax.Form{v.modFormOf()}
		for j := range v.units {
			if u := &v.units[j]; holdsUnit(u) {
				return append(path, pathIn(u)...)
			}
		}
		return path
	}
	return nil
}

// modFormOf returns the module form, its items the units' shallow forms
// (made once, when a request first reads a path).
func (v *view) modFormOf() *syntax.Form {
	v.modOnce.Do(func() {
		n := 0
		for i := range v.units {
			if v.units[i].hasForm() {
				n++
			}
		}
		forms := make([]syntax.Form, 0, n)
		items := make([]*syntax.Form, 0, n)
		for i := range v.units {
			if e, ok := v.errForms[v.units[i].node]; ok {
				items = append(items, e.shallow())
			} else if f, ok := formOf(v.sn.cst, &v.units[i]); ok {
				forms = append(forms, f)
				items = append(items, &forms[len(forms)-1])
			}
		}
		v.modForm = syntax.NewList(v.modSpan, items, !v.modOpen)
	})
	return v.modForm
}

// declAt returns the declaration whose form is f (path[1] of a path).
func (v *view) declAt(f *syntax.Form) ast.Decl {
	if v.pkg != nil {
		if m := v.pkg.File.Module; m != nil {
			for _, d := range m.Decls {
				if d.Base().Form == f {
					return d
				}
			}
		}
		return nil
	}
	for i := range v.units {
		u := &v.units[i]
		if u.hasForm() && u.span == f.Span() {
			if full, d := v.read(u); full == f {
				return d
			}
		}
	}
	return nil
}

// module returns the module's declarations in order (the base's that the
// edit left, the changed ones built from the current text), and nil when
// the file has no module.
func (v *view) decls() []ast.Decl {
	if v.pkg != nil {
		if m := v.pkg.File.Module; m != nil {
			return m.Decls
		}
		return nil
	}
	v.check()
	var out []ast.Decl
	for i := range v.units {
		u := &v.units[i]
		if u.kind != syntax.KindList || !isDeclHead(u.head) {
			continue
		}
		if u.changed {
			if d := v.declOf(u); d != nil {
				out = append(out, d)
			}
		} else if p, ok := v.oldStart(u); ok && v.baseDecl(p) != nil {
			out = append(out, v.baseDecl(p))
		}
	}
	return out
}

// hasModule reports whether the file has a module.
func (v *view) hasModule() bool { return v.pkg == nil || v.pkg.File.Module != nil }

// result is the check result module-level questions are answered from:
// the snapshot's own, or the base.
func (v *view) result() *check.Result {
	if v.pkg != nil {
		return v.pkg.Result
	}
	return v.base.res
}

// moduleResult is a check result of the current version as far as
// protocol contracts read one: its module's declarations and its type
// declarations' symbols.
func (v *view) moduleResult() *check.Result {
	if v.pkg != nil {
		return v.pkg.Result
	}
	decls := v.decls()
	mod := *v.base.res.File.Module
	mod.Decls = decls
	file := *v.base.res.File
	file.Module = &mod
	res := &check.Result{Path: v.base.res.Path, File: &file}
	for _, s := range v.base.res.Symbols {
		if s.Parent == nil && s.Decl != nil && !v.replaced[s.Decl] {
			res.Symbols = append(res.Symbols, s)
		}
	}
	for _, s := range v.fsyms {
		if s.Parent == nil && s.Decl != nil {
			res.Symbols = append(res.Symbols, s)
		}
	}
	return res
}

// enumMembers returns the enum members declared in the file, in the
// current version.
func (v *view) enumMembers() []*check.Symbol {
	if v.pkg != nil {
		var out []*check.Symbol
		for _, s := range v.pkg.Result.Symbols {
			if s.Kind == check.SymEnumMember {
				out = append(out, s)
			}
		}
		return out
	}
	v.check()
	var out []*check.Symbol
	for _, s := range v.base.enums {
		if c := v.current(s); c != nil && !v.mine[c] {
			out = append(out, c)
		}
	}
	for _, s := range v.fsyms {
		if s.Kind == check.SymEnumMember {
			out = append(out, s)
		}
	}
	return out
}

// localsNear returns the local symbols declared in the unit (declaration)
// holding off, in the current version.
func (v *view) localsNear(off int) []*check.Symbol {
	if v.pkg != nil {
		var out []*check.Symbol
		for _, s := range v.pkg.Result.Symbols {
			if s.Kind == check.SymLocal {
				out = append(out, s)
			}
		}
		return out
	}
	v.check()
	i := v.unitAt(off)
	if i < 0 {
		return nil
	}
	u := v.units[i]
	var out []*check.Symbol
	if u.changed {
		for _, s := range v.fsyms {
			if s.Kind == check.SymLocal && u.span.Start <= s.Full.Start && s.Full.End <= u.span.End {
				out = append(out, s)
			}
		}
		return out
	}
	os, ok := v.oldStart(&u)
	if !ok {
		return nil
	}
	oe := os + u.span.Len()
	ls := v.base.locals
	for k := sort.Search(len(ls), func(k int) bool { return ls[k].Span.Start >= os }); k < len(ls) && ls[k].Span.Start <= oe; k++ {
		if c := v.current(ls[k]); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// fieldsOf returns the symbols whose parent is the declaration d (of the
// base or the current version).
func (v *view) membersOf(d ast.Decl, kind check.SymbolKind) []*check.Symbol {
	var syms []*check.Symbol
	if v.pkg != nil {
		syms = v.pkg.Result.Symbols
	} else {
		v.check()
		if v.replaced[d] {
			return nil
		}
		syms = v.fsyms
		found := false
		for _, nd := range v.newDecls {
			found = found || nd == d
		}
		if !found {
			syms = v.base.res.Symbols
		}
	}
	var out []*check.Symbol
	for _, s := range syms {
		if s.Kind == kind && s.Parent != nil && s.Parent.Decl == d {
			out = append(out, s)
		}
	}
	return out
}

// declFor returns the declaration whose form holds off and the offset and
// span mapping to query it with: a changed declaration built from the
// current text (off as it is), or a base declaration (off moved to the
// base's text, spans moved back).
func (v *view) declFor(off int) (d ast.Decl, q int, back func(syntax.Span) syntax.Span) {
	id := func(sp syntax.Span) syntax.Span { return sp }
	if v.pkg != nil {
		if m := v.pkg.File.Module; m != nil {
			for _, d := range m.Decls {
				if sp := d.Base().Form.Span(); sp.Start <= off && off < sp.End {
					return d, off, id
				}
			}
		}
		return nil, off, id
	}
	v.check()
	i := v.unitAt(off)
	if i < 0 {
		return nil, off, id
	}
	if u := &v.units[i]; u.changed {
		return v.declOf(u), off, id
	}
	q, ok := v.oldStart(&v.units[i])
	if !ok {
		return nil, off, id
	}
	q += off - v.units[i].span.Start
	for _, d := range v.base.res.File.Module.Decls {
		if sp := d.Base().Form.Span(); sp.Start <= q && q < sp.End && !v.replaced[d] {
			return d, q, func(sp syntax.Span) syntax.Span { s, _ := v.spanFromOld(sp); return s }
		}
	}
	return nil, off, id
}

// isImportUnit reports whether a module child is an import form.
func isImportUnit(u vunit) bool {
	return u.kind == syntax.KindList && u.item >= 2 && u.head == "import"
}

// importEditViews counts the quick views of a version whose import forms
// differ from its base's (view.importsEdited), for tests and the bench.
var importEditViews atomic.Int64

// importsEdited prepares a quick view of a version whose import forms
// differ from the base's (one added, removed or edited): its imports are
// resolved as its full check resolves them (load.Loader.ResolveImports),
// and every declaration that names an alias now resolving otherwise (one
// added, removed, failing now or no longer, or naming another module) is
// read and checked again over them (check.Result.OverlayImports), with
// the declarations that refer to one of those, transitively; every other
// declaration reads only aliases that resolve as in the base, and
// answers from it. Every import form is answered from the new imports
// (an unchanged one may be a duplicate now). It returns why it declines,
// "" when the view can go on.
func (v *view) importsEdited(base *check.Result) string {
	const why = "an edit to the module form's keyword, parentheses or imports"
	if v.sn.loader == nil {
		return why
	}
	var imports []*ast.Import
	for i := range v.units {
		u := &v.units[i]
		if !isImportUnit(*u) {
			continue
		}
		u.changed = true
		f, _ := v.read(u)
		if f == nil {
			return why
		}
		imports = append(imports, ast.BuildImport(f))
	}
	st := v.sn.loader.ResolveImports(v.sn.path, base, imports)
	if st == nil {
		return why
	}
	v.imps = st
	importEditViews.Add(1)
	changed := st.Changed()
	if len(changed) == 0 {
		return ""
	}
	// the declarations that name a changed alias (a textual test: any
	// atom that is the alias or starts with it and a dot; a string or a
	// comment that does only reads a declaration again)
	src := v.sn.cst.Src
	dirty := map[ast.Decl]bool{}
	mark := func(u *vunit) {
		if p, ok := v.oldStart(u); ok {
			if d := v.baseDecl(p); d != nil {
				dirty[d] = true
			}
		}
		u.changed = true
	}
	for i := range v.units {
		u := &v.units[i]
		if u.changed || u.kind != syntax.KindList || !isDeclHead(u.head) {
			continue
		}
		text := src[u.span.Start:u.span.End]
		for _, a := range changed {
			if namesAlias(text, a) {
				mark(u)
				break
			}
		}
	}
	// and those that refer to one of them, transitively (the base's
	// references: what they read of it may have changed)
	for grew := len(dirty) > 0; grew; {
		grew = false
		for _, r := range base.Refs {
			if r.Sym == nil || r.Sym.File != base.Path || !dirty[rootDecl(r.Sym)] {
				continue
			}
			p, ok := v.fromOld(r.Span.Start)
			if !ok {
				continue
			}
			if i := v.unitAt(p); i >= 0 && !v.units[i].changed && v.units[i].kind == syntax.KindList && isDeclHead(v.units[i].head) {
				mark(&v.units[i])
				grew = true
			}
		}
	}
	return ""
}

// namesAlias reports whether text holds an atom that is alias or starts
// with alias and a dot (alias.member, alias.Type.member).
func namesAlias(text []byte, alias string) bool {
	word := func(b byte) bool {
		return b == '_' || b == '-' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
	}
	for from := 0; ; {
		i := bytes.Index(text[from:], []byte(alias))
		if i < 0 {
			return false
		}
		i += from
		j := i + len(alias)
		if (i == 0 || !word(text[i-1]) && text[i-1] != '.') && (j == len(text) || !word(text[j])) {
			return true
		}
		from = i + 1
	}
}
