package syntax

import "testing"

func TestListHead(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"(module m)", "module"},
		{"( ;; a comment\n  function f)", "function"},
		{"((a) b)", ""},
		{"(\"text\" x)", ""},
		{"()", ""},
	} {
		c, err := Parse([]byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		list := c.FirstChild(0)
		if got := c.ListHead(list); got != tt.want {
			t.Errorf("ListHead(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}
