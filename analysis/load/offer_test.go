package load

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax/ast"
)

// overlayReader reads a file from texts when it holds the file's path
// (an editor's unsaved text), else from the disk.
func overlayReader(texts map[string][]byte) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if src, ok := texts[p]; ok {
			return src, nil
		}
		return ReadSource(p)
	}
}

// TestOfferAnswersImports offers the check of an edited file to the
// loader: later imports of it are answered with that check (the file is
// not checked again), unless the file's text is another one or a Forget
// happened since the offered check began.
func TestOfferAnswersImports(t *testing.T) {
	dir := t.TempDir()
	lib := write(t, dir, "lib.caps", `(module lib (capsule "1") (function one (output I64) (body 1)))`)
	app := write(t, dir, "app.caps", `(module app (capsule "1") (import lib) (function two (output I64) (body (+ (lib.one) 1))))`)
	var mu sync.Mutex
	checks := map[string]int{}
	CheckHook = func(abs string) { mu.Lock(); checks[abs]++; mu.Unlock() }
	defer func() { CheckHook = nil }()

	edited := []byte(`(module lib (capsule "1") (function one (output I64) (body 2)))`)
	texts := map[string][]byte{lib: edited}
	l := &Loader{ReadFile: overlayReader(texts)}
	parse := func(src []byte) *ast.File {
		f, err := ast.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	// an offer whose text is not the file's is refused
	stale := l.CheckFileNoHash(lib, parse([]byte(`(module lib (capsule "1") (function one (output I64) (body 3)))`)))
	if l.Offer(stale) {
		t.Fatal("the loader kept a check of text the file does not have")
	}
	// an offer made after a Forget is refused
	early := l.CheckFileNoHash(lib, parse(edited))
	l.Forget(app)
	if l.Offer(early) {
		t.Fatal("the loader kept a check begun before a Forget")
	}
	pkg := l.CheckFileNoHash(lib, parse(edited))
	if !l.OfferHashed(pkg) {
		t.Fatal("the loader refused a current check")
	}
	if l.Offer(pkg) {
		t.Fatal("the loader kept a second offer of a file it has")
	}
	p, err := l.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Result.Diagnostics) != 0 || len(p.Result.Imports) != 1 || p.Result.Imports[0].Result != pkg.Result || p.Result.Imports[0].Hash == "" {
		t.Fatalf("app's import of lib is not the offered check: %+v", p.Result.Imports)
	}
	if diff := cmp.Diff(map[string]int{lib: 3, app: 1}, checks); diff != "" {
		t.Fatalf("checks per file (-want +got):\n%s", diff)
	}
}

// TestParallelImportersLoadEachImportOnce checks forty files that import
// the same two modules at once, from as many goroutines: each import is
// loaded and checked once, and every importer sees it.
func TestParallelImportersLoadEachImportOnce(t *testing.T) {
	dir := t.TempDir()
	base := write(t, dir, "base.caps", `(module base (capsule "1") (function one (output I64) (body 1)))`)
	mid := write(t, dir, "mid.caps", `(module mid (capsule "1") (import base) (function two (output I64) (body (+ (base.one) 1))))`)
	var mu sync.Mutex
	checks := map[string]int{}
	CheckHook = func(abs string) { mu.Lock(); checks[abs]++; mu.Unlock() }
	defer func() { CheckHook = nil }()
	var l Loader
	var wg sync.WaitGroup
	pkgs := make([]*Package, 40)
	for i := range pkgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := []byte(fmt.Sprintf(`(module user%d (capsule "1") (import base) (import mid) (function f (output I64) (body (+ (base.one) (mid.two)))))`, i))
			f, err := ast.Parse(src)
			if err != nil {
				t.Error(err)
				return
			}
			pkgs[i] = l.CheckFile(filepath.Join(dir, fmt.Sprintf("user%d.caps", i)), f)
		}()
	}
	wg.Wait()
	for i, p := range pkgs {
		if p == nil || len(p.Result.Diagnostics) != 0 || len(p.Result.Imports) != 2 || p.Hash == "" {
			t.Fatalf("user%d: %+v", i, p)
		}
	}
	if checks[base] != 1 || checks[mid] != 1 || len(checks) != 42 {
		t.Fatalf("checks: base %d, mid %d, files %d; want 1, 1, 42", checks[base], checks[mid], len(checks))
	}
}

// TestRecheckImportsAnswers checks a file again with the engine after a
// module it imports changed: its diagnostics are a fresh check's, a file
// given in answers is answered with the result given (not loaded, not
// checked), and the others are loaded as usual.
func TestRecheckImportsAnswers(t *testing.T) {
	dir := t.TempDir()
	lib := write(t, dir, "lib.caps", `(module lib (capsule "1") (type Score I64) (function one (output I64) (body 1)))`)
	mid := write(t, dir, "mid.caps", `(module mid (capsule "1") (import lib) (function wrap (input (s lib.Score)) (output lib.Score) (body s)))`)
	app := write(t, dir, "app.caps", `(module app (capsule "1") (import lib) (import mid)
  (function two (output I64) (body (+ (lib.one) 1)))
  (function three (input (x I64)) (output I64) (body (mid.wrap x))))`)
	texts := map[string][]byte{}
	read := overlayReader(texts)
	l := &Loader{ReadFile: read}
	appPkg, err := l.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	midPkg, err := l.Load(mid)
	if err != nil {
		t.Fatal(err)
	}
	if len(appPkg.Result.Diagnostics) != 0 {
		t.Fatalf("app before the edit: %v", appPkg.Result.Diagnostics)
	}
	// lib's Score becomes Bool: mid's wrap now takes and returns a Bool,
	// and app's three passes it an I64 and returns it as one
	texts[lib] = []byte(`(module lib (capsule "1") (type Score Bool) (function one (output I64) (body 1)))`)
	l.Forget(lib)
	midRes, ok := l.RecheckImports(mid, midPkg.Result, nil)
	if !ok {
		t.Fatal("RecheckImports declined mid")
	}
	var mu sync.Mutex
	checks := map[string]int{}
	CheckHook = func(abs string) { mu.Lock(); checks[abs]++; mu.Unlock() }
	defer func() { CheckHook = nil }()
	appRes, ok := l.RecheckImports(app, appPkg.Result, map[string]*check.Result{mid: midRes})
	if !ok {
		t.Fatal("RecheckImports declined app")
	}
	if diff := cmp.Diff(map[string]int{}, checks); diff != "" {
		t.Errorf("files checked while app was checked again (-want +got):\n%s", diff)
	}
	if got := appRes.Imports[1].Result; got != midRes {
		t.Errorf("app's import of mid is not the answer given")
	}
	fresh := &Loader{ReadFile: read}
	want, err := fresh.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Result.Diagnostics, appRes.Diagnostics); diff != "" {
		t.Fatalf("app's diagnostics differ from a fresh check's (-fresh +engine):\n%s", diff)
	}
	var codes []string
	for _, d := range appRes.Diagnostics {
		codes = append(codes, d.Code)
	}
	if diff := cmp.Diff([]string{"E_TYPE_MISMATCH", "E_TYPE_MISMATCH"}, codes); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
}
