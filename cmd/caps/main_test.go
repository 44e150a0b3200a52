package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
)

func init() {
	// A command that panics, registered only in the test binary, to check
	// that run turns a panic into an internal error.
	cli.Register(&cli.Command{
		Name:   "test-panic",
		Hidden: true,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			return func(c *cli.Context, args []string) int {
				var m map[string]int
				m["boom"]++ // assignment to entry in nil map
				return 0
			}
		},
	})
}

type runResult struct {
	code           int
	stdout, stderr string
}

func runCaps(t *testing.T, stdin string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return runResult{code, out.String(), errb.String()}
}

// wantMainUsage is the command list of 'caps help'. Other commands are
// added by other files, so the list is built from the registry; the
// commands this file tests must be in it.
func wantMainUsage() string {
	var b strings.Builder
	b.WriteString("caps is the Capsulang toolchain.\n\nUsage:\n  caps <command> [arguments]\n\nCommands:\n")
	width := 0
	for _, c := range cli.Commands() {
		width = max(width, len(c.Name))
	}
	for _, c := range cli.Commands() {
		b.WriteString("  " + c.Name + strings.Repeat(" ", width-len(c.Name)) + "  " + c.Short + "\n")
	}
	b.WriteString("\nRun 'caps help <command>' for the details of a command.\n")
	b.WriteString("Exit codes: 0 success, 1 the input has errors, 2 usage or I/O error.\n")
	return b.String()
}

func TestMainUsageLists(t *testing.T) {
	usage := wantMainUsage()
	for _, line := range []string{
		"  help ", "show help for caps or one of its commands\n",
		"  parse ", "print the S-expression forms of a file and its syntax errors\n",
		"  version ", "print the caps version\n",
		"  fmt ", "format Capsulang source files\n",
	} {
		if !strings.Contains(usage, line) {
			t.Errorf("caps help lacks %q:\n%s", line, usage)
		}
	}
	if strings.Contains(usage, "test-panic") {
		t.Error("caps help lists a hidden command")
	}
}

const helloSrc = "; greeting\n(module hello\n  (capsule \"1.0\")\n  (note \"héllo 😀\" 42))\n"

const helloOutline = `2:1-4:23   list
2:2-2:8      symbol module
2:9-2:14     symbol hello
3:3-3:18     list
3:4-3:11       symbol capsule
3:12-3:17      string "1.0"
4:3-4:22     list
4:4-4:8        symbol note
4:9-4:18       string "héllo 😀"
4:19-4:21      number 42
`

// helloJSON has the same forms with LSP ranges: the emoji is two UTF-16
// characters, so "42" starts at character 19 rather than 18.
const helloJSON = `{"ok":true,"files":[{"path":"hello.caps","diagnostics":[],"forms":[` +
	`{"kind":"list","range":{"start":{"line":1,"character":0},"end":{"line":3,"character":23}},"closed":true,"items":[` +
	`{"kind":"symbol","range":{"start":{"line":1,"character":1},"end":{"line":1,"character":7}},"text":"module"},` +
	`{"kind":"symbol","range":{"start":{"line":1,"character":8},"end":{"line":1,"character":13}},"text":"hello"},` +
	`{"kind":"list","range":{"start":{"line":2,"character":2},"end":{"line":2,"character":17}},"closed":true,"items":[` +
	`{"kind":"symbol","range":{"start":{"line":2,"character":3},"end":{"line":2,"character":10}},"text":"capsule"},` +
	`{"kind":"string","range":{"start":{"line":2,"character":11},"end":{"line":2,"character":16}},"text":"1.0"}]},` +
	`{"kind":"list","range":{"start":{"line":3,"character":2},"end":{"line":3,"character":22}},"closed":true,"items":[` +
	`{"kind":"symbol","range":{"start":{"line":3,"character":3},"end":{"line":3,"character":7}},"text":"note"},` +
	`{"kind":"string","range":{"start":{"line":3,"character":8},"end":{"line":3,"character":18}},"text":"héllo 😀"},` +
	`{"kind":"number","range":{"start":{"line":3,"character":19},"end":{"line":3,"character":21}},"text":"42"}]}]}]}]}
`

