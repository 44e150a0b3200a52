package format

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsulang/caps/bench/gen"
)

// TestVerifyInParts checks that verify's reading in parts accepts every
// formatted golden and generated module without falling back to reading
// the output whole, and that it rejects outputs that differ from the
// source in an atom, a comment or a parenthesis, inside a part or in the
// skeleton between parts.
func TestVerifyInParts(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join(goldenDir, "*.in.caps"))
	if err != nil || len(ins) == 0 {
		t.Fatalf("no golden inputs (%v)", err)
	}
	srcs := map[string][]byte{
		"functions": gen.Functions(300 << 10),
		"commented": commented(gen.Module(8000)),
	}
	for _, in := range ins {
		src, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		srcs[filepath.Base(in)] = src
	}
	for name, src := range srcs {
		if _, err := load(src); err != nil {
			continue // the goldens of refused files
		}
		t.Run(name, func(t *testing.T) { checkParts(t, src) })
	}

	src := srcs["commented"]
	f, err := load(src)
	if err != nil {
		t.Fatal(err)
	}
	out := f.print()
	ps := f.parts()
	if len(ps) < 3 || ps[0].list != 0 {
		t.Fatalf("%d parts of list %d, want the module's items in at least 3", len(ps), ps[0].list)
	}
	inPart := func(i int) bool {
		for _, p := range ps {
			if int(p.out.start) <= i && i < int(p.out.end) {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		name     string
		old, new string
		part     bool // the change is inside a part
		last     bool // change the last occurrence of old
	}{
		{"atom in a part", "(function clamp_9\n", "(function clamq_9\n", true, false},
		{"atom in the skeleton", "(module bench.generated", "(module bench.generatex", false, false},
		{"comment in a part", ";; line 6\n", ";; lime 6\n", true, false},
		{"parenthesis in a part", "(output I64)", "(output I64(", true, false},
		{"string to number in a part", "(capsule \"1.0\")", "(capsule  1.0 )", true, false},
		{"module's parenthesis in the skeleton", ")\n", " \n", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := bytes.Index(out, []byte(tc.old))
			if tc.last {
				i = bytes.LastIndex(out, []byte(tc.old))
			}
			if i < 0 || len(tc.old) != len(tc.new) {
				t.Fatalf("%q not in the output, or a change of length", tc.old)
			}
			if inPart(i) != tc.part {
				t.Fatalf("%q is in a part: %v, want %v", tc.old, inPart(i), tc.part)
			}
			bad := bytes.Clone(out)
			copy(bad[i:], tc.new)
			if f.sameInParts(bad) {
				t.Error("the parts match")
			}
			if err := verify(f, bad); !errors.Is(err, ErrNotPreserved) {
				t.Errorf("verify: %v, want ErrNotPreserved", err)
			}
		})
	}
}

// checkParts checks that verify's reading in parts accepts the output of
// src, a file that formats, with parts of every item and of a few items,
// without falling back to reading the output whole.
func checkParts(t *testing.T, src []byte) {
	t.Helper()
	f, err := load(src)
	if err != nil {
		t.Fatal(err)
	}
	out := f.print()
	defer func(n int32) { partSize = n }(partSize)
	for _, n := range []int32{1, 200, 64 << 10} {
		partSize = n
		if !f.sameInParts(out) {
			t.Fatalf("parts of %d bytes do not match (same: %v)\ninput: %q\noutput: %q", n, same(f, out), src, out)
		}
	}
}

// TestSourceReadsWhole checks that Source's fallback, reading the source
// again and comparing the output whole when the parts do not match, gives
// the same output as the parts do.
func TestSourceReadsWhole(t *testing.T) {
	srcs := [][]byte{commented(gen.Module(3000)), gen.Functions(100 << 10)}
	ins, _ := filepath.Glob(filepath.Join(goldenDir, "*.in.caps"))
	for _, in := range ins {
		src, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	defer func() { wholeOnly = false }()
	for i, src := range srcs {
		wholeOnly = false
		want, werr := Source(src)
		wholeOnly = true
		got, gerr := Source(src)
		if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
			t.Errorf("source %d: reading whole gave %d bytes (%v), in parts %d bytes (%v)", i, len(got), gerr, len(want), werr)
		}
	}
}
