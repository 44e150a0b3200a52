package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// FuzzParse runs 'caps parse' on arbitrary input from stdin, in both
// output modes: it must never report an internal error, must exit 0, 1 or
// 2, and in JSON mode must print one valid document whose "ok" matches
// the exit code.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "(a)", "(module m (function f (body (+ 1 2))))", "(a \"x\\u{1F600}\" 'b)",
		"((((", "))))", "(a [b] {c})", "\"unterminated", "; comment only\n",
		"\xEF\xBB\xBF(a)", "(a\r\n b)\r", "(\x00)", "(\xff)", "(é 😀 中)",
		// issue 19: many one-line functions (once quadratic to check), and
		// many unclosed lists on one line (once quadratic to report)
		string(gen.Functions(4000)),
		"(module m (capsule \"1.0\")\n" + strings.Repeat("(", 3000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, errb bytes.Buffer
		code := run([]string{"parse", "--json", "-"}, bytes.NewReader(data), &out, &errb)
		if code < 0 || code > 2 || strings.Contains(errb.String(), "internal error") {
			t.Fatalf("exit %d, stderr %q", code, errb.String())
		}
		var v struct{ OK bool }
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("invalid JSON (%v): %q", err, out.String())
		}
		if v.OK != (code == 0) {
			t.Fatalf("ok=%v with exit %d", v.OK, code)
		}
		out.Reset()
		errb.Reset()
		code2 := run([]string{"parse", "-"}, bytes.NewReader(data), &out, &errb)
		if code2 != code || strings.Contains(errb.String(), "internal error") {
			t.Fatalf("text mode: exit %d (json mode %d), stderr %q", code2, code, errb.String())
		}
	})
}

// FuzzCheckStdin runs 'caps check --json -' and 'caps hash -' on arbitrary
// standard input: neither may report an internal error or refuse "-" as a
// missing file; check prints one valid document whose "ok" matches its
// exit code and whose messages quote no word of more than
// syntax.MaxQuoted characters, and hash prints a hash exactly when it
// exits with 0.
func FuzzCheckStdin(f *testing.F) {
	for _, s := range []string{
		"", "(module m (capsule \"1.0\"))",
		// stdin (issue 19, item 5): imports resolve in the current folder
		"(module m (capsule \"1.0\") (import nowhere) (function f (input (x I64)) (output I64) (body (+ x 1))))",
		"(module m (capsule \"1.0\") (function f (input (x I64)) (output I64) (body (+ x y))))",
		// huge literals and names are clipped in messages (item 10)
		"(module m (capsule \"1.0\") (function f (input (x I64)) (output I64) (body (+ x " + strings.Repeat("9", 300) + "))))",
		"(module m (capsule \"1.0\") (function f (input (x I64)) (output I64) (body (+ x " + strings.Repeat("n", 500) + "))))",
		"(module m (capsule \"1.0\") (function f (input (x I64)) (output I64) (body (+ x " + strings.Repeat("7", 200) + "q))))",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, errb bytes.Buffer
		code := run([]string{"check", "--json", "-"}, bytes.NewReader(data), &out, &errb)
		if code < 0 || code > 2 || strings.Contains(errb.String(), "internal error") || strings.Contains(errb.String(), "no such file") {
			t.Fatalf("check: exit %d, stderr %q", code, errb.String())
		}
		var v struct {
			OK    bool
			Files []struct{ Diagnostics []struct{ Message string } }
		}
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("check: invalid JSON (%v): %q", err, out.String())
		}
		if v.OK != (code == 0) {
			t.Fatalf("check: ok=%v with exit %d", v.OK, code)
		}
		for _, f := range v.Files {
			for _, d := range f.Diagnostics {
				for _, w := range strings.Fields(d.Message) {
					if utf8.RuneCountInString(w) > syntax.MaxQuoted {
						t.Fatalf("check: message quotes a word of %d characters: %q", utf8.RuneCountInString(w), d.Message)
					}
				}
			}
		}
		out.Reset()
		errb.Reset()
		code = run([]string{"hash", "-"}, bytes.NewReader(data), &out, &errb)
		if code < 0 || code > 2 || strings.Contains(errb.String(), "internal error") || strings.Contains(errb.String(), "no such file") {
			t.Fatalf("hash: exit %d, stderr %q", code, errb.String())
		}
		if hashed := strings.HasPrefix(out.String(), "sha256:"); hashed != (code == 0) {
			t.Fatalf("hash: exit %d, stdout %q", code, out.String())
		}
	})
}
