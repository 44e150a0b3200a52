package check

// This file makes a fast Recheck's answer a base for the next Recheck,
// so that a run of edits is answered without a full check in between.
//
// The answer's checker is the overlay that resolved and checked the
// declarations read again; the others' types, signatures and members are
// its base's, looked up through the chain of bases (depth counts them;
// past maxChain the chain is merged into the newest checker). Its
// version is the one the run built (hashes, names, what each
// declaration looked up, its diagnostics relative to its start), plus
// what a full check's version computes from the text: the layout, the
// policy conditions' diagnostics and the read and build diagnostics by
// declaration (the kept declarations' trees keep the offsets of the text
// they were built from, so positions are kept relative, never read off
// the trees).

import (
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
	built     [][]syntax.Diagnostic
	newBuilt  [][]syntax.Diagnostic
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
	cv.built, cv.builtOK = make([][]syntax.Diagnostic, n), true
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
		} else {
			cv.built[i] = p.built[j]
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
	if ch.importLog == nil {
		ch.importLog = base.importLog
	}
	if p.head {
		ch.headDiags = append([]syntax.Diagnostic(nil), ch.res.Diagnostics[ch.head[0]:ch.head[1]]...)
	} else {
		ch.headDiags = base.headDiags
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
	if ch.depth > maxChain {
		ch.flatten()
	}
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

// flatten merges the tables of ch's chain of bases into ch's own, so
// that it no longer needs them, keeping only the entries of the module's
// current declarations (those of declarations an edit replaced would keep
// their trees, and the texts they point into, alive).
func (ch *checker) flatten() {
	chain := []*checker{ch}
	for b := ch.base; b != nil; b = b.base {
		chain = append(chain, b)
	}
	live := func(d ast.Decl) bool {
		_, ok := ch.index[d]
		return ok
	}
	sigs := map[*ast.Function]*signature{}
	children := map[*Symbol][]*Symbol{}
	typeCache := map[*ast.TypeDecl]types.Type{}
	for _, b := range chain { // newest first: the first entry found wins
		for fn, s := range b.sigs {
			if _, ok := sigs[fn]; !ok && live(fn) {
				sigs[fn] = s
			}
		}
		for td, t := range b.typeCache {
			if _, ok := typeCache[td]; !ok && live(td) {
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
			if root.Decl == nil || root.File != ch.opts.Path || live(root.Decl) {
				children[s] = m
			}
		}
	}
	ch.sigs, ch.children, ch.typeCache = sigs, children, typeCache
	ch.base, ch.depth = nil, 0
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
// declarations it checked again, it tells whether the examples must be
// evaluated from a full check.
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
