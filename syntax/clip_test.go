package syntax

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	digits := strings.Repeat("1234567890", 10_000) // a 100,000-digit literal
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 80, "short"},
		{strings.Repeat("a", 80), 80, strings.Repeat("a", 80)},
		{strings.Repeat("a", 81), 80, strings.Repeat("a", 39) + "…" + strings.Repeat("a", 40)},
		{digits, 80, "123456789012345678901234567890123456789…1234567890123456789012345678901234567890"},
		{digits, 10, "1234…67890"},
		// Characters, not bytes: é and 😀 count one each and are never split.
		{strings.Repeat("é", 5) + strings.Repeat("😀", 5), 9, "éééé…😀😀😀😀"},
		{strings.Repeat("é", 9), 9, strings.Repeat("é", 9)},
	}
	for _, tt := range tests {
		got := Clip(tt.in, tt.max)
		if got != tt.want {
			t.Errorf("Clip(%.20q... (%d), %d) = %q, want %q", tt.in, len(tt.in), tt.max, got, tt.want)
		}
		if n := utf8.RuneCountInString(got); n > tt.max || !utf8.ValidString(got) {
			t.Errorf("Clip(..., %d) has %d characters or is not UTF-8: %q", tt.max, n, got)
		}
	}
	if got, want := Quote(strings.Repeat("b", 1000)), "`"+strings.Repeat("b", 38)+"…"+strings.Repeat("b", 39)+"`"; got != want {
		t.Errorf("Quote = %q, want %q", got, want)
	}
}

func TestClipWords(t *testing.T) {
	name := "big_" + strings.Repeat("x", 1<<20) + "_end" // a 1 MB name
	clippedName := "`big_" + strings.Repeat("x", 34) + "…" + strings.Repeat("x", 35) + "_end`"
	tests := []struct{ in, want string }{
		{"unknown name `x`; did you mean `y`?", "unknown name `x`; did you mean `y`?"},
		{"unknown name `" + name + "`", "unknown name " + clippedName},
		{"`" + name + "` and `" + name + "`\tagain", clippedName + " and " + clippedName + "\tagain"},
		// Words end at any white space, U+3000 included, and keep it.
		{"a\u3000" + strings.Repeat("é", 100) + "\u3000b", "a\u3000" + strings.Repeat("é", 39) + "…" + strings.Repeat("é", 40) + "\u3000b"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := ClipWords(tt.in); got != tt.want {
			t.Errorf("ClipWords(%.40q...) = %.200q, want %.200q", tt.in, got, tt.want)
		}
	}
	// The punctuation after a name is part of its word, and kept.
	msg := Messagef("unknown name `%s`; did you mean `%s`?", name, "x")
	if want := "unknown name `big_" + strings.Repeat("x", 34) + "…" + strings.Repeat("x", 34) + "_end`; did you mean `x`?"; msg != want {
		t.Errorf("Messagef = %q, want %q", msg, want)
	}
}
