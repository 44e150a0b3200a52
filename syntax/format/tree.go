package format

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/capsulang/caps/syntax"
)

// comment is a line comment attached to the tree.
type comment struct {
	text  []byte // source text, trailing whitespace trimmed
	blank bool   // a blank line precedes it
}

// node is a form with the comments attached to it. A large file has a node
// for every form, so the node is kept small (64 bytes): comments, which
// few forms have, live in a notes record, an atom's text is read from the
// source through its form, and offsets are 32-bit.
type node struct {
	form *syntax.Form

	items []*node
	c     *notes // the attached comments; &noNotes (never written) when none

	width int32 // columns on one line (atoms, and lists without comments)

	// Extents including attached comments, for range formatting.
	srcStart, srcEnd int32
	outStart, outEnd int32

	blank bool // a blank line precedes this item (after its leading comments)
	inner bool // a comment is attached inside the list: it must break
}

// notes are the comments attached to a node.
type notes struct {
	open     *comment  // comment on the same line as the list's "("
	after    []comment // own-line comments between the last item and ")"
	leading  []comment // own-line comments before this item
	trailing *comment  // comment on the same line after this item
}

// noNotes is the notes of every node without comments. It is never
// written: edit gives a node its own notes first.
var noNotes notes

// edit returns n's notes for writing, giving n its own first.
func (n *node) edit() *notes {
	if n.c == &noNotes {
		n.c = &notes{}
	}
	return n.c
}

// isAtom reports whether n is a symbol, number or string.
func (n *node) isAtom() bool { return n.form.Kind != syntax.FormList }

func (n *node) head() string {
	if !n.isAtom() && len(n.items) > 0 && n.items[0].form.Kind == syntax.FormSymbol {
		return n.items[0].form.Text()
	}
	return ""
}

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
	src      []byte
	lines    *syntax.Mapper
	comments []syntax.Span
	next     int

	cur   int    // line of the last line query
	slab  []node // nodes are allocated from slabs
	items []*node
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

func (b *builder) newNode(f *syntax.Form) *node {
	if len(b.slab) == 0 {
		b.slab = make([]node, 1024)
	}
	n := &b.slab[0]
	b.slab = b.slab[1:]
	n.form, n.c = f, &noNotes
	return n
}

// newItems returns an empty slice with room for k items.
func (b *builder) newItems(k int) []*node {
	if k > cap(b.items)-len(b.items) {
		b.items = make([]*node, 0, max(k, 4096))
	}
	s := b.items[len(b.items) : len(b.items) : len(b.items)+k]
	b.items = b.items[:len(b.items)+k]
	return s
}

func (b *builder) comment(sp syntax.Span) comment {
	return comment{text: trimComment(b.src[sp.Start:sp.End])}
}

func trimComment(t []byte) []byte {
	return bytes.TrimRightFunc(t, unicode.IsSpace)
}

// seq attaches the comments of a sequence of forms: the items of list l, or
// the top-level forms when l is nil. end is the offset of the list's ")" or
// the end of the file. It returns the items, the open and after comments and
// the comment that moves out of the list to trail it.
func (b *builder) seq(forms []*syntax.Form, l *syntax.Form, end int) (items []*node, open *comment, after []comment, bubble *comment) {
	items = b.newItems(len(forms))
	// last is the offset of the last byte of the previous token or comment
	// (-1 at the start of the file); tokLine is the line of the previous
	// token (-1 when there is none).
	last, tokLine := -1, -1
	if l != nil {
		last = l.Span().Start
		tokLine = b.line(last)
	}
	var prev *node
	var pend *comment // trailing comment moved out of prev
	for i := 0; ; i++ {
		next := end
		if i < len(forms) {
			next = forms[i].Span().Start
		}
		gap := b.comments[b.next:]
		k := 0
		for k < len(gap) && gap[k].Start < next {
			k++
		}
		gap = gap[:k]
		b.next += k

		var trail *comment
		trailEnd := -1
		if pend != nil {
			trail = pend
		} else if len(gap) > 0 && tokLine >= 0 && b.line(gap[0].Start) == tokLine {
			c := b.comment(gap[0])
			trail, trailEnd = &c, gap[0].End
			gap = gap[1:]
		}
		if trail != nil {
			switch {
			case i == len(forms) && len(gap) == 0 && l != nil:
				bubble = trail // the last thing before ")": it moves out
			case prev != nil:
				prev.edit().trailing = trail
			default:
				open = trail
			}
			if trailEnd > 0 {
				last = trailEnd - 1
			}
			if prev != nil && prev.c.trailing == trail && trailEnd > int(prev.srcEnd) {
				prev.srcEnd = int32(trailEnd)
			}
		}
		var own []comment
		ownStart := -1
		for _, sp := range gap {
			c := b.comment(sp)
			c.blank = last >= 0 && b.line(sp.Start)-lastLine(b, last) >= 2
			own = append(own, c)
			if ownStart < 0 {
				ownStart = sp.Start
			}
			last = sp.End - 1
		}
		if i == len(forms) {
			after = own
			return items, open, after, bubble
		}
		f := forms[i]
		blank := last >= 0 && b.line(f.Span().Start)-lastLine(b, last) >= 2
		n, out := b.build(f)
		if own != nil {
			n.edit().leading = own
		}
		n.blank = blank
		n.srcStart, n.srcEnd = int32(f.Span().Start), int32(f.Span().End)
		if ownStart >= 0 {
			n.srcStart = int32(ownStart)
		}
		items = append(items, n)
		prev, pend = n, out
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

// build returns the node for f, and the comment that moves out of it.
func (b *builder) build(f *syntax.Form) (*node, *comment) {
	n := b.newNode(f)
	if f.Kind != syntax.FormList {
		n.width = int32(utf8.RuneCount(b.src[f.Span().Start:f.Span().End]))
		return n, nil
	}
	items, open, after, bubble := b.seq(f.Items(), f, f.Span().End-1)
	n.items = items
	if open != nil || after != nil {
		c := n.edit()
		c.open, c.after = open, after
	}
	n.inner = open != nil || len(after) > 0
	n.width = 2
	for i, it := range items {
		if i > 0 {
			n.width++
		}
		n.width += it.width
		if it.inner || it.c.trailing != nil || len(it.c.leading) > 0 {
			n.inner = true
		}
	}
	return n, bubble
}
