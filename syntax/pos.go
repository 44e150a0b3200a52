package syntax

import (
	"bytes"
	"fmt"
	"sort"
	"unicode/utf8"
)

// Span is a half-open byte range [Start, End) in a source file.
type Span struct {
	Start, End int
}

// Contains reports whether offset off lies in s; an empty span contains its
// own start, and a span contains its end offset so that a cursor placed just
// after a name still finds it.
func (s Span) Contains(off int) bool { return s.Start <= off && off <= s.End }

// Len returns the number of bytes in s.
func (s Span) Len() int { return s.End - s.Start }

// Join returns the smallest span covering both s and t.
func (s Span) Join(t Span) Span {
	if t.Start < s.Start {
		s.Start = t.Start
	}
	if t.End > s.End {
		s.End = t.End
	}
	return s
}

// Encoding says in which code units a Position's Character counts.
type Encoding int

const (
	UTF16 Encoding = iota // the LSP default
	UTF8
	UTF32
)

func (e Encoding) String() string {
	switch e {
	case UTF8:
		return "utf-8"
	case UTF32:
		return "utf-32"
	}
	return "utf-16"
}

// Position is an LSP position: a 0-based line and a 0-based character
// offset in the line, counted in the code units of some Encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is an LSP range of two Positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Mapper is the position mapper of one version of one file: it indexes the
// line starts of the text and converts between byte offsets (what spans
// hold) and positions, as LSP positions in any Encoding (Position, Range,
// Offset, Span) or as the "line:column" of text output (Point). Every
// conversion of the toolchain goes through the mapper of the file the
// offsets belong to: the parser builds one per text (CST.Lines), and a
// location in another file is converted with that file's mapper. Line
// breaks are "\n", "\r\n" and a lone "\r", as in the LSP specification. A
// Mapper is immutable and safe for concurrent use.
type Mapper struct {
	text []byte
	// starts holds the byte offset of the start of each line of a text
	// indexed afresh; after edits segs holds them instead, in runs that
	// later versions share (edit), and starts is nil.
	starts []int
	segs   []lineSeg
	n      int // line count
	// marks holds, for each line longer than markEvery bytes, the code
	// units counted up to every markEvery bytes of it, so that a position
	// on a long line is counted from the mark before it instead of from
	// the start of the line: converting every position of one very long
	// line (100,000 unclosed lists) then costs linear time, not quadratic.
	marks map[int][]mark
}

// lineSeg is a run of line starts: lines first, first+1, ... start at
// starts[i]+delta.
type lineSeg struct {
	first  int
	starts []int
	delta  int
}

// maxLineSegs is the run count over which edit indexes the lines in one
// run again.
const maxLineSegs = 64

// newMapperStarts returns the mapper of text whose line starts are starts.
func newMapperStarts(text []byte, starts []int) *Mapper {
	return &Mapper{text: text, starts: starts, segs: []lineSeg{{starts: starts}}, n: len(starts)}
}

// start returns the offset of the start of line.
func (l *Mapper) start(line int) int {
	if l.starts != nil {
		return l.starts[line]
	}
	return l.startSlow(line)
}

func (l *Mapper) startSlow(line int) int {
	k := sort.Search(len(l.segs), func(k int) bool { return l.segs[k].first > line }) - 1
	sg := &l.segs[k]
	return sg.starts[line-sg.first] + sg.delta
}

// mark is a place in a long line (the start of a character) and the code
// units before it on its line, in UTF-16 and in UTF-32.
type mark struct {
	off, u16, u32 int
}

// markEvery is the distance between the marks of a long line, in bytes.
const markEvery = 1024

// Lines is the former name of Mapper.
//
// Deprecated: use Mapper (kept so that code written against the old name
// still builds).
type Lines = Mapper

// NewLines is the former name of NewMapper.
//
// Deprecated: use NewMapper.
func NewLines(text []byte) *Mapper { return NewMapper(text) }

