package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/analysis/repair"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/runtime/evolution"
	"github.com/capsulang/caps/syntax"
)

// This file holds caps propose and what the evolution commands (propose,
// assess, commit, rollback, history, ledger) share: finding the workspace
// and printing JSON.

func init() {
	cli.Register(&cli.Command{
		Name:     "propose",
		Output:   func() cli.Schema { return cli.SchemaOf(proposeJSON{}) },
		Effects:  cli.Effects{Reads: []string{"--target FILE and the candidate, patch, repair or delta", "the workspace's policy"}, Writes: []string{"the workspace .caps folder (proposals, ledger)"}},
		Example:  cli.Example{Line: "caps propose --json --target examples/04_bad_missing_effect.caps --repair E_EFFECT_NOT_DECLARED@28"},
		Negative: cli.Example{Line: "caps propose --json --target examples/04_bad_missing_effect.caps --repair E_EFFECT_NOT_DECLARED@1", Exit: 2},
		Args:     "--target FILE (--candidate NEW.caps | --patch DIFF | --repair CODE@LINE[:OPTION] | --delta DELTA.json) [--by NAME] [--reason TEXT] [--json | --quiet]",
		Short:    "record a proposed change of .caps files without applying it",
		Long: `Propose records a change of one or more .caps files of the workspace under
.caps/proposals/ID/ and prints its id; no workspace file changes. The change
comes from exactly one of:

    --candidate NEW.caps         the whole new content of --target
    --patch DIFF                 a unified diff (one file: applied to --target;
                                 several: paths relative to the workspace root)
    --repair CODE@LINE[:OPTION]  a repair-plan option for the diagnostic CODE on
                                 LINE of --target (the first option by default)
    --delta DELTA.json           a structured authoring delta (docs/propose.md)

"-" reads the candidate, patch or delta from standard input. Targets outside
the workspace, inside .git/ or .caps/, symbolic links, files that are not
.caps files and the policy's forbidden paths are refused.

A broken evolution ledger (one whose hash chain does not verify: see caps
ledger verify) is refused with exit code 1 before anything is written.

The workspace root is --workspace DIR, or else the nearest folder at or
above the current one that holds .caps/ or .git/.

With --json it prints {"id", "files": [...], "signals": [...]}; with --quiet
(-q) only the id and a newline, for scripts: id=$(caps propose --quiet ...).
Next:
caps assess ID, then caps commit ID. See docs/propose.md.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			quiet := fs.Bool("quiet", false, "print only the proposal id")
			fs.BoolVar(quiet, "q", false, "print only the proposal id")
			ws := fs.String("workspace", "", "the workspace root `DIR`")
			var targets stringList
			fs.Var(&targets, "target", "the `FILE` to change (repeatable for a patch)")
			candidate := fs.String("candidate", "", "the new content of the target, from `FILE`")
			patch := fs.String("patch", "", "a unified diff, from `FILE`")
			rep := fs.String("repair", "", "a repair option `CODE@LINE[:OPTION]`")
			delta := fs.String("delta", "", "an authoring delta, from `FILE`")
			by := fs.String("by", "", "who proposes it (default $USER)")
			reason := fs.String("reason", "", "why")
			return func(c *cli.Context, args []string) int {
				if len(args) != 0 {
					return c.UsageErrorf("unexpected argument %q", args[0])
				}
				req := propose.Request{Targets: targets, By: *by, Reason: *reason}
				n := 0
				for _, s := range []string{*candidate, *patch, *rep, *delta} {
					if s != "" {
						n++
					}
				}
				if n != 1 {
					return c.UsageErrorf("give exactly one of --candidate, --patch, --repair and --delta")
				}
				if *jsonOut && *quiet {
					return c.UsageErrorf("--json and --quiet cannot be combined")
				}
				if len(targets) == 0 && *patch == "" {
					return c.UsageErrorf("--target FILE is required")
				}
				var err error
				switch {
				case *candidate != "":
					req.Kind = propose.FromCandidate
					req.Candidate, err = readInput(c, *candidate)
				case *patch != "":
					req.Kind = propose.FromPatch
					req.Patch, err = readInput(c, *patch)
				case *delta != "":
					req.Kind = propose.FromDelta
					req.Delta, err = readInput(c, *delta)
				default:
					req.Kind = propose.FromRepair
					req.Repair, err = propose.ParseRepairRef(*rep)
					if err != nil {
						return c.UsageErrorf("%v", err)
					}
				}
				if err != nil {
					c.Errorf("%v", err)
					return cli.ExitUsage
				}
				if req.By == "" {
					req.By = os.Getenv("USER")
				}
				w, code := openEvolution(c, *ws)
				if w == nil {
					return code
				}
				p, err := w.Propose(req)
				if err != nil {
					return evolutionError(c, err)
				}
				if *jsonOut {
					files := []string{}
					for _, f := range p.Files {
						files = append(files, f.Path)
					}
					return printJSON(c, proposeJSON{p.ID, files, p.Signals})
				}
				if *quiet {
					fmt.Fprintln(c.Stdout, p.ID)
					return cli.ExitOK
				}
				fmt.Fprintf(c.Stdout, "proposed %s\n", p.ID)
				for _, f := range p.Files {
					add, rem := propose.LineStats(f.Base, f.Candidate)
					fmt.Fprintf(c.Stdout, "  %s (+%d -%d)\n", f.Path, add, rem)
				}
				fmt.Fprintf(c.Stdout, "next: caps assess %s\n", p.ID)
				return cli.ExitOK
			}
		},
	})
	// caps repair-plan ranks learned options first.
	rerankPlans = func(path string, plans []repair.Plan) []repair.Plan {
		root, err := propose.FindRoot(filepath.Dir(path))
		if err != nil {
			return plans
		}
		if _, err := os.Stat(filepath.Join(root, propose.MetaDir)); err != nil {
			return plans
		}
		w, err := evolution.Open(root, evolutionOptions())
		if err != nil {
			return plans
		}
		return w.Rerank(plans)
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// readInput reads a flag's file argument; "-" is standard input.
func readInput(c *cli.Context, path string) ([]byte, error) {
	f, err := c.Load(path)
	if err != nil {
		return nil, err
	}
	return f.Text, nil
}

// evolutionOptions are the options every evolution command uses: the
// CLI's import roots and example evaluation.
func evolutionOptions() evolution.Options {
	opts := evolution.Options{ImportRoots: load.EnvRoots()}
	opts.Hooks.Examples = func(pkg *load.Package) []syntax.Diagnostic { return evaluateExamples(pkg) }
	opts.Hooks.Evaluated = func(pkg *load.Package) map[syntax.Span]string { return evaluatedValues(pkg) }
	opts.CapsPath = validationCaps
	if opts.CapsPath == "" {
		if exe, err := os.Executable(); err == nil && filepath.Base(exe) == "caps" {
			opts.CapsPath = exe
		}
	}
	return opts
}

// validationCaps, when set (by tests), is the caps binary validation
// commands run.
var validationCaps string

// openEvolution opens the workspace of --workspace DIR or of the current
// folder.
func openEvolution(c *cli.Context, dir string) (*evolution.Workspace, int) {
	root := dir
	if root == "" {
		wd, err := os.Getwd()
		if err == nil {
			root, err = propose.FindRoot(wd)
		}
		if err != nil {
			c.Errorf("%v", err)
			return nil, cli.ExitUsage
		}
	}
	w, err := evolution.Open(root, evolutionOptions())
	if err != nil {
		c.Errorf("%v", err)
		return nil, cli.ExitUsage
	}
	return w, cli.ExitOK
}

// evolutionError reports an error of the workflow: refusals exit with 1,
// other errors with 2.
func evolutionError(c *cli.Context, err error) int {
	c.Errorf("%v", err)
	var re *evolution.RefusedError
	var pe *propose.PathError
	var se *propose.SchemaError // a delta that does not validate is bad input
	if errors.As(err, &re) || errors.As(err, &pe) || errors.As(err, &se) {
		return cli.ExitFail
	}
	return cli.ExitUsage
}

func printJSON(c *cli.Context, v any) int {
	b, err := report.Marshal(v)
	if err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	c.Stdout.Write(append(b, '\n'))
	return cli.ExitOK
}

// proposeJSON is the JSON output of this command (see its Output schema).
type proposeJSON struct {
	ID      string   `json:"id"`
	Files   []string `json:"files"`
	Signals []string `json:"signals"`
}
