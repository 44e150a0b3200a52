package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDocsExamples runs the shell examples of README.md and docs/*.md.
//
// Which blocks are shell examples: every fenced block whose info string is
// "console", "sh", "bash" or "shell", and every block without an info
// string that holds a line starting with "$ " (a prompt). Each of them is
// either run or explicitly not run:
//
//   - A ```console block is run. In it a line "$ caps ARGS" is a command
//     and the lines after it, up to the next "$ " line or the end of the
//     block, are what it prints: its stdout, then its stderr. In the
//     expected output a line "..." stands for any number of lines,
//     "..." within a line for any text (so "p-...: pass" matches a line
//     that starts with "p-" and ends with ": pass"), and a last line
//     "[exit N]" for a non-zero exit code.
//   - Any shell block whose opening fence directly follows a line
//     "<!-- not run: REASON -->" (an HTML comment, invisible on the
//     rendered page) is not run; REASON must say why (it needs make, an
//     editor, the network, ...). The test logs each such block.
//   - Any other shell block fails the test: make it a console block that
//     runs against shipped files, or mark it.
//
// A command line is "caps ARGS", optionally preceded by NAME=VALUE
// environment settings (CAPS_PATH=testdata/check/lib caps check ...) or by
// "echo 'TEXT' |" (TEXT and a newline on standard input). A line
// "NAME=$(caps ARGS)" sets the shell variable NAME to the command's stdout
// without its final newline (the expected output is then stderr alone),
// and "$NAME" in a later command of the page is replaced by it. ARGS are split
// as a shell would (single and double quotes) and may end in "> FILE",
// which writes stdout to FILE instead. The commands run in a scratch
// folder in which examples/, testdata/, docs/, agent/ and .ci/ are the
// repository's (caps conformance reads the last two), so
// examples use only shipped files (to change a file, an example first
// makes a copy of it, e.g. caps fmt examples/abs.caps > abs.caps); the
// blocks of one page share their folder and run in order, as a reader
// would run them.
func TestDocsExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	n := 0
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		scratch := t.TempDir()
		for _, d := range []string{"examples", "testdata", "docs", "agent", ".ci"} {
			if err := os.Symlink(filepath.Join(root, d), filepath.Join(scratch, d)); err != nil {
				t.Fatal(err)
			}
		}
		vars := map[string]string{} // the shell variables of the page
		blocks, err := shellBlocks(string(text))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		for _, b := range blocks {
			name := fmt.Sprintf("%s:%d", rel, b.line)
			switch {
			case b.notRun != "":
				t.Logf("%s: not run: %s", name, b.notRun)
				continue
			case b.info != "console":
				t.Errorf("%s: a ```%s shell block that is neither run nor marked: make it a ```console block of caps commands on shipped files, or put <!-- not run: REASON --> on the line before its fence", name, b.info)
				continue
			}
			n++
			t.Run(name, func(t *testing.T) {
				t.Chdir(scratch)
				for _, cmd := range b.commands {
					runDocCommand(t, name, cmd, vars)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no console examples in README.md and docs/")
	}
}

// shellBlock is one fenced shell block.
type shellBlock struct {
	line     int    // of the opening fence, 1-based
	info     string // the fence's info string
	notRun   string // the reason of a <!-- not run: REASON --> mark
	commands []docCommand
}

// docCommand is one "$ caps ..." line of a block and its expected output.
type docCommand struct {
	line   int
	text   string   // after "$ "
	output []string // expected lines
}

var (
	fenceRE   = regexp.MustCompile("^\\s*```+\\s*(\\S*)")
	notRunRE  = regexp.MustCompile(`^\s*<!--\s*not run:(.*)-->\s*$`)
	captureRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=\$\((.*)\)$`)
	varRE     = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*`)
	shellInfo = map[string]bool{"console": true, "sh": true, "bash": true, "shell": true}
)

// shellBlocks finds the shell blocks of a markdown text (see
// TestDocsExamples); a "not run" mark without a reason, or one not
// followed by a shell block, is an error.
func shellBlocks(text string) ([]shellBlock, error) {
	var out []shellBlock
	var cur *shellBlock
	prompt := false
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if cur == nil {
			m := fenceRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			cur = &shellBlock{line: i + 1, info: m[1]}
			prompt = false
			if i > 0 {
				if mm := notRunRE.FindStringSubmatch(lines[i-1]); mm != nil {
					cur.notRun = strings.TrimSpace(mm[1])
					if cur.notRun == "" {
						return nil, fmt.Errorf("line %d: a <!-- not run: --> mark must give a reason", i)
					}
				}
			}
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case fenceRE.MatchString(line) && strings.Trim(trimmed, "`") == "":
			if shellInfo[cur.info] || (cur.info == "" && prompt) {
				out = append(out, *cur)
			} else if cur.notRun != "" {
				return nil, fmt.Errorf("line %d: a <!-- not run --> mark on a block that is not a shell block", cur.line-1)
			}
			cur = nil
		case strings.HasPrefix(trimmed, "$ "):
			prompt = true
			cur.commands = append(cur.commands, docCommand{line: i + 1, text: trimmed[2:]})
		case len(cur.commands) > 0:
			c := &cur.commands[len(cur.commands)-1]
			c.output = append(c.output, line)
		}
	}
	for i := range out {
		// Drop the indentation of blocks inside list items from the
		// expected output.
		indent := ""
		if m := regexp.MustCompile(`^(\s*)`).FindString(lines[out[i].line-1]); m != "" {
			indent = m
		}
		for j := range out[i].commands {
			for k, l := range out[i].commands[j].output {
				out[i].commands[j].output[k] = strings.TrimPrefix(l, indent)
			}
		}
	}
	return out, nil
}

// runDocCommand runs one example command and compares its output.
func runDocCommand(t *testing.T, doc string, cmd docCommand, vars map[string]string) {
	t.Helper()
	text, stdin, capture := cmd.text, "", ""
	if m := captureRE.FindStringSubmatch(text); m != nil {
		capture, text = m[1], m[2]
	}
	text = varRE.ReplaceAllStringFunc(text, func(v string) string {
		val, ok := vars[v[1:]]
		if !ok {
			t.Fatalf("%s line %d: %s is not set by an earlier NAME=$(caps ...) line of the page", doc, cmd.line, v)
		}
		return val
	})
	if rest, ok := strings.CutPrefix(text, "echo "); ok {
		before, after, found := strings.Cut(rest, "|")
		words, _, err := shellWords(before)
		if !found || err != nil || len(words) != 1 {
			t.Fatalf("%s line %d: %q: only \"echo 'TEXT' | caps ...\" pipes run (%v)", doc, cmd.line, cmd.text, err)
		}
		text, stdin = strings.TrimSpace(after), words[0]+"\n"
	}
	args, redirect, err := shellWords(text)
	for err == nil && len(args) > 0 && strings.Contains(args[0], "=") && args[0] != "caps" {
		name, value, _ := strings.Cut(args[0], "=")
		t.Setenv(name, value)
		args = args[1:]
	}
	if err != nil || len(args) == 0 || args[0] != "caps" {
		t.Fatalf("%s line %d: %q: only caps commands run (%v)", doc, cmd.line, cmd.text, err)
	}
	got := runCaps(t, stdin, args[1:]...)
	stdout := got.stdout
	if capture != "" {
		vars[capture] = strings.TrimSuffix(stdout, "\n")
		stdout = ""
	}
	if redirect != "" {
		if err := os.WriteFile(redirect, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout = ""
	}
	want, code := cmd.output, 0
	if k := len(want) - 1; k >= 0 && strings.HasPrefix(want[k], "[exit ") {
		code, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(want[k], "[exit "), "]"))
		want = want[:k]
	}
	lines := strings.Split(strings.TrimSuffix(stdout+got.stderr, "\n"), "\n")
	if stdout+got.stderr == "" {
		lines = nil
	}
	if got.code != code || !matchLines(want, lines) {
		t.Errorf("%s line %d: $ %s\nexit %d, want %d; printed:\n%s\nwant:\n%s", doc, cmd.line, cmd.text, got.code, code,
			strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// matchLines matches output lines against expected ones with "..."
// wildcards.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for i := 0; i <= len(got); i++ {
			if matchLines(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	return matchLine(want[0], got[0]) && matchLines(want[1:], got[1:])
}

// matchLine matches one output line against an expected one in which
// each "..." stands for any text.
func matchLine(want, got string) bool {
	parts := strings.Split(want, "...")
	if len(parts) == 1 {
		return want == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	got = got[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(got, p)
		if i < 0 {
			return false
		}
		got = got[i+len(p):]
	}
	return len(got) >= len(last) && strings.HasSuffix(got, last)
}

// shellWords splits a command line as a shell would, for the quoting the
// docs use, and returns the file of a final "> FILE".
func shellWords(s string) ([]string, string, error) {
	var words []string
	var cur strings.Builder
	in, inWord := rune(0), false
	for _, r := range s {
		switch {
		case in != 0 && r == in:
			in = 0
		case in != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			in, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if in != 0 {
		return nil, "", fmt.Errorf("unclosed quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	if k := len(words) - 2; k >= 0 && words[k] == ">" {
		return words[:k], words[k+1], nil
	}
	return words, "", nil
}

func TestDocsMatching(t *testing.T) {
	out := []string{"a", "b long line", "c"}
	for _, tt := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"a", "b long line", "c"}, true},
		{[]string{"a", "...", "c"}, true},
		{[]string{"...", "c"}, true},
		{[]string{"a", "b long...", "c"}, true},
		{[]string{"a", "b...line", "c"}, true},
		{[]string{"a", "...long...", "c"}, true},
		{[]string{"a", "b...long...x", "c"}, false},
		{[]string{"a", "b long line...", "c"}, true},
		{[]string{"a", "b line...line", "c"}, false},
		{[]string{"...", "b", "..."}, false},
		{[]string{"a", "b long line"}, false},
		{[]string{"a", "...", "b long line"}, false},
		{nil, false},
	} {
		if got := matchLines(tt.want, out); got != tt.ok {
			t.Errorf("%q: %v", tt.want, got)
		}
	}
	words, file, err := shellWords(`caps machine-run 'Open={"code": 1}' "a b" x > out.json`)
	if err != nil || file != "out.json" || strings.Join(words, "|") != `caps|machine-run|Open={"code": 1}|a b|x` {
		t.Errorf("%q %q %v", words, file, err)
	}
}
