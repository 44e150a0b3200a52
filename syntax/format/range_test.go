package format

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func apply(src []byte, a, b int, text []byte) string {
	return string(src[:a]) + string(text) + string(src[b:])
}

const messy = `;; header
(module demo.range
   (capsule "1.0")

   (function   one (input (x U64))
       (output U64) (body x))
   (function two (input (x U64))   (output U64)
         (body (+ x
      2)))



   (type Three U64) ; trailing
)
(extra   form)
`

const wholeModule = `;; header
(module demo.range
  (capsule "1.0")

  (function one
    (input (x U64))
    (output U64)
    (body x))
  (function two
    (input (x U64))
    (output U64)
    (body (+ x 2)))

  (type Three U64)) ; trailing
(extra   form)
`

func TestRange(t *testing.T) {
	at := func(s string) int {
		i := strings.Index(messy, s)
		if i < 0 {
			t.Fatalf("%q not in source", s)
		}
		return i
	}
	tests := []struct {
		name       string
		start, end int
		want       string
	}{
		{
			"inside one declaration",
			at("(output U64) (body x)"), at("(output U64) (body x)") + 3,
			`;; header
(module demo.range
   (capsule "1.0")

  (function one
    (input (x U64))
    (output U64)
    (body x))
   (function two (input (x U64))   (output U64)
         (body (+ x
      2)))



   (type Three U64) ; trailing
)
(extra   form)
`,
		},
		{
			"cursor in the second declaration, blank lines after it normalized",
			at("2)))"), at("2)))"),
			`;; header
(module demo.range
   (capsule "1.0")

   (function   one (input (x U64))
       (output U64) (body x))
  (function two
    (input (x U64))
    (output U64)
    (body (+ x 2)))

   (type Three U64) ; trailing
)
(extra   form)
`,
		},
		{
			"two declarations, selected from the start of the line",
			at("   (function   one"), at("(body (+ x"),
			`;; header
(module demo.range
   (capsule "1.0")

  (function one
    (input (x U64))
    (output U64)
    (body x))
  (function two
    (input (x U64))
    (output U64)
    (body (+ x 2)))

   (type Three U64) ; trailing
)
(extra   form)
`,
		},
		{
			// The trailing comment belongs after the module's ")" once
			// formatted, so the whole module is formatted.
			"last declaration with a comment that leaves the module",
			at("(type Three"), at("(type Three") + 1,
			wholeModule,
		},
		{
			"module header selects the whole module",
			at("demo.range"), at("demo.range") + 2,
			wholeModule,
		},
		{
			"top-level form outside the module",
			at("form"), at("form"),
			`;; header
(module demo.range
   (capsule "1.0")

   (function   one (input (x U64))
       (output U64) (body x))
   (function two (input (x U64))   (output U64)
         (body (+ x
      2)))



   (type Three U64) ; trailing
)
(extra form)
`,
		},
		{
			"between declarations: no edit",
			at("\n\n\n\n   (type") + 2, at("\n\n\n\n   (type") + 3,
			messy,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(messy)
			a, b, text, err := Range(src, tt.start, tt.end)
			if err != nil {
				t.Fatal(err)
			}
			if messy != string(src) {
				t.Fatal("Range modified its input")
			}
			got := apply(src, a, b, text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// Range formatting never changes what Source makes of the file.
			full, err := Source(src)
			if err != nil {
				t.Fatal(err)
			}
			after, err := Source([]byte(got))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(full), string(after)); diff != "" {
				t.Errorf("Source after Range differs (-before +after):\n%s", diff)
			}
		})
	}
}

func TestRangeFallback(t *testing.T) {
	// The comment after x belongs after the module's ")" once formatted, so
	// formatting only the function would lose it: the module is formatted.
	src := []byte("(module m\n  (capsule \"1\")\n    (function f (body x ; note\n)))\n")
	i := strings.Index(string(src), "(function")
	a, b, text, err := Range(src, i, i+1)
	if err != nil {
		t.Fatal(err)
	}
	want := "(module m\n  (capsule \"1\")\n  (function f\n    (body x))) ; note\n"
	if got := apply(src, a, b, text); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestRangeErrors(t *testing.T) {
	if _, _, _, err := Range([]byte("(a)"), 2, 1); err == nil {
		t.Error("inverted range accepted")
	}
	if _, _, _, err := Range([]byte("(a)"), 0, 4); err == nil {
		t.Error("range past the end accepted")
	}
	var se *SyntaxError
	if _, _, _, err := Range([]byte("(a))\n(b   c)"), 5, 6); !errors.As(err, &se) {
		t.Errorf("got %v, want a syntax error", err)
	}
}

// For every golden input, formatting the whole file as a range gives what
// Source gives, and formatting any single unit keeps the canonical result.
func TestRangeGoldens(t *testing.T) {
	ins, _ := filepath.Glob(filepath.Join(goldenDir, "*.in.caps"))
	for _, in := range ins {
		src, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		full, err := Source(src)
		if err != nil {
			continue
		}
		t.Run(filepath.Base(in), func(t *testing.T) {
			a, b, text, err := Range(src, 0, len(src))
			if err != nil {
				t.Fatal(err)
			}
			if got := apply(src, a, b, text); got != string(full) {
				t.Errorf("whole-file range differs from Source:\n%s", cmp.Diff(string(full), got))
			}
			// Every 7th offset as a cursor.
			for off := 0; off <= len(src); off += 7 {
				a, b, text, err := Range(src, off, off)
				if err != nil {
					t.Fatal(err)
				}
				got := apply(src, a, b, text)
				again, err := Source([]byte(got))
				if err != nil {
					t.Fatalf("offset %d: %v", off, err)
				}
				if string(again) != string(full) {
					t.Fatalf("offset %d: result formats differently:\n%s", off, cmp.Diff(string(full), string(again)))
				}
			}
		})
	}
}
