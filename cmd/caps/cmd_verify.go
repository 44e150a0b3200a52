package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/verify"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/syntax"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "verify-report",
		Output:   func() cli.Schema { return report.ResultSchema(verifyReportJSON{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports", "the cache of verdicts (caps/verify under the user's cache folder)"}, Writes: []string{"the cache of verdicts (not with --no-cache)"}, Runs: []string{"z3"}},
		Example:  cli.Example{Line: "caps verify-report --json examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps verify-report --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--format text|json] [--json] [--rlimit N] [--timeout D] [--jobs N] [--no-cache] FILE",
		Short:    "generate a module's proof obligations and discharge them with Z3",
		Long: `Verify-report checks FILE, generates its proof obligations and puts each
to the Z3 SMT solver: every ensures clause of a function, that each
function body cannot fail on inputs its requires admit, every function
example, that each machine guard and assignment cannot fail, and that
each zk-proof claim can be satisfied and cannot fail.

Each obligation ends discharged (proved), failed (the solver found a
counterexample; the interpreter is then run on it and the report says
whether it confirms the failure) or open (outside what the encoding
covers, or the solver ran out of its budget: "open (timeout)"). The
encoding is exact for Bool, the fixed-width integers with their
wrap-around, division and failure rules, enums, records, variants,
options, Text and lists, calls of imported functions and effect
intents. upper, lower and trim are functions the solver does not
interpret, with facts from the interpreter: a counterexample that
relies on them counts only when the interpreter confirms it, else the
obligation stays open ("abstraction"). docs/verification.md describes
the obligations and the report.

Each obligation's budget is a count of Z3's own steps (--rlimit), so the
report does not depend on the machine's load; --timeout is a wall-clock
cap on top of it. Verdicts are kept in a cache under the user's cache
folder (caps/verify), by the digest of the solver's queries, and a
repeated run answers unchanged obligations from it; --no-cache neither
reads nor writes it.

The text report goes to stdout; --format json (or --json) prints one JSON
document instead (docs/cli.md). Exit 0 when no obligation failed, 1 when
FILE has errors or an obligation failed, 2 on a usage or I/O error or
when z3 is not installed (Debian package z3).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			format := fs.String("format", "text", "output `FORMAT`: text or json")
			jsonOut := fs.Bool("json", false, "same as --format json")
			sf := solverFlags(fs)
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				asJSON, code := formatFlag(c, *format, *jsonOut)
				if code != 0 {
					return code
				}
				if code := sf.check(c); code != 0 {
					return code
				}
				return runVerifyReport(c, args[0], asJSON, sf)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "refinement-report",
		Output:   func() cli.Schema { return report.ResultSchema(refinementJSON{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports", "the cache of verdicts (caps/verify under the user's cache folder)"}, Writes: []string{"the cache of verdicts (not with --no-cache)"}, Runs: []string{"z3"}},
		Example:  cli.Example{Line: "caps refinement-report --json examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps refinement-report --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--require-closed] [--json] [--rlimit N] [--timeout D] [--jobs N] [--no-cache] FILE",
		Short:    "report a module's verification evidence level by level",
		Long: `Refinement-report collects the evidence FILE has on the verification
ladder: V0 its canonical IR and semantic hash, V1 the type and effect
check, V2 its function examples run by the interpreter (evidence, not
proof), and V3 its proof obligations put to Z3 (as caps verify-report).
The module is closed when every example passes and every obligation is
discharged; the report lists what keeps it open.

With --require-closed the exit code is 1 while anything is open or failed,
so that CI can hold a module to closed evidence. Without it the exit code
is 1 only when FILE has errors, an example fails or an obligation fails.
Backend artifacts (Wasm, RISC-V) are not covered yet. --json prints one
JSON document (docs/cli.md). --rlimit, --timeout, --jobs and --no-cache
are those of caps verify-report. Exit 2 on a usage or I/O error or when
z3 is not installed (Debian package z3).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			requireClosed := fs.Bool("require-closed", false, "exit 1 while any example or obligation is not closed")
			jsonOut := fs.Bool("json", false, "print a JSON document on stdout")
			sf := solverFlags(fs)
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				if code := sf.check(c); code != 0 {
					return code
				}
				return runRefinementReport(c, args[0], *jsonOut, *requireClosed, sf)
			}
		},
	})
}

// formatFlag reads --format and --json.
func formatFlag(c *cli.Context, format string, jsonFlag bool) (bool, int) {
	switch format {
	case "json":
		return true, 0
	case "text":
		return jsonFlag, 0
	}
	return false, c.UsageErrorf("--format must be text or json, not %q", format)
}

// solverOptions are the flags verify-report and refinement-report share.
type solverOptions struct {
	rlimit  *uint64
	timeout *time.Duration
	jobs    *int
	noCache *bool
}

