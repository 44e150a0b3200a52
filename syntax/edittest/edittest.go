// Package edittest helps tests that drive documents through random edits.
package edittest

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
