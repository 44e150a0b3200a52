package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/runtime/evolution"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "history",
		Output:   func() cli.Schema { return cli.SchemaOf(evolution.History{}) },
		Effects:  cli.Effects{Reads: []string{"the workspace's evolution ledger (.caps/ledger)"}, Writes: nil},
		Example:  cli.Example{Line: "caps history --json"},
		Negative: cli.Example{Line: "caps history --json a.caps b.caps", Exit: 2},
		Args:     "[--json] [FILE]",
		Short:    "show the evolution lineage of a file (or of every file)",
		Long: `History prints the evolution ledger's events for FILE (every file when none
is given): its proposals, assessments, commits and rollbacks, with the
lineage tree of commits and rollbacks (each under the event whose result it
started from).

The ledger's chain is verified first. When it is broken, history still
prints what it can read, marks every event from the first bad record on
UNVERIFIED (the chain vouches for nothing from there), says where the chain
breaks on stderr and exits with 1.

With --json it prints {"ledger": {"ok", "problem"}, "files": [{"path",
"events": [...], "lineage": [{"event", "children": [...]}]}]}; events are as
in the ledger (docs/propose.md) plus "verified".`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			ws := fs.String("workspace", "", "the workspace root `DIR`")
			return func(c *cli.Context, args []string) int {
				if len(args) > 1 {
					return c.UsageErrorf("expected at most one FILE")
				}
				w, code := openEvolution(c, *ws)
				if w == nil {
					return code
				}
				file := ""
				if len(args) == 1 {
					file = args[0]
				}
				h, err := w.History(file)
				if err != nil {
					return evolutionError(c, err)
				}
				code = cli.ExitOK
				if p := h.Ledger.Problem; p != nil {
					code = cli.ExitFail
					c.Errorf("the evolution ledger %s is broken at %s; the events from record %d on are marked UNVERIFIED. Run 'caps ledger verify' to see it",
						w.LedgerPath(), evolution.DescribeBreak(p), p.Line)
				}
				if *jsonOut {
					if rc := printJSON(c, h); rc != cli.ExitOK {
						return rc
					}
					return code
				}
				if len(h.Files) == 0 {
					fmt.Fprintln(c.Stdout, "no history")
				}
				for _, f := range h.Files {
					fmt.Fprintln(c.Stdout, f.Path)
					var walk func(ns []*evolution.LineageNode, depth int)
					walk = func(ns []*evolution.LineageNode, depth int) {
						for _, n := range ns {
							fmt.Fprintf(c.Stdout, "%s%s\n", strings.Repeat("  ", depth+1), eventLine(n.Event))
							walk(n.Children, depth+1)
						}
					}
					walk(f.Lineage, 0)
					fmt.Fprintf(c.Stdout, "  (%s)\n", eventCounts(f.Events))
				}
				return code
			}
		},
	})
}

// eventLine is one event of the text history; an event the ledger's chain
// does not vouch for starts with UNVERIFIED.
func eventLine(e evolution.HistoryEvent) string {
	s := fmt.Sprintf("%s %s %s", e.ID, e.Time, e.Kind)
	if !e.Verified {
		s = "UNVERIFIED " + s
	}
	switch e.Kind {
	case "commit":
		s += fmt.Sprintf(" %s by %s [%s %.3f]", e.Proposal, e.By, e.Outcome.Verdict, e.Outcome.Confidence)
		if e.Reason != "" {
			s += fmt.Sprintf(" %q", e.Reason)
		}
	case "rollback":
		s += fmt.Sprintf(" of %s by %s", e.RollsBack, e.By)
	}
	if e.ParentHash != "" || e.CandidateHash != "" {
		s += fmt.Sprintf(" %s -> %s", short(e.ParentHash), short(e.CandidateHash))
	}
	return s
}

func short(h string) string {
	if len(h) > 19 {
		return h[:19]
	}
	if h == "" {
		return "-"
	}
	return h
}

// eventCounts summarizes a file's events: "3 event(s), 1 proposal(s)",
// and how many are unverified when the ledger is broken.
func eventCounts(evs []evolution.HistoryEvent) string {
	proposals, unverified := 0, 0
	for _, e := range evs {
		if e.Kind == "propose" {
			proposals++
		}
		if !e.Verified {
			unverified++
		}
	}
	s := fmt.Sprintf("%d event(s), %d proposal(s)", len(evs), proposals)
	if unverified > 0 {
		s += fmt.Sprintf(", %d UNVERIFIED", unverified)
	}
	return s
}
