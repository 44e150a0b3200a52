package check

// This file is the per-declaration engine behind Result.Recheck: what a
// check records about each declaration, and how a later version of the
// file decides which declarations' bodies to check again.

import (
	"bytes"
	"errors"
	"hash/maphash"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// deps is what a declaration's check looked up: module declarations by
// name (found or not), and module facts by key (see the key* constants).
type deps struct {
	names []string
	keys  []string
}

// Keys of module facts a check can depend on besides declarations.
const (
	// keyNames + KIND: the names of the declarations of that kind, in
	// order (the candidates of a "did you mean").
	keyNames = "names:"
	// keyBound + MACHINE: the events of the surfaces bound to the machine.
	keyBound = "bound:"
	// keyVariants: every type declaration (bare variant constructors
	// search them all).
	keyVariants = "variants"
	// keyAdmits + EFFECT: whether the module's profile line admits the
	// effect, and when it does not, the profiles it lists (the message
	// names them). An edit of the profile line changes only the checks of
	// the declarations that name an effect whose admission changed.
	keyAdmits = "admits:"
	// keyImport + ALIAS.MEMBER: what the module imported as ALIAS
	// declares as MEMBER, as importers can see it (imports.go). An edit
	// of an imported module changes only the checks of the declarations
	// that read one of its members whose interface changed.
	keyImport = "import:"
	// keyAlias + ALIAS: whether ALIAS names an import of the module, one
	// that failed, or none, and which module it resolves to (aliasValue).
	// Every lookup of a dotted name records it, so that an edit of the
	// module's own imports checks again only the declarations that read
	// an alias whose answer changed.
	keyAlias = "alias:"
)

// uses records that the current declaration's check depends on a module
// fact.
func (c *checker) uses(key string) {
	if c.dep != nil {
		c.dep.keys = append(c.dep.keys, key)
	}
}

// declInfo is what a check records about one declaration.
type declInfo struct {
	// p1 is what the declaration's interface (its resolved type, members
	// and signature) looked up; body what its body check looked up.
	p1, body deps
	// diags are the diagnostics its body check reported, with spans
	// relative to the declaration's start. pinned is set when one of them
	// lies outside the declaration: they cannot be moved with it.
	diags  []syntax.Diagnostic
	pinned bool
	// p1diags are the diagnostics resolving its interface reported,
	// relative to its start (p1idx their indices while the check runs);
	// p1pinned is set when one lies outside the declaration.
	p1idx    []int
	p1diags  []syntax.Diagnostic
	p1pinned bool
}

// enter makes declaration i the one whose interface is being resolved:
// lookups and diagnostics are recorded as its own. The returned function
// restores the previous one.
func (c *checker) enter(i int) func() {
	dep, p1 := c.dep, c.p1
	if c.info != nil { // nil for a check with Options.Once
		c.dep, c.p1 = &c.info[i].p1, &c.info[i]
	}
	return func() { c.dep, c.p1 = dep, p1 }
}

// keepInterfaceDiagnostics copies each declaration's interface
// diagnostics, relative to its start, before the check sorts them.
func (c *checker) keepInterfaceDiagnostics() {
	c.headDiags = append([]syntax.Diagnostic(nil), c.res.Diagnostics[c.head[0]:c.head[1]]...)
	c.policyDiags = append([]syntax.Diagnostic(nil), c.res.Diagnostics[c.policyAt:]...)
	for i, d := range c.mod.Decls {
		info := &c.info[i]
		if len(info.p1idx) == 0 {
			continue
		}
		whole := d.Base().Form.Span()
		info.p1diags = make([]syntax.Diagnostic, len(info.p1idx))
		for k, at := range info.p1idx {
			var out bool
			info.p1diags[k], out = relative(c.res.Diagnostics[at], whole)
			info.p1pinned = info.p1pinned || out
		}
		info.p1idx = nil
	}
}

// relative returns d with its spans relative to whole's start; out
// reports that one of them lies outside whole.
func relative(d syntax.Diagnostic, whole syntax.Span) (syntax.Diagnostic, bool) {
	inside := func(sp syntax.Span) bool {
		return sp != (syntax.Span{}) && whole.Start <= sp.Start && sp.End <= whole.End
	}
	out := !inside(d.Span)
	d.Span = shift(d.Span, -whole.Start)
	if len(d.Related) > 0 {
		rel := make([]syntax.Related, len(d.Related))
		for r, rl := range d.Related {
			if rl.File == "" {
				out = out || !inside(rl.Span)
				rl.Span = shift(rl.Span, -whole.Start)
			}
			rel[r] = rl
		}
		d.Related = rel
	}
	return d, out
}

// moved returns relative diagnostics moved to start.
func moved(ds []syntax.Diagnostic, start int, into []syntax.Diagnostic) []syntax.Diagnostic {
	for _, d := range ds {
		d.Span = shift(d.Span, start)
		if len(d.Related) > 0 {
			rel := make([]syntax.Related, len(d.Related))
			for k, rl := range d.Related {
				if rl.File == "" {
					rl.Span = shift(rl.Span, start)
				}
				rel[k] = rl
			}
			d.Related = rel
		}
		into = append(into, d)
	}
	return into
}

// body checks declaration i's body (everything but its interface, which
// the module pass resolved), or, in a Recheck, reuses the earlier check's
// diagnostics when nothing it depends on changed.
func (c *checker) body(i int, d ast.Decl) {
	switch d.(type) {
	case *ast.Function, *ast.Machine, *ast.Store, *ast.Port, *ast.Agent, *ast.ClauseDecl, *ast.Surface:
	default:
		return
	}
	if c.eng != nil && c.eng.reuse(c, i) {
		if cd, ok := d.(*ast.ClauseDecl); ok && cd.DeclKind == ast.KindAcceptance && len(c.info[i].diags) > 0 {
			// its check reported it malformed (see acceptancePolicy)
			c.markBadAcceptance(cd)
		}
		return
	}
	var info *declInfo
	if c.info != nil { // nil for a check with Options.Once
		info = &c.info[i]
		c.dep = &info.body
	}
	n := len(c.res.Diagnostics)
	switch d := d.(type) {
	case *ast.Function:
		c.function(d)
	case *ast.Machine:
		c.machine(d)
	case *ast.Store:
		c.store(d)
	case *ast.Port:
		c.port(d)
	case *ast.Agent:
		c.agent(d)
	case *ast.ClauseDecl:
		switch d.DeclKind {
		case ast.KindAcceptance:
			// its own check: the catalog entry serves completion and hover
			c.acceptancePolicy(d)
		case ast.KindZKProof:
			c.clauseDecl(d)
			c.zkProof(d)
		default:
			c.clauseDecl(d)
		}
	case *ast.Surface:
		c.surface(d)
	}
	c.dep = nil
	if c.eng != nil {
		c.eng.rechecked++
		c.eng.checked = append(c.eng.checked, i)
	}
	// Keep the body's diagnostics relative to the declaration's start.
	whole := d.Base().Form.Span()
	fresh := c.res.Diagnostics[n:]
	if len(fresh) == 0 || info == nil {
		return
	}
	info.diags = make([]syntax.Diagnostic, len(fresh))
	for k, dg := range fresh {
		var out bool
		info.diags[k], out = relative(dg, whole)
		info.pinned = info.pinned || out
	}
}

// importCall is what an Importer answered for one module path.
type importCall struct {
	imp *Imported
	err error
}

// onceImporter asks imp for each module path once and answers it as imp
// first did (fastRecheck's rounds; not safe for concurrent use).
type onceImporter struct {
	imp Importer
	got map[string]importCall
}

func (o *onceImporter) Import(from, path string) (*Imported, error) {
	if c, ok := o.got[path]; ok {
		return c.imp, c.err
	}
	imp, err := o.imp.Import(from, path)
	o.got[path] = importCall{imp, err}
	return imp, err
}

// replayImporter answers the imports an earlier check resolved, as they
// were then, and another one with more (RecheckResultWith); missed is set
// when asked for another one and more is nil.
type replayImporter struct {
	log    map[string]importCall
	more   Importer
	missed bool
}

func (r *replayImporter) Import(from, path string) (*Imported, error) {
	call, ok := r.log[path]
	if !ok && r.more != nil {
		return r.more.Import(from, path)
	}
	if !ok {
		r.missed = true
		return nil, errors.New("not resolved by the base check")
	}
	return call.imp, call.err
}

// seed hashes declarations' text; one per process is enough, since hashes
// are only compared within it.
var seed = maphash.MakeSeed()

// versions numbers values that must differ in every version.
var versions atomic.Uint64

// version is what the engine knows of one version of a module: its
// declarations with their hashes, and the values of the names and facts
// declarations depend on (computed on demand).
type version struct {
	src   []byte
	mod   *ast.Module
	info  []declInfo
	decls []declState
	first map[string]int // the declaration each name resolves to
	mu    sync.Mutex
	keyV  map[string]uint64
	// effs holds each declaration's eff once computed (effDone marks
	// which): kept apart from decls, which concurrent Rechecks read
	// without v.mu.
	effs    []uint64
	effDone []bool
	// forms holds each declaration's form hash once computed (formsDone
	// marks which; see formHash), under mu.
	forms     []uint64
	formsDone []bool
	// bound hashes the events of the surfaces bound to each machine.
	bound map[string]*maphash.Hash
	// layout is the version's (the base's: cut once); policy its policy
	// conditions' diagnostics, each relative to the declaration it lies
	// in (policyOK is false when one lies in none).
	layout   *layout
	layoutOK bool
	policy   [][]syntax.Diagnostic
	policyOK bool
	// built holds, when builtOK is set (a fast Recheck's version, whose
	// trees keep older offsets), each declaration's read and build
	// diagnostics relative to its start (by index; few declarations have
	// any), and headBuilt the header's.
	built     map[int][]syntax.Diagnostic
	headBuilt []syntax.Diagnostic
	builtOK   bool
	// rev indexes the declarations by what they depend on (the base's;
	// a fast Recheck's version has it from the start, built over its
	// base's: reverseFrom).
	rev *revIndex
	// untrusted marks declarations whose diagnostics cannot be reused
	// (nil when all can).
	untrusted []bool
	// imports are the imports the version's check resolved, by the name
	// declarations reference them with (the values of keyImport facts).
	imports map[string]*ImportInfo
	// failed are the aliases of imports that failed (the values of
	// keyAlias facts, with imports).
	failed map[string]bool
	// acceptance is set when the text contains the word acceptance (the
	// base's: see mayDeclareAcceptance).
	acceptance bool
	// dups are the indices of the declarations whose name an earlier one
	// has; evals, for each machine, the policies whose intents it
	// decides (nil for other declarations). Both are the base's,
	// computed on first use under mu.
	dups      []int
	dupsDone  bool
	evals     [][]string
	evalsDone bool
}

// duplicates returns v.dups.
func (v *version) duplicates() []int {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.dupsDone {
		for i, d := range v.mod.Decls {
			if b := d.Base(); b.Name.Valid() && v.first[b.Name.Name] != i {
				v.dups = append(v.dups, i)
			}
		}
		v.dupsDone = true
	}
	return v.dups
}

// evaluates returns v.evals under the authority model of v's check.
func (v *version) evaluates(model *authority.Model) [][]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.evalsDone {
		v.evals = make([][]string, len(v.mod.Decls))
		only := soleName(model)
		for i, d := range v.mod.Decls {
			if mach, ok := d.(*ast.Machine); ok {
				v.evals[i] = evaluates(mach, only)
			}
		}
		v.evalsDone = true
	}
	return v.evals
}

