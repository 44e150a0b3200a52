package main

import (
	"flag"
	"fmt"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/ir"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/syntax"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "ir",
		Output:   func() cli.Schema { return irSchema },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps ir examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps ir examples/no_such_file.caps", Exit: 2},
		Args:     "[--compact] FILE",
		Short:    "print the canonical IR of a module as JSON",
		Long: `Ir prints the canonical JSON IR of FILE's module ("-" for stdin): the
form its semantic hash is computed from (docs/ir.md). Formatting, comments
and declaration order do not change it. --compact prints the exact hashed
bytes.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			compact := fs.Bool("compact", false, "print the exact canonical bytes")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runIR(c, args[0], *compact, false)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "hash",
		Output:   func() cli.Schema { return report.ResultSchema(hashExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps hash --json examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps hash --json examples/no_such_file.caps", Exit: 2},
		Args:     "[--json] FILE",
		Short:    "print the semantic hash of a module",
		Long: `Hash prints sha256:<64 hex digits>, the SHA-256 of FILE's canonical IR
("-" for stdin). It changes with any change of meaning and with nothing
else.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runIR(c, args[0], *jsonOut, true)
			}
		},
	})
}

// runIR prints the IR (or, with hash set, the hash) of a file: the one the
// checking commands report as semantic_hash. Syntax errors and imports
// that do not resolve stop it: the IR would not be stable, or would not
// pin the imported modules.
func runIR(c *cli.Context, path string, flag bool, hash bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, hash && flag)
	pkg, err := newLoader(c).Load(path)
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	if errs := unstableIR(pkg); len(errs) > 0 || pkg.File.Module == nil {
		p.Add(packageSource(path, pkg), errs)
		p.SetFailed()
		return p.Finish()
	}
	canon, err := load.IROptions(pkg.Result).Canonical(pkg.File.Module)
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	if hash {
		h := ir.HashBytes(canon)
		if flag {
			f := p.Add(packageSource(path, pkg), nil)
			f.Extra = hashExtra{h}
			return p.Finish()
		}
		fmt.Fprintln(c.Stdout, h)
		return cli.ExitOK
	}
	if flag {
		fmt.Fprintf(c.Stdout, "%s\n", canon)
	} else {
		fmt.Fprintf(c.Stdout, "%s\n", ir.Indent(canon))
	}
	return cli.ExitOK
}

// unstableIR returns the diagnostics that leave a package without a stable
// IR: its syntax errors and its imports that did not resolve
// (E_IMPORT_NOT_FOUND, E_IMPORT_CYCLE).
func unstableIR(pkg *load.Package) []syntax.Diagnostic {
	errs := append([]syntax.Diagnostic(nil), pkg.File.Diagnostics...)
	for _, d := range pkg.Result.Diagnostics {
		if d.Code == check.ImportNotFound || d.Code == check.ImportCycle {
			errs = append(errs, d)
		}
	}
	return errs
}

// irSchema is the JSON Schema of the canonical IR's top level (docs/ir.md
// describes the declarations inside decls).
var irSchema = cli.Object(cli.Schema{
	"capsulang_ir": cli.Schema{"type": "integer", "description": "the IR format version"},
	"capsule":      cli.Schema{"type": "string", "description": "the (capsule ...) version of the module"},
	"name":         cli.Schema{"type": "string", "description": "the module name"},
	"imports":      cli.Schema{"type": "array"},
	"profiles":     cli.Schema{"type": "array"},
	"decls":        cli.Schema{"type": "array", "items": cli.Schema{"type": "object", "required": []any{"kind"}}},
})
