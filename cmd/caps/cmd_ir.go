package main

import (
	"flag"
	"fmt"

	"github.com/capsulang/caps/analysis/ir"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
)

func init() {
	cli.Register(&cli.Command{
		Name:  "ir",
		Args:  "[--compact] FILE",
		Short: "print the canonical IR of a module as JSON",
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
		Name:  "hash",
		Args:  "[--json] FILE",
		Short: "print the semantic hash of a module",
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

// runIR prints the IR (or, with hash set, the hash) of a file. Syntax
// errors stop it: the IR of a file that does not parse would not be stable.
func runIR(c *cli.Context, path string, flag bool, hash bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, hash && flag)
	l := newLoader(c)
	pkg, err := l.Load(path)
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	var syntaxErrs = pkg.File.Diagnostics
	if len(syntaxErrs) > 0 || pkg.File.Module == nil {
		p.Add(&report.Source{Path: path, Text: pkg.Src}, syntaxErrs)
		p.SetFailed()
		return p.Finish()
	}
	opts := ir.Options{ImportHash: importHasher(l, pkg)}
	canon, err := opts.Canonical(pkg.File.Module)
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	if hash {
		h := ir.HashBytes(canon)
		if flag {
			f := p.Add(&report.Source{Path: path, Text: pkg.Src}, nil)
			f.Extra = struct {
				Hash string `json:"semantic_hash"`
			}{h}
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

// importHasher resolves the hashes of a package's imports for the IR.
func importHasher(l *load.Loader, pkg *load.Package) func(string) (string, error) {
	return func(path string) (string, error) {
		for _, im := range pkg.Result.Imports {
			if im.Import.Path.Name == path {
				return im.Hash, nil
			}
		}
		return "", fmt.Errorf("import %s did not resolve; run caps check", path)
	}
}
