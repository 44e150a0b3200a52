package syntax

import "testing"

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
			got, err := NewLines([]byte(tc.text)).Offset(tc.pos, enc)
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
