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
