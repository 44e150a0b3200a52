// Package spell finds the name a user most likely meant when they wrote
// one that does not exist, and words the "did you mean" hint. Every
// suggestion in the toolchain (the checker's diagnostics, the AST
// builder, policy conditions, the runtime's unknown events and
// functions, the CLI's unknown commands, flags, patterns and codes) goes
// through Nearest (NearestPrefix for commands and flags, which users
// abbreviate) and Hint, so one closeness rule and one sentence serve them
// all.
package spell

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLen is the longest name, in characters, that Nearest compares or
// suggests: a suggestion is quoted in full (never clipped, see
// syntax.MaxQuoted), and comparing huge names would cost their product.
const MaxLen = 64

// Nearest returns the candidate nearest to name by edit distance
// (ignoring case) when it is close enough to be a likely typo, else "":
// at most min(3, 1+len(name)/4) edits away. Of equally near candidates
// the first in byte order wins. Names longer than MaxLen characters are
// neither matched nor suggested.
func Nearest(name string, candidates []string) string {
	return nearest(name, candidates, false)
}

// NearestPrefix is Nearest for names users abbreviate (commands and
// flags): a candidate that begins with name, when name has at least two
// characters, counts as one edit away.
func NearestPrefix(name string, candidates []string) string {
	return nearest(name, candidates, true)
}

func nearest(name string, candidates []string, prefix bool) string {
	n := utf8.RuneCountInString(name)
	if n > MaxLen {
		return ""
	}
	limit := min(3, 1+len(name)/4)
	lower := strings.ToLower(name)
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if c == name || len(c) > 4*MaxLen {
			continue
		}
		m := utf8.RuneCountInString(c)
		if m > MaxLen {
			continue
		}
		var d int
		switch lc := strings.ToLower(c); {
		case prefix && n >= 2 && strings.HasPrefix(lc, lower):
			d = 1
		case m-n > limit || n-m > limit:
			continue // too far apart in length to be within limit
		default:
			d = Distance(lower, lc)
		}
		if d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	if bestD <= limit {
		return best
	}
	return ""
}

// Distance is the Levenshtein distance between a and b in characters,
// counting a transposition of neighbours as one edit.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Quote is how a hint writes the name it suggests: the way the message
// it ends writes the name it rejects, so both look alike.
type Quote int

const (
	// Backtick writes `name`, as diagnostics quote names from source.
	Backtick Quote = iota
	// Go writes "name" (Go-quoted), as the CLI and the runtime quote a
	// value the user typed or sent.
	Go
	// Bare writes name as it is, for messages that write the rejected
	// name bare (a flag such as --json, a code such as E_UNKNOWN_NAME).
	Bare
)

// Hint returns the sentence that ends a message rejecting a name,
// "; did you mean X?" with X the suggestion written as q says, or ""
// when there is no suggestion.
func Hint(suggestion string, q Quote) string {
	if suggestion == "" {
		return ""
	}
	switch q {
	case Backtick:
		suggestion = "`" + suggestion + "`"
	case Go:
		suggestion = fmt.Sprintf("%q", suggestion)
	}
	return "; did you mean " + suggestion + "?"
}

// DidYouMean is Hint(Nearest(name, candidates), q): the hint for name
// among candidates, or "".
func DidYouMean(name string, candidates []string, q Quote) string {
	return Hint(Nearest(name, candidates), q)
}
