package format

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// genModule returns a module of about lines lines: functions, types and
// machines with comments, blank lines and expressions that must break.
func genModule(lines int) []byte {
	var b bytes.Buffer
	b.WriteString(";; Generated benchmark module.\n(module bench.generated\n  (capsule \"1.0\")\n")
	for i := 0; strings.Count(b.String(), "\n") < lines; i++ {
		fmt.Fprintf(&b, `
  ;; Function %[1]d: a comment, a long condition and a let.
  (function f%[1]d (input (a U64) (b U64)) (output U64)
    (requires (and (<= a 1000000) (<= b 1000000) (!= a b) (> (+ a b) %[1]d) (< (* a b) 999999999999)))
    (body
      (let ((s (+ a b)) (d (if (> a b) (- a b) (- b a)))) ; sum and distance
        (if (> s d) (* s 2) (+ d %[1]d))))
    (example (f%[1]d 1 2) 6))

  (type Rec%[1]d (record (id U64) (name Text) (score U32)))

  (machine M%[1]d
    (version "1.0")
    (context (count U64) (last Text))
    (event Tick (by U64))
    (event Stop)
    (initial running)
    (state running
      (on Tick (guard (< count 100)) (target running)
        (assign (count (+ count event.by)) (last "tick ✓"))
        (effects (db.write store.ticks) (a2ui.emit panel%[1]d)))
      (on Stop (target stopped)))
    (state stopped (type final)))
`, i)
	}
	b.WriteString(")\n")
	return b.Bytes()
}

func BenchmarkFormat(b *testing.B) {
	src := genModule(10000)
	out, err := Source(src)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("input %d lines, %d bytes; output %d lines", bytes.Count(src, []byte("\n")), len(src), bytes.Count(out, []byte("\n")))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Source(src); err != nil {
			b.Fatal(err)
		}
	}
}

func TestGeneratedModule(t *testing.T) {
	src := genModule(2000)
	out, err := Source(src)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Source(out)
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("not idempotent: %v", err)
	}
	checkInvariants(t, out)
}
