// Package testutil holds helpers shared by the codegen tests: loading
// example modules, and finding the external tools that some tests need.
package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	shared "github.com/capsulang/caps/internal/testutil"
	"github.com/capsulang/caps/internal/toolpath"
)

// Root returns the repository root.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Examples lists examples/*.caps.
func Examples(t testing.TB) []string {
	all, err := filepath.Glob(filepath.Join(Root(), "examples", "*.caps"))
	if err != nil || len(all) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	// Negative examples (NN_bad_*.caps) are meant to fail the checker.
	var paths []string
	for _, p := range all {
		if !strings.Contains(filepath.Base(p), "_bad_") {
			paths = append(paths, p)
		}
	}
	return paths
}

// Load loads and checks a file; it fails the test on errors.
func Load(t testing.TB, path string) *load.Package {
	t.Helper()
	return shared.Load(t, path)
}

// LoadSource checks src as a module; it fails the test on errors.
func LoadSource(t testing.TB, src string) *load.Package {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.caps")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg, err := (&load.Loader{}).Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if pkg.Result.HasErrors() {
		var msgs []string
		for _, d := range pkg.Result.Diagnostics {
			msgs = append(msgs, fmt.Sprintf("%q: %s", src[d.Span.Start:d.Span.End], d.Message))
		}
		t.Fatalf("generated module has errors:\n%s\n%s", strings.Join(msgs, "\n"), src)
	}
	return pkg
}

// InCI reports whether the tests run in CI (CI=true), where a missing
// external tool is a failure rather than a skip.
func InCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "true", "1", "yes":
		return true
	}
	return false
}

// Tool finds an external tool: the environment variable env if set, else
// the first of names on PATH. Without it the test fails under CI and is
// skipped elsewhere, with a message naming the tool and its package.
func Tool(t testing.TB, env, pkg string, names ...string) string {
	t.Helper()
	if p := LookTool(env, names...); p != "" {
		return p
	}
	msg := "needs " + strings.Join(names, " or ") + " (Debian package " + pkg + "; or set " + env + ")"
	if InCI() {
		t.Fatalf("CI=true and %s is missing: this test %s", names[0], msg)
	}
	t.Skipf("skipping: this test %s", msg)
	return ""
}

// LookTool finds a tool as Tool does, returning "" when absent.
func LookTool(env string, names ...string) string { return toolpath.Look(env, names...) }

// ScenarioExample returns the example a scenario of examples/scenarios
// runs against: examples/MODULE.caps for MODULE.MACHINE.json, else the one
// example that declares the machine (for a scenario the spec names, such
// as change_approval_happy_path.json).
func ScenarioExample(t testing.TB, scenarioFile, machine string) string {
	t.Helper()
	p := filepath.Join(Root(), "examples", strings.SplitN(filepath.Base(scenarioFile), ".", 2)[0]+".caps")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	var found []string
	for _, f := range Examples(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "(machine "+machine+"\n") {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: machine %s is declared by %d examples (%v); name the scenario MODULE.MACHINE.json", scenarioFile, machine, len(found), found)
	}
	return found[0]
}
