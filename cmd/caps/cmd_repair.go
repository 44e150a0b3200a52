package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/repair"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/syntax"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "repair-plan",
		Output:   func() cli.Schema { return report.ResultSchema(repairPlanExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps repair-plan --json examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps repair-plan --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--json] FILE",
		Short:    "list typed repair options for each diagnostic",
		Long: `Repair-plan checks FILE ("-" for stdin) and, for each diagnostic it can
repair, lists options with a safety label and the exact text edits that
remove it:

    safe               cannot change meaning beyond fixing the mistake
    review             changes meaning; wants a human look
    expands-authority  widens what the capsule may do (effects, profiles)

With --json it prints
    {"ok", "files": [{"path", "diagnostics": [...], "plans": [
        {"diagnostic": {...}, "options": [
            {"id", "title", "safety", "edits": [{"range", "newText"}]}]}]}]}
Nothing is written; apply an option with an editor or caps propose.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runRepairPlan(c, args[0], *jsonOut)
			}
		},
	})
}

type editJSON struct {
	Range   syntax.Range `json:"range"`
	NewText string       `json:"newText"`
}

type optionJSON struct {
	ID     string     `json:"id"`
	Title  string     `json:"title"`
	Safety string     `json:"safety"`
	Why    string     `json:"why,omitempty"`
	Edits  []editJSON `json:"edits"`
}

type planJSON struct {
	Diagnostic report.Diagnostic `json:"diagnostic"`
	Options    []optionJSON      `json:"options"`
}

func runRepairPlan(c *cli.Context, path string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, err := newLoader(c).Load(path)
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	lines := pkg.File.Source.CST.Lines
	diags := checkedDiagnostics(pkg)
	plans := repair.Plans(repair.Input{File: pkg.File, Result: pkg.Result, Diagnostics: diags, Evaluated: evaluatedValues(pkg)})
	plans = rerankPlans(path, plans)
	conv := lines.Cursor(syntax.UTF16)
	out := []planJSON{}
	for _, pl := range plans {
		d := pl.Diagnostic
		pj := planJSON{Diagnostic: report.Diagnostic{Code: d.Code, Severity: d.Severity.String(), Message: d.Message, Range: conv.Range(d.Span), Related: []report.Related{},
			Suggestion: d.Suggestion, Fix: report.FixOf(d)}}
		for _, o := range pl.Options {
			oj := optionJSON{ID: o.ID, Title: o.Title, Safety: o.Safety, Why: o.Why, Edits: []editJSON{}}
			for _, e := range o.Edits {
				oj.Edits = append(oj.Edits, editJSON{Range: lines.Range(e.Span, syntax.UTF16), NewText: e.NewText})
			}
			pj.Options = append(pj.Options, oj)
		}
		out = append(out, pj)
	}
	if jsonOut {
		f := p.Add(&report.Source{Path: path, Text: pkg.Src, Lines: lines}, diags)
		f.Extra = repairPlanExtra{out}
		return p.Finish()
	}
	for _, pl := range plans {
		fmt.Fprintf(c.Stdout, "%s:%s: %s %s\n", cli.DisplayPath(path), lines.Point(pl.Diagnostic.Span.Start), pl.Diagnostic.Code, pl.Diagnostic.Message)
		for i, o := range pl.Options {
			fmt.Fprintf(c.Stdout, "  %d. [%s] %s\n", i+1, o.Safety, o.Title)
			if o.Why != "" {
				fmt.Fprintf(c.Stdout, "       why: %s\n", o.Why)
			}
			for _, e := range o.Edits {
				fmt.Fprintf(c.Stdout, "       %s-%s -> %q\n", lines.Point(e.Span.Start), lines.Point(max(e.Span.End, e.Span.Start)), strings.TrimSpace(e.NewText))
			}
		}
	}
	if len(plans) == 0 {
		fmt.Fprintln(c.Stdout, "no repairs to offer")
	}
	for _, d := range diags {
		if d.Severity == syntax.Error {
			return cli.ExitFail
		}
	}
	return cli.ExitOK
}

// rerankPlans reorders options by what the workspace's evolution ledger
// learned (cmd_propose.go sets it).
var rerankPlans = func(path string, plans []repair.Plan) []repair.Plan { return plans }

// evaluatedValues returns the interpreter's values for failing examples;
// the runtime's command file replaces it.
var evaluatedValues = func(pkg *load.Package) map[syntax.Span]string { return nil }

// repairPlanExtra is the JSON output of this command (see its Output schema).
type repairPlanExtra struct {
	Plans []planJSON `json:"plans"`
}
