package ast

import (
	"bytes"
	"strings"

	"github.com/capsulang/caps/syntax"
)

// BuildLean builds the tree of a clean text as Build(syntax.ReadText(src))
// would, with the same diagnostics, except that it keeps of most functions
// only their name, doc and effects: their bodies are Deferred, and their
// inputs, output and version are built again from the text with them when
// asked for (Materialize); their forms are each replaced by one that has
// the same span and kind but no items. The module is read one item at a
// time (syntax.ModuleItems), so that the forms and bodies of the whole
// text are never in memory at once: on a large module they are about
// eighteen bytes a source byte, the text one (issue 19).
//
// A function keeps its body and forms when it has requires, ensures or
// example clauses, or an effect with arguments or a claim: what reads
// those reads their forms and expressions. ok is false, and the caller
// builds the text the usual way, when src is not clean text holding one
// module form (syntax.ReadModuleItems) or an item reads with a
// diagnostic.
//
// A lean tree serves one-shot checks (check.Options.Once) that read no
// deferred body after the check (caps check): the checker and the IR
// build deferred functions again one at a time. Examples run on it only
// for the functions UndeferReach built whole; the language server never
// sees a lean tree.
func BuildLean(src []byte) (f *File, ok bool) {
	r, ok := syntax.ReadModuleItems(src, "module")
	if !ok {
		return nil, false
	}
	return BuildLeanItems(r)
}

// BuildLeanItems is BuildLean reading the module's items from r, of which
// none has been read yet.
func BuildLeanItems(r *syntax.ModuleItems) (f *File, ok bool) {
	b := &builder{src: r.Source, file: &File{Source: r.Source}}
	b.indexComments()
	items := make([]*syntax.Form, r.Len)
	for i := range min(2, r.Len) { // the keyword and the name
		if items[i], ok = r.Next(); !ok {
			return nil, false
		}
	}
	// The module's form is made now, for its span and name; its items are
	// filled in as they are read (and kept: a deferred function's is its
	// stub), before the form is shared.
	mf := syntax.NewList(r.Span, items, true)
	m := &Module{Form: mf, Doc: b.docFor(mf)}
	m.Name = b.name(mf, "module")
	m.Decls = make([]Decl, 0, max(0, r.Len-2))
	for i := 2; i < r.Len; i++ {
		it, ok := r.Next()
		if !ok {
			return nil, false
		}
		items[i] = it
		exprs, decls := b.file.Exprs, len(m.Decls)
		b.moduleItem(m, it)
		if len(m.Decls) == decls {
			continue
		}
		if fn, ok := m.Decls[decls].(*Function); ok && deferrable(fn) {
			items[i] = stub(fn, r.Source.CST)
			b.file.Exprs = exprs // the body's numbers are free again
		}
	}
	if len(m.Decls) == 0 {
		m.Decls = nil // as when appended to
	}
	if m.Capsule == nil {
		sp := items[0].Span()
		if m.Name.Valid() {
			sp = m.Name.Span
		}
		b.errorf(CodeMissingClause, sp, "module %s has no (capsule \"VERSION\") clause", m.Name.Name)
	}
	b.file.Module = m
	r.Source.Forms = []*syntax.Form{mf}
	return b.file, true
}

// LeanBound returns about how many bytes of text, at most, the functions
// BuildLeanItems(r) would defer span, from the items' text alone (none of
// r's items read yet): those of the items that may be (function ...)
// forms and hold no requires, ensures or example clause. It errs upwards
// (an effect with arguments is not seen, nor the head of a list written
// after a space or a comment), but for a function whose strings or
// comments hold the text of such a clause, left out: a caller that
// builds a text whole when the bound is a small share of it then builds
// whole a text it could have built lean, with the same results.
func LeanBound(r *syntax.ModuleItems) int {
	src := r.Source.CST.Src
	n := 0
	for _, sp := range r.Spans() {
		it := src[sp.Start:sp.End]
		if len(it) < 2 || it[0] != '(' {
			continue // an atom
		}
		head := it[1:]
		if i := bytes.IndexFunc(head, func(c rune) bool { return c <= ' ' || strings.ContainsRune("\"();[]{}", c) }); i >= 0 {
			head = head[:i]
		}
		if len(head) > 0 && string(head) != "function" {
			continue // another declaration, never deferred
		}
		if bytes.Contains(it, []byte("(requires")) || bytes.Contains(it, []byte("(ensures")) || bytes.Contains(it, []byte("(example")) {
			continue
		}
		n += sp.End - sp.Start
	}
	return n
}

