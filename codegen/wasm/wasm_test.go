package wasm_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/internal/testutil"
	"github.com/capsulang/caps/codegen/wasm"
)

// funcText returns the WAT text of the internal function name.
func funcText(t *testing.T, wat, name string) string {
	t.Helper()
	start := strings.Index(wat, "  (func $"+name+" ")
	if start < 0 {
		t.Fatalf("no internal function %s in\n%s", name, wat)
	}
	end := strings.Index(wat[start:], "\n  )\n")
	return wat[start : start+end]
}

// countCall matches the code that counts one call in a register.
const countCall = `local\.get \$caps\.calls\s+i64\.const 1\s+i64\.add\s+local\.set \$caps\.calls`

// TestShape checks the shape of the generated code: what the depth
// mechanism and the optimizations leave in each function.
func TestShape(t *testing.T) {
	tests := []struct {
		name, body, fn string
		want           map[string]int // instruction (regexp) -> count
	}{
		{
			name: "self tail call is a loop",
			fn:   "loop",
			body: `(function loop (input (i U64) (acc U64)) (output U64)
			         (body (if (== i 0) acc (loop (- i 1) (+ acc (/ acc 7))))))`,
			want: map[string]int{`(?m)^\s+loop `: 1, `(?m)^\s+br 1$`: 1, `call \$loop`: 0,
				`i64\.div_u`: 1, `i64\.eqz`: 0, countCall: 1},
		},
		{
			name: "ensures keeps the call",
			fn:   "down",
			body: `(function down (input (n U64)) (output U64) (ensures (>= result 0))
			         (body (if (== n 0) 0 (down (- n 1)))))`,
			want: map[string]int{`(?m)^\s+loop `: 0, `call \$down`: 1},
		},
		{
			name: "small recursive callee is inlined two levels",
			fn:   "fib",
			body: `(function fib (input (n U64)) (output U64)
			         (body (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))`,
			// 2 inlined calls, 4 inlined into those, 8 real calls.
			want: map[string]int{`call \$fib`: 8, `i32\.le_s`: 14, countCall: 14, `call \$caps\.call_slow`: 14},
		},
		{
			name: "a variable divisor is checked, a constant one is not",
			fn:   "q",
			body: `(function q (input (a I64) (b I64)) (output I64)
			         (body (+ (/ a b) (+ (/ a 3) (% a -1)))))`,
			want: map[string]int{`i64\.eqz`: 1, `i64\.div_s`: 2, `i64\.rem_s`: 1, `division by zero`: 1},
		},
		{
			name: "no depth traffic through globals",
			fn:   "f",
			body: `(function g (input (x I32)) (output I32) (body (* x 3)))
			       (function f (input (x I32)) (output I32) (body (+ (g x) (g (+ x 1)))))`,
			want: map[string]int{`global\.get \$caps\.depth`: 0, `global\.set \$caps\.depth`: 0,
				`global\.get \$caps\.entry_depth`: 0, `call \$g`: 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pkg := testutil.LoadSource(t, "(module shape.m\n  (capsule \"1\")\n  "+tc.body+")\n")
			cm := core.Lower(pkg.Result)
			if len(cm.Unsupported) > 0 {
				t.Fatalf("unsupported: %v", cm.Unsupported)
			}
			m, err := wasm.Compile(cm)
			if err != nil {
				t.Fatal(err)
			}
			text := funcText(t, m.WAT, tc.fn)
			for re, n := range tc.want {
				if got := len(regexp.MustCompile(re).FindAllString(text, -1)); got != n {
					t.Errorf("%s: %d occurrences, want %d\n%s", re, got, n, text)
				}
			}
			// The export is a wrapper that passes caps.entry_depth.
			if !strings.Contains(m.WAT, `(func (export "`+tc.fn+`")`) {
				t.Errorf("no exported wrapper for %s", tc.fn)
			}
		})
	}
}

// TestLEB128 checks the immediate encodings against known bytes.
func TestLEB128(t *testing.T) {
	pkg := testutil.LoadSource(t, `(module leb.m
  (capsule "1")
  (function c (input (x I64)) (output I64) (body (+ x 624485))))
`)
	m, err := wasm.Compile(core.Lower(pkg.Result))
	if err != nil {
		t.Fatal(err)
	}
	// i64.const 624485 is 0x42 then E5 8E 26 (the signed LEB128 example
	// of the WebAssembly specification).
	if !strings.Contains(string(m.Binary), "\x42\xE5\x8E\x26") {
		t.Errorf("i64.const 624485 not encoded as 42 E5 8E 26")
	}
}
