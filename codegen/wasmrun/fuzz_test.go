package wasmrun_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/internal/gen"
	"github.com/capsulang/caps/codegen/internal/testutil"
	cwasm "github.com/capsulang/caps/codegen/wasm"
	"github.com/capsulang/caps/codegen/wasmrun"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

// outcome renders a call's result or error with everything `caps call`
// prints: the value, or the error's kind, message, place and call trace.
func outcome(v value.Value, err error) string {
	if err == nil {
		return "value " + v.String()
	}
	var re *interp.Error
	if !errors.As(err, &re) {
		return "error " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "error %s: %s at %v in %q", re.Kind, re.Message, re.Span, re.Function)
	for _, f := range re.Stack {
		fmt.Fprintf(&b, "\n  frame %s from %q at %v", f.Function, f.Caller, f.Span)
	}
	if re.Dropped > 0 {
		fmt.Fprintf(&b, "\n  dropped %d", re.Dropped)
	}
	return b.String()
}

// differential generates a module from seed and compares the interpreter
// with the compiled module on random inputs. It returns the number of
// calls compared.
func differential(t testing.TB, rt *wasmrun.Runtime, seed uint64, nfuncs, ninputs int, budgets wasmrun.Budgets) int {
	t.Helper()
	ctx := context.Background()
	gm := gen.Generate(seed, nfuncs)
	pkg := testutil.LoadSource(t, gm.Source)
	cm := core.Lower(pkg.Result)
	for _, u := range cm.Unsupported {
		if !strings.Contains(u.Feature, "the checker typed") && !strings.Contains(u.Feature, "which is not compiled") {
			t.Fatalf("seed %d: generated function outside the subset: %v\n%s", seed, u, gm.Source)
		}
	}
	if len(cm.Funcs) == 0 {
		return 0
	}
	m, err := cwasm.Compile(cm)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := rt.Instantiate(ctx, m)
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, gm.Source)
	}
	in := interp.New(pkg.Result)
	in.MaxDepth, in.MaxSteps = budgets.MaxDepth, budgets.MaxSteps
	n := 0
	for fi, f := range gm.Funcs {
		if cm.Func(f.Name) == nil {
			continue
		}
		info, _ := in.Function(f.Name)
		for _, argv := range gen.Inputs(seed+uint64(fi), f, ninputs) {
			args := make([]value.Value, len(argv))
			for i, a := range argv {
				v, err := value.Parse(a, info.Params[i].Type)
				if err != nil {
					t.Fatalf("%s: %v", a, err)
				}
				args[i] = v
			}
			iv, _, ierr := in.Call(f.Name, args)
			var re *interp.Error
			if errors.As(ierr, &re) && re.Kind == interp.StepBudget {
				continue // compiled code counts calls, not steps
			}
			wv, werr := inst.Call(ctx, f.Name, args, budgets)
			if got, want := outcome(wv, werr), outcome(iv, ierr); got != want {
				t.Fatalf("seed %d: (%s %s):\nwasm:        %s\ninterpreter: %s\n\n%s", seed, f.Name, strings.Join(argv, " "), got, want, gm.Source)
			}
			n++
			if ierr != nil {
				errorKinds[strings.SplitN(outcome(iv, ierr), ":", 2)[0]]++
			} else {
				errorKinds["value"]++
			}
		}
	}
	return n
}

// errorKinds counts the outcomes compared, by error kind.
var errorKinds = map[string]int{}

// TestDifferential compares the interpreter and wasm on random modules.
func TestDifferential(t *testing.T) {
	rt := wasmrun.NewRuntime(context.Background())
	defer rt.Close(context.Background())
	seeds := 150
	if testing.Short() {
		seeds = 30
	}
	calls := 0
	for s := 0; s < seeds; s++ {
		calls += differential(t, rt, uint64(s), 6, 12, wasmrun.Budgets{})
	}
	t.Logf("%d calls compared over %d random modules; outcomes: %v", calls, seeds, errorKinds)
}

// TestDifferentialSmallDepth exercises the depth budget and the call trace.
func TestDifferentialSmallDepth(t *testing.T) {
	rt := wasmrun.NewRuntime(context.Background())
	defer rt.Close(context.Background())
	for s := 1000; s < 1040; s++ {
		differential(t, rt, uint64(s), 6, 8, wasmrun.Budgets{MaxDepth: 5})
	}
}

// FuzzWasmVsInterp: go test -fuzz FuzzWasmVsInterp ./codegen/wasmrun
func FuzzWasmVsInterp(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1 << 40} {
		f.Add(s, uint8(5))
	}
	rt := wasmrun.NewRuntime(context.Background())
	f.Fuzz(func(t *testing.T, seed uint64, depth uint8) {
		b := wasmrun.Budgets{}
		if depth%4 == 0 {
			b.MaxDepth = int(depth%16) + 1
		}
		differential(t, rt, seed, 5, 8, b)
	})
}
