// Package format is the canonical formatter for Capsulang source.
//
// There is one layout and no options, as with gofmt: Source reformats a whole
// file and Range reformats the declarations an editor selection touches. A
// file with any syntax diagnostic is refused (a *SyntaxError) and never
// rewritten, and every result is checked before it is returned: the output
// is parsed again and must hold the same forms (kinds, atom texts exactly as
// written, nesting) and the same comment texts in the same order as the
// input, or an error is returned instead of text. The output is read back
// in parts of about 64 KB (runs of top-level forms, or of a module's
// items, each read alone, then the text around them with each part
// replaced by a placeholder), which checks the same for a fraction of the
// memory that reading it whole would take. The layout keeps no record per
// form: only forms with comments or a blank line before them have notes,
// and widths are measured when a layout decision needs them, never more
// than a line's worth of forms at a time.
//
// # Layout
//
// Indentation is two spaces, lines end in LF (CRLF and lone CR input is
// normalized), no line has trailing whitespace and a non-empty result ends in
// exactly one newline. Atoms (symbols, numbers, strings) are printed exactly
// as written; items on a line are separated by one space. Widths are counted
// in Unicode code points; the line limit is 100 columns, counting the closing
// parentheses that pile up after a form.
//
// Declarations and block clauses always break, one item per line, indented
// two columns from their "(", after a header that stays on the first line:
//
//   - (module NAME ...), and (KIND NAME clause...) with at least one list
//     clause for KIND in function machine store surface port agent action
//     tool skill and the governance and authority forms (contract lineage
//     objective eval-suite successor-contract budget gate deployment-policy
//     improvement-record verification-hook principal mandate delegation
//     capability authority-policy trust-boundary telemetry-obligation
//     memory-policy zk-proof) and acceptance. With only atoms after NAME, as in
//     (capability CapA CapB) used as a clause, the list is an expression.
//   - (event NAME (field T)...) when it has payload fields; (event Approve)
//     and (event Approve Reject) are expressions.
//   - (state NAME clause...) of a machine; a state with a single clause that
//     is not an `on`, as in (state accepted (type final)), stays on one line
//     when it fits. (on EVENT clause...) directly inside a state.
//   - the clause lists context assign effects persistence public private and
//     (state (field T)...) of a surface, when they hold at least one list
//     ((effects pure) is an expression).
//   - field lists: (input (f T)...) and, inside (type NAME DEF), the
//     definitions (record ...) (variant ...) (error ...) (event ...) break
//     one member per line when they hold more than one list member or do not
//     fit on one line.
//   - (type NAME DEF) stays on one line when it fits and DEF does not break;
//     otherwise DEF goes on its own line.
//
// Every other list is an expression: it stays on one line when it fits and
// holds no comment. Otherwise it breaks with its head and first argument on
// the first line and the other arguments aligned under the first argument,
// each laid out by the same rules. When the head is itself a list, the
// remaining items go one per line, indented two columns, or aligned under
// the head when every item is a list (let bindings). When the first token
// of the first argument would pass column 100 after the head but not on a
// line of its own (a long head, or a long string argument), or a comment
// follows the head, every argument goes on its own line, indented two
// columns. Closing parentheses always pile up on the last line.
//
// Blank lines: at most one blank line is kept where the author had one or
// more, between the items of the file and of declaration and block lists;
// none at the start or end of a list and none inside expressions.
//
// Comments are kept in order, byte for byte (trailing whitespace trimmed). A
// comment on the same line after a form stays there, after one space; when
// the form is the last of its list the comment moves after the closing
// parentheses that pile up on that line. Other comments keep their own line
// at the indentation of the next item, or of the items when they end a list,
// in which case the list's ")" goes on the following line (the only case in
// which a ")" starts a line). A list holding a comment always breaks.
package format

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/capsulang/caps/syntax"
)

// SyntaxError is returned for a file that has syntax diagnostics. The file
// is not formatted.
type SyntaxError struct {
	Diagnostics []syntax.Diagnostic
	lines       *syntax.Mapper
}

func (e *SyntaxError) Error() string {
	var b strings.Builder
	b.WriteString("cannot format a file with syntax errors")
	if len(e.Diagnostics) > 0 {
		d := e.Diagnostics[0]
		fmt.Fprintf(&b, ": %s: %s", e.lines.Point(d.Span.Start), d.Message)
		if n := len(e.Diagnostics) - 1; n == 1 {
			b.WriteString(" (and 1 more error)")
		} else if n > 1 {
			fmt.Fprintf(&b, " (and %d more errors)", n)
		}
	}
	return b.String()
}

