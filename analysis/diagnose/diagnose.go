// Package diagnose is the one diagnostics pipeline of the toolchain: it
// decides, for a checked module, which diagnostics are reported and when
// the module's function examples run. `caps check` (and every command that
// reports a file's diagnostics the way check does), `caps release-preview`
// and the language server all call it, so that the CLI and the editor
// cannot disagree about a file.
//
// The rules:
//
//   - the checker's diagnostics (parse, type, effect, reference, profile,
//     import) are always reported;
//   - the function examples run, with a fresh interpreter, only when the
//     module checks without errors and has examples: a module with errors
//     has no well-typed program to run;
//   - a failing example is an E_EXAMPLE_FAILED error on its expected value
//     (runtime/examples);
//   - both the CLI and the server report the result in source order (see
//     Sorted: start offset, then end offset).
//
// Import roots (CAPS_PATH) are read in one place, load.EnvRoots; the
// callers build their loaders with it.
package diagnose

import (
	"sort"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax"
)

// RunsExamples reports whether the pipeline evaluates the examples of a
// checked module: it checks without errors and has examples.
func RunsExamples(res *check.Result) bool {
	return res != nil && !res.HasErrors() && len(res.Examples) > 0
}

// Examples evaluates the module's examples when RunsExamples says so, and
// returns nil otherwise (a module without errors or examples has no
// outcomes to report).
func Examples(res *check.Result) []examples.Outcome {
	if !RunsExamples(res) {
		return nil
	}
	return examples.Evaluate(res)
}

// Merge returns the checker's diagnostics of res followed by those of the
// example outcomes (see Examples), in that order (reporters sort them with
// Sorted). A caller that has not
// evaluated the examples yet (the language server's first, fast publish)
// passes nil outcomes.
func Merge(res *check.Result, outcomes []examples.Outcome) []syntax.Diagnostic {
	ds := append([]syntax.Diagnostic(nil), res.Diagnostics...)
	return append(ds, examples.Diagnostics(outcomes)...)
}

// Report is a module's diagnostics through the whole pipeline.
type Report struct {
	// Diagnostics are the checker's, then the examples' (see Merge).
	Diagnostics []syntax.Diagnostic
	// Examples are the examples' outcomes; nil when they did not run.
	Examples []examples.Outcome
	// RanExamples reports whether the examples were evaluated.
	RanExamples bool
}

// Run takes a checked module through the pipeline: the examples run when
// RunsExamples allows, and their failures join the checker's diagnostics.
func Run(res *check.Result) *Report {
	r := &Report{RanExamples: RunsExamples(res)}
	if r.RanExamples {
		r.Examples = examples.Evaluate(res)
	}
	r.Diagnostics = Merge(res, r.Examples)
	return r
}

// Sorted returns a copy of ds in source order: by start offset, then end
// offset, keeping the order of diagnostics on the same span.
func Sorted(ds []syntax.Diagnostic) []syntax.Diagnostic {
	out := append([]syntax.Diagnostic(nil), ds...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Span.Start != out[j].Span.Start {
			return out[i].Span.Start < out[j].Span.Start
		}
		return out[i].Span.End < out[j].Span.End
	})
	return out
}