// soleName is the name of a model's only policy, "" when it has none or
// several (governance).
func soleName(model *authority.Model) string {
	if len(model.Policies) == 1 {
		return model.Policies[0].Name
	}
	return ""
}

// declState is one declaration of a version.
type declState struct {
	start   int
	content uint64 // its text
	iface   uint64 // the part of its text other declarations can see
}

// newVersion records the declarations of a checked module.
func newVersion(src []byte, m *ast.Module, info []declInfo, first map[string]*Symbol, index map[ast.Decl]int) *version {
	v := &version{src: src, mod: m, info: info, decls: make([]declState, len(m.Decls)), first: make(map[string]int, len(first)), keyV: map[string]uint64{}}
	for name, s := range first {
		if i, ok := index[s.Decl]; ok {
			v.first[name] = i
		}
	}
	for i, d := range m.Decls {
		sp := d.Base().Form.Span()
		v.decls[i] = declState{start: sp.Start, content: maphash.Bytes(seed, src[sp.Start:sp.End])}
	}
	return v
}

// ifaces computes each declaration's iface, copying it from the base
// declaration aligned with it, if any (same text, same iface).
func (v *version) ifaces(align []int, old *version) {
	for i, d := range v.mod.Decls {
		if align != nil && align[i] >= 0 && (old.untrusted == nil || !old.untrusted[align[i]]) {
			v.decls[i].iface = old.decls[align[i]].iface
		} else {
			v.decls[i].iface = ifaceHash(v.src, d)
		}
	}
}

