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

// TestDocsExamples runs the shell examples of docs/*.md: every fenced
// block whose info string is "console". In such a block a line
// "$ caps ARGS" is a command and the lines after it, up to the next "$ "
// line or the end of the block, are what it prints: its stdout, then its
// stderr. In the expected output a line "..." stands for any number of
// lines, a line ending in "..." for any line that starts with the rest,
// and a last line "[exit N]" for a non-zero exit code. ARGS are split as a
// shell would (single and double quotes) and may end in "> FILE", which
// writes stdout to FILE instead. The commands run in a scratch folder in
// which examples/, testdata/ and docs/ are the repository's, so examples
// use only shipped files; the blocks of one page share their folder and
// run in order, as a reader would run them.
func TestDocsExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	n := 0
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		scratch := t.TempDir()
		for _, d := range []string{"examples", "testdata", "docs"} {
			if err := os.Symlink(filepath.Join(root, d), filepath.Join(scratch, d)); err != nil {
				t.Fatal(err)
			}
		}
		for _, b := range consoleBlocks(string(text)) {
			n++
			name := fmt.Sprintf("%s:%d", filepath.Base(doc), b.line)
			t.Run(name, func(t *testing.T) {
				t.Chdir(scratch)
				for _, cmd := range b.commands {
					runDocCommand(t, name, cmd)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no console examples in docs/")
	}
}

// consoleBlock is one ```console block.
type consoleBlock struct {
	line     int // of the opening fence, 1-based
	commands []docCommand
}

// docCommand is one "$ caps ..." line of a block and its expected output.
type docCommand struct {
	line   int
	text   string   // after "$ "
	output []string // expected lines
}

var fenceRE = regexp.MustCompile("^\\s*```")

// consoleBlocks finds the ```console blocks of a markdown text.
func consoleBlocks(text string) []consoleBlock {
	var out []consoleBlock
	var cur *consoleBlock
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```console":
			cur = &consoleBlock{line: i + 1}
		case cur != nil && fenceRE.MatchString(line):
			out = append(out, *cur)
			cur = nil
		case cur != nil && strings.HasPrefix(line, "$ "):
			cur.commands = append(cur.commands, docCommand{line: i + 1, text: line[2:]})
		case cur != nil && len(cur.commands) > 0:
			c := &cur.commands[len(cur.commands)-1]
			c.output = append(c.output, line)
		}
	}
	return out
}

// runDocCommand runs one example command and compares its output.
func runDocCommand(t *testing.T, doc string, cmd docCommand) {
	t.Helper()
	args, redirect, err := shellWords(cmd.text)
	if err != nil || len(args) == 0 || args[0] != "caps" {
		t.Fatalf("%s line %d: %q: only caps commands run (%v)", doc, cmd.line, cmd.text, err)
	}
	got := runCaps(t, "", args[1:]...)
	stdout := got.stdout
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
	ok := want[0] == got[0]
	if prefix, cut := strings.CutSuffix(want[0], "..."); cut {
		ok = strings.HasPrefix(got[0], prefix)
	}
	return ok && matchLines(want[1:], got[1:])
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
