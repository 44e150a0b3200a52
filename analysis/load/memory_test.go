package load

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
)

// TestLoadKeepsNoNodes checks that a loaded package keeps its text and line
// index but not its CST's node array (about ten bytes per source byte),
// whichever reader built the tree: the scanner for clean text, tree-sitter
// for text with a syntax error. Diagnostics still map to lines.
func TestLoadKeepsNoNodes(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src string
		codes     []string
	}{
		{"clean.caps", "(module clean (capsule \"1\")\n  (function f (input (x I64)) (output I64) (body (+ x 1))))\n", nil},
		{"broken.caps", "(module broken (capsule \"1\")\n  (function f (input (x I64)) (output I64) (body (+ x 1)))\n", []string{"E_PARSE "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l Loader
			p, err := l.Load(write(t, dir, tc.name, tc.src))
			if err != nil {
				t.Fatal(err)
			}
			c := p.File.Source.CST
			if c.Len() != 0 {
				t.Errorf("the loaded CST keeps %d nodes", c.Len())
			}
			if string(c.Src) != tc.src || c.Lines == nil || c.Lines.Count() != 3 {
				t.Errorf("the loaded CST lost its text or lines")
			}
			if d := cmp.Diff(tc.codes, codes(p)); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			if got, want := p.File.Exprs, 3; got != want {
				t.Errorf("File.Exprs = %d, want %d (+, x, 1)", got, want)
			}
		})
	}
}

// TestOneShotDropsRecheckState checks that a one-shot loader's packages,
// and those of the modules they import, keep no state for incremental
// rechecks (a language server's loader keeps it), while their diagnostics,
// symbols and semantic hashes are those of a language server's loader.
func TestOneShotDropsRecheckState(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "lib.caps", "(module lib (capsule \"1\")\n  (function g (input (x I64)) (output I64) (body (+ x 1))))\n")
	main := write(t, dir, "main.caps", "(module main (capsule \"1\")\n  (import lib)\n  (function f (input (x I64)) (output I64) (body (lib.g x)))\n  (function h (input (x I64)) (output Bool) (body x)))\n")
	type summary struct {
		Codes   []string
		Symbols int
		Hash    string
		Overlay bool
	}
	sum := func(p *Package) summary {
		return summary{codes(p), len(p.Result.Symbols), p.Hash, p.Result.Overlay(nil) != nil}
	}
	for _, tc := range []struct {
		oneShot   bool
		main, lib summary
	}{
		{false, summary{[]string{"E_TYPE_MISMATCH x"}, 6, "", true}, summary{nil, 3, "", true}},
		{true, summary{[]string{"E_TYPE_MISMATCH x"}, 6, "", false}, summary{nil, 3, "", false}},
	} {
		l := Loader{OneShot: tc.oneShot}
		p, err := l.Load(main)
		if err != nil {
			t.Fatal(err)
		}
		lib, err := l.Load(filepath.Join(dir, "lib.caps"))
		if err != nil {
			t.Fatal(err)
		}
		gotMain, gotLib := sum(p), sum(lib)
		gotMain.Hash, gotLib.Hash = "", "" // compared across loaders below
		if d := cmp.Diff(tc.main, gotMain); d != "" {
			t.Errorf("OneShot %v: main (-want +got):\n%s", tc.oneShot, d)
		}
		if d := cmp.Diff(tc.lib, gotLib); d != "" {
			t.Errorf("OneShot %v: lib (-want +got):\n%s", tc.oneShot, d)
		}
	}
	var server, oneShot Loader
	oneShot.OneShot = true
	a, errA := server.Load(main)
	b, errB := oneShot.Load(main)
	if errA != nil || errB != nil || a.Hash == "" || a.Hash != b.Hash {
		t.Errorf("semantic hashes differ: %q (server) and %q (one-shot); errors %v, %v", a.Hash, b.Hash, errA, errB)
	}
}

// TestOneShotCheckMemory bounds what a one-shot loader keeps of a large
// file (a module of one-line functions, as issue 19's scaling benchmark
// checks): the live heap after the load, the package held, per source
// byte. It is about 26.4 bytes (the text 1, its forms 9, the AST 10 and
// the checker's result 7); it was 33 while every function kept a clause
// list, names took 80 bytes and every symbol its hover text (which a
// one-shot check leaves out). Keeping the recheck state as well would add
// 8, and the CST's node array another 10. The bound leaves room for the
// collector's noise, not for such a regression.
func TestOneShotCheckMemory(t *testing.T) {
	p, perByte := liveAfterLoad(t, &Loader{OneShot: true})
	t.Logf("live heap after a one-shot load: %.1f bytes per source byte", perByte)
	if perByte > 28 {
		t.Errorf("a one-shot load keeps %.1f bytes per source byte of a module of one-line functions, more than 28", perByte)
	}
	if p.lean {
		t.Error("the load was lean")
	}
}

// TestLeanCheckMemory measures what a lean one-shot load (Loader.LeanFrom,
// caps check's loads of large files) keeps: most functions are stubs, and
// nothing inside a deferred function is kept after the check (issue 19:
// the whole load above keeps about 26 bytes a source byte). The soft
// memory limit the load sets is restored afterwards.
func TestLeanCheckMemory(t *testing.T) {
	limit := debug.SetMemoryLimit(-1)
	p, perByte := liveAfterLoad(t, &Loader{OneShot: true, LeanFrom: 1, leanAlways: true})
	if !p.lean {
		t.Fatal("the module was not checked lean")
	}
	t.Logf("live heap after a lean one-shot load: %.1f bytes per source byte", perByte)
	if perByte > 10 {
		t.Errorf("a lean load keeps %.1f bytes per source byte of a module of one-line functions, more than 10", perByte)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("the memory limit is %d after the load, %d before", got, limit)
	}
}

// liveAfterLoad loads a 2 MiB module of one-line functions with l and
// returns its package, which it checks cleanly, and the live heap the
// load added, in bytes per source byte.
func liveAfterLoad(t *testing.T, l *Loader) (*Package, float64) {
	t.Helper()
	if testing.Short() {
		t.Skip("checks a 2 MiB module")
	}
	src := gen.Functions(2 << 20)
	path := write(t, t.TempDir(), "functions.caps", string(src))
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	p, err := l.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	perByte := (float64(ms.HeapAlloc) - float64(before)) / float64(len(src))
	runtime.KeepAlive(p)
	if p.Hash == "" || len(p.Result.Diagnostics) != 0 {
		t.Fatalf("the module did not check cleanly: hash %q, %d diagnostics", p.Hash, len(p.Result.Diagnostics))
	}
	return p, perByte
}