// ifaceHash hashes what other declarations can see of d: its text,
// without the clauses only its own body check reads (a function's body,
// examples and contracts; a machine's states; a surface's title and
// route; a store's backend).
func ifaceHash(src []byte, d ast.Decl) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(string(d.Kind()))
	f := d.Base().Form
	if f == nil || !f.IsList() {
		return h.Sum64()
	}
	for _, it := range f.Items() {
		if it.IsList() {
			switch d.(type) {
			case *ast.Function:
				switch it.Head() {
				case "body", "example", "requires", "ensures":
					continue
				}
			case *ast.Machine:
				if it.Head() == "state" {
					continue
				}
			case *ast.Surface:
				switch it.Head() {
				case "title", "route":
					continue
				}
			case *ast.Store:
				if it.Head() == "backend" {
					continue
				}
			}
		}
		h.WriteByte(0)
		h.Write(src[it.Span().Start:it.Span().End])
	}
	return h.Sum64()
}

// effOf returns declaration root's eff: its iface combined with the
// ifaces of every declaration its interface reaches through the names it
// looks up (and whether a name found it itself), and the facts it reads.
// It is computed on first use; v.mu must be held.
func (v *version) effOf(root int) uint64 {
	if v.effDone == nil {
		v.effDone = make([]bool, len(v.decls))
		v.effs = make([]uint64, len(v.decls))
	}
	if v.effDone[root] {
		return v.effs[root]
	}
	acc := v.decls[root].iface
	seen := map[int]bool{root: true}
	// the names (not found, or found as the root itself) and facts the
	// walk combined already: the combination is a set's, each once
	once := map[string]bool{}
	add := func(key string, x uint64) {
		if !once[key] {
			once[key] = true
			acc ^= x
		}
	}
	stack := []int{root}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, n := range v.info[i].p1.names {
			j, ok := v.first[n]
			switch {
			case !ok:
				add("?"+n, mix(hashString(n), 1))
				continue
			case j == root:
				add("="+n, mix(hashString(n), 3))
				continue
			case seen[j]:
				continue
			}
			seen[j] = true
			acc ^= mix(hashString(n), 2, v.decls[j].iface)
			stack = append(stack, j)
		}
		for _, k := range v.info[i].p1.keys {
			add("!"+k, mix(hashString(k), v.keyLocked(k, false)))
		}
	}
	v.effs[root], v.effDone[root] = acc, true
	return acc
}

