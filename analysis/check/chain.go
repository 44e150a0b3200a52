package check

// This file makes a fast Recheck's answer a base for the next Recheck,
// so that a run of edits is answered without a full check in between.
//
// The answer's checker is the overlay that resolved and checked the
// declarations read again; the others' types, signatures and members are
// its base's, looked up through the chain of bases (depth counts them;
// past maxChain the chain is merged: merge). The chain holds tables
// only: the previous answer, with its text and version, is its caller's
// to keep or drop, and the tables' entries of the declarations an edit
// replaced are dropped (unlinkBase), so that a run of edits keeps no
// older text alive but those the current declarations were read from.
// Its
// version is the one the run built (hashes, names, what each
// declaration looked up, its diagnostics relative to its start), plus
// what a full check's version computes from the text: the layout, the
// policy conditions' diagnostics and the read and build diagnostics by
// declaration (the kept declarations' trees keep the offsets of the text
// they were built from, so positions are kept relative, never read off
// the trees).

import (
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// maxChain is how many bases a fast Recheck's checker looks through
// before they are merged into it.
const maxChain = 8

// chainParts is what fastRecheck hands to chain.
type chainParts struct {
	cur    *syntax.CST
	eng    *engineRun
	layout layout
	fresh  []bool
	// built holds the base's read and build diagnostics by base
	// declaration (relative), newBuilt the fresh declarations' (absolute),
	// headBuilt the header's.
	built     map[int][]syntax.Diagnostic
	newBuilt  map[int][]syntax.Diagnostic
	headBuilt []syntax.Diagnostic
	// head is set when the header was read again (its diagnostics are
	// then the overlay's).
	head bool
	// policy are the policy conditions' diagnostics (absolute).
	policy []syntax.Diagnostic
}

// chain returns the Result of a fast Recheck whose overlay checker is ch
// and whose diagnostics are out: a base for the next Recheck.
func (r *Result) chain(ch *checker, p *chainParts, out []syntax.Diagnostic) *Result {
	base := r.checker
	eng, cv := p.eng, p.eng.cur
	nm := cv.mod
	n := len(nm.Decls)
	span := func(i int) syntax.Span { // declaration i's text in cur
		sp := nm.Decls[i].Base().Form.Span()
		return shift(sp, cv.decls[i].start-sp.Start)
	}

	// the fresh declarations' records, as a full check keeps them
	for i, f := range p.fresh {
		if !f {
			continue
		}
		info := &cv.info[i]
		if len(info.p1idx) > 0 {
			whole := span(i)
			info.p1diags = make([]syntax.Diagnostic, len(info.p1idx))
			for k, at := range info.p1idx {
				var o bool
				info.p1diags[k], o = relative(ch.res.Diagnostics[at], whole)
				info.p1pinned = info.p1pinned || o
			}
			info.p1idx = nil
		}
		info.body.names = uniq(info.body.names)
		info.body.keys = uniq(info.body.keys)
	}

	l := p.layout // (a copy: p holds the run, and the run its base)
	cv.layout, cv.layoutOK = &l, true
	cv.acceptance = eng.acceptance
	cv.built, cv.builtOK = map[int][]syntax.Diagnostic{}, true
	cv.headBuilt = p.headBuilt
	fileDiags := append([]syntax.Diagnostic(nil), cv.headBuilt...)
	for i, j := range eng.align {
		if p.fresh[i] {
			for _, d := range p.newBuilt[i] {
				rd, o := relative(d, span(i))
				if o {
					cv.builtOK = false
				}
				cv.built[i] = append(cv.built[i], rd)
			}
		} else if b := p.built[j]; len(b) > 0 {
			cv.built[i] = b
		}
		fileDiags = moved(cv.built[i], cv.decls[i].start, fileDiags)
	}
	cv.policy, cv.policyOK = make([][]syntax.Diagnostic, n), true
	for _, d := range p.policy {
		i := declAtStart(cv, nm, d.Span)
		if i < 0 {
			cv.policyOK = false
			break
		}
		rd, o := relative(d, span(i))
		if o {
			cv.policyOK = false
			break
		}
		cv.policy[i] = append(cv.policy[i], rd)
	}
	if !cv.builtOK {
		// a fresh declaration's read diagnostic outside it: the next
		// Recheck declines the fast path and reads the whole file
		cv.layoutOK = false
	}

	// the checker's tables, complete for the new version
	ch.info = cv.info
	ch.index = make(map[ast.Decl]int, n)
	for i, d := range nm.Decls {
		ch.index[d] = i
	}
	if p.head {
		// (its import log is what the header read again asked for, if
		// anything: the base's would answer an import removed and added
		// again as the base's check resolved it)
		ch.headDiags = append([]syntax.Diagnostic(nil), ch.res.Diagnostics[ch.head[0]:ch.head[1]]...)
	} else {
		ch.importLog, ch.headDiags = base.importLog, base.headDiags
	}
	if ch.model == nil {
		ch.model = base.model
	}
	if ch.governed == nil {
		ch.governed = base.governed
	}
	ch.shiftOf, ch.strShift = nil, 0
	ch.kept = true
	ch.depth = base.depth + 1
	ch.unlinkBase(eng.align, nm, eng.old.mod, base.decls)
	if ch.depth > maxChain {
		ch.merge()
	}
	if eng.sameNames && eng.old.rev != nil {
		// every declaration at its index: the index is the base's, but
		// for the declarations read again (built now, not on the next
		// Recheck: the base's records of those are the previous text's,
		// which the answer must not keep)
		var changed []int
		for i, f := range p.fresh {
			if f {
				changed = append(changed, i)
			}
		}
		cv.rev = cv.reverseFrom(eng.old.rev, eng.old.info, changed)
		if ch.merged {
			cv.rev = cv.rev.merge()
		}
	}
	cv.inheritForms(eng.align, eng.old)
	ch.next = cv

	res := ch.res
	res.Diagnostics = out
	res.File = &ast.File{Source: &syntax.Source{CST: p.cur}, Module: nm, Diagnostics: fileDiags}
	// Types, Refs and Symbols hold only what the declarations checked
	// again recorded
	res.checker = ch
	// the checkers after it reach ch through their chain of bases, which
	// reads its tables, never its result: the result (and the tree and
	// text it holds) is not kept alive by theirs
	ch.res = nil
	return res
}

// merge replaces the links of ch's chain of bases but the last by one,
// holding their tables' entries of the module's current declarations:
// the chain is then two links deep. The last link is the tables of the
// check the chain started from (a full check, or a Recheck that read the
// whole file), the module's largest, which is shared, never copied;
// those above it hold the declarations edits read again, fewer. (The
// version's index of dependencies, chained on its base's, is merged
// likewise: revIndex.merge.)
func (ch *checker) merge() {
	var chain []*checker
	for b := ch.base; b != nil; b = b.base {
		chain = append(chain, b)
	}
	bottom := chain[len(chain)-1]
	m := &checker{base: bottom}
	m.sigs, m.children, m.typeCache = ch.tablesOf(chain[:len(chain)-1], func(d ast.Decl) bool {
		_, ok := ch.index[d]
		return ok
	})
	ch.base, ch.depth, ch.merged = m, 2, true
}

// tablesOf merges the tables (signatures, members, resolved types) of
// the checkers of chain, the first entry found winning, keeping only
// those of the declarations keep accepts (and the members of other
// modules' symbols).
func (ch *checker) tablesOf(chain []*checker, keep func(ast.Decl) bool) (map[*ast.Function]*signature, map[*Symbol][]*Symbol, map[*ast.TypeDecl]types.Type) {
	var ns, nc, nt int
	for _, b := range chain {
		ns, nc, nt = ns+len(b.sigs), nc+len(b.children), nt+len(b.typeCache)
	}
	sigs := make(map[*ast.Function]*signature, ns)
	children := make(map[*Symbol][]*Symbol, nc)
	typeCache := make(map[*ast.TypeDecl]types.Type, nt)
	for _, b := range chain { // newest first: the first entry found wins
		for fn, s := range b.sigs {
			if _, ok := sigs[fn]; !ok && keep(fn) {
				sigs[fn] = s
			}
		}
		for td, t := range b.typeCache {
			if _, ok := typeCache[td]; !ok && keep(td) {
				typeCache[td] = t
			}
		}
		for s, m := range b.children {
			if _, ok := children[s]; ok {
				continue
			}
			root := s
			for root.Parent != nil {
				root = root.Parent
			}
			// (members of other modules' symbols are kept)
			if root.Decl == nil || root.File != ch.opts.Path || keep(root.Decl) {
				children[s] = m
			}
		}
	}
	return sigs, children, typeCache
}

// unlinkBase makes ch's chain of bases one of tables only: the base
// (the previous answer's checker, which holds its version: its text,
// module, records, and for a full check its Result) is replaced by a
// checker holding only its signatures, members and resolved types, over
// the tables below it. The chain then keeps no version but ch's own (the
// previous answer keeps its own for as long as its caller keeps it).
//
// The declarations of the base's module (om) that ch's (nm, aligned with
// om by align) no longer has are gone: their trees keep the texts they
// were read from alive through their atoms. A table holding an entry of
// one (found by its function, type declaration, or its symbol among the
// base's, decls) is copied without the entries of the declarations
// gone, and the links above it are made anew; the other tables are
// shared, as no checker writes a table once another chains over it.
// Each declaration is gone once, when the edit that replaces or removes
// it is answered: then no table of the chain keeps it, but for the last
// (the check the chain started from: see merge), which is shared as it
// is: its trees were all read from one text, which the declarations no
// edit replaced (and the module's header) keep anyway.
func (ch *checker) unlinkBase(align []int, nm, om *ast.Module, decls map[string]*Symbol) {
	kept := make([]bool, len(om.Decls))
	for i, j := range align {
		if j >= 0 && nm.Decls[i] == om.Decls[j] {
			kept[j] = true
		}
	}
	gone := map[ast.Decl]bool{}
	for j, k := range kept {
		if !k {
			gone[om.Decls[j]] = true
		}
	}
	holds := func(b *checker) bool {
		for d := range gone {
			switch d := d.(type) {
			case *ast.Function:
				if _, ok := b.sigs[d]; ok {
					return true
				}
			case *ast.TypeDecl:
				if _, ok := b.typeCache[d]; ok {
					return true
				}
			}
			if n := d.Base().Name; n.Valid() {
				if s := decls[n.Name]; s != nil && s.Decl == d {
					if _, ok := b.children[s]; ok {
						return true
					}
				}
			}
		}
		return false
	}
	var chain []*checker
	for b := ch.base; b != nil; b = b.base {
		chain = append(chain, b)
	}
	var below *checker
	anew := false // a link below was made anew: those above are too
	for k := len(chain) - 1; k >= 0; k-- {
		b := chain[k]
		stale := k < len(chain)-1 && len(gone) > 0 && holds(b)
		if k > 0 && !anew && !stale {
			below = b // (a tables-only link already)
			continue
		}
		nb := &checker{sigs: b.sigs, children: b.children, typeCache: b.typeCache, base: below}
		if stale {
			nb.sigs, nb.children, nb.typeCache = ch.tablesOf([]*checker{b}, func(d ast.Decl) bool { return !gone[d] })
		}
		below, anew = nb, true
	}
	ch.base = below
}

// declAtStart returns the declaration of version v (module nm) whose
// text holds sp, or -1: the declarations' offsets are v's, not their
// trees'.
func declAtStart(v *version, nm *ast.Module, sp syntax.Span) int {
	lo, hi := 0, len(nm.Decls)
	end := func(i int) int { return v.decls[i].start + nm.Decls[i].Base().Form.Span().Len() }
	for lo < hi {
		mid := (lo + hi) / 2
		if end(mid) < sp.Start {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for k := lo; k < len(nm.Decls) && k <= lo+1; k++ {
		if v.decls[k].start <= sp.Start && sp.End <= end(k) {
			return k
		}
	}
	return -1
}

// MayRunExamples reports whether a full check of r's text may be one
// whose examples are evaluated (diagnose.RunsExamples: no error, and an
// example listed): r has no error and a function of its module has an
// example. For a Recheck's answer, whose Examples list only the
// declarations it checked again, it tells whether examples are to be
// evaluated (ExampleFuncs, examples.go).
func (r *Result) MayRunExamples() bool {
	if r == nil || r.HasErrors() || r.File == nil || r.File.Module == nil {
		return false
	}
	for _, d := range r.File.Module.Decls {
		if fn, ok := d.(*ast.Function); ok && len(fn.Examples) > 0 {
			return true
		}
	}
	return false
}

// Rechecks reports whether r can be the base of a Recheck (it kept its
// checker's state): a check's, or a Recheck's answer of a module.
func (r *Result) Rechecks() bool { return r != nil && r.checker != nil }

// merge returns x with its chain of parents but the last merged into
// one index (the lists of the newest index that has one for a key), over
// that last: the index of the version the chain started from, whose
// tables are the largest, which is shared as it is.
func (x *revIndex) merge() *revIndex {
	var chain []*revIndex
	for r := x; r != nil; r = r.parent {
		chain = append(chain, r)
	}
	if len(chain) <= 2 {
		return x
	}
	last := chain[len(chain)-1]
	m := &revIndex{keys: x.keys, pinned: x.pinned, parent: last}
	for which := revP1Names; which <= revBodyKeys; which++ {
		n := 0
		for _, r := range chain[:len(chain)-1] {
			n += len(r.table(which))
		}
		t := make(map[string][]int, n)
		for _, r := range chain[:len(chain)-1] { // newest first
			for k, l := range r.table(which) {
				if _, ok := t[k]; !ok {
					t[k] = l
				}
			}
		}
		switch which {
		case revP1Names:
			m.p1Names = t
		case revBodyNames:
			m.bodyNames = t
		case revP1Keys:
			m.p1Keys = t
		default:
			m.bodyKeys = t
		}
	}
	return m
}

// Which of a revIndex's maps lookup reads.
const (
	revP1Names = iota
	revBodyNames
	revP1Keys
	revBodyKeys
)

func (x *revIndex) table(which int) map[string][]int {
	switch which {
	case revP1Names:
		return x.p1Names
	case revBodyNames:
		return x.bodyNames
	case revP1Keys:
		return x.p1Keys
	}
	return x.bodyKeys
}

// lookup returns the declarations listed under key in the map which
// says, looking through the parents.
func (x *revIndex) lookup(which int, key string) []int {
	for r := x; r != nil; r = r.parent {
		if l, ok := r.table(which)[key]; ok {
			return l
		}
	}
	return nil
}

// reverseFrom builds v's index over parent, the index of a version whose
// declarations are v's at the same indices, with the same records but
// for those changed lists (whose records there were old's): only their
// lists are made anew.
func (v *version) reverseFrom(parent *revIndex, old []declInfo, changed []int) *revIndex {
	x := &revIndex{p1Names: map[string][]int{}, bodyNames: map[string][]int{}, p1Keys: map[string][]int{}, bodyKeys: map[string][]int{}, parent: parent, keys: parent.keys}
	isChanged := make(map[int]bool, len(changed))
	for _, i := range changed {
		isChanged[i] = true
	}
	// every key some changed declaration read, before or now, gets its
	// list anew: the parent's without the changed declarations, with
	// those that read it now
	// The keys are copied: the names are the declarations' atoms, which
	// point into the text they were read from, and the index outlives it
	// (the next version's index is built over this one); add, which sets
	// them again (a map's string key is replaced when set), gets the copy.
	clones := map[string]string{}
	clone := func(key string) string {
		c, ok := clones[key]
		if !ok {
			c = strings.Clone(key)
			clones[c] = c
		}
		return c
	}
	touch := func(which int, key string) {
		m := x.table(which)
		if _, ok := m[key]; ok {
			return
		}
		key = clone(key)
		var l []int
		for _, j := range parent.lookup(which, key) {
			if !isChanged[j] {
				l = append(l, j)
			}
		}
		m[key] = l
	}
	for _, i := range changed {
		for _, info := range []*declInfo{&old[i], &v.info[i]} {
			for _, n := range info.p1.names {
				touch(revP1Names, n)
			}
			for _, n := range info.body.names {
				touch(revBodyNames, n)
			}
			for _, k := range info.p1.keys {
				touch(revP1Keys, k)
			}
			for _, k := range info.body.keys {
				touch(revBodyKeys, k)
			}
		}
	}
	add := func(which int, key string, j int) {
		key = clone(key)
		m := x.table(which)
		l := m[key]
		at := 0
		for at < len(l) && l[at] < j {
			at++
		}
		if at < len(l) && l[at] == j {
			return
		}
		m[key] = append(l[:at], append([]int{j}, l[at:]...)...)
	}
	newKeys := false
	for _, i := range changed {
		info := &v.info[i]
		for _, n := range info.p1.names {
			add(revP1Names, n, i)
		}
		for _, n := range info.body.names {
			add(revBodyNames, n, i)
		}
		for _, k := range info.p1.keys {
			add(revP1Keys, k, i)
		}
		for _, k := range info.body.keys {
			add(revBodyKeys, k, i)
		}
		if len(info.p1.keys)+len(info.body.keys) > 0 {
			newKeys = true
		}
	}
	if newKeys {
		// (a superset: a fact no declaration reads any more lists none)
		seen := make(map[string]bool, len(parent.keys))
		for _, k := range parent.keys {
			seen[k] = true
		}
		x.keys = append([]string(nil), parent.keys...)
		for _, i := range changed {
			for _, ks := range [][]string{v.info[i].p1.keys, v.info[i].body.keys} {
				for _, k := range ks {
					if !seen[k] {
						k = clone(k)
						seen[k] = true
						x.keys = append(x.keys, k)
					}
				}
			}
		}
	}
	for _, j := range parent.pinned {
		if !isChanged[j] {
			x.pinned = append(x.pinned, j)
		}
	}
	for _, i := range changed {
		if v.info[i].pinned || v.info[i].p1pinned {
			x.pinned = append(x.pinned, i)
		}
	}
	sort.Ints(x.pinned)
	return x
}
