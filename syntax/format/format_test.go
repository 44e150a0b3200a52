package format

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/format")

const goldenDir = "../../testdata/format"

// Each NAME.in.caps in testdata/format is formatted and compared with
// NAME.golden.caps, or, when formatting fails, its error message with
// NAME.golden.err.
func TestGolden(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join(goldenDir, "*.in.caps"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in.caps")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			orig := bytes.Clone(src)
			got, ferr := Source(src)
			if !bytes.Equal(src, orig) {
				t.Fatal("Source modified its input")
			}
			base := filepath.Join(goldenDir, name)
			if ferr != nil {
				if got != nil {
					t.Errorf("Source returned text with an error")
				}
				checkGolden(t, base+".golden.err", []byte(ferr.Error()+"\n"))
				return
			}
			checkGolden(t, base+".golden.caps", got)
			checkInvariants(t, got)
			again, err := Source(got)
			if err != nil {
				t.Fatalf("formatting the output: %v", err)
			}
			if diff := cmp.Diff(string(got), string(again)); diff != "" {
				t.Errorf("not idempotent (-once +twice):\n%s", diff)
			}
			if strings.HasPrefix(name, "formatted") {
				if diff := cmp.Diff(string(src), string(got)); diff != "" {
					t.Errorf("already formatted input changed (-in +out):\n%s", diff)
				}
			}
		})
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		for _, ext := range []string{".golden.caps", ".golden.err"} {
			other := strings.TrimSuffix(strings.TrimSuffix(path, ".golden.caps"), ".golden.err") + ext
			if other != path {
				os.Remove(other)
			}
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./syntax/format -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", filepath.Base(path), diff)
	}
}

