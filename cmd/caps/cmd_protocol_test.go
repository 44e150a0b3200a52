package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/codes"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
)

var updateProtocol = flag.Bool("update-protocol", false, "rewrite the golden files in testdata/protocol")

// protocolExample is the spec's protocol-native example.
const protocolExample = "examples/30_protocol_native_a2ui.caps"

// runInRoot runs caps in the repository root, so that paths in the output
// are the ones a user sees.
func runInRoot(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	if wd, _ := os.Getwd(); wd != repoRootDir {
		t.Chdir(repoRootDir)
	}
	return runCG(t, args...)
}

// repoRootDir is the repository root, found from the test's starting
// folder (cmd/caps).
var repoRootDir, _ = filepath.Abs("../..")

// TestProtocolGoldens compares the output of the protocol commands, text
// and JSON, with testdata/protocol; -update-protocol rewrites them.
func TestProtocolGoldens(t *testing.T) {
	data := `{"repo":"advatar/Capsulang","approved":false}`
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"protocol-plan.txt", []string{"protocol-plan", protocolExample}, 0},
		{"protocol-plan.json", []string{"protocol-plan", "--json", protocolExample}, 0},
		{"protocol-plan.protocol_surface.json", []string{"protocol-plan", "--json", "examples/protocol_surface.caps"}, 0},
		{"a2ui-manifest.txt", []string{"a2ui-manifest", protocolExample}, 0},
		{"a2ui-manifest.json", []string{"a2ui-manifest", "--json", protocolExample}, 0},
		{"a2ui-manifest.release_approval.json", []string{"a2ui-manifest", "--json", "examples/release_approval.caps"}, 0},
		{"a2ui-envelope.create.json", []string{"a2ui-envelope", protocolExample, "repo_review_ui", "--kind", "create", "--json"}, 0},
		{"a2ui-envelope.data.json", []string{"a2ui-envelope", protocolExample, "repo_review_ui", "--kind", "data", "--data", data, "--json"}, 0},
		{"a2ui-envelope.stream.jsonl", []string{"a2ui-envelope", "--kind", "stream", protocolExample, "repo_review_ui"}, 0},
		{"a2ui-envelope.delete.jsonl", []string{"a2ui-envelope", "--kind", "delete", protocolExample, "repo_review_ui"}, 0},
		{"a2ui-envelope.bound-context.jsonl", []string{"a2ui-envelope", "--kind", "data", "--data", `{"state":"live","approvals":2,"migration_id":"88"}`, "examples/release_approval.caps", "migration_signoff"}, 0},
		{"a2ui-envelope.bad-type.txt", []string{"a2ui-envelope", "--kind", "data", "--data", `{"repo":"x","approved":"yes"}`, protocolExample, "repo_review_ui"}, 1},
		{"a2ui-envelope.bad-type.json", []string{"a2ui-envelope", "--json", "--kind", "data", "--data", `{"repo":"x","approved":"yes"}`, protocolExample, "repo_review_ui"}, 1},
		{"a2ui-envelope.bad-field.txt", []string{"a2ui-envelope", "--kind", "data", "--data", `{"aproved":true}`, protocolExample, "repo_review_ui"}, 1},
		{"a2ui-envelope.bad-state.txt", []string{"a2ui-envelope", "--kind", "data", "--data", `{"state":"flying"}`, "examples/release_approval.caps", "migration_signoff"}, 1},
		{"a2ui-envelope.unknown-surface.txt", []string{"a2ui-envelope", "--kind", "create", protocolExample, "repo_reviw_ui"}, 1},
		{"a2ui-envelope.unknown-surface.json", []string{"a2ui-envelope", "--json", "--kind", "create", protocolExample, "repo_reviw_ui"}, 1},
		{"architecture-plan.txt", []string{"architecture-plan", protocolExample}, 0},
		{"architecture-plan.json", []string{"architecture-plan", "--json", protocolExample}, 0},
		{"architecture-plan.mmd", []string{"architecture-plan", "--kind", "mermaid", protocolExample}, 0},
		{"architecture-plan.release_approval.mmd", []string{"architecture-plan", "--kind", "mermaid", "examples/release_approval.caps"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runInRoot(t, tc.args...)
			if code != tc.code {
				t.Fatalf("caps %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(tc.args, " "), code, tc.code, out, errOut)
			}
			got := out + errOut
			if strings.HasSuffix(tc.name, ".json") {
				if !json.Valid([]byte(out)) {
					t.Fatalf("stdout is not JSON: %s", out)
				}
				got = out
			}
			path := filepath.Join("testdata", "protocol", tc.name)
			if *updateProtocol {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/caps -run TestProtocolGoldens -update-protocol)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s differs (-want +got); run go test ./cmd/caps -run TestProtocolGoldens -update-protocol and review:\n%s", path, diff)
			}
		})
	}
}

