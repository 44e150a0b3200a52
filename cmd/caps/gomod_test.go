package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGoModTidy keeps go.mod and go.sum tidy: `go mod tidy -diff` must
// print nothing (direct dependencies such as go.lsp.dev/protocol are not
// marked indirect, no requirement is missing or unused). When go cannot
// get the module graph (offline, without the modules in the cache) the
// test is skipped, except under CI=true, where that is a failure.
func TestGoModTidy(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: runs go mod tidy")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			skipOrFailInCI(t, "the go command is not available: %v", err)
		}
	}
	cmd := exec.Command(goBin, "mod", "tidy", "-diff")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	switch {
	case err == nil:
		return
	case strings.HasPrefix(string(out), "diff "):
		t.Fatalf("go.mod or go.sum is not tidy; run `go mod tidy` and commit the result:\n%s", out)
	default:
		skipOrFailInCI(t, "go mod tidy -diff could not run (offline?): %v\n%s", err, out)
	}
}

// skipOrFailInCI skips the test with the message, or fails it under
// CI=true, where every test must run.
func skipOrFailInCI(t *testing.T, format string, args ...any) {
	t.Helper()
	switch os.Getenv("CI") {
	case "true", "1", "yes":
		t.Fatalf("CI: "+format, args...)
	}
	t.Skipf(format, args...)
}
