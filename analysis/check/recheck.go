package check

import (
	"bytes"
	"slices"
	"sort"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Recheck returns the diagnostics that checking cur, a later version of
// the file r was checked from, would report, by re-checking only what
// changed: the language server's path from an edit to diagnostics.
//
// The file is cut into units: the top-level forms and comments, and inside
// the module form each of its children. Units whose text is unchanged keep
// their diagnostics, moved to their new offsets. Changed units are read,
// built and checked again on their own against r's module state (its
// declarations, signatures and types), which is sound when what other
// declarations see of them did not change. Recheck reports ok=false, and
// the caller checks cur in full, unless:
//   - neither version has a syntax error (an error-free list's structure
//     follows from its text alone) and both have the same number of units;
//   - every changed unit is a comment, or a function or machine in the
//     module that keeps its name, is not a second declaration of that name
//     and (a machine) is bound by no surface;
//   - when a function's signature changed (parameter and result types,
//     declared effects), every unit that refers to it is such a function or
//     machine too: those units are checked again with the new signature;
//   - every diagnostic of r that involves a unit checked again lies inside
//     it, and none lies at offset 0 (the span of a missing name).
//
// The imports r resolved are taken as they were; the caller must not use a
// result whose imports may have changed since.
func (r *Result) Recheck(cur *syntax.CST) (diags []syntax.Diagnostic, ok bool) {
	base := r.checker
	if base == nil || base.base != nil || r.File == nil || r.File.Module == nil || r.File.Source == nil {
		return nil, false
	}
	old := r.File.Source.CST
	if old == nil || cur == nil || len(old.Nodes) == 0 || len(cur.Nodes) == 0 || old.HasError(0) || cur.HasError(0) {
		return nil, false
	}
	if r.File.Source.TooDeep {
		return nil, false // Read reports only the first list nested too deep in a file
	}
	if governed(r.File.Module) {
		return nil, false // policy conditions read every governed machine's context
	}
	ou, nu := units(old), units(cur)
	if len(ou) != len(nu) {
		return nil, false
	}
	var changed []int
	for i := range ou {
		o, n := &ou[i], &nu[i]
		if o.item != n.item || old.Nodes[o.node].Symbol != cur.Nodes[n.node].Symbol ||
			!bytes.Equal(old.Src[o.span.Start:o.span.End], cur.Src[n.span.Start:n.span.End]) {
			o.changed = true
			changed = append(changed, i)
		}
	}
	m := &unitMap{old: old, cur: cur, ou: ou, nu: nu}
	if len(changed) == 0 {
		return r.mapDiagnostics(m)
	}
	rc := &rechecker{
		unitMap: m, base: base,
		oldDecls: make(map[int]ast.Decl, len(r.File.Module.Decls)),
		jobs:     map[int]*recheckJob{},
		ch: &checker{
			res:           &Result{Path: r.Path, File: r.File, Types: map[ast.Expr]types.Type{}, FuncEffects: map[*ast.Function][]EffectUse{}},
			opts:          base.opts,
			mod:           base.mod,
			decls:         map[string]*Symbol{},
			typeCache:     base.typeCache,
			resolving:     base.resolving,
			imports:       base.imports,
			failedImports: base.failedImports,
			base:          base,
		},
	}
	for _, d := range r.File.Module.Decls {
		rc.oldDecls[d.Base().Form.Span.Start] = d
	}
	// The changed units, then the units that use a function whose
	// signature changed: they are checked again although their text is
	// the same.
	var resigned []*Symbol
	for _, i := range changed {
		if old.Kind(ou[i].node) == syntax.KindComment && cur.Kind(nu[i].node) == syntax.KindComment {
			continue // comments carry no diagnostics
		}
		j := rc.prepare(i)
		if j == nil {
			return nil, false
		}
		if f, ok := j.decl.(*ast.Function); ok {
			oldSig, ok := base.sigs[j.old.(*ast.Function)]
			if !ok {
				return nil, false
			}
			if !sameSignature(oldSig, rc.ch.signature(f)) {
				resigned = append(resigned, base.decls[f.Name.Name])
			}
		}
	}
	if len(resigned) > 0 {
		for _, ref := range r.Refs {
			if !slices.Contains(resigned, ref.Sym) {
				continue
			}
			i, in := m.locate(ref.Span.Start, false)
			if !in {
				return nil, false
			}
			if rc.jobs[i] == nil {
				ou[i].changed = true
				if rc.prepare(i) == nil {
					return nil, false
				}
			}
		}
	}
	diags, ok = r.mapDiagnostics(m)
	if !ok {
		return nil, false
	}
	return rc.check(diags)
}

// mapDiagnostics returns r's diagnostics outside the changed units of m,
// moved to their new offsets; ok is false when one cannot be moved.
func (r *Result) mapDiagnostics(m *unitMap) (diags []syntax.Diagnostic, ok bool) {
	for _, d := range r.Diagnostics {
		if d.Span == (syntax.Span{}) {
			return nil, false // the span of a missing name: which unit reported it is unknown
		}
		inside, ok := m.classify(d.Span)
		if !ok {
			return nil, false
		}
		if inside {
			continue // regenerated
		}
		d.Span = m.span(d.Span)
		if len(d.Related) > 0 {
			rel := make([]syntax.Related, len(d.Related))
			for k, rl := range d.Related {
				if rl.File == "" {
					if in, ok := m.classify(rl.Span); !ok || in {
						return nil, false
					}
					rl.Span = m.span(rl.Span)
				}
				rel[k] = rl
			}
			d.Related = rel
		}
		diags = append(diags, d)
	}
	return diags, true
}

// rechecker holds the state of one Recheck.
type rechecker struct {
	*unitMap
	base      *checker
	oldDecls  map[int]ast.Decl // the base's declarations by offset
	ch        *checker         // checks the units again over base
	jobs      map[int]*recheckJob
	order     []int // the jobs' units, in the order prepared
	readBuilt []syntax.Diagnostic
}

// recheckJob is one unit to check again.
type recheckJob struct {
	decl ast.Decl // as built from the new text
	old  ast.Decl // as in the base
}

// prepare reads and builds unit i of the new version and makes its
// declaration the one its name resolves to; nil when the unit cannot be
// checked alone.
func (rc *rechecker) prepare(i int) *recheckJob {
	o, n := rc.ou[i], rc.nu[i]
	if n.item < 2 {
		return nil // the module's name, or not in the module
	}
	oldDecl := rc.oldDecls[o.span.Start]
	src := syntax.ReadNode(rc.cur, n.node, 1)
	if oldDecl == nil || len(src.Forms) != 1 {
		return nil
	}
	for _, d := range src.Diagnostics {
		if d.Code == syntax.CodeParse {
			return nil // nesting too deep: Read reports it once per file
		}
	}
	decl, built := ast.BuildDecl(src, src.Forms[0])
	if decl == nil || decl.Kind() != oldDecl.Kind() {
		return nil
	}
	name := decl.Base().Name
	if !name.Valid() || name.Name != oldDecl.Base().Name.Name {
		return nil
	}
	if s := rc.base.decls[name.Name]; s == nil || s.Decl != oldDecl {
		return nil // a second declaration of the name
	}
	switch decl.(type) {
	case *ast.Function:
	case *ast.Machine:
		for _, other := range rc.base.mod.Decls {
			if s, ok := other.(*ast.Surface); ok && s.Bind.Name == name.Name {
				return nil
			}
		}
	default:
		return nil
	}
	rc.ch.decls[name.Name] = &Symbol{Kind: SymbolKind(decl.Kind()), Name: name.Name, Span: name.Span, Full: decl.Base().Form.Span, Decl: decl, Detail: string(decl.Kind()) + " " + name.Name, File: rc.base.opts.Path}
	if f, ok := decl.(*ast.Function); ok {
		// as in a full check, every signature is resolved (and the
		// symbol's type set) before any body is checked
		rc.ch.signature(f)
	}
	rc.readBuilt = append(append(rc.readBuilt, src.Diagnostics...), built...)
	j := &recheckJob{decl: decl, old: oldDecl}
	rc.jobs[i] = j
	rc.order = append(rc.order, i)
	return j
}

// check checks every prepared unit against the base and returns their
// diagnostics merged with moved, the others'.
func (rc *rechecker) check(moved []syntax.Diagnostic) ([]syntax.Diagnostic, bool) {
	for _, i := range rc.order {
		switch d := rc.jobs[i].decl.(type) {
		case *ast.Function:
			rc.ch.function(d)
		case *ast.Machine:
			rc.ch.machine(d)
		}
	}
	// Every new diagnostic must lie inside a unit checked again, as must
	// its related places.
	inJob := func(sp syntax.Span) bool {
		for _, i := range rc.order {
			if within(rc.nu[i].span, sp) {
				return true
			}
		}
		return false
	}
	fresh := append(rc.readBuilt, rc.ch.res.Diagnostics...)
	for _, d := range fresh {
		if !inJob(d.Span) {
			return nil, false
		}
		for _, rl := range d.Related {
			if rl.File == "" && !inJob(rl.Span) {
				return nil, false
			}
		}
	}
	diags := append(moved, fresh...)
	sortDiagnostics(diags)
	return diags, true
}

// sameSignature reports whether two signatures look the same to callers,
// in their messages too: a type must be identical and spelled the same
// (Int and I64 are one type, but a caller's diagnostic names the one the
// signature uses).
func sameSignature(a, b *signature) bool {
	same := func(x, y types.Type) bool { return types.Identical(x, y) && x.String() == y.String() }
	if len(a.params) != len(b.params) || !same(a.result, b.result) || len(a.effects) != len(b.effects) {
		return false
	}
	for i := range a.params {
		if !same(a.params[i], b.params[i]) {
			return false
		}
	}
	for i := range a.effects {
		if a.effects[i].Name != b.effects[i].Name || a.effects[i].Target != b.effects[i].Target {
			return false
		}
	}
	return true
}

// unit is one top-level form or comment, or one child of the module form.
type unit struct {
	node int32
	span syntax.Span
	// item is the index among the module form's items (its forms: 0 is
	// the keyword, 1 the name), -1 for the module form's parentheses and
	// comments, -2 outside the module form.
	item    int
	changed bool
}

// units cuts a file into units, in order.
func units(c *syntax.CST) []unit {
	var out []unit
	inModule := false
	for k := c.FirstChild(0); k >= 0; k = c.Next(k) {
		if inModule || !isModuleList(c, k) {
			out = append(out, unit{node: k, span: c.Span(k), item: -2})
			continue
		}
		inModule = true
		items := 0
		for j := c.FirstChild(k); j >= 0; j = c.Next(j) {
			u := unit{node: j, span: c.Span(j), item: -1}
			switch c.Kind(j) {
			case syntax.KindLParen, syntax.KindRParen, syntax.KindComment:
			default:
				u.item = items
				items++
			}
			out = append(out, u)
		}
	}
	return out
}

// isModuleList reports whether node k is a list whose head is `module`.
func isModuleList(c *syntax.CST, k int32) bool {
	if c.Kind(k) != syntax.KindList {
		return false
	}
	for j := c.FirstChild(k); j >= 0; j = c.Next(j) {
		switch c.Kind(j) {
		case syntax.KindLParen, syntax.KindComment:
			continue
		case syntax.KindSymbol:
			return c.Text(j) == "module"
		}
		return false
	}
	return false
}

// unitMap maps offsets of the old version to the new one.
type unitMap struct {
	old, cur *syntax.CST
	ou, nu   []unit
}

// locate finds where offset p of the old version lies: in unit i
// (inUnit), or in the gap before unit i (i == len(ou) for the gap after
// the last). An offset on the boundary of two adjacent units belongs to
// the second as a start and to the first as an end.
func (m *unitMap) locate(p int, end bool) (i int, inUnit bool) {
	// first unit that ends at or after p (an end), or after p (a start)
	i = sort.Search(len(m.ou), func(k int) bool {
		if end {
			return m.ou[k].span.End >= p
		}
		return m.ou[k].span.End > p
	})
	if i < len(m.ou) && m.ou[i].span.Start <= p {
		return i, true
	}
	if !end && i > 0 && m.ou[i-1].span.End == p {
		return i - 1, true // a zero-width span at a unit's end
	}
	return i, false
}

// classify reports whether a span of the old version lies inside one
// changed unit; ok is false when it touches a changed unit without lying
// inside it, or lies in a gap whose length changed.
func (m *unitMap) classify(sp syntax.Span) (inside, ok bool) {
	s, sIn := m.locate(sp.Start, false)
	e, eIn := m.locate(sp.End, true)
	sChanged := sIn && m.ou[s].changed
	eChanged := eIn && m.ou[e].changed
	switch {
	case sChanged && eChanged && s == e:
		return true, true
	case sChanged || eChanged:
		return false, false
	}
	_, okS := m.pos(sp.Start, false)
	_, okE := m.pos(sp.End, true)
	return false, okS && okE
}

// span maps a classified span that is not inside a changed unit.
func (m *unitMap) span(sp syntax.Span) syntax.Span {
	s, _ := m.pos(sp.Start, false)
	e, _ := m.pos(sp.End, true)
	return syntax.Span{Start: s, End: e}
}

// pos maps an offset in an unchanged unit or in a gap of unchanged length.
func (m *unitMap) pos(p int, end bool) (int, bool) {
	i, in := m.locate(p, end)
	if in {
		return p - m.ou[i].span.Start + m.nu[i].span.Start, !m.ou[i].changed
	}
	oa, na := 0, 0
	if i > 0 {
		oa, na = m.ou[i-1].span.End, m.nu[i-1].span.End
	}
	ob, nb := len(m.old.Src), len(m.cur.Src)
	if i < len(m.ou) {
		ob, nb = m.ou[i].span.Start, m.nu[i].span.Start
	}
	if ob-oa != nb-na {
		return 0, false
	}
	return p - oa + na, true
}

// within reports whether inner lies inside outer.
func within(outer, inner syntax.Span) bool {
	return outer.Start <= inner.Start && inner.End <= outer.End
}

// governed reports whether m declares an authority-policy.
func governed(m *ast.Module) bool {
	for _, d := range m.Decls {
		if cd, ok := d.(*ast.ClauseDecl); ok && cd.DeclKind == ast.KindAuthorityPolicy {
			return true
		}
	}
	return false
}