// badSrc has a bracket after a multi-byte character and a list left open.
const badSrc = "(module m\n  (a \"é\" [b])\n  (c d\n"

const badOutline = `1:1-3:7    list (unclosed)
1:2-1:8      symbol module
1:9-1:10     symbol m
2:3-2:14     list
2:4-2:5        symbol a
2:6-2:9        string "é"
2:11-2:12      symbol b
3:3-3:7      list (unclosed)
3:4-3:5        symbol c
3:6-3:7        symbol d
`

const badDiags = `bad.caps:2:10: error E_PARSE: unexpected '['; Capsulang uses only ( ) for lists
bad.caps:2:12: error E_PARSE: unexpected ']'; Capsulang uses only ( ) for lists
bad.caps:3:7: error E_PARSE: missing ` + "`)`" + ` to close the list opened here
bad.caps:3:3: note: the unclosed ` + "`(`" + `
bad.caps:3:7: error E_PARSE: missing ` + "`)`" + ` to close the list opened here
bad.caps:1:1: note: the unclosed ` + "`(`" + `
`

const badJSONDiags = `{"ok":false,"files":[{"path":"bad.caps","diagnostics":[` +
	`{"code":"E_PARSE","severity":"error","message":"unexpected '['; Capsulang uses only ( ) for lists","range":{"start":{"line":1,"character":9},"end":{"line":1,"character":10}},"related":[]},` +
	`{"code":"E_PARSE","severity":"error","message":"unexpected ']'; Capsulang uses only ( ) for lists","range":{"start":{"line":1,"character":11},"end":{"line":1,"character":12}},"related":[]},` +
	"{\"code\":\"E_PARSE\",\"severity\":\"error\",\"message\":\"missing `)` to close the list opened here\",\"range\":{\"start\":{\"line\":2,\"character\":6},\"end\":{\"line\":2,\"character\":6}},\"related\":[{\"path\":\"bad.caps\",\"range\":{\"start\":{\"line\":2,\"character\":2},\"end\":{\"line\":2,\"character\":3}},\"message\":\"the unclosed `(`\"}],\"fix\":{\"kind\":\"insert-paren\",\"args\":[]}}," +
	"{\"code\":\"E_PARSE\",\"severity\":\"error\",\"message\":\"missing `)` to close the list opened here\",\"range\":{\"start\":{\"line\":2,\"character\":6},\"end\":{\"line\":2,\"character\":6}},\"related\":[{\"path\":\"bad.caps\",\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":0,\"character\":1}},\"message\":\"the unclosed `(`\"}],\"fix\":{\"kind\":\"insert-paren\",\"args\":[]}}],"

const parseUsageTail = "usage: caps parse [--json] FILE\nRun 'caps help parse' for details.\n"

