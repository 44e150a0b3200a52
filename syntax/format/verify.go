package format

import (
	"hash/maphash"
	"runtime"
	"slices"

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

// wholeOnly makes matches answer false, for tests of reading the output
// whole.
var wholeOnly bool

// placeholder stands for a part in the skeleton.
const placeholder = "0"

// plan is what verify compares the output with, so that the source's
// forms can be let go first: the parts, and digests of the forms of each
// part, of the skeleton's forms (f's with each part's items replaced by
// a placeholder) and of the comments. A digest is a seeded 64-bit hash of
// an unambiguous encoding (see hashForms), so two different texts have
// the same digest with a chance of about 2^-64.
type plan struct {
	parts    []part
	sums     []uint64 // the forms of each part
	skel     uint64   // the skeleton's forms
	comments []uint64 // a digest of each comment's text, in order
}

var seed = maphash.MakeSeed()

func newHash() *maphash.Hash {
	h := &maphash.Hash{}
	h.SetSeed(seed)
	return h
}

// The bytes that encode a list's parentheses and a placeholder (see
// syntax.HashForms, which writes the forms).
const (
	hashOpen  = syntax.FormHashOpen
	hashClose = syntax.FormHashClose
	hashPart  = syntax.FormHashPart
)

// hashForms writes the forms xs of src to h (syntax.HashForms). isPart,
// when not nil, reports the atoms that are placeholders.
func hashForms(h *maphash.Hash, src []byte, xs []*syntax.Form, isPart func(x *syntax.Form) bool) {
	syntax.HashForms(h, src, 0, xs, isPart)
}

// commentSum returns the digest of comment c of src, its trailing
// whitespace trimmed.
func commentSum(h *maphash.Hash, src []byte, c syntax.Span) uint64 {
	h.Reset()
	h.Write(trimComment(src[c.Start:c.End]))
	return h.Sum64()
}

// plan returns f's plan; f must be printed.
func (f *file) plan() *plan {
	pl := &plan{parts: f.parts()}
	h := newHash()
	var top []part
	inner := map[int][]part{}
	for _, p := range pl.parts {
		items := f.read.Forms
		if p.list >= 0 {
			items = items[p.list].Items()
			inner[p.list] = append(inner[p.list], p)
		} else {
			top = append(top, p)
		}
		h.Reset()
		hashForms(h, f.src, items[p.from:p.to], nil)
		pl.sums = append(pl.sums, h.Sum64())
	}
	h.Reset()
	collapsed(f.read.Forms, top, h, func(i int, x *syntax.Form) {
		mine := inner[i]
		if len(mine) == 0 {
			hashForms(h, f.src, []*syntax.Form{x}, nil)
			return
		}
		h.WriteByte(hashOpen)
		collapsed(x.Items(), mine, h, func(_ int, y *syntax.Form) {
			hashForms(h, f.src, []*syntax.Form{y}, nil)
		})
		h.WriteByte(hashClose)
	})
	pl.skel = h.Sum64()
	pl.comments = make([]uint64, len(f.read.Comments))
	for i, c := range f.read.Comments {
		pl.comments[i] = commentSum(h, f.src, c)
	}
	return pl
}

// collapsed writes xs to h with the items of each of ps (in order, all of
// this list) as one placeholder, and each other form through each, given
// its index in xs.
func collapsed(xs []*syntax.Form, ps []part, h *maphash.Hash, each func(i int, x *syntax.Form)) {
	for i := 0; i < len(xs); {
		if len(ps) > 0 && ps[0].from == i {
			h.WriteByte(hashPart)
			i = ps[0].to
			ps = ps[1:]
			continue
		}
		each(i, xs[i])
		i++
	}
}

// sameInParts reports whether out, read again, holds the same forms and
// comments as f (see plan.matches).
func (f *file) sameInParts(out []byte) bool { return f.plan().matches(out) }

// matches reports whether out, read again, holds the forms and comments
// the plan was made from, reading it in parts: each part alone, then the
// skeleton, the output with every part replaced by a placeholder atom.
// Reading the output whole gives the same forms and comments as the parts
// and the skeleton when every part starts after a line break or a space,
// ends before one, a space or a ")", or, when it ends with a comment,
// before a line break: then no token or comment crosses a part's edges.
// A false answer may be wrong (the caller then reads the output whole); a
// true one is not, but for a hash collision.
func (pl *plan) matches(out []byte) bool {
	if wholeOnly {
		return false
	}
	h := newHash()
	var skel []byte
	at := make([]int, len(pl.parts))            // where each placeholder is in skel
	comments := make([][]uint64, len(pl.parts)) // each part's comments
	last := 0
	// Each part read leaves garbage of about twenty times its size: for a
	// large output, collect it every eighth of the output, so that the heap
	// stays near what is live. Source lets the source's forms go first, so
	// a collection here marks little more than the source and the output
	// (leaving it to the collector's pacing costs about 5 MB more at 4 MB).
	unread := 0
	for k, p := range pl.parts {
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
		h.Reset()
		hashForms(h, text, rd.Forms, nil)
		if h.Sum64() != pl.sums[k] {
			return false
		}
		for _, c := range rd.Comments {
			comments[k] = append(comments[k], commentSum(h, text, c))
		}
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
	// Forms: the skeleton's, with the placeholders' atoms as parts.
	isPart := func(x *syntax.Form) bool {
		k, ok := slices.BinarySearch(at, x.Span().Start)
		return ok && x.Kind == syntax.FormNumber && x.Span().End == at[k]+len(placeholder)
	}
	h.Reset()
	hashForms(h, skel, rd.Forms, isPart)
	if h.Sum64() != pl.skel {
		return false
	}
	// Comments: the skeleton's and the parts', in output order.
	want := pl.comments
	match := func(sum uint64) bool {
		if len(want) == 0 || want[0] != sum {
			return false
		}
		want = want[1:]
		return true
	}
	sc := rd.Comments
	for k := range pl.parts {
		for len(sc) > 0 && sc[0].Start < at[k] {
			if !match(commentSum(h, skel, sc[0])) {
				return false
			}
			sc = sc[1:]
		}
		for _, sum := range comments[k] {
			if !match(sum) {
				return false
			}
		}
	}
	for _, c := range sc {
		if !match(commentSum(h, skel, c)) {
			return false
		}
	}
	return len(want) == 0
}
