package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stdinUnits is a module in the current folder that stdinMain imports.
const stdinUnits = `(module units
  (capsule "1.0")
  (function double (input (x I64)) (output I64) (body (* x 2))))
`

// stdinMain imports units from the current folder, has a function with an
// example and a machine, so that every command has something to print.
const stdinMain = `(module main
  (capsule "1.0")
  (import units)
  (function quad
    (input (x I64))
    (output I64)
    (body (units.double (units.double x)))
    (example (quad 2) 8))
  (function inc (input (x I64)) (output I64) (body (+ x 1)))
  (machine Lamp
    (event Toggle)
    (initial off)
    (state off (on Toggle (target on)))
    (state on (on Toggle (target off)))))
`

// TestStdinEveryFileCommand: every command that takes a FILE reads "-"
// from standard input, with the same exit code and output as for the file
// (its path shown as <stdin>, "-" in JSON), and imports from standard
// input resolve in the current folder.
func TestStdinEveryFileCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	for name, src := range map[string]string{"units.caps": stdinUnits, "main.caps": stdinMain} {
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args []string // FILE is the file argument
		code int
	}{
		{[]string{"check", "FILE"}, 0},
		{[]string{"check", "--json", "FILE"}, 0},
		{[]string{"ir", "FILE"}, 0},
		{[]string{"ir", "--compact", "FILE"}, 0},
		{[]string{"hash", "FILE"}, 0},
		{[]string{"hash", "--json", "FILE"}, 0},
		{[]string{"repair-plan", "FILE"}, 0},
		{[]string{"repair-plan", "--json", "FILE"}, 0},
		{[]string{"agent-graph", "--json", "FILE"}, 0},
		{[]string{"call", "FILE", "quad", "x=3"}, 0},
		{[]string{"test", "FILE"}, 0},
		{[]string{"parse", "FILE"}, 0},
		{[]string{"fmt", "FILE"}, 0},
		{[]string{"compile", "--target", "wat", "FILE", "--out", "-"}, 0},
		{[]string{"compile-plan", "FILE"}, 0},
		{[]string{"release-preview", "--json", "FILE"}, 0},
		{[]string{"visualize", "FILE"}, 0},
		{[]string{"machine-run", "FILE", "Lamp", "Toggle"}, 0},
		{[]string{"protocol-plan", "FILE"}, 0},
		{[]string{"protocol-plan", "--json", "FILE"}, 0},
		{[]string{"a2ui-manifest", "--json", "FILE"}, 0},
		{[]string{"a2ui-envelope", "--kind", "create", "FILE", "lamp_ui"}, 1},
		{[]string{"architecture-plan", "FILE"}, 0},
		{[]string{"architecture-plan", "--json", "FILE"}, 0},
		{[]string{"architecture-plan", "--kind", "mermaid", "FILE"}, 0},
	}
	for _, tt := range tests {
		name := strings.Join(tt.args, " ")
		t.Run(name, func(t *testing.T) {
			onFile := runCaps(t, "", withFile(tt.args, "main.caps")...)
			onStdin := runCaps(t, stdinMain, withFile(tt.args, "-")...)
			if onFile.code != tt.code {
				t.Fatalf("caps %s on a file: exit %d, want %d\n%s", name, onFile.code, tt.code, onFile.stderr)
			}
			want := runResult{onFile.code, asStdin(onFile.stdout), asStdin(onFile.stderr)}
			if diff := cmp.Diff(want, onStdin, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("caps %s on stdin differs from the file: (-want +got)\n%s", name, diff)
			}
		})
	}
}

// TestStdinDiagnostics: diagnostics in standard input are reported at
// <stdin> ("-" in JSON) by the checking commands, and an import missing
// from the current folder is reported as not found there.
func TestStdinDiagnostics(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	src := "(module m\n  (capsule \"1.0\")\n  (import nowhere)\n  (function f (input (x I64)) (output I64) (body (+ x y))))\n"
	missing := "module nowhere not found (looked for " + dir + "/nowhere.caps)"
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"check", "-"}, 1, "",
			"<stdin>:3:11: error E_IMPORT_NOT_FOUND: " + missing + "\n" +
				"<stdin>:4:55: error E_UNKNOWN_NAME: unknown name `y`; did you mean `x`?\n"},
		{[]string{"hash", "-"}, 1, "",
			"<stdin>:3:11: error E_IMPORT_NOT_FOUND: " + missing + "\n"},
		{[]string{"repair-plan", "-"}, 1,
			"<stdin>:4:55: E_UNKNOWN_NAME unknown name `y`; did you mean `x`?\n  1. [safe] Change `y` to `x`\n       4:55-4:56 -> \"x\"\n", ""},
		{[]string{"agent-graph", "--json", "-"}, 1, "", ""},
	}
	for _, tt := range tests {
		r := runCaps(t, src, tt.args...)
		if tt.args[0] == "agent-graph" {
			if r.code != tt.code || !strings.HasPrefix(r.stdout, `{"ok":false,"files":[{"path":"-","diagnostics":[{"code":"E_IMPORT_NOT_FOUND","severity":"error","message":"`+missing+`"`) || r.stderr != "" {
				t.Errorf("caps %s: exit %d\n%s%s", strings.Join(tt.args, " "), r.code, r.stdout, r.stderr)
			}
			continue
		}
		if diff := cmp.Diff(runResult{tt.code, tt.stdout, tt.stderr}, r, cmp.AllowUnexported(runResult{})); diff != "" {
			t.Errorf("caps %s: (-want +got)\n%s", strings.Join(tt.args, " "), diff)
		}
	}
}

// withFile replaces the FILE placeholder of args by path.
func withFile(args []string, path string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "FILE" {
			out[i] = path
		}
	}
	return out
}

// asStdin rewrites the output of a command run on main.caps to what it
// prints for standard input.
func asStdin(s string) string {
	s = strings.ReplaceAll(s, `"path":"main.caps"`, `"path":"-"`)
	return strings.ReplaceAll(s, "main.caps", "<stdin>")
}
