package syntax

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// sexp prints forms compactly, marking unclosed lists with '!'.
func sexp(fs []*Form) string {
	var b strings.Builder
	var w func(f *Form)
	w = func(f *Form) {
		switch f.Kind {
		case FormList:
			b.WriteByte('(')
			for i, it := range f.Items() {
				if i > 0 {
					b.WriteByte(' ')
				}
				w(it)
			}
			if f.Closed {
				b.WriteByte(')')
			} else {
				b.WriteByte('!')
			}
		case FormString:
			fmt.Fprintf(&b, "%q", f.Text())
		default:
			b.WriteString(f.Text())
		}
	}
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(' ')
		}
		w(f)
	}
	return b.String()
}

type diagLine struct {
	Code string
	At   string // "line:col-line:col", 0-based byte columns
	Msg  string
}

func diagLines(c *CST, ds []Diagnostic) []diagLine {
	var out []diagLine
	for _, d := range ds {
		r := c.Lines.Range(d.Span, UTF8)
		out = append(out, diagLine{d.Code, fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character), d.Message})
	}
	return out
}

func TestRead(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		forms string
		diags []string // "code at" pairs
	}{
		{"atoms", `(a -7 0.5 30m "x\ty" true)`, `(a -7 0.5 30m "x\ty" true)`, nil},
		{"comments", "; head\n(a ; inner\n b) ; tail", "(a b)", nil},
		{"empty", "", "", nil},
		{"unicode", "(a \"héllo 😀\" ; 😀 comment\n b)", "(a \"héllo 😀\" b)", nil},
		{
			"missing paren inside module",
			"(module m\n  (function f\n    (body (+ 1 2))\n  (function g (body 1)))\n",
			"(module m (function f (body (+ 1 2))! (function g (body 1)))",
			[]string{"E_PARSE 2:18-2:18"},
		},
		{
			"extra paren inside module",
			"(module m\n  (function f (body 1)))\n  (function g (body 2)))\n",
			"(module m (function f (body 1)) (function g (body 2)))",
			[]string{"E_PARSE 1:23-1:24"},
		},
		{
			"missing paren at end",
			"(module m\n  (a b)\n  (c d\n",
			"(module m (a b) (c d!!",
			[]string{"E_PARSE 2:6-2:6", "E_PARSE 2:6-2:6"},
		},
		{
			"stray close at top",
			"(a b))\n(c)",
			"(a b) (c)",
			[]string{"E_PARSE 0:5-0:6"},
		},
		{
			"unterminated string stays on its line",
			"(module m\n  (title \"abc)\n  (route \"/x\"))",
			"(module m (title \"abc)\"! (route \"/x\"))",
			[]string{"E_PARSE 1:14-1:14", "E_PARSE 1:14-1:14"},
		},
		{"bad escape", `(a "x\qy")`, `(a "xy")`, []string{"E_BAD_LITERAL 0:5-0:7"}},
		{"unicode escape", `(a "\u{1F600}")`, `(a "😀")`, nil},
		{"brackets", "(a [b] c)", "(a b c)", []string{"E_PARSE 0:3-0:4", "E_PARSE 0:5-0:6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			s := Read(c)
			if got := sexp(s.Forms); got != tt.forms {
				t.Errorf("forms:\n got %s\nwant %s", got, tt.forms)
			}
			var got []string
			for _, d := range diagLines(c, s.Diagnostics) {
				got = append(got, d.Code+" "+d.At)
			}
			if diff := cmp.Diff(tt.diags, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, diagLines(c, s.Diagnostics))
			}
		})
	}
}

func TestReadDeepNesting(t *testing.T) {
	src := strings.Repeat("(", 100000) + strings.Repeat(")", 100000)
	c, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := Read(c)
	if len(s.Diagnostics) != 1 || s.Diagnostics[0].Span != (Span{MaxDepth, MaxDepth + 1}) {
		t.Fatalf("diagnostics %+v", s.Diagnostics)
	}
	depth := 0
	for f := s.Forms[0]; f != nil; depth++ {
		if len(f.Items()) == 0 {
			break
		}
		f = f.Items()[0]
	}
	if depth != MaxDepth-1 {
		t.Fatalf("kept depth %d", depth)
	}
}

func TestStringOffsets(t *testing.T) {
	tests := []struct {
		raw  string
		want []int
	}{
		{`"ab"`, []int{1, 2, 3}},
		{`"a\"b"`, []int{1, 2, 4, 5}},
		{`"\n\\"`, []int{1, 3, 5}},
		{`"é"`, []int{1, 2, 3}},
		{`"\u{E9}x"`, []int{1, 1, 7, 8}},
		{`"\q"`, nil},
		{`"ab`, nil},
		{`"\u{D800}"`, nil},
	}
	for _, tc := range tests {
		if got := StringOffsets(tc.raw); !slices.Equal(got, tc.want) {
			t.Errorf("StringOffsets(%s) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}

// TestFormSize keeps a form at 24 bytes: a large file has one for every
// token, and issue 19's memory target counts them.
func TestFormSize(t *testing.T) {
	if got := unsafe.Sizeof(Form{}); got != 24 {
		t.Errorf("a Form is %d bytes, want 24", got)
	}
}

// TestFormAccessors checks what the accessors of made forms return: a
// list's items and no text, an atom's text and no items, the head of a
// list that starts with a symbol.
func TestFormAccessors(t *testing.T) {
	x := NewAtom(FormSymbol, Span{1, 2}, "x")
	s := NewAtom(FormString, Span{3, 8}, "a\"b")
	empty := NewList(Span{9, 11}, nil, true)
	l := NewList(Span{0, 12}, []*Form{x, s, empty}, false)
	type view struct {
		Kind   FormKind
		Span   Span
		Closed bool
		Text   string
		Items  int
		Head   string
	}
	see := func(f *Form) view {
		return view{f.Kind, f.Span(), f.Closed, f.Text(), len(f.Items()), f.Head()}
	}
	got := []view{see(x), see(s), see(empty), see(l)}
	want := []view{
		{FormSymbol, Span{1, 2}, false, "x", 0, ""},
		{FormString, Span{3, 8}, false, "a\"b", 0, ""},
		{FormList, Span{9, 11}, true, "", 0, ""},
		{FormList, Span{0, 12}, false, "", 3, "x"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("forms (-want +got):\n%s", d)
	}
	if l.Items()[1] != s || l.Items()[2] != empty || cap(l.Items()) != 3 {
		t.Errorf("items = %v (cap %d), want the three forms given", l.Items(), cap(l.Items()))
	}
	if empty.Items() != nil || x.Items() != nil || NewList(Span{}, []*Form{s}, true).Head() != "" {
		t.Errorf("an empty list or an atom has items, or a list headed by a string has a head")
	}
}
