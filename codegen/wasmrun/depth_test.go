package wasmrun_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/internal/testutil"
	cwasm "github.com/capsulang/caps/codegen/wasm"
	"github.com/capsulang/caps/codegen/wasmrun"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

// depthSource exercises the depth mechanism: self tail calls (compiled as
// loops), small callees (inlined), ensures (which keep the call), and
// traps deep inside each, so that the call trace comes from trace mode;
// and divisions by constants, which are compiled without checks.
const depthSource = `(module depth.m
  (capsule "1")
  (function count
    (input (i U64) (acc U64))
    (output U64)
    (body (if (== i 0) acc (count (- i 1) (+ acc (/ 100 i))))))
  (function countdiv
    (input (i I64) (d I64))
    (output I64)
    (body (if (== i 0) (/ 1 d) (countdiv (- i 1) d))))
  (function fib
    (input (n U64))
    (output U64)
    (body (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))
  (function fibdiv
    (input (n I64) (z I64))
    (output I64)
    (body (if (< n 2) (/ n z) (+ (fibdiv (- n 1) z) (fibdiv (- n 2) z)))))
  (function pos
    (input (x I64))
    (output I64)
    (requires (> x 0))
    (body x))
  (function sumpos
    (input (n I64))
    (output I64)
    (body (if (< n 0) 0 (+ (pos n) (sumpos (- n 1))))))
  (function down
    (input (n I64))
    (output I64)
    (ensures (>= result 0))
    (body (if (== n 0) 0 (- (down (- n 1)) (if (== n 3) 5 0)))))
  (function cdiv32
    (input (a I32))
    (output I32)
    (body (+ (+ (/ a -1) (% a -1)) (+ (/ a 7) (% a -7)))))
  (function cdiv64
    (input (a I64))
    (output I64)
    (body (+ (+ (/ a -1) (% a -1)) (+ (/ a 7) (% a -7)))))
  (function cdivu
    (input (a U32) (b U64))
    (output U64)
    (body (+ (% b 1000003) (/ b 4294967295))))
  (function twice
    (input (z I64))
    (output I64)
    (body (+ (+ (pos 1) (pos 2)) (/ 1 z))))
  (function ping
    (input (n U32))
    (output U32)
    (body (if (== n 0) (pong n) (pong (- n 1)))))
  (function pong
    (input (n U32))
    (output U32)
    (body (if (== n 0) 7 (ping n)))))
`