// deferrable reports whether BuildLean defers fn's body: fn has a body and
// nothing that keeps forms or numbered expressions besides it.
func deferrable(fn *Function) bool {
	if fn.Body == nil || len(fn.Requires) > 0 || len(fn.Ensures) > 0 || len(fn.Examples) > 0 {
		return false
	}
	if fn.Effects != nil {
		for _, e := range fn.Effects.Items {
			if len(e.Args) > 0 || e.ClaimForm != nil {
				return false
			}
		}
	}
	return true
}

// stub makes fn a stub of itself that keeps no form of its text, and
// returns its new form.
func stub(fn *Function, cst *syntax.CST) *syntax.Form {
	sp := fn.Form.Span()
	fn.Body = &Deferred{start: int32(sp.Start), end: int32(sp.End), header: int32(headerEnd(fn.Form)), cst: cst}
	fn.Form = bare(fn.Form)
	fn.Inputs, fn.Output, fn.Version = nil, nil, nil
	if ec := fn.Effects; ec != nil {
		c := &EffectsClause{Form: bare(ec.Form), Pure: ec.Pure, Items: make([]*Effect, len(ec.Items))}
		for i, e := range ec.Items {
			ce := *e
			ce.Form = bare(e.Form)
			c.Items[i] = &ce
		}
		fn.Effects = c
	}
	return fn.Form
}

// headerEnd returns where the part of function form f that holds its
// input and output clauses ends: after the last of them (after the name
// when there is none), so that MaterializeHeaderIn reads only that part.
func headerEnd(f *syntax.Form) int {
	items := f.Items()
	end := items[0].Span().End
	if len(items) > 1 {
		end = items[1].Span().End
	}
	for _, it := range items {
		if h := it.Head(); h == "input" || h == "output" {
			end = max(end, it.Span().End)
		}
	}
	return end
}

// bare returns a form with f's kind, span and text but no items.
func bare(f *syntax.Form) *syntax.Form {
	if f == nil {
		return nil
	}
	if f.IsList() {
		return syntax.NewList(f.Span(), nil, f.Closed)
	}
	return syntax.NewAtom(f.Kind, f.Span(), f.Text())
}

// UndeferReach builds whole again, in place, every deferred function of
// f's module that the functions with examples may call, directly or not:
// those whose name is a symbol in the form of a function with examples,
// or of a function reached so (whole from the start, for its contracts
// or effects, or built whole again). That over-estimates the calls and
// never misses one, so that the examples run on the lean tree. It
// returns how many it built. The functions built whole keep their
// pointers (the stubs become whole, effects included: no check has seen
// the stubs yet), and their expressions are numbered on from f.Exprs.
func UndeferReach(f *File) int {
	m := f.Module
	byName := map[string][]*Function{} // the functions without examples
	var queue []*syntax.Form
	for _, d := range m.Decls {
		if fn, ok := d.(*Function); ok {
			if len(fn.Examples) > 0 {
				queue = append(queue, fn.Form)
			} else {
				byName[fn.Name.Name] = append(byName[fn.Name.Name], fn)
			}
		}
	}
	n := 0
	var visit func(form *syntax.Form)
	visit = func(form *syntax.Form) {
		if form.Kind == syntax.FormSymbol {
			for _, fn := range byName[form.Text()] {
				if _, ok := fn.Body.(*Deferred); ok {
					f.Exprs = undefer(fn, f.Exprs)
					n++
				}
				queue = append(queue, fn.Form)
			}
			delete(byName, form.Text())
			return
		}
		for _, it := range form.Items() {
			visit(it)
		}
	}
	for len(queue) > 0 {
		form := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		visit(form)
	}
	return n
}

