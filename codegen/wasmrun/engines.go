package wasmrun

// This file runs a checked module's functions compiled to wasm next to the
// interpreter: one call (caps call --engine wasm) and the comparison of
// the two engines on the module's examples (caps release-preview, and any
// client such as the language server).

import (
	"context"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/codegen/core"
	cwasm "github.com/capsulang/caps/codegen/wasm"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

// NotCompiledError reports a function outside the wasm subset: the wasm
// engine cannot run it. Its message says what is unsupported and what to
// do instead.
type NotCompiledError struct{ Msg string }

func (e *NotCompiledError) Error() string { return e.Msg }

// CallChecked compiles the pure scalar functions of a checked module to
// WebAssembly, runs fn under wazero with budgets b and returns its value,
// or the interpreter's error for a trap (so that a caller prints exactly
// what the interpreter would). A function outside the compiled subset is
// a *NotCompiledError; a failure to compile or instantiate is an
// *interp.Error of kind internal.
func CallChecked(res *check.Result, fn string, args []value.Value, b Budgets) (value.Value, error) {
	m := core.Lower(res)
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
		return value.Value{}, &NotCompiledError{msg + " (see caps compile-plan; run it with --engine interp)"}
	}
	cm, err := cwasm.Compile(m)
	if err != nil {
		return value.Value{}, &interp.Error{Kind: interp.Internal, Message: err.Error()}
	}
	ctx := context.Background()
	rt := NewRuntime(ctx)
	defer rt.Close(ctx)
	inst, err := rt.Instantiate(ctx, cm)
	if err != nil {
		return value.Value{}, &interp.Error{Kind: interp.Internal, Message: err.Error()}
	}
	return inst.Call(ctx, fn, args, b)
}

// Comparison is how the compiled functions' examples fare under wasm
// against the values the interpreter computes for them.
type Comparison struct {
	// Total counts the examples of compiled functions, Agreed those whose
	// wasm result equals the interpreter's expected value.
	Total  int `json:"total"`
	Agreed int `json:"agreed"`
	// Status is passed (every example agreed), failed, or not-applicable
	// (no function is in the compiled subset).
	Status string `json:"status"`
	// Detail explains the status: the first disagreement, the compile
	// error, or why nothing was compared.
	Detail string `json:"detail,omitempty"`
}

// CompareExamples runs the examples of a checked module's compiled
// functions under wasm and compares each result with the expected value
// the interpreter evaluates. An example whose arguments or expected value
// the interpreter cannot evaluate is counted but cannot agree.
func CompareExamples(res *check.Result) *Comparison {
	m := core.Lower(res)
	if len(m.Funcs) == 0 {
		return &Comparison{Status: "not-applicable", Detail: "no function is in the compiled subset"}
	}
	cm, err := cwasm.Compile(m)
	if err != nil {
		return &Comparison{Status: "failed", Detail: err.Error()}
	}
	ctx := context.Background()
	rt := NewRuntime(ctx)
	defer rt.Close(ctx)
	inst, err := rt.Instantiate(ctx, cm)
	if err != nil {
		return &Comparison{Status: "failed", Detail: err.Error()}
	}
	in := interp.New(res)
	out := &Comparison{}
	for _, f := range m.Funcs {
		for _, ex := range f.Decl.Examples {
			out.Total++
			var args []value.Value
			ok := true
			for _, a := range ex.Args {
				v, err := in.EvalExpr(a, interp.Env{})
				if err != nil {
					ok = false
					break
				}
				args = append(args, v)
			}
			want, err := in.EvalExpr(ex.Expected, interp.Env{})
			if !ok || err != nil {
				continue
			}
			got, err := inst.Call(ctx, f.Name, args, Budgets{})
			if err == nil && got.String() == want.String() {
				out.Agreed++
			} else if out.Detail == "" {
				out.Detail = fmt.Sprintf("%s: wasm gave %v, expected %s", f.Name, got, want)
			}
		}
	}
	out.Status = "passed"
	if out.Agreed != out.Total {
		out.Status = "failed"
	}
	return out
}