// TestDepthMechanism compares the interpreter and wasm on calls that
// trap at every nesting, with small and default depth budgets.
func TestDepthMechanism(t *testing.T) {
	pkg := testutil.LoadSource(t, depthSource)
	cm := core.Lower(pkg.Result)
	if len(cm.Unsupported) > 0 {
		t.Fatalf("unsupported: %v", cm.Unsupported)
	}
	m, err := cwasm.Compile(cm)
	if err != nil {
		t.Fatal(err)
	}
	if validate := testutil.LookTool("WASM_VALIDATE", "wasm-validate"); validate != "" {
		wasmValidate(t, validate, m.Binary)
	}
	ctx := context.Background()
	rt := wasmrun.NewRuntime(ctx)
	defer rt.Close(ctx)
	inst, err := rt.Instantiate(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	in := interp.New(pkg.Result)
	tests := []struct {
		fn    string
		args  []string
		depth int
	}{
		{"count", []string{"5000", "1"}, 0},
		{"count", []string{"9998", "1"}, 0},
		{"count", []string{"9999", "1"}, 0},
		{"count", []string{"20000", "1"}, 0},
		{"count", []string{"3", "1"}, 4},
		{"count", []string{"4", "1"}, 4},
		{"count", []string{"0", "1"}, 1},
		{"count", []string{"1", "1"}, 1},
		{"countdiv", []string{"40", "0"}, 0},
		{"countdiv", []string{"40", "3"}, 0},
		{"countdiv", []string{"40", "0"}, 30},
		{"fib", []string{"20"}, 0},
		{"fib", []string{"20"}, 10},
		{"fib", []string{"20"}, 21},
		{"fib", []string{"20"}, 20},
		{"fibdiv", []string{"12", "0"}, 0},
		{"fibdiv", []string{"12", "1"}, 0},
		{"fibdiv", []string{"30", "0"}, 3},
		{"sumpos", []string{"30"}, 0},
		{"sumpos", []string{"30"}, 12},
		{"down", []string{"2"}, 0},
		{"down", []string{"40"}, 0},
		{"down", []string{"40"}, 39},
		{"cdiv32", []string{"-2147483648"}, 0},
		{"cdiv32", []string{"2147483647"}, 0},
		{"cdiv32", []string{"-13"}, 0},
		{"cdiv64", []string{"-9223372036854775808"}, 0},
		{"cdiv64", []string{"9223372036854775807"}, 0},
		{"cdiv64", []string{"-13"}, 0},
		{"cdivu", []string{"4294967295", "18446744073709551615"}, 0},
		{"twice", []string{"0"}, 0},
		{"twice", []string{"1"}, 0},
		{"ping", []string{"30"}, 0},
		{"ping", []string{"30"}, 17},
		{"ping", []string{"30000"}, 0},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s(%s)/depth=%d", tc.fn, strings.Join(tc.args, ","), tc.depth)
		t.Run(name, func(t *testing.T) {
			info, ok := in.Function(tc.fn)
			if !ok {
				t.Fatalf("no function %s", tc.fn)
			}
			var args []value.Value
			for i, a := range tc.args {
				v, err := value.Parse(a, info.Params[i].Type)
				if err != nil {
					t.Fatal(err)
				}
				args = append(args, v)
			}
			in.MaxDepth = tc.depth
			iv, _, ierr := in.Call(tc.fn, args)
			wv, werr := inst.Call(ctx, tc.fn, args, wasmrun.Budgets{MaxDepth: tc.depth})
			if got, want := outcome(wv, werr), outcome(iv, ierr); got != want {
				t.Errorf("\nwasm:        %s\ninterpreter: %s", got, want)
			}
		})
	}
}

// TestCallBudget checks the call budget: the call after MaxSteps calls
// traps as step-budget, at its call site, with every active call in the
// trace.
func TestCallBudget(t *testing.T) {
	pkg := testutil.LoadSource(t, depthSource)
	m, err := cwasm.Compile(core.Lower(pkg.Result))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wasmrun.NewRuntime(ctx)
	defer rt.Close(ctx)
	inst, err := rt.Instantiate(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		fn     string
		args   []value.Value
		steps  int64
		frames int  // active calls when the budget runs out, the host's included
		ok     bool // the call succeeds with a large budget
	}{
		{"count", []value.Value{value.U64(500), value.U64(1)}, 100, 101, true},
		{"count", []value.Value{value.U64(500), value.U64(1)}, 1, 2, true},
		// pos(500), sumpos(499), ..., pos(496), sumpos(495): the 11th
		// call, pos(495), is made with five sumpos calls active.
		{"sumpos", []value.Value{value.I64(500)}, 10, 6, false},
		{"fib", []value.Value{value.U64(25)}, 1000, 0, true},
		// The budget runs out at the inlined call pos(2); the division
		// by zero after it must not be reported.
		{"twice", []value.Value{value.I64(0)}, 1, 1, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d", tc.fn, tc.steps), func(t *testing.T) {
			_, err := inst.Call(ctx, tc.fn, tc.args, wasmrun.Budgets{MaxSteps: tc.steps})
			var re *interp.Error
			if !errors.As(err, &re) || re.Kind != interp.StepBudget {
				t.Fatalf("got %v, want a step-budget error", err)
			}
			if n := len(re.Stack) + re.Dropped; tc.frames > 0 && n != tc.frames {
				t.Errorf("%d frames in the trace, want %d", n, tc.frames)
			}
			if !tc.ok {
				return
			}
			// Within the budget, the same call succeeds.
			if _, err := inst.Call(ctx, tc.fn, tc.args, wasmrun.Budgets{MaxSteps: 1 << 40}); err != nil {
				t.Errorf("with a large budget: %v", err)
			}
		})
	}
}
