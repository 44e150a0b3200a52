package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotFoundNamesEachPlaceOnce imports a missing module from a file in a
// folder that is also an import root (a language server's workspace
// folder): the error lists the one place looked at once (it listed it
// twice, once as the file's folder and once as the root).
func TestNotFoundNamesEachPlaceOnce(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app.caps")
	if err := os.WriteFile(app, []byte("(module app\n  (capsule \"1\")\n  (import nowhere))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Loader{Roots: []string{dir}}
	p, err := l.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	want := "module nowhere not found (looked for " + filepath.Join(dir, "nowhere.caps") + ")"
	var got []string
	for _, d := range p.Result.Diagnostics {
		got = append(got, d.Message)
	}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("diagnostics %q, want [%q]", strings.Join(got, "; "), want)
	}
}
