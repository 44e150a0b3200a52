package spell

import (
	"strings"
	"testing"
	"time"
)

func TestNearest(t *testing.T) {
	cands := []string{"open", "closed", "idle"}
	for _, tt := range []struct{ name, want string }{
		{"opne", "open"}, {"clsoed", "closed"}, {"xyz", ""}, {"idel", "idle"},
		{"OPEN", "open"}, // case is ignored
		{"open", ""},     // the name itself is no suggestion
		{"op", ""},       // no prefix rule: two edits from open, limit 1
	} {
		if got := Nearest(tt.name, cands); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	// Of equally near candidates the first in byte order wins, whatever
	// the order given.
	if got := Nearest("cat", []string{"hat", "bat"}); got != "bat" {
		t.Errorf("tie: got %q, want bat", got)
	}
}

func TestNearestPrefix(t *testing.T) {
	cmds := []string{"check", "fmt", "explain", "parse", "version"}
	for in, want := range map[string]string{
		"chek": "check", "chekc": "check", "fnt": "fmt", "fmtt": "fmt", "exp": "explain",
		"vers": "version", "pasre": "parse", "x": "", "e": "", "format": "", "zzzzzz": "",
	} {
		if got := NearestPrefix(in, cmds); got != want {
			t.Errorf("NearestPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNearestLongNames (issue 19, item 10): names of up to MaxLen
// characters are suggested; longer ones are neither compared nor
// suggested, so a 1 MB name one letter off a declared one costs little.
func TestNearestLongNames(t *testing.T) {
	at := strings.Repeat("n", MaxLen-1)
	if got := Nearest(at+"x", []string{at + "y", "other"}); got != at+"y" {
		t.Errorf("a %d-character name: got %q", MaxLen, got)
	}
	over := strings.Repeat("n", MaxLen)
	if got := Nearest(over+"x", []string{over + "y"}); got != "" {
		t.Errorf("a %d-character name got a suggestion: %q", MaxLen+1, got)
	}
	if got := Nearest("abc", []string{"abd" + strings.Repeat("z", MaxLen)}); got != "" {
		t.Errorf("a candidate longer than MaxLen was suggested: %q", got)
	}
	if got := NearestPrefix("ab", []string{"ab" + strings.Repeat("z", MaxLen)}); got != "" {
		t.Errorf("a candidate longer than MaxLen was suggested by prefix: %q", got)
	}
	huge := strings.Repeat("x", 1<<20)
	start := time.Now()
	if got := Nearest(huge+"a", []string{huge + "b", huge}); got != "" {
		t.Errorf("a 1 MB name got a suggestion of %d bytes", len(got))
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Nearest on 1 MB names took %v", d)
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"parse", "parse", 0}, {"pars", "parse", 1}, {"pasre", "parse", 1},
		{"check", "chekc", 1}, {"fmt", "ftm", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"héllo", "hello", 1}, {"ca", "abc", 3},
	}
	for _, tt := range tests {
		if d := Distance(tt.a, tt.b); d != tt.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, d, tt.d)
		}
	}
}

func TestHint(t *testing.T) {
	for _, tt := range []struct {
		s    string
		q    Quote
		want string
	}{
		{"done", Backtick, "; did you mean `done`?"},
		{"parse", Go, `; did you mean "parse"?`},
		{`a"b`, Go, `; did you mean "a\"b"?`},
		{"--json", Bare, "; did you mean --json?"},
		{"", Backtick, ""},
		{"", Go, ""},
	} {
		if got := Hint(tt.s, tt.q); got != tt.want {
			t.Errorf("Hint(%q, %d) = %q, want %q", tt.s, tt.q, got, tt.want)
		}
	}
	if got := DidYouMean("don", []string{"done", "idle"}, Backtick); got != "; did you mean `done`?" {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("zzz", []string{"done"}, Go); got != "" {
		t.Errorf("DidYouMean with nothing near = %q", got)
	}
}
