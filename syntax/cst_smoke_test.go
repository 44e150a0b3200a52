package syntax

import (
	"strings"
	"testing"
)

func TestDeepNesting(t *testing.T) {
	src := strings.Repeat("(", 100000) + strings.Repeat(")", 100000)
	c, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() < 300000 {
		t.Fatalf("nodes %d", c.Len())
	}
}
