package main

import (
	"bufio"
	"flag"
	"fmt"
	"runtime"
	"strconv"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/syntax"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "parse",
		Output:   func() cli.Schema { return report.ResultSchema(parseExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)"}, Writes: nil},
		Example:  cli.Example{Line: "caps parse --json examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps parse --json testdata/no-such-file.caps", Exit: 2},
		Args:     "[--json] FILE",
		Short:    "print the S-expression forms of a file and its syntax errors",
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
	// The outline needs only the forms, the text and its lines: ReadText
	// builds no CST node array for clean text, and the one tree-sitter
	// builds for other text is let go once read.
	src, err := syntax.ReadText(f.Text)
	if err != nil {
		p.Fail(path, fmt.Errorf("%s: %v", cli.DisplayPath(path), err))
		return p.Finish()
	}
	lines := src.CST.Lines
	src.CST = nil
	if len(f.Text) >= 1<<20 {
		// Collect what reading left behind (its tokens) before printing,
		// so that printing reuses that memory instead of growing the heap.
		runtime.GC()
	}
	if jsonOut {
		file := p.Add(&report.Source{Path: path, Text: f.Text, Lines: lines}, src.Diagnostics)
		file.Extra = parseExtra{formsJSON(f.Text, lines, src.Forms)}
		return p.Finish()
	}
	printOutline(c, f.Text, lines, src.Forms)
	p.Add(&report.Source{Path: path, Text: f.Text, Lines: lines}, src.Diagnostics)
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
func formsJSON(text []byte, lines *syntax.Mapper, forms []*syntax.Form) []*formJSON {
	starts := lines.Cursor(syntax.UTF16)
	ends := lines.Cursor(syntax.UTF16)
	var conv func(f *syntax.Form) *formJSON
	conv = func(f *syntax.Form) *formJSON {
		j := &formJSON{Kind: f.Kind.String()}
		j.Range.Start = starts.Position(f.Span().Start)
		if f.Kind == syntax.FormList {
			closed := f.Closed
			j.Closed = &closed
			items := make([]*formJSON, len(f.Items()))
			for i, it := range f.Items() {
				items[i] = conv(it)
			}
			j.Items = &items
		} else {
			t := f.Text()
			j.Text = &t
		}
		j.Range.End = ends.Position(f.Span().End)
		return j
	}
	out := make([]*formJSON, len(forms))
	for i, f := range forms {
		out[i] = conv(f)
	}
	return out
}

// printOutline prints one line per form: its range, then the form indented
// by depth. The ranges are padded to the widest, so it makes two passes:
// the first finds the width and records each form's end position (ends
// are met in postorder, as the forms close); the second prints, finding
// the starts again in preorder. Both passes convert offsets in
// nondecreasing order, so the cost is linear even for one very long line,
// and no line is held in memory before it is written.
// countForms returns the number of forms in forms and their items, at
// every depth.
func countForms(forms []*syntax.Form) int {
	n := len(forms)
	for _, f := range forms {
		n += countForms(f.Items())
	}
	return n
}

func printOutline(c *cli.Context, text []byte, lines *syntax.Mapper, forms []*syntax.Form) {
	starts := lines.Cursor(syntax.UTF32)
	ends := lines.Cursor(syntax.UTF32)
	// endPos is sized once: grown by appending, on a large file its
	// discarded copies were most of caps parse's peak memory (issue 19).
	endPos := make([]outlinePos, 0, countForms(forms)) // by form, in preorder
	width := 0
	var measure func(f *syntax.Form)
	measure = func(f *syntax.Form) {
		s := starts.Position(f.Span().Start)
		i := len(endPos)
		endPos = append(endPos, outlinePos{})
		for _, it := range f.Items() {
			measure(it)
		}
		e := ends.Position(f.Span().End)
		endPos[i] = outlinePos{int32(e.Line), int32(e.Character)}
		width = max(width, rangeWidth(s, e))
	}
	for _, f := range forms {
		measure(f)
	}

	w := bufio.NewWriter(c.Stdout)
	starts = lines.Cursor(syntax.UTF32)
	var row []byte
	next := 0
	var print func(f *syntax.Form, depth int)
	print = func(f *syntax.Form, depth int) {
		s := starts.Position(f.Span().Start)
		e := endPos[next]
		next++
		row = appendRange(row[:0], s, syntax.Position{Line: int(e.line), Character: int(e.char)})
		for n := len(row); n < width+2; n++ {
			row = append(row, ' ')
		}
		for range depth {
			row = append(row, "  "...)
		}
		row = append(appendDesc(row, f), '\n')
		w.Write(row)
		for _, it := range f.Items() {
			print(it, depth+1)
		}
	}
	for _, f := range forms {
		print(f, 0)
	}
	w.Flush()
}

// outlinePos is a 0-based position, kept compactly for every form.
type outlinePos struct{ line, char int32 }

// appendRange appends the outline's range of a form, 1-based and end
// exclusive: 1:2-1:8.
func appendRange(b []byte, s, e syntax.Position) []byte {
	b = strconv.AppendInt(b, int64(s.Line+1), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(s.Character+1), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(e.Line+1), 10)
	b = append(b, ':')
	return strconv.AppendInt(b, int64(e.Character+1), 10)
}

// rangeWidth returns the length of the range appendRange writes.
func rangeWidth(s, e syntax.Position) int {
	return digits(s.Line+1) + digits(s.Character+1) + digits(e.Line+1) + digits(e.Character+1) + 3
}

// digits returns the number of decimal digits of n >= 0.
func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// appendDesc appends what the outline says of a form: list, list
// (unclosed), string "text" (quoted as Go does), or the kind and text of a
// symbol or number.
func appendDesc(b []byte, f *syntax.Form) []byte {
	switch f.Kind {
	case syntax.FormList:
		if !f.Closed {
			return append(b, "list (unclosed)"...)
		}
		return append(b, "list"...)
	case syntax.FormString:
		return strconv.AppendQuote(append(b, "string "...), f.Text())
	}
	b = append(b, f.Kind.String()...)
	b = append(b, ' ')
	return append(b, f.Text()...)
}

// parseExtra is the JSON output of this command (see its Output schema).
type parseExtra struct {
	Forms []*formJSON `json:"forms"`
}
