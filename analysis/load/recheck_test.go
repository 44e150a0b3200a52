package load

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax/ast"
)

// TestRecheckImportsAtOffersCompleteAnswers checks a three-level chain
// (lib, mid importing it, top importing mid) as the language server does
// after lib changed: mid again by RecheckImportsAt over its full check,
// its answer offered to the loader, then top by a full check through the
// loader. The answer is complete, the loader keeps it, top reads it
// without checking mid again (the check hook sees lib once and top), and
// top's diagnostics and mid's semantic hash are a fresh loader's. An
// answer over a text edited since (read again) is not complete, and
// Cached says what the loader holds; over a base the loader read (no
// tree kept) such an answer is declined.
func TestRecheckImportsAtOffersCompleteAnswers(t *testing.T) {
	dir := t.TempDir()
	lib := write(t, dir, "lib.caps", `(module lib (capsule "1") (function one (output I64) (body 1)))`)
	mid := write(t, dir, "mid.caps", `(module mid (capsule "1") (import lib) (function two (output I64) (body (+ (lib.one) 1))) (function three (output I64) (body 3)))`)
	top := write(t, dir, "top.caps", `(module top (capsule "1") (import mid) (function four (output I64) (body (mid.two))))`)
	texts := map[string][]byte{}
	read := overlayReader(texts)
	l := &Loader{ReadFile: read}
	midPkg, err := l.Load(mid)
	if err != nil {
		t.Fatal(err)
	}
	// lib's output type changes: mid's two no longer adds integers
	texts[lib] = []byte(`(module lib (capsule "1") (function one (output Bool) (body true)))`)
	l.Forget(lib)
	var mu sync.Mutex
	checks := map[string]int{}
	CheckHook = func(abs string) { mu.Lock(); checks[abs]++; mu.Unlock() }
	defer func() { CheckHook = nil }()
	pkg, ok := l.RecheckImportsAt(mid, midPkg.Result, nil, nil)
	if !ok || !pkg.Result.Complete() {
		t.Fatalf("RecheckImportsAt: ok %v, complete %v; want both", ok, ok && pkg.Result.Complete())
	}
	if !l.OfferHashed(pkg) || !l.Cached(mid) {
		t.Fatal("the loader did not keep a complete answer")
	}
	got, err := l.Load(top)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{lib: 1, top: 1}, checks); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
	fresh := &Loader{ReadFile: read}
	want, err := fresh.Load(top)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Result.Diagnostics, got.Result.Diagnostics); diff != "" {
		t.Errorf("top's diagnostics differ from a fresh loader's (-fresh +cached):\n%s", diff)
	}
	freshMid, _ := fresh.Load(mid)
	if pkg.Hash == "" || pkg.Hash != freshMid.Hash {
		t.Errorf("mid's semantic hash %q, want a fresh check's %q", pkg.Hash, freshMid.Hash)
	}
	if diff := cmp.Diff(freshMid.Result.Diagnostics, pkg.Result.Diagnostics); diff != "" {
		t.Errorf("mid's diagnostics differ from a fresh check's (-fresh +answer):\n%s", diff)
	}
	// a later text of mid, answered with lib's change: read again, not
	// complete, not cached
	edited := []byte(`(module mid (capsule "1") (import lib) (function two (output I64) (body (+ (lib.one) 2))) (function three (output I64) (body 3)))`)
	f, err := ast.Parse(edited)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := ast.Parse(midPkg.Src)
	if err != nil {
		t.Fatal(err)
	}
	// (a base with its tree, as the language server's checks keep it:
	// a loaded file keeps none, and the engine declines over it)
	base := l.CheckFileNoHash(mid, orig).Result
	if _, ok := l.RecheckImportsAt(mid, pkg.Result, f, nil); ok {
		t.Fatal("RecheckImportsAt of a later text answered over a base without its tree")
	}
	texts[mid] = edited
	l.Forget(mid)
	later, ok := l.RecheckImportsAt(mid, base, f, nil)
	if !ok || later.Result.Complete() {
		t.Fatalf("RecheckImportsAt of a later text: ok %v; want ok and not complete", ok)
	}
	if l.Cached(mid) {
		t.Fatal("Cached reports a file the loader forgot")
	}
	freshLater := (&Loader{ReadFile: read}).LoadSource(mid, edited)
	if diff := cmp.Diff(freshLater.Result.Diagnostics, later.Result.Diagnostics); diff != "" {
		t.Errorf("the later text's diagnostics differ from a fresh check's (-fresh +answer):\n%s", diff)
	}
}
