package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/runtime/evolution"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "commit",
		Output:   func() cli.Schema { return cli.OneOf(cli.SchemaOf(commitJSON{}), cli.SchemaOf(commitRefusedJSON{})) },
		Effects:  cli.Effects{Reads: []string{"the proposal ID and its assessment", "the workspace's files"}, Writes: []string{"the files the proposal changes", "the workspace's evolution ledger (.caps/ledger)"}, Runs: []string{"the workspace policy's validation commands"}},
		Example:  cli.Example{Line: "caps commit --json --approve alice $PROPOSAL"},
		Negative: cli.Example{Line: "caps commit --json $PROPOSAL", Exit: 1},
		Args:     "[--approve NAME]... [--json] ID",
		Short:    "apply an assessed proposal atomically and record it in the ledger",
		Long: `Commit writes a proposal's candidate files into the workspace and appends a
commit event, an improvement record and (for a repair) a reusable-solution
record to the evolution ledger. It refuses, with exit code 1, naming each
reason and each unmet requirement on a line of its own, a proposal whose
verdict is fail; incomplete (evidence that a gate or successor contract
of the module requires is missing: no approval stands in for evidence);
or needs-approval without --approve: NAME approves a role-less
requirement, ROLE or ROLE:NAME a requirement of ROLE (a gate's "requires
approval ROLE granted", a successor contract's "unless approval:ROLE").
--approve may be repeated. A refused commit writes and records nothing.

A proposal is re-assessed when it was not assessed, or its files or the
workspace policy changed since. When a target changed since the proposal,
its change is re-applied to the current file (strict context) or the
commit is refused as stale. Files are written through synced temporary
files, a journal and renames: a crash leaves each file old or new, and the
next command finishes the commit.

A broken evolution ledger (one whose hash chain does not verify: see caps
ledger verify) is refused with exit code 1 before anything is written.

With --json it prints {"event_id", "proposal", "files", "verdict",
"approvals"}, or {"error", "verdict", "reasons", "unmet"} when refused:
"unmet" lists the requirements not met, each {"gate" or
"successor_contract", "path", "requirement", "status", "roles", "why"}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			ws := fs.String("workspace", "", "the workspace root `DIR`")
			var approvals stringList
			fs.Var(&approvals, "approve", "approve as `NAME` or ROLE:NAME (repeatable)")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one proposal ID")
				}
				w, code := openEvolution(c, *ws)
				if w == nil {
					return code
				}
				ev, err := w.Commit(args[0], approvals)
				if err != nil {
					var re *evolution.RefusedError
					if *jsonOut && errors.As(err, &re) {
						out := commitRefusedJSON{Error: re.Error(), Reasons: []string{}, Unmet: append([]propose.Requirement{}, re.Unmet...)}
						if re.Assessment != nil {
							out.Verdict = re.Assessment.Verdict
							for _, r := range re.Assessment.Reasons {
								out.Reasons = append(out.Reasons, r.Message)
							}
						}
						printJSON(c, out)
					}
					return evolutionError(c, err)
				}
				files := []string{}
				for _, f := range ev.Files {
					files = append(files, f.Path)
				}
				if *jsonOut {
					return printJSON(c, commitJSON{ev.ID, ev.Proposal, files, ev.Outcome.Verdict, append([]string{}, ev.Approvals...)})
				}
				fmt.Fprintf(c.Stdout, "committed %s as %s\n", ev.Proposal, ev.ID)
				for _, f := range files {
					fmt.Fprintf(c.Stdout, "  %s\n", f)
				}
				fmt.Fprintf(c.Stdout, "undo: caps rollback %s\n", ev.ID)
				return cli.ExitOK
			}
		},
	})
}

// commitJSON is the JSON output of this command (see its Output schema).
type commitJSON struct {
	EventID   string   `json:"event_id"`
	Proposal  string   `json:"proposal"`
	Files     []string `json:"files"`
	Verdict   string   `json:"verdict"`
	Approvals []string `json:"approvals"`
}

// commitRefusedJSON is the JSON output of this command (see its Output schema).
type commitRefusedJSON struct {
	Error   string                `json:"error"`
	Verdict string                `json:"verdict,omitempty"`
	Reasons []string              `json:"reasons"`
	Unmet   []propose.Requirement `json:"unmet"`
}
