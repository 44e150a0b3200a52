package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "rollback",
		Output:   func() cli.Schema { return cli.SchemaOf(rollbackJSON{}) },
		Effects:  cli.Effects{Reads: []string{"the workspace's evolution ledger (.caps/ledger)"}, Writes: []string{"the files of the commit", "the workspace's evolution ledger"}},
		Example:  cli.Example{Line: "caps rollback --json $EVENT"},
		Negative: cli.Example{Line: "caps rollback --json evt-0000000000000000", Exit: 2},
		Args:     "[--by NAME] [--json] EVENT_ID",
		Short:    "restore the files of a commit to their bytes before it",
		Long: `Rollback restores every file of the commit EVENT_ID to its bytes before the
commit (a file the commit created is removed) and appends a rollback event
that points at the commit. It refuses, with exit code 1, when a file
changed since the commit (roll back the later change first) or the commit
was already rolled back.

A broken evolution ledger (one whose hash chain does not verify: see caps
ledger verify) is refused with exit code 1 before anything is written.

With --json it prints {"event_id", "rolls_back", "files"}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			ws := fs.String("workspace", "", "the workspace root `DIR`")
			by := fs.String("by", "", "who rolls back (default $USER)")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one EVENT_ID")
				}
				w, code := openEvolution(c, *ws)
				if w == nil {
					return code
				}
				who := *by
				if who == "" {
					who = os.Getenv("USER")
				}
				ev, err := w.Rollback(args[0], who)
				if err != nil {
					return evolutionError(c, err)
				}
				files := []string{}
				for _, f := range ev.Files {
					files = append(files, f.Path)
				}
				if *jsonOut {
					return printJSON(c, rollbackJSON{ev.ID, ev.RollsBack, files})
				}
				fmt.Fprintf(c.Stdout, "rolled back %s as %s\n", ev.RollsBack, ev.ID)
				for _, f := range files {
					fmt.Fprintf(c.Stdout, "  %s\n", f)
				}
				return cli.ExitOK
			}
		},
	})
}

// rollbackJSON is the JSON output of this command (see its Output schema).
type rollbackJSON struct {
	EventID   string   `json:"event_id"`
	RollsBack string   `json:"rolls_back"`
	Files     []string `json:"files"`
}
