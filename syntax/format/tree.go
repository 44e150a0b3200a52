package format

import (
	"bytes"
	"unicode"

	"github.com/capsulang/caps/syntax"
)

// comment is a line comment attached to a form.
type comment struct {
	start, end int32 // the comment's span in the source
	blank      bool  // a blank line precedes it
}

// notes are what the layout needs to know about a form besides the form
// itself: its attached comments and whether a blank line precedes it.
// Only forms that have a comment attached or are preceded by a blank line
// have notes (in file.notes); every other form is laid out from its form
// alone. There is no per-form layout record: a large file's layout costs
// nothing beyond its forms but for its comments (issue 19).
type notes struct {
	open     *comment  // comment on the same line as the list's "("
	after    []comment // own-line comments between the last item and ")"
	leading  []comment // own-line comments before this item
	trailing *comment  // comment on the same line after this item

	blank bool // a blank line precedes this item (after its leading comments)
}

// noNotes is the notes of every form without any. It is never written:
// edit gives a form its own notes first.
var noNotes notes

// c returns the notes of f (&noNotes when it has none).
func (f *file) c(x *syntax.Form) *notes {
	if len(f.notes) == 0 {
		return &noNotes
	}
	if n, ok := f.notes[x]; ok {
		return n
	}
	return &noNotes
}

// edit returns x's notes for writing, giving x its own first.
func (f *file) edit(x *syntax.Form) *notes {
	if n, ok := f.notes[x]; ok {
		return n
	}
	if f.notes == nil {
		f.notes = map[*syntax.Form]*notes{}
	}
	n := &notes{}
	f.notes[x] = n
	return n
}

// srcStart returns the start of item x with its leading comments.
func (f *file) srcStart(x *syntax.Form) int {
	if c := f.c(x); len(c.leading) > 0 {
		return int(c.leading[0].start)
	}
	return x.Span().Start
}

// srcEnd returns the end of item x with its trailing comment.
func (f *file) srcEnd(x *syntax.Form) int {
	end := x.Span().End
	if t := f.c(x).trailing; t != nil && int(t.end) > end {
		end = int(t.end)
	}
	return end
}

// isAtom reports whether x is a symbol, number or string.
func isAtom(x *syntax.Form) bool { return x.Kind != syntax.FormList }

// builder attaches comments to forms.
//
// A comment with a token before it on its line trails that token: the form
// ending there, or the list whose "(" it is (an "open" comment). A trailing
// comment after the last item of a list, with nothing else before the ")",
// moves out past the ")" and trails the list instead, repeatedly, since the
// printer piles closing parentheses on the last line. When two comments
// would trail the same form, the second is treated as an own-line comment
// after it. Every other comment is an own-line comment: it leads the next
// item, or, with no next item, ends the list ("after" comments).
type builder struct {
	f        *file
	src      []byte
	lines    *syntax.Mapper
	comments []syntax.Span
	next     int

	cur int // line of the last line query
}

// line returns the line holding off. Queries come in nearly increasing
// order, so it scans forward from the last answer.
func (b *builder) line(off int) int {
	l := b.lines
	if off < l.LineStart(b.cur) {
		b.cur = l.Line(off)
		return b.cur
	}
	for n := l.Count(); b.cur+1 < n && l.LineStart(b.cur+1) <= off; b.cur++ {
		if l.LineStart(b.cur+1)+4096 < off {
			b.cur = l.Line(off) // far ahead: search
			break
		}
	}
	return b.cur
}

func (b *builder) comment(sp syntax.Span) comment {
	return comment{start: int32(sp.Start), end: int32(sp.End)}
}

func trimComment(t []byte) []byte {
	return bytes.TrimRightFunc(t, unicode.IsSpace)
}

// seq attaches the comments of a sequence of forms: the items of list l, or
// the top-level forms when l is nil. end is the offset of the list's ")" or
// the end of the file. It returns the open and after comments and the
// comment that moves out of the list to trail it.
func (b *builder) seq(forms []*syntax.Form, l *syntax.Form, end int) (open *comment, after []comment, bubble *comment) {
	// last is the offset of the last byte of the previous token or comment
	// (-1 at the start of the file); tokLine is the line of the previous
	// token (-1 when there is none).
	last, tokLine := -1, -1
	if l != nil {
		last = l.Span().Start
		tokLine = b.line(last)
	}
	var prev *syntax.Form
	var pend *comment // trailing comment moved out of prev
	for i := 0; ; i++ {
		next := end
		if i < len(forms) {
			next = forms[i].Span().Start
		}
		// Most gaps hold no comment: skip the search when the next
		// comment starts at or after next.
		var gap []syntax.Span
		if b.next < len(b.comments) && b.comments[b.next].Start < next {
			gap = b.comments[b.next:]
			k := 0
			for k < len(gap) && gap[k].Start < next {
				k++
			}
			gap = gap[:k]
			b.next += k
		}

		var trail *comment
		if pend != nil {
			trail = pend
		} else if len(gap) > 0 && tokLine >= 0 && b.line(gap[0].Start) == tokLine {
			c := b.comment(gap[0])
			trail = &c
			gap = gap[1:]
			last = int(c.end) - 1
		}
		if trail != nil {
			switch {
			case i == len(forms) && len(gap) == 0 && l != nil:
				bubble = trail // the last thing before ")": it moves out
			case prev != nil:
				b.f.edit(prev).trailing = trail
			default:
				open = trail
			}
		}
		var own []comment
		for _, sp := range gap {
			c := b.comment(sp)
			c.blank = last >= 0 && b.line(sp.Start)-lastLine(b, last) >= 2
			own = append(own, c)
			last = sp.End - 1
		}
		if i == len(forms) {
			return open, own, bubble
		}
		f := forms[i]
		blank := last >= 0 && b.line(f.Span().Start)-lastLine(b, last) >= 2
		out := b.build(f)
		if own != nil {
			b.f.edit(f).leading = own
		}
		if blank {
			b.f.edit(f).blank = true
		}
		prev, pend = f, out
		last = f.Span().End - 1
		tokLine = b.line(last)
	}
}

// lastLine returns the line of off, an offset at or before the last query.
func lastLine(b *builder, off int) int {
	if off >= b.lines.LineStart(b.cur) {
		return b.cur
	}
	return b.lines.Line(off)
}

// build attaches the comments inside f. It returns the comment that moves
// out of f.
func (b *builder) build(f *syntax.Form) *comment {
	if f.Kind != syntax.FormList {
		return nil
	}
	open, after, bubble := b.seq(f.Items(), f, f.Span().End-1)
	if open != nil || after != nil {
		c := b.f.edit(f)
		c.open, c.after = open, after
	}
	return bubble
}
