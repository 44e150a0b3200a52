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
		Name:  "history",
		Args:  "[--json] [FILE]",
		Short: "show the evolution lineage of a file (or of every file)",
		Long: `History prints the evolution ledger's events for FILE (every file when none
is given): its proposals, assessments, commits and rollbacks, with the
lineage tree of commits and rollbacks (each under the event whose result it
started from).

With --json it prints {"files": [{"path", "events": [...], "lineage":
[{"event", "children": [...]}]}]}; events are as in the ledger
(docs/propose.md).`,
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
				if *jsonOut {
					return printJSON(c, h)
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
					pending := 0
					for _, e := range f.Events {
						if e.Kind == "propose" {
							pending++
						}
					}
					fmt.Fprintf(c.Stdout, "  (%d event(s), %d proposal(s))\n", len(f.Events), pending)
				}
				return cli.ExitOK
			}
		},
	})
}

func eventLine(e evolution.Event) string {
	s := fmt.Sprintf("%s %s %s", e.ID, e.Time, e.Kind)
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