// checkInvariants checks the properties every formatted text has.
func checkInvariants(t *testing.T, out []byte) {
	t.Helper()
	if len(out) == 0 {
		return
	}
	if out[len(out)-1] != '\n' || bytes.HasSuffix(out, []byte("\n\n")) {
		t.Errorf("output does not end in exactly one newline")
	}
	if bytes.HasPrefix(out, []byte("\n")) {
		t.Errorf("output starts with a blank line")
	}
	if bytes.Contains(out, []byte("\n\n\n")) {
		t.Errorf("output has two blank lines in a row")
	}
	for i, line := range strings.Split(string(out), "\n") {
		if strings.ContainsRune(line, '\r') {
			t.Errorf("line %d has a CR", i+1)
		}
		if trimmed := strings.TrimRight(line, " \t"); trimmed != line {
			t.Errorf("line %d has trailing whitespace: %q", i+1, line)
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if strings.Contains(indent, "\t") {
			t.Errorf("line %d is indented with a tab", i+1)
		}
		if strings.TrimSpace(line) == ")" && i > 0 {
			// Allowed only after a comment line.
			prev := strings.TrimSpace(strings.Split(string(out), "\n")[i-1])
			if !strings.HasPrefix(prev, ";") {
				t.Errorf("line %d is a lone \")\" not after a comment", i+1)
			}
		}
	}
}

// TestFormat covers small cases inline.
func TestFormat(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"spaces only", "  \n\t\n", ""},
		{"atom", "  x  ", "x\n"},
		{"one line", "(a   b\n c)", "(a b c)\n"},
		{"strings and numbers as written", `(f "a\tb" "\u{1F600}" -7 0.50 30m 1e3)`, `(f "a\tb" "\u{1F600}" -7 0.50 30m 1e3)` + "\n"},
		{"nested piling", "(a\n (b\n  (c\n  )\n )\n)", "(a (b (c)))\n"},
		{"crlf", "(a\r\n b) ; x\r\n; y\r\n", "(a b) ; x\n; y\n"},
		{"lone cr", "(a)\r\r\r(b)", "(a)\n\n(b)\n"},
		{"bom", "\uFEFF(a)", "(a)\n"},
		{"trailing comment moves past parens", "(f (g x ; c\n))", "(f (g x)) ; c\n"},
		{"comment forces break", "(f a ; c\n b)", "(f a ; c\n   b)\n"},
		{"comment before closing paren", "(f a\n; c\n)", "(f a\n   ; c\n   )\n"},
		{"comment after open paren", "( ; c\nf a b)", "( ; c\n  f\n  a\n  b)\n"},
		{"comment after head", "(f ; c\n a b)", "(f ; c\n  a\n  b)\n"},
		{"comment in empty list", "(f ( ; c\n))", "(f ()) ; c\n"},
		{"two trailing comments for one form", "(f (g x ; c1\n) ; c2\n y)", "(f (g x) ; c1\n   ; c2\n   y)\n"},
		{"comment before first arg", "(f\n ; c\n a b)", "(f\n  ; c\n  a\n  b)\n"},
		{"comment before head", "(\n; c\nf a)", "(\n  ; c\n  f\n  a)\n"},
		{"blank lines kept once at top level", "(a)\n\n\n\n(b)\n(c)", "(a)\n\n(b)\n(c)\n"},
		{"no blank lines inside expressions", "(f a\n\n b ; c\n\n d)", "(f a\n   b ; c\n   d)\n"},
		{"event without fields", "(module m (machine M (event Go) (event Stop Halt) (event Move (to U64))))",
			"(module m\n  (machine M\n    (event Go)\n    (event Stop Halt)\n    (event Move\n      (to U64))))\n"},
		{"final state stays on one line", "(machine M (state done (type final)) (state s (timeout 5m Go)) (state t (on Go (target done))))",
			"(machine M\n  (state done (type final))\n  (state s (timeout 5m Go))\n  (state t\n    (on Go\n      (target done))))\n"},
		{"on outside a state is an expression", "(authority-policy P (on allow (if \"x\")))", "(authority-policy P\n  (on allow (if \"x\")))\n"},
		{"effects pure", "(function f (effects pure) (body 1))", "(function f\n  (effects pure)\n  (body 1))\n"},
		{"effects list", "(function f (effects (db.write s.c)) (body 1))", "(function f\n  (effects\n    (db.write s.c))\n  (body 1))\n"},
		{"input of symbols", "(authority-policy P (input a b c))", "(authority-policy P\n  (input a b c))\n"},
		{"input with one field", "(function f (input (x U64)))", "(function f\n  (input (x U64)))\n"},
		{"input with two fields", "(function f (input (x U64) (y U64)))", "(function f\n  (input\n    (x U64)\n    (y U64)))\n"},
		{"capability clause of symbols", "(trust-boundary B (capability A C))", "(trust-boundary B\n  (capability A C))\n"},
		{"declaration with header only", "(module m (function f) (machine M))", "(module m\n  (function f)\n  (machine M))\n"},
		{"let bindings align", "(let ((aaaaaaaaaaaaaaaaaaaa (f 1 2 3 4 5 6 7 8 9)) (bbbbbbbbbbbbbbbbbbbbbbbbb (g 1 2 3 4 5 6 7 8 9))) x)",
			"(let ((aaaaaaaaaaaaaaaaaaaa (f 1 2 3 4 5 6 7 8 9))\n      (bbbbbbbbbbbbbbbbbbbbbbbbb (g 1 2 3 4 5 6 7 8 9)))\n     x)\n"},
		{"head is a list", "((some xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx) yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz)",
			"((some xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)\n  yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n  zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz)\n"},
		{"long string goes on its own line when that makes it fit",
			`(summary "` + strings.Repeat("s", 90) + `")`, "(summary\n  \"" + strings.Repeat("s", 90) + "\")\n"},
		{"string too long for any line stays after the head",
			`(summary "` + strings.Repeat("s", 100) + `" x)`, "(summary \"" + strings.Repeat("s", 100) + "\"\n         x)\n"},
		{"comment keeps trailing text but not trailing space", "(a) ;  x  \t \n", "(a) ;  x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Source([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			checkInvariants(t, got)
			again, err := Source(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(got), string(again)); diff != "" {
				t.Errorf("not idempotent (-once +twice):\n%s", diff)
			}
		})
	}
}

