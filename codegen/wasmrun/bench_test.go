package wasmrun_test

import (
	"context"
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

// benchSource holds the benchmark functions: recursive fib, and two
// loop-heavy functions (counted loops written as tail recursion): loop
// divides twice in each iteration, which bounds compiled code by the
// latency of 64-bit division; mix does the same without dividing.
const benchSource = `(module bench.m
  (capsule "1")
  (function fib
    (input (n U64))
    (output U64)
    (body (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))
  (function loop
    (input (i U64) (acc U64))
    (output U64)
    (body (if (== i 0) acc
            (loop (- i 1) (+ (* acc 31) (% (+ i (/ acc 7)) 1000003))))))
  (function mix
    (input (i U64) (acc U64))
    (output U64)
    (body (if (== i 0) acc
            (mix (- i 1) (+ (* acc 31) (- (+ i 17) (* i i)))))))
  (function ident
    (input (x I64))
    (output I64)
    (body x)))
`

type benchEnv struct {
	in   *interp.Interp
	inst *wasmrun.Instance
	m    *core.Module
}

func setup(b *testing.B) *benchEnv {
	pkg := testutil.LoadSource(b, benchSource)
	m := core.Lower(pkg.Result)
	cm, err := cwasm.Compile(m)
	if err != nil {
		b.Fatal(err)
	}
	rt := wasmrun.NewRuntime(context.Background())
	b.Cleanup(func() { rt.Close(context.Background()) })
	inst, err := rt.Instantiate(context.Background(), cm)
	if err != nil {
		b.Fatal(err)
	}
	in := interp.New(pkg.Result)
	in.MaxSteps = 1 << 40
	return &benchEnv{in: in, inst: inst, m: m}
}

const fibN = 25

func BenchmarkFibInterp(b *testing.B) {
	e := setup(b)
	args := []value.Value{value.U64(fibN)}
	for b.Loop() {
		if _, _, err := e.in.Call("fib", args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFibWasm(b *testing.B) {
	e := setup(b)
	fi := e.m.FuncIndex("fib")
	budgets := wasmrun.Budgets{MaxSteps: 1 << 40}
	for b.Loop() {
		if _, err := e.inst.CallRaw(context.Background(), fi, []uint64{fibN}, budgets); err != nil {
			b.Fatal(err)
		}
	}
}

const loopN = 5000

func BenchmarkLoopInterp(b *testing.B) {
	e := setup(b)
	args := []value.Value{value.U64(loopN), value.U64(1)}
	for b.Loop() {
		if _, _, err := e.in.Call("loop", args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoopWasm(b *testing.B) {
	e := setup(b)
	fi := e.m.FuncIndex("loop")
	budgets := wasmrun.Budgets{MaxSteps: 1 << 40}
	for b.Loop() {
		if _, err := e.inst.CallRaw(context.Background(), fi, []uint64{loopN, 1}, budgets); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoopArithInterp(b *testing.B) {
	e := setup(b)
	args := []value.Value{value.U64(loopN), value.U64(1)}
	for b.Loop() {
		if _, _, err := e.in.Call("mix", args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoopArithWasm(b *testing.B) {
	e := setup(b)
	fi := e.m.FuncIndex("mix")
	budgets := wasmrun.Budgets{MaxSteps: 1 << 40}
	for b.Loop() {
		if _, err := e.inst.CallRaw(context.Background(), fi, []uint64{loopN, 1}, budgets); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallOverheadWasm measures one call from Go into wazero of a
// function that returns its argument (budgets reset included).
func BenchmarkCallOverheadWasm(b *testing.B) {
	e := setup(b)
	fi := e.m.FuncIndex("ident")
	for b.Loop() {
		if _, err := e.inst.CallRaw(context.Background(), fi, []uint64{7}, wasmrun.Budgets{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallOverheadInterp is the same call in the interpreter.
func BenchmarkCallOverheadInterp(b *testing.B) {
	e := setup(b)
	args := []value.Value{value.I64(7)}
	for b.Loop() {
		if _, _, err := e.in.Call("ident", args); err != nil {
			b.Fatal(err)
		}
	}
}

// module50 is a 50-function module: each function does some arithmetic
// and calls the previous one.
func module50() string {
	var b strings.Builder
	b.WriteString("(module bench.fifty\n  (capsule \"1\")\n")
	for i := 0; i < 50; i++ {
		body := "(+ (* a 3) (/ b 7))"
		if i > 0 {
			body = fmt.Sprintf("(if (> a b) (f%d (- a 1) (+ b 2)) (%% (+ a b) 1000))", i-1)
		}
		fmt.Fprintf(&b, "  (function f%d (input (a I64) (b I64)) (output I64) (requires (!= b -1)) (body %s))\n", i, body)
	}
	b.WriteString(")\n")
	return b.String()
}

// BenchmarkCompile50 measures lowering and encoding a checked 50-function
// module to WebAssembly (binary and text).
func BenchmarkCompile50(b *testing.B) {
	pkg := testutil.LoadSource(b, module50())
	for b.Loop() {
		m := core.Lower(pkg.Result)
		if len(m.Funcs) != 50 {
			b.Fatalf("%d functions compiled", len(m.Funcs))
		}
		if _, err := cwasm.Compile(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInstantiate50Cached measures wazero compilation plus
// instantiation of the 50-function module with the shared compilation
// cache warm (what `caps call --engine wasm` pays per process after the
// first).
func BenchmarkInstantiate50Cached(b *testing.B) {
	pkg := testutil.LoadSource(b, module50())
	cm, err := cwasm.Compile(core.Lower(pkg.Result))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	warm := wasmrun.NewRuntime(ctx)
	if _, err := warm.Instantiate(ctx, cm); err != nil {
		b.Fatal(err)
	}
	defer warm.Close(ctx)
	for b.Loop() {
		rt := wasmrun.NewRuntime(ctx)
		if _, err := rt.Instantiate(ctx, cm); err != nil {
			b.Fatal(err)
		}
		rt.Close(ctx)
	}
}
