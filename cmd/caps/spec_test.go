package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shippedModules lists the modules under root/examples that must check
// cleanly: examples/*.caps and examples/lib/*.caps without the negative
// examples (NN_bad_*.caps).
func shippedModules(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"examples/*.caps", "examples/lib/*.caps"} {
		files, _ := filepath.Glob(filepath.Join(root, pat))
		for _, f := range files {
			if !strings.Contains(filepath.Base(f), "_bad_") {
				out = append(out, f)
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d shipped modules: %v", len(out), out)
	}
	return out
}

var expectLine = regexp.MustCompile(`(?m)^;; expect: (E_[A-Z_]+)$`)

// TestNegativeExamples: every examples/NN_bad_*.caps names the code it
// must fail with, and caps check fails with exactly that error.
func TestNegativeExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*_bad_*.caps")
	if len(files) == 0 {
		t.Fatal("no negative examples")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := expectLine.FindSubmatch(src)
		if m == nil {
			t.Errorf("%s: no ';; expect: CODE' line", f)
			continue
		}
		got := runCaps(t, "", "check", f)
		var codes []string
		for _, line := range strings.Split(strings.TrimSpace(got.stderr), "\n") {
			if _, rest, ok := strings.Cut(line, ": error "); ok {
				codes = append(codes, strings.SplitN(rest, ":", 2)[0])
			}
		}
		if got.code != 1 || len(codes) != 1 || codes[0] != string(m[1]) {
			t.Errorf("%s: want exit 1 with one %s error, got exit %d, errors %v\n%s", f, m[1], got.code, codes, got.stderr)
		}
	}
}