func solverFlags(fs *flag.FlagSet) *solverOptions {
	return &solverOptions{
		rlimit:  fs.Uint64("rlimit", verify.DefaultRlimit, "solver budget per obligation, in Z3 resource units (`N`; the same verdicts whatever the load)"),
		timeout: fs.Duration("timeout", verify.DefaultTimeout, "wall-clock cap per obligation (`DURATION`)"),
		jobs:    fs.Int("jobs", 0, "solver processes run at once (0: one per CPU)"),
		noCache: fs.Bool("no-cache", false, "neither read nor write the cache of verdicts"),
	}
}

func (o *solverOptions) check(c *cli.Context) int {
	switch {
	case *o.timeout <= 0:
		return c.UsageErrorf("--timeout must be positive")
	case *o.rlimit == 0:
		return c.UsageErrorf("--rlimit must be positive")
	case *o.jobs < 0:
		return c.UsageErrorf("--jobs must be 0 (one per CPU) or more")
	}
	return 0
}

// solver finds z3 and sets it up as the flags say. The cache is left out
// when the user has no cache folder.
func (o *solverOptions) solver() (*verify.Solver, error) {
	s, err := verify.FindSolver()
	if err != nil {
		return nil, err
	}
	s.Timeout, s.Rlimit = *o.timeout, *o.rlimit
	if !*o.noCache {
		if dir, err := verify.DefaultCacheDir(); err == nil {
			s.Cache = &verify.Cache{Dir: dir}
		}
	}
	return s, nil
}

// verified is a loaded, checked and verified module.
type verified struct {
	pkg    *load.Package
	src    *report.Source
	report *verify.Report
}

// loadAndVerify loads and verifies path. On failure it has reported
// through p and returns nil.
func loadAndVerify(c *cli.Context, p *report.Printer, path string, opts *solverOptions) *verified {
	pkg := loadModule(c, p, path)
	if pkg == nil {
		return nil
	}
	src := packageSource(path, pkg)
	solver, err := opts.solver()
	if err != nil {
		p.Fail(path, err)
		return nil
	}
	r, err := verify.Verify(context.Background(), pkg.Result, verify.Options{Solver: solver, Jobs: *opts.jobs})
	if err != nil {
		if errors.Is(err, verify.ErrModuleHasErrors) {
			p.Add(src, pkg.Result.Diagnostics)
			return nil
		}
		p.Fail(path, err)
		return nil
	}
	return &verified{pkg: pkg, src: src, report: r}
}

// summaryJSON counts a report's obligations by status.
type summaryJSON struct {
	Obligations int `json:"obligations"`
	Discharged  int `json:"discharged"`
	Open        int `json:"open"`
	Failed      int `json:"failed"`
}

func summaryOf(r *verify.Report) summaryJSON {
	d, o, f := r.Counts()
	return summaryJSON{Obligations: len(r.Obligations), Discharged: d, Open: o, Failed: f}
}

type verifyReportJSON struct {
	Module      string               `json:"module"`
	Solver      string               `json:"solver"`
	Summary     summaryJSON          `json:"summary"`
	Obligations []*verify.Obligation `json:"obligations"`
}

func runVerifyReport(c *cli.Context, path string, asJSON bool, opts *solverOptions) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, asJSON)
	v := loadAndVerify(c, p, path, opts)
	if v == nil {
		return p.Finish()
	}
	f := p.Add(v.src, v.pkg.Result.Diagnostics) // warnings
	r := v.report
	if r.Obligations == nil {
		r.Obligations = []*verify.Obligation{}
	}
	f.Extra = verifyReportJSON{Module: r.Module, Solver: r.Solver, Summary: summaryOf(r), Obligations: r.Obligations}
	if _, _, failed := r.Counts(); failed > 0 {
		p.SetFailed()
	}
	if !asJSON {
		writeVerifyText(c, v)
	}
	return p.Finish()
}