func TestWidth(t *testing.T) {
	// A list that ends exactly at column 100 stays on one line; one more
	// column breaks it. Closing parentheses count.
	for _, tc := range []struct {
		pad   int
		lines int
	}{{100 - len("(f (g ))"), 1}, {101 - len("(f (g ))"), 2}} {
		src := "(f (g " + strings.Repeat("x", tc.pad-4) + " 123))"
		got, err := Source([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(got), "\n"); n != tc.lines {
			t.Errorf("pad %d: %d lines:\n%s", tc.pad, n, got)
		}
	}
}

func TestSyntaxErrorsRefused(t *testing.T) {
	for _, src := range []string{
		"(module m\n  (function f\n    (body (+ 1 2))\n  (function g (body 1)))\n",
		"(a))",
		"(a [b])",
		`(a "unterminated)`,
		`(a "bad \q")`,
		strings.Repeat("(", 300) + strings.Repeat(")", 300),
		strings.Repeat("(", 100000),
	} {
		in := []byte(src)
		orig := bytes.Clone(in)
		out, err := Source(in)
		var se *SyntaxError
		if !errors.As(err, &se) || len(se.Diagnostics) == 0 {
			t.Errorf("%.30q: got error %v, want a *SyntaxError", src, err)
			continue
		}
		if out != nil {
			t.Errorf("%.30q: returned text with an error", src)
		}
		if !bytes.Equal(in, orig) {
			t.Errorf("%.30q: input modified", src)
		}
		if !strings.HasPrefix(err.Error(), "cannot format a file with syntax errors: ") {
			t.Errorf("message %q", err)
		}
		if _, _, _, err := Range(in, 0, len(in)); !errors.As(err, &se) {
			t.Errorf("Range: %v", err)
		}
	}
	_, err := Source([]byte("(module m\n  (function f\n    (body (+ 1 2))\n  (function g (body 1)))\n"))
	want := "cannot format a file with syntax errors: 3:19: missing `)` to close the list opened here"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestDeepNesting(t *testing.T) {
	depth := syntax.MaxDepth - 1
	src := strings.Repeat("(f ", depth) + "x" + strings.Repeat(")", depth)
	out, err := Source([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Source(out)
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("not idempotent: %v", err)
	}
	// A deep chain with comments everywhere forces every list to break.
	var b strings.Builder
	for i := 0; i < depth; i++ {
		b.WriteString("(g a ; c\n")
	}
	b.WriteString(strings.Repeat(")", depth))
	out, err = Source([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	again, err = Source(out)
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("not idempotent: %v", err)
	}
}

// exampleFiles returns the .caps files under examples/.
func exampleFiles(t testing.TB) []string {
	var files []string
	root := filepath.Join("..", "..", "examples")
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".caps") {
			files = append(files, path)
		}
		return nil
	})
	return files
}

// Every example formats, and formatting is idempotent on it. Examples with
// syntax errors (work in progress) are skipped.
func TestExamplesIdempotent(t *testing.T) {
	files := exampleFiles(t)
	if len(files) == 0 {
		t.Skip("no .caps files under examples/ yet")
	}
	for _, path := range files {
		t.Run(filepath.ToSlash(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Source(src)
			var se *SyntaxError
			if errors.As(err, &se) {
				t.Skipf("example has syntax errors: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, out)
			again, err := Source(out)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(out), string(again)); diff != "" {
				t.Errorf("not idempotent (-once +twice):\n%s", diff)
			}
		})
	}
}

// TestSyntaxErrorColumn checks that the refusal names the place of the
// first syntax error as caps check does, in code points: the tab and the
// astral character before the unclosed list are one column each (it was
// once counted in UTF-8 bytes: 2:11, where caps check says 2:8).
func TestSyntaxErrorColumn(t *testing.T) {
	_, err := Source([]byte("(module m (capsule \"1.0\")\n\t(😀 x (\n"))
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a *SyntaxError", err)
	}
	want := "cannot format a file with syntax errors: 2:8: missing `)` to close the list opened here (and 2 more errors)"
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
}
