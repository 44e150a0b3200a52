package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/capsulang/caps/bench/gen"
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
