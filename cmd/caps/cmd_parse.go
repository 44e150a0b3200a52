package main

import (
	"bufio"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/syntax"
)

func init() {
	cli.Register(&cli.Command{
		Name:  "parse",
		Args:  "[--json] FILE",
		Short: "print the S-expression forms of a file and its syntax errors",
		Long: `Parse reads FILE ("-" for stdin) and prints its generic S-expression forms
(lists, symbols, numbers and strings) before any Capsulang meaning is given
to them, followed by its syntax diagnostics. It exits with 1 when the file
has syntax errors.

The text output is an outline, one form per line, indented by nesting and
prefixed with its range (1-based line:column in Unicode code points, end
exclusive):

    1:1-3:9    list
    1:2-1:8      symbol module
    1:9-1:14     symbol hello

With --json it prints {"ok", "files": [{"path", "diagnostics", "forms"}]}
where each form is {"kind", "range"} plus "text" (symbols and numbers: the
source text; strings: the decoded value) or "closed" and "items" (lists).
Ranges are LSP ranges: 0-based lines, UTF-16 characters.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE, got %d arguments", len(args))
				}
				return runParse(c, args[0], *jsonOut)
			}
		},
	})
}

func runParse(c *cli.Context, path string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	f, err := c.Load(path)
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	cst, err := syntax.Parse(f.Text)
	if err != nil {
		p.Fail(path, fmt.Errorf("%s: %v", cli.DisplayPath(path), err))
		return p.Finish()
	}
	src := syntax.Read(cst)
	if jsonOut {
		file := p.Add(&report.Source{Path: path, Text: f.Text, Lines: cst.Lines}, src.Diagnostics)
		file.Extra = struct {
			Forms []*formJSON `json:"forms"`
		}{formsJSON(f.Text, cst.Lines, src.Forms)}
		return p.Finish()
	}
	printOutline(c, f.Text, cst.Lines, src.Forms)
	p.Add(&report.Source{Path: path, Text: f.Text, Lines: cst.Lines}, src.Diagnostics)
	return p.Finish()
}

type formJSON struct {
	Kind   string       `json:"kind"`
	Range  syntax.Range `json:"range"`
	Text   *string      `json:"text,omitempty"`
	Closed *bool        `json:"closed,omitempty"`
	Items  *[]*formJSON `json:"items,omitempty"`
}

// formsJSON converts forms with two converters: starts are met in
// preorder and ends in postorder, both in nondecreasing offset order, so
// the conversion is linear even for one very long line.
func formsJSON(text []byte, lines *syntax.Lines, forms []*syntax.Form) []*formJSON {
	starts := report.NewConverter(text, lines, syntax.UTF16)
	ends := report.NewConverter(text, lines, syntax.UTF16)
	var conv func(f *syntax.Form) *formJSON
	conv = func(f *syntax.Form) *formJSON {
		j := &formJSON{Kind: f.Kind.String()}
		j.Range.Start = starts.Position(f.Span.Start)
		if f.Kind == syntax.FormList {
			closed := f.Closed
			j.Closed = &closed
			items := make([]*formJSON, len(f.Items))
			for i, it := range f.Items {
				items[i] = conv(it)
			}
			j.Items = &items
		} else {
			t := f.Text
			j.Text = &t
		}
		j.Range.End = ends.Position(f.Span.End)
		return j
	}
	out := make([]*formJSON, len(forms))
	for i, f := range forms {
		out[i] = conv(f)
	}
	return out
}

// printOutline prints one line per form: its range, then the form indented
// by depth.
func printOutline(c *cli.Context, text []byte, lines *syntax.Lines, forms []*syntax.Form) {
	type row struct {
		rng   string
		depth int
		desc  string
	}
	var rows []row
	starts := report.NewConverter(text, lines, syntax.UTF32)
	ends := report.NewConverter(text, lines, syntax.UTF32)
	var walk func(f *syntax.Form, depth int)
	walk = func(f *syntax.Form, depth int) {
		s := starts.Position(f.Span.Start)
		i := len(rows)
		var desc string
		switch f.Kind {
		case syntax.FormList:
			desc = "list"
			if !f.Closed {
				desc = "list (unclosed)"
			}
		case syntax.FormString:
			desc = "string " + strconv.Quote(f.Text)
		default:
			desc = f.Kind.String() + " " + f.Text
		}
		rows = append(rows, row{depth: depth, desc: desc})
		for _, it := range f.Items {
			walk(it, depth+1)
		}
		e := ends.Position(f.Span.End)
		rows[i].rng = fmt.Sprintf("%d:%d-%d:%d", s.Line+1, s.Character+1, e.Line+1, e.Character+1)
	}
	for _, f := range forms {
		walk(f, 0)
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r.rng))
	}
	w := bufio.NewWriter(c.Stdout)
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s  %s%s\n", width, r.rng, strings.Repeat("  ", r.depth), r.desc)
	}
	w.Flush()
}
