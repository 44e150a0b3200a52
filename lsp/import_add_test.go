package lsp

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
)

// TestImportAddedAnsweredByEngine adds an import to an open document and
// then a call of the module it names: the engine answers both edits (the
// loader resolves the new import: load.Loader.RecheckResult), and the
// document is not checked in full. Its dependencies then hold the new
// module: an edit of that module's interface (lib.one's output) sends
// the document to be checked again, and it reports the mismatch. An
// import that closes a cycle (lib imports app) is reported as a full
// check reports it.
func TestImportAddedAnsweredByEngine(t *testing.T) {
	files := map[string]string{
		"lib.caps": "(module lib\n  (capsule \"1\")\n  (function one (output I64) (body 1)))\n",
		"app.caps": "(module app\n  (capsule \"1\")\n  (function a (output I64) (body 2)))\n",
	}
	s, c, uri := wsWithFiles(t, files, "lib.caps", "app.caps")
	var mu sync.Mutex
	checks := map[string]int{}
	load.CheckHook = func(abs string) { mu.Lock(); checks[filepath.Base(abs)]++; mu.Unlock() }
	defer func() { load.CheckHook = nil }()
	edit := func(n string, v int, old, new string) {
		t.Helper()
		text := files[n]
		a := strings.Index(text, old)
		if a < 0 {
			t.Fatalf("%s: no %q", n, old)
		}
		files[n] = replaceText(c, uri(n), v, text, a, a+len(old), new)
		s.settled(t, uri(n), v)
	}
	q0 := quickChecks.Load()
	edit("app.caps", 2, "(capsule \"1\")\n", "(capsule \"1\")\n  (import lib)\n")
	edit("app.caps", 3, "(body 2)", "(body (lib.one))")
	if got := s.codesOf(uri("app.caps")); len(got) != 0 {
		t.Fatalf("after the import and the call: app.caps has %v, want no diagnostic", got)
	}
	mu.Lock()
	if diff := cmp.Diff(map[string]int{}, checks); diff != "" {
		t.Errorf("full checks during the two edits (-want +got):\n%s", diff)
	}
	mu.Unlock()
	if q := quickChecks.Load() - q0; q != 2 {
		t.Errorf("edits answered by the engine: %d, want 2", q)
	}
	edit("lib.caps", 2, "(output I64) (body 1)", "(output Bool) (body true)")
	want := []string{"E_TYPE_MISMATCH"}
	if diff := cmp.Diff(want, s.codesOf(uri("app.caps"))); diff != "" {
		t.Errorf("app.caps after lib.one's output became Bool (-want +got):\n%s", diff)
	}
	edit("lib.caps", 3, "(capsule \"1\")\n", "(capsule \"1\")\n  (import app)\n")
	for _, n := range []string{"lib.caps", "app.caps"} {
		if got := s.codesOf(uri(n)); !slices.Contains(got, "E_IMPORT_CYCLE") {
			t.Errorf("after lib imports app: %s has %v, want E_IMPORT_CYCLE", n, got)
		}
	}
}
