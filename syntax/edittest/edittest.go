// Package edittest helps tests that drive documents through random edits.
package edittest

import "math/rand"

// Undo returns the one edit that turns cur into good: the bytes [start,
// end) of cur, between the two texts' common prefix and common suffix,
// replaced by text. It is what an editor sends when the user undoes a run
// of edits at once.
func Undo(cur, good []byte) (start, end int, text string) {
	p := 0
	for p < len(cur) && p < len(good) && cur[p] == good[p] {
		p++
	}
	s := 0
	for s < len(cur)-p && s < len(good)-p && cur[len(cur)-1-s] == good[len(good)-1-s] {
		s++
	}
	return p, len(cur) - s, string(good[p : len(good)-s])
}

// Random returns a random edit of src, as typing makes: mostly edits that
// keep a valid file
// valid (spaces, letters inside symbols, balanced lists, deleting a token),
// sometimes ones that break it (a lone paren, a quote) so that the next
// edits also start from and return to broken trees.
func Random(r *rand.Rand, src []byte) (start, end int, text string) {
	n := len(src)
	at := r.Intn(n + 1)
	switch r.Intn(12) {
	case 0, 1:
		return at, at, " "
	case 2:
		return at, at, []string{"x", "é", "😀", "7"}[r.Intn(4)]
	case 3:
		return at, at, []string{"(f a)", "(g \"s\" 1)", "\n  (h)", "\r\n"}[r.Intn(4)]
	case 4, 5:
		// delete one byte that is a letter or a space, if there is one here
		for i := at; i < n && i < at+40; i++ {
			if c := src[i]; c == ' ' || c >= 'a' && c <= 'z' {
				return i, i + 1, ""
			}
		}
		return at, at, ""
	case 6:
		// delete a whole innermost list
		for i := at; i < n; i++ {
			if src[i] == '(' {
				for j := i + 1; j < n && src[j] != '('; j++ {
					if src[j] == ')' {
						return i, j + 1, ""
					}
				}
				break
			}
		}
		return at, at, ""
	case 7:
		return at, at, []string{"(", ")", "\"", ";"}[r.Intn(4)]
	case 9:
		// change a digit
		for i := at; i < n && i < at+200; i++ {
			if c := src[i]; c >= '0' && c <= '9' {
				return i, i + 1, string(rune('0' + r.Intn(10)))
			}
		}
		return at, at, ""
	case 10:
		return at, at, []string{" (f 1)", " (+ 1 2)", " (ok 3)", " true", " \"s\""}[r.Intn(5)]
	case 8:
		// undo a breakage: delete a lone paren or quote
		for i := at; i < n && i < at+200; i++ {
			if c := src[i]; c == '(' || c == ')' || c == '"' {
				return i, i + 1, ""
			}
		}
		return at, at, ""
	}
	end = min(n, at+r.Intn(8))
	return at, end, ""
}
