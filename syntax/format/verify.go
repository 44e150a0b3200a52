package format

import (
	"bytes"
	"runtime"

	"github.com/capsulang/caps/syntax"
)

// partSize is about how much output a part that verify reads alone holds
// (a variable for tests, which split small files into many parts).
var partSize int32 = 64 << 10

// part is a run of consecutive items of one list, each printed on lines of
// its own, that verify reads alone: top-level forms (list < 0) or items
// of the top-level form list.
type part struct {
	list     int // the top-level form whose items these are; -1 for top-level forms
	from, to int // the items [from, to) of that list
	out      outSpan
}

// parts splits the printed output of f into parts: runs of top-level
// forms of at most about partSize bytes, and, for a larger top-level form
// whose items went on their own lines (a module), runs of its items.
func (f *file) parts() []part {
	var ps []part
	// group adds the parts of the items [off, off+len(spans)) of list.
	group := func(list, off int, spans []outSpan) {
		for i := 0; i < len(spans); {
			if !spans[i].printed() {
				i++
				continue
			}
			j := i + 1
			for j < len(spans) && spans[j].printed() && spans[j].end-spans[i].start <= partSize {
				j++
			}
			ps = append(ps, part{list: list, from: off + i, to: off + j, out: outSpan{spans[i].start, spans[j-1].end}})
			i = j
		}
	}
	for i := 0; i < len(f.top); {
		if f.body[i] != nil && f.top[i].end-f.top[i].start > partSize {
			group(i, 0, f.body[i])
			i++
			continue
		}
		j := i + 1
		for j < len(f.top) && !(f.body[j] != nil && f.top[j].end-f.top[j].start > partSize) && f.top[j].end-f.top[i].start <= partSize {
			j++
		}
		group(-1, i, f.top[i:j])
		i = j
	}
	return ps
}

// placeholder stands for a part in the skeleton.
const placeholder = "0"

// sameInParts reports whether out, read again, holds the same forms and
// comments as f, reading it in parts: each part alone, then the skeleton,
// the output with every part replaced by a placeholder atom. Reading the
// output whole gives the same forms and comments as the parts and the
// skeleton when every part starts after a line break or a space, ends
// before one, a space or a ")", or, when it ends with a comment, before a
// line break: then no token or comment crosses a part's edges. A false
// answer may be wrong (the caller then reads the output whole); a true
// one is not.
func (f *file) sameInParts(out []byte) bool {
	ps := f.parts()
	in := f.read.Comments
	ci := 0 // the next comment of f to match
	var skel []byte
	at := make([]int, len(ps)) // where each placeholder is in skel
	var reads [][]syntax.Span  // each part's comments, in part offsets
	last := 0
	// Each part read leaves garbage of about twenty times its size: for a
	// large output, collect it every eighth of the output, or the heap
	// would grow to twice the file's forms before the collector runs.
	unread := 0
	for k, p := range ps {
		if len(out) >= collectAfterRead {
			if unread += int(p.out.end - p.out.start); unread > len(out)/8 {
				phase("part")
				runtime.GC()
				unread = 0
			}
		}
		a, b := int(p.out.start), int(p.out.end)
		if a > 0 && out[a-1] != '\n' && out[a-1] != ' ' {
			return false
		}
		if b < len(out) && out[b] != '\n' && out[b] != ' ' && out[b] != ')' {
			return false
		}
		text := out[a:b]
		rd, err := syntax.ReadText(text)
		if err != nil || len(rd.Diagnostics) > 0 || rd.CST.Len() > 0 && rd.CST.HasError(0) {
			return false
		}
		if n := len(rd.Comments); n > 0 && rd.Comments[n-1].End == len(text) && b < len(out) && out[b] != '\n' {
			return false
		}
		items := f.read.Forms
		if p.list >= 0 {
			items = items[p.list].Items()
		}
		if sameForms(f.src, text, items[p.from:p.to], rd.Forms) != nil {
			return false
		}
		reads = append(reads, rd.Comments)
		skel = append(skel, out[last:a]...)
		at[k] = len(skel)
		skel = append(skel, placeholder...)
		last = b
	}
	skel = append(skel, out[last:]...)

	rd, err := syntax.ReadText(skel)
	if err != nil || len(rd.Diagnostics) > 0 || rd.CST.Len() > 0 && rd.CST.HasError(0) {
		return false
	}
	// Comments: the skeleton's and the parts', in output order, are f's.
	match := func(t []byte, sp syntax.Span) bool {
		if ci >= len(in) {
			return false
		}
		c := in[ci]
		ci++
		return bytes.Equal(trimComment(f.src[c.Start:c.End]), trimComment(t[sp.Start:sp.End]))
	}
	sc := rd.Comments
	for k, p := range ps {
		for len(sc) > 0 && sc[0].Start < at[k] {
			if !match(skel, sc[0]) {
				return false
			}
			sc = sc[1:]
		}
		text := out[p.out.start:p.out.end]
		for _, sp := range reads[k] {
			if !match(text, sp) {
				return false
			}
		}
	}
	for _, sp := range sc {
		if !match(skel, sp) {
			return false
		}
	}
	if ci != len(in) {
		return false
	}
	// Forms: the skeleton's are f's with each part's items replaced by
	// the placeholder.
	var top, inner []part
	for _, p := range ps {
		if p.list < 0 {
			top = append(top, p)
		} else {
			inner = append(inner, p)
		}
	}
	return sameCollapsed(f.src, skel, f.read.Forms, rd.Forms, top, func(i int, x, y *syntax.Form) bool {
		var mine []part
		for _, p := range inner {
			if p.list == i {
				mine = append(mine, p)
			}
		}
		if len(mine) == 0 {
			return sameForms(f.src, skel, []*syntax.Form{x}, []*syntax.Form{y}) == nil
		}
		return x.Kind == syntax.FormList && y.Kind == syntax.FormList &&
			sameCollapsed(f.src, skel, x.Items(), y.Items(), mine, func(_ int, x, y *syntax.Form) bool {
				return sameForms(f.src, skel, []*syntax.Form{x}, []*syntax.Form{y}) == nil
			})
	})
}

// sameCollapsed reports whether got, read from the skeleton skel, are the
// forms xs of src with the items of each of ps (in order, all of this
// list) replaced by one placeholder; each other pair of forms is compared
// by same, given the index in xs.
func sameCollapsed(src, skel []byte, xs, got []*syntax.Form, ps []part, same func(i int, x, y *syntax.Form) bool) bool {
	g := 0
	for i := 0; i < len(xs); {
		if g >= len(got) {
			return false
		}
		y := got[g]
		g++
		if len(ps) > 0 && ps[0].from == i {
			if y.Kind != syntax.FormNumber || string(skel[y.Span().Start:y.Span().End]) != placeholder {
				return false
			}
			i = ps[0].to
			ps = ps[1:]
			continue
		}
		if !same(i, xs[i], y) {
			return false
		}
		i++
	}
	return g == len(got) && len(ps) == 0
}
