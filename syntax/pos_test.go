package syntax

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// naivePosition counts a position from the start of its line, as Lines did
// before long lines had marks.
func naivePosition(l *Mapper, text []byte, off int, enc Encoding) Position {
	line := l.Line(off)
	start := l.start(line)
	if end := l.lineEnd(line); off > end {
		off = end
	}
	return Position{Line: line, Character: units(text[start:off], enc)}
}

// TestLongLinePositions checks positions on long lines, counted from their
// marks, against counts from the start of the line, at every offset
// (inside characters and CRLF pairs too).
func TestLongLinePositions(t *testing.T) {
	pieces := []string{"(", "a", "é", "😀", "中", " ", "\r\n", "\n", "\r", "\xff", strings.Repeat("x", 700)}
	r := rand.New(rand.NewSource(1))
	for iter := 0; iter < 20; iter++ {
		var b strings.Builder
		for b.Len() < 6000 {
			p := pieces[r.Intn(len(pieces))]
			if strings.ContainsAny(p, "\r\n") && r.Intn(4) > 0 {
				continue // mostly long lines
			}
			b.WriteString(p)
		}
		text := []byte(b.String())
		l := NewMapper(text)
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			for off := 0; off <= len(text); off++ {
				if got, want := l.Position(off, enc), naivePosition(l, text, off, enc); got != want {
					t.Fatalf("%v, offset %d of %q: %+v, want %+v", enc, off, text, got, want)
				}
			}
		}
	}
}

// TestLongLineMarks checks that a long line is marked every markEvery
// bytes or so, at character starts, so that no position on it counts more
// than markEvery bytes (100,000 unclosed lists on one line once took
// seconds to convert).
func TestLongLineMarks(t *testing.T) {
	text := []byte("(module m\n" + strings.Repeat("(é", 50000) + "\n")
	l := NewMapper(text)
	ms := l.marks[1]
	if len(ms) < 3*50000/markEvery-2 {
		t.Fatalf("%d marks on a line of %d bytes", len(ms), 3*50000)
	}
	prev := l.start(1)
	for _, m := range ms {
		if m.off-prev > markEvery || !utf8.RuneStart(text[m.off]) {
			t.Fatalf("mark at %d after %d", m.off, prev)
		}
		prev = m.off
	}
	if l.marks[0] != nil {
		t.Error("a short line has marks")
	}
}

// A UTF-8 position at the end of the last line is the end of the text; it
// read one byte past the text (and panicked) when the last line had no
// line break.
func TestOffsetAtTheEndOfTheText(t *testing.T) {
	for _, tc := range []struct {
		text string
		pos  Position
		want int
	}{
		{"ab", Position{0, 2}, 2},
		{"ab", Position{0, 9}, 2},
		{"a\nbé", Position{1, 3}, 5},
		{"a\nbé", Position{1, 2}, 3},
		{"a\r\n", Position{0, 1}, 1},
		{"a\r\n", Position{1, 0}, 3},
	} {
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			got, err := NewMapper([]byte(tc.text)).Offset(tc.pos, enc)
			want := tc.want
			if enc != UTF8 && tc.text == "a\nbé" && tc.pos.Character == 2 {
				want = 5 // two characters: b and é
			}
			if err != nil || got != want {
				t.Errorf("%q %v in %v: %d, %v; want %d", tc.text, tc.pos, enc, got, err, want)
			}
		}
	}
}
