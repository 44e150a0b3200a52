package main

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
)

// treeSitterABI is the tree-sitter ABI of the generated parser
// (LANGUAGE_VERSION in tree-sitter-capsulang/src/parser.c; a test keeps the
// two in step).
const treeSitterABI = 14

func init() {
	cli.Register(&cli.Command{
		Name:     "version",
		Output:   func() cli.Schema { return cli.SchemaOf(versionJSON{}) },
		Effects:  cli.Effects{Reads: nil, Writes: nil},
		Example:  cli.Example{Line: "caps version --json"},
		Negative: cli.Example{Line: "caps version --json extra", Exit: 2},
		Args:     "[--json]",
		Short:    "print the caps version",
		Long: `Version prints the toolchain version, the Go release it was built with and
the tree-sitter ABI of its Capsulang parser:

    caps 0.1.0-dev (go1.26.8, tree-sitter ABI 14)

With --json it prints {"version": ..., "go": ..., "treeSitterABI": ...}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) > 0 {
					return c.UsageErrorf("unexpected argument %q", args[0])
				}
				if *jsonOut {
					b, _ := report.Marshal(versionJSON{version, runtime.Version(), treeSitterABI})
					fmt.Fprintf(c.Stdout, "%s\n", b)
					return cli.ExitOK
				}
				fmt.Fprintf(c.Stdout, "caps %s (%s, tree-sitter ABI %d)\n", version, runtime.Version(), treeSitterABI)
				return cli.ExitOK
			}
		},
	})
}

// versionJSON is the JSON output of this command (see its Output schema).
type versionJSON struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	ABI     int    `json:"treeSitterABI"`
}
