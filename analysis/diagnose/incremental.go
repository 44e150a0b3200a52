package diagnose

// This file evaluates a module's examples incrementally: an example's
// outcome is kept under its function's key (check.ExampleFunc.Key: the
// forms of its own declaration and of everything else it reaches, the
// facts they read, the imported declarations it reaches), apart from
// its layout, and a later version of the file evaluates only the
// functions whose key is new. What an outcome shows of the layout is
// derived from the version answered: the example by its index in its
// function (its expected value's span, its call as written), a runtime
// error's place by the path of its form in the declaration it stopped
// in (the function's own, a callee's here or in an imported module), and
// the clause a failed contract's message quotes by that same form, whose
// text is read again from the version answered (a comment or a line
// break inside the clause changes the quote, as in a fresh evaluation,
// without running anything again). Only a failure kept otherwise (an
// internal error, a place that is no form of the declaration named)
// records the text of the declaration it stopped in, and is reused only
// while that text is the same. The examples to evaluate run from a
// check of the declarations they reach (check.Result.ExampleScope), not
// of the whole file, so that a Recheck's answer (whose kept
// declarations' trees carry the offsets of older texts) needs no full
// check.

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// ExampleCache keeps the outcomes of one file's examples between
// versions. It is safe for concurrent use; entries of keys the latest
// version no longer has are dropped.
type ExampleCache struct {
	mu   sync.Mutex
	outs map[uint64][]relDiag

	// Counts over the cache's life (for tests and the language server's
	// debug request).
	evaluated, reused atomic.Int64
}

// relDiag is an example's failed outcome without its layout: ex is the
// example's index in its function's examples, o the outcome (its Example
// and Call left out: assemble derives them from the version answered).
// The runtime error that stopped it is kept by the forms it stopped at:
// path is the path of its place's form in the function's form (a place
// in the example itself, or in the function's body or contract), at
// names the declaration it lies in otherwise (a callee, here or in an
// imported module) and the path of the form there. When its message
// quotes that form's text (a failed requires or ensures, which the
// interpreter quotes as written), quote holds the message around the
// quote, which assemble renders again from the version's text. An error
// kept by neither (an internal error, a place that is no form of the
// declaration named) keeps its place relative to the declaration it lies
// in (relDecl, relSpan), and pin, when set, is the declaration (in its
// module, or in an imported one) whose text the outcome depends on: the
// outcome holds only while that text is the same.
type relDiag struct {
	ex      int
	o       examples.Outcome
	path    []int
	at      *place
	quote   *quote
	relDecl string
	relSpan syntax.Span
	pin     *pin
}

// place is a form in a declaration other than the example's function:
// the declaration named name in the module the interpreter calls file
// ("" for the function's own), and the form's path in it.
type place struct {
	file, name string
	path       []int
}

// quote is an error message that quotes a form's text (whitespace runs
// collapsed), without the quote: before and after it.
type quote struct {
	before, after string
}

// pin is a declaration's text hash (check.Result.DeclText) when an
// outcome was evaluated.
type pin struct {
	file, name string
	text       uint64
	ok         bool
}

// holds reports whether the outcomes ds of f's examples are still those
// of res: every declaration they pinned has the same text (and f has
// the examples they were evaluated from, and the forms their places lie
// at exist, as equal keys make sure).
func holds(res *check.Result, f check.ExampleFunc, ds []relDiag) bool {
	for _, d := range ds {
		if d.ex < 0 || d.ex >= len(f.Fn.Examples) || d.path != nil && formAt(f.Fn.Form, d.path) == nil {
			return false
		}
		if d.at != nil && d.at.path != nil {
			if _, _, ok := res.DeclForm(d.at.file, d.at.name, d.at.path); !ok {
				return false
			}
		}
		if p := d.pin; p != nil {
			text, ok := res.DeclText(p.file, p.name)
			if !ok || !p.ok || text != p.text {
				return false
			}
		}
	}
	return true
}

// ExampleStats says what one call of ExampleCache.Diagnostics did.
type ExampleStats struct {
	// Functions counts the functions with examples; Evaluated those
	// whose examples ran, Reused those whose outcomes were kept.
	Functions, Evaluated, Reused int
	// Examples counts the examples evaluated.
	Examples int
}

