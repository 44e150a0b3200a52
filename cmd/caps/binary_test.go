package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestBinary builds the real caps binary once, with a version stamped in
// through -ldflags as the Makefile can, and runs it as a subprocess: the
// exit codes must reach the shell.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	// go test puts its own GOROOT/bin first on PATH.
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build with")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "caps")
	build := exec.Command(gobin, "build", "-ldflags=-X main.version=9.8.7-test", "-o", exe, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	capsRun := func(args ...string) (int, string, string) {
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("caps %v: %v", args, err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errb.String()
	}

	code, out, errs := capsRun("version")
	want := regexp.MustCompile(`^caps 9\.8\.7-test \(go1\.[0-9]+[^ ,]*, tree-sitter ABI 14\)\n$`)
	if code != 0 || !want.MatchString(out) || errs != "" {
		t.Errorf("caps version: %d %q %q", code, out, errs)
	}
	if code, _, errs := capsRun("parse", "missing.caps"); code != 2 || errs != "caps: missing.caps: no such file\n" {
		t.Errorf("caps parse missing.caps: %d %q", code, errs)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.caps"), []byte("(a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := capsRun("parse", "bad.caps"); code != 1 {
		t.Errorf("caps parse bad.caps: exit %d, want 1", code)
	}
	if code, _, _ := capsRun(); code != 2 {
		t.Errorf("caps: exit %d, want 2", code)
	}
}

// TestTreeSitterABI keeps the ABI printed by 'caps version' in step with
// the generated parser.
func TestTreeSitterABI(t *testing.T) {
	src, err := os.ReadFile("../../tree-sitter-capsulang/src/parser.c")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^#define LANGUAGE_VERSION (\d+)$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no LANGUAGE_VERSION in parser.c")
	}
	if abi, _ := strconv.Atoi(string(m[1])); abi != treeSitterABI {
		t.Errorf("parser.c has ABI %d, caps version says %d", abi, treeSitterABI)
	}
}