// ErrNotPreserved is wrapped by the error returned when the formatted text
// would not hold the same forms and comments as the input. It means a bug in
// the formatter; the input is left alone.
var ErrNotPreserved = errors.New("formatting would change the file's forms or comments")

// Source formats a whole file and returns the formatted text. src is not
// modified. A file with syntax errors is refused with a *SyntaxError.
func Source(src []byte) ([]byte, error) {
	f, err := load(src)
	if err != nil {
		return nil, err
	}
	if len(src) >= collectAfterRead {
		// Collect the reader's tokens now, so that the output reuses
		// their memory instead of growing the heap before the
		// collector's next scheduled run.
		runtime.GC()
	}
	phase("read")
	out := f.print()
	phase("print")
	if bytes.Equal(out, src) {
		return out, nil // reads as src did: nothing to verify
	}
	// The plan is all that verifying needs of f: once it is made, the
	// collector can have the forms, most of the memory of a large file.
	pl := f.plan()
	f = nil
	if len(src) >= collectAfterRead {
		runtime.GC()
	}
	if !pl.matches(out) {
		// Read the source again, to compare the output whole and say how
		// it differs.
		f, err := load(src)
		if err != nil {
			return nil, err
		}
		if err := same(f, out); err != nil {
			return nil, notPreserved(err)
		}
	}
	phase("verify")
	return out, nil
}

// phaseHook, when set (by tests), is called at the end of each phase of
// Source and before each collection that verify runs.
var phaseHook func(phase string)

func phase(name string) {
	if phaseHook != nil {
		phaseHook(name)
	}
}

// collectAfterRead is the smallest source, in bytes, after whose reading
// Source runs the garbage collector (a collection costs a millisecond or
// so on a small file, and there is nothing to gain there).
const collectAfterRead = 1 << 20

// unit is an item that Range may format alone: a top-level form, or an
// item of one, with where it is in the source and in the output, both
// with its attached comments.
type unit struct {
	form             *syntax.Form
	srcStart, srcEnd int
	out              outSpan
}

// units returns the items of a list as units, given where they are in
// the output.
func (f *file) units(items []*syntax.Form, spans []outSpan) []unit {
	us := make([]unit, len(items))
	for i, it := range items {
		us[i] = unit{form: it, srcStart: f.srcStart(it), srcEnd: f.srcEnd(it), out: spans[i]}
	}
	return us
}

