package propose

import (
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax"
)

// testHooks evaluate examples with the interpreter, as the CLI does.
var testHooks = Hooks{
	Examples: func(pkg *load.Package) []syntax.Diagnostic {
		return examples.Diagnostics(examples.Evaluate(pkg.Result))
	},
}
