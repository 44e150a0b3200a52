package main

// The spec's spellings of commands: aliases where caps already has the
// command under another name (examples, emit-riscv), and the compilation
// surfaces it names that had no equivalent (capsule-abi, diff-compiled).

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/codegen"
	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/riscv64"
	cwasm "github.com/capsulang/caps/codegen/wasm"
	"github.com/capsulang/caps/codegen/wasmrun"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "examples",
		Output:   func() cli.Schema { return report.ResultSchema(fileTestsJSON{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps examples --json examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps examples --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--json] [--max-steps N] [--max-depth N] FILE|DIR...",
		Short:    "run the function examples of modules (the spec's name for caps test)",
		Long: `Examples is caps test under the name the specification uses: it checks each
FILE and runs every (example ...) of its functions with the interpreter,
with the same output, flags and exit codes (caps help test). Machine
scenarios need caps test --scenario.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			run := cli.Lookup("test").Flags(fs)
			return func(c *cli.Context, args []string) int {
				if f := fs.Lookup("scenario"); f != nil && f.Value.String() != "" && f.Value.String() != "[]" {
					return c.UsageErrorf("examples runs function examples only; use caps test --scenario for machine scenarios")
				}
				return run(c, args)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "emit-riscv",
		Output:   func() cli.Schema { return report.ResultSchema(compileExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: []string{"--out PATH"}},
		Example:  cli.Example{Line: "caps emit-riscv --json examples/01_abs_i64.caps --out build/abs.s"},
		Negative: cli.Example{Line: "caps emit-riscv --json examples/04_bad_missing_effect.caps --out build/bad.s", Exit: 1},
		Args:     "[--out PATH] [--json] FILE",
		Short:    "print RV64 assembly of a module's pure scalar functions (caps compile --target riscv64)",
		Long: `Emit-riscv is caps compile --target riscv64 FILE --out PATH with PATH
defaulting to "-": it checks FILE and prints the RV64IM assembly of its
pure scalar functions on stdout. Functions outside the subset are skipped
and listed on stderr; caps compile-plan explains them. --json (with --out
a file) prints the compile report.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			out := fs.String("out", "-", "the output file (\"-\" for stdout)")
			jsonOut := fs.Bool("json", false, "print the compile report as JSON (needs --out FILE)")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				if *out == "-" && *jsonOut {
					return c.UsageErrorf("--json prints the report on stdout; give --out a file")
				}
				return runCompile(c, args[0], "riscv64", *out, *jsonOut, false)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "capsule-abi",
		Output:   func() cli.Schema { return cli.SchemaOf(abiJSON{}) },
		Effects:  cli.Effects{Reads: nil, Writes: nil},
		Example:  cli.Example{Line: "caps capsule-abi --json"},
		Negative: cli.Example{Line: "caps capsule-abi --json extra", Exit: 2},
		Args:     "[--json]",
		Short:    "describe the ABI of compiled code: type mapping, calling convention, traps, runtime exports",
		Long: `Capsule-abi prints the application binary interface of the compiled targets
(wasm and wat share one; riscv64 has its own): how each Capsulang scalar
type is represented, how functions are named and called, how traps and
budgets reach the host, and which types have no stable layout yet. It
takes no FILE: the ABI is the toolchain's, not a module's.

With --json it prints {"abi_version", "targets": [{"targets", "types":
[{"type", "repr"}], "symbols", "calling_convention", "arithmetic",
"traps", "runtime", "unstable"}]}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 0 {
					return c.UsageErrorf("expected no arguments (the ABI is the toolchain's, not a module's)")
				}
				abi := capsuleABI()
				if *jsonOut {
					writeJSON(c, abi)
					return cli.ExitOK
				}
				var b strings.Builder
				fmt.Fprintf(&b, "Capsule ABI %s\n", abi.Version)
				for _, t := range abi.Targets {
					fmt.Fprintf(&b, "\n%s\n", strings.Join(t.Targets, ", "))
					for _, ty := range t.Types {
						fmt.Fprintf(&b, "  %-5s %s\n", ty.Type, ty.Repr)
					}
					fmt.Fprintf(&b, "  symbols: %s\n  calls: %s\n  arithmetic: %s\n  traps: %s\n  runtime: %s\n  not stable: %s\n",
						t.Symbols, t.Calling, t.Arithmetic, t.Traps, strings.Join(t.Runtime, ", "), strings.Join(t.Unstable, ", "))
				}
				c.Stdout.Write([]byte(b.String()))
				return cli.ExitOK
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "diff-compiled",
		Output:   func() cli.Schema { return report.ResultSchema(diffJSON{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps diff-compiled --json --target wasm examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps diff-compiled --json --target wasm examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "--target wasm|wat [--json] FILE",
		Short:    "run compiled functions beside the interpreter on their examples and boundary inputs",
		Long: `Diff-compiled checks FILE, compiles its pure scalar functions for the target
and calls each one, in the compiled code (wasm under wazero) and in the
interpreter, on the arguments of its examples and on boundary inputs
(0, 1, the type's minimum and maximum, -1 when signed, for each parameter;
at most 64 combinations per function). A pair agrees when both give the
same value, or both stop with the same error message. It prints one line
per function and each disagreement; exit 1 when any pair disagrees or FILE
has errors, 2 for a target it cannot run (riscv64 needs a RISC-V
assembler and qemu: its differential tests are in go test
./codegen/riscv64).

With --json it prints {"ok", "files": [{"path", "diagnostics", "target",
"inputs", "agreed", "functions": [{"function", "inputs", "agreed",
"disagreements": [{"args", "interpreter", "compiled"}]}]}]}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			target := fs.String("target", "wasm", "wasm or wat (the same module)")
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				switch *target {
				case "wasm", "wat":
				default:
					if codegen.Lookup(*target) == nil {
						return c.UsageErrorf("unknown target %q; diff-compiled runs wasm or wat", *target)
					}
					return c.UsageErrorf("diff-compiled runs wasm or wat, not %s (riscv64 is compared with the interpreter by go test ./codegen/riscv64 under qemu)", *target)
				}
				return runDiffCompiled(c, args[0], *target, *jsonOut)
			}
		},
	})
}

