package main

import (
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/codegen/wasmrun"
	"github.com/capsulang/caps/runtime/value"
)

// callEngines are the engines `caps call --engine` accepts.
var callEngines = []string{"interp", "wasm"}

// callWasm runs fn of a checked package compiled to wasm with the command
// line's budgets (codegen/wasmrun.CallChecked): a function outside the
// compiled subset is a *wasmrun.NotCompiledError.
func callWasm(pkg *load.Package, fn string, args []value.Value, maxSteps int64, maxDepth int) (value.Value, error) {
	return wasmrun.CallChecked(pkg.Result, fn, args, wasmrun.Budgets{MaxDepth: maxDepth, MaxSteps: maxSteps})
}
