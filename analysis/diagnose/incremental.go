package diagnose

// This file evaluates a module's examples incrementally: an example's
// outcome is kept under its function's key (check.ExampleFunc.Key: its
// own declaration's text, the forms of everything else it reaches, the
// facts they read, the imported declarations it reaches), relative to
// the function's declaration, and a later version of the file evaluates
// only the functions whose key is new. A failed outcome whose message or
// place comes from another declaration (a runtime error in a callee)
// also records that declaration's text, and is reused only while it is
// the same: a key does not cover the callees' layout. The examples to evaluate run from a check of the declarations
// they reach (check.Result.ExampleScope), not of the whole file, so that
// a Recheck's answer (whose kept declarations' trees carry the offsets
// of older texts) needs no full check: the diagnostics' spans are kept
// relative to declarations and moved to where the declarations are now.

import (
	"errors"
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

// relDiag is an example's E_EXAMPLE_FAILED diagnostic with its span
// relative to its function's declaration, and each related span relative
// to the declaration named at the same index of decls. pin, when set, is
// the declaration other than the function's own (in its module, or in an
// imported one) the runtime error stopped in: its message may quote that
// declaration's text and its related span lies there, so the outcome
// holds only while that text is the same.
type relDiag struct {
	d     syntax.Diagnostic
	decls []string
	pin   *pin
}

// pin is a declaration's text hash (check.Result.DeclText) when an
// outcome was evaluated.
type pin struct {
	file, name string
	text       uint64
	ok         bool
}

// holds reports whether the outcomes ds are still those of res: every
// declaration they pinned has the same text.
func holds(res *check.Result, ds []relDiag) bool {
	for _, d := range ds {
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
		if ds, ok := c.outs[f.Key]; ok && holds(res, ds) {
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
			for _, ex := range f.Fn.Examples {
				info := &check.ExampleInfo{Function: f.Fn, Example: ex}
				o := examples.EvaluateOne(in, info, examples.CallText(src, info, f.Shift))
				st.Examples++
				if o.Passed {
					continue
				}
				ds = append(ds, relative(res, o, f, treeStart))
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
// outcomes known holds, moved to where their declarations are in res.
func (c *ExampleCache) assemble(res *check.Result, fns []check.ExampleFunc, known map[uint64][]relDiag) (diags []syntax.Diagnostic) {
	var starts map[string]int // (only when a diagnostic has related spans)
	for _, f := range fns {
		at := f.Fn.Form.Span().Start + f.Shift
		for _, rd := range known[f.Key] {
			d := rd.d
			d.Span = shift(d.Span, at)
			if len(d.Related) > 0 {
				if starts == nil {
					starts = res.DeclStarts()
				}
				rel := make([]syntax.Related, len(d.Related))
				for k, r := range d.Related {
					r.Span = shift(r.Span, starts[rd.decls[k]])
					rel[k] = r
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

// relative returns the diagnostic of a failed outcome of one of f's
// examples (examples.Diagnostics) relative to the declarations its spans
// lie in: its own span to f's, a runtime error's place to the function
// the error stopped in (f's when it stopped in the example's arguments
// or expected value). treeStart gives where each declaration's tree
// starts. A runtime error in another declaration than f's (a callee's,
// here or in an imported module) pins that declaration's text in res.
func relative(res *check.Result, o examples.Outcome, f check.ExampleFunc, treeStart map[string]int) relDiag {
	d := examples.Diagnostics([]examples.Outcome{o})[0]
	d.Span = shift(d.Span, -f.Fn.Form.Span().Start)
	rd := relDiag{d: d}
	var pe *interp.Error
	if errors.As(o.Err, &pe) && pe.Function != "" && (pe.File != "" || pe.Function != f.Fn.Name.Name) {
		p := &pin{file: pe.File, name: pe.Function}
		p.text, p.ok = res.DeclText(pe.File, pe.Function)
		rd.pin = p
	}
	if len(d.Related) > 0 {
		name := f.Fn.Name.Name
		var re *interp.Error
		if errors.As(o.Err, &re) && re.Function != "" {
			name = re.Function
		}
		rel := make([]syntax.Related, len(d.Related))
		for k, r := range d.Related {
			r.Span = shift(r.Span, -treeStart[name])
			rel[k] = r
			rd.decls = append(rd.decls, name)
		}
		rd.d.Related = rel
	}
	return rd
}

func shift(sp syntax.Span, d int) syntax.Span {
	return syntax.Span{Start: sp.Start + d, End: sp.End + d}
}
