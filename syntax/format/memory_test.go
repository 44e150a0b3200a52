package format

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// commented returns src with every line dedented, an own-line comment
// before every seventh line, a trailing comment after every fifth line
// that ends a list, and a blank line before every eleventh: a module
// that formatting changes everywhere and whose comments the layout must
// carry.
func commented(src []byte) []byte {
	var b bytes.Buffer
	for i, line := range bytes.Split(bytes.TrimSuffix(src, []byte("\n")), []byte("\n")) {
		if i%11 == 10 {
			b.WriteByte('\n')
		}
		if i%7 == 6 {
			fmt.Fprintf(&b, ";; line %d\n", i)
		}
		b.Write(bytes.TrimLeft(line, " "))
		if i%5 == 4 && bytes.HasSuffix(line, []byte(")")) {
			fmt.Fprintf(&b, " ; after %d", i)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestFormatMemory bounds what Source holds beyond what the reader holds
// for the same source (issue 19: fmt's peak memory was 32 times a 15 MB
// source, most of it a 64-byte layout node and a pointer per form, then a
// second reading of the whole output to verify it). With the collector
// off but for the collections Source runs itself, the heap at the end of
// each phase, and just before each collection verify runs, is at most its
// peak since the previous one; above the heap that syntax.ReadText's
// result holds alone, it must stay within maxExtra bytes per source byte.
func TestFormatMemory(t *testing.T) {
	const maxExtra = 5.0
	for _, tc := range []struct {
		name string
		src  []byte
	}{
		{"functions", gen.Functions(2 << 20)},
		{"commented", commented(gen.Module(60000))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			heap := func() uint64 {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				return ms.HeapAlloc
			}
			before := heap()
			rd, err := syntax.ReadText(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			reader := heap() - before
			runtime.KeepAlive(rd)
			rd = nil
			before = heap()

			var peak uint64
			var phases []string
			phaseHook = func(name string) {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
				phases = append(phases, name)
			}
			defer func() { phaseHook = nil }()
			out, err := Source(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(out, tc.src) {
				t.Fatal("the module is already formatted: nothing would be verified")
			}
			if len(phases) < 3 || phases[0] != "read" || phases[len(phases)-1] != "verify" {
				t.Fatalf("phases %q, want read, print, part..., verify", phases)
			}
			n := float64(len(tc.src))
			extra := (float64(peak) - float64(before) - float64(reader)) / n
			t.Logf("%d bytes: the reader holds %.1f bytes per source byte; formatting held up to %.2f more (%d phases)", len(tc.src), float64(reader)/n, extra, len(phases))
			if extra > maxExtra {
				t.Errorf("formatting held up to %.1f bytes per source byte beyond the reader's, want at most %.1f", extra, maxExtra)
			}
		})
	}
}
