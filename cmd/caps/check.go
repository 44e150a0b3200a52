package main

import (
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/syntax"
)

// newLoader returns the loader every command that checks a FILE uses. It
// reads sources through c.Load, the reader parse and fmt use, so every
// command has the CLI's file rules (BOM, size, encoding) and reads "-"
// from standard input. Imports are looked up in the importing file's
// folder (the current folder for standard input), then in the CAPS_PATH
// roots.
func newLoader(c *cli.Context) *load.Loader {
	return &load.Loader{ReadFile: c.LoadText, Roots: load.EnvRoots()}
}

// evaluateExamples runs a checked package's function examples and returns
// their diagnostics (E_EXAMPLE_FAILED, or I_EXAMPLE_NOT_EVALUATED where the
// interpreter cannot run them). The runtime's command file sets it; until
// then examples are reported as not evaluated.
var evaluateExamples = func(pkg *load.Package) []syntax.Diagnostic {
	var out []syntax.Diagnostic
	for _, ex := range pkg.Result.Examples {
		out = append(out, syntax.Diagnostic{
			Code: "I_EXAMPLE_NOT_EVALUATED", Severity: syntax.Info, Span: ex.Example.Form.Span,
			Message: "example not evaluated: this build of caps has no interpreter",
		})
	}
	return out
}

// checkedDiagnostics returns the checker's diagnostics plus the examples'
// (only when the checker found no errors: examples run on checked modules).
func checkedDiagnostics(pkg *load.Package) []syntax.Diagnostic {
	ds := append([]syntax.Diagnostic(nil), pkg.Result.Diagnostics...)
	if !pkg.Result.HasErrors() {
		ds = append(ds, evaluateExamples(pkg)...)
	}
	return ds
}