// writeVerifyText prints the text report: a summary line, then one line
// per obligation with its position, status, id and claim, and for a
// failed one its counterexample and the interpreter's verdict.
func writeVerifyText(c *cli.Context, v *verified) {
	r := v.report
	s := summaryOf(r)
	name := cli.DisplayPath(v.src.Path)
	fmt.Fprintf(c.Stdout, "%s: module %s: %d obligation%s: %d discharged, %d open, %d failed (%s)\n",
		name, r.Module, s.Obligations, plural(s.Obligations), s.Discharged, s.Open, s.Failed, r.Solver)
	conv := v.src.Mapper().Cursor(syntax.UTF32)
	for _, o := range r.Obligations {
		pos := conv.Point(o.Span.Start)
		status := string(o.Status)
		if o.Status == verify.Open && o.Reason == "timeout" {
			status = "open (timeout)"
		}
		fmt.Fprintf(c.Stdout, "%s:%s: %s %s %s\n", name, pos, status, o.ID, o.Claim)
		switch o.Status {
		case verify.Open:
			if o.Reason != "timeout" {
				fmt.Fprintf(c.Stdout, "    %s\n", o.Reason)
			}
		case verify.Failed:
			fmt.Fprintf(c.Stdout, "    %s\n", o.Reason)
			if len(o.Counterexample) > 0 {
				var parts []string
				for _, b := range o.Counterexample {
					parts = append(parts, b.Name+" = "+b.Value)
				}
				fmt.Fprintf(c.Stdout, "    counterexample: %s\n", strings.Join(parts, ", "))
			}
			if cf := o.Confirmation; cf != nil {
				verdict := "not confirmed"
				if cf.Confirmed {
					verdict = "confirmed"
				}
				fmt.Fprintf(c.Stdout, "    interpreter: %s: %s\n", verdict, cf.Detail)
			}
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ---- refinement-report

type examplesJSON struct {
	Total  int `json:"total"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

type unclosedJSON struct {
	ID     string       `json:"id"`
	Kind   string       `json:"kind"`
	Status string       `json:"status"`
	Reason string       `json:"reason"`
	Range  syntax.Range `json:"range"`
	span   syntax.Span
}

type refinementJSON struct {
	Module       string         `json:"module"`
	SemanticHash string         `json:"semantic_hash"`
	Solver       string         `json:"solver"`
	Levels       []levelJSON    `json:"levels"`
	Closed       bool           `json:"closed"`
	Unclosed     []unclosedJSON `json:"unclosed"`
}

type levelJSON struct {
	Level    string `json:"level"`
	Name     string `json:"name"`
	Status   string `json:"status"` // "closed" or "open"
	Evidence string `json:"evidence"`
}

func runRefinementReport(c *cli.Context, path string, asJSON, requireClosed bool, opts *solverOptions) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, asJSON)
	v := loadAndVerify(c, p, path, opts)
	if v == nil {
		return p.Finish()
	}
	f := p.Add(v.src, v.pkg.Result.Diagnostics)
	hash, err := load.IROptions(v.pkg.Result).Hash(v.pkg.File.Module)
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	// V2: the function examples, run by the interpreter.
	ex := examplesJSON{Total: len(v.pkg.Result.Examples)}
	var unclosed []unclosedJSON
	conv := v.src.Mapper().Cursor(syntax.UTF16)
	for _, d := range evaluateExamples(v.pkg) {
		if d.Severity == syntax.Error {
			ex.Failed++
			unclosed = append(unclosed, unclosedJSON{Kind: "example-run", Status: "failed", Reason: d.Message, Range: conv.Range(d.Span), span: d.Span})
		}
	}
	ex.Passed = ex.Total - ex.Failed
	r := v.report
	s := summaryOf(r)
	for _, o := range r.Obligations {
		if o.Status != verify.Discharged {
			unclosed = append(unclosed, unclosedJSON{ID: o.ID, Kind: string(o.Kind), Status: string(o.Status), Reason: o.Reason, Range: o.Range, span: o.Span})
		}
	}
	status := func(ok bool) string {
		if ok {
			return "closed"
		}
		return "open"
	}
	levels := []levelJSON{
		{"V0", "canonical IR", "closed", hash},
		{"V1", "type and effect check", "closed", "no errors"},
		{"V2", "examples run by the interpreter", status(ex.Failed == 0), fmt.Sprintf("%d of %d passed", ex.Passed, ex.Total)},
		{"V3", "proof obligations", status(s.Open == 0 && s.Failed == 0), fmt.Sprintf("%d discharged, %d open, %d failed", s.Discharged, s.Open, s.Failed)},
	}
	closed := ex.Failed == 0 && s.Open == 0 && s.Failed == 0
	if unclosed == nil {
		unclosed = []unclosedJSON{}
	}
	f.Extra = refinementJSON{Module: r.Module, SemanticHash: hash, Solver: r.Solver, Levels: levels, Closed: closed, Unclosed: unclosed}
	if ex.Failed > 0 || s.Failed > 0 || requireClosed && !closed {
		p.SetFailed()
	}
	if !asJSON {
		name := cli.DisplayPath(v.src.Path)
		fmt.Fprintf(c.Stdout, "%s: module %s\n", name, r.Module)
		for _, l := range levels {
			fmt.Fprintf(c.Stdout, "  %s %-32s %-6s %s\n", l.Level, l.Name, l.Status, l.Evidence)
		}
		if closed {
			fmt.Fprintf(c.Stdout, "closed: every example passes and every obligation is discharged (%s)\n", r.Solver)
		} else {
			fmt.Fprintf(c.Stdout, "not closed: %d item%s open or failed\n", len(unclosed), plural(len(unclosed)))
			text := v.src.Mapper().Cursor(syntax.UTF32)
			for _, u := range unclosed {
				id := u.ID
				if id == "" {
					id = u.Kind
				}
				fmt.Fprintf(c.Stdout, "  %s:%s: %s %s: %s\n", name, text.Point(u.span.Start), u.Status, id, u.Reason)
			}
		}
	}
	return p.Finish()
}