// setupFiles creates the test inputs in a fresh directory and makes it the
// working directory, so that paths in the output are short and stable.
func setupFiles(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		"hello.caps":     helloSrc,
		"bad.caps":       badSrc,
		"empty.caps":     "",
		"bom.caps":       "\xEF\xBB\xBF(a \"é\")\n",
		"crlf.caps":      "(a\r\n  b)\r\n(c",
		"nul.caps":       "(a)\n(b \x00)\n",
		"latin1.caps":    "; ok\n(a)\n(ñññé\xff)\n",
		"utf16.caps":     "\xFF\xFE(\x00a\x00)\x00",
		"-dash.caps":     "(dash)\n",
		"dir/inner.caps": "(x)\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRun(t *testing.T) {
	setupFiles(t)
	versionLine := fmt.Sprintf("caps 0.1.0-dev (%s, tree-sitter ABI 14)\n", runtime.Version())
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		// The framework: help, usage errors, dispatch.
		{name: "no arguments", args: nil, code: 2, stderr: wantMainUsage()},
		{name: "help", args: []string{"help"}, stdout: wantMainUsage()},
		{name: "-h", args: []string{"-h"}, stdout: wantMainUsage()},
		{name: "--help", args: []string{"--help"}, stdout: wantMainUsage()},
		{name: "help help", args: []string{"help", "help"}, stdout: "usage: caps help [COMMAND]\n\nHelp lists the commands, or with a COMMAND prints its usage, description and\nflags. 'caps COMMAND -h' prints the same.\n\nExample:\n  caps help check\n"},
		{name: "help unknown", args: []string{"help", "pasre"}, code: 2,
			stderr: "caps help: unknown command \"pasre\"; did you mean \"parse\"?\nusage: caps help [COMMAND]\nRun 'caps help help' for details.\n"},
		{name: "help too many", args: []string{"help", "a", "b"}, code: 2,
			stderr: "caps help: expected at most one COMMAND, got 2 arguments\nusage: caps help [COMMAND]\nRun 'caps help help' for details.\n"},
		{name: "unknown command suggests", args: []string{"pars", "x.caps"}, code: 2,
			stderr: "caps: unknown command \"pars\"; did you mean \"parse\"?\nRun 'caps help' for a list of commands.\n"},
		{name: "unknown command prefix", args: []string{"vers"}, code: 2,
			stderr: "caps: unknown command \"vers\"; did you mean \"version\"?\nRun 'caps help' for a list of commands.\n"},
		{name: "unknown command no suggestion", args: []string{"zzzzzz"}, code: 2,
			stderr: "caps: unknown command \"zzzzzz\"\nRun 'caps help' for a list of commands.\n"},
		{name: "hidden command not suggested", args: []string{"test-panik"}, code: 2,
			stderr: "caps: unknown command \"test-panik\"\nRun 'caps help' for a list of commands.\n"},
		{name: "flag before command", args: []string{"--json", "parse"}, code: 2,
			stderr: "caps: unknown flag --json; flags go after the command, as in 'caps parse --json FILE'\nRun 'caps help' for a list of commands.\n"},
		{name: "internal panic", args: []string{"test-panic"}, code: 2,
			stderr: "caps: internal error: assignment to entry in nil map (please report)\n"},

		// version
		{name: "version", args: []string{"version"}, stdout: versionLine},
		{name: "--version", args: []string{"--version"}, stdout: versionLine},
		{name: "version --json", args: []string{"version", "--json"},
			stdout: fmt.Sprintf("{\"version\":\"0.1.0-dev\",\"go\":%q,\"treeSitterABI\":14}\n", runtime.Version())},
		{name: "version -h", args: []string{"version", "-h"},
			stdout: "usage: caps version [--json]\n\nVersion prints the toolchain version, the Go release it was built with and\nthe tree-sitter ABI of its Capsulang parser:\n\n    caps 0.1.0-dev (go1.26.8, tree-sitter ABI 14)\n\nWith --json it prints {\"version\": ..., \"go\": ..., \"treeSitterABI\": ...}.\n\nFlags:\n  --json  print JSON on stdout\n\nExample:\n  caps version --json\n"},
		{name: "version extra argument", args: []string{"version", "now"}, code: 2,
			stderr: "caps version: unexpected argument \"now\"\nusage: caps version [--json]\nRun 'caps help version' for details.\n"},

		// parse: good input
		{name: "parse", args: []string{"parse", "hello.caps"}, stdout: helloOutline},
		{name: "parse --json", args: []string{"parse", "--json", "hello.caps"}, stdout: helloJSON},
		{name: "parse flag after file", args: []string{"parse", "hello.caps", "--json"}, stdout: helloJSON},
		{name: "parse -json", args: []string{"parse", "-json", "hello.caps"}, stdout: helloJSON},
		{name: "parse stdin", args: []string{"parse", "-"}, stdin: "(a\n b)\n", stdout: "1:1-2:4  list\n1:2-1:3    symbol a\n2:2-2:3    symbol b\n"},
		{name: "parse empty file", args: []string{"parse", "empty.caps"}},
		{name: "parse empty file json", args: []string{"parse", "--json", "empty.caps"},
			stdout: `{"ok":true,"files":[{"path":"empty.caps","diagnostics":[],"forms":[]}]}` + "\n"},
		{name: "parse BOM is skipped", args: []string{"parse", "bom.caps"},
			stdout: "1:1-1:8  list\n1:2-1:3    symbol a\n1:4-1:7    string \"é\"\n"},
		{name: "parse CRLF", args: []string{"parse", "crlf.caps"}, code: 1,
			stdout: "1:1-2:5  list\n1:2-1:3    symbol a\n2:3-2:4    symbol b\n3:1-3:3  list (unclosed)\n3:2-3:3    symbol c\n",
			stderr: "crlf.caps:3:3: error E_PARSE: missing `)` to close the list opened here\ncrlf.caps:3:1: note: the unclosed `(`\n"},
		{name: "parse file named like a flag after --", args: []string{"parse", "--", "-dash.caps"},
			stdout: "1:1-1:7  list\n1:2-1:6    symbol dash\n"},

		// parse: syntax errors
		{name: "parse errors", args: []string{"parse", "bad.caps"}, code: 1, stdout: badOutline, stderr: badDiags},

		// parse: usage errors
		{name: "parse no file", args: []string{"parse"}, code: 2,
			stderr: "caps parse: expected one FILE, got 0 arguments\n" + parseUsageTail},
		{name: "parse two files", args: []string{"parse", "a.caps", "b.caps"}, code: 2,
			stderr: "caps parse: expected one FILE, got 2 arguments\n" + parseUsageTail},
		{name: "parse unknown flag", args: []string{"parse", "--bogus", "hello.caps"}, code: 2,
			stderr: "caps parse: unknown flag --bogus\n" + parseUsageTail},
		{name: "parse unknown short flag", args: []string{"parse", "-q", "hello.caps"}, code: 2,
			stderr: "caps parse: unknown flag -q\n" + parseUsageTail},
		{name: "parse bad bool value", args: []string{"parse", "--json=maybe", "hello.caps"}, code: 2,
			stderr: "caps parse: invalid boolean value \"maybe\" for -json: parse error\n" + parseUsageTail},

		// parse: bad input files
		{name: "missing file", args: []string{"parse", "missing.caps"}, code: 2,
			stderr: "caps: missing.caps: no such file\n"},
		{name: "missing file json", args: []string{"parse", "--json", "missing.caps"}, code: 2,
			stdout: `{"ok":false,"files":[{"path":"missing.caps","error":"no such file","diagnostics":[]}]}` + "\n",
			stderr: "caps: missing.caps: no such file\n"},
		{name: "directory", args: []string{"parse", "dir"}, code: 2,
			stderr: "caps: dir: is a directory, not a .caps file\n"},
		{name: "binary", args: []string{"parse", "nul.caps"}, code: 2,
			stderr: "caps: nul.caps: binary file, not Capsulang source (NUL byte at line 2, column 4)\n"},
		{name: "invalid UTF-8", args: []string{"parse", "latin1.caps"}, code: 2,
			stderr: "caps: latin1.caps: not UTF-8 text (invalid byte at line 3, column 6)\n"},
		{name: "UTF-16", args: []string{"parse", "utf16.caps"}, code: 2,
			stderr: "caps: utf16.caps: is UTF-16 text; Capsulang source files must be UTF-8\n"},
		{name: "invalid UTF-8 on stdin", args: []string{"parse", "-"}, stdin: "(a \xc3)", code: 2,
			stderr: "caps: <stdin>: not UTF-8 text (invalid byte at line 1, column 4)\n"},
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
}

