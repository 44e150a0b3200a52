package main

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
)

// checkFolder is a folder of modules that import each other: shared.units
// is imported by four files, lib by three, and every file is both named
// by the folder and reached as an import.
var checkFolder = map[string]string{
	"shared/units.caps": `(module shared.units (capsule "1")
  (type Grams U32)
  (function double (input (x I64)) (output I64) (body (* x 2))))
`,
	"lib.caps": `(module lib (capsule "1") (import shared.units)
  (function quad (input (x I64)) (output I64) (body (units.double (units.double x))))
  (example (quad 1) 4))
`,
	"app.caps": `(module app (capsule "1") (import shared.units) (import lib)
  (function f (input (g units.Grams)) (output I64) (body (lib.quad 2)))
  (function eight (output I64) (example (eight) 8) (body (lib.quad 2))))
`,
	"tool.caps": `(module tool (capsule "1") (import lib) (import app)
  (function g (output I64) (example (g) 16) (body (app.eight))))
`,
	"bad.caps": `(module bad (capsule "1") (import shared.units) (import lib)
  (function h (output Bool) (body (lib.quad 1))))
`,
	"more/deep.caps": `(module deep (capsule "1") (import shared.units)
  (function k (output I64) (body (units.double 3))))
`,
}

// TestCheckFolderChecksEachModuleOnce checks a folder whose files import
// each other: every module is loaded and checked exactly once in the run
// (a module is not checked again for each file importing it, nor when the
// folder names it after an import reached it), and the report is the one
// checking each file in a run of its own gives.
func TestCheckFolderChecksEachModuleOnce(t *testing.T) {
	dir := t.TempDir()
	for name, src := range checkFolder {
		writeFile(t, dir, name, src)
	}
	// imports of more/deep.caps resolve through CAPS_PATH
	t.Setenv(load.RootsEnv, dir)
	var mu sync.Mutex
	counts := map[string]int{}
	load.CheckHook = func(abs string) {
		mu.Lock()
		counts[abs]++
		mu.Unlock()
	}
	defer func() { load.CheckHook = nil }()

	folder := runCaps(t, "", "check", "--json", dir)
	want := map[string]int{}
	for name := range checkFolder {
		want[filepath.Join(dir, filepath.FromSlash(name))] = 1
	}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Fatalf("checks per file in one run of caps check DIR (-want +got):\n%s", diff)
	}
	if folder.code != 1 {
		t.Fatalf("exit %d, want 1 (bad.caps has an error): %s", folder.code, folder.stderr)
	}

	// the same report as checking each file alone
	type file struct {
		Path        string          `json:"path"`
		Hash        string          `json:"semantic_hash"`
		Diagnostics json.RawMessage `json:"diagnostics"`
	}
	var got struct{ Files []file }
	if err := json.Unmarshal([]byte(folder.stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, folder.stdout)
	}
	var alone []file
	var paths []string
	for name := range checkFolder {
		paths = append(paths, filepath.Join(dir, filepath.FromSlash(name)))
	}
	sort.Strings(paths)
	for _, p := range paths {
		r := runCaps(t, "", "check", "--json", p)
		var one struct{ Files []file }
		if err := json.Unmarshal([]byte(r.stdout), &one); err != nil || len(one.Files) != 1 {
			t.Fatalf("caps check --json %s: %v: %s", p, err, r.stdout)
		}
		alone = append(alone, one.Files[0])
	}
	sort.Slice(got.Files, func(i, j int) bool { return got.Files[i].Path < got.Files[j].Path })
	if diff := cmp.Diff(alone, got.Files, cmp.Transformer("json", func(m json.RawMessage) string { return string(m) })); diff != "" {
		t.Fatalf("caps check DIR differs from caps check FILE for each file (-alone +folder):\n%s", diff)
	}
	if !strings.Contains(folder.stdout, "E_TYPE_MISMATCH") {
		t.Fatalf("bad.caps's error is missing: %s", folder.stdout)
	}
}