// abiJSON is the output of capsule-abi.
type abiJSON struct {
	Version string          `json:"abi_version"`
	Targets []abiTargetJSON `json:"targets"`
}

type abiTargetJSON struct {
	Targets    []string      `json:"targets"`
	Types      []abiTypeJSON `json:"types"`
	Symbols    string        `json:"symbols"`
	Calling    string        `json:"calling_convention"`
	Arithmetic string        `json:"arithmetic"`
	Traps      string        `json:"traps"`
	Runtime    []string      `json:"runtime"`
	Unstable   []string      `json:"unstable"`
}

type abiTypeJSON struct {
	Type string `json:"type"`
	Repr string `json:"repr"`
}

// unstableLayouts are the types no compiled target lays out yet.
var unstableLayouts = []string{"Text", "records", "lists", "maps", "Option", "Result", "variants", "Json", "Timestamp", "Duration", "Address", "Bytes32", "Wei", "I128/U128/U256"}

// capsuleABI describes the ABI that codegen/wasm and codegen/riscv64
// implement (their package comments are the source).
func capsuleABI() abiJSON {
	types := func(intRepr, boolRepr string) []abiTypeJSON {
		var out []abiTypeJSON
		for _, k := range []core.Kind{core.Bool, core.I32, core.I64, core.U32, core.U64} {
			r := intRepr
			switch {
			case k == core.Bool:
				r = boolRepr
			case k == core.I32:
				r += ", sign-extended from 32 bits"
			case k == core.U32:
				r += ", zero-extended from 32 bits"
			}
			out = append(out, abiTypeJSON{Type: k.String(), Repr: r})
		}
		return append(out, abiTypeJSON{Type: "Int", Repr: "as I64"})
	}
	return abiJSON{Version: "1", Targets: []abiTargetJSON{
		{
			Targets:    []string{"wasm", "wat"},
			Types:      types("i64", "i32, 0 or 1"),
			Symbols:    "each compiled function is exported under its Capsulang name",
			Calling:    "WebAssembly parameters in declaration order, one result",
			Arithmetic: "wraps at the type's width; signed division truncates, MIN / -1 is MIN, MIN % -1 is 0; unsigned types use div_u, rem_u and unsigned comparisons",
			Traps:      "division by zero, failed requires/ensures, a match without an arm and the budgets set " + cwasm.ExportTrapSite + " and execute unreachable; the host reads the site to print the interpreter's message",
			Runtime:    []string{cwasm.ExportMemory, cwasm.ExportDepth, cwasm.ExportEntryDepth, cwasm.ExportFuel, cwasm.ExportTrapSite},
			Unstable:   unstableLayouts,
		},
		{
			Targets:    []string{"riscv64"},
			Types:      types("64-bit register", "register, 0 or 1"),
			Symbols:    "each compiled function is the global symbol " + riscv64.Symbol("NAME"),
			Calling:    fmt.Sprintf("standard RV64 integer calling convention: at most %d parameters in a0-a7, the result in a0; s0 and ra saved", riscv64.MaxParams),
			Arithmetic: "wraps at the type's width (addw/subw/mulw for I32); div/rem for signed, divu/remu/sltu for unsigned types",
			Traps:      "caps_trap is called with the site number in a0 and the trapping value in a1 and must not return; the module's weak caps_trap exits with status 70",
			Runtime:    []string{"caps_trap", "caps_depth", "caps_max_depth"},
			Unstable:   unstableLayouts,
		},
	}}
}

// diffJSON is one file of diff-compiled's report.
type diffJSON struct {
	Target    string         `json:"target"`
	Inputs    int            `json:"inputs"`
	Agreed    int            `json:"agreed"`
	Functions []diffFuncJSON `json:"functions"`
}