// Counts returns how many functions' examples the cache evaluated and
// how many it reused, over its life.
func (c *ExampleCache) Counts() (evaluated, reused int64) {
	return c.evaluated.Load(), c.reused.Load()
}

// Diagnostics returns the E_EXAMPLE_FAILED diagnostics of res's examples,
// exactly as Merge adds them after a full check of the same text (Run):
// none when res has errors. res is any Result the engine keeps: a full
// check's, a Recheck's answer or a RecheckImports answer. Only the
// functions whose key the cache does not hold are evaluated.
//
// stop, when not nil, is asked between functions: when it returns true
// the evaluation is abandoned (ok false). ok is also false when res keeps
// no engine state or the examples cannot be evaluated without a full
// check (the caller then runs the pipeline on a full check).
func (c *ExampleCache) Diagnostics(res *check.Result, stop func() bool) (diags []syntax.Diagnostic, st ExampleStats, ok bool) {
	diags, st, _, ok = c.diagnostics(res, stop, true)
	return diags, st, ok
}

// Known returns the diagnostics of the examples of res whose outcome the
// cache holds, evaluating none: complete reports whether those are all of
// them (Diagnostics would return the same). ok is false when res keeps no
// engine state.
func (c *ExampleCache) Known(res *check.Result) (diags []syntax.Diagnostic, complete, ok bool) {
	diags, _, complete, ok = c.diagnostics(res, nil, false)
	return diags, complete, ok
}

// diagnostics is Diagnostics, evaluating the examples whose outcome the
// cache lacks only when evaluate is set (complete reports whether none
// was left out).
func (c *ExampleCache) diagnostics(res *check.Result, stop func() bool, evaluate bool) (diags []syntax.Diagnostic, st ExampleStats, complete, ok bool) {
	if res == nil {
		return nil, st, false, false
	}
	if res.HasErrors() {
		return nil, st, true, true // no examples run
	}
	fns, ok := res.ExampleFuncs()
	if !ok {
		return nil, st, false, false
	}
	st.Functions = len(fns)
	if len(fns) == 0 {
		c.keep(nil, nil)
		return nil, st, true, true
	}
	c.mu.Lock()
	known := make(map[uint64][]relDiag, len(fns))
	var todo []check.ExampleFunc
	for _, f := range fns {
		if ds, ok := c.outs[f.Key]; ok && holds(res, f, ds) {
			known[f.Key] = ds
		} else {
			todo = append(todo, f)
		}
	}
	c.mu.Unlock()
	complete = len(todo) == 0
	if !evaluate {
		todo = nil
	}
	if len(todo) > 0 {
		if stop != nil && stop() {
			return nil, st, false, false
		}
		scope, ok := res.ExampleScope(todo)
		if !ok {
			return nil, st, false, false
		}
		in := interp.New(scope)
		var starts map[string]int
		in.Shift = func(fn *ast.Function) int {
			if starts == nil {
				starts = res.DeclStarts()
			}
			if at, ok := starts[fn.Name.Name]; ok {
				return at - fn.Form.Span().Start
			}
			return 0
		}
		var src []byte
		if res.File != nil && res.File.Source != nil && res.File.Source.CST != nil {
			src = res.File.Source.CST.Src
		}
		treeStart := map[string]int{}
		for _, d := range scope.File.Module.Decls {
			if b := d.Base(); b.Name.Valid() {
				if _, dup := treeStart[b.Name.Name]; !dup {
					treeStart[b.Name.Name] = b.Form.Span().Start
				}
			}
		}
		for _, f := range todo {
			if stop != nil && stop() {
				return nil, st, false, false
			}
			var ds []relDiag
			for k, ex := range f.Fn.Examples {
				info := &check.ExampleInfo{Function: f.Fn, Example: ex}
				o := examples.EvaluateOne(in, info, examples.CallText(src, info, f.Shift))
				st.Examples++
				if o.Passed {
					continue
				}
				ds = append(ds, relative(res, scope, k, o, f, treeStart))
			}
			known[f.Key] = ds
			st.Evaluated++
		}
	}
	if !evaluate {
		return c.assemble(res, fns, known), st, complete, true
	}
	if stop != nil && stop() {
		// (a newer version is being answered: its keys, not these, are
		// the ones to keep; these outcomes are only added)
		c.add(known)
		return nil, st, false, false
	}
	complete = true
	st.Reused = st.Functions - st.Evaluated
	c.evaluated.Add(int64(st.Evaluated))
	c.reused.Add(int64(st.Reused))
	c.keep(fns, known)
	return c.assemble(res, fns, known), st, true, true
}

