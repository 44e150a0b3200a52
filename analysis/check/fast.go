package check

// This file is Recheck's fast path: when an edit leaves the module's
// header and everything around the declarations as they were, only the
// declarations it touched, and those whose inputs changed, are read,
// built, resolved and checked again; every other one keeps the base's
// tree, types, signatures, members and diagnostics.

import (
	"bytes"
	"hash/maphash"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// layout is how a file's text divides around its declarations: the
// module's declaration lists, and where the first starts and the last
// ends (the text before and after them holds the header and the module's
// end).
type layout struct {
	decls      []int32 // the declaration lists, in order
	head, tail int     // the first declaration's start, the last's end
}

// cut finds a file's layout; ok is false unless the file is one module
// form (comments aside) whose children are its keyword and name, header
// clauses (capsule, profile, import) before every declaration,
// declaration lists and comments.
func cut(c *syntax.CST) (l layout, ok bool) {
	mod := int32(-1)
	for k := c.FirstChild(0); k >= 0; k = c.Next(k) {
		switch {
		case c.Kind(k) == syntax.KindComment:
		case mod < 0 && isModuleList(c, k):
			mod = k
		default:
			return l, false
		}
	}
	if mod < 0 {
		return l, false
	}
	item := 0
	for j := c.FirstChild(mod); j >= 0; j = c.Next(j) {
		switch c.Kind(j) {
		case syntax.KindLParen, syntax.KindRParen, syntax.KindComment:
			if c.Kind(j) == syntax.KindRParen && len(l.decls) == 0 {
				l.head = c.Span(j).Start
				l.tail = l.head
			}
			continue
		}
		item++
		if item <= 2 {
			if c.Kind(j) != syntax.KindSymbol {
				return l, false
			}
			continue
		}
		if c.Kind(j) != syntax.KindList {
			return l, false
		}
		switch head := c.ListHeadBytes(j); {
		case string(head) == "capsule" || string(head) == "profile" || string(head) == "import":
			if len(l.decls) > 0 {
				return l, false // header clauses after a declaration
			}
		case isDeclKind(head):
			if len(l.decls) == 0 {
				l.head = c.Span(j).Start
			}
			l.decls = append(l.decls, j)
			l.tail = c.Span(j).End
		default:
			return l, false
		}
	}
	return l, true
}

// declKinds holds the declaration kinds' keywords.
var declKinds = func() map[string]bool {
	m := map[string]bool{}
	for _, d := range ast.DeclKinds {
		m[string(d)] = true
	}
	return m
}()

// cutFrom is cut(c) for c, a later version of oc (laid out as l),
// whose texts share their first pre and last suf bytes: the declarations
// inside those are oc's, at the same node (before the edit) or moved by
// the difference in node counts (after it), so that only the module's
// children in between are walked. It falls back to cut when the edit
// reaches the header or the text after the last declaration, or a
// declaration is not found where it should be.
func cutFrom(l *layout, oc, c *syntax.CST, pre, suf int) (layout, bool) {
	nOld := len(l.decls)
	dn := int32(c.Len() - oc.Len())
	delta := len(c.Src) - len(oc.Src)
	at := func(id int32, sp syntax.Span) bool {
		return id >= 0 && int(id) < c.Len() && c.Kind(id) == syntax.KindList && c.Span(id) == sp
	}
	// The declarations before the edit: found by binary search, their
	// nodes checked at the ends of the run (the IDs of nodes inside an
	// unchanged prefix do not change), else one by one.
	p := sort.Search(nOld, func(i int) bool { return oc.Span(l.decls[i]).End > pre })
	if p > 0 && !(at(l.decls[0], oc.Span(l.decls[0])) && at(l.decls[p-1], oc.Span(l.decls[p-1]))) {
		p = 0
		for p < nOld {
			id := l.decls[p]
			if sp := oc.Span(id); sp.End > pre || !at(id, sp) {
				break
			}
			p++
		}
	}
	if p == 0 {
		return cut(c) // the header may have changed
	}
	movedAt := func(k int) bool {
		id := l.decls[k]
		return at(id+dn, shift(oc.Span(id), delta))
	}
	s := nOld - max(p, sort.Search(nOld, func(i int) bool { return oc.Span(l.decls[i]).Start >= len(oc.Src)-suf }))
	if s > 0 && !(movedAt(nOld-s) && movedAt(nOld-1)) {
		s = 0
		for s < nOld-p {
			id := l.decls[nOld-1-s]
			if sp := oc.Span(id); sp.Start < len(oc.Src)-suf || !at(id+dn, shift(sp, delta)) {
				break
			}
			s++
		}
	}
	stop := int32(-1) // the first declaration after the edit
	if s > 0 {
		stop = l.decls[nOld-s] + dn
	}
	out := layout{decls: make([]int32, 0, nOld+4)}
	out.decls = append(out.decls, l.decls[:p]...)
	for j := c.Next(l.decls[p-1]); j != stop; j = c.Next(j) {
		if j < 0 {
			return cut(c) // stop is not a sibling after all
		}
		switch c.Kind(j) {
		case syntax.KindComment, syntax.KindRParen:
			continue
		case syntax.KindList:
			if isDeclKind(c.ListHeadBytes(j)) {
				out.decls = append(out.decls, j)
				continue
			}
		}
		return out, false // a header clause after a declaration, or no declaration
	}
	for k := nOld - s; k < nOld; k++ {
		out.decls = append(out.decls, l.decls[k]+dn)
	}
	out.head = c.Span(out.decls[0]).Start
	out.tail = c.Span(out.decls[len(out.decls)-1]).End
	// the texts differ in old bytes [pre, len(oc.Src)-suf) and new bytes
	// [pre, len(c.Src)-suf): does either reach past the last declaration?
	if len(oc.Src)-l.tail != len(c.Src)-out.tail || max(pre, l.tail) < len(oc.Src)-suf || max(pre, out.tail) < len(c.Src)-suf {
		return cut(c) // the text after the declarations changed: walk the file's top level too
	}
	return out, true
}

func isDeclKind(k []byte) bool { return declKinds[string(k)] }

// alignDecls matches new declarations with old ones of the same text:
// the runs before and after the edited region in order, and inside it by
// content. It returns, for each new declaration, its old one or -1.
func alignDecls(oldN, newN int, oldHash, newHash func(int) uint64, same func(i, j int) bool) []int {
	align := make([]int, newN)
	for i := range align {
		align[i] = -1
	}
	pre := 0
	for pre < oldN && pre < newN && oldHash(pre) == newHash(pre) && same(pre, pre) {
		align[pre] = pre
		pre++
	}
	suf := 0
	for suf < oldN-pre && suf < newN-pre && oldHash(oldN-1-suf) == newHash(newN-1-suf) && same(newN-1-suf, oldN-1-suf) {
		align[newN-1-suf] = oldN - 1 - suf
		suf++
	}
	byContent := map[uint64][]int{}
	for j := pre; j < oldN-suf; j++ {
		byContent[oldHash(j)] = append(byContent[oldHash(j)], j)
	}
	for i := pre; i < newN-suf; i++ {
		cands := byContent[newHash(i)]
		for k, j := range cands {
			if j >= 0 && same(i, j) {
				align[i] = j
				cands[k] = -1
				break
			}
		}
	}
	return align
}

// alignEnds aligns the new declarations (nodes curDecls of cur) with
// the base's (nodes oldDecls of oldCST, states olds) and fills their
// states (news): the declarations inside the texts' common prefix (pre
// bytes) and suffix (suf bytes) are the base's, in order, with their
// hashes; those in between are hashed and aligned by alignDecls.
func alignEnds(oldCST *syntax.CST, oldDecls []int32, olds []declState, cur *syntax.CST, curDecls []int32, news []declState, pre, suf int) []int {
	nOld, n := len(oldDecls), len(curDecls)
	delta := len(cur.Src) - len(oldCST.Src)
	// The runs before and after the edit: found by binary search and
	// checked at their ends (the common prefix and suffix hold the same
	// declarations), else compared one by one.
	same := func(i, j, d int) bool {
		a, b := cur.Span(curDecls[i]), oldCST.Span(oldDecls[j])
		return a.Start == b.Start+d && a.End == b.End+d
	}
	p := sort.Search(min(n, nOld), func(k int) bool { return oldCST.Span(oldDecls[k]).End > pre })
	if p > 0 && !(same(0, 0, 0) && same(p-1, p-1, 0)) {
		p = 0
		for ; p < n && p < nOld; p++ {
			if !same(p, p, 0) || oldCST.Span(oldDecls[p]).End > pre {
				break
			}
		}
	}
	for k := 0; k < p; k++ {
		news[k] = declState{start: olds[k].start, content: olds[k].content}
	}
	s := min(n-p, nOld-sort.Search(nOld, func(j int) bool { return oldCST.Span(oldDecls[j]).Start >= len(oldCST.Src)-suf }), nOld-p)
	if s > 0 && !(same(n-s, nOld-s, delta) && same(n-1, nOld-1, delta)) {
		s = 0
		for ; s < n-p && s < nOld-p; s++ {
			if !same(n-1-s, nOld-1-s, delta) || oldCST.Span(oldDecls[nOld-1-s]).Start < len(oldCST.Src)-suf {
				break
			}
		}
	}
	for k := 1; k <= s; k++ {
		news[n-k] = declState{start: olds[nOld-k].start + delta, content: olds[nOld-k].content}
	}
	for i := p; i < n-s; i++ {
		sp := cur.Span(curDecls[i])
		news[i] = declState{start: sp.Start, content: maphash.Bytes(seed, cur.Src[sp.Start:sp.End])}
	}
	mid := alignDecls(nOld-p-s, n-p-s,
		func(j int) uint64 { return olds[p+j].content },
		func(i int) uint64 { return news[p+i].content },
		func(i, j int) bool {
			a, b := cur.Span(curDecls[p+i]), oldCST.Span(oldDecls[p+j])
			return bytes.Equal(cur.Src[a.Start:a.End], oldCST.Src[b.Start:b.End])
		})
	align := make([]int, n)
	for i := range align {
		switch {
		case i < p:
			align[i] = i
		case i >= n-s:
			align[i] = i - n + nOld
		case mid[i-p] >= 0:
			align[i] = mid[i-p] + p
		default:
			align[i] = -1
		}
	}
	return align
}

// fastRecheck is Recheck's fast path; handled is false when the edit is
// outside its reach (the caller then reads and builds the whole file):
// the base or cur is not laid out as cut requires, the text after the
// last declaration changed, the header has a syntax error alone, the
// base's diagnostics are not all attributed to a declaration or the
// header, or cur imports a module that neither the base's check nor
// more resolved.
//
// pre and suf are the lengths of the common prefix and suffix of the
// base's text and cur's (syntax.CST.EditedEnds): the declarations inside them are
// the base's, moved, without comparing or hashing their text again.
//
// An edit of the imports is read as any other edit of the header: the
// header alone; the declarations that read an alias or an imported
// member whose answer changed are candidates (keyAlias, keyImport), and
// are read and checked again when their inputs differ.
func (r *Result) fastRecheck(cur *syntax.CST, pre, suf int, more Importer) (res *Result, eng *engineRun, handled bool) {
	base := r.checker
	oldCST := r.File.Source.CST
	om := r.File.Module
	if om == nil || oldCST.HasError(0) || r.File.Source.TooDeep {
		return nil, nil, false
	}
	old := base.version(oldCST)
	if !old.layoutOK || len(old.layout.decls) != len(om.Decls) {
		return nil, nil, false
	}
	ol := old.layout
	nl, ok := cutFrom(ol, oldCST, cur, pre, suf)
	oldN, curN := len(oldCST.Src), len(cur.Src)
	if !ok || !(oldN-ol.tail == curN-nl.tail && ol.tail >= oldN-suf || bytes.Equal(oldCST.Src[ol.tail:], cur.Src[nl.tail:])) {
		return nil, nil, false
	}
	// A changed header (the module's name, capsule, profile line, the
	// comments before the first declaration) is read and built alone: it
	// is a prefix of the file, so its positions are the file's.
	var head *ast.File
	importsChanged := false
	if !(ol.head == nl.head && ol.head <= pre || bytes.Equal(oldCST.Src[:ol.head], cur.Src[:nl.head])) {
		hc, err := syntax.Parse(append(append([]byte(nil), cur.Src[:nl.head]...), ')'))
		if err != nil || hc.HasError(0) {
			return nil, nil, false
		}
		head = ast.Build(syntax.Read(hc))
		if head.Module == nil || len(head.Module.Decls) > 0 {
			return nil, nil, false
		}
		importsChanged = !sameImports(oldCST.Src, om, hc.Src, head.Module)
	}
	// The base's read and build diagnostics, by declaration; the others
	// must lie in the header, which did not move. (Few declarations have
	// any: a map, not an array as long as the module, for less garbage
	// per edit.)
	var built map[int][]syntax.Diagnostic
	var headBuilt []syntax.Diagnostic
	if old.builtOK {
		// a fast Recheck's answer: its trees are not all at their text's
		// offsets, the diagnostics were kept by declaration
		built = old.built
		if head == nil {
			headBuilt = old.headBuilt
		}
	}
	for _, d := range r.File.Diagnostics {
		if old.builtOK {
			break
		}
		j := declAtOffset(om, d.Span)
		if j < 0 {
			if d.Span.End > ol.head || d.Span == (syntax.Span{}) {
				return nil, nil, false
			}
			if head == nil {
				headBuilt = append(headBuilt, d)
			}
			continue
		}
		rd, out := relative(d, om.Decls[j].Base().Form.Span())
		if out {
			return nil, nil, false
		}
		if built == nil {
			built = map[int][]syntax.Diagnostic{}
		}
		built[j] = append(built[j], rd)
	}

	n := len(nl.decls)
	cv := &version{src: cur.Src, decls: make([]declState, n), keyV: map[string]uint64{}, imports: base.imports, failed: base.failedImports}
	align := alignEnds(oldCST, ol.decls, old.decls, cur, nl.decls, cv.decls, pre, suf)
	eng = &engineRun{old: old, cur: cv, align: align, src: cur.Src, acceptance: mayDeclareAcceptance(old, cur.Src, pre, suf), importsChanged: importsChanged}

	// The new module: the base's header, and each declaration's tree,
	// the base's when its text is the same.
	hm := om
	if head != nil {
		hm, headBuilt = head.Module, head.Diagnostics
	}
	nm := &ast.Module{Form: hm.Form, Name: hm.Name, Doc: hm.Doc, Capsule: hm.Capsule, Profiles: hm.Profiles, Imports: hm.Imports, Decls: make([]ast.Decl, n)}
	cv.mod = nm
	fresh := make([]bool, n)
	newBuilt := map[int][]syntax.Diagnostic{} // the fresh declarations'
	rebuild := func(i int) bool {
		src := syntax.ReadNode(cur, nl.decls[i], 1)
		if len(src.Forms) != 1 {
			return false
		}
		for _, d := range src.Diagnostics {
			if d.Code == syntax.CodeParse {
				return false // nesting too deep: Read reports it once per file
			}
		}
		d, bd := ast.BuildDecl(src, src.Forms[0])
		if d == nil {
			return false
		}
		nm.Decls[i], fresh[i] = d, true
		newBuilt[i] = append(src.Diagnostics, bd...)
		return true
	}
	for i, j := range align {
		if j >= 0 {
			nm.Decls[i] = om.Decls[j]
			cv.decls[i].iface = old.decls[j].iface
		} else if !rebuild(i) {
			return nil, nil, false
		}
	}
	// When every declaration is where it was, or was replaced by one of
	// the same name, each name finds the declaration at the same index:
	// the base's table of first declarations is the new one's.
	sameNames := n == len(om.Decls)
	var freshIdx []int
	for i, j := range align {
		if j < 0 {
			freshIdx = append(freshIdx, i)
			if sameNames {
				a, b := nm.Decls[i].Base().Name, om.Decls[i].Base().Name
				sameNames = a.Valid() == b.Valid() && a.Name == b.Name
			}
		} else {
			sameNames = sameNames && j == i
		}
	}
	if sameNames {
		cv.first = old.first
	} else {
		cv.first = firstNames(nm)
	}
	for i, d := range nm.Decls {
		if fresh[i] {
			cv.decls[i].iface = ifaceHash(cur.Src, d)
		}
	}

	// stable: every declaration is where it was, or replaced by one of
	// the same kind, name and interface, and the profile line is the
	// same: then no module fact changed (names of a kind, surfaces bound
	// to a machine, variant types, the effects admitted).
	eng.sameNames = sameNames
	eng.stable = sameNames && sameProfiles(om, nm) && !importsChanged
	for _, i := range freshIdx {
		eng.stable = eng.stable && nm.Decls[i].Kind() == om.Decls[i].Kind() && cv.decls[i].iface == old.decls[i].iface
	}

	// Resolve the new declarations' interfaces, to learn what they look
	// up; then every declaration whose interface or body inputs changed
	// is built and resolved again with them, until none is left.
	var ch *checker
	var cand []bool
	if more != nil && head != nil {
		// every round resolves the new header's imports: the imports
		// the base did not resolve are asked of more once, and later
		// rounds answer them as the first did (the candidates were
		// chosen against those answers)
		more = &onceImporter{imp: more, got: map[string]importCall{}}
	}
	for round := 0; ; round++ {
		var same []int // the declarations to define anew over a copy of the base's table
		if sameNames {
			same = freshIdx
			for i, f := range fresh {
				if f && align[i] >= 0 {
					same = append(same, i) // rebuilt in an earlier round
				}
			}
		}
		ch = r.overlay(nm, fresh, cur, head != nil, sameNames, same, cv.first, more)
		if ch == nil {
			return nil, nil, false
		}
		// the imports as the new header resolves them (the base's when
		// the header is)
		cv.imports, cv.failed = ch.imports, ch.failedImports
		// the overlay's records of the fresh declarations, the base's of
		// the others (the overlay reads only the fresh ones')
		cv.info = ch.info
		for i, j := range align {
			if !fresh[i] {
				cv.info[i] = old.info[j]
			}
		}
		cv.effDone, cv.keyV, cv.bound = nil, map[string]uint64{}, nil
		if round == 0 {
			cand = eng.candidates(nm, om)
		}
		stale := false
		for i, j := range align {
			if fresh[i] || !cand[i] || eng.unchanged(i, j) {
				continue
			}
			if round > 0 || !rebuild(i) {
				return nil, nil, false // not settled by one more round: read the whole file
			}
			cv.decls[i].iface = ifaceHash(cur.Src, nm.Decls[i])
			stale = true
		}
		if !stale {
			break
		}
	}

	// Diagnostics, in the order a full check reports them before sorting:
	// reading and building, the header's, duplicate declarations, the
	// interfaces', the bodies'.
	out := append([]syntax.Diagnostic(nil), headBuilt...)
	for i, j := range align {
		if fresh[i] {
			out = append(out, newBuilt[i]...)
		} else {
			out = moved(built[j], cv.decls[i].start, out)
		}
	}
	if head != nil {
		out = append(out, ch.res.Diagnostics[ch.head[0]:ch.head[1]]...)
	} else {
		out = append(out, base.headDiags...)
	}
	if sameNames {
		// the same names at the same indexes: the same duplicates, which
		// the next edit's version then need not find again
		dups := old.duplicates()
		cv.mu.Lock()
		cv.dups, cv.dupsDone = dups, true
		cv.mu.Unlock()
		out = duplicatesAt(nm, cv, dups, out)
	} else {
		out = duplicates(nm, cv, out)
	}
	for i, j := range align {
		if fresh[i] {
			for _, at := range ch.info[i].p1idx {
				out = append(out, ch.res.Diagnostics[at])
			}
		} else {
			out = moved(old.info[j].p1diags, cv.decls[i].start, out)
		}
	}
	bodies := func(surfaces bool) {
		for i, d := range nm.Decls {
			if _, s := d.(*ast.Surface); s != surfaces {
				continue
			}
			if !fresh[i] {
				out = moved(old.info[align[i]].diags, cv.decls[i].start, out)
				eng.reused++
				continue
			}
			k := len(ch.res.Diagnostics)
			ch.body(i, d)
			out = append(out, ch.res.Diagnostics[k:]...)
			if hasBody(d) {
				eng.rechecked++
			}
		}
	}
	bodies(false)
	bodies(true)
	polFrom := len(out) // the policy conditions' diagnostics follow
	// The authority policies' conditions: the base's, moved, when no
	// governance declaration or machine was resolved again; else checked
	// over the new module, positions in the base's trees moved as they go
	// out.
	policyKept := old.policyOK
	for i, d := range nm.Decls {
		switch d.(type) {
		case *ast.ClauseDecl, *ast.Machine:
			policyKept = policyKept && !fresh[i]
		}
	}
	// (a declaration of those kinds deleted changes them too)
	policyKept = policyKept && governanceCount(nm) == governanceCount(om)
	if policyKept {
		for i, j := range align {
			if j >= 0 {
				out = moved(old.policy[j], cv.decls[i].start, out)
			}
		}
		pol := append([]syntax.Diagnostic(nil), out[polFrom:]...)
		out = eng.unusedAcceptance(ch, nm, fresh, out)
		sortDiagnostics(out)
		return r.chain(ch, &chainParts{cur: cur, eng: eng, layout: nl, fresh: fresh, built: built, newBuilt: newBuilt, headBuilt: headBuilt, head: head != nil, policy: pol}, out), eng, true
	}
	ch.shiftOf = map[ast.Decl]int{}
	shiftOf := func(i int) {
		d := nm.Decls[i]
		if k := cv.decls[i].start - d.Base().Form.Span().Start; k != 0 {
			ch.shiftOf[d] = k
		}
	}
	k := len(ch.res.Diagnostics)
	clausesKept := old.policyOK && base.model != nil && clauseCount(nm) == clauseCount(om)
	for i, d := range nm.Decls {
		if _, ok := d.(*ast.ClauseDecl); ok && fresh[i] {
			clausesKept = false
		}
	}
	if !clausesKept {
		for i := range nm.Decls {
			shiftOf(i)
		}
		ch.policyConditions(nm)
		out = append(out, ch.res.Diagnostics[k:]...)
	} else if model := base.model; model.Governed() {
		// The governance declarations are the base's: so is the
		// authority model. A policy's conditions are checked again when
		// the machines it governs are not the base's (one was checked
		// again: its context may have changed; or one joined or left);
		// the others keep the base's diagnostics, as do the intents of
		// the machines kept.
		oldToNew := inverse(align, len(om.Decls))
		// (the machines kept evaluate what they did in the base)
		evals := old.evaluates(model)
		ch.governed = map[string][]*ast.Machine{}
		for i, d := range nm.Decls {
			mach, ok := d.(*ast.Machine)
			if !ok {
				continue
			}
			var ev []string
			if j := align[i]; j >= 0 && !fresh[i] {
				ev = evals[j]
			} else {
				ev = evaluates(mach, soleName(model))
			}
			for _, p := range ev {
				ch.governed[p] = append(ch.governed[p], mach)
			}
		}
		keptPolicy := map[int]bool{}
		for _, p := range model.Policies {
			j, ok := base.index[p.Decl]
			i := -1
			if ok {
				i = oldToNew[j]
			}
			if i >= 0 && slices.Equal(ch.governed[p.Name], base.governed[p.Name]) {
				keptPolicy[j] = true
				continue
			}
			if i >= 0 {
				shiftOf(i)
			}
			ch.policyConditionsOf(nm, model, p)
		}
		var machines []ast.Decl
		for i, d := range nm.Decls {
			if _, ok := d.(*ast.Machine); ok && fresh[i] {
				machines = append(machines, d)
			}
		}
		ch.blocked(nm, model, &ast.Module{Decls: machines})
		out = append(out, ch.res.Diagnostics[k:]...)
		for i, j := range align {
			if j < 0 || fresh[i] {
				continue
			}
			if _, ok := nm.Decls[i].(*ast.Machine); ok || keptPolicy[j] {
				out = moved(old.policy[j], cv.decls[i].start, out)
			}
		}
	}
	pol := append([]syntax.Diagnostic(nil), out[polFrom:]...)
	out = eng.unusedAcceptance(ch, nm, fresh, out)
	sortDiagnostics(out)
	return r.chain(ch, &chainParts{cur: cur, eng: eng, layout: nl, fresh: fresh, built: built, newBuilt: newBuilt, headBuilt: headBuilt, head: head != nil, policy: pol}, out), eng, true
}

// sameProfiles reports whether two modules list the same profiles.
func sameProfiles(a, b *ast.Module) bool {
	if len(a.Profiles) != len(b.Profiles) {
		return false
	}
	for i := range a.Profiles {
		if a.Profiles[i].Name != b.Profiles[i].Name {
			return false
		}
	}
	return true
}

// hasBody reports whether a declaration has a body check.
func hasBody(d ast.Decl) bool {
	switch d.(type) {
	case *ast.Function, *ast.Machine, *ast.Store, *ast.Port, *ast.Agent, *ast.ClauseDecl, *ast.Surface:
		return true
	}
	return false
}

// unchanged reports whether new declaration i, aligned with base
// declaration j, has the same inputs: the same eff, the same answer to
// whether its name finds it, and the same values for every name and fact
// its body check looked up; and no diagnostic of it lies outside it.
func (e *engineRun) unchanged(i, j int) bool {
	oi := &e.old.info[j]
	if oi.pinned || oi.p1pinned {
		return false
	}
	if e.stable {
		// every name finds a declaration with the same eff, every fact
		// has the same value
		return true
	}
	name := e.cur.mod.Decls[i].Base().Name
	if name.Valid() && e.old.nameValue(name.Name, j) != e.cur.nameValue(name.Name, i) {
		return false
	}
	return e.sameBodyInputs(i, j)
}

// overlay returns a checker for module nm, a new version of r's, that
// has resolved the interfaces of the declarations fresh marks (built
// from the new text) on top of r's check, which holds the others'. When
// header is set, it checks the module's header (profiles, imports, the
// imports answered as r's check resolved them, and by more those it did
// not) first; nil when it asks for an import neither resolves.
//
// When sameNames is set, every name finds the declaration at the same
// index as in the base (first is the table of first declarations): the
// base's symbols are copied, and only those of the declarations defined
// lists (the fresh ones) are made anew.
func (r *Result) overlay(nm *ast.Module, fresh []bool, cur *syntax.CST, header, sameNames bool, defined []int, first map[string]int, more Importer) *checker {
	base := r.checker
	n := len(nm.Decls)
	ch := &checker{
		res:           &Result{Path: r.Path, File: &ast.File{Source: &syntax.Source{CST: cur}, Module: nm}, Types: &TypeMap{}, FuncEffects: map[*ast.Function][]EffectUse{}},
		opts:          base.opts,
		mod:           nm,
		imports:       base.imports,
		failedImports: base.failedImports,
		info:          make([]declInfo, n),
		index:         map[ast.Decl]int{},
		base:          base,
	}
	if sameNames {
		ch.decls = maps.Clone(base.decls)
		for _, i := range defined {
			d := nm.Decls[i]
			ch.index[d] = i
			if b := d.Base(); b.Name.Valid() && first[b.Name.Name] == i {
				ch.decls[b.Name.Name] = &Symbol{Kind: SymbolKind(d.Kind()), Name: b.Name.Name, Span: b.Name.Span, Full: b.Form.Span(), Doc: b.Doc, Decl: d, Detail: string(d.Kind()) + " " + b.Name.Name, File: base.opts.Path}
			}
		}
	} else {
		ch.decls = make(map[string]*Symbol, n)
		ch.declare(nm, fresh)
	}
	return r.overlayRest(ch, nm, fresh, header, more)
}

// declare fills an overlay's table of declarations: the base's symbols
// for the declarations kept that their names found in the base, new ones
// for the others.
func (ch *checker) declare(nm *ast.Module, fresh []bool) {
	base := ch.base
	for i, d := range nm.Decls {
		b := d.Base()
		if fresh[i] {
			ch.index[d] = i
		}
		if !b.Name.Valid() {
			continue
		}
		if _, dup := ch.decls[b.Name.Name]; dup {
			continue
		}
		if s := base.decls[b.Name.Name]; !fresh[i] && s != nil && s.Decl == d {
			ch.decls[b.Name.Name] = s
			continue
		}
		// a new declaration, or one that was a duplicate in the base (it
		// is resolved again: its name now finds it)
		ch.decls[b.Name.Name] = &Symbol{Kind: SymbolKind(d.Kind()), Name: b.Name.Name, Span: b.Name.Span, Full: b.Form.Span(), Doc: b.Doc, Decl: d, Detail: string(d.Kind()) + " " + b.Name.Name, File: base.opts.Path}
	}
}

// overlayRest is overlay after the table of declarations.
func (r *Result) overlayRest(ch *checker, nm *ast.Module, fresh []bool, header bool, more Importer) *checker {
	base := ch.base
	if header {
		var replay *replayImporter
		if ch.opts.Importer != nil {
			replay = &replayImporter{log: base.importLog, more: more}
			ch.opts.Importer = replay
		}
		ch.head[0] = len(ch.res.Diagnostics)
		ch.profiles(nm)
		ch.importsOf(nm)
		ch.head[1] = len(ch.res.Diagnostics)
		if replay != nil {
			replay.more = nil // (the answer does not keep the caller's importer)
			if replay.missed {
				return nil
			}
		}
	}
	ch.interfaces(nm, fresh)
	return ch
}

// firstNames maps each name the declarations of nm declare to the index
// of the first that declares it. The names are copied, into one buffer:
// they are the declarations' atoms, which point into the texts the
// declarations were read from (several in a fast Recheck's module), and
// the map outlives them (the versions chained on this one share it).
func firstNames(nm *ast.Module) map[string]int {
	n := 0
	for _, d := range nm.Decls {
		if b := d.Base(); b.Name.Valid() {
			n += len(b.Name.Name)
		}
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, d := range nm.Decls {
		if b := d.Base(); b.Name.Valid() {
			sb.WriteString(b.Name.Name)
		}
	}
	buf, at := sb.String(), 0
	first := make(map[string]int, len(nm.Decls))
	for i, d := range nm.Decls {
		if b := d.Base(); b.Name.Valid() {
			name := buf[at : at+len(b.Name.Name)]
			at += len(name)
			if _, dup := first[name]; !dup {
				first[name] = i
			}
		}
	}
	return first
}

// duplicates appends the diagnostics of declarations whose name an
// earlier one has, as the module pass reports them.
func duplicates(nm *ast.Module, cv *version, out []syntax.Diagnostic) []syntax.Diagnostic {
	all := make([]int, len(nm.Decls))
	for i := range all {
		all[i] = i
	}
	return duplicatesAt(nm, cv, all, out)
}

// duplicatesAt is duplicates over the declarations at the indices given
// (in order).
func duplicatesAt(nm *ast.Module, cv *version, at []int, out []syntax.Diagnostic) []syntax.Diagnostic {
	for _, i := range at {
		b := nm.Decls[i].Base()
		if !b.Name.Valid() {
			continue
		}
		first := cv.first[b.Name.Name]
		if first == i {
			continue
		}
		at := func(k int) syntax.Span {
			nb := nm.Decls[k].Base()
			return shift(nb.Name.Span, cv.decls[k].start-nb.Form.Span().Start)
		}
		out = append(out, syntax.Diagnostic{
			Code: DuplicateDecl, Severity: syntax.Error, Span: at(i),
			Message: syntax.Messagef("%s `%s` is declared twice", "declaration", b.Name.Name),
			Related: []syntax.Related{{Span: at(first), Message: "first declared here"}},
		})
	}
	return out
}

// declAtOffset returns the base declaration whose text holds sp, or -1.
func declAtOffset(m *ast.Module, sp syntax.Span) int {
	lo, hi := 0, len(m.Decls)
	for lo < hi {
		mid := (lo + hi) / 2
		if m.Decls[mid].Base().Form.Span().End < sp.Start {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for k := lo; k < len(m.Decls) && k <= lo+1; k++ {
		if w := m.Decls[k].Base().Form.Span(); w.Start <= sp.Start && sp.End <= w.End {
			return k
		}
	}
	return -1
}

// isModuleList reports whether node k is a list whose head is `module`.
func isModuleList(c *syntax.CST, k int32) bool {
	return c.Kind(k) == syntax.KindList && c.ListHead(k) == "module"
}

// governanceCount counts the declarations policy conditions read:
// governance and authority declarations, and machines.
func governanceCount(m *ast.Module) int {
	n := 0
	for _, d := range m.Decls {
		switch d.(type) {
		case *ast.ClauseDecl, *ast.Machine:
			n++
		}
	}
	return n
}

// clauseCount counts a module's governance and authority declarations.
func clauseCount(m *ast.Module) int {
	n := 0
	for _, d := range m.Decls {
		if _, ok := d.(*ast.ClauseDecl); ok {
			n++
		}
	}
	return n
}

// revIndex indexes a version's declarations by what they depend on.
type revIndex struct {
	p1Names, bodyNames, p1Keys, bodyKeys map[string][]int
	keys                                 []string // every fact some declaration read
	pinned                               []int    // declarations with a diagnostic outside them
	// parent, when not nil, holds the lists this index does not
	// (chain.go: a fast Recheck's version indexes only what changed).
	parent *revIndex
}

// reverse builds the index of v's dependencies.
func (v *version) reverse() *revIndex {
	x := &revIndex{p1Names: map[string][]int{}, bodyNames: map[string][]int{}, p1Keys: map[string][]int{}, bodyKeys: map[string][]int{}}
	add := func(m map[string][]int, key string, j int) {
		if l := m[key]; len(l) == 0 || l[len(l)-1] != j {
			m[key] = append(l, j)
		}
	}
	seenKey := map[string]bool{}
	for j := range v.info {
		info := &v.info[j]
		for _, n := range info.p1.names {
			add(x.p1Names, n, j)
		}
		for _, n := range info.body.names {
			add(x.bodyNames, n, j)
		}
		for _, k := range info.p1.keys {
			add(x.p1Keys, k, j)
			if !seenKey[k] {
				seenKey[k] = true
				x.keys = append(x.keys, k)
			}
		}
		for _, k := range info.body.keys {
			add(x.bodyKeys, k, j)
			if !seenKey[k] {
				seenKey[k] = true
				x.keys = append(x.keys, k)
			}
		}
		if info.pinned || info.p1pinned {
			x.pinned = append(x.pinned, j)
		}
	}
	return x
}

// ownKeys makes x's keys copies in one buffer of x's own: they are the
// declarations' atoms, which point into the texts the declarations were
// read from, and the index of a fast Recheck's version, whose
// declarations were read from several, outlives them (the indexes of the
// versions chained on it are built over it; chain.go).
func (x *revIndex) ownKeys() {
	n := 0
	for which := revP1Names; which <= revBodyKeys; which++ {
		for k := range x.table(which) {
			n += len(k)
		}
	}
	for _, k := range x.keys {
		n += len(k)
	}
	var b strings.Builder
	b.Grow(n)
	var at []int // where each key, in the order written, ends
	var list []string
	for which := revP1Names; which <= revBodyKeys; which++ {
		for k := range x.table(which) {
			b.WriteString(k)
			list = append(list, k)
			at = append(at, b.Len())
		}
	}
	for _, k := range x.keys {
		b.WriteString(k)
		list = append(list, k)
		at = append(at, b.Len())
	}
	buf := b.String()
	own := func(i int) string { return buf[at[i]-len(list[i]) : at[i]] }
	i := 0
	for which := revP1Names; which <= revBodyKeys; which++ {
		m := x.table(which)
		for range len(m) {
			// (setting a map's string key again replaces the key)
			m[own(i)] = m[list[i]]
			i++
		}
	}
	for k := range x.keys {
		x.keys[k] = own(i)
		i++
	}
}

// candidates marks the new declarations, kept from the base, whose
// inputs may have changed: those whose interface reaches, or whose body
// looked up, a name that now finds something else (a declaration not
// kept, or one of those), or read a fact whose value changed; those
// whose own name changed what it finds; and those with a diagnostic
// outside them. The others have the base's inputs by construction;
// unchanged decides for the candidates.
func (e *engineRun) candidates(nm, om *ast.Module) []bool {
	old, cv, align := e.old, e.cur, e.align
	rev := old.rev
	oldToNew := inverse(align, len(om.Decls))
	var dirty []string
	isDirty := map[string]bool{}
	mark := func(d ast.Decl) {
		if b := d.Base(); b.Name.Valid() && !isDirty[b.Name.Name] {
			isDirty[b.Name.Name] = true
			dirty = append(dirty, b.Name.Name)
		}
	}
	for i, j := range align {
		if j < 0 {
			mark(nm.Decls[i])
		}
	}
	for j, i := range oldToNew {
		if i < 0 {
			mark(om.Decls[j])
		}
	}
	if !e.sameNames {
		// (the same table: each name finds the declaration at the same
		// index, aligned with itself or marked already)
		for n, i := range cv.first {
			if j, ok := old.first[n]; !ok || align[i] != j {
				mark(nm.Decls[i])
			}
		}
		for n, j := range old.first {
			if _, ok := cv.first[n]; !ok {
				mark(om.Decls[j])
			}
		}
	}
	cand := make([]bool, len(nm.Decls))
	add := func(j int) bool {
		i := oldToNew[j]
		if i < 0 || cand[i] {
			return false
		}
		cand[i] = true
		return true
	}
	for _, k := range rev.keys {
		if e.stable || old.keyValue(k) == cv.keyValue(k) {
			continue
		}
		for _, j := range rev.lookup(revP1Keys, k) {
			if add(j) {
				mark(om.Decls[j]) // its interface may have changed
			}
		}
		for _, j := range rev.lookup(revBodyKeys, k) {
			add(j)
		}
	}
	for q := 0; q < len(dirty); q++ {
		n := dirty[q]
		for _, j := range rev.lookup(revP1Names, n) {
			if add(j) {
				mark(om.Decls[j])
			}
		}
		for _, j := range rev.lookup(revBodyNames, n) {
			add(j)
		}
	}
	for _, j := range rev.pinned {
		add(j)
	}
	for i, d := range nm.Decls {
		if e.sameNames {
			break // each name finds the declaration at the same index
		}
		if b := d.Base(); align[i] >= 0 && b.Name.Valid() && isDirty[b.Name.Name] {
			cand[i] = true // its name may find another declaration now
		}
	}
	return cand
}

// inverse maps each base declaration to the new one aligned with it (-1
// for none), from align (new index -> base index, or -1).
func inverse(align []int, nOld int) []int {
	out := make([]int, nOld)
	for j := range out {
		out[j] = -1
	}
	for i, j := range align {
		if j >= 0 {
			out[j] = i
		}
	}
	return out
}
