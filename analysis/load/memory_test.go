package load

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoadKeepsNoNodes checks that a loaded package keeps its text and line
// index but not its CST's node array (about ten bytes per source byte),
// whichever reader built the tree: the scanner for clean text, tree-sitter
// for text with a syntax error. Diagnostics still map to lines.
func TestLoadKeepsNoNodes(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src string
		codes     []string
	}{
		{"clean.caps", "(module clean (capsule \"1\")\n  (function f (input (x I64)) (output I64) (body (+ x 1))))\n", nil},
		{"broken.caps", "(module broken (capsule \"1\")\n  (function f (input (x I64)) (output I64) (body (+ x 1)))\n", []string{"E_PARSE "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l Loader
			p, err := l.Load(write(t, dir, tc.name, tc.src))
			if err != nil {
				t.Fatal(err)
			}
			c := p.File.Source.CST
			if c.Nodes != nil {
				t.Errorf("the loaded CST keeps %d nodes", len(c.Nodes))
			}
			if string(c.Src) != tc.src || c.Lines == nil || c.Lines.Count() != 3 {
				t.Errorf("the loaded CST lost its text or lines")
			}
			if d := cmp.Diff(tc.codes, codes(p)); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			if got, want := p.File.Exprs, 3; got != want {
				t.Errorf("File.Exprs = %d, want %d (+, x, 1)", got, want)
			}
		})
	}
}
