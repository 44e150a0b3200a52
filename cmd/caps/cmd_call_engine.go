package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/codegen/core"
	cwasm "github.com/capsulang/caps/codegen/wasm"
	"github.com/capsulang/caps/codegen/wasmrun"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

// callEngines are the engines `caps call --engine` accepts.
var callEngines = []string{"interp", "wasm"}

// errNotCompiled reports a function the wasm engine cannot run.
type errNotCompiled struct{ msg string }

func (e *errNotCompiled) Error() string { return e.msg }

// callWasm compiles the package's pure scalar functions to WebAssembly,
// runs fn under wazero and returns its value, or the interpreter's error
// for a trap (so that call prints exactly what the interpreter prints).
// A function outside the compiled subset is an *errNotCompiled.
func callWasm(pkg *load.Package, fn string, args []value.Value, maxSteps int64, maxDepth int) (value.Value, error) {
	m := core.Lower(pkg.Result)
	if m.Func(fn) == nil {
		var why []string
		for _, u := range m.Unsupported {
			if u.Func == fn {
				why = append(why, u.Feature)
			}
		}
		msg := fmt.Sprintf("function %s is not in the wasm subset", fn)
		if len(why) > 0 {
			msg += ": unsupported " + strings.Join(why, "; ")
		}
		return value.Value{}, &errNotCompiled{msg + " (see caps compile-plan; run it with --engine interp)"}
	}
	cm, err := cwasm.Compile(m)
	if err != nil {
		return value.Value{}, &interp.Error{Kind: interp.Internal, Message: err.Error()}
	}
	ctx := context.Background()
	rt := wasmrun.NewRuntime(ctx)
	defer rt.Close(ctx)
	inst, err := rt.Instantiate(ctx, cm)
	if err != nil {
		return value.Value{}, &interp.Error{Kind: interp.Internal, Message: err.Error()}
	}
	return inst.Call(ctx, fn, args, wasmrun.Budgets{MaxDepth: maxDepth, MaxSteps: maxSteps})
}
