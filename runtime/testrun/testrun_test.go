package testrun_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/scenario"
	"github.com/capsulang/caps/runtime/testrun"
)

const happyPath = "../../examples/scenarios/change_approval_happy_path.json"

// fileSummary is what a test needs to see of a tested file.
type fileSummary struct {
	Path      string
	HasErrors bool
	Examples  []bool   // passed, in order
	Scenarios []string // machine: passed|failed|not run, error
}

func summarize(f *testrun.File) fileSummary {
	fs := fileSummary{Path: filepath.Base(f.Path), HasErrors: f.HasErrors}
	for _, o := range f.Examples {
		fs.Examples = append(fs.Examples, o.Passed)
	}
	for _, s := range f.Scenarios {
		state := "failed"
		switch {
		case s.NotRun:
			state = "not run"
		case s.Result.Passed:
			state = "passed"
		}
		fs.Scenarios = append(fs.Scenarios, s.S.Machine+": "+state+" "+s.Result.Error)
	}
	return fs
}

func TestRunner(t *testing.T) {
	// broken.caps defines the scenario's machine but has an error.
	broken := filepath.Join(t.TempDir(), "broken.caps")
	src, err := os.ReadFile("../../examples/23_change_approval_workflow.caps")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte(strings.Replace(string(src), "(capsule ", "(capsule 1 ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(happyPath)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		files     []string
		scenarios int // copies of the happy path given
		opts      testrun.Options
		want      []fileSummary
		unmatched int
		sum       testrun.Summary
	}{
		{
			name:  "examples pass",
			files: []string{"../../examples/01_abs_i64.caps"},
			want:  []fileSummary{{Path: "01_abs_i64.caps", Examples: []bool{true, true, true, true}}},
			sum:   testrun.Summary{Passed: 4},
		},
		{
			name:  "failing examples",
			files: []string{"../../testdata/pipeline/failing_examples.caps"},
			want:  []fileSummary{{Path: "failing_examples.caps", Examples: []bool{true, false, false, true, false}}},
			sum:   testrun.Summary{Passed: 2, Failed: 3},
		},
		{
			name:  "the step budget applies to each example",
			files: []string{"../../examples/01_abs_i64.caps"},
			opts:  testrun.Options{MaxSteps: 1},
			want:  []fileSummary{{Path: "01_abs_i64.caps", Examples: []bool{false, false, false, false}}},
			sum:   testrun.Summary{Failed: 4},
		},
		{
			name:      "a scenario goes to the first module that defines its machine; errors stop it",
			files:     []string{broken, "../../examples/23_change_approval_workflow.caps"},
			scenarios: 1,
			want: []fileSummary{
				{Path: "broken.caps", HasErrors: true, Scenarios: []string{s.Machine + ": not run " + testrun.ErrFileHasErrors}},
				{Path: "23_change_approval_workflow.caps", Examples: []bool{true, true, true}},
			},
			sum: testrun.Summary{Passed: 3, Failed: 1, NotRun: 1},
		},
		{
			name:      "a scenario runs once, with the first module that defines its machine",
			files:     []string{"../../examples/23_change_approval_workflow.caps", "../../examples/23_change_approval_workflow.caps"},
			scenarios: 1,
			want: []fileSummary{
				{Path: "23_change_approval_workflow.caps", Examples: []bool{true, true, true}, Scenarios: []string{s.Machine + ": passed "}},
				{Path: "23_change_approval_workflow.caps", Examples: []bool{true, true, true}},
			},
			sum: testrun.Summary{Passed: 7},
		},
		{
			name:      "no module defines the machine",
			files:     []string{"../../examples/01_abs_i64.caps"},
			scenarios: 2,
			want:      []fileSummary{{Path: "01_abs_i64.caps", Examples: []bool{true, true, true, true}}},
			unmatched: 2,
			sum:       testrun.Summary{Passed: 4, Failed: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var scens []testrun.Scenario
			for i := 0; i < tt.scenarios; i++ {
				scens = append(scens, testrun.Scenario{Path: happyPath, S: s})
			}
			r := testrun.New(&load.Loader{}, tt.opts, scens)
			var got []fileSummary
			for _, f := range tt.files {
				tf, err := r.File(f)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, summarize(tf))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if n := len(r.Unmatched()); n != tt.unmatched {
				t.Errorf("%d unmatched scenarios, want %d", n, tt.unmatched)
			}
			if diff := cmp.Diff(tt.sum, r.Summary()); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if r.Summary().OK() != (tt.sum.Failed == 0 && tt.sum.NotRun == 0) {
				t.Error("OK disagrees with the counts")
			}
		})
	}
}

func TestLoadError(t *testing.T) {
	r := testrun.New(&load.Loader{}, testrun.Options{}, nil)
	if _, err := r.File("no/such.caps"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("error %v, want no such file", err)
	}
}
