// Package hosttest holds what the real-host editor tests share: the caps
// binary they give each editor, the fixture they open, and finding the
// editors and tools, which under CI=true must be there.
//
// The tests themselves live beside each client: editors/nvim (Neovim
// full-screen under tmux), editors/emacs (Emacs 30 with eglot) and
// editors/vscode/host (code-server driven through Chromium).
//
// CAPS_HOSTTEST_SERVER, when set, is the language server command the
// editors start instead of the caps built from this tree (it is run with
// the argument "lsp"). It exists to show that the tests fail when the
// server misbehaves: testdata/drop-diagnostics.py relays caps lsp but
// drops every diagnostic.
package hosttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Root is the repository root.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// InCI reports whether CI=true (or 1, yes): a missing tool is then a
// failure, not a skip.
func InCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "true", "1", "yes":
		return true
	}
	return false
}

// Missing fails the test under CI and skips it elsewhere.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI=true: "+format, args...)
	}
	t.Skipf(format, args...)
}

// Tool finds a program: the environment variable env when set, else the
// first of names on PATH; without it the test fails in CI and is skipped
// elsewhere, with a message naming how .ci/run installs it.
func Tool(t testing.TB, env, install string, names ...string) string {
	t.Helper()
	if v := os.Getenv(env); v != "" {
		if p, err := exec.LookPath(v); err == nil {
			return p
		}
		Missing(t, "%s=%s is not an executable", env, v)
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	Missing(t, "%s not found (%s; or set %s)", names[0], install, env)
	return ""
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
	buildOut  []byte
)

// Server returns the language server binary the editor should start
// (with the argument "lsp"): CAPS_HOSTTEST_SERVER when set, else a caps
// built from this tree once per test process.
func Server(t testing.TB) string {
	t.Helper()
	if s := os.Getenv("CAPS_HOSTTEST_SERVER"); s != "" {
		p, err := filepath.Abs(s)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("CAPS_HOSTTEST_SERVER: using %s instead of caps", p)
		return p
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "caps-hosttest-")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "caps")
		cmd := exec.Command("go", "build", "-o", built, "./cmd/caps")
		cmd.Dir = Root()
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building caps: %v\n%s", buildErr, buildOut)
	}
	return built
}

// Workspace copies the fixture (testdata/claims.caps) into a new folder
// and returns the folder and the file's path. The fixture has one error,
// E_UNKNOWN_STATE on `scord` (line 19, column 26), whose quick fix is
// `scored`, a function with an example, and a machine.
func Workspace(t testing.TB) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	b, err := os.ReadFile(filepath.Join(Root(), "editors", "hosttest", "testdata", "claims.caps"))
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "claims.caps")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// Fixture facts the tests check.
const (
	DiagnosticMessage = "unknown state `scord` in machine Claim; did you mean `scored`?"
	DiagnosticCode    = "E_UNKNOWN_STATE"
	DiagnosticLine    = 19 // 1-based
	DiagnosticColumn  = 26 // 1-based
	FixTitle          = "Change `scord` to `scored`"
)
