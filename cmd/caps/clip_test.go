package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax"
)

// TestHugeLiteralsAndNamesAreClipped (issue 19, item 10): a 100,000-digit
// literal or a 1 MB name is quoted in a diagnostic as its first and last
// characters around an ellipsis, never in full, in text and JSON alike,
// and a huge misspelt name is checked quickly (it gets no suggestion).
func TestHugeLiteralsAndNamesAreClipped(t *testing.T) {
	t.Chdir(t.TempDir())
	digits := strings.Repeat("1234567890", 10_000)
	name := "big_" + strings.Repeat("x", 1<<20) + "_end"
	fn := func(body string) string {
		return "(module m (capsule \"1.0\")\n  (function f (input (x I64)) (output I64) (body " + body + ")))\n"
	}
	clippedDigits := "123456789012345678901234567890123456789…1234567890123456789012345678901234567890"
	clippedName := "`big_" + strings.Repeat("x", 34) + "…" + strings.Repeat("x", 35) + "_end`"
	tests := []struct {
		name, src, message string
	}{
		{"100,000-digit literal", fn("(+ x " + digits + ")"),
			"2:55: error E_BAD_LITERAL: " + clippedDigits + " is too large for any 64-bit integer type"},
		{"malformed 100,000-digit literal", fn("(+ x " + digits + "q)"),
			"2:55: error E_BAD_LITERAL: `12345678901234567890123456789012345678…34567890123456789012345678901234567890q` is not a number; write integers (42, -7), decimals (0.5) or durations (500ms, 30s, 5m, 24h, 7d)"},
		{"1 MB name", fn("(+ x " + name + ")"),
			"2:55: error E_UNKNOWN_NAME: unknown name " + clippedName},
		{"1 MB function name, one letter off a declared one",
			"(module m (capsule \"1.0\")\n  (function " + name + " (input (x I64)) (output I64) (body x))\n  (function g (input (x I64)) (output I64) (body (" + name + "z x))))\n",
			"3:51: error E_UNKNOWN_NAME: unknown function `big_" + strings.Repeat("x", 34) + "…" + strings.Repeat("x", 34) + "_endz`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.WriteFile("big.caps", []byte(tt.src), 0o644)
			start := time.Now()
			r := runCaps(t, "", "check", "big.caps")
			if elapsed := time.Since(start); elapsed > 20*time.Second {
				t.Errorf("check took %v", elapsed)
			}
			want := "big.caps:" + tt.message + "\n"
			if diff := cmp.Diff(runResult{1, "", want}, r, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("caps check: (-want +got)\n%s", diff)
			}
			r = runCaps(t, "", "check", "--json", "big.caps")
			var v struct {
				Files []struct{ Diagnostics []struct{ Message string } }
			}
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != 1 || len(v.Files) != 1 || len(v.Files[0].Diagnostics) != 1 {
				t.Fatalf("check --json: exit %d, %v: %.300s", r.code, err, r.stdout)
			}
			msg := v.Files[0].Diagnostics[0].Message
			if !strings.HasSuffix(tt.message, ": "+msg) {
				t.Errorf("check --json message %q", msg)
			}
			// The bound: the message's own words plus MaxQuoted characters
			// for the quoted text.
			if n := utf8.RuneCountInString(msg); n > 120+syntax.MaxQuoted {
				t.Errorf("message of %d characters", n)
			}
		})
	}
}
