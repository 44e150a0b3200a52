// Package release previews a module's release readiness: its semantic
// hash, the check, the function examples, the readiness of every
// compilation target and the verification ladder it reaches (V0 parsed,
// V1 checked, V2 examples pass, V3 proof obligations discharged by Z3, V4
// the obligations stated in Lean and checked by it, V5 backend refinement,
// not implemented). The diagnostics come from the one diagnostics pipeline
// (analysis/diagnose), so a preview reports exactly what caps check and
// the language server report. caps release-preview prints it; any other
// client (the language server) can compute the same.
package release

import (
	"context"
	"fmt"

	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/verify"
	"github.com/capsulang/caps/codegen"
	"github.com/capsulang/caps/codegen/wasmrun"
	"github.com/capsulang/caps/internal/toolpath"
	"github.com/capsulang/caps/syntax"
)

// Preview is a module's release readiness, as caps release-preview prints
// it under "preview".
type Preview struct {
	Module  string `json:"module"`
	Capsule string `json:"capsule"`
	Hash    string `json:"semantic_hash"`
	// Check is {"ok", "errors", "warnings"} of the checker's diagnostics.
	Check map[string]any `json:"check"`
	// Examples counts the function examples: total, passed, failed,
	// not_evaluated.
	Examples     map[string]int `json:"examples"`
	Targets      []Target       `json:"targets"`
	TargetsReady []string       `json:"targets_ready"`
	Verification Verification   `json:"verification"`
}

// Target is the readiness of one compilation target.
type Target struct {
	Target      string   `json:"target"`
	Status      string   `json:"status"`
	Ready       bool     `json:"ready"`
	Compiled    []string `json:"compiled"`
	Skipped     []string `json:"skipped"`
	Unsupported int      `json:"unsupported"`
}

// Verification is the level a module reaches on the ladder, each rung's
// status, and the comparison of the compiled functions' examples under
// wasm with the interpreter's values.
type Verification struct {
	Level  string `json:"level"`
	Ladder []Rung `json:"ladder"`
	// CompiledExamples compares the compiled functions' examples under
	// wasm with their expected values.
	CompiledExamples *wasmrun.Comparison `json:"wasm_examples"`
}

// Rung is one level of the ladder.
type Rung struct {
	Level  string `json:"level"`
	Name   string `json:"name"`
	Status string `json:"status"` // passed, failed, open, not-run, not-implemented
	// Detail says what the status rests on, or why a level was not run.
	Detail string `json:"detail,omitempty"`
}

// Result is a preview with the diagnostics it was computed from.
type Result struct {
	Preview Preview
	// Diagnostics are the pipeline's: the checker's, and the examples'
	// when they ran.
	Diagnostics []syntax.Diagnostic
	// ExamplesFailed reports whether an example failed, which fails the
	// release (its E_EXAMPLE_FAILED error is among Diagnostics).
	ExamplesFailed bool
}

// Ladder returns the ladder's rungs, all at their initial status: V0 and
// V1 passed, V2 to V4 not run, V5 not implemented.
func Ladder() []Rung {
	return []Rung{
		{"V0", "parsed canonical IR", "passed", ""},
		{"V1", "type/effect checked", "passed", ""},
		{"V2", "examples pass", "not-run", ""},
		{"V3", "proof obligations", "not-run", ""},
		{"V4", "kernel-checked proof", "not-run", ""},
		{"V5", "backend refinement", "not-implemented", "caps refinement-report covers V0 to V3; backend artifacts (Wasm, RISC-V) are not related to the source by proof yet"},
	}
}

