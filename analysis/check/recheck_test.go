package check

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/capsulang/caps/syntax/edittest"
)

func checkCST(c *syntax.CST) *Result {
	return Check(ast.Build(syntax.Read(c)), Options{Path: "/virtual/test.caps"})
}

// bodyEdit returns a random edit of src: one of edittest.Random's, or a
// change of a signature (a parameter or result type, declared effects).
func bodyEdit(r *rand.Rand, src []byte) (start, end int, text string) {
	n := len(src)
	at := r.Intn(n + 1)
	switch r.Intn(6) {
	case 0:
		// a parameter or result type: I64 <-> I32, U64 <-> U32
		for i := at; i+3 <= n; i++ {
			if w := string(src[i : i+3]); w == "I64" || w == "U64" || w == "I32" || w == "U32" {
				if w[1:] == "64" {
					return i + 1, i + 3, "32"
				}
				return i + 1, i + 3, "64"
			}
		}
	case 1:
		// declared effects
		if i := bytes.Index(src[at:], []byte("(effects pure)")); i >= 0 {
			return at + i + 9, at + i + 13, "(db.write ops.items)"
		}
		if i := bytes.Index(src[at:], []byte("(effects (db.write ops.items))")); i >= 0 {
			return at + i + 9, at + i + 29, "pure"
		}
	}
	return edittest.Random(r, src)
}

// seedSources returns the files Recheck is tested on, by name: the
// examples, the checker's fixtures and two generated modules (the

// typeAtRandom makes n edits to d, as bodyEdit makes them, except that
// while the text has a syntax error it goes back towards the last text
// without one (two times in three), as someone typing does. After each
// edit it calls step with the edit, described, and the new tree.
func typeAtRandom(t *testing.T, d *syntax.Document, r *rand.Rand, n int, step func(edit string, c *syntax.CST)) {
	t.Helper()
	good := d.Text()
	for i := 0; i < n; i++ {
		cur := d.Text()
		start, end, text := bodyEdit(r, cur)
		if d.CST().HasError(0) && r.Intn(3) > 0 {
			start, end, text = edittest.Undo(cur, good)
		}
		if err := d.Edit(start, end, []byte(text)); err != nil {
			t.Fatal(err)
		}
		step(fmt.Sprintf("edit %d [%d,%d) -> %q", i, start, end, text), d.CST())
		if !d.CST().HasError(0) {
			good = d.Text()
		}
	}
}

// sortedNames returns the names of srcs in order.
func sortedNames(srcs map[string][]byte) []string {
	names := make([]string, 0, len(srcs))
	for n := range srcs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// benchmark's and the spec-shaped one) of about genLines lines.
func seedSources(t testing.TB, genLines int) map[string][]byte {
	srcs := map[string][]byte{"gen": gen.Module(genLines), "spec": gen.SpecModule(genLines)}
	for _, pattern := range []string{"../../examples/*.caps", "../../testdata/check/*.caps"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			srcs[filepath.Base(f)] = b
		}
	}
	return srcs
}

// TestRecheckMatchesCheck edits files at random and checks after every
// edit that Recheck, against a base checked some edits earlier, reports
// exactly what a full check of the new text reports, whenever it answers.
func TestRecheckMatchesCheck(t *testing.T) {
	srcs := seedSources(t, 300)
	answered, edits, withDiags := 0, 0, 0
	for name, src := range srcs {
		r := rand.New(rand.NewSource(int64(len(src))))
		d, err := syntax.NewDocument(src)
		if err != nil {
			t.Fatal(err)
		}
		base := checkCST(d.CST())
		typeAtRandom(t, d, r, 60, func(edit string, c *syntax.CST) {
			edits++
			full := checkCST(c)
			want := full.Diagnostics
			got, ok := base.Recheck(c)
			if !ok || r.Intn(4) == 0 {
				base = full // the server checks in full when Recheck cannot answer, and when idle
			}
			if ok {
				answered++
				if len(want) > 0 {
					withDiags++
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s: %s: Recheck differs from Check (-check +recheck):\n%s", name, edit, diff)
				}
			}
		})
		d.Close()
	}
	if answered < edits/3 || withDiags < answered/10 {
		t.Fatalf("Recheck answered %d of %d edits (%d with diagnostics); the test does not exercise it", answered, edits, withDiags)
	}
	t.Logf("%d edits, Recheck answered %d (%d with diagnostics)", edits, answered, withDiags)
}

// TestRecheckConcurrent rechecks several versions against one base at
// once (the server does, for overlapping edits); run with -race.
func TestRecheckConcurrent(t *testing.T) {
	for _, src := range [][]byte{gen.Module(200), gen.SpecModule(200)} {
		base := checkCST(mustParse(t, src))
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				r := rand.New(rand.NewSource(int64(g)))
				for i := 0; i < 20; i++ {
					start, end, text := bodyEdit(r, src)
					next := append(append(append([]byte(nil), src[:start]...), text...), src[end:]...)
					c, err := syntax.Parse(next)
					if err != nil {
						t.Error(err)
						return
					}
					if got, ok := base.Recheck(c); ok {
						if diff := cmp.Diff(checkCST(c).Diagnostics, got); diff != "" {
							t.Errorf("goroutine %d edit %d: Recheck differs from Check:\n%s", g, i, diff)
						}
					}
				}
			}(g)
		}
		wg.Wait()
	}
}

