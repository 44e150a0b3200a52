package main

import (
	"bufio"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
)

// The command lines of the language specification, run as written.
//
// specCommandsFile lists every "caps ..." command line of the spec, with
// its section, in the spec's order. extractSpecCommands derives it from
// the spec's text; when the spec is available (CAPS_SPEC, or
// ../shared/reference beside the repository) TestSpecCommandsCurrent
// fails if the file has drifted from it (go test ./cmd/caps -run
// TestSpecCommandsCurrent -update rewrites it).
const specCommandsFile = "../../testdata/spec/commands.txt"

var updateSpec = flag.Bool("update", false, "rewrite testdata/spec/commands.txt from the spec")

// specExit lists the command lines that are meant to exit non-zero.
var specExit = map[string]int{
	// The spec's intentionally invalid example: its repair plan is
	// printed, and the exit code says the file has errors.
	"caps repair-plan --json examples/04_bad_missing_effect.caps": 1,
	// emit-noir leaves the private inputs of Prover.toml for the prover to
	// fill in (the spec gives none); executing without them is refused
	// with exit 2 and a message that says so.
	"caps noir-execute build/DeploymentRiskProof --json": 2,
}

// specNotOurs lists the example files the spec runs that other parts of
// the project ship (capsule contracts, protocol surfaces);
// until they land, the commands that read them are skipped.
var specNotOurs = map[string]bool{
	"examples/24_private_deployment_risk_proof.caps":   true,
	"examples/29_capsule_refund_reviewer.capsule.yaml": true,
	"examples/30_protocol_native_a2ui.caps":            true,
}

// specServers are commands that serve until stopped: never run here.
var specServers = map[string]bool{"serve-authoring-ui": true, "lsp": true}

func specPath() string {
	if p := os.Getenv("CAPS_SPEC"); p != "" {
		return p
	}
	return "../../../shared/reference/capsulang-spec-v0.7.txt"
}

var (
	sectionRE  = regexp.MustCompile(`^§ (\d+)$`)
	jsonCmdRE  = regexp.MustCompile(`"(caps [^"]+)"`)
	quotedRE   = regexp.MustCompile(`'[^']*'|"[^"]*"`)
	commandRE  = regexp.MustCompile(`^caps [a-z][a-z0-9-]*( |$)`)
	specLineRE = regexp.MustCompile(`^§(\d+) (caps .*)$`)
)

// extractSpecCommands returns "§N caps ..." for every command line of the
// spec: lines that start with "caps " (joined over trailing backslashes)
// and JSON strings holding one, leaving out prose (a comma outside
// quotes) and templates (<file>).
func extractSpecCommands(text string) []string {
	var out []string
	section := ""
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if m := sectionRE.FindStringSubmatch(line); m != nil {
			section = strings.TrimLeft(m[1], "0")
			continue
		}
		var cmds []string
		if strings.HasPrefix(line, "caps ") {
			for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
				i++
				line = strings.TrimSpace(strings.TrimSuffix(line, "\\")) + " " + strings.TrimSpace(lines[i])
			}
			cmds = append(cmds, strings.Join(strings.Fields(line), " "))
		} else {
			for _, m := range jsonCmdRE.FindAllStringSubmatch(line, -1) {
				cmds = append(cmds, m[1])
			}
		}
		for _, c := range cmds {
			bare := quotedRE.ReplaceAllString(c, "")
			if !commandRE.MatchString(c) || strings.Contains(bare, ",") || strings.Contains(c, "<") {
				continue
			}
			out = append(out, "§"+section+" "+c)
		}
	}
	return out
}