// Of previews a loaded package. A file without a module reaches no level;
// one with errors reaches V0 and is not run further; otherwise its
// examples run (V2 when they all pass), every target is planned, and the
// compiled functions' examples are compared under wasm, and its proof
// obligations are put to Z3 (V3) and stated in Lean (V4). path is the
// file's name as the Lean statements cite it.
func Of(pkg *load.Package, path string) *Result {
	rep := diagnose.Run(pkg.Result)
	out := &Result{Diagnostics: rep.Diagnostics}
	pv := &out.Preview
	*pv = Preview{Hash: pkg.Hash, Targets: []Target{}, TargetsReady: []string{}, Examples: map[string]int{"total": 0, "passed": 0, "failed": 0, "not_evaluated": 0}}
	errs, warns := 0, 0
	for _, d := range pkg.Result.Diagnostics {
		switch d.Severity {
		case syntax.Error:
			errs++
		case syntax.Warning:
			warns++
		}
	}
	pv.Check = map[string]any{"ok": errs == 0, "errors": errs, "warnings": warns}
	ladder := Ladder()
	level := "V1"
	if m := pkg.File.Module; m != nil {
		pv.Module = m.Name.Name
		if m.Capsule != nil {
			pv.Capsule = m.Capsule.Value
		}
	} else {
		ladder[0].Status, ladder[1].Status = "failed", "failed"
		level = "none"
	}
	if errs > 0 {
		ladder[1].Status = "failed"
		level = "V0"
		if pkg.File.Module == nil {
			level = "none"
		}
	} else if pkg.File.Module != nil {
		pv.Examples["total"] = len(rep.Examples)
		for _, o := range rep.Examples {
			if o.Passed {
				pv.Examples["passed"]++
			} else {
				pv.Examples["failed"]++
			}
		}
		if pv.Examples["failed"] == 0 {
			ladder[2].Status = "passed"
			level = "V2"
		} else {
			ladder[2].Status = "failed"
			out.ExamplesFailed = true
		}
		for _, name := range codegen.Names() {
			pl, _ := codegen.PlanFor(pkg.Result, name)
			pv.Targets = append(pv.Targets, Target{Target: name, Status: pl.Status, Ready: pl.Ready, Compiled: pl.Compiled, Skipped: pl.Skipped, Unsupported: len(pl.Unsupported)})
			if pl.Ready {
				pv.TargetsReady = append(pv.TargetsReady, name)
			}
		}
		pv.Verification.CompiledExamples = wasmrun.CompareExamples(pkg.Result)
		ladder[3], ladder[4] = proofLevels(pkg, path)
		if level == "V2" && ladder[3].Status == "passed" {
			level = "V3"
		}
	}
	pv.Verification.Level, pv.Verification.Ladder = level, ladder
	return out
}

// proofLevels reports V3 (the module's obligations put to Z3, as caps
// verify-report does) and V4 (the obligations stated in Lean, as caps
// emit-lean-obligations writes them, checked by caps verify-lean).
func proofLevels(pkg *load.Package, path string) (v3, v4 Rung) {
	v3 = Rung{Level: "V3", Name: "proof obligations", Status: "not-run"}
	v4 = Rung{Level: "V4", Name: "kernel-checked proof", Status: "not-run"}
	solver, err := verify.FindSolver()
	if err != nil {
		v3.Detail = err.Error()
	} else if r, err := verify.Verify(context.Background(), pkg.Result, verify.Options{Solver: solver}); err != nil {
		v3.Detail = err.Error()
	} else {
		d, o, f := r.Counts()
		v3.Detail = fmt.Sprintf("caps verify-report: %d obligations: %d discharged, %d open, %d failed (%s)", len(r.Obligations), d, o, f, r.Solver)
		switch {
		case f > 0:
			v3.Status = "failed"
		case o > 0:
			v3.Status = "open"
		default:
			v3.Status = "passed"
		}
	}
	lf, err := verify.EmitLean(pkg.Result, path)
	if err != nil {
		v4.Detail = err.Error()
		return v3, v4
	}
	stated := 0
	for _, e := range lf.Entries {
		if e.Theorem != "" {
			stated++
		}
	}
	leanNote := "no Lean toolchain was found"
	if t := toolpath.Look("LEAN", "lean"); t != "" {
		leanNote = "Lean toolchain: " + t
	}
	if stated == 0 {
		v4.Detail = fmt.Sprintf("none of the %d obligations is stated in Lean (caps emit-lean-obligations lists why); %s", len(lf.Entries), leanNote)
		return v3, v4
	}
	// The generated theorems end in sorry: open until someone proves them
	// and caps verify-lean accepts the completed file.
	v4.Status = "open"
	v4.Detail = fmt.Sprintf("caps emit-lean-obligations states %d of %d obligations as Lean theorems, each ending in sorry until proved; caps verify-lean checks completed proofs; %s", stated, len(lf.Entries), leanNote)
	return v3, v4
}
