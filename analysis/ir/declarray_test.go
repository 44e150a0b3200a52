package ir

import (
	"testing"

	"github.com/capsulang/caps/syntax/ast"
)

// TestDeclArrayOrder: the declarations a hash builds one at a time come in
// the order the eager encoding (a declaration cache's path) sorts them,
// declarations with the same kind and name included, whatever their
// order in the source.
func TestDeclArrayOrder(t *testing.T) {
	decls := []string{
		`(function f (input (x I64)) (output I64) (body (+ x 2)))`,
		`(type b U64)`,
		`(function f (input (x I64)) (output I64) (body (+ x 1)))`,
		`(function a (input (x I64)) (output I64) (body x))`,
		`(type f I64)`,
		`(function f (input (y I64)) (output I64) (body y))`,
		`(type b U64)`,
	}
	var want []byte
	for rot := range decls {
		src := "(module m (capsule \"1.0\")\n"
		for i := range decls {
			src += "  " + decls[(i+rot)%len(decls)] + "\n"
		}
		src += ")\n"
		f, err := ast.Parse([]byte(src))
		if err != nil || f.Module == nil {
			t.Fatalf("rotation %d: %v", rot, err)
		}
		got, err := Options{}.Canonical(f.Module)
		if err != nil {
			t.Fatal(err)
		}
		var c DeclCache
		eager, err := Options{Decls: &c}.Canonical(f.Module)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(eager) {
			t.Fatalf("rotation %d: built one at a time:\n%s\nencoded ahead:\n%s", rot, got, eager)
		}
		if want == nil {
			want = got
		} else if string(got) != string(want) {
			t.Fatalf("rotation %d: the canonical IR depends on the declarations' order:\n%s\nwant\n%s", rot, got, want)
		}
		h, err := Hash(f.Module)
		if err != nil || h != HashBytes(got) {
			t.Fatalf("rotation %d: Hash = %s, %v; the canonical bytes hash to %s", rot, h, err, HashBytes(got))
		}
	}
}
