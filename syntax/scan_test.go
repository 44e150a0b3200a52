package syntax

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/capsulang/caps/bench/gen"
	capsulang "github.com/capsulang/caps/tree-sitter-capsulang/golang"
)

// treeSitterNodes parses src with tree-sitter alone and flattens the tree.
func treeSitterNodes(t testing.TB, src []byte) []Node {
	t.Helper()
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(Language())
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	return capsulang.Flatten(tree, nil)
}

// checkScan checks the scanner against tree-sitter on src: where the
// scanner builds a CST it must equal tree-sitter's node for node, and it
// may decline only text that tree-sitter parses with an error (or that
// holds a NUL byte or invalid UTF-8).
func checkScan(t *testing.T, src []byte) {
	t.Helper()
	want := treeSitterNodes(t, src)
	got := scan(src)
	if got == nil {
		if len(want) > 0 && want[0].Flags&capsulang.FlagHasError == 0 && !strings.ContainsRune(string(src), 0) && !strings.ContainsRune(string(src), '\uFFFD') {
			t.Fatalf("scan declined %q, which tree-sitter parses without error", src)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%q: scan gives %d nodes, tree-sitter %d\n got %+v\nwant %+v", src, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%q: node %d differs\n got %+v\nwant %+v", src, i, got[i], want[i])
		}
	}
}

// scanSeeds are texts at the edges of the token rules.
var scanSeeds = []string{
	"", "  ", "\n", " ;c\n", ";c", ";c\r\n;d\r", "  (a) ", "\n(a ;x\n) ;y\n ", "(a) ; trailing",
	`""`, `"a\u{12"`, `"\u{1F600}"`, `"\u{1234567}"`, `"\u{}"`, `"\u"`, `"\\\""`, "\"\\\r\"", `"\é"`,
	"\"a\\\nb\"", "\"a\nb\"", "\"unterminated", `"a" "b"`, `"x";c`, "\"\t \v\f;\"",
	" \ufeff(a)", "(a)\ufeff", "x\ufeffy", "\ufeff", "\ufeff\ufeff;c",
	"-7+ -x - 7a+b 1.2.3", "-", "--7", "-.5", "7", "7-", "0x1F", "1_000", "30m", "a-7",
	`\u{1F600}`, `\x`, "a\\b", "(a [b] {c})", "[", "}", "((((", "))))", "(a))", "(()", "()",
	"(module m (capsule \"1.0\") (function f (input (x I64)) (output I64) (body (+ x 1))))\n",
	"(é 😀 中 \u0085 \u00a0x)", "a\u2028b", "(\x01 \x1f \x7f)", "(a\x0bb)", "(a\x0cb)",
	"(\x00)", "(\xff)", "a'b`c~d|e!f#g$h%i&j*k+l,m.n/o:p<q=r>s?t@u^v", "a\"b", "a;b", "a(b)c",
	strings.Repeat("(", 300) + strings.Repeat(")", 300),
}

func TestScanMatchesTreeSitter(t *testing.T) {
	for _, s := range scanSeeds {
		checkScan(t, []byte(s))
	}
	files, _ := filepath.Glob("../examples/*.caps")
	more, _ := filepath.Glob("../testdata/*/*.caps")
	for _, path := range append(files, more...) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checkScan(t, src)
	}
	checkScan(t, gen.Module(300))
}

// TestScanRandom checks the scanner on random sequences of tokens,
// fragments and separators.
func TestScanRandom(t *testing.T) {
	parts := []string{
		"(", ")", "(", ")", " ", "\n", "\r\n", "\t", "a", "-", "7", "-7", "x.y", "+", "é", "😀", "\ufeff",
		`"`, `"s"`, `"a b"`, `\`, `\n`, `\u{41}`, `\u{`, "u", "{", "}", "[", ";c", "; é\n", ".", "_", "\r", "\x0b",
	}
	r := rand.New(rand.NewSource(1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		var b strings.Builder
		depth := 0
		balance := i%2 == 0 // every other text gets balanced parentheses
		for k := r.Intn(30); k >= 0; k-- {
			p := parts[r.Intn(len(parts))]
			switch {
			case balance && p == ")" && depth == 0:
				continue
			case p == "(":
				depth++
			case p == ")":
				depth--
			}
			b.WriteString(p)
		}
		if balance {
			b.WriteString(strings.Repeat(")", max(depth, 0)))
		}
		checkScan(t, []byte(b.String()))
	}
}

// FuzzScan compares the scanner with tree-sitter on arbitrary text.
func FuzzScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkScan(t, src)
	})
}

// TestParseUsesScanner checks that Parse takes the scanner's tree for text
// without syntax errors and tree-sitter's otherwise, with equal results
// either way.
func TestParseUsesScanner(t *testing.T) {
	for _, s := range []string{"(a (b \"c\") ; d\n)", "(a (b", "(a [b])"} {
		c, err := Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		want := treeSitterNodes(t, []byte(s))
		if c.Len() != len(want) {
			t.Fatalf("%q: %d nodes, tree-sitter %d", s, c.Len(), len(want))
		}
		for i := range want {
			if c.Node(int32(i)) != want[i] {
				t.Fatalf("%q: node %d: %+v, tree-sitter %+v", s, i, c.Node(int32(i)), want[i])
			}
		}
	}
}
