package syntax

import (
	"bytes"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCursorAgreesWithMapper(t *testing.T) {
	pieces := []string{"a", "é", "😀", "\n", "\r\n", "\r", " ", "(", "中"}
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		var b bytes.Buffer
		for n := rng.IntN(40); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.Bytes()
		lines := NewMapper(text)
		var offs []int
		for i := 0; i <= len(text); i++ {
			offs = append(offs, i)
		}
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			// In order, in random order, and in order again on one cursor.
			c := NewMapper(text).Cursor(enc)
			order := append([]int(nil), offs...)
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			sorted := append([]int(nil), offs...)
			sort.Ints(sorted)
			for _, seq := range [][]int{sorted, order, sorted} {
				for _, off := range seq {
					if got, want := c.Position(off), lines.Position(off, enc); got != want {
						t.Fatalf("%q %v offset %d: got %+v, want %+v", text, enc, off, got, want)
					}
				}
			}
		}
	}
}

func TestCursorIsLinear(t *testing.T) {
	// One long line of small forms, converted as parse does: starts in
	// preorder and ends in postorder, each on its own cursor.
	text := bytes.Repeat([]byte(`(é "😀") `), 20000)
	for _, enc := range []Encoding{UTF16, UTF32} {
		m := NewMapper(text)
		starts, ends := m.Cursor(enc), m.Cursor(enc)
		for i := 0; i < len(text); i += 12 { // 12 bytes a form
			starts.Position(i)
			ends.Position(i + 10)
		}
		if starts.scanned > len(text) || ends.scanned > len(text) {
			t.Errorf("%v: scanned %d and %d bytes of %d", enc, starts.scanned, ends.scanned, len(text))
		}
	}
}

func TestCursorBackwardIsLinear(t *testing.T) {
	// Offsets that decrease along one long line, as the related locations
	// of nested unclosed lists do (the innermost is reported first).
	text := bytes.Repeat([]byte(`(é😀`), 20000)
	for _, enc := range []Encoding{UTF16, UTF32} {
		c := NewMapper(text).Cursor(enc)
		perGroup := 3 // code units of one group, in either encoding
		if enc == UTF16 {
			perGroup = 4
		}
		for i := len(text); i >= 0; i -= 7 { // 7 bytes a group
			if got := c.Position(i); got.Character != i/7*perGroup {
				t.Fatalf("%v: offset %d: %+v, want character %d", enc, i, got, i/7*perGroup)
			}
		}
		if c.scanned > 2*len(text) { // the first answer counts from the line's start
			t.Errorf("%v: scanned %d bytes of %d", enc, c.scanned, len(text))
		}
	}
}

// TestPoint checks the "line:column" of text output: columns count code
// points, so a tab, an accented letter and an astral character are one
// column each, whatever their size in bytes or UTF-16 units; line breaks
// are those of the LSP.
func TestPoint(t *testing.T) {
	text := []byte("(a\n\t😀 é x\r\ny\rz")
	m := NewMapper(text)
	for _, tc := range []struct {
		off  int
		want string
	}{
		{0, "1:1"},
		{2, "1:3"},         // the line break
		{3, "2:1"},         // the tab
		{4, "2:2"},         // 😀, four bytes
		{8, "2:3"},         // the space after it
		{9, "2:4"},         // é, two bytes
		{11, "2:5"},        // space
		{12, "2:6"},        // x
		{13, "2:7"},        // \r of \r\n
		{14, "2:7"},        // inside \r\n: the end of the line
		{15, "3:1"},        // y
		{17, "4:1"},        // z, after a lone \r
		{len(text), "4:2"}, // the end of the text
		{len(text) + 5, "4:2"},
		{-1, "1:1"},
	} {
		if got := m.Point(tc.off).String(); got != tc.want {
			t.Errorf("Point(%d) = %s, want %s", tc.off, got, tc.want)
		}
		if tc.off >= 0 && tc.off <= len(text) {
			if got := m.Cursor(UTF32).Point(tc.off).String(); got != tc.want {
				t.Errorf("Cursor.Point(%d) = %s, want %s", tc.off, got, tc.want)
			}
		}
	}
	// The LSP encodings of the same place after the astral character.
	for enc, want := range map[Encoding]Position{UTF8: {1, 5}, UTF16: {1, 3}, UTF32: {1, 2}} {
		if got := m.Position(8, enc); got != want {
			t.Errorf("%v: Position(8) = %+v, want %+v", enc, got, want)
		}
		if off, err := m.Offset(want, enc); err != nil || off != 8 {
			t.Errorf("%v: Offset(%+v) = %d, %v; want 8", enc, want, off, err)
		}
	}
}

// TestRangeOfAnInvertedSpan checks that a span whose end is before its
// start maps to an empty range at the start, in the mapper and a cursor.
func TestRangeOfAnInvertedSpan(t *testing.T) {
	m := NewMapper([]byte("abc\ndef"))
	want := Range{Start: Position{1, 2}, End: Position{1, 2}}
	if got := m.Range(Span{6, 2}, UTF16); got != want {
		t.Errorf("Mapper.Range = %+v, want %+v", got, want)
	}
	if got := m.Cursor(UTF16).Range(Span{6, 2}); got != want {
		t.Errorf("Cursor.Range = %+v, want %+v", got, want)
	}
}

// TestPointOffset checks the conversion of a Point back to an offset, and
// its clamping.
func TestPointOffset(t *testing.T) {
	text := []byte("ab\n\t😀é\r\nz")
	m := NewMapper(text)
	for _, tc := range []struct {
		p    Point
		want int
	}{
		{Point{1, 1}, 0},
		{Point{1, 3}, 2},
		{Point{1, 9}, 2}, // past the end of the line
		{Point{2, 1}, 3},
		{Point{2, 2}, 4},
		{Point{2, 3}, 8}, // after the astral character
		{Point{2, 4}, 10},
		{Point{2, 5}, 10}, // the line ends before its \r\n
		{Point{2, 0}, 3},
		{Point{3, 1}, 12},
		{Point{3, 2}, 13},
		{Point{0, 4}, 0},
		{Point{4, 1}, 13},
	} {
		if got := m.PointOffset(tc.p); got != tc.want {
			t.Errorf("PointOffset(%v) = %d, want %d", tc.p, got, tc.want)
		}
		if tc.p.Line >= 1 && tc.p.Line <= 3 && tc.p.Column >= 1 {
			if back := m.Point(m.PointOffset(tc.p)); back.Line != tc.p.Line {
				t.Errorf("Point(PointOffset(%v)) = %v", tc.p, back)
			}
		}
	}
}

// TestMapperLongLineOfStrayBytes indexes a long line of continuation
// bytes without a character start (the marks' search once went back to
// the previous mark and never ended) and counts each stray byte as one
// character, as the decoder does.
func TestMapperLongLineOfStrayBytes(t *testing.T) {
	text := []byte("(a " + strings.Repeat("\xbe", 3000) + "\xe2\x82\xac" + strings.Repeat("\xbe", 1500) + ")")
	m := NewMapper(text)
	for _, off := range []int{0, 1024, 2049, 3003, 3006, 4000, len(text)} {
		want := utf8.RuneCount(text[:off])
		if got := m.Position(off, UTF32); got != (Position{0, want}) {
			t.Errorf("offset %d: %v, want 0:%d", off, got, want)
		}
	}
}
