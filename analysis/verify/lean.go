package verify

import (
	"fmt"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/lean"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// LeanFile is the Lean 4 statement of a module's proof obligations
// (caps emit-lean-obligations).
type LeanFile struct {
	Module string
	// Source is the Lean file: the Lean target's definitions, then one
	// theorem per stated obligation, each proved by sorry.
	Source  string
	Entries []LeanEntry
}

// LeanEntry is one obligation and what became of it in the Lean file.
type LeanEntry struct {
	ID       string       `json:"id"`
	Kind     Kind         `json:"kind"`
	DeclKind string       `json:"decl_kind"`
	Decl     string       `json:"decl"`
	Claim    string       `json:"claim"`
	Range    syntax.Range `json:"range"`
	// Theorem is the Lean theorem that states the obligation; empty when
	// it is not stated, and Reason says why.
	Theorem string `json:"theorem,omitempty"`
	Reason  string `json:"reason,omitempty"`
	span    syntax.Span
}

// Span is the entry's source span.
func (e LeanEntry) Span() syntax.Span { return e.span }

// EmitLean states the obligations that Generate lists for res in Lean 4,
// over the definitions that caps compile --target lean writes: function
// contracts and examples of functions in the Lean target's subset. The
// others (machine guards and assignments, zk-proof claims, functions
// outside the subset) are listed as not stated, with the reason. path
// names the source in the file's comments.
func EmitLean(res *check.Result, path string) (*LeanFile, error) {
	obs, err := Generate(res)
	if err != nil {
		return nil, err
	}
	m := core.Lower(res)
	var lines *syntax.Mapper
	if res.File.Source != nil && res.File.Source.CST != nil {
		lines = res.File.Source.CST.Lines
	}
	pos := func(sp syntax.Span) string {
		if lines == nil {
			return path
		}
		a := lines.Position(sp.Start, syntax.UTF32)
		b := lines.Position(sp.End, syntax.UTF32)
		return fmt.Sprintf("%s:%d:%d-%d:%d", path, a.Line+1, a.Character+1, b.Line+1, b.Character+1)
	}
	place := func(s *core.Site) string {
		if lines == nil {
			return ""
		}
		p := lines.Position(s.Span.Start, syntax.UTF32)
		return fmt.Sprintf("line %d:%d", p.Line+1, p.Character+1)
	}
	in := interp.New(res)
	var goals []lean.Goal
	var idx []int // goals[k] is obligation idx[k]
	entries := make([]LeanEntry, len(obs))
	for i, o := range obs {
		entries[i] = LeanEntry{ID: o.ID, Kind: o.Kind, DeclKind: o.DeclKind, Decl: o.Decl, Claim: o.Claim, Range: o.Range, span: o.Span}
		g := lean.Goal{ID: o.ID, Where: pos(o.Span), Claim: o.Claim, Kind: string(o.Kind), Func: o.Decl, Index: index(o.ID)}
		switch o.Kind {
		case KindEnsures, KindNoFailure:
		case KindExample:
			if m.FuncIndex(o.Decl) < 0 {
				break // Obligations says why
			}
			args, want, err := exampleTerms(in, res, o.Decl, g.Index)
			if err != nil {
				g.Skip = err.Error()
			}
			g.Args, g.Expected = args, want
		default:
			g.Skip = "the Lean target covers pure functions only; " + o.DeclKind + " obligations are not stated in Lean"
		}
		goals = append(goals, g)
		idx = append(idx, i)
	}
	header := []string{"Source: " + path + "; obligation ids are those of caps verify-report."}
	src, stated := lean.Obligations(m, place, header, goals)
	for k, st := range stated {
		e := &entries[idx[k]]
		e.Theorem, e.Reason = st.Theorem, st.Reason
	}
	return &LeanFile{Module: res.File.Module.Name.Name, Source: src, Entries: entries}, nil
}

// index reads the trailing /N of an obligation id (0 without one).
func index(id string) int {
	n, mul := 0, 1
	for i := len(id) - 1; i >= 0 && id[i] >= '0' && id[i] <= '9'; i-- {
		n += int(id[i]-'0') * mul
		mul *= 10
	}
	return n
}

// exampleTerms evaluates the N-th example of function fn (arguments and
// expected value) and writes the values as Lean terms.
func exampleTerms(in *interp.Interp, res *check.Result, fn string, n int) ([]string, string, error) {
	var decl *ast.Function
	for _, d := range res.File.Module.Decls {
		if f, ok := d.(*ast.Function); ok && f.Name.Name == fn {
			decl = f
		}
	}
	if decl == nil || n >= len(decl.Examples) {
		return nil, "", fmt.Errorf("no example %d of %s", n, fn)
	}
	ex := decl.Examples[n]
	term := func(x ast.Expr) (string, error) {
		v, err := in.EvalExpr(x, interp.Env{})
		if err != nil {
			return "", fmt.Errorf("evaluating the example fails: %v", err)
		}
		switch v.Kind() {
		case value.KindBool:
			if v.AsBool() {
				return "true", nil
			}
			return "false", nil
		case value.KindInt:
			return "(" + v.Big().String() + " : Int)", nil
		}
		return "", fmt.Errorf("the example's %s value is not written in Lean", v.Kind())
	}
	var args []string
	for _, a := range ex.Args {
		t, err := term(a)
		if err != nil {
			return nil, "", err
		}
		args = append(args, t)
	}
	want, err := term(ex.Expected)
	if err != nil {
		return nil, "", err
	}
	return args, want, nil
}
