package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompletionBash loads the bash script into a real bash and asks it
// for completions as the shell would.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		skipOrFailInCI(t, "bash not found: %v", err)
	}
	r := runCaps(t, "", "completion", "bash")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "caps.bash")
	os.WriteFile(script, []byte(r.stdout), 0o644)
	os.WriteFile(filepath.Join(dir, "gate.caps"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "gold.txt"), nil, 0o644)
	for _, tt := range []struct {
		words []string // the command line, the last word being completed
		want  []string
	}{
		{[]string{"caps", "ch"}, []string{"check"}},
		{[]string{"caps", "com"}, []string{"commit", "compile", "compile-backends", "compile-plan", "completion"}},
		{[]string{"caps", "check", "--j"}, []string{"--json"}},
		{[]string{"caps", "propose", "--q"}, []string{"--quiet"}},
		{[]string{"caps", "lsp", "--"}, []string{"--cpuprofile", "--debounce", "--log"}},
		{[]string{"caps", "help", "pars"}, []string{"parse"}},
		{[]string{"caps", "completion", ""}, []string{"bash", "fish", "zsh"}},
		{[]string{"caps", "check", "g"}, []string{"gate.caps", "gold.txt"}},
	} {
		line := "source " + script + "; COMP_WORDS=("
		for _, w := range tt.words {
			line += "'" + w + "' "
		}
		line += ")" + "; COMP_CWORD=" + strconv.Itoa(len(tt.words)-1) + "; _caps; printf '%s\\n' \"${COMPREPLY[@]}\""
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", line)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", tt.words, err, out)
		}
		got := strings.Fields(string(out))
		sort.Strings(got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.words, diff)
		}
	}
}

// TestCompletionShells checks that the zsh and fish scripts parse in their
// shells (zsh -n, fish --no-execute) and name every command and flag.
func TestCompletionShells(t *testing.T) {
	for _, tt := range []struct {
		shell string
		check []string
		want  []string
	}{
		{"zsh", []string{"-n"}, []string{"'check:", "'--json[print JSON on stdout]'", "'--log[write the server log to FILE instead of stderr]:file:_files'", "'--quiet[print only the proposal id]'"}},
		{"fish", []string{"--no-execute"}, []string{"-a check -d ", "'__fish_seen_subcommand_from lsp' -l log -r -F", "'__fish_seen_subcommand_from propose' -s q "}},
	} {
		t.Run(tt.shell, func(t *testing.T) {
			r := runCaps(t, "", "completion", tt.shell)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("the %s script lacks %q", tt.shell, w)
				}
			}
			bin, err := exec.LookPath(tt.shell)
			if err != nil {
				skipOrFailInCI(t, "%s not found, so its script is not parsed: %v", tt.shell, err)
			}
			f := filepath.Join(t.TempDir(), "caps."+tt.shell)
			os.WriteFile(f, []byte(r.stdout), 0o644)
			if out, err := exec.Command(bin, append(tt.check, f)...).CombinedOutput(); err != nil {
				t.Errorf("%s %v: %v\n%s", tt.shell, tt.check, err, out)
			}
		})
	}
	r := runCaps(t, "", "completion", "tcsh")
	if r.code != 2 || !strings.HasPrefix(r.stderr, `caps completion: unknown shell "tcsh"; expected bash, zsh or fish`) {
		t.Errorf("tcsh: exit %d, stderr %q", r.code, r.stderr)
	}
}