// eff is effOf, locking v.
func (v *version) eff(i int) uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.effOf(i)
}

// nameValue is what a lookup of name by declaration self finds:
// nothing, self, or another declaration with its eff. Which declaration
// it is does not matter, only what can be seen of it.
func (v *version) nameValue(name string, self int) uint64 {
	j, ok := v.first[name]
	switch {
	case !ok:
		return 1
	case j == self:
		return 3
	}
	return mix(2, v.eff(j))
}

// keyValue is the value of a module fact.
func (v *version) keyValue(key string) uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.keyLocked(key, true)
}

// keyLocked computes a fact's value; withEff is false while effs are
// being computed (interfaces read only names and profiles).
func (v *version) keyLocked(key string, withEff bool) uint64 {
	if x, ok := v.keyV[key]; ok {
		return x
	}
	var h maphash.Hash
	h.SetSeed(seed)
	switch {
	case len(key) > len(keyNames) && key[:len(keyNames)] == keyNames:
		kind := ast.DeclKind(key[len(keyNames):])
		for _, d := range v.mod.Decls {
			if d.Kind() == kind && d.Base().Name.Valid() {
				h.WriteString(d.Base().Name.Name)
				h.WriteByte(0)
			}
		}
	case len(key) > len(keyBound) && key[:len(keyBound)] == keyBound:
		if v.bound == nil {
			// every machine's surfaces at once: one pass, not one each
			v.bound = map[string]*maphash.Hash{}
			for _, d := range v.mod.Decls {
				if s, ok := d.(*ast.Surface); ok {
					bh := v.bound[s.Bind.Name]
					if bh == nil {
						bh = &maphash.Hash{}
						bh.SetSeed(seed)
						v.bound[s.Bind.Name] = bh
					}
					for _, e := range s.Events {
						bh.WriteString(e.Name)
						bh.WriteByte(0)
					}
					bh.WriteByte(1)
				}
			}
		}
		if bh := v.bound[key[len(keyBound):]]; bh != nil {
			writeUint(&h, bh.Sum64())
		}
	case key == keyVariants:
		if !withEff {
			return 0 // not read by interfaces
		}
		for i, d := range v.mod.Decls {
			if _, ok := d.(*ast.TypeDecl); ok {
				h.WriteString(d.Base().Name.Name)
				writeUint(&h, v.effOf(i))
			}
		}
	case strings.HasPrefix(key, keyImport):
		writeUint(&h, v.importValue(key[len(keyImport):]))
	case strings.HasPrefix(key, keyAlias):
		writeUint(&h, aliasValue(v.imports, v.failed, key[len(keyAlias):]))
	case strings.HasPrefix(key, keyAdmits):
		if admits(v.mod, key[len(keyAdmits):]) {
			h.WriteByte(1)
			break
		}
		for _, p := range v.mod.Profiles {
			h.WriteString(p.Name)
			h.WriteByte(0)
		}
	default:
		// a fact this file does not know: never the same in two versions
		writeUint(&h, uint64(versions.Add(1)))
	}
	x := h.Sum64()
	v.keyV[key] = x
	return x
}

