package main

import (
	"flag"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "check",
		Output:   func() cli.Schema { return report.ResultSchema(hashExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps check --json examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps check --json examples/04_bad_missing_effect.caps", Exit: 1},
		Also:     []cli.Example{{Line: "caps check --json examples", Exit: 1, Note: "a folder: every file, the negative examples included"}},
		Args:     "[--json] FILE|DIR...",
		Short:    "check files for type, effect, reference and profile errors",
		Long: `Check parses and checks each FILE (a DIR means every .caps file under it)
with the modules it imports, evaluates the function examples of files that
check cleanly, and prints every diagnostic. It exits with 1 if any file has
an error.

A FILE "-" is standard input. Imports are looked up in the importing
file's folder (the current folder for standard input) and then in each
folder of CAPS_PATH.

With --json it prints
    {"ok": bool, "files": [{"path", "semantic_hash", "diagnostics": [...]}]}
where each diagnostic is {"code", "severity", "message", "range"} and a range
is an LSP range (0-based lines, UTF-16 characters).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) == 0 {
					return c.UsageErrorf("expected at least one FILE or DIR")
				}
				return runCheck(c, args, *jsonOut)
			}
		},
	})
}

func runCheck(c *cli.Context, args []string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	paths, errs := cli.ExpandPaths(args)
	for _, e := range errs {
		p.Fail(e.Path, e)
	}
	l := newLoader(c)
	l.LeanFrom = checkLeanFrom
	for _, path := range paths {
		pkg, err := l.Load(path)
		if err != nil {
			p.Fail(path, err)
			continue
		}
		f := p.Add(&report.Source{Path: path, Text: pkg.Src, Lines: pkg.File.Source.CST.Lines}, checkedDiagnostics(pkg))
		f.Extra = hashExtra{pkg.Hash}
	}
	return p.Finish()
}

// checkLeanFrom is the smallest file, in bytes, caps check builds lean
// (load.Loader.LeanFrom): on a large file its peak memory is about half,
// for a few re-reads of function bodies; a small one gains nothing.
const checkLeanFrom = 256 << 10

// hashExtra is the JSON output of this command (see its Output schema).
type hashExtra struct {
	Hash string `json:"semantic_hash"`
}