func readSpecCommands(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(specCommandsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestSpecCommandsCurrent keeps testdata/spec/commands.txt equal to what
// the spec's text runs.
func TestSpecCommandsCurrent(t *testing.T) {
	text, err := os.ReadFile(specPath())
	if err != nil {
		if os.Getenv("CI") == "true" && os.Getenv("CAPS_SPEC") != "" {
			t.Fatalf("CAPS_SPEC=%s: %v", os.Getenv("CAPS_SPEC"), err)
		}
		t.Skipf("the spec is not beside the repository (%v); set CAPS_SPEC to check %s against it", err, specCommandsFile)
	}
	got := extractSpecCommands(string(text))
	if *updateSpec {
		body := "# The caps command lines of the language specification, in its order, with\n# their sections. Generated from the spec's text by TestSpecCommandsCurrent\n# (go test ./cmd/caps -run TestSpecCommandsCurrent -update); do not edit.\n" + strings.Join(got, "\n") + "\n"
		os.MkdirAll(filepath.Dir(specCommandsFile), 0o755)
		if err := os.WriteFile(specCommandsFile, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readSpecCommands(t)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s is not what the spec runs; run go test ./cmd/caps -run TestSpecCommandsCurrent -update\nspec:\n%s", specCommandsFile, strings.Join(got, "\n"))
	}
	if len(got) < 40 {
		t.Errorf("only %d command lines extracted", len(got))
	}
}

// TestSpecCommands runs every command line of the spec whose command caps
// has, in the spec's order, in a scratch folder holding the repository's
// examples, and checks its exit code. Command lines of sections 20, 26 and
// 28 (the manifest's validation commands, the agent's daily loop and the
// quick start) must all run once their command exists.
func TestSpecCommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	lines := readSpecCommands(t)
	scratch := t.TempDir()
	for _, d := range []string{"examples", "testdata", "docs", "tools"} {
		if err := os.Symlink(filepath.Join(root, d), filepath.Join(scratch, d)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(scratch)
	// Doctor reads PATH: one that holds only the tools the spec's commands
	// run (z3 for verify-report, node for the Noir toolchain) makes its
	// report much the same anywhere.
	bin := t.TempDir()
	for _, tool := range []string{"z3", "node"} {
		if p, err := exec.LookPath(tool); err == nil {
			if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
				t.Fatal(err)
			}
		} else if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s is not on PATH: .ci/run installs it", tool)
		}
	}
	t.Setenv("PATH", bin)
	t.Setenv("CAPS_PATH", "")
	skippedOut := map[string]bool{} // outputs of skipped commands
	ran, unknown := 0, map[string]bool{}
	for _, l := range lines {
		m := specLineRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("%s: bad line %q", specCommandsFile, l)
		}
		section, line := m[1], m[2]
		args, _, err := shellWords(strings.TrimPrefix(line, "caps "))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		skip := ""
		switch {
		case specServers[args[0]]:
			skip = "a server, which runs until it is stopped"
		case cli.Lookup(args[0]) == nil:
			skip = "caps has no command " + args[0]
			unknown[args[0]] = true
		}
		for _, a := range args {
			if specNotOurs[a] {
				if _, err := os.Stat(a); err != nil {
					skip = a + " is not shipped yet"
				}
			}
			for out := range skippedOut {
				if a == out || strings.HasPrefix(a, out+"/") {
					skip = "reads " + out + ", which a skipped command writes"
				}
			}
			if strings.HasPrefix(a, "examples/") && !specNotOurs[a] {
				if _, err := os.Stat(a); err != nil {
					t.Errorf("§%s %s: %s does not exist", section, line, a)
				}
			}
		}
		if skip != "" {
			for k, a := range args {
				if (a == "--out" || a == "--out-dir") && k+1 < len(args) {
					skippedOut[args[k+1]] = true
				}
			}
			t.Logf("skip §%s %s: %s", section, line, skip)
			continue
		}
		ran++
		got := runCaps(t, "", args...)
		if want := specExit[line]; got.code != want {
			t.Errorf("§%s %s: exit %d, want %d\nstdout: %.600s\nstderr: %.600s", section, line, got.code, want, got.stdout, got.stderr)
		}
	}
	t.Logf("ran %d of %d command lines; commands caps does not have yet: %s", ran, len(lines), strings.Join(sortedKeys(unknown), " "))
	if ran < 25 {
		t.Errorf("only %d command lines ran", ran)
	}
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