// admits reports whether m's profile line admits the effect named eff,
// as checker.admitted decides it.
func admits(m *ast.Module, eff string) bool {
	if len(m.Profiles) == 0 {
		return true
	}
	e := catalog.LookupEffect(eff)
	if e == nil {
		return false
	}
	for _, p := range m.Profiles {
		if prof := catalog.LookupProfile(p.Name); prof != nil && prof.Admits(e) {
			return true
		}
	}
	return false
}

func hashString(s string) uint64 { return maphash.String(seed, s) }

func writeUint(h *maphash.Hash, x uint64) {
	var b [8]byte
	for i := range b {
		b[i] = byte(x >> (8 * i))
	}
	h.Write(b[:])
}

// mix combines values into one hash (a multiply-xorshift mixer: the
// values are hashes already, and only collisions by accident matter).
func mix(xs ...uint64) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, x := range xs {
		h ^= x
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 31
		h *= 0x94d049bb133111eb
		h ^= h >> 29
	}
	return h
}

// engineRun is one Recheck: the base version, the new one being checked,
// and which new declaration is which base declaration.
type engineRun struct {
	old, cur *version
	align    []int // new index -> base index, or -1
	src      []byte
	// importsChanged is set when the new version's import forms differ
	// from the base's (a body is still reused when every alias and
	// imported member it looked up has the same value: keyAlias).
	importsChanged bool
	// whole is set when the whole new text was read and built.
	whole bool
	// sameTree is set when the new version is the base's tree, checked
	// with other imports (RecheckImports).
	sameTree bool
	// acceptance is set (fast path) when the base's text or the new one
	// may declare an acceptance policy (mayDeclareAcceptance).
	acceptance bool
	// stable is set (fast path) when no module fact can have changed;
	// sameNames when each name finds the declaration at the same index
	// as in the base (fastRecheck).
	stable, sameNames bool
	rechecked         int // bodies checked again
	reused            int // bodies whose diagnostics were reused

	// checked lists the declarations whose bodies were checked again.
	checked []int

	// base is the checker of the base's check (whose resolved types
	// keepTypes reads), keep the base's types that the new version's
	// type declarations keep (by new index; nil: made anew), keptTypes
	// how many.
	base      *checker
	keep      []types.Type
	keptTypes int
}

