package syntax

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
)

// checkReadText checks that ReadText reads src exactly as Read(Parse(src))
// does: the same forms, comments, diagnostics and depth flag, and the same
// text and line index. It also reports whether ReadText took the scanner's
// path (its CST has no nodes).
func checkReadText(t *testing.T, src []byte) (scanned bool) {
	t.Helper()
	c, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	want := Read(c)
	got, err := ReadText(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameFormTrees(want.Forms, got.Forms); err != "" {
		t.Fatalf("%.80q: forms differ: %s", src, err)
	}
	if d := cmp.Diff(want.Comments, got.Comments); d != "" {
		t.Fatalf("%.80q: comments differ (-Read +ReadText):\n%s", src, d)
	}
	if d := cmp.Diff(want.Diagnostics, got.Diagnostics); d != "" {
		t.Fatalf("%.80q: diagnostics differ (-Read +ReadText):\n%s", src, d)
	}
	if want.TooDeep != got.TooDeep {
		t.Fatalf("%.80q: TooDeep %v, ReadText %v", src, want.TooDeep, got.TooDeep)
	}
	if string(got.CST.Src) != string(src) || got.CST.Lines.Count() != c.Lines.Count() {
		t.Fatalf("%.80q: ReadText's CST has other text or lines", src)
	}
	return got.CST.Len() == 0
}

func TestReadTextMatchesRead(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		scanned bool // read from the scanner's tokens, without a node array
	}{
		{"empty", "", true},
		{"module", "(module m (capsule \"1.0\")\n  ;; doc\n  (function f (input (x I64)) (output I64) (body (+ x 1))) ; trailing\n)\n", true},
		{"strings and escapes", `(a "x\ny" "\u{1F600}" "\q" "\u{110000}" "\u" "plain" "")`, true},
		{"comments only", ";a\n;b\r\n;c", true},
		{"byte order marks", "\ufeff(a)\ufeff ;c", true},
		{"numbers and symbols", "(-7 30m 0.5 a.b -x <= ✓)", true},
		{"too deep", strings.Repeat("(", MaxDepth+5) + "x" + strings.Repeat(")", MaxDepth+5), true},
		{"unclosed", "(a (b", false},
		{"stray close", "(a) )", false},
		{"brackets", "(a [b])", false},
		{"unterminated string", "(a \"b\n)", false},
		{"nul byte", "(a \x00)", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkReadText(t, []byte(tc.src)); got != tc.scanned {
				t.Errorf("scanned = %v, want %v", got, tc.scanned)
			}
		})
	}
}

func TestReadTextCorpus(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.caps")
	more, _ := filepath.Glob("../testdata/*/*.caps")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no example files found")
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checkReadText(t, src)
	}
	for _, s := range scanSeeds {
		checkReadText(t, []byte(s))
	}
	if !checkReadText(t, gen.Functions(64<<10)) {
		t.Error("the generated module was not read from the scanner's tokens")
	}
}

// sameFormTrees compares two form trees field by field (cmp.Diff takes
// too long on lists nested hundreds deep) and describes the first
// difference, or returns "".
func sameFormTrees(a, b []*Form) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d forms, then %d", len(a), len(b))
	}
	for i, x := range a {
		y := b[i]
		if x.Kind != y.Kind || x.Closed != y.Closed || x.Span() != y.Span() || x.Text() != y.Text() {
			return fmt.Sprintf("%+v, then %+v", *x, *y)
		}
		if d := sameFormTrees(x.Items(), y.Items()); d != "" {
			return d
		}
	}
	return ""
}
