package syntax

// This file holds the parts of the position mapper (pos.go) that serve
// text output and long runs of conversions: Point, the "line:column" of a
// location as every command prints it, and Cursor, which converts offsets
// met in order without counting any line twice.

import (
	"strconv"
	"unicode/utf8"
)

// Point is a place in a file as text output shows it: a 1-based line and a
// 1-based column counted in Unicode code points, so that a tab, an "é" and
// an astral character such as "😀" are each one column. caps check, caps
// fmt, every other command and runtime error messages print it.
type Point struct {
	Line, Column int
}

// String returns "LINE:COLUMN".
func (p Point) String() string {
	return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
}

// Text returns the text the mapper indexes (not a copy).
func (l *Mapper) Text() []byte { return l.text }

// Point converts a byte offset to the Point of text output. Offsets are
// clamped to the text, and one inside a character counts as its start.
func (l *Mapper) Point(off int) Point {
	return pointOf(l.Position(off, UTF32))
}

// PointOffset converts a Point (as text output and tools such as YAML
// parsers give them: 1-based, columns in code points) to a byte offset. It
// clamps rather than fails: a line before the first is the start of the
// text, one after the last its end, a column before the first the start
// of its line and one past the end of its line that end.
func (l *Mapper) PointOffset(p Point) int {
	switch {
	case p.Line < 1:
		return 0
	case p.Line > l.Count():
		return len(l.text)
	}
	off, err := l.Offset(Position{Line: p.Line - 1, Character: max(p.Column-1, 0)}, UTF32)
	if err != nil { // cannot happen: the line exists and nothing is negative
		return len(l.text)
	}
	return off
}

// pointOf is the Point of a 0-based position counted in code points.
func pointOf(p Position) Point { return Point{Line: p.Line + 1, Column: p.Character + 1} }

// Cursor converts many offsets of one text with the mapper's rules,
// counting each from the previous answer when that is nearer than the
// start of its line: a run of offsets that move in one direction (or stay
// near each other) costs time linear in the text, even on one very long
// line. A Cursor is not safe for concurrent use; make one per run.
type Cursor struct {
	m     *Mapper
	enc   Encoding
	line  int // last answer: line, offset and units
	off   int
	units int

	scanned int // bytes counted so far (Scanned)
}

// Scanned returns the number of bytes the cursor has counted so far, which
// tests compare with the length of the text.
func (c *Cursor) Scanned() int { return c.scanned }

// Cursor returns a cursor over the mapper's text in enc.
func (l *Mapper) Cursor(enc Encoding) *Cursor {
	return &Cursor{m: l, enc: enc, line: -1}
}

// Position converts a byte offset to a Position; it agrees with
// Mapper.Position.
func (c *Cursor) Position(off int) Position {
	text := c.m.text
	off = max(0, min(off, len(text)))
	line := c.m.Line(off)
	start := c.m.LineStart(line)
	if off > start && text[off-1] == '\r' && off < len(text) && text[off] == '\n' {
		off-- // inside a CRLF pair: the end of the line
	}
	boundary := off == len(text) || utf8.RuneStart(text[off])
	var u int
	switch {
	case line == c.line && off >= c.off:
		u = c.units + c.count(c.off, off)
	case line == c.line && boundary && c.off-off < off-start:
		// Back from the last answer: both offsets start characters, so
		// the units between them are the difference of the counts.
		u = c.units - c.count(off, c.off)
	default:
		u = c.count(start, off)
	}
	if boundary {
		// Remember only offsets between characters, where counts add up.
		c.line, c.off, c.units = line, off, u
	}
	return Position{Line: line, Character: u}
}

// count returns the code units of the text's bytes [from, to).
func (c *Cursor) count(from, to int) int {
	c.scanned += to - from
	return units(c.m.text[from:to], c.enc)
}

// Range converts a span to a Range; an end before the start counts as the
// start.
func (c *Cursor) Range(s Span) Range {
	start := c.Position(s.Start)
	return Range{Start: start, End: c.Position(max(s.End, s.Start))}
}

// Point converts a byte offset to the Point of text output; the cursor
// must count in UTF32.
func (c *Cursor) Point(off int) Point {
	if c.enc != UTF32 {
		panic("syntax: Cursor.Point needs a UTF32 cursor, not " + c.enc.String())
	}
	return pointOf(c.Position(off))
}
