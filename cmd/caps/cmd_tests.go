package main

// The `caps test` command (the file cannot be called cmd_test.go, which
// Go would take for a test file).

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/scenario"
	"github.com/capsulang/caps/runtime/testrun"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
)

// stringsFlag is a repeatable string flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

func init() {
	cli.Register(&cli.Command{
		Name:     "test",
		Output:   func() cli.Schema { return report.ResultSchema(fileTestsJSON{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports", "--scenario FILE"}, Writes: nil},
		Example:  cli.Example{Line: "caps test --json examples/03_claim_review_machine.caps"},
		Negative: cli.Example{Line: "caps test --json examples/04_bad_missing_effect.caps", Exit: 1},
		Also:     []cli.Example{{Line: "caps test --json --scenario examples/scenarios/change_approval_happy_path.json examples/23_change_approval_workflow.caps"}, {Line: "caps test --json examples", Exit: 1, Note: "a folder: the negative examples fail"}},
		Args:     "[--json] [--max-steps N] [--max-depth N] [--scenario S.json]... FILE|DIR...",
		Short:    "run the function examples and machine scenarios of modules",
		Long: `Test checks each FILE (a DIR means every .caps file under it) and runs every
(example (f arg...) EXPECTED) of its functions with the interpreter. For
each example it prints PASS or FAIL with the example's place and call; a
failure shows the expected value, the value the call returned (or the
runtime error that stopped it) and, for structured values, where they
differ:

    FAIL examples/a.caps:20:5: (upgrade p)
        expected: (record Parcel (id 1) (level Level.express))
        got:      (record Parcel (id 1) (level Level.economy))
        differs:  level: expected Level.express, got Level.economy

A summary line "N passed, M failed" ends the output. Test exits with 1 if
any example fails or any file has errors (its diagnostics are printed and
its examples are not run).

Each example runs with its own step and depth budgets (--max-steps,
--max-depth).

--scenario S.json (repeatable) also runs a machine scenario: a JSON file
naming a machine of one of the FILEs and listing inputs (events with
payloads, "advance" of the logical clock, "cancel") with what to expect
after each: the state, context values, the effect intents, "ok": false
for a step meant to fail (docs/cli.md has the format). The machine runs
in dry-run mode, or in mock mode with the scenario's mocks. A scenario
passes when every expectation holds; a failure prints the step and, one
line each, what was expected and what happened:

    FAIL s.json: SchemaMigration
        step 5 (Apply):
            state: expected applying, got awaiting_signoff (R_GUARD_FALSE: ...)
            context.approvals: expected 2, got 1

With --json it prints {"ok", "files": [{"path", "diagnostics", "examples":
[{"function", "args", "expected", "got", "passed", "error", "range"}],
"scenarios": [{"path", "machine", "passed", "error", "steps": [{"index",
"input", "passed", "state", "ok", "error", "context", "effects",
"diffs"}]}]}]} where args, expected and got are values printed in
Capsulang syntax (got is null when the example stopped with an error),
error is the runtime error's message or null, and range is the LSP range
of the example clause. A scenario is listed under the file that defines
its machine.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			maxSteps := fs.Int64("max-steps", interp.DefaultMaxSteps, "the step budget of each example")
			maxDepth := fs.Int("max-depth", interp.DefaultMaxDepth, "the depth budget of each example")
			var scenarios stringsFlag
			fs.Var(&scenarios, "scenario", "a machine scenario `file` to run (repeatable)")
			return func(c *cli.Context, args []string) int {
				if len(args) == 0 {
					return c.UsageErrorf("expected at least one FILE or DIR")
				}
				if *maxSteps <= 0 || *maxDepth <= 0 {
					return c.UsageErrorf("--max-steps and --max-depth must be positive")
				}
				return runTest(c, args, scenarios, *jsonOut, *maxSteps, *maxDepth)
			}
		},
	})
}

type exampleJSON struct {
	Function string        `json:"function"`
	Args     []string      `json:"args"`
	Expected *string       `json:"expected"`
	Got      *string       `json:"got"`
	Passed   bool          `json:"passed"`
	Error    *string       `json:"error"`
	Range    *syntax.Range `json:"range"`
}

func printed(v value.Value) *string {
	if !v.IsValid() {
		return nil
	}
	s := v.String()
	return &s
}

func runTest(c *cli.Context, args, scenarioPaths []string, jsonOut bool, maxSteps int64, maxDepth int) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	var scens []testrun.Scenario
	for _, sp := range scenarioPaths {
		s, err := scenario.Load(sp)
		if err != nil {
			p.Fail(sp, err)
			continue
		}
		scens = append(scens, testrun.Scenario{Path: sp, S: s})
	}
	paths, errs := cli.ExpandPaths(args)
	for _, e := range errs {
		p.Fail(e.Path, e)
	}
	r := testrun.New(newLoader(c), testrun.Options{MaxSteps: maxSteps, MaxDepth: maxDepth}, scens)
	var out strings.Builder
	for _, path := range paths {
		tf, err := r.File(path)
		if err != nil {
			p.Fail(path, err)
			continue
		}
		src := packageSource(path, tf.Pkg)
		if tf.HasErrors {
			f := p.Add(src, tf.Pkg.Result.Diagnostics)
			var sj []scenarioJSON
			for _, sr := range tf.Scenarios {
				sj = append(sj, scenarioOut(sr))
				fmt.Fprintf(&out, "FAIL %s: %s: %s has errors; the scenario was not run\n", cli.DisplayPath(sr.Path), sr.S.Machine, cli.DisplayPath(path))
			}
			f.Extra = fileTestsJSON{Examples: []exampleJSON{}, Scenarios: sj}
			fmt.Fprintf(&out, "FAIL %s: the file has errors; its examples were not run\n", cli.DisplayPath(path))
			continue
		}
		exs := []exampleJSON{}
		for _, o := range tf.Examples {
			ej := exampleJSON{
				Function: o.Example.Function.Name.Name,
				Args:     []string{},
				Expected: printed(o.Want),
				Got:      printed(o.Got),
				Passed:   o.Passed,
				Range:    lspRange(src, o.Example.Example.Form.Span()),
			}
			for _, a := range o.Args {
				ej.Args = append(ej.Args, a.String())
			}
			if o.Err != nil {
				msg := o.Err.Error()
				ej.Error = &msg
				ej.Got = nil
			}
			exs = append(exs, ej)
			if !jsonOut {
				writeOutcome(&out, src, &o)
			}
		}
		var sj []scenarioJSON
		for _, sr := range tf.Scenarios {
			sj = append(sj, scenarioOut(sr))
			if !jsonOut {
				out.WriteString(sr.Result.Text(cli.DisplayPath(sr.Path) + ": " + sr.S.Machine))
			}
		}
		p.Add(src, nil).Extra = fileTestsJSON{Examples: exs, Scenarios: sj}
	}
	for _, s := range r.Unmatched() {
		msg := fmt.Sprintf("no FILE given defines machine %s", s.S.Machine)
		p.Add(&report.Source{Path: s.Path}, nil).Extra = fileTestsJSON{Examples: []exampleJSON{}, Scenarios: []scenarioJSON{{Path: s.Path, Machine: s.S.Machine, Error: msg, Steps: []scenario.StepResult{}}}}
		fmt.Fprintf(&out, "FAIL %s: %s\n", cli.DisplayPath(s.Path), msg)
	}
	sum := r.Summary()
	if !sum.OK() {
		p.SetFailed()
	}
	if !jsonOut {
		summary := fmt.Sprintf("%d passed, %d failed", sum.Passed, sum.Failed)
		if sum.NotRun > 0 {
			summary += fmt.Sprintf("; %d %s with errors not run", sum.NotRun, pluralWord(sum.NotRun, "file", "files"))
		}
		out.WriteString(summary + "\n")
		c.Stdout.Write([]byte(out.String()))
	}
	return p.Finish()
}

// scenarioOut is the JSON of a scenario's run.
func scenarioOut(sr testrun.ScenarioResult) scenarioJSON {
	return scenarioJSON{Path: sr.Path, Machine: sr.S.Machine, Passed: sr.Result.Passed, Error: sr.Result.Error, Steps: sr.Result.Steps}
}

// fileTestsJSON is the extra JSON of a tested file.
type fileTestsJSON struct {
	Examples  []exampleJSON  `json:"examples"`
	Scenarios []scenarioJSON `json:"scenarios,omitempty"`
}

type scenarioJSON struct {
	Path    string                `json:"path"`
	Machine string                `json:"machine"`
	Passed  bool                  `json:"passed"`
	Error   string                `json:"error,omitempty"`
	Steps   []scenario.StepResult `json:"steps"`
}

// writeOutcome prints one example's result for people.
func writeOutcome(b *strings.Builder, src *report.Source, o *examples.Outcome) {
	where := position(src, o.Example.Example.Form.Span())
	if o.Passed {
		fmt.Fprintf(b, "PASS %s: %s\n", where, o.Call)
		return
	}
	fmt.Fprintf(b, "FAIL %s: %s\n", where, o.Call)
	if o.Want.IsValid() {
		fmt.Fprintf(b, "    expected: %s\n", o.Want)
	}
	if o.Err != nil {
		fmt.Fprintf(b, "    error:    %s\n", strings.TrimSuffix(errorPlace(src, o.Err), "\n"))
		return
	}
	fmt.Fprintf(b, "    got:      %s\n", o.Got)
	diffs := value.Diff(o.Want, o.Got, 5)
	if len(diffs) == 1 && strings.HasPrefix(diffs[0], "expected ") {
		return // a scalar: expected/got already say it all
	}
	for i, d := range diffs {
		label := "differs:  "
		if i > 0 {
			label = "          "
		}
		fmt.Fprintf(b, "    %s%s\n", label, d)
	}
}

// errorPlace is a runtime error's message with its place in the file,
// when it is in the file being tested.
func errorPlace(src *report.Source, err error) string {
	var re *interp.Error
	if !errors.As(err, &re) || re.File != "" || re.Span == (syntax.Span{}) {
		return err.Error()
	}
	return fmt.Sprintf("%s (%s, at %s)", re.Message, re.Kind, position(src, re.Span))
}