// Range formats the part of src that the byte range [start, end) touches,
// for an editor's "format selection". It returns an edit: replace
// src[newStart:newEnd] with text. The range always covers whole units:
//
//   - when the selection lies inside the body of a (module ...) form, the
//     units are the module's items (its declarations and clauses such as
//     (capsule "1")) that the selection intersects;
//   - otherwise they are the top-level forms it intersects.
//
// A unit includes the comments attached to it. The edit also covers the
// whitespace before the selected units, back to the previous token or
// comment, and the whitespace after them up to the last line break before
// the next token or comment (the next line keeps its indentation), so the
// units' indentation and the blank lines around them become canonical; the
// first and last top-level forms also take the start and the end of the
// file. An empty range selects the unit containing that offset. When the selection touches no unit the edit is empty
// (newStart == newEnd == start, text == nil). The selected units are laid
// out exactly as Source would lay them out, and the edited file is checked
// to hold the same forms and comments; when that check fails for the
// module's items (which happens when a trailing comment of the last item
// belongs after the module's ")"), the enclosing top-level form is
// formatted instead, and failing that the whole file.
//
// As with Source, a file with syntax errors is refused with a *SyntaxError.
func Range(src []byte, start, end int) (newStart, newEnd int, text []byte, err error) {
	if start < 0 || end < start || end > len(src) {
		return 0, 0, nil, fmt.Errorf("format range [%d, %d) is outside the file (%d bytes)", start, end, len(src))
	}
	f, err := load(src)
	if err != nil {
		return 0, 0, nil, err
	}
	out := f.print()
	whole := func() (int, int, []byte, error) {
		if err := verify(f, out); err != nil {
			return 0, 0, nil, err
		}
		return 0, len(src), out, nil
	}
	hits := func(u unit) bool {
		if start == end {
			return u.srcStart <= start && start <= u.srcEnd
		}
		return u.srcStart < end && start < u.srcEnd
	}
	items := f.units(f.read.Forms, f.top)
	var tops []unit
	first := -1 // index of the first selected top-level form
	for i, u := range items {
		if hits(u) {
			if first < 0 {
				first = i
			}
			tops = append(tops, u)
		}
	}
	if len(items) == 0 {
		return whole() // only comments and whitespace
	}
	if len(tops) == 0 {
		return start, start, nil, nil
	}
	var tries [][]unit
	if len(tops) == 1 {
		if h := moduleBody(tops[0].form); h > 0 && f.body[first] != nil {
			body := f.units(tops[0].form.Items()[h:], f.body[first][h:])
			var sel []unit
			for _, u := range body {
				if hits(u) {
					sel = append(sel, u)
				}
			}
			// A selection that stays inside the body (touches neither the
			// module's header nor its closing parenthesis) formats the items
			// it touches, or nothing when it lies between them.
			lo, hi, _, _, _ := edit(src, out, body[0], body[len(body)-1], false, false)
			if start >= lo && end <= hi {
				if len(sel) == 0 {
					return start, start, nil, nil
				}
				tries = append(tries, sel)
			}
		}
	}
	tries = append(tries, tops)
	for k, sel := range tries {
		// Top-level forms: the whitespace before the first form, and
		// everything after the last form, go with them.
		top := k == len(tries)-1
		a, b, c, d, ok := edit(src, out, sel[0], sel[len(sel)-1],
			top && sel[0].form == items[0].form, top && sel[len(sel)-1].form == items[len(items)-1].form)
		if !ok {
			continue
		}
		patched := make([]byte, 0, a+(d-c)+len(src)-b)
		patched = append(patched, src[:a]...)
		patched = append(patched, out[c:d]...)
		patched = append(patched, src[b:]...)
		if same(f, patched) == nil {
			return a, b, out[c:d:d], nil
		}
	}
	return whole()
}

// edit returns the source span [a, b) and the output span [c, d) of the
// units first..last, widened over the whitespace around them, and whether
// the edit is sound (see below).
//
// Before the units, all whitespace back to the previous token or comment is
// included. After them, when both the source and the output continue on a
// later line, the whitespace up to and including the last line break is
// included (so the next line keeps its indentation); otherwise all of it.
//
// With fromStart, the spans start at the start of the texts; with toEnd,
// they end at their ends.
func edit(src, out []byte, first, last unit, fromStart, toEnd bool) (a, b, c, d int, ok bool) {
	a, b = first.srcStart, last.srcEnd
	c, d = int(first.out.start), int(last.out.end)
	for a > 0 && isSpace(src[a-1]) {
		a--
	}
	for c > 0 && isSpace(out[c-1]) {
		c--
	}
	if fromStart {
		a, c = 0, 0
	}
	b2, bl := spaceRun(src, b)
	d2, dl := spaceRun(out, d)
	switch {
	case toEnd:
		b, d, b2, d2 = len(src), len(out), len(src), len(out)
	case bl >= 0 && dl >= 0:
		b, d = bl+1, dl+1
	default:
		b, d = b2, d2
	}
	// When the output continues on the same line (closing parentheses
	// pile up after the last unit), the source must continue with the same
	// byte, or the edit would join the units to something else.
	ok = toEnd || dl >= 0 || (b2 == len(src)) == (d2 == len(out)) && (b2 == len(src) || src[b2] == out[d2])
	return a, b, c, d, ok
}

// spaceRun returns the end of the whitespace run starting at i and the
// offset of the last line break in it (-1 if none; a lone CR counts).
func spaceRun(t []byte, i int) (end, lastBreak int) {
	lastBreak = -1
	for ; i < len(t) && isSpace(t[i]); i++ {
		if t[i] == '\n' || (t[i] == '\r' && (i+1 == len(t) || t[i+1] != '\n')) {
			lastBreak = i
		}
	}
	return i, lastBreak
}

func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

// moduleBody returns the length of the header of a (module ...) form
// that is laid out as a block, after which its items go one per line, or
// 0.
func moduleBody(n *syntax.Form) int {
	if isAtom(n) || n.Head() != "module" {
		return 0
	}
	s, h := classify(n, "")
	if s != shapeBlock {
		return 0
	}
	return h
}