// Undefer builds whole again, in place, every function of f's module
// that BuildLean deferred, and numbers the expressions of every
// declaration as Build numbers them, so that f becomes the tree
// Build(syntax.ReadText(src)) makes of the text BuildLean read: the same
// declarations (the same pointers as before: stubs become whole), forms
// (the module's form holds each function's whole form again),
// expressions and expression numbers (File.Exprs counts them),
// diagnostics and docs. It serves a lean tree that turns out mostly whole
// (the loader then checks it the usual way), in place of reading and
// building its text again, and must run before anything reads the tree
// (a check, UndeferReach may). It returns how many functions it built.
func Undefer(f *File) int {
	m := f.Module
	if m == nil {
		return 0
	}
	n, next := 0, 0
	for _, d := range m.Decls {
		if fn, ok := d.(*Function); ok {
			if _, ok := fn.Body.(*Deferred); ok {
				next = undefer(fn, next)
				n++
				continue
			}
		}
		// A declaration built whole has its expressions numbered in one
		// run (the builder numbers as it goes, one declaration at a
		// time), lo to hi: BuildLean numbered on past deferred bodies, and
		// UndeferReach after the last declaration.
		lo, hi := ExprID(0), ExprID(0)
		declExprs(d, func(e Expr) {
			if id := e.ExprID(); id != 0 {
				if lo == 0 || id < lo {
					lo = id
				}
				hi = max(hi, id)
			}
		})
		if lo == 0 {
			continue
		}
		shift := ExprID(next+1) - lo
		declExprs(d, func(e Expr) {
			if id := e.ExprID(); id != 0 {
				setExprID(e, id+shift)
			}
		})
		next += int(hi - lo + 1)
	}
	f.Exprs = next
	if m.Form == nil {
		return n
	}
	// The module's form: each declaration's item is its form (a stub's
	// was a bare form of the same span; the declarations are in the
	// order of the items).
	old := m.Form.Items()
	items := make([]*syntax.Form, len(old))
	j := 0
	for i, it := range old {
		items[i] = it
		if i < 2 {
			continue
		}
		for j < len(m.Decls) && m.Decls[j].Base().Form.Span().Start < it.Span().Start {
			j++
		}
		if j < len(m.Decls) && m.Decls[j].Base().Form.Span() == it.Span() {
			items[i] = m.Decls[j].Base().Form
		}
	}
	m.Form = syntax.NewList(m.Form.Span(), items, m.Form.Closed)
	if f.Source != nil && len(f.Source.Forms) == 1 {
		f.Source.Forms[0] = m.Form
	}
	return n
}

// undefer builds deferred fn whole in place (Undefer), its expressions
// numbered on from exprs, and returns the last number used.
func undefer(fn *Function, exprs int) int {
	whole, last := materialize(fn, false, nil, exprs, true)
	if whole != fn {
		*fn = *whole
	}
	return last
}

// declExprs calls visit on every expression of declaration d, and of
// its expressions (patterns' literals included): those the builder
// numbers, and the call heads and names it does not (their ExprID is 0).
func declExprs(d Decl, visit func(Expr)) {
	effects := func(es []*Effect) {
		for _, e := range es {
			for _, a := range e.Args {
				walkExpr(a, visit)
			}
		}
	}
	switch d := d.(type) {
	case *Function:
		for _, e := range d.Requires {
			walkExpr(e, visit)
		}
		for _, e := range d.Ensures {
			walkExpr(e, visit)
		}
		for _, ex := range d.Examples {
			for _, a := range ex.Args {
				walkExpr(a, visit)
			}
			walkExpr(ex.Expected, visit)
		}
		if d.Effects != nil {
			effects(d.Effects.Items)
		}
		walkExpr(d.Body, visit)
	case *Machine:
		for _, s := range d.States {
			for _, t := range s.Transitions {
				walkExpr(t.Guard, visit)
				for _, a := range t.Assigns {
					walkExpr(a.Value, visit)
				}
				effects(t.Effects)
			}
		}
	}
}

