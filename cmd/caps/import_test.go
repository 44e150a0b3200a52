package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/codes"
)

// The two files of issue 19's import cycle.
const (
	cycleA = "(module a (capsule \"1.0\") (import b)\n  (function fa (input (x I64)) (output I64) (body (+ x 1))))\n"
	cycleB = "(module b (capsule \"1.0\") (import a)\n  (function fb (input (x I64)) (output I64) (body (+ x 2))))\n"
)

// TestImportCycleFromEntryFile (issue 19, item 4): both files of a
// two-file cycle get E_IMPORT_CYCLE on their import, with the other
// file's import as a related location, whichever file is named; call and
// hash report the cycle instead of running or hashing.
func TestImportCycleFromEntryFile(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("a.caps", []byte(cycleA), 0o644)
	os.WriteFile("b.caps", []byte(cycleB), 0o644)
	onA := "a.caps:1:35: error E_IMPORT_CYCLE: import cycle: a.caps -> b.caps -> a.caps\n" +
		"b.caps:1:35: note: b.caps imports a.caps here, closing the cycle\n"
	onB := "b.caps:1:35: error E_IMPORT_CYCLE: import cycle: b.caps -> a.caps -> b.caps\n" +
		"a.caps:1:35: note: a.caps imports b.caps here, closing the cycle\n"
	rng := `"range":{"start":{"line":0,"character":34},"end":{"line":0,"character":35}}`
	jsonA := `{"code":"E_IMPORT_CYCLE","severity":"error","message":"import cycle: a.caps -> b.caps -> a.caps",` + rng +
		`,"related":[{"path":"b.caps",` + rng + `,"message":"b.caps imports a.caps here, closing the cycle"}]}`
	jsonB := `{"code":"E_IMPORT_CYCLE","severity":"error","message":"import cycle: b.caps -> a.caps -> b.caps",` + rng +
		`,"related":[{"path":"a.caps",` + rng + `,"message":"a.caps imports b.caps here, closing the cycle"}]}`
	hashA, hashB := runCaps(t, "", "check", "--json", "a.caps"), runCaps(t, "", "check", "--json", "b.caps")
	semantic := func(r runResult) string {
		var v struct {
			Files []struct {
				Hash string `json:"semantic_hash"`
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || len(v.Files) != 1 {
			t.Fatalf("%v: %s", err, r.stdout)
		}
		return v.Files[0].Hash
	}
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"check", "a.caps"}, 1, "", onA},
		{[]string{"check", "b.caps"}, 1, "", onB},
		{[]string{"check", "b.caps", "a.caps"}, 1, "", onB + onA},
		{[]string{"check", "--json", "a.caps", "b.caps"}, 1,
			`{"ok":false,"files":[{"path":"a.caps","diagnostics":[` + jsonA + `],"semantic_hash":"` + semantic(hashA) + `"},` +
				`{"path":"b.caps","diagnostics":[` + jsonB + `],"semantic_hash":"` + semantic(hashB) + `"}]}` + "\n", ""},
		{[]string{"call", "a.caps", "fa", "x=1"}, 1, "", onA},
		{[]string{"hash", "a.caps"}, 1, "", onA},
		{[]string{"ir", "b.caps"}, 1, "", onB},
	}
	for _, tt := range tests {
		r := runCaps(t, "", tt.args...)
		if diff := cmp.Diff(runResult{tt.code, tt.stdout, tt.stderr}, r, cmp.AllowUnexported(runResult{})); diff != "" {
			t.Errorf("caps %s: (-want +got)\n%s", strings.Join(tt.args, " "), diff)
		}
	}
}

// TestSemanticHashIsHash (issue 19, item 4): the semantic_hash of check
// --json (and of agent-graph) is what caps hash prints, and it changes
// when an imported module changes.
func TestSemanticHashIsHash(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("main.caps", []byte(stdinMain), 0o644)
	hashes := func() (hash, checked, graph string) {
		t.Helper()
		h := runCaps(t, "", "hash", "main.caps")
		c := runCaps(t, "", "check", "--json", "main.caps")
		g := runCaps(t, "", "agent-graph", "--json", "main.caps")
		if h.code != 0 || c.code != 0 || g.code != 0 {
			t.Fatalf("hash %+v\ncheck %+v\nagent-graph %+v", h, c, g)
		}
		var cv struct {
			Files []struct {
				Hash string `json:"semantic_hash"`
			}
		}
		var gv struct {
			Files []struct {
				Graph struct {
					Hash string `json:"semantic_hash"`
				}
			}
		}
		json.Unmarshal([]byte(c.stdout), &cv)
		json.Unmarshal([]byte(g.stdout), &gv)
		return strings.TrimSpace(h.stdout), cv.Files[0].Hash, gv.Files[0].Graph.Hash
	}
	os.WriteFile("units.caps", []byte(stdinUnits), 0o644)
	h1, c1, g1 := hashes()
	if !strings.HasPrefix(h1, "sha256:") || c1 != h1 || g1 != h1 {
		t.Fatalf("caps hash %s, check --json %s, agent-graph %s", h1, c1, g1)
	}
	os.WriteFile("units.caps", []byte(strings.Replace(stdinUnits, "(* x 2)", "(+ x x)", 1)), 0o644)
	h2, c2, g2 := hashes()
	if h2 == h1 || c2 != h2 || g2 != h2 {
		t.Fatalf("after units changed: caps hash %s (was %s), check --json %s, agent-graph %s", h2, h1, c2, g2)
	}
}

// TestImportCycleDocExample: the E_IMPORT_CYCLE example of
// docs/diagnostics.md, copied with its modules onto CAPS_PATH as a user
// would, produces E_IMPORT_CYCLE from caps check.
func TestImportCycleDocExample(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	t.Setenv("CAPS_PATH", root)
	c := codes.Lookup("E_IMPORT_CYCLE")
	for name, src := range c.Modules {
		writeFile(t, root, filepath.FromSlash(strings.ReplaceAll(name, ".", "/"))+".caps", src)
	}
	writeFile(t, root, "library/branches.caps", c.Example)
	want := "library/branches.caps:3:11: error E_IMPORT_CYCLE: import cycle: branches.caps -> staff.caps -> branches.caps\n" +
		"library/staff.caps:3:11: note: staff.caps imports branches.caps here, closing the cycle\n"
	r := runCaps(t, "", "check", "library/branches.caps")
	if diff := cmp.Diff(runResult{1, "", want}, r, cmp.AllowUnexported(runResult{})); diff != "" {
		t.Errorf("caps check on the documented example: (-want +got)\n%s", diff)
	}
	writeFile(t, root, "library/branches.caps", c.Fixed)
	if r := runCaps(t, "", "check", "library/branches.caps"); r.code != 0 || r.stderr != "" {
		t.Errorf("caps check on the documented fix: %+v", r)
	}
}