// assemble returns the diagnostics of the functions fns of res whose
// outcomes known holds, as a full check of res's text reports them: each
// outcome's example, call text and places taken from res's tree.
func (c *ExampleCache) assemble(res *check.Result, fns []check.ExampleFunc, known map[uint64][]relDiag) (diags []syntax.Diagnostic) {
	var src []byte
	if res.File != nil && res.File.Source != nil && res.File.Source.CST != nil {
		src = res.File.Source.CST.Src
	}
	var starts map[string]int // (only when a place is kept by declaration)
	for _, f := range fns {
		for _, rd := range known[f.Key] {
			o := rd.o
			o.Example = &check.ExampleInfo{Function: f.Fn, Example: f.Fn.Examples[rd.ex]}
			o.Call = examples.CallText(src, o.Example, f.Shift)
			// (the form the runtime error stopped at, in res's text)
			var at syntax.Span
			atText, atOK := src, false
			switch {
			case rd.path != nil:
				at, atOK = shift(formAt(f.Fn.Form, rd.path).Span(), f.Shift), true
			case rd.at != nil && rd.at.path != nil:
				atText, at, atOK = res.DeclForm(rd.at.file, rd.at.name, rd.at.path)
			}
			if pe, ok := o.Err.(*interp.Error); ok && rd.quote != nil && atOK {
				e := *pe
				e.Message = rd.quote.before + interp.Quote(atText, at) + rd.quote.after
				o.Err = &e
			}
			d := examples.Diagnostics([]examples.Outcome{o})[0]
			d.Span = shift(d.Span, f.Shift)
			if len(d.Related) > 0 {
				rel := append([]syntax.Related(nil), d.Related...)
				for k := range rel {
					if atOK {
						rel[k].Span = at
						continue
					}
					if starts == nil {
						starts = res.DeclStarts()
					}
					rel[k].Span = shift(rd.relSpan, starts[rd.relDecl])
				}
				d.Related = rel
			}
			diags = append(diags, d)
		}
	}
	return diags
}

// keep makes the cache hold the outcomes of fns' keys only.
func (c *ExampleCache) keep(fns []check.ExampleFunc, known map[uint64][]relDiag) {
	outs := make(map[uint64][]relDiag, len(fns))
	for _, f := range fns {
		outs[f.Key] = known[f.Key]
	}
	c.mu.Lock()
	c.outs = outs
	c.mu.Unlock()
}

// add adds outcomes to the cache, dropping none.
func (c *ExampleCache) add(known map[uint64][]relDiag) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.outs == nil {
		c.outs = map[uint64][]relDiag{}
	}
	for k, ds := range known {
		c.outs[k] = ds
	}
}

// relative returns the failed outcome o of f's example ex without its
// layout (relDiag); scope is the check the interpreter ran (its trees
// are those the runtime error's span lies in). The error's place is kept
// by the path of its form in the declaration it stopped in (f's own, a
// callee of the module or of an imported one), and a message that quotes
// that form's text (a failed contract) by the text around the quote.
// An error kept otherwise (not the interpreter's, an internal error, a
// place that is no form of the declaration named, a quote that is not
// the form's text) keeps its place relative to the declaration it lies
// in (treeStart gives where each declaration's tree starts) and pins
// that declaration's text in res (f's, when the error is not the
// interpreter's).
func relative(res, scope *check.Result, ex int, o examples.Outcome, f check.ExampleFunc, treeStart map[string]int) relDiag {
	d := examples.Diagnostics([]examples.Outcome{o})[0]
	rd := relDiag{ex: ex, o: o}
	rd.o.Example, rd.o.Call = nil, ""
	var pe *interp.Error
	if !errors.As(o.Err, &pe) {
		if o.Err != nil { // (an error of another kind: its message is unknown)
			p := &pin{name: f.Fn.Name.Name}
			p.text, p.ok = res.DeclText("", p.name)
			rd.pin = p
		}
		return rd
	}
	if byForm(res, scope, &rd, pe, f, len(d.Related) > 0) {
		return rd
	}
	rd.path, rd.at, rd.quote = nil, nil, nil
	name := stoppedIn(pe, f)
	p := &pin{file: pe.File, name: name}
	p.text, p.ok = res.DeclText(pe.File, name)
	rd.pin = p
	if len(d.Related) > 0 {
		rd.relDecl = name
		rd.relSpan = shift(pe.Span, -treeStart[name])
	}
	return rd
}