// plan runs after the module pass of the new version (declarations,
// types, members and signatures, all checked again): it aligns the new
// declarations with the base's.
func (e *engineRun) plan(c *checker) {
	m := c.mod
	if e.sameTree {
		// every declaration is the base's, at the same index
		e.cur = &version{src: e.src, mod: m, info: c.info, decls: append([]declState(nil), e.old.decls...), first: e.old.first, keyV: map[string]uint64{}, imports: c.imports, failed: c.failedImports}
		e.align = make([]int, len(m.Decls))
		for i := range e.align {
			e.align[i] = i
		}
		return
	}
	e.cur = newVersion(e.src, m, c.info, c.decls, c.index)
	e.cur.imports, e.cur.failed = c.imports, c.failedImports
	nOld, nNew := len(e.old.decls), len(e.cur.decls)
	e.align = make([]int, nNew)
	for i := range e.align {
		e.align[i] = -1
	}
	same := func(i, j int) bool {
		a, b := e.cur.decls[i], e.old.decls[j]
		if a.content != b.content {
			return false
		}
		// (a base that was a fast Recheck's keeps trees whose offsets
		// are older texts': its text starts where its state says)
		as, bs := m.Decls[i].Base().Form.Span(), e.old.mod.Decls[j].Base().Form.Span()
		bs = shift(bs, b.start-bs.Start)
		return bytes.Equal(e.src[as.Start:as.End], e.old.src[bs.Start:bs.End])
	}
	// The declarations before and after the edited region keep their
	// order; inside it, a declaration matches a base declaration with the
	// same text (one moved, or one of a run of insertions).
	pre := 0
	for pre < nOld && pre < nNew && same(pre, pre) {
		e.align[pre] = pre
		pre++
	}
	suf := 0
	for suf < nOld-pre && suf < nNew-pre && same(nNew-1-suf, nOld-1-suf) {
		e.align[nNew-1-suf] = nOld - 1 - suf
		suf++
	}
	byContent := map[uint64][]int{}
	for j := pre; j < nOld-suf; j++ {
		h := e.old.decls[j].content
		byContent[h] = append(byContent[h], j)
	}
	for i := pre; i < nNew-suf; i++ {
		cands := byContent[e.cur.decls[i].content]
		for k, j := range cands {
			if j >= 0 && same(i, j) {
				e.align[i] = j
				cands[k] = -1
				break
			}
		}
	}
	e.cur.ifaces(e.align, e.old)
}

// sameBodyInputs reports whether new declaration i's body check would
// read what base declaration j's read: its own interface (a function's
// signature, say, which may have changed through what it refers to), and
// the same value for every name and fact j's body check looked up.
func (e *engineRun) sameBodyInputs(i, j int) bool {
	if e.old.eff(j) != e.cur.eff(i) {
		return false
	}
	oi := &e.old.info[j]
	for _, n := range oi.body.names {
		if e.old.nameValue(n, j) != e.cur.nameValue(n, i) {
			return false
		}
	}
	for _, k := range oi.body.keys {
		if e.old.keyValue(k) != e.cur.keyValue(k) {
			return false
		}
	}
	return true
}

// reuse decides whether declaration i of the new version can keep its
// base diagnostics: it has a base declaration of the same text, and every
// name and fact its body check looked up has the same value. If so, it
// adds them, moved to the declaration's new start.
func (e *engineRun) reuse(c *checker, i int) bool {
	j := e.align[i]
	if j < 0 || everyBodyOnImportEdit && e.importsChanged {
		return false
	}
	oi := &e.old.info[j]
	if oi.pinned || e.old.untrusted != nil && e.old.untrusted[j] {
		return false
	}
	if !e.sameBodyInputs(i, j) {
		return false
	}
	c.res.Diagnostics = moved(oi.diags, e.cur.decls[i].start, c.res.Diagnostics)
	c.info[i].body, c.info[i].diags = oi.body, oi.diags
	e.reused++
	return true
}

// everyBodyOnImportEdit, set by benchmarks only, checks every body again
// after an edit of the module's own imports, as the engine did before it
// recorded the aliases each check read (keyAlias); wholeRecheck, also for
// benchmarks only, has Recheck read and build the whole text, as it did
// for every import edit before the fast path read them: the "every body"
// and "whole" modes of BenchmarkRecheckImportEdit.
var everyBodyOnImportEdit, wholeRecheck bool

// compact removes repeated names and keys from a version's body
// dependencies, so that deciding reuse compares each once.
func compact(info []declInfo) {
	for i := range info {
		info[i].body.names = uniq(info[i].body.names)
		info[i].body.keys = uniq(info[i].body.keys)
	}
}

func uniq(xs []string) []string {
	if len(xs) < 2 {
		return xs
	}
	ys := append([]string(nil), xs...)
	sort.Strings(ys)
	out := ys[:1]
	for _, x := range ys[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

// shift moves a span by d bytes.
func shift(sp syntax.Span, d int) syntax.Span {
	return syntax.Span{Start: sp.Start + d, End: sp.End + d}
}
