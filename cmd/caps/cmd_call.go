package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/codegen/wasmrun"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "call",
		Output:   func() cli.Schema { return cli.SchemaOf(callJSON{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps call --json examples/01_abs_i64.caps abs_i64 x=-7"},
		Negative: cli.Example{Line: "caps call --json examples/01_abs_i64.caps abs_i64 x=seven", Exit: 2},
		Also:     []cli.Example{{Line: "caps call --json examples/insurance_claim.caps archive_claim claim_id=7", Note: "an effectful function: its effect intents"}},
		Args:     "[--json] [--engine interp|wasm] [--max-steps N] [--max-depth N] FILE FUNC [NAME=VALUE...]",
		Short:    "call a function of a module and print its result",
		Long: `Call checks FILE ("-" for stdin), calls its function FUNC with the given
arguments and prints the result in Capsulang syntax:

    $ caps call examples/abs.caps abs_i64 x=-7
    7

Every input is required and passed by name as NAME=VALUE, where VALUE is
written as in source: -7, true, "text", 30m, none, (some 3), (ok 1),
Size.small, (held "customs" 2), (list 1 2), (record Claim (id 1) (amount 2)).
A Text value may also be written bare (name=Ada), and a value starting with
{ or [ is read as its JSON encoding (docs/runtime.md).

An effectful function also prints the effect intents it produced, in
order, after a comment line:

    42
    ; effect intents, in order:
    (db.write claims_db.archive 42)

A runtime error (a failed requires or ensures clause, a division by zero, a
match without a matching arm, an exhausted step or depth budget) is printed
on stderr with its place, and call exits with 1; so does a FILE with
errors. An unknown function or argument exits with 2.

With --json it prints {"value": VALUE, "effects": [{"effect", "target",
"args"}]} with values in their JSON encoding; after a runtime error "value"
is null and "error" is {"kind", "message", "path", "range"}. A FILE with
errors prints the usual {"ok", "files"} report instead.

With --engine wasm the module's pure scalar functions are compiled to
WebAssembly (caps compile --target wasm) and FUNC runs under wazero; the
output, runtime errors included, is the interpreter's. The compiled code
enforces the step budget by counting calls rather than evaluation steps
(docs/codegen.md). A FUNC outside the compiled subset exits with 2.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			maxSteps := fs.Int64("max-steps", interp.DefaultMaxSteps, "the step budget: evaluation steps allowed")
			maxDepth := fs.Int("max-depth", interp.DefaultMaxDepth, "the depth budget: nested calls allowed")
			engine := fs.String("engine", "interp", "how to run FUNC: interp (the interpreter) or wasm (compiled, under wazero)")
			return func(c *cli.Context, args []string) int {
				if len(args) < 2 {
					return c.UsageErrorf("expected FILE and FUNC, got %d arguments", len(args))
				}
				if *maxSteps <= 0 || *maxDepth <= 0 {
					return c.UsageErrorf("--max-steps and --max-depth must be positive")
				}
				if *engine != "interp" && *engine != "wasm" {
					return c.UsageErrorf("--engine is one of %s, not %q", strings.Join(callEngines, ", "), *engine)
				}
				callEngine = *engine
				return runCall(c, args[0], args[1], args[2:], *jsonOut, *maxSteps, *maxDepth)
			}
		},
	})
}

// callEngine is the --engine of the running call command.
var callEngine = "interp"

type intentJSON struct {
	Effect string        `json:"effect"`
	Target string        `json:"target"`
	Extra  []string      `json:"extra_targets,omitempty"`
	Args   []value.Value `json:"args"`
}

type callJSON struct {
	Value   *value.Value `json:"value"`
	Effects []intentJSON `json:"effects"`
	Error   *errorJSON   `json:"error,omitempty"`
}

func intentsJSON(its []interp.Intent) []intentJSON {
	out := []intentJSON{}
	for _, it := range its {
		args := it.Args
		if args == nil {
			args = []value.Value{}
		}
		out = append(out, intentJSON{Effect: it.Effect, Target: it.Target, Extra: it.Extra, Args: args})
	}
	return out
}

func runCall(c *cli.Context, path, fn string, argv []string, jsonOut bool, maxSteps int64, maxDepth int) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg := loadModule(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	in := newInterp(pkg, maxSteps, maxDepth)
	info, ok := in.Function(fn)
	if !ok {
		var names []string
		for _, f := range in.Functions() {
			names = append(names, f.Name)
		}
		msg := fmt.Sprintf("%s has no function %q", cli.DisplayPath(path), fn)
		switch best := spell.Nearest(fn, names); {
		case best != "":
			msg += spell.Hint(best, spell.Go)
		case len(names) > 0:
			msg += "; its functions are " + strings.Join(names, ", ")
		default:
			msg += "; it declares no functions"
		}
		c.Errorf("%s", msg)
		return cli.ExitUsage
	}
	args, code := callArgs(c, info, argv)
	if code != cli.ExitOK {
		return code
	}
	var v value.Value
	var intents []interp.Intent
	var err error
	if callEngine == "wasm" {
		v, err = callWasm(pkg, info.Name, args, maxSteps, maxDepth)
		if nc, ok := err.(*wasmrun.NotCompiledError); ok {
			c.Errorf("%s", nc.Msg)
			return cli.ExitUsage
		}
	} else {
		v, intents, err = in.Call(info.Name, args)
	}
	if err != nil {
		c.Stderr.Write([]byte(cli.Program + ": " + runtimeErrorText(path, pkg, err)))
		if jsonOut {
			writeJSON(c, callJSON{Effects: []intentJSON{}, Error: runtimeErrorJSON(path, pkg, err)})
		}
		return cli.ExitFail
	}
	if jsonOut {
		writeJSON(c, callJSON{Value: &v, Effects: intentsJSON(intents)})
		return cli.ExitOK
	}
	var b strings.Builder
	b.WriteString(v.String() + "\n")
	if len(intents) > 0 {
		b.WriteString("; effect intents, in order:\n")
		for _, it := range intents {
			b.WriteString(it.String() + "\n")
		}
	}
	c.Stdout.Write([]byte(b.String()))
	return cli.ExitOK
}

// callArgs parses NAME=VALUE arguments against the function's inputs.
func callArgs(c *cli.Context, info *interp.FuncInfo, argv []string) ([]value.Value, int) {
	index := map[string]int{}
	var names []string
	for i, p := range info.Params {
		index[p.Name] = i
		names = append(names, p.Name)
	}
	args := make([]value.Value, len(info.Params))
	given := make([]bool, len(info.Params))
	for _, a := range argv {
		name, text, ok := strings.Cut(a, "=")
		if !ok {
			if len(info.Params) == 0 {
				c.Errorf("%s takes no arguments, got %q", info.Name, a)
			} else {
				c.Errorf("argument %q: write arguments as NAME=VALUE, e.g. %s=...", a, info.Params[0].Name)
			}
			return nil, cli.ExitUsage
		}
		i, known := index[name]
		if !known {
			msg := fmt.Sprintf("%s has no input %q", info.Name, name)
			if best := spell.Nearest(name, names); best != "" {
				msg += spell.Hint(best, spell.Go)
			} else if len(names) > 0 {
				msg += "; its inputs are " + strings.Join(names, ", ")
			} else {
				msg += "; it takes no inputs"
			}
			c.Errorf("%s", msg)
			return nil, cli.ExitUsage
		}
		if given[i] {
			c.Errorf("input %s is given twice", name)
			return nil, cli.ExitUsage
		}
		v, err := value.Parse(text, info.Params[i].Type)
		if err != nil {
			c.Errorf("input %s (%s): %v", name, info.Params[i].Type, err)
			return nil, cli.ExitUsage
		}
		args[i], given[i] = v, true
	}
	var missing []string
	for i, p := range info.Params {
		if !given[i] {
			missing = append(missing, p.Name+" ("+p.Type.String()+")")
		}
	}
	if len(missing) > 0 {
		c.Errorf("%s needs %s %s; pass NAME=VALUE for each", info.Name, pluralWord(len(missing), "input", "inputs"), strings.Join(missing, ", "))
		return nil, cli.ExitUsage
	}
	return args, cli.ExitOK
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func writeJSON(c *cli.Context, v any) {
	b, err := report.Marshal(v)
	if err != nil {
		panic(err) // a value that cannot be encoded: a bug
	}
	c.Stdout.Write(append(b, '\n'))
}
