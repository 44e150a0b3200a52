// Package testrun runs the tests of Capsulang modules: every function
// example of each module that checks without errors, with the interpreter
// under per-example budgets, and the machine scenarios given, each against
// the first module that defines its machine. It decides what runs and
// tallies the results; printing them is the caller's (caps test prints
// text or JSON; the language server can run the same).
package testrun

import (
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/scenario"
)

// ErrFileHasErrors is the error of a scenario whose machine is defined by a
// module with errors: the scenario is not run and counts as failed.
const ErrFileHasErrors = "the file defining the machine has errors"

// Options are the budgets of each example (and of the scenarios' machine
// code); zero keeps the interpreter's defaults.
type Options struct {
	MaxSteps int64
	MaxDepth int
}

// Scenario is a loaded scenario file.
type Scenario struct {
	Path string
	S    *scenario.Scenario
}

// ScenarioResult is one scenario's run.
type ScenarioResult struct {
	Scenario
	// Result is the run; for a scenario not run (its module has errors,
	// or no module defines its machine) it fails with Error set and no
	// steps.
	Result *scenario.Result
	// NotRun reports that the scenario's module had errors (Result.Error
	// is ErrFileHasErrors).
	NotRun bool
}

// File is the result of testing one module.
type File struct {
	Path string
	Pkg  *load.Package
	// HasErrors reports that the module has errors or is not a module:
	// its examples were not run.
	HasErrors bool
	// Examples are the examples' outcomes, in source order.
	Examples []examples.Outcome
	// Scenarios are the scenarios whose machine this module defines (the
	// first such module takes each scenario).
	Scenarios []ScenarioResult
}

// Summary counts the tests run so far.
type Summary struct {
	// Passed and Failed count examples and scenarios.
	Passed, Failed int
	// NotRun counts the modules with errors, whose examples did not run.
	NotRun int
}

// OK reports whether every test passed and every module ran.
func (s Summary) OK() bool { return s.Failed == 0 && s.NotRun == 0 }

// Runner runs the tests of modules one at a time, handing each pending
// scenario to the first module that defines its machine.
type Runner struct {
	loader  *load.Loader
	opts    Options
	pending []*pending
	sum     Summary
}

type pending struct {
	Scenario
	done bool
}

// New returns a runner that loads modules with l and runs the given
// scenarios.
func New(l *load.Loader, opts Options, scenarios []Scenario) *Runner {
	r := &Runner{loader: l, opts: opts}
	for _, s := range scenarios {
		r.pending = append(r.pending, &pending{Scenario: s})
	}
	return r
}

// Summary returns the counts so far.
func (r *Runner) Summary() Summary { return r.sum }

func (r *Runner) count(ok bool) {
	if ok {
		r.sum.Passed++
	} else {
		r.sum.Failed++
	}
}

// File loads and tests the module at path; the error is the loader's (the
// file could not be read).
func (r *Runner) File(path string) (*File, error) {
	pkg, err := r.loader.Load(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, Pkg: pkg}
	if pkg.File.Module == nil || pkg.Result.HasErrors() {
		f.HasErrors = true
		for _, ps := range r.pending {
			if !ps.done && hasMachine(pkg, ps.S.Machine) {
				ps.done = true
				f.Scenarios = append(f.Scenarios, ScenarioResult{Scenario: ps.Scenario, NotRun: true, Result: &scenario.Result{Error: ErrFileHasErrors, Steps: []scenario.StepResult{}}})
				r.count(false)
			}
		}
		r.sum.NotRun++
		return f, nil
	}
	in := interp.New(pkg.Result)
	in.MaxSteps, in.MaxDepth = r.opts.MaxSteps, r.opts.MaxDepth
	f.Examples = examples.EvaluateWith(in, pkg.Result)
	for _, o := range f.Examples {
		r.count(o.Passed)
	}
	for _, ps := range r.pending {
		if ps.done || !hasMachine(pkg, ps.S.Machine) {
			continue
		}
		ps.done = true
		var res *scenario.Result
		m, err := machine.Compile(pkg.Result, ps.S.Machine, machine.Options{Interp: in, Hash: pkg.Hash})
		if err != nil {
			res = &scenario.Result{Error: err.Error(), Steps: []scenario.StepResult{}}
		} else {
			res = scenario.Run(m, ps.S)
		}
		f.Scenarios = append(f.Scenarios, ScenarioResult{Scenario: ps.Scenario, Result: res})
		r.count(res.Passed)
	}
	return f, nil
}

// Unmatched returns, once every module is tested, the scenarios whose
// machine no module defined, and counts each as failed.
func (r *Runner) Unmatched() []Scenario {
	var out []Scenario
	for _, ps := range r.pending {
		if !ps.done {
			ps.done = true
			out = append(out, ps.Scenario)
			r.count(false)
		}
	}
	return out
}

func hasMachine(pkg *load.Package, name string) bool {
	for _, n := range machine.Names(pkg.Result) {
		if n == name {
			return true
		}
	}
	return false
}