func TestParseJSONErrors(t *testing.T) {
	setupFiles(t)
	got := runCaps(t, "", "parse", "--json", "bad.caps")
	if got.code != 1 || got.stderr != "" {
		t.Fatalf("code %d, stderr %q", got.code, got.stderr)
	}
	if !strings.HasPrefix(got.stdout, badJSONDiags) {
		t.Errorf("stdout:\n%s\nwant prefix:\n%s", got.stdout, badJSONDiags)
	}
	var v struct {
		OK    bool
		Files []struct {
			Forms []struct {
				Kind   string
				Closed *bool
			}
		}
	}
	if err := json.Unmarshal([]byte(got.stdout), &v); err != nil {
		t.Fatal(err)
	}
	if v.OK || len(v.Files) != 1 || len(v.Files[0].Forms) != 1 || *v.Files[0].Forms[0].Closed {
		t.Errorf("decoded %+v", v)
	}
}

func TestCommandHelpMatchesDashH(t *testing.T) {
	for _, c := range cli.Commands() {
		help := runCaps(t, "", "help", c.Name)
		dashH := runCaps(t, "", c.Name, "-h")
		dashDashHelp := runCaps(t, "", c.Name, "--help")
		if help.code != 0 || help.stderr != "" || !strings.HasPrefix(help.stdout, "usage: caps "+c.Name) {
			t.Errorf("caps help %s: %+v", c.Name, help)
		}
		if dashH != help || dashDashHelp != help {
			t.Errorf("caps %s -h differs from caps help %s:\n%+v\n%+v", c.Name, c.Name, dashH, help)
		}
		if c.Short == "" || strings.HasSuffix(c.Short, ".") {
			t.Errorf("command %s: Short %q should be a lower-case phrase without a final period", c.Name, c.Short)
		}
	}
}

