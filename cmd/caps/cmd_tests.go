package main

// The `caps test` command (the file cannot be called cmd_test.go, which
// Go would take for a test file).

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/scenario"
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
	var scens []*pendingScenario
	for _, sp := range scenarioPaths {
		s, err := scenario.Load(sp)
		if err != nil {
			p.Fail(sp, err)
			continue
		}
		scens = append(scens, &pendingScenario{path: sp, s: s})
	}
	paths, errs := cli.ExpandPaths(args)
	for _, e := range errs {
		p.Fail(e.Path, e)
	}
	l := newLoader(c)
	var out strings.Builder
	passed, failed, notRun := 0, 0, 0
	count := func(ok bool) {
		if ok {
			passed++
		} else {
			failed++
			p.SetFailed()
		}
	}
	for _, path := range paths {
		pkg, err := l.Load(path)
		if err != nil {
			p.Fail(path, err)
			continue
		}
		src := packageSource(path, pkg)
		if pkg.File.Module == nil || pkg.Result.HasErrors() {
			f := p.Add(src, pkg.Result.Diagnostics)
			var sj []scenarioJSON
			for _, ps := range scens {
				if !ps.done && hasMachine(pkg, ps.s.Machine) {
					ps.done = true
					sj = append(sj, scenarioJSON{Path: ps.path, Machine: ps.s.Machine, Error: "the file defining the machine has errors", Steps: []scenario.StepResult{}})
					count(false)
					fmt.Fprintf(&out, "FAIL %s: %s: %s has errors; the scenario was not run\n", cli.DisplayPath(ps.path), ps.s.Machine, cli.DisplayPath(path))
				}
			}
			f.Extra = fileTestsJSON{Examples: []exampleJSON{}, Scenarios: sj}
			p.SetFailed()
			notRun++
			fmt.Fprintf(&out, "FAIL %s: the file has errors; its examples were not run\n", cli.DisplayPath(path))
			continue
		}
		in := newInterp(pkg, maxSteps, maxDepth)
		var exs []exampleJSON
		for _, o := range examples.EvaluateWith(in, pkg.Result) {
			ej := exampleJSON{
				Function: o.Example.Function.Name.Name,
				Args:     []string{},
				Expected: printed(o.Want),
				Got:      printed(o.Got),
				Passed:   o.Passed,
				Range:    lspRange(src, o.Example.Example.Form.Span),
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
			count(o.Passed)
			if !jsonOut {
				writeOutcome(&out, src, &o)
			}
		}
		if exs == nil {
			exs = []exampleJSON{}
		}
		var sj []scenarioJSON
		for _, ps := range scens {
			if ps.done || !hasMachine(pkg, ps.s.Machine) {
				continue
			}
			ps.done = true
			j := scenarioJSON{Path: ps.path, Machine: ps.s.Machine, Steps: []scenario.StepResult{}}
			m, err := machine.Compile(pkg.Result, ps.s.Machine, machine.Options{Interp: in, Hash: pkg.Hash})
			var res *scenario.Result
			if err != nil {
				res = &scenario.Result{Error: err.Error(), Steps: []scenario.StepResult{}}
			} else {
				res = scenario.Run(m, ps.s)
			}
			j.Passed, j.Error, j.Steps = res.Passed, res.Error, res.Steps
			sj = append(sj, j)
			count(res.Passed)
			if !jsonOut {
				out.WriteString(res.Text(cli.DisplayPath(ps.path) + ": " + ps.s.Machine))
			}
		}
		p.Add(src, nil).Extra = fileTestsJSON{Examples: exs, Scenarios: sj}
	}
	for _, ps := range scens {
		if ps.done {
			continue
		}
		msg := fmt.Sprintf("no FILE given defines machine %s", ps.s.Machine)
		count(false)
		p.Add(&report.Source{Path: ps.path}, nil).Extra = fileTestsJSON{Examples: []exampleJSON{}, Scenarios: []scenarioJSON{{Path: ps.path, Machine: ps.s.Machine, Error: msg, Steps: []scenario.StepResult{}}}}
		fmt.Fprintf(&out, "FAIL %s: %s\n", cli.DisplayPath(ps.path), msg)
	}
	if !jsonOut {
		summary := fmt.Sprintf("%d passed, %d failed", passed, failed)
		if notRun > 0 {
			summary += fmt.Sprintf("; %d %s with errors not run", notRun, pluralWord(notRun, "file", "files"))
		}
		out.WriteString(summary + "\n")
		c.Stdout.Write([]byte(out.String()))
	}
	return p.Finish()
}

// pendingScenario is a scenario waiting for the file that defines its
// machine.
type pendingScenario struct {
	path string
	s    *scenario.Scenario
	done bool
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

func hasMachine(pkg *load.Package, name string) bool {
	for _, n := range machine.Names(pkg.Result) {
		if n == name {
			return true
		}
	}
	return false
}

// writeOutcome prints one example's result for people.
func writeOutcome(b *strings.Builder, src *report.Source, o *examples.Outcome) {
	where := position(src, o.Example.Example.Form.Span)
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