// file is a parsed source file with its comments attached, and, once
// printed, where its items are in the output.
type file struct {
	src   []byte
	read  *syntax.Source
	notes map[*syntax.Form]*notes
	after []comment // comments after the last top-level form

	top  []outSpan   // the top-level forms
	body [][]outSpan // the items of each top-level form, when any went on their own line
}

func load(src []byte) (*file, error) {
	// ReadText builds no CST node array for text without syntax errors,
	// which is all the formatter formats.
	rd, err := syntax.ReadText(src)
	if err != nil {
		return nil, fmt.Errorf("format: %w", err)
	}
	cst := rd.CST
	if len(rd.Diagnostics) > 0 {
		return nil, &SyntaxError{Diagnostics: rd.Diagnostics, lines: cst.Lines}
	}
	if cst.Len() > 0 && cst.HasError(0) {
		// Read reports every error tree-sitter finds; this is a backstop.
		return nil, &SyntaxError{Diagnostics: []syntax.Diagnostic{{
			Code: syntax.CodeParse, Severity: syntax.Error, Span: firstError(cst),
			Message: "syntax error",
		}}, lines: cst.Lines}
	}
	f := &file{src: src, read: rd}
	b := &builder{f: f, src: src, lines: cst.Lines, comments: rd.Comments}
	_, f.after, _ = b.seq(rd.Forms, nil, len(src))
	// The line index was for attaching comments and finding blank
	// lines, which the notes now hold: let the collector have it.
	rd.CST = &syntax.CST{Src: src}
	return f, nil
}

// firstError returns the span of the first error or missing node.
func firstError(c *syntax.CST) syntax.Span {
	for i := int32(0); i < int32(c.Len()); i++ {
		if c.Kind(i) == syntax.KindError || c.Missing(i) {
			return c.Span(i)
		}
	}
	return syntax.Span{}
}

// verify checks that out, read again, holds the same forms and comments as
// f. A large output is read in parts (see sameInParts), so that checking
// it costs a small fraction of the memory that reading it whole would;
// when the parts do not match, the whole output is read, which also
// gives the message.
func verify(f *file, out []byte) error {
	if f.sameInParts(out) {
		return nil
	}
	if err := same(f, out); err != nil {
		return notPreserved(err)
	}
	return nil
}

func notPreserved(err error) error {
	return fmt.Errorf("format: internal error: %w: %v; the file was not changed", ErrNotPreserved, err)
}

// same reports how text differs from f in forms or comments, or nil.
func same(f *file, text []byte) error {
	rd, err := syntax.ReadText(text)
	if err != nil {
		return err
	}
	if len(rd.Diagnostics) > 0 || rd.CST.Len() > 0 && rd.CST.HasError(0) {
		return errors.New("the output has syntax errors")
	}
	if err := sameForms(f.src, text, f.read.Forms, rd.Forms); err != nil {
		return err
	}
	if len(f.read.Comments) != len(rd.Comments) {
		return fmt.Errorf("%d comments became %d", len(f.read.Comments), len(rd.Comments))
	}
	for i, a := range f.read.Comments {
		b := rd.Comments[i]
		if !bytes.Equal(trimComment(f.src[a.Start:a.End]), trimComment(text[b.Start:b.End])) {
			return fmt.Errorf("comment %d changed", i+1)
		}
	}
	return nil
}

func sameForms(srcA, srcB []byte, a, b []*syntax.Form) error {
	if len(a) != len(b) {
		return fmt.Errorf("a list of %d items became %d items", len(a), len(b))
	}
	for i, x := range a {
		y := b[i]
		if x.Kind != y.Kind {
			return fmt.Errorf("a %s became a %s", x.Kind, y.Kind)
		}
		if x.Kind == syntax.FormList {
			if err := sameForms(srcA, srcB, x.Items(), y.Items()); err != nil {
				return err
			}
			continue
		}
		if !bytes.Equal(srcA[x.Span().Start:x.Span().End], srcB[y.Span().Start:y.Span().End]) {
			return fmt.Errorf("%s %s changed", x.Kind, quote(srcA[x.Span().Start:x.Span().End]))
		}
	}
	return nil
}

func quote(b []byte) string {
	if len(b) > 40 {
		return "`" + string(b[:37]) + "...`"
	}
	return "`" + string(b) + "`"
}
