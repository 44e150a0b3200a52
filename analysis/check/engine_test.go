package check

import (
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/edittest"
)

// allSources returns every module the engine's differential tests edit:
// the examples (the spec's modules among them), every .caps fixture under
// testdata, and generated modules (the spec-shaped one, the benchmark
// one, one of every common kind of declaration).
func allSources(t testing.TB) map[string][]byte {
	srcs := map[string][]byte{
		"gen.SpecModule": gen.SpecModule(400),
		"gen.Module":     gen.Module(300),
		"gen.Mixed":      gen.Mixed(6000),
	}
	files, _ := filepath.Glob("../../examples/*.caps")
	err := filepath.WalkDir("../../testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".caps") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[strings.TrimPrefix(f, "../../")] = b
	}
	return srcs
}

// share counts edits and how many the engine answered.
type share struct{ valid, answered, bodies, rechecked int }

func (s share) String() string {
	return strings.Join([]string{
		itoa(s.answered), " of ", itoa(s.valid), " edits that leave the file syntactically valid answered incrementally (",
		pct(s.answered, s.valid), "); ", pct(s.rechecked, s.bodies), " of the declarations' bodies checked again",
	}, "")
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(n)) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

func pct(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmtInt(a*100/b) + "%"
}

// differential rechecks cur against base and compares with a full check;
// it returns the full check and whether the engine answered.
func differential(t *testing.T, what string, base *Result, c *syntax.CST, s *share) (*Result, bool) {
	t.Helper()
	full := checkCST(c)
	got, eng, ok := base.recheck(c)
	if !c.HasError(0) {
		s.valid++
		if ok {
			s.answered++
		}
	}
	if ok {
		s.bodies += eng.rechecked + eng.reused
		s.rechecked += eng.rechecked
		if diff := cmp.Diff(full.Diagnostics, got); diff != "" {
			t.Fatalf("%s: Recheck differs from Check (-check +recheck):\n%s", what, diff)
		}
	}
	return full, ok
}

// TestEngineRandomTyping types at random into every module (edits as
// typing makes them, signature changes, undoing back to the last valid
// text) and compares, after every edit, the engine's diagnostics with a
// full check's. The base is what the server would hold: the last full
// check, taken when the engine declines and now and then when idle. At
// least 95% of the edits that leave the file syntactically valid must be
// answered incrementally.
func TestEngineRandomTyping(t *testing.T) {
	srcs := allSources(t)
	names := make([]string, 0, len(srcs))
	for n := range srcs {
		names = append(names, n)
	}
	sort.Strings(names)
	var total share
	for _, name := range names {
		src := srcs[name]
		r := rand.New(rand.NewSource(int64(len(src)) + 17))
		d, err := syntax.NewDocument(src)
		if err != nil {
			t.Fatal(err)
		}
		base := checkCST(d.CST())
		good := src
		for i := 0; i < 40; i++ {
			cur := d.Text()
			start, end, text := bodyEdit(r, cur)
			if d.CST().HasError(0) && r.Intn(3) > 0 {
				start, end, text = edittest.Undo(cur, good)
			}
			if err := d.Edit(start, end, []byte(text)); err != nil {
				t.Fatal(err)
			}
			full, ok := differential(t, name+": edit "+fmtInt(i)+" "+fmtInt(start)+"-"+fmtInt(end)+" -> "+text, base, d.CST(), &total)
			if !ok || r.Intn(6) == 0 {
				base = full
			}
			if !d.CST().HasError(0) {
				good = d.Text()
			}
		}
		d.Close()
	}
	t.Logf("random typing over %d modules: %s", len(names), total)
	if total.answered*100 < total.valid*95 {
		t.Fatalf("only %s", total)
	}
}
