package load

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/ir"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax/ast"
)

// TestOneShotHashesWhileChecking: a one-shot loader computes each file's
// semantic hash during its check, once its imports are resolved
// (checkOptions), where a language server's loader hashes after the
// check. The hashes are the same, for every file of a set whose imports
// resolve, fail, clash on a name and close a cycle, and for a module
// large enough that the loader collects garbage after hashing it; and the
// one-shot loader's diagnostics are the server's.
func TestOneShotHashesWhileChecking(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"lib.caps":       "(module lib (capsule \"1\")\n  (function g (input (x I64)) (output I64) (body (+ x 1))))\n",
		"other/lib.caps": "(module other.lib (capsule \"1\")\n  (type T I64))\n",
		"main.caps":      "(module main (capsule \"1\")\n  (import lib) (import other.lib) (import missing)\n  (function f (input (x I64)) (output I64) (body (lib.g x))))\n",
		"cyc_a.caps":     "(module cyc_a (capsule \"1\") (import cyc_b)\n  (function fa (input (x I64)) (output I64) (body x)))\n",
		"cyc_b.caps":     "(module cyc_b (capsule \"1\") (import cyc_a)\n  (function fb (input (x I64)) (output I64) (body x)))\n",
		"large.caps":     string(gen.Functions(collectAfterHash + 4096)),
	}
	for name, src := range files {
		write(t, dir, name, src)
	}
	type loaded struct {
		Hash  string
		Codes []string
	}
	load := func(oneShot bool, name string) loaded {
		l := Loader{OneShot: oneShot}
		p, err := l.Load(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return loaded{p.Hash, codes(p)}
	}
	for _, name := range []string{"lib.caps", "main.caps", "cyc_a.caps", "cyc_b.caps", "large.caps"} {
		server, oneShot := load(false, name), load(true, name)
		if server.Hash == "" {
			t.Errorf("%s: no hash", name)
		}
		if diff := cmp.Diff(server, oneShot); diff != "" {
			t.Errorf("%s: (-server +one-shot):\n%s", name, diff)
		}
	}
	f, err := ast.Parse([]byte(files["large.caps"]))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ir.Hash(f.Module)
	if err != nil {
		t.Fatal(err)
	}
	if got := load(true, "large.caps").Hash; got != want {
		t.Errorf("large.caps: one-shot hash %s, ir.Hash %s", got, want)
	}
}
