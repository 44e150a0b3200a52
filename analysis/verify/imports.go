package verify

import (
	"strconv"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/syntax/ast"
)

// modctx is one module whose functions the encoder may need: the
// verified module, or a module it imports (directly or through another
// import). Each function is encoded in the context of the module that
// declares it: its expressions' types and its calls' callees come from
// that module's check result.
type modctx struct {
	res *check.Result
	// prefix qualifies the SMT names of the module's functions: "" for
	// the verified module, "MODULE." for an imported one, so that
	// lib.money's apply_bps is |lib.money.apply_bps.val|.
	prefix string
	// calls maps the span start of a call's function name (in this
	// module's file) to the function it calls, of this module or of an
	// imported one, from the checker's references.
	calls map[int]*ast.Function
}

// modules collects the verified module and every module it imports,
// transitively, and the module of each function.
func modules(res *check.Result) (*modctx, []*modctx, map[*ast.Function]*modctx) {
	byRes := map[*check.Result]*modctx{}
	byFn := map[*ast.Function]*modctx{}
	prefixes := map[string]bool{}
	var all []*modctx
	var visit func(r *check.Result, prefix string) *modctx
	visit = func(r *check.Result, prefix string) *modctx {
		if m := byRes[r]; m != nil {
			return m
		}
		// Two imported modules of the same name get distinct prefixes.
		for base, n := prefix, 2; prefix != "" && prefixes[prefix]; n++ {
			prefix = base + "#" + strconv.Itoa(n) + "."
		}
		prefixes[prefix] = true
		m := &modctx{res: r, prefix: prefix, calls: map[int]*ast.Function{}}
		byRes[r] = m
		all = append(all, m)
		if r.File == nil || r.File.Module == nil {
			return m
		}
		seen := map[string]bool{}
		for _, d := range r.File.Module.Decls {
			if fn, ok := d.(*ast.Function); ok && fn.Name.Valid() && !seen[fn.Name.Name] {
				seen[fn.Name.Name] = true
				byFn[fn] = m
			}
		}
		for _, im := range r.Imports {
			if im.Imported != nil && im.Result != nil && im.Result.File != nil && im.Result.File.Module != nil {
				visit(im.Result, im.Result.File.Module.Name.Name+".")
			}
		}
		return m
	}
	root := visit(res, "")
	for _, m := range all {
		for _, r := range m.res.Refs {
			if fn, ok := r.Sym.Decl.(*ast.Function); ok && byFn[fn] != nil {
				m.calls[r.Span.Start] = fn
			}
		}
	}
	return root, all, byFn
}

// callee returns the function a call names in the current module, if any:
// the checker refers to a qualified name (money.apply_bps) from its
// first or its last part.
func (e *encoder) callee(x *ast.Call) *ast.Function {
	if fn := e.cur.calls[x.Func.Span().Start]; fn != nil {
		return fn
	}
	if n := len(x.Func.Parts); n > 1 {
		return e.cur.calls[x.Func.Parts[n-1].Span.Start]
	}
	return nil
}

// fname is the SMT name of fn: qualified by its module when imported.
func (e *encoder) fname(fn *ast.Function) string {
	if m := e.mods[fn]; m != nil {
		return m.prefix + fn.Name.Name
	}
	return fn.Name.Name
}

// imported reports whether fn is declared in an imported module.
func (e *encoder) imported(fn *ast.Function) bool {
	m := e.mods[fn]
	return m != nil && m.prefix != ""
}

// enter makes fn's module the current one (its types and callees) and
// returns a function that restores the previous one.
func (e *encoder) enter(fn *ast.Function) func() {
	prev := e.cur
	if m := e.mods[fn]; m != nil {
		e.cur = m
	}
	return func() { e.cur = prev }
}

// importedSigs adds the signatures of the imported modules' functions, as
// the interpreter sees each of those modules.
func (s *shared) importedSigs() {
	done := map[*check.Result]bool{s.res: true}
	for _, m := range s.mods {
		if done[m.res] {
			continue
		}
		done[m.res] = true
		for _, fi := range interp.New(m.res).Functions() {
			g := sig{result: fi.Result}
			for _, p := range fi.Params {
				g.names = append(g.names, p.Name)
				g.params = append(g.params, p.Type)
			}
			s.sigs[fi.Decl] = g
		}
	}
}