// NewMapper indexes text. The text is retained, not copied.
func NewMapper(text []byte) *Mapper {
	starts := make([]int, 1, 1+len(text)/32)
	starts[0] = 0
	if bytes.IndexByte(text, '\r') < 0 {
		for i := 0; ; {
			j := bytes.IndexByte(text[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			starts = append(starts, i)
		}
	} else {
		for i := 0; i < len(text); i++ {
			switch text[i] {
			case '\n':
				starts = append(starts, i+1)
			case '\r':
				if i+1 < len(text) && text[i+1] == '\n' {
					i++
				}
				starts = append(starts, i+1)
			}
		}
	}
	l := newMapperStarts(text, starts)
	l.markLongLines()
	return l
}

// markLongLines sets the marks of every line longer than markEvery bytes.
func (l *Mapper) markLongLines() {
	starts := l.starts // the mapper is new
	for line := range starts {
		start, end := starts[line], l.lineEnd(line)
		if end-start <= markEvery {
			continue
		}
		if l.marks == nil {
			l.marks = map[int][]mark{}
		}
		var ms []mark
		pos, u16, u32 := start, 0, 0
		for next := start + markEvery; next < end; next = pos + markEvery {
			// Marks start characters, where counts add up: a character
			// starts at most 3 bytes back, else next follows a run of
			// stray continuation bytes, each a character of its own. (An
			// unbounded search went back to pos there and never ended.)
			for k := next; k > pos && next-k < utf8.UTFMax; k-- {
				if utf8.RuneStart(l.text[k]) {
					next = k
					break
				}
			}
			u16 += units(l.text[pos:next], UTF16)
			u32 += units(l.text[pos:next], UTF32)
			ms = append(ms, mark{next, u16, u32})
			pos = next
		}
		l.marks[line] = ms
	}
}

// unitsTo counts the code units in enc from the start of line (which
// starts at start) to off, from the nearest mark before off.
func (l *Mapper) unitsTo(line, start, off int, enc Encoding) int {
	from, u := start, 0
	if ms := l.marks[line]; len(ms) > 0 && enc != UTF8 {
		if i := sort.Search(len(ms), func(i int) bool { return ms[i].off > off }) - 1; i >= 0 {
			from, u = ms[i].off, ms[i].u32
			if enc == UTF16 {
				u = ms[i].u16
			}
		}
	}
	return u + units(l.text[from:off], enc)
}

// Count returns the number of lines (a text always has at least one).
func (l *Mapper) Count() int { return l.n }

// LineStart returns the byte offset at which line (0-based) starts.
func (l *Mapper) LineStart(line int) int { return l.start(line) }

// lineEnd returns the offset of the end of line's content, before its break.
func (l *Mapper) lineEnd(line int) int {
	if line+1 >= l.n {
		return len(l.text)
	}
	end := l.start(line + 1)
	if end > 0 && l.text[end-1] == '\n' {
		end--
	}
	if end > l.start(line) && l.text[end-1] == '\r' {
		end--
	}
	return end
}

// Line returns the 0-based line holding byte offset off.
func (l *Mapper) Line(off int) int {
	if l.starts != nil {
		lo, hi := 0, len(l.starts)
		for hi-lo > 1 {
			m := (lo + hi) / 2
			if l.starts[m] <= off {
				lo = m
			} else {
				hi = m
			}
		}
		return lo
	}
	sg := &l.segs[0]
	if len(l.segs) > 1 {
		// the last run whose first line starts at or before off
		k := sort.Search(len(l.segs), func(k int) bool { return l.segs[k].starts[0]+l.segs[k].delta > off }) - 1
		sg = &l.segs[max(k, 0)]
	}
	lo, hi := 0, len(sg.starts)
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if sg.starts[m]+sg.delta <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return sg.first + lo
}

// Position converts a byte offset to a Position in the given encoding. An
// offset inside a multi-byte character counts as the start of it; offsets
// are clamped to the text.
func (l *Mapper) Position(off int, enc Encoding) Position {
	if off < 0 {
		off = 0
	}
	if off > len(l.text) {
		off = len(l.text)
	}
	line := l.Line(off)
	start := l.start(line)
	if end := l.lineEnd(line); off > end {
		off = end // inside a CRLF pair
	}
	return Position{Line: line, Character: l.unitsTo(line, start, off, enc)}
}

// Offset converts a Position to a byte offset. A character past the end of
// its line means the end of the line (as the LSP specification says); a line
// past the last line is an error.
func (l *Mapper) Offset(p Position, enc Encoding) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("position %d:%d is negative", p.Line, p.Character)
	}
	if p.Line >= l.n {
		if p.Line == l.n && p.Character == 0 {
			return len(l.text), nil
		}
		return 0, fmt.Errorf("line %d is past the end of the document (%d lines)", p.Line, l.n)
	}
	start, end := l.start(p.Line), l.lineEnd(p.Line)
	if enc == UTF8 {
		off := start + p.Character
		if off > end {
			return end, nil
		}
		for off > start && off < end && !utf8.RuneStart(l.text[off]) {
			off--
		}
		return off, nil
	}
	n := 0
	for i := start; i < end; {
		if n >= p.Character {
			return i, nil
		}
		r, size := utf8.DecodeRune(l.text[i:end])
		if enc == UTF16 && r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		if n > p.Character { // inside a surrogate pair: round down
			return i, nil
		}
		i += size
	}
	return end, nil
}

