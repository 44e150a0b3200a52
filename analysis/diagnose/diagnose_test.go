package diagnose_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
)

// diag is a diagnostic reduced to what the pipeline decides: its code and
// where it is (byte offsets).
type diag struct {
	Code       string
	Start, End int
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		runs     bool
		outcomes int
		want     []diag
	}{
		{
			name: "clean, examples pass",
			src:  `(module m (capsule "1") (function f (input (x I64)) (output I64) (body (+ x 1)) (example (f 1) 2)))`,
			runs: true, outcomes: 1,
		},
		{
			name: "clean, no examples: nothing runs",
			src:  `(module m (capsule "1") (function f (input (x I64)) (output I64) (body (+ x 1))))`,
		},
		{
			name: "a failing example is an error on its expected value",
			src:  `(module m (capsule "1") (function f (input (x I64)) (output I64) (body (+ x 1)) (example (f 1) 3) (example (f 2) 3)))`,
			runs: true, outcomes: 2,
			want: []diag{{"E_EXAMPLE_FAILED", 95, 96}},
		},
		{
			name: "a module with errors runs no example",
			src:  `(module m (capsule "1") (function f (input (x I64)) (output I64) (body (+ x true)) (example (f 1) 3)))`,
			want: []diag{{"E_TYPE_MISMATCH", 76, 80}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l load.Loader
			pkg := l.LoadSource("m.caps", []byte(tt.src))
			if got := diagnose.RunsExamples(pkg.Result); got != tt.runs {
				t.Errorf("RunsExamples = %v, want %v", got, tt.runs)
			}
			rep := diagnose.Run(pkg.Result)
			if rep.RanExamples != tt.runs || len(rep.Examples) != tt.outcomes {
				t.Errorf("ran %v with %d outcomes, want %v with %d", rep.RanExamples, len(rep.Examples), tt.runs, tt.outcomes)
			}
			if got := len(diagnose.Examples(pkg.Result)); got != tt.outcomes {
				t.Errorf("Examples gave %d outcomes, want %d", got, tt.outcomes)
			}
			var got []diag
			for _, d := range rep.Diagnostics {
				got = append(got, diag{d.Code, d.Span.Start, d.Span.End})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			// Merge without outcomes is the checker's diagnostics alone
			// (the server's first publish).
			if diff := cmp.Diff(pkg.Result.Diagnostics, diagnose.Merge(pkg.Result, nil)); diff != "" {
				t.Errorf("Merge(nil) (-checker +merged):\n%s", diff)
			}
		})
	}
}

func TestSorted(t *testing.T) {
	in := []syntax.Diagnostic{
		{Code: "C", Span: syntax.Span{Start: 5, End: 9}},
		{Code: "A", Span: syntax.Span{Start: 1, End: 8}},
		{Code: "B", Span: syntax.Span{Start: 1, End: 3}},
		{Code: "D", Span: syntax.Span{Start: 5, End: 9}},
	}
	var got []string
	for _, d := range diagnose.Sorted(in) {
		got = append(got, d.Code)
	}
	if diff := cmp.Diff([]string{"B", "A", "C", "D"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if in[0].Code != "C" {
		t.Error("Sorted changed its argument")
	}
}
