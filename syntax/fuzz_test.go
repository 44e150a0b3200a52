package syntax

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/capsulang/caps/bench/gen"
)

// FuzzRead parses and reads arbitrary input and checks the reader's
// invariants: no panic, every form inside the source and inside its parent,
// items in order, diagnostics inside the source, and no message word
// (quoted source text) longer than MaxQuoted characters.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"", "(", ")", "(a (b) \"c\\n\" -7 30m ; x\n)", "(a\n  (b\n  (c)))\n)", "\"abc", "(a [b] {c})", "(((((", "😀(é)",
		"(a \"\\u{" + strings.Repeat("F", 200) + "}\")", "(a \"\\" + strings.Repeat("😀", 100) + "\")", // huge escapes are clipped (issue 19, item 10)
		// issue 19: many one-line functions (once quadratic to check), and
		// many unclosed lists on one line (once quadratic to report)
		string(gen.Functions(4000)),
		"(module m (capsule \"1.0\")\n" + strings.Repeat("(", 3000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		s := Read(c)
		// ReadText, the batch tools' reader, reads it the same way.
		rt, err := ReadText(src)
		if err != nil {
			t.Fatal(err)
		}
		if d := sameFormTrees(s.Forms, rt.Forms); d != "" {
			t.Fatalf("ReadText's forms differ from Read's: %s", d)
		}
		if d := cmp.Diff(s, rt, cmpopts.IgnoreFields(Source{}, "CST", "Forms"), cmp.AllowUnexported(Source{})); d != "" {
			t.Fatalf("ReadText differs from Read (-Read +ReadText):\n%s", d)
		}
		var walk func(fs []*Form, parent Span, depth int)
		walk = func(fs []*Form, parent Span, depth int) {
			prev := parent.Start
			for _, f := range fs {
				if f.Span().Start < prev || f.Span().End > parent.End || f.Span().Start > f.Span().End {
					t.Fatalf("form %+v outside parent %+v or out of order (prev end %d) in %q", f.Span(), parent, prev, src)
				}
				prev = f.Span().End
				if depth > MaxDepth+1 {
					t.Fatalf("depth %d", depth)
				}
				walk(f.Items(), f.Span(), depth+1)
			}
		}
		walk(s.Forms, Span{0, len(src)}, 0)
		for _, d := range s.Diagnostics {
			if d.Span.Start < 0 || d.Span.End > len(src) || d.Span.Start > d.Span.End {
				t.Fatalf("diagnostic %+v outside source %q", d, src)
			}
			for _, w := range strings.Fields(d.Message) {
				if utf8.RuneCountInString(w) > MaxQuoted {
					t.Fatalf("message quotes a word of %d characters: %q", utf8.RuneCountInString(w), d.Message)
				}
			}
		}
	})
}
