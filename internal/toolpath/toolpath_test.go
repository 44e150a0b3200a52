package toolpath

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLook(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"tool-a", "tool-b"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	t.Setenv("CAPS_TEST_TOOL", "")
	for _, tc := range []struct {
		env   string
		names []string
		want  string
	}{
		{"", []string{"missing", "tool-b", "tool-a"}, filepath.Join(dir, "tool-b")},
		{"", []string{"missing"}, ""},
		{"tool-a", []string{"tool-b"}, filepath.Join(dir, "tool-a")},
		{"missing", []string{"tool-b"}, ""}, // a variable that is set is not second-guessed
	} {
		t.Setenv("CAPS_TEST_TOOL", tc.env)
		if got := Look("CAPS_TEST_TOOL", tc.names...); got != tc.want {
			t.Errorf("CAPS_TEST_TOOL=%q %v: %q, want %q", tc.env, tc.names, got, tc.want)
		}
	}
}
