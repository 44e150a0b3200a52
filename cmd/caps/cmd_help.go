package main

import (
	"flag"
	"fmt"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/internal/spell"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "help",
		Effects:  cli.Effects{Reads: nil, Writes: nil},
		Example:  cli.Example{Line: "caps help check"},
		Negative: cli.Example{Line: "caps help chek", Exit: 2},
		Args:     "[COMMAND]",
		Short:    "show help for caps or one of its commands",
		Long: `Help lists the commands, or with a COMMAND prints its usage, description and
flags. 'caps COMMAND -h' prints the same.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			return func(c *cli.Context, args []string) int {
				switch len(args) {
				case 0:
					cli.PrintMainUsage(c.Stdout)
					return cli.ExitOK
				case 1:
					cmd := cli.Lookup(args[0])
					if cmd == nil {
						msg := fmt.Sprintf("unknown command %q", args[0])
						msg += spell.Hint(cli.Suggest(args[0]), spell.Go)
						return c.UsageErrorf("%s", msg)
					}
					cli.PrintCommandHelp(c.Stdout, cmd)
					return cli.ExitOK
				}
				return c.UsageErrorf("expected at most one COMMAND, got %d arguments", len(args))
			}
		},
	})
}
