package edittest

import "testing"

func TestUndo(t *testing.T) {
	for _, tc := range []struct{ cur, good string }{
		{"abc", "abc"},
		{"abXc", "abc"},
		{"ac", "abc"},
		{"", "abc"},
		{"abc", ""},
		{"aaa", "aa"},
		{"(a (b) c)", "(a c)"},
	} {
		s, e, text := Undo([]byte(tc.cur), []byte(tc.good))
		if got := tc.cur[:s] + text + tc.cur[e:]; got != tc.good {
			t.Errorf("Undo(%q, %q) = [%d,%d) %q, which gives %q", tc.cur, tc.good, s, e, text, got)
		}
	}
}