func mustParse(t *testing.T, src []byte) *syntax.CST {
	t.Helper()
	c, err := syntax.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRecheckDepthLimit: Read reports only the first list nested deeper
// than syntax.MaxDepth in a file, so when the first one is edited away the
// second must be reported; Recheck declines rather than miss it.
func TestRecheckDepthLimit(t *testing.T) {
	deep := strings.Repeat("(not ", 300) + "true" + strings.Repeat(")", 300)
	src := "(module m (capsule \"1.0\")\n  (function b (output Bool) (body " + deep + "))\n  (function c (output Bool) (body " + deep + ")))\n"
	base := checkCST(mustParse(t, []byte(src)))
	next := mustParse(t, []byte(strings.Replace(src, deep, "true", 1)))
	want := checkCST(next).Diagnostics
	if got, ok := base.Recheck(next); ok {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Recheck differs from Check (-check +recheck):\n%s", diff)
		}
	}
	for _, d := range want {
		if d.Code == syntax.CodeParse {
			return
		}
	}
	t.Fatalf("the full check should report the second deep list: %+v", want)
}

// TestRecheckSignatureChange changes a callee's signature: its callers are
// checked again with it, and Recheck still answers.
func TestRecheckSignatureChange(t *testing.T) {
	src := `(module m
  (capsule "1.0")
  (store ops (backend surrealdb) (authority runtime-state))
  (function callee
    (input (x I64))
    (output I64)
    (effects pure)
    (body (+ x 1)))
  (function caller
    (input (y I64))
    (output I64)
    (body (callee y)))
  (function other
    (output Bool)
    (body true))
  (machine M
    (context (n I64))
    (event Go)
    (initial a)
    (state a (on Go (guard (> (callee n) 0)) (target b)))
    (state b (type final))))
`
	base := checkCST(mustParse(t, []byte(src)))
	for _, tc := range []struct{ from, to string }{
		{"(input (x I64))", "(input (x I32))"},
		{"(output I64)\n    (effects pure)", "(output Bool)\n    (effects pure)"},
		{"(effects pure)", "(effects (db.write ops.items))"},
		{"(input (x I64))", "(input (x I64) (z I64))"},
	} {
		next := mustParse(t, []byte(strings.Replace(src, tc.from, tc.to, 1)))
		want := checkCST(next).Diagnostics
		got, ok := base.Recheck(next)
		if !ok {
			t.Errorf("%s -> %s: Recheck declined", tc.from, tc.to)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s -> %s: Recheck differs from Check (-check +recheck):\n%s", tc.from, tc.to, diff)
		}
		if len(want) == 0 {
			t.Errorf("%s -> %s: the change should break a caller", tc.from, tc.to)
		}
	}
}

// TestRecheckSignatureSubtleties: a signature that changes only in how a
// type is spelled (Int and I64 are one type) changes callers' messages;
// and a user checked again because of a signature change must have its
// own type resolved before other units' bodies look at it, as in a full
// check (found by fuzzing).
func TestRecheckSignatureSubtleties(t *testing.T) {
	for _, tc := range []struct{ src, from, to string }{
		{"(module m\n  (capsule \"1.0\")\n  (function callee\n    (input (x I64))\n    (output I64)\n    (body x))\n  (function caller\n    (output Bool)\n    (body (callee true))))\n", "(input (x I64))", "(input (x Int))"},
		{"(module m\n  (capsule \"1.0\")\n  (function callee\n    (input (x I64))\n    (output I64)\n    (body x))\n  (function caller\n    (output Bool)\n    (body (callee true))))\n", "(output I64)", "(output Int)"},
		{"(module m\n  (capsule \"1.0\")\n  (function f (input (a I64)) (output I64) (body (do (record g) 1)))\n  (function g (output I64) (body (f 1))))\n", "(a I64)", "(a I32)"},
		{"(module m\n  (capsule \"1.0\")\n  (type Color (enum red blue))\n  (function f\n    (input (x I64) (c Color))\n    (output I64)\n    (body (match c (y.red 1) (_ 2))))\n  (function y\n    (output Color)\n    (body (do (f 1 Color.red) Color.red))))\n", "(x I64)", "(x I32)"},
	} {
		base := checkCST(mustParse(t, []byte(tc.src)))
		next := mustParse(t, []byte(strings.Replace(tc.src, tc.from, tc.to, 1)))
		want := checkCST(next).Diagnostics
		if got, ok := base.Recheck(next); ok {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s -> %s: Recheck differs from Check (-check +recheck):\n%s", tc.from, tc.to, diff)
			}
		}
	}
}

// TestRecheckMissingEventName: a transition without an event name in a
// final state was reported at offset 0, outside its unit, so Recheck kept
// it after the transition was deleted (found by fuzzing). The report is now
// on the `on` keyword, and Recheck declines on any diagnostic at offset 0.
func TestRecheckMissingEventName(t *testing.T) {
	src := "(module m\n  (capsule \"1\")\n  (machine P\n    (initial a)\n    (event Go)\n    (state a (on Go (target b)))\n    (state b\n      (type final)\n      (on 14d Go)\n      (on Go (target a)))))\n"
	base := checkCST(mustParse(t, []byte(src)))
	for _, d := range base.Diagnostics {
		if d.Span == (syntax.Span{}) {
			t.Errorf("a diagnostic at offset 0: %+v", d)
		}
	}
	next := mustParse(t, []byte(strings.Replace(src, "      (on 14d Go)\n", "      2147483648\n", 1)))
	want := checkCST(next).Diagnostics
	if got, ok := base.Recheck(next); ok {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Recheck differs from Check (-check +recheck):\n%s", diff)
		}
	}
}
