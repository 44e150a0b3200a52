package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// doctorPath makes a folder of fake tools, puts only it on PATH and clears
// the variables that override the lookup.
func doctorPath(t *testing.T, tools map[string]string) string {
	t.Helper()
	bin := t.TempDir()
	for name, script := range tools {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	for _, tl := range doctorTools {
		t.Setenv(tl.env, "")
	}
	t.Setenv("CAPS_PATH", "")
	t.Chdir(t.TempDir()) // outside the repository: xstate is not checked
	return bin
}

func TestDoctorControlledPath(t *testing.T) {
	bin := doctorPath(t, map[string]string{
		"wat2wasm": `echo "1.0.34"`,
		"nvim":     `echo "NVIM v0.9.5"; echo "Build type: Release"`,
		"node":     `echo v22.1.0`,
		"docker":   `echo "docker: 'compose' is not a docker command." >&2; exit 1`,
		"z3":       `echo "Z3 version 4.12.2 - 64 bit"`,
	})
	got := runCaps(t, "", "doctor", "--json")
	if got.code != 1 || got.stderr != "" {
		t.Fatalf("exit %d (want 1: nvim is too old)\n%s%s", got.code, got.stdout, got.stderr)
	}
	var rep doctorJSON
	if err := json.Unmarshal([]byte(got.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	type row struct{ Name, Status, Path, Version, Detail string }
	var rows []row
	for _, ch := range rep.Checks {
		if ch.Status != "ok" && ch.Status != "info" && ch.Fix == "" {
			t.Errorf("%s is %s without a fix", ch.Name, ch.Status)
		}
		rows = append(rows, row{ch.Name, ch.Status, ch.Path, ch.Version, ch.Detail})
	}
	p := func(n string) string { return filepath.Join(bin, n) }
	want := []row{
		{"parser and checker", "ok", "", "tree-sitter ABI 14", ""},
		{"wat2wasm", "ok", p("wat2wasm"), "1.0.34", ""},
		{"wasm-validate", "missing", "", "", ""},
		{"riscv64-as", "missing", "", "", ""},
		{"riscv64-ld", "missing", "", "", ""},
		{"qemu-riscv64", "missing", "", "", ""},
		{"node", "ok", p("node"), "22.1.0", ""},
		{"npm", "missing", "", "", ""},
		{"xstate", "info", "", "", "not checked: the current folder is not in the caps repository"},
		{"tree-sitter", "missing", "", "", ""},
		{"nvim", "problem", p("nvim"), "0.9.5", "version 0.9.5 is older than 0.10"},
		{"cc", "missing", "", "", ""},
		{"docker-compose", "missing", p("docker"), "", "docker is installed but its compose plugin is not"},
		{"z3", "ok", p("z3"), "4.12.2", ""},
		{"bb.js proving", "info", "", "", noirProving.Detail},
		{"CAPS_PATH", "info", "", "", "not set: imports resolve next to the importing file only"},
		{"workspace .caps", "info", "", "", "no .caps folder here (caps propose creates one)"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("checks (-want +got)\n%s", diff)
	}
	if rep.OK || rep.Problems != 1 {
		t.Errorf("ok %v, problems %d; want false, 1", rep.OK, rep.Problems)
	}
}

func TestDoctorText(t *testing.T) {
	doctorPath(t, map[string]string{"node": `echo v18.0.0`})
	os.MkdirAll(".caps/txn/1", 0o755)
	missingRoot := filepath.Join(t.TempDir(), "nowhere")
	t.Setenv("CAPS_PATH", missingRoot)
	got := runCaps(t, "", "doctor")
	if got.code != 1 || got.stderr != "" {
		t.Fatalf("%+v", got)
	}
	lines := strings.Split(got.stdout, "\n")
	for _, want := range []string{
		"problem  node               18.0.0 " + os.Getenv("PATH") + "/node (version 18.0.0 is older than 20)",
		"         fix: install Node.js 20 or later (apt-get install nodejs, or nodejs.org)",
		"missing  wat2wasm",
		"         fix: apt-get install wabt (or set WAT2WASM)",
		"problem  CAPS_PATH root     " + missingRoot + " (not a folder)",
		"         fix: create " + missingRoot + " or remove it from CAPS_PATH",
		"problem  workspace .caps    .caps (1 unfinished transaction(s) in .caps/txn)",
		"         fix: the next caps propose, commit or rollback here finishes the interrupted commit before it writes",
		"3 problems, 11 optional tools missing",
	} {
		found := false
		for _, l := range lines {
			if l == want {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q in\n%s", want, got.stdout)
		}
	}
	if got := runCaps(t, "", "doctor", "extra"); got.code != 2 {
		t.Errorf("an argument: %+v", got)
	}
}
