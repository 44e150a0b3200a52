package ir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/capsulang/caps/syntax/ast"
)

// TestDeclCacheSameHash hashes every example three ways: plainly, with a
// declaration cache that is empty, and with the cache the first build
// filled (every declaration found in it); then a module whose trees are
// partly those cached (two examples' declarations mixed, one dropped).
// Every hash must be the plain one, and the cache must hold exactly the
// declarations of the module built last.
func TestDeclCacheSameHash(t *testing.T) {
	paths, _ := filepath.Glob("../../examples/*.caps")
	if len(paths) < 5 {
		t.Fatalf("found %d examples", len(paths))
	}
	var mods []*ast.Module
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ast.Parse(src)
		if err != nil || f.Module == nil {
			continue
		}
		mods = append(mods, f.Module)
		var c DeclCache
		plain, err := Hash(f.Module)
		if err != nil {
			continue
		}
		for i := 0; i < 2; i++ {
			got, err := Options{Decls: &c}.Hash(f.Module)
			if err != nil || got != plain {
				t.Fatalf("%s: build %d with a declaration cache: %s, %v; without: %s", p, i+1, got, err, plain)
			}
		}
		if len(c.m) != len(f.Module.Decls) {
			t.Fatalf("%s: the cache holds %d declarations, the module has %d", p, len(c.m), len(f.Module.Decls))
		}
	}
	// a module sharing some trees with the one cached last
	var c DeclCache
	a, b := mods[0], mods[len(mods)-1]
	if _, err := (Options{Decls: &c}).Hash(a); err != nil {
		t.Fatal(err)
	}
	mixed := *b
	mixed.Decls = append(append([]ast.Decl(nil), a.Decls[1:]...), b.Decls...)
	plain, err := Hash(&mixed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Options{Decls: &c}.Hash(&mixed)
	if err != nil || got != plain {
		t.Fatalf("mixed module: %s, %v with the cache; %s without", got, err, plain)
	}
	if len(c.m) != len(mixed.Decls) {
		t.Fatalf("the cache holds %d declarations after the mixed build, want %d", len(c.m), len(mixed.Decls))
	}
}

// TestDeclCacheByText builds every example's hash with a declaration
// cache and the text (Options.Src), then hashes versions of the text
// read and built again, every tree new: the same text, the text with a
// blank line and a doc comment added above the first declaration (every
// later offset moves), and the text with the first function's body
// changed. Each hash must be a plain build's, and the declarations
// encoded again must be exactly those whose form's text changed: none,
// none, one (counted through the cache: a declaration found by its text
// keeps the remembered bytes' backing array).
func TestDeclCacheByText(t *testing.T) {
	paths, _ := filepath.Glob("../../examples/*.caps")
	if len(paths) < 5 {
		t.Fatalf("found %d examples", len(paths))
	}
	tried := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ast.Parse(src)
		if err != nil || f.Module == nil || len(f.Module.Decls) == 0 {
			continue
		}
		if _, err := Hash(f.Module); err != nil {
			continue
		}
		var c DeclCache
		if _, err := (Options{Decls: &c, Src: src}).Hash(f.Module); err != nil {
			t.Fatal(err)
		}
		first := f.Module.Decls[0].Base().Form.Span().Start
		var fn *ast.Function
		for _, d := range f.Module.Decls {
			if x, ok := d.(*ast.Function); ok && x.Body != nil {
				fn = x
				break
			}
		}
		versions := []struct {
			name    string
			src     []byte
			changed int
		}{
			{"the same text", src, 0},
			{"a doc comment above the first declaration", []byte(string(src[:first]) + "\n  ; a doc comment\n  " + string(src[first:])), 0},
		}
		if fn != nil {
			sp := fn.Body.ExprSpan()
			versions = append(versions, struct {
				name    string
				src     []byte
				changed int
			}{"a function's body changed", []byte(string(src[:sp.Start]) + "(do 1)" + string(src[sp.End:])), 1})
		}
		for _, v := range versions {
			nf, err := ast.Parse(v.src)
			if err != nil || nf.Module == nil {
				t.Fatalf("%s, %s: %v", p, v.name, err)
			}
			plain, err := Hash(nf.Module)
			if err != nil {
				t.Fatalf("%s, %s: %v", p, v.name, err)
			}
			before := c.byText
			got, err := Options{Decls: &c, Src: v.src}.Hash(nf.Module)
			if err != nil || got != plain {
				t.Fatalf("%s, %s: %s, %v with the cache by text; %s without", p, v.name, got, err, plain)
			}
			encoded := 0
			for k, b := range c.byText {
				if old, ok := before[k]; !ok || &old[0] != &b[0] {
					encoded++
				}
			}
			if encoded != v.changed {
				t.Fatalf("%s, %s: %d declarations encoded again, want %d", p, v.name, encoded, v.changed)
			}
			if len(c.m) != len(nf.Module.Decls) {
				t.Fatalf("%s, %s: the cache holds %d trees, the module has %d", p, v.name, len(c.m), len(nf.Module.Decls))
			}
		}
		tried++
	}
	if tried < 5 {
		t.Fatalf("only %d examples hashed", tried)
	}
}
