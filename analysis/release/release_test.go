package release_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/release"
	"github.com/capsulang/caps/analysis/verify"
)

func TestOf(t *testing.T) {
	// V3 puts the obligations to Z3: without it the rung is not run.
	if _, err := verify.FindSolver(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("z3 is needed under CI (apt install z3): %v", err)
		}
		t.Skipf("z3 not installed (apt install z3): %v", err)
	}
	tests := []struct {
		file     string
		level    string
		ladder   []string // V0..V5 statuses
		examples map[string]int
		failed   bool
		ready    bool // some target ready
		wasm     string
		codes    []string
	}{
		{
			file: "../../examples/01_abs_i64.caps", level: "V3",
			ladder:   []string{"passed", "passed", "passed", "passed", "open", "not-implemented"},
			examples: map[string]int{"total": 4, "passed": 4, "failed": 0, "not_evaluated": 0},
			ready:    true, wasm: "passed",
		},
		{
			file: "../../examples/04_bad_missing_effect.caps", level: "V0",
			ladder:   []string{"passed", "failed", "not-run", "not-run", "not-run", "not-implemented"},
			examples: map[string]int{"total": 0, "passed": 0, "failed": 0, "not_evaluated": 0},
			codes:    []string{"E_EFFECT_NOT_DECLARED"},
		},
		{
			file: "../../testdata/pipeline/failing_examples.caps", level: "V1",
			ladder:   []string{"passed", "passed", "failed", "failed", "open", "not-implemented"},
			examples: map[string]int{"total": 5, "passed": 2, "failed": 3, "not_evaluated": 0},
			failed:   true, ready: false, wasm: "failed",
			codes: []string{"E_EXAMPLE_FAILED", "E_EXAMPLE_FAILED", "E_EXAMPLE_FAILED"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var l load.Loader
			pkg, err := l.Load(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			res := release.Of(pkg, tt.file)
			pv := res.Preview
			if pv.Verification.Level != tt.level {
				t.Errorf("level %s, want %s", pv.Verification.Level, tt.level)
			}
			var ladder []string
			for _, r := range pv.Verification.Ladder {
				ladder = append(ladder, r.Status)
			}
			if diff := cmp.Diff(tt.ladder, ladder); diff != "" {
				t.Errorf("ladder (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.examples, pv.Examples); diff != "" {
				t.Errorf("examples (-want +got):\n%s", diff)
			}
			if res.ExamplesFailed != tt.failed {
				t.Errorf("ExamplesFailed %v, want %v", res.ExamplesFailed, tt.failed)
			}
			if got := len(pv.TargetsReady) > 0; got != tt.ready {
				t.Errorf("targets ready %v, want some: %v", pv.TargetsReady, tt.ready)
			}
			wasm := ""
			if pv.Verification.CompiledExamples != nil {
				wasm = pv.Verification.CompiledExamples.Status
			}
			if wasm != tt.wasm {
				t.Errorf("wasm examples %q, want %q", wasm, tt.wasm)
			}
			var codes []string
			for _, d := range res.Diagnostics {
				codes = append(codes, d.Code)
			}
			if diff := cmp.Diff(tt.codes, codes); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}
