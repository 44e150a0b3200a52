package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax/format"
)

// The formatter's layout is tested in syntax/format; these tests take its
// output as given and check what the command does with it.
const uglySrc = "(module m\n(function f (input (x I64)) (output I64) (body x)))"

func formatted(t *testing.T, src string) string {
	t.Helper()
	out, err := format.Source([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) == src {
		t.Fatalf("fixture %q is already formatted", src)
	}
	return string(out)
}

const fmtUsageTail = "usage: caps fmt [--check | --write] [--json] FILE|DIR...\nRun 'caps help fmt' for details.\n"

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	pretty := formatted(t, uglySrc)
	files := map[string]string{
		"ugly.caps":        uglySrc,
		"pretty.caps":      pretty,
		"bad.caps":         "(a",
		"bom.caps":         "\xEF\xBB\xBF" + uglySrc,
		"tree/a.caps":      uglySrc,
		"tree/b/b.caps":    pretty,
		"tree/notes.txt":   "not source",
		"tree/.git/x.caps": uglySrc,
	}
	for name, content := range files {
		os.MkdirAll(filepath.Dir(name), 0o755)
		if err := os.WriteFile(name, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{name: "print", args: []string{"fmt", "ugly.caps"}, stdout: pretty},
		{name: "print formatted", args: []string{"fmt", "pretty.caps"}, stdout: pretty},
		{name: "print stdin", args: []string{"fmt", "-"}, stdin: uglySrc, stdout: pretty},
		{name: "print keeps BOM", args: []string{"fmt", "bom.caps"}, stdout: "\xEF\xBB\xBF" + pretty},
		{name: "print json", args: []string{"fmt", "--json", "ugly.caps"},
			stdout: `{"ok":true,"files":[{"path":"ugly.caps","diagnostics":[],"changed":true,"formatted":` + jsonString(pretty) + `}]}` + "\n"},
		{name: "check", args: []string{"fmt", "--check", "ugly.caps", "pretty.caps", "tree"}, code: 1,
			stdout: "ugly.caps\ntree/a.caps\n"},
		{name: "check clean", args: []string{"fmt", "--check", "pretty.caps", "tree/b"}},
		{name: "check json", args: []string{"fmt", "--check", "--json", "ugly.caps", "pretty.caps"}, code: 1,
			stdout: `{"ok":false,"files":[{"path":"ugly.caps","diagnostics":[],"changed":true},{"path":"pretty.caps","diagnostics":[],"changed":false}]}` + "\n"},
		{name: "syntax error", args: []string{"fmt", "bad.caps"}, code: 1,
			stderr: "bad.caps:1:3: error E_PARSE: missing `)` to close the list opened here\nbad.caps:1:1: note: the unclosed `(`\n"},
		{name: "check with syntax error", args: []string{"fmt", "--check", "--json", "bad.caps"}, code: 1,
			stdout: `{"ok":false,"files":[{"path":"bad.caps","diagnostics":[` +
				"{\"code\":\"E_PARSE\",\"severity\":\"error\",\"message\":\"missing `)` to close the list opened here\",\"range\":{\"start\":{\"line\":0,\"character\":2},\"end\":{\"line\":0,\"character\":2}},\"related\":[{\"path\":\"bad.caps\",\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":0,\"character\":1}},\"message\":\"the unclosed `(`\"}],\"fix\":{\"kind\":\"insert-paren\",\"args\":[]}}" +
				`],"changed":false}]}` + "\n"},
		{name: "missing among others", args: []string{"fmt", "--check", "nope.caps", "pretty.caps"}, code: 2,
			stderr: "caps: nope.caps: no such file\n"},
		{name: "dir path is cleaned", args: []string{"fmt", "--check", "tree/b/.."}, code: 1, stdout: "tree/a.caps\n"},

		{name: "no args", args: []string{"fmt"}, code: 2,
			stderr: "caps fmt: expected FILE or DIR arguments (use - for stdin)\n" + fmtUsageTail},
		{name: "check and write", args: []string{"fmt", "--check", "-w", "ugly.caps"}, code: 2,
			stderr: "caps fmt: --check and --write cannot be combined\n" + fmtUsageTail},
		{name: "print two files", args: []string{"fmt", "ugly.caps", "pretty.caps"}, code: 2,
			stderr: "caps fmt: formatting several files, or a directory, needs --check or --write\n" + fmtUsageTail},
		{name: "print dir", args: []string{"fmt", "tree"}, code: 2,
			stderr: "caps fmt: formatting several files, or a directory, needs --check or --write\n" + fmtUsageTail},
		{name: "write stdin", args: []string{"fmt", "-w", "-"}, code: 2,
			stderr: "caps fmt: --write cannot rewrite stdin\n" + fmtUsageTail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCaps(t, tt.stdin, tt.args...)
			want := runResult{tt.code, tt.stdout, tt.stderr}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("caps %s: (-want +got)\n%s", strings.Join(tt.args, " "), diff)
			}
		})
	}
	// No command above changed a file.
	for name, content := range files {
		if b, _ := os.ReadFile(name); string(b) != content {
			t.Errorf("%s changed to %q", name, b)
		}
	}
}

func TestFmtWrite(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	pretty := formatted(t, uglySrc)
	for name, content := range map[string]string{
		"a.caps": uglySrc, "b.caps": pretty, "bom.caps": "\xEF\xBB\xBF" + uglySrc, "bad.caps": "(a",
	} {
		if err := os.WriteFile(name, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod("a.caps", 0o755)
	before, _ := os.Stat("b.caps")

	got := runCaps(t, "", "fmt", "-w", "a.caps", "b.caps", "bom.caps", "bad.caps")
	want := runResult{1, "", "bad.caps:1:3: error E_PARSE: missing `)` to close the list opened here\nbad.caps:1:1: note: the unclosed `(`\n"}
	if got != want {
		t.Errorf("got %+v", got)
	}
	for name, content := range map[string]string{
		"a.caps": pretty, "b.caps": pretty, "bom.caps": "\xEF\xBB\xBF" + pretty, "bad.caps": "(a",
	} {
		if b, _ := os.ReadFile(name); string(b) != content {
			t.Errorf("%s = %q, want %q", name, b, content)
		}
	}
	if info, _ := os.Stat("a.caps"); info.Mode().Perm() != 0o755 {
		t.Errorf("a.caps mode %v", info.Mode())
	}
	if after, _ := os.Stat("b.caps"); !os.SameFile(before, after) {
		t.Error("an already formatted file was rewritten")
	}
	entries, _ := os.ReadDir(".")
	if len(entries) != 4 {
		t.Errorf("temporary files left: %v", entries)
	}

	got = runCaps(t, "", "fmt", "--write", "--json", "a.caps")
	if got != (runResult{0, `{"ok":true,"files":[{"path":"a.caps","diagnostics":[],"changed":false}]}` + "\n", ""}) {
		t.Errorf("second run: %+v", got)
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
