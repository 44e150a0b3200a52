package main

import (
	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax"
)

// newLoader returns the loader every command that checks a FILE uses. It
// reads sources through c.Load, the reader parse and fmt use, so every
// command has the CLI's file rules (BOM, size, encoding) and reads "-"
// from standard input. Imports are looked up in the importing file's
// folder (the current folder for standard input), then in the CAPS_PATH
// roots. A command checks each file once: the loader keeps no state for
// incremental rechecks (load.Loader.OneShot).
func newLoader(c *cli.Context) *load.Loader {
	return &load.Loader{ReadFile: c.LoadText, Roots: load.EnvRoots(), OneShot: true}
}

// evaluateExamples runs a checked package's function examples and returns
// their diagnostics (E_EXAMPLE_FAILED), whether or not the package has
// errors: for commands that decide that themselves. Reporting a file's
// diagnostics goes through checkedDiagnostics instead.
func evaluateExamples(pkg *load.Package) []syntax.Diagnostic {
	return examples.Diagnostics(examples.Evaluate(pkg.Result))
}

// checkedDiagnostics returns a package's diagnostics through the
// diagnostics pipeline the language server shares (analysis/diagnose):
// the checker's, plus the examples' when the checker found no errors.
func checkedDiagnostics(pkg *load.Package) []syntax.Diagnostic {
	return diagnose.Run(pkg.Result).Diagnostics
}
