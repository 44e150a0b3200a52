package load

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
)

// FuzzImportCycles builds a graph of up to five modules from the input
// (each byte is one import: high nibble imports low nibble, modulo 5) and
// loads every file in two orders with fresh loaders: an import gets
// E_IMPORT_CYCLE exactly when the module it names leads back to the
// importer, whatever the order (issue 19, item 4), with the same message
// and related location (the chain a check names is a function of the
// files' texts, not of what the loader checked first), and every
// package's hash is its IR with its imports' hashes.
func FuzzImportCycles(f *testing.F) {
	for _, seed := range []string{
		"\x01\x10",             // a <-> b: the two-file cycle of issue 19
		"\x00",                 // a imports itself
		"\x01\x12\x20",         // a -> b -> c -> a
		"\x01\x12\x21\x30",     // b <-> c below a, and d -> a
		"\x01\x02\x13\x23",     // a diamond, no cycle
		"\x01\x12\x13\x20\x30", // two chains back of one length
		// m2's import of m4 named m2 -> m4 -> m3 -> m2 when m0 was
		// loaded first, m2 -> m4 -> m3 -> m0 -> m2 when m4 was (m3's
		// import of m2 not recorded yet when m2's check asked)
		"\x02\x24\x41\x43\x30\x32",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16 {
			return
		}
		const n = 5
		var imports [n][n]bool
		for _, b := range data {
			imports[int(b>>4)%n][int(b&15)%n] = true
		}
		dir := t.TempDir()
		var files []string
		for i := range n {
			var b strings.Builder
			fmt.Fprintf(&b, "(module m%d (capsule \"1\")", i)
			for j := range n {
				if imports[i][j] {
					fmt.Fprintf(&b, " (import m%d)", j)
				}
			}
			b.WriteString(")\n")
			files = append(files, write(t, dir, fmt.Sprintf("m%d.caps", i), b.String()))
		}
		// reach[i][j]: a chain of imports leads from i to j.
		reach := imports
		for k := range n {
			for i := range n {
				for j := range n {
					reach[i][j] = reach[i][j] || reach[i][k] && reach[k][j]
				}
			}
		}
		var want []string
		for i := range n {
			for j := range n {
				if imports[i][j] && reach[j][i] {
					want = append(want, fmt.Sprintf("m%d imports m%d", i, j))
				}
			}
		}
		var messages [][]string
		for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}} {
			var l Loader
			var got, msgs []string
			for _, i := range order {
				p, err := l.Load(files[i])
				if err != nil {
					t.Fatal(err)
				}
				if h, _ := IROptions(p.Result).Hash(p.File.Module); p.Hash != h {
					t.Fatalf("m%d: Package.Hash %s, its IR with its imports %s", i, p.Hash, h)
				}
				for _, d := range p.Result.Diagnostics {
					if d.Code == check.ImportCycle {
						got = append(got, fmt.Sprintf("m%d imports %s", i, p.Src[d.Span.Start:d.Span.End]))
						m := fmt.Sprintf("m%d imports %s: %s", i, p.Src[d.Span.Start:d.Span.End], d.Message)
						for _, r := range d.Related {
							m += fmt.Sprintf(" (%s %d-%d: %s)", filepath.Base(r.File), r.Span.Start, r.Span.End, r.Message)
						}
						msgs = append(msgs, m)
					} else {
						t.Fatalf("m%d: %s %s", i, d.Code, d.Message)
					}
				}
			}
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("imports %v, order %v:\n got %q\nwant %q", data, order, got, want)
			}
			sort.Strings(msgs)
			messages = append(messages, msgs)
		}
		if a, b := strings.Join(messages[0], "\n"), strings.Join(messages[1], "\n"); a != b {
			t.Fatalf("imports %v: the messages depend on the order the files are loaded in:\n%s\nin the other order:\n%s", data, a, b)
		}
	})
}
