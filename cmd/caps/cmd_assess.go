package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "assess",
		Output:   func() cli.Schema { return cli.SchemaOf(propose.Assessment{}) },
		Effects:  cli.Effects{Reads: []string{"the proposal ID under .caps/proposals", "the workspace's files and policy"}, Writes: []string{"the workspace's evolution ledger (.caps/ledger)"}, Runs: []string{"the workspace policy's validation commands"}},
		Example:  cli.Example{Line: "caps assess --json $PROPOSAL"},
		Negative: cli.Example{Line: "caps assess --json p-0000000000000000", Exit: 2},
		Args:     "[--json] ID",
		Short:    "assess a proposal: checks, tests, authority delta, governance, verdict",
		Long: `Assess runs a proposal's candidate files (never the live ones) through the
checker, the examples, the other tests the workspace has, the module's own
governance (successor contracts, gates, budgets) and the workspace policy,
and gives a verdict: pass, needs-approval (authority expansion, a gate or
successor contract that needs a person's approval), incomplete (evidence a
gate or successor contract requires is missing; an approval cannot stand
in for it) or fail, with reasons and a confidence score. The assessment is
stored with the proposal and recorded in the evolution ledger. It exits
with 1 when the verdict is fail or incomplete: such a proposal cannot be
committed.

A broken evolution ledger (one whose hash chain does not verify: see caps
ledger verify) is refused with exit code 1 before anything is written.

With --json it prints {"id", "verdict", "reasons", "confidence",
"blast_radius", "parent_hash", "candidate_hash", "diff_hash",
"authority_delta", "diagnostics", "tests", "governance",
"approvals_required", "unmet", "files", ...}; see docs/propose.md.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			ws := fs.String("workspace", "", "the workspace root `DIR`")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one proposal ID")
				}
				w, code := openEvolution(c, *ws)
				if w == nil {
					return code
				}
				a, err := w.Assess(args[0])
				if err != nil {
					return evolutionError(c, err)
				}
				code = cli.ExitOK
				if a.Verdict == propose.Fail || a.Verdict == propose.Incomplete {
					code = cli.ExitFail
				}
				if *jsonOut {
					printJSON(c, a)
					return code
				}
				printAssessment(c, a)
				return code
			}
		},
	})
}

func printAssessment(c *cli.Context, a *propose.Assessment) {
	out := c.Stdout
	fmt.Fprintf(out, "%s: %s (confidence %.3f)\n", a.ID, a.Verdict, a.Confidence)
	for _, r := range a.Reasons {
		fmt.Fprintf(out, "  %s: %s\n", r.Level, r.Message)
	}
	for _, ap := range a.Approvals {
		role := ap.Role
		if role == "" {
			role = "any approver"
		}
		fmt.Fprintf(out, "  approval needed: %s (%s)\n", role, ap.Reason)
	}
	fmt.Fprintf(out, "blast radius: %d file(s), %d line(s) (+%d -%d)\n", a.BlastRadius.Files, a.BlastRadius.Lines, a.BlastRadius.Added, a.BlastRadius.Removed)
	fmt.Fprintf(out, "hashes: %s -> %s (diff %s)\n", orDash(a.ParentHash), orDash(a.CandidateHash), a.DiffHash)
	if len(a.AuthorityDelta.Added)+len(a.AuthorityDelta.Removed) > 0 {
		fmt.Fprintln(out, "authority:")
		for _, it := range a.AuthorityDelta.Added {
			fmt.Fprintf(out, "  + %s\n", authorityText(it))
		}
		for _, it := range a.AuthorityDelta.Removed {
			fmt.Fprintf(out, "  - %s\n", authorityText(it))
		}
	}
	d := a.Diagnostics
	fmt.Fprintf(out, "diagnostics: %d error(s) before, %d after; %d new, %d resolved\n", d.Before.Errors, d.After.Errors, len(d.New), len(d.Resolved))
	for _, x := range d.New {
		fmt.Fprintf(out, "  new %s:%d:%d: %s %s\n", x.Path, x.Line, x.Column, x.Code, x.Message)
	}
	for _, x := range d.Resolved {
		fmt.Fprintf(out, "  resolved %s:%d: %s %s\n", x.Path, x.Line, x.Code, x.Message)
	}
	for _, t := range []struct {
		name string
		r    propose.TestReport
	}{{"examples", a.Tests.Examples}, {"scenarios", a.Tests.Scenarios}, {"replay", a.Tests.Replay}, {"validation", a.Tests.Validation}} {
		line := fmt.Sprintf("%s: %s", t.name, t.r.Status)
		if t.r.Total > 0 {
			line += fmt.Sprintf(" (%d passed, %d failed of %d)", t.r.Passed, t.r.Failed, t.r.Total)
		}
		if t.r.Reason != "" {
			line += ": " + t.r.Reason
		}
		fmt.Fprintln(out, line)
	}
	for _, g := range a.Governance.Gates {
		fmt.Fprintf(out, "gate %s: %s", g.Name, g.Status)
		if len(g.Missing) > 0 {
			fmt.Fprintf(out, "; missing: %s", strings.Join(g.Missing, ", "))
		}
		if len(g.Failed) > 0 {
			fmt.Fprintf(out, "; failed: %s", strings.Join(g.Failed, ", "))
		}
		fmt.Fprintln(out)
	}
	for _, r := range a.Unmet {
		fmt.Fprintf(out, "unmet (%s): %s\n", r.Status, r)
	}
	switch a.Verdict {
	case propose.Pass:
		fmt.Fprintf(out, "next: caps commit %s\n", a.ID)
	case propose.NeedsApproval:
		fmt.Fprintf(out, "next: caps commit %s --approve NAME\n", a.ID)
	case propose.Incomplete:
		fmt.Fprintln(out, "next: supply the missing evidence (docs/propose.md, Governance), then assess again; approvals cannot stand in for it")
	}
}

func authorityText(it propose.AuthorityItem) string {
	s := fmt.Sprintf("%s %s %s", it.Change, it.Kind, it.Name)
	if it.In != "" && it.In != "module" {
		s += " in " + it.In
	}
	switch {
	case it.From == "" && it.To == "removed":
		s += " (restriction removed)"
	case it.From != "" || it.To != "":
		s += fmt.Sprintf(" (%s -> %s)", orDash(it.From), orDash(it.To))
	}
	return it.Path + ": " + s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