type diffFuncJSON struct {
	Function      string             `json:"function"`
	Inputs        int                `json:"inputs"`
	Agreed        int                `json:"agreed"`
	Disagreements []disagreementJSON `json:"disagreements"`
}

type disagreementJSON struct {
	Args        []string `json:"args"`
	Interpreter string   `json:"interpreter"`
	Compiled    string   `json:"compiled"`
}

// boundaryValues are the boundary inputs of a kind.
func boundaryValues(k core.Kind) []value.Value {
	switch k {
	case core.Bool:
		return []value.Value{value.False, value.True}
	case core.I32:
		return ints(value.IntI32, 0, 1, -1, math.MinInt32, math.MaxInt32)
	case core.I64:
		return ints(value.IntI64, 0, 1, -1, math.MinInt64, math.MaxInt64)
	case core.U32:
		return ints(value.IntU32, 0, 1, math.MaxUint32)
	case core.U64:
		return ints(value.IntU64, 0, 1, -1) // -1 is the largest U64
	}
	return nil
}

func ints(k value.IntKind, ns ...int64) []value.Value {
	out := make([]value.Value, len(ns))
	for i, n := range ns {
		out[i] = value.Int(k, uint64(n))
	}
	return out
}

// maxBoundaryInputs bounds the boundary combinations per function.
const maxBoundaryInputs = 64

func runDiffCompiled(c *cli.Context, path, target string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, f := loadChecked(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	m := core.Lower(pkg.Result)
	if len(m.Funcs) == 0 {
		c.Errorf("%s: no function is in the compiled subset; caps compile-plan explains why", cli.DisplayPath(path))
		p.SetFailed()
		return p.Finish()
	}
	cm, err := cwasm.Compile(m)
	if err != nil {
		c.Errorf("%s: %v", cli.DisplayPath(path), err)
		p.SetFailed()
		return p.Finish()
	}
	ctx := context.Background()
	rt := wasmrun.NewRuntime(ctx)
	defer rt.Close(ctx)
	inst, err := rt.Instantiate(ctx, cm)
	if err != nil {
		c.Errorf("%s: %v", cli.DisplayPath(path), err)
		p.SetError()
		return p.Finish()
	}
	in := interp.New(pkg.Result)
	out := diffJSON{Target: target, Functions: []diffFuncJSON{}}
	for _, fn := range m.Funcs {
		fj := diffFuncJSON{Function: fn.Name, Disagreements: []disagreementJSON{}}
		var inputs [][]value.Value
		seen := map[string]bool{}
		add := func(args []value.Value) {
			key := fmt.Sprint(args)
			if !seen[key] {
				seen[key] = true
				inputs = append(inputs, args)
			}
		}
		for _, ex := range fn.Decl.Examples {
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
			if ok {
				add(args)
			}
		}
		// Boundary combinations, in odometer order, up to the bound.
		combos := [][]value.Value{{}}
		for _, prm := range fn.Params {
			var next [][]value.Value
			for _, pre := range combos {
				for _, v := range boundaryValues(prm.K) {
					if len(next) == maxBoundaryInputs {
						break
					}
					next = append(next, append(append([]value.Value{}, pre...), v))
				}
			}
			combos = next
		}
		for _, args := range combos {
			add(args)
		}
		for _, args := range inputs {
			fj.Inputs++
			want, _, ierr := in.Call(fn.Name, args)
			got, cerr := callCompiled(ctx, inst, fn.Name, args)
			iv, cv := outcomeText(want, ierr), outcomeText(got, cerr)
			if iv == cv {
				fj.Agreed++
				continue
			}
			var as []string
			for _, a := range args {
				as = append(as, a.String())
			}
			fj.Disagreements = append(fj.Disagreements, disagreementJSON{Args: as, Interpreter: iv, Compiled: cv})
		}
		out.Inputs += fj.Inputs
		out.Agreed += fj.Agreed
		out.Functions = append(out.Functions, fj)
	}
	if out.Agreed != out.Inputs {
		p.SetFailed()
	}
	if jsonOut {
		f.Extra = out
		return p.Finish()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s against the interpreter: %d of %d inputs agree\n", cli.DisplayPath(path), target, out.Agreed, out.Inputs)
	for _, fj := range out.Functions {
		fmt.Fprintf(&b, "  %s: %d of %d agree\n", fj.Function, fj.Agreed, fj.Inputs)
		for _, d := range fj.Disagreements {
			fmt.Fprintf(&b, "    (%s %s): interpreter %s, %s %s\n", fj.Function, strings.Join(d.Args, " "), d.Interpreter, target, d.Compiled)
		}
	}
	c.Stdout.Write([]byte(b.String()))
	return p.Finish()
}

// callCompiled calls a compiled function (a variable so that a test can
// make the compiled code disagree).
var callCompiled = func(ctx context.Context, inst *wasmrun.Instance, name string, args []value.Value) (value.Value, error) {
	return inst.Call(ctx, name, args, wasmrun.Budgets{})
}

// outcomeText is a call's value, or "error: MESSAGE".
func outcomeText(v value.Value, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return v.String()
}
