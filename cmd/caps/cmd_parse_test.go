package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/syntax"
)

// referenceOutline is the outline as first written: every row built as a
// string, then printed with fmt. printOutline must print the same bytes.
func referenceOutline(text []byte, lines *syntax.Mapper, forms []*syntax.Form) string {
	type row struct {
		rng   string
		depth int
		desc  string
	}
	var rows []row
	starts := lines.Cursor(syntax.UTF32)
	ends := lines.Cursor(syntax.UTF32)
	var walk func(f *syntax.Form, depth int)
	walk = func(f *syntax.Form, depth int) {
		s := starts.Position(f.Span().Start)
		i := len(rows)
		var desc string
		switch f.Kind {
		case syntax.FormList:
			desc = "list"
			if !f.Closed {
				desc = "list (unclosed)"
			}
		case syntax.FormString:
			desc = "string " + strconv.Quote(f.Text())
		default:
			desc = f.Kind.String() + " " + f.Text()
		}
		rows = append(rows, row{depth: depth, desc: desc})
		for _, it := range f.Items() {
			walk(it, depth+1)
		}
		e := ends.Position(f.Span().End)
		rows[i].rng = fmt.Sprintf("%d:%d-%d:%d", s.Line+1, s.Character+1, e.Line+1, e.Character+1)
	}
	for _, f := range forms {
		walk(f, 0)
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r.rng))
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s  %s%s\n", width, r.rng, strings.Repeat("  ", r.depth), r.desc)
	}
	return b.String()
}

func TestOutlineMatchesReference(t *testing.T) {
	texts := []string{
		"", "(a)", "(a\n b)\n", "(module m (capsule \"1.0\") (function f (body (+ 1 2))))",
		"(a \"x\\u{1F600}\\n\" -7 30m é 😀)\r\n(b\r\n c)", "((((", "(a))", "\"unterminated",
		strings.Repeat("(", 300) + strings.Repeat(")", 300),
		strings.Repeat("(x\n", 12) + strings.Repeat(")", 12),
	}
	pieces := []string{"(", ")", "a", " ", "\n", "é", "😀", "\"s\\t\"", "-7", "\r\n", ";c\n"}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		var b strings.Builder
		for k := r.Intn(60); k >= 0; k-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		c, err := syntax.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		forms := syntax.Read(c).Forms
		var out bytes.Buffer
		printOutline(&cli.Context{Stdout: &out}, c.Src, c.Lines, forms)
		if want := referenceOutline(c.Src, c.Lines, forms); out.String() != want {
			t.Fatalf("outline of %q:\n%s\nwant:\n%s", text, out.String(), want)
		}
	}
}