// walkExpr calls visit on e and every expression in it.
func walkExpr(e Expr, visit func(Expr)) {
	if e == nil {
		return
	}
	visit(e)
	switch e := e.(type) {
	case *Call:
		for _, a := range e.Args {
			walkExpr(a, visit)
		}
	case *If:
		walkExpr(e.Cond, visit)
		walkExpr(e.Then, visit)
		walkExpr(e.Else, visit)
	case *Let:
		for _, b := range e.Bindings {
			walkExpr(b.Value, visit)
		}
		walkExpr(e.Body, visit)
	case *Do:
		for _, x := range e.Exprs {
			walkExpr(x, visit)
		}
	case *RecordLit:
		for _, fi := range e.Fields {
			walkExpr(fi.Value, visit)
		}
	case *Match:
		walkExpr(e.Subject, visit)
		for _, a := range e.Arms {
			walkPattern(a.Pattern, visit)
			walkExpr(a.Body, visit)
		}
	}
}

func walkPattern(p *Pattern, visit func(Expr)) {
	if p == nil {
		return
	}
	walkExpr(p.Lit, visit)
	for _, a := range p.Args {
		walkPattern(a, visit)
	}
}

// LeanShare returns how many bytes of text m's deferred functions span,
// and how many its other declarations span (what is left is the module's
// header and the space between declarations).
func LeanShare(m *Module) (deferred, whole int) {
	for _, d := range m.Decls {
		sp := d.Base().Form.Span()
		if fn, ok := d.(*Function); ok {
			if _, ok := fn.Body.(*Deferred); ok {
				deferred += sp.End - sp.Start
				continue
			}
		}
		whole += sp.End - sp.Start
	}
	return deferred, whole
}

// Deferred is the body of a function BuildLean did not keep.
// Materialize builds the function again from its text.
type Deferred struct {
	// start and end are the function's form's; header is where its input
	// and output clauses end (headerEnd)
	start, end, header int32
	cst                *syntax.CST
}

// ExprSpan is the span of the whole function's form.
func (d *Deferred) ExprSpan() Span { return Span{Start: int(d.start), End: int(d.end)} }

// ExprID is 0: a deferred body has no number.
func (d *Deferred) ExprID() ExprID { return 0 }

// Materialize returns fn whole: fn itself when its body is not Deferred,
// else the function built again from its text, as Build built it (its
// expressions numbered from 1, as BuildDecl numbers them), with fn's doc.
// fn is not modified. The text a lean tree was built from never changes,
// so the read succeeds; were it to fail, the function's body is a BadExpr
// spanning the function.
func Materialize(fn *Function) *Function {
	whole, _ := materialize(fn, false, nil, 0, false)
	return whole
}

// MaterializeIn is Materialize making the function's forms in a: they are
// valid, and so is the function, until a's next use (syntax.FormArena).
func MaterializeIn(fn *Function, a *syntax.FormArena) *Function {
	whole, _ := materialize(fn, false, a, 0, false)
	return whole
}

// MaterializeHeaderIn is MaterializeIn without the body: the function
// built again has no Body (nil), for a caller that reads its inputs and
// output. It reads only the function's text up to its last input or
// output clause, so its form's span and its clauses after those are not
// the function's.
func MaterializeHeaderIn(fn *Function, a *syntax.FormArena) *Function {
	whole, _ := materialize(fn, true, a, 0, false)
	return whole
}

// materialize builds fn again (Materialize): its header only when header
// is set, its forms in a (nil: memory of their own), its expressions
// numbered on from exprs, with the effects built from its text when own
// is set (a function built whole in place before any check, which knows
// the stub's otherwise); it returns the function and the last number
// used.
func materialize(fn *Function, header bool, a *syntax.FormArena, exprs int, own bool) (*Function, int) {
	d, ok := fn.Body.(*Deferred)
	if !ok {
		return fn, exprs
	}
	sp := d.ExprSpan()
	var f *syntax.Form
	if header {
		f, ok = syntax.ReadPrefixIn(d.cst, sp, int(d.header), a)
	} else {
		f, ok = syntax.ReadSpanIn(d.cst, sp, a)
	}
	if ok {
		b := &builder{src: &syntax.Source{CST: d.cst}, file: &File{Exprs: exprs}, header: header}
		if full, ok := b.decl(f).(*Function); ok {
			full.Doc = fn.Doc
			if fn.Effects != nil && !own {
				// the stub's, which the checker knows (bare forms, same
				// fields: only their identity differs)
				full.Effects = fn.Effects
			}
			return full, b.file.Exprs
		}
	}
	c := *fn
	c.Body = &BadExpr{Span: sp}
	return &c, exprs
}