// byForm keeps in rd the runtime error pe, which stopped an example of
// f, by the forms it stopped at (relDiag.path or relDiag.at, and
// relDiag.quote), and reports whether it could: the error is the one the
// interpreter returned (not wrapped), not an internal error (whose
// message may describe its expression), its place (when the outcome
// shows it, related, or its message quotes it) is a form of the
// declaration it stopped in, and a quote in its message is that form's
// text in res, as assemble renders it again.
func byForm(res, scope *check.Result, rd *relDiag, pe *interp.Error, f check.ExampleFunc, related bool) bool {
	if e, ok := rd.o.Err.(*interp.Error); !ok || e != pe || pe.Kind == interp.Internal {
		return false
	}
	var word string
	switch pe.Kind {
	case interp.RequiresFailed:
		word = "requires"
	case interp.EnsuresFailed:
		word = "ensures"
	}
	name := stoppedIn(pe, f)
	own := pe.File == "" && name == f.Fn.Name.Name
	if !related && word == "" {
		// (nothing of the error's place shows: its message names
		// functions and values only)
		return true
	}
	var path []int
	if own {
		path = formPath(f.Fn.Form, pe.Span)
	} else {
		path = formPath(scope.DeclTree(pe.File, name), pe.Span)
	}
	if path == nil {
		return false
	}
	if word != "" {
		text, sp, ok := src(res), shift(formAt(f.Fn.Form, path).Span(), f.Shift), true
		if !own {
			text, sp, ok = res.DeclForm(pe.File, name, path)
		}
		if !ok {
			return false
		}
		before := pe.Function + ": " + word + " "
		q := interp.Quote(text, sp)
		if !strings.HasPrefix(pe.Message, before+q+" does not hold") {
			return false
		}
		rd.quote = &quote{before: before, after: pe.Message[len(before)+len(q):]}
	}
	if own {
		rd.path = path
	} else {
		rd.at = &place{file: pe.File, name: name, path: path}
	}
	return true
}

// src returns res's text, nil when it has none.
func src(res *check.Result) []byte {
	if res.File != nil && res.File.Source != nil && res.File.Source.CST != nil {
		return res.File.Source.CST.Src
	}
	return nil
}

// stoppedIn returns the name of the declaration whose evaluation pe
// stopped, an example of f: f's own at the top level of the example's
// expressions.
func stoppedIn(pe *interp.Error, f check.ExampleFunc) string {
	if pe.Function == "" {
		return f.Fn.Name.Name
	}
	return pe.Function
}

// formPath returns the indexes that lead from f to the form inside it
// (f included) whose span is sp, nil when there is none.
func formPath(f *syntax.Form, sp syntax.Span) []int {
	if f == nil {
		return nil
	}
	path := []int{}
	for {
		if f.Span() == sp {
			return path
		}
		next := -1
		for k, it := range f.Items() {
			if s := it.Span(); s.Start <= sp.Start && sp.End <= s.End {
				next = k
				break
			}
		}
		if next < 0 {
			return nil
		}
		path = append(path, next)
		f = f.Items()[next]
	}
}

// formAt returns the form path leads to from f, nil when there is none.
func formAt(f *syntax.Form, path []int) *syntax.Form {
	for _, k := range path {
		if f == nil || k >= len(f.Items()) {
			return nil
		}
		f = f.Items()[k]
	}
	return f
}

func shift(sp syntax.Span, d int) syntax.Span {
	return syntax.Span{Start: sp.Start + d, End: sp.End + d}
}