// TestProtocolDeterministic: the same module and arguments give the same
// bytes, run after run.
func TestProtocolDeterministic(t *testing.T) {
	for _, args := range [][]string{
		{"protocol-plan", "--json", protocolExample},
		{"a2ui-manifest", "--json", protocolExample},
		{"a2ui-envelope", "--kind", "stream", protocolExample, "repo_review_ui"},
		{"architecture-plan", "--kind", "mermaid", protocolExample},
	} {
		first, _, _ := runInRoot(t, args...)
		for i := 0; i < 5; i++ {
			if again, _, _ := runInRoot(t, args...); again != first {
				t.Fatalf("caps %s is not deterministic:\n%s\n---\n%s", strings.Join(args, " "), first, again)
			}
		}
	}
}

// TestProtocolEnvelopeMessages checks the A2UI v0.9 shape of every
// message: the version and exactly one message key, whose object names
// the surface.
func TestProtocolEnvelopeMessages(t *testing.T) {
	out, errOut, code := runInRoot(t, "a2ui-envelope", "--kind", "stream", protocolExample, "repo_review_ui")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var keys []string
	for _, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if string(m["version"]) != `"v0.9"` || len(m) != 2 {
			t.Errorf("message %s: want version v0.9 and one message key", l)
		}
		for k, v := range m {
			if k == "version" {
				continue
			}
			keys = append(keys, k)
			var body struct {
				SurfaceID string `json:"surfaceId"`
			}
			if err := json.Unmarshal(v, &body); err != nil || body.SurfaceID != "repo_review_ui" {
				t.Errorf("%s: surfaceId %q, want repo_review_ui", k, body.SurfaceID)
			}
		}
	}
	if diff := cmp.Diff([]string{"createSurface", "updateComponents", "updateDataModel"}, keys); diff != "" {
		t.Errorf("message kinds (-want +got):\n%s", diff)
	}
	// every child a component names exists, and root is among them
	var uc struct {
		UpdateComponents struct {
			Components []struct {
				ID       string   `json:"id"`
				Child    string   `json:"child"`
				Children []string `json:"children"`
			} `json:"components"`
		} `json:"updateComponents"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &uc); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range uc.UpdateComponents.Components {
		if ids[c.ID] {
			t.Errorf("component id %s is used twice", c.ID)
		}
		ids[c.ID] = true
	}
	if !ids["root"] {
		t.Error("no root component")
	}
	for _, c := range uc.UpdateComponents.Components {
		for _, ch := range append(c.Children, c.Child) {
			if ch != "" && !ids[ch] {
				t.Errorf("component %s names child %s, which does not exist", c.ID, ch)
			}
		}
	}
}

// TestProtocolUsage checks the usage errors of the protocol commands.
func TestProtocolUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"a2ui-envelope", protocolExample, "repo_review_ui"}, "caps a2ui-envelope: --kind is required (one of create, components, data, delete, stream)\n"},
		{[]string{"a2ui-envelope", "--kind", "update", protocolExample, "repo_review_ui"}, "caps a2ui-envelope: unknown --kind \"update\"; kinds are create, components, data, delete, stream\n"},
		{[]string{"a2ui-envelope", "--kind", "create", "--data", "{}", protocolExample, "repo_review_ui"}, "caps a2ui-envelope: --data goes with --kind data, not --kind create\n"},
		{[]string{"a2ui-envelope", "--kind", "create", protocolExample}, "caps a2ui-envelope: expected FILE and SURFACE\n"},
		{[]string{"architecture-plan", "--kind", "dot", protocolExample}, "caps architecture-plan: --kind is summary or mermaid, not \"dot\"\n"},
		{[]string{"architecture-plan", "--json", "--kind", "mermaid", protocolExample}, "caps architecture-plan: --json prints the plan as JSON; leave out --kind mermaid\n"},
		{[]string{"protocol-plan"}, "caps protocol-plan: expected one FILE\n"},
		{[]string{"a2ui-manifest", "a.caps", "b.caps"}, "caps a2ui-manifest: expected one FILE\n"},
	} {
		out, errOut, code := runInRoot(t, tc.args...)
		if code != cli.ExitUsage || out != "" {
			t.Errorf("caps %s: exit %d, stdout %q; want exit 2 and no stdout", strings.Join(tc.args, " "), code, out)
		}
		if first, _, _ := strings.Cut(errOut, "usage:"); first != tc.stderr {
			t.Errorf("caps %s: stderr %q, want %q", strings.Join(tc.args, " "), first, tc.stderr)
		}
	}
}

// TestProtocolBadModule: a module with errors gets its diagnostics and
// exit 1 from every protocol command, and nothing else on stdout.
func TestProtocolBadModule(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.caps")
	src := "(module bad\n  (capsule \"1.0.0\")\n  (profile ui.a2ui)\n  (surface s\n    (bind Nope)))\n"
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"protocol-plan", bad}, {"a2ui-manifest", bad}, {"a2ui-envelope", "--kind", "create", bad, "s"}, {"architecture-plan", bad}, {"architecture-plan", "--kind", "mermaid", bad},
	} {
		out, errOut, code := runCG(t, args...)
		if code != cli.ExitFail || out != "" || !strings.Contains(errOut, "error E_UNKNOWN_NAME: unknown machine `Nope`") {
			t.Errorf("caps %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errOut)
		}
	}
	out, _, code := runCG(t, "a2ui-envelope", "--json", "--kind", "create", filepath.Join(dir, "missing.caps"), "s")
	if code != cli.ExitUsage || !strings.Contains(out, `"ok":false`) {
		t.Errorf("missing file: exit %d, stdout %s", code, out)
	}
}

// TestCommandCodes runs the invocations of every command code of
// analysis/codes/codes.json on its example: the command reports exactly
// that code and exits 1, and the fixed invocation succeeds.
func TestCommandCodes(t *testing.T) {
	n := 0
	for _, c := range codes.All() {
		if c.Source != codes.SourceCommand {
			continue
		}
		n++
		t.Run(c.Code, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.WriteFile("example.caps", []byte(c.Example), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{c.Command[0], "--json"}, c.Command[1:]...)
			out, errOut, code := runCG(t, args...)
			if code != cli.ExitFail {
				t.Fatalf("%s: exit %d, want 1\n%s%s", codes.ShellCommand(c.Command), code, out, errOut)
			}
			var res struct {
				Files []struct {
					Diagnostics []struct {
						Code string `json:"code"`
					} `json:"diagnostics"`
				} `json:"files"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Files {
				for _, d := range f.Diagnostics {
					got = append(got, d.Code)
				}
			}
			if diff := cmp.Diff([]string{c.Code}, got); diff != "" {
				t.Errorf("%s: codes (-want +got):\n%s", codes.ShellCommand(c.Command), diff)
			}
			if out, errOut, code := runCG(t, c.FixedCommand...); code != cli.ExitOK {
				t.Errorf("%s: exit %d, want 0\n%s%s", codes.ShellCommand(c.FixedCommand), code, out, errOut)
			}
		})
	}
	if n == 0 {
		t.Fatal("no command codes in codes.json")
	}
}

