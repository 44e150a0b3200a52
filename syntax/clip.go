package syntax

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQuoted is the most characters (Unicode code points) of source text a
// diagnostic message quotes in one piece: a name, a literal, a token.
// Longer text is clipped around an ellipsis, so that a huge name or
// literal is never echoed in full.
const MaxQuoted = 80

// Ellipsis marks where Clip removed text.
const Ellipsis = "…"

// Clip returns s when it has at most max characters, else its first and
// last characters around Ellipsis, max characters in all: the start and
// the end of a name or literal are what tell it apart.
func Clip(s string, max int) string {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s
	}
	head := (max - 1) / 2
	tail := max - 1 - head
	i := 0
	for n := 0; n < head; n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	j := len(s)
	for n := 0; n < tail; n++ {
		_, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
	}
	return s[:i] + Ellipsis + s[j:]
}

// Quote quotes source text in a message as `text`, clipped so that the
// quoted text is at most MaxQuoted characters.
func Quote(s string) string {
	return "`" + Clip(s, MaxQuoted-2) + "`"
}

// ClipWords clips every word of msg (a run of characters without white
// space) longer than MaxQuoted characters with Clip. Names and literals
// hold no white space, so this bounds every piece of source text a
// message quotes whatever its wording; text with spaces (a string, a run
// of stray tokens) is clipped where it is quoted, with Quote.
func ClipWords(msg string) string {
	var b strings.Builder
	start := 0 // of the part of msg not yet copied to b
	for i := 0; i < len(msg); {
		if isSpaceAt(msg, i) {
			_, size := utf8.DecodeRuneInString(msg[i:])
			i += size
			continue
		}
		j := i
		for j < len(msg) && !isSpaceAt(msg, j) {
			_, size := utf8.DecodeRuneInString(msg[j:])
			j += size
		}
		if w := msg[i:j]; len(w) > MaxQuoted && utf8.RuneCountInString(w) > MaxQuoted {
			if b.Len() == 0 {
				b.Grow(len(msg[:i]) + MaxQuoted*4)
			}
			b.WriteString(msg[start:i])
			b.WriteString(Clip(w, MaxQuoted))
			start = j
		}
		i = j
	}
	if start == 0 {
		return msg
	}
	b.WriteString(msg[start:])
	return b.String()
}

// isSpaceAt reports whether msg holds white space at byte i.
func isSpaceAt(msg string, i int) bool {
	if c := msg[i]; c < utf8.RuneSelf {
		return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
	}
	r, _ := utf8.DecodeRuneInString(msg[i:])
	return unicode.IsSpace(r)
}

// Messagef formats a diagnostic message and clips the source text it
// quotes (ClipWords). The parser, the AST builder and the checker build
// every message with it.
func Messagef(format string, args ...any) string {
	return ClipWords(fmt.Sprintf(format, args...))
}
