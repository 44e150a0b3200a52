package lsp

import (
	"os"
	"strings"
	"testing"

	"github.com/capsulang/caps/syntax"
)

// TestModuleKeyLayout edits examples/lib/money.caps, a module
// examples/17_imports.caps imports, and compares the interface key
// (moduleKey) of each edited text with the original's: a layout-only
// edit of a signature, or an edit inside what importers never read (a
// body, an example, a contract), keeps the key; an edit of what they
// read (an input, the output, a type, a name, a string) changes it.
func TestModuleKeyLayout(t *testing.T) {
	b, err := os.ReadFile("../examples/lib/money.caps")
	if err != nil {
		t.Fatal(err)
	}
	orig := string(b)
	key := func(text string) uint64 {
		t.Helper()
		cst, err := syntax.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return moduleKey(syntax.Read(cst))
	}
	k0 := key(orig)
	tests := []struct {
		name, from, to string
		same           bool
	}{
		{"inputs on one line", "(input\n      (cents U64)\n      (bps U64))", "(input (cents U64) (bps U64))", true},
		{"a comment inside the signature", "(input\n      (cents U64)", "(input ;; the amount\n      (cents U64)", true},
		{"spaces inside an input", "(cents U64)\n      (bps", "(  cents   U64 )\n      (bps", true},
		{"the signature reindented", "(output U64)\n    (requires", "(output\n        U64)\n    (requires", true},
		{"a blank line between declarations", "\n\n  ;; True for", "\n\n\n  ;; True for", true},
		{"a body edited", "(body (/ (* cents bps) 10000))", "(body (/ (* cents bps) 10001))", true},
		{"an example edited", "(example (apply_bps 199 5000) 99)", "(example (apply_bps 199 5000) 98)", true},
		{"a contract edited", "(requires (<= bps 10000))", "(requires (<= bps 9999))", true},
		{"the output type", "(output U64)\n    (requires", "(output I64)\n    (requires", false},
		{"an input's type", "(bps U64))", "(bps U32))", false},
		{"an input renamed", "(bps U64))", "(rate U64))", false},
		{"an input added", "(bps U64))", "(bps U64)\n      (round Bool))", false},
		{"a function renamed", "(function is_large", "(function is_big", false},
		{"a record field", "(currency Text)", "(code Text)", false},
		{"a string", `(capsule "1.0")`, `(capsule "1.1")`, false},
		{"the module's name", "(module lib.money", "(module lib.cash", false},
		{"a list left open at the end", "(currency \"USD\"))) true)))", "(currency \"USD\"))) true))", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Count(orig, tt.from) != 1 {
				t.Fatalf("%q occurs %d times", tt.from, strings.Count(orig, tt.from))
			}
			text := strings.Replace(orig, tt.from, tt.to, 1)
			if got := key(text) == k0; got != tt.same {
				t.Errorf("same key = %v, want %v", got, tt.same)
			}
			if key(text) != key(text) {
				t.Error("two reads of one text have different keys")
			}
		})
	}
}