// Range converts a span to a Range; an end before the start counts as the
// start.
func (l *Mapper) Range(s Span, enc Encoding) Range {
	return Range{Start: l.Position(s.Start, enc), End: l.Position(max(s.End, s.Start), enc)}
}

// Span converts a Range back to a byte span.
func (l *Mapper) Span(r Range, enc Encoding) (Span, error) {
	a, err := l.Offset(r.Start, enc)
	if err != nil {
		return Span{}, err
	}
	b, err := l.Offset(r.End, enc)
	if err != nil {
		return Span{}, err
	}
	if b < a {
		return Span{}, fmt.Errorf("range end %d:%d is before its start %d:%d", r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	return Span{a, b}, nil
}

// units counts the code units of b in enc. Invalid UTF-8 bytes count as one
// unit each, like the replacement character they decode to.
func units(b []byte, enc Encoding) int {
	if enc == UTF8 {
		return len(b)
	}
	n := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if enc == UTF16 && r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// edit returns the mapper of text, which is l's text after the edit that
// replaced its bytes [start, end) with n bytes: l's line starts before
// and after the edit, those after moved, around the starts found in the
// edited bytes. A line start depends only on the two bytes around it, so
// only starts next to the edit are looked for again. The starts before
// and after are shared with l as runs (lineSeg), so an edit costs the
// edited bytes plus the number of runs, which edit bounds by indexing
// the lines again when there are more than maxLineSegs. It also indexes
// text afresh when l has long lines (their marks are per line) or the
// edit makes one.
func (l *Mapper) edit(text []byte, start, end, n int) *Mapper {
	if l.marks != nil {
		return NewMapper(text)
	}
	delta := start + n - end
	// old lines [0, lo) start before start and keep their place (text[p-1]
	// and text[p] are unchanged), lines [hi, l.n) start after end and move
	// by delta; line 0 starts at 0 always
	lo := max(l.lineAtLeast(start), 1)
	hi := l.lineAtLeast(end + 1)
	var fresh []int
	for q := max(start, 1); q <= start+n && q <= len(text); q++ {
		switch text[q-1] {
		case '\n':
			fresh = append(fresh, q)
		case '\r':
			if q == len(text) || text[q] != '\n' {
				fresh = append(fresh, q)
			}
		}
	}
	m := &Mapper{text: text, segs: make([]lineSeg, 0, len(l.segs)+2), n: lo + len(fresh) + l.n - hi}
	m.segs = l.appendSegs(m.segs, 0, lo, 0, 0)
	if len(fresh) > 0 {
		m.segs = append(m.segs, lineSeg{first: lo, starts: fresh})
	}
	m.segs = l.appendSegs(m.segs, hi, l.n, lo+len(fresh)-hi, delta)
	if len(m.segs) > maxLineSegs {
		all := make([]int, 0, m.n)
		for _, sg := range m.segs {
			for _, p := range sg.starts {
				all = append(all, p+sg.delta)
			}
		}
		m.segs, m.starts = []lineSeg{{starts: all}}, all
	}
	first := max(lo-1, 0)
	for line := first; line < m.n && (line == first || m.start(line) <= start+n+1); line++ {
		if m.lineEnd(line)-m.start(line) > markEvery {
			return NewMapper(text)
		}
	}
	return m
}

// lineAtLeast returns the first line starting at or after off (l.n when
// there is none).
func (l *Mapper) lineAtLeast(off int) int {
	k := sort.Search(len(l.segs), func(k int) bool {
		sg := &l.segs[k]
		return sg.starts[len(sg.starts)-1]+sg.delta >= off
	})
	if k == len(l.segs) {
		return l.n
	}
	sg := &l.segs[k]
	return sg.first + sort.Search(len(sg.starts), func(i int) bool { return sg.starts[i]+sg.delta >= off })
}

// appendSegs appends l's lines [from, to) to segs as runs sharing l's,
// renumbered by dLine and moved by delta bytes.
func (l *Mapper) appendSegs(segs []lineSeg, from, to, dLine, delta int) []lineSeg {
	for _, sg := range l.segs {
		a, b := max(from, sg.first), min(to, sg.first+len(sg.starts))
		if a >= b {
			continue
		}
		segs = append(segs, lineSeg{first: a + dLine, starts: sg.starts[a-sg.first : b-sg.first], delta: sg.delta + delta})
	}
	return segs
}
