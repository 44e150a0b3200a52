package evolution

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsulang/caps/analysis/propose"
)

// FuzzBrokenLedger flips one byte of a ledger of a proposal and its commit
// (issue 19, item 3): whenever the chain then fails to verify, every
// method that writes is refused with the broken record named, and the
// ledger keeps its bytes.
func FuzzBrokenLedger(f *testing.F) {
	root := copyExamples(f)
	w := open(f, root)
	path := filepath.Join(root, "examples", "abs.caps")
	src := read(f, path)
	p, err := w.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{path}, Candidate: []byte(edit(f, src, "(example (abs_i64 0) 0)", "(example (abs_i64 0) 0)\n    (example (abs_i64 2) 2)"))})
	if err != nil {
		f.Fatal(err)
	}
	ev, err := w.Commit(p.ID, nil)
	if err != nil {
		f.Fatal(err)
	}
	intact := []byte(read(f, w.LedgerPath()))
	for _, seed := range []struct {
		at  uint
		xor byte
	}{{10, 1}, {uint(len(intact) / 2), 1}, {uint(len(intact) - 2), 1}, {0, '{' ^ '['}} {
		f.Add(seed.at, seed.xor)
	}
	f.Fuzz(func(t *testing.T, at uint, xor byte) {
		if xor == 0 {
			return
		}
		broken := append([]byte(nil), intact...)
		broken[at%uint(len(broken))] ^= xor
		if err := os.WriteFile(w.LedgerPath(), broken, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(w.LedgerPath(), intact, 0o644)
		rep, err := w.VerifyLedger()
		if err != nil || rep.OK {
			return // still a chain (a torn last line, say)
		}
		writes := map[string]func() error{
			"propose": func() error {
				_, err := w.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{path}, Candidate: []byte(src)})
				return err
			},
			"assess":   func() error { _, err := w.Assess(p.ID); return err },
			"commit":   func() error { _, err := w.Commit(p.ID, nil); return err },
			"rollback": func() error { _, err := w.Rollback(ev.ID, "fuzz"); return err },
			"recover":  w.Recover,
		}
		for name, write := range writes {
			var re *RefusedError
			if err := write(); !errors.As(err, &re) || re.Broken == nil || re.Broken.Line != rep.Problem.Line {
				t.Fatalf("%s on a ledger broken at record %d: %v", name, rep.Problem.Line, err)
			}
			if got := read(t, w.LedgerPath()); got != string(broken) {
				t.Fatalf("%s changed a broken ledger", name)
			}
		}
	})
}
