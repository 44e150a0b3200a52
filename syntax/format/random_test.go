package format

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// randSource writes a random well-formed file: nested lists whose heads are
// often declaration keywords, with comments, blank lines, CRs and odd
// spacing between any two tokens.
func randSource(r *rand.Rand) []byte {
	heads := []string{"module", "function", "machine", "state", "on", "event", "type", "record",
		"input", "context", "effects", "assign", "let", "if", "f", "g", "body", "variant", "store", "authority-policy"}
	atoms := []string{"a", "b", "x1", "42", "-7", "30m", `"s"`, `"😀 \u{1F600}"`, "final", "event.x",
		strings.Repeat("long_name_", 4)}
	var b strings.Builder
	space := func() {
		switch r.IntN(12) {
		case 0:
			b.WriteString(" ; c" + strings.Repeat("x", r.IntN(3)) + "\n")
		case 1:
			b.WriteString("\n; own\n")
		case 2:
			b.WriteString("\n\n")
		case 3:
			b.WriteString("\r\n\t")
		case 4:
			b.WriteString("\n  ;; doc  \n\n")
		default:
			b.WriteString(" ")
		}
	}
	var form func(depth int)
	form = func(depth int) {
		if depth > 6 || r.IntN(3) == 0 {
			b.WriteString(atoms[r.IntN(len(atoms))])
			return
		}
		b.WriteString("(")
		if r.IntN(8) == 0 {
			space()
		}
		n := r.IntN(6)
		for i := 0; i < n; i++ {
			if i > 0 {
				space()
			}
			if i == 0 && r.IntN(4) != 0 {
				b.WriteString(heads[r.IntN(len(heads))])
				continue
			}
			form(depth + 1)
		}
		if r.IntN(4) == 0 {
			space()
		}
		b.WriteString(")")
	}
	for i := r.IntN(4); i >= 0; i-- {
		space()
		form(0)
		space()
	}
	return []byte(b.String())
}

func TestRandomFiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		src := randSource(r)
		out, err := Source(src)
		if err != nil {
			t.Fatalf("%v\ninput: %q", err, src)
		}
		checkInvariants(t, out)
		checkParts(t, src)
		again, err := Source(out)
		if err != nil {
			t.Fatalf("%v\ninput: %q\noutput: %q", err, src, out)
		}
		if !bytes.Equal(out, again) {
			t.Fatalf("not idempotent\ninput: %q\nonce:\n%s\ntwice:\n%s", src, out, again)
		}
		if !equalSummary(summary(t, src), summary(t, out)) {
			t.Fatalf("forms or comments changed\ninput: %q\noutput: %q", src, out)
		}
		if i%10 == 0 {
			off := r.IntN(len(src) + 1)
			a, b, text, err := Range(src, off, min(len(src), off+r.IntN(40)))
			if err != nil {
				t.Fatal(err)
			}
			edited := apply(src, a, b, text)
			if full, err := Source([]byte(edited)); err != nil || !bytes.Equal(full, out) {
				t.Fatalf("Range at %d: result formats differently (%v)\ninput: %q\nedited: %q", off, err, src, edited)
			}
		}
	}
}