func TestParseHelpExample(t *testing.T) {
	// The outline shown in 'caps help parse' is real output.
	got := runCaps(t, "(module hello\n  (capsule \"1.0\")\n  (x 1))\n", "parse", "-")
	if got.code != 0 {
		t.Fatalf("%+v", got)
	}
	example := "    1:1-3:9    list\n    1:2-1:8      symbol module\n    1:9-1:14     symbol hello\n"
	help := runCaps(t, "", "help", "parse").stdout
	if !strings.Contains(help, example) {
		t.Errorf("help lacks the example %q", example)
	}
	var lines []string
	for _, l := range strings.Split(example, "\n") {
		if l != "" {
			lines = append(lines, strings.TrimPrefix(l, "    "))
		}
	}
	if !strings.HasPrefix(got.stdout, strings.Join(lines, "\n")+"\n") {
		t.Errorf("real output:\n%s", got.stdout)
	}
}

func TestTooBig(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// 20 MiB of valid source: far over the 16 MiB limit.
	big := bytes.Repeat([]byte("(a b c)\n"), 20<<20/8)
	if err := os.WriteFile("big.caps", big, 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCaps(t, "", "parse", "big.caps")
	want := runResult{2, "", "caps: big.caps: file is 20.0 MB; Capsulang source files are limited to 16 MB\n"}
	if got != want {
		t.Errorf("got %+v", got)
	}
	got = runCaps(t, string(big), "parse", "-")
	want = runResult{2, "", "caps: <stdin>: input is larger than 16 MB; Capsulang source files are limited to 16 MB\n"}
	if got != want {
		t.Errorf("stdin: got %+v", got)
	}
}

func TestDeepNesting(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	src := strings.Repeat("(", 100000) + strings.Repeat(")", 100000) + "\n"
	if err := os.WriteFile("deep.caps", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, jsonOut := range []bool{false, true} {
		args := []string{"parse", "deep.caps"}
		if jsonOut {
			args = append(args, "--json")
		}
		start := time.Now()
		got := runCaps(t, "", args...)
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("caps %v took %v", args, d)
		}
		if got.code != 1 {
			t.Fatalf("caps %v: code %d, stderr %q", args, got.code, got.stderr)
		}
		if jsonOut {
			if !json.Valid([]byte(got.stdout)) || !strings.Contains(got.stdout, "lists nest deeper than 256 levels") {
				t.Errorf("json output %.200s...", got.stdout)
			}
			continue
		}
		want := "deep.caps:1:257: error E_PARSE: lists nest deeper than 256 levels; the rest of this form is ignored\n"
		if got.stderr != want {
			t.Errorf("stderr %q", got.stderr)
		}
		if n := strings.Count(got.stdout, "\n"); n != 256 {
			t.Errorf("outline has %d lines, want 256 (the kept depth)", n)
		}
	}
}

func TestLongLineIsLinear(t *testing.T) {
	// One 256 KB line of small forms with multi-byte text must parse
	// quickly (the position conversion is linear: see package report).
	src := strings.Repeat(`(é "😀") `, 256<<10/14)
	start := time.Now()
	got := runCaps(t, src, "parse", "--json", "-")
	if got.code != 0 {
		t.Fatalf("code %d: %s", got.code, got.stderr)
	}
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("took %v", d)
	}
	if !strings.HasSuffix(got.stdout, `"text":"😀"}]}]}]}`+"\n") {
		t.Errorf("output ends %q", got.stdout[max(0, len(got.stdout)-100):])
	}
}