// TestCompileReact: compile --target react writes the bundle as a folder
// (the files of codegen/react, byte for byte as the goldens), replaces a
// folder it wrote before, and refuses stdout, a file and a folder it did
// not write, leaving them as they were.
func TestCompileReact(t *testing.T) {
	example := filepath.Join(repoRootDir, protocolExample)
	t.Chdir(t.TempDir())
	out, errOut, code := runCG(t, "compile", "--target", "react", example, "--out", "build/repo-review-react", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	var res struct {
		Files []struct {
			Outputs []struct {
				Path  string `json:"path"`
				Bytes int    `json:"bytes"`
			} `json:"outputs"`
			Compiled []string `json:"compiled"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Files) != 1 || len(res.Files[0].Outputs) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	if o := res.Files[0].Outputs[0]; o.Path != "build/repo-review-react" || fmt.Sprint(res.Files[0].Compiled) != "[repo_review_ui]" {
		t.Errorf("outputs %+v compiled %v", o, res.Files[0].Compiled)
	}
	var got []string
	total := 0
	filepath.WalkDir("build", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel("build/repo-review-react", p)
			got = append(got, filepath.ToSlash(rel))
			b, _ := os.ReadFile(p)
			total += len(b)
			want, err := os.ReadFile(filepath.Join(repoRootDir, "testdata", "react", "30_protocol_native_a2ui", rel))
			if err != nil || !bytes.Equal(b, want) {
				t.Errorf("%s differs from testdata/react/30_protocol_native_a2ui/%s (%v)", p, rel, err)
			}
		}
		return nil
	})
	want := []string{"fixtures/repo_review_ui.jsonl", "manifest.json", "package.json", "protocol-plan.json", "src/a2ui.ts", "src/index.ts", "src/repo_review_ui.tsx", "src/types.ts", "tsconfig.json"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if total != res.Files[0].Outputs[0].Bytes {
		t.Errorf("bytes %d, files hold %d", res.Files[0].Outputs[0].Bytes, total)
	}
	// again: the folder is replaced, and nothing is left beside it
	if _, errOut, code := runCG(t, "compile", "--target", "react", example, "--out", "build/repo-review-react"); code != 0 || errOut != "caps: wrote build/repo-review-react (34575 bytes; 1 compiled, 0 skipped)\n" {
		t.Errorf("second run: exit %d, %q", code, errOut)
	}
	if entries, _ := os.ReadDir("build"); len(entries) != 1 {
		t.Errorf("build holds %d entries, want 1", len(entries))
	}
	// refusals
	os.WriteFile("file", []byte("keep"), 0o644)
	os.MkdirAll("mine", 0o755)
	os.WriteFile("mine/notes.txt", []byte("keep"), 0o644)
	for _, tc := range []struct {
		out, stderr string
		code        int
	}{
		{"-", "caps compile: --target react writes a folder; give --out DIR\n", 2},
		{"file", "caps: --out file is a file; give a folder\n", 2},
		{"mine", "caps: --out mine is a folder that caps did not write (no manifest.json); give a new or empty folder\n", 2},
	} {
		_, errOut, code := runCG(t, "compile", "--target", "react", example, "--out", tc.out)
		if first, _, _ := strings.Cut(errOut, "usage:"); code != tc.code || first != tc.stderr {
			t.Errorf("--out %s: exit %d, stderr %q; want %d, %q", tc.out, code, errOut, tc.code, tc.stderr)
		}
	}
	if b, _ := os.ReadFile("file"); string(b) != "keep" {
		t.Error("the file was changed")
	}
	if entries, _ := os.ReadDir("mine"); len(entries) != 1 {
		t.Error("the folder was changed")
	}
	// a module without surfaces
	_, errOut, code = runCG(t, "compile", "--target", "react", filepath.Join(repoRootDir, "examples", "abs.caps"), "--out", "abs")
	if code != 1 || !strings.Contains(errOut, "nothing to compile for react: the module declares no surface") {
		t.Errorf("abs: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat("abs"); err == nil {
		t.Error("abs was written")
	}
}

// TestSpecProtocolCommands runs the commands of spec §09, §23 and §28 on
// examples/30_protocol_native_a2ui.caps as the spec writes them: each
// succeeds and prints one JSON document that says ok.
func TestSpecProtocolCommands(t *testing.T) {
	example := filepath.Join(repoRootDir, protocolExample)
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"check", example, "--json"},
		{"protocol-plan", example, "--json"},
		{"a2ui-manifest", example, "--json"},
		{"a2ui-envelope", example, "repo_review_ui", "--kind", "data", "--data", `{"repo":"advatar/Capsulang","approved":false}`, "--json"},
		{"a2ui-envelope", example, "repo_review_ui", "--kind", "create", "--json"},
		{"compile", "--target", "react", example, "--out", "build/repo-review-react", "--json"},
	} {
		out, errOut, code := runCG(t, args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, `{"ok":true,`) || !json.Valid([]byte(out)) {
			t.Errorf("caps %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
		}
	}
}
