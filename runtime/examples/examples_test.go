package examples_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax/ast"
)

// TestShippedExamples runs every example of every module in examples/:
// all of them must pass. Negative examples (NN_bad_*.caps) are meant to
// fail the checker and are left out (cmd/caps tests their codes).
func TestShippedExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.caps")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	total := 0
	for _, f := range files {
		if strings.Contains(filepath.Base(f), "_bad_") {
			continue
		}
		p, err := (&load.Loader{}).Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if p.Result.HasErrors() {
			t.Errorf("%s has errors: %v", f, p.Result.Diagnostics)
			continue
		}
		for _, o := range examples.Evaluate(p.Result) {
			total++
			if !o.Passed {
				t.Errorf("%s: %s", f, o.Message())
			}
		}
	}
	if total < 80 {
		t.Errorf("only %d examples evaluated", total)
	}
	t.Logf("%d examples passed", total)
}

func checkSrc(t *testing.T, src string) *check.Result {
	t.Helper()
	f, err := ast.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check(f, check.Options{Path: "test.caps"})
	if res.HasErrors() {
		var msgs []string
		for _, d := range res.Diagnostics {
			msgs = append(msgs, d.Code+": "+d.Message)
		}
		t.Fatalf("check errors:\n%s", strings.Join(msgs, "\n"))
	}
	return res
}

const failing = `(module m
  (capsule "1.0")
  (store s (backend memory) (authority x))
  (type Pair (record (a U32) (b Text)))
  (function abs_i64 (input (x I64)) (output I64)
    (body (if (< x 0) (- 0 x) x))
    (example (abs_i64 -7) 8)
    (example (abs_i64   -7) 7))
  (function div (input (a U32) (b U32)) (output U32)
    (body (/ a b))
    (example (div 1 0) 0)
    (example (div 9 (div 1 0)) 0)
    (example (div 1 1) (div 1 0)))
  (function pair (input (n U32)) (output Pair)
    (body (record Pair (a n) (b "x")))
    (example (pair 1) (record Pair (a 1) (b "y")))
    (example (pair (twice 2)) (record Pair (a (twice 2)) (b "x"))))
  (function twice (input (n U32)) (output U32)
    (body (* n 2)))
  (function logged (input (n U32)) (output U32)
    (effects (db.write s.log))
    (body (do (db.write s.log n) n))
    (example (logged (logged 3)) 3)))
`

func TestFailingExamples(t *testing.T) {
	res := checkSrc(t, failing)
	out := examples.Evaluate(res)
	var got []string
	for _, o := range out {
		status := "pass"
		if !o.Passed {
			status = "FAIL " + o.Message()
		}
		got = append(got, status)
	}
	want := []string{
		"FAIL example (abs_i64 -7) expected 8, got 7",
		"pass",
		"FAIL example (div 1 0) expected 0, but evaluation failed: division by zero: 1 / 0",
		"FAIL example (div 9 (div 1 0)) expected 0, but evaluation failed: division by zero: 1 / 0",
		"FAIL example (div 1 1): its expected value cannot be evaluated: division by zero: 1 / 0",
		`FAIL example (pair 1) expected (record Pair (a 1) (b "y")), got (record Pair (a 1) (b "x"))`,
		"pass",
		"pass",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("outcomes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(out[7].Effects) != 1 || out[7].Effects[0].String() != "(db.write s.log 3)" {
		t.Errorf("effects of the logged example: %v", out[7].Effects)
	}
	src := res.File.Source.CST.Src
	ds := examples.Diagnostics(out)
	if len(ds) != 5 {
		t.Fatalf("%d diagnostics", len(ds))
	}
	d := ds[0]
	if d.Code != check.ExampleFailed || d.Severity != 1 || string(src[d.Span.Start:d.Span.End]) != "8" || d.Message != "example (abs_i64 -7) expected 8, got 7" {
		t.Errorf("diagnostic %+v", d)
	}
	if d := ds[1]; string(src[d.Span.Start:d.Span.End]) != "0" || len(d.Related) != 1 ||
		string(src[d.Related[0].Span.Start:d.Related[0].Span.End]) != "(/ a b)" || d.Related[0].Message != "division-by-zero here" {
		t.Errorf("diagnostic %+v", d)
	}
}

func TestExamplesOfUncheckedModule(t *testing.T) {
	f, _ := ast.Parse([]byte(`(module m (capsule "1")
  (function f (output U32) (body 1) (example (f) 1))
  (function g (output U32) (body (+ 1 "x"))))`))
	res := check.Check(f, check.Options{})
	out := examples.Evaluate(res)
	if len(out) != 1 || out[0].Passed || out[0].Err == nil || !strings.Contains(out[0].Err.Error(), "only checked modules run") {
		t.Errorf("outcomes %+v", out)
	}
}
