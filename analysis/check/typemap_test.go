package check_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// TestTypeMap: expressions numbered by one build share the dense table;
// an expression of another build with the same number, and one with no
// number, keep their own types; Clone copies; a nil map reads as empty.
func TestTypeMap(t *testing.T) {
	f, err := ast.Parse([]byte("(module m (capsule \"1.0\")\n  (function f (input (x I64)) (output I64) (body (+ x 1))))\n"))
	if err != nil {
		t.Fatal(err)
	}
	call := f.Module.Decls[0].(*ast.Function).Body.(*ast.Call)
	x, one := call.Args[0], call.Args[1]
	if got := []ast.ExprID{call.ExprID(), x.ExprID(), one.ExprID()}; !cmp.Equal(got, []ast.ExprID{1, 2, 3}) {
		t.Fatalf("expression IDs = %v, want [1 2 3] (build order)", got)
	}
	// Another build numbers its expressions from 1 again.
	other, _ := ast.BuildExpr(syntax.NewAtom(syntax.FormSymbol, syntax.Span{Start: 0, End: 1}, "y"))
	if other.ExprID() != 1 {
		t.Fatalf("BuildExpr's expression has ID %d, want 1", other.ExprID())
	}
	bare := &ast.Name{Parts: []ast.Ident{{Name: "z"}}} // made by hand: no ID

	for _, m := range []*check.TypeMap{check.NewTypeMap(f.Exprs), {}} {
		m.Set(call, types.TI64)
		m.Set(x, types.TI64)
		m.Set(other, types.TBool) // same ID as call
		m.Set(bare, types.TText)
		m.Set(one, types.TInt)
		m.Set(one, types.TI64) // replaced
		want := map[ast.Expr]types.Type{call: types.TI64, x: types.TI64, one: types.TI64, other: types.TBool, bare: types.TText}
		for e, w := range want {
			if got, ok := m.Lookup(e); !ok || got != w {
				t.Errorf("Lookup(%T %d) = %v, %v; want %v", e, e.ExprID(), got, ok, w)
			}
		}
		if m.Len() != len(want) {
			t.Errorf("Len = %d, want %d", m.Len(), len(want))
		}
		got := map[ast.Expr]types.Type{}
		for e, ty := range m.All() {
			got[e] = ty
		}
		if !cmp.Equal(got, want) {
			t.Errorf("All = %v, want %v", got, want)
		}
		unset := &ast.IntLit{}
		if ty, ok := m.Lookup(unset); ok || ty != nil || m.Type(unset) != nil {
			t.Errorf("an expression never set has type %v, %v", ty, ok)
		}
		c := m.Clone()
		c.Set(x, types.TBool)
		if m.Type(x) != types.TI64 || c.Type(x) != types.TBool || c.Type(other) != types.TBool {
			t.Errorf("Clone shares entries with its original: original x %v, clone x %v", m.Type(x), c.Type(x))
		}
	}
	var none *check.TypeMap
	if _, ok := none.Lookup(x); ok || none.Len() != 0 || none.Clone().Len() != 0 {
		t.Error("a nil TypeMap is not empty")
	}
	for range none.All() {
		t.Error("a nil TypeMap yields an entry")
	}
}
