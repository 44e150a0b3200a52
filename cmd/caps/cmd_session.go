package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/docs/schemas"
	"github.com/capsulang/caps/runtime/evolution"
	"github.com/capsulang/caps/runtime/session"
	"github.com/capsulang/caps/runtime/session/bridge"
	"github.com/capsulang/caps/syntax"
)

// caps session: authoring sessions (runtime/session) and the LLM bridge
// (runtime/session/bridge). This file only parses and prints.

// sessionFlags lists the flags each subcommand takes (besides --workspace).
var sessionFlags = map[string][]string{
	"new":        {"target", "id", "by", "json"},
	"apply":      {"session", "by", "json"},
	"resolve":    {"session", "by", "json"},
	"describe":   {"session", "by", "timeout", "json"},
	"show":       {"session", "json"},
	"synthesize": {"session", "step", "json"},
	"propose":    {"session", "by", "reason", "json", "quiet", "q"},
	"list":       {"json"},
	"schema":     {},
}

func init() {
	cli.Register(&cli.Command{
		Name: "session",
		Output: func() cli.Schema {
			return cli.OneOf(report.ResultSchema(sessionStatus{}), cli.SchemaOf(sessionNewJSON{}), cli.SchemaOf(sessionProposeJSON{}),
				cli.SchemaOf(sessionShowJSON{}), cli.SchemaOf([]session.Entry{}))
		},
		Effects:  cli.Effects{Reads: []string{"the workspace .caps folder", "FILE", "stdin", "OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY (describe)"}, Writes: []string{"the workspace .caps folder (.caps/sessions, .caps/proposals)"}, Network: true},
		Example:  cli.Example{Line: "caps session new --target examples/01_abs_i64.caps --json"},
		Negative: cli.Example{Line: "caps session resolve h1=yes --session nosuch --json", Exit: 2, Note: "no such session"},
		Also:     []cli.Example{{Line: "caps session list --json"}},
		Args:     "new --target FILE | apply DELTA.json | resolve HOLE=ANSWER | describe TEXT | show | synthesize | propose | list | schema [--session ID] [--json]",
		Short:    "author a module step by step from structured deltas",
		Long: `Session keeps an authoring session: a replayable record, under
.caps/sessions/ID/, of the authoring deltas applied to one module file, the
answers to its open holes, and the source synthesized after each step
(docs/authoring.md).

    new --target FILE [--id ID]  start a session on FILE (which may not exist
                                 yet) and make it the current one
    apply DELTA.json             apply an authoring delta ("-": standard input)
    resolve HOLE=ANSWER          answer an open hole (h1, h2, ... as show lists)
    describe TEXT                ask a model for a delta from TEXT ("-": standard
                                 input) and apply it (the LLM bridge, below)
    show                         the steps and the holes
    synthesize [--step N]        print the current source (or the one after step
                                 N); its diagnostics go to standard error, exit
                                 code 1 when it has errors
    propose [--by NAME] [--reason TEXT]
                                 propose the session's delta for its file: then
                                 caps assess ID and caps commit ID
    list                         the workspace's sessions (* is the current one)
    schema                       print the AuthoringDelta JSON Schema

Every delta is validated against the published schema
(docs/schemas/authoring-delta.v1.schema.json); one that does not validate
is refused with the path of each problem, in the delta and in the schema.
A delta or answer that does not synthesize is refused too. Refused input
changes nothing: a step is written whole or not at all. A session never
writes the module file: propose hands it to the workflow of caps propose.

Every command verifies the session first: a folder whose hash chain does
not verify, or whose steps no longer replay to the recorded sources, is
refused with exit code 1, naming the file.

describe speaks the OpenAI-compatible chat-completions API with the schema
as structured output: OPENAI_BASE_URL (default https://api.openai.com/v1),
OPENAI_MODEL and OPENAI_API_KEY. The answer is applied only if it
validates and synthesizes; otherwise the description and the answer are
kept under .caps/sessions/ID/attempts/ and the command exits with 1.

The session is --session ID, or else the current one. The workspace is
--workspace DIR, or else the nearest folder at or above the current one
that holds .caps/ or .git/.

With --json, apply, resolve, describe and synthesize print the report of
caps check for the synthesized source, {"ok", "files": [{"path",
"diagnostics", "session", "step", "source_sha256", "semantic_hash",
"holes"}]} (synthesize adds "source"; the others "applied", the step
record); show prints {"session", "steps", "holes", "head"}; new prints
{"session", "target", "base_exists"}; propose {"id", "session", "files",
"open_holes"}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			quiet := fs.Bool("quiet", false, "propose: print only the proposal id")
			fs.BoolVar(quiet, "q", false, "propose: print only the proposal id")
			ws := fs.String("workspace", "", "the workspace root `DIR`")
			sid := fs.String("session", "", "the session `ID` (default: the current one)")
			target := fs.String("target", "", "new: the module `FILE`")
			id := fs.String("id", "", "new: the session's `ID` (default: random)")
			by := fs.String("by", "", "the `NAME` of who does it (default $USER; for describe, llm:MODEL)")
			reason := fs.String("reason", "", "propose: why, as `TEXT`")
			timeout := fs.Duration("timeout", bridge.DefaultTimeout, "describe: how long to wait for the model")
			stepN := fs.Int("step", -1, "synthesize: the source after step `N` (default: the last)")
			return func(c *cli.Context, args []string) int {
				if len(args) == 0 {
					return c.UsageErrorf("expected a subcommand: new, apply, resolve, describe, show, synthesize, propose, list or schema")
				}
				sub, args := args[0], args[1:]
				allowed, ok := sessionFlags[sub]
				if !ok {
					return c.UsageErrorf("unknown subcommand %q", sub)
				}
				var bad string
				fs.Visit(func(f *flag.Flag) {
					if f.Name != "workspace" && !slices.Contains(allowed, f.Name) && bad == "" {
						bad = f.Name
					}
				})
				if bad != "" {
					return c.UsageErrorf("--%s does not apply to session %s", bad, sub)
				}
				wantArgs := map[string]int{"apply": 1, "resolve": 1, "describe": 1}[sub]
				if len(args) != wantArgs {
					if wantArgs == 0 {
						return c.UsageErrorf("session %s takes no argument, got %q", sub, args[0])
					}
					return c.UsageErrorf("session %s expects one argument", sub)
				}
				if sub == "schema" {
					c.Stdout.Write(schemas.AuthoringDelta)
					return cli.ExitOK
				}
				if *jsonOut && *quiet {
					return c.UsageErrorf("--json and --quiet cannot be combined")
				}
				if *by == "" && sub != "describe" {
					*by = os.Getenv("USER")
				}
				w, code := openEvolution(c, *ws)
				if w == nil {
					return code
				}
				store := session.NewStore(w.Analysis())
				switch sub {
				case "new":
					if *target == "" {
						return c.UsageErrorf("--target FILE is required")
					}
					s, err := store.New(*target, *id, *by)
					if err != nil {
						return sessionFail(c, err)
					}
					if *jsonOut {
						return printJSON(c, sessionNewJSON{s.ID(), s.Meta.Target, s.Meta.BaseExists})
					}
					what := "a new file"
					if s.Meta.BaseExists {
						what = "as it is now"
					}
					fmt.Fprintf(c.Stdout, "started session %s on %s (%s)\nnext: caps session apply DELTA.json, or caps session describe TEXT\n", s.ID(), s.Meta.Target, what)
					return cli.ExitOK
				case "list":
					return sessionList(c, store, *jsonOut)
				}
				s, code := openSession(c, store, *sid)
				if s == nil {
					return code
				}
				switch sub {
				case "apply", "resolve", "describe":
					var step *session.Step
					var err error
					switch sub {
					case "apply":
						var b []byte
						if b, err = readInput(c, args[0]); err != nil {
							c.Errorf("%v", err)
							return cli.ExitUsage
						}
						step, err = s.Apply(session.DeltaInput{JSON: b, By: *by})
					case "resolve":
						hole, answer, ok := strings.Cut(args[0], "=")
						if !ok {
							return c.UsageErrorf("expected HOLE=ANSWER, as in h1=finance, got %q", args[0])
						}
						step, err = s.Resolve(hole, answer, *by)
					case "describe":
						text := args[0]
						if text == "-" {
							b, rerr := readInput(c, "-")
							if rerr != nil {
								c.Errorf("%v", rerr)
								return cli.ExitUsage
							}
							text = string(b)
						}
						if strings.TrimSpace(text) == "" {
							return c.UsageErrorf("the description is empty")
						}
						cfg, cerr := bridge.FromEnv(os.Getenv)
						if cerr != nil {
							c.Errorf("%v", cerr)
							return cli.ExitUsage
						}
						cfg.Timeout = *timeout
						step, err = s.Describe(context.Background(), cfg, text, *by)
					}
					if err != nil {
						return sessionFail(c, err)
					}
					return sessionReport(c, s, *jsonOut, step, false)
				case "synthesize":
					if *stepN >= 0 {
						v, err := s.Upto(*stepN)
						if err != nil {
							c.Errorf("%v", err)
							return cli.ExitUsage
						}
						s = v
					}
					if !s.HasDelta() && !s.Meta.BaseExists {
						c.Errorf("session %s has no delta yet and %s does not exist: apply one first (caps session apply DELTA.json)", s.ID(), s.Meta.Target)
						return cli.ExitFail
					}
					return sessionReport(c, s, *jsonOut, nil, true)
				case "show":
					return sessionShow(c, s, *jsonOut)
				case "propose":
					p, err := s.Propose(w, *by, *reason)
					if err != nil {
						if p != nil {
							c.Errorf("%v", err)
							return cli.ExitFail
						}
						return evolutionError(c, err)
					}
					if *jsonOut {
						files := []string{}
						for _, f := range p.Files {
							files = append(files, f.Path)
						}
						return printJSON(c, sessionProposeJSON{p.ID, s.ID(), files, append([]string{}, p.OpenHoles...)})
					}
					if *quiet {
						fmt.Fprintln(c.Stdout, p.ID)
						return cli.ExitOK
					}
					fmt.Fprintf(c.Stdout, "proposed %s from session %s\n", p.ID, s.ID())
					for _, f := range p.Files {
						add, rem := propose.LineStats(f.Base, f.Candidate)
						fmt.Fprintf(c.Stdout, "  %s (+%d -%d)\n", f.Path, add, rem)
					}
					fmt.Fprintf(c.Stdout, "next: caps assess %s\n", p.ID)
					return cli.ExitOK
				}
				return cli.ExitOK
			}
		},
	})
}

// openSession opens --session ID or the current session.
func openSession(c *cli.Context, store *session.Store, id string) (*session.Session, int) {
	if id == "" {
		cur, err := store.Current()
		if err != nil {
			c.Errorf("%v", err)
			return nil, cli.ExitUsage
		}
		id = cur
	}
	s, err := store.Open(id)
	if err != nil {
		return nil, sessionFail(c, err)
	}
	return s, cli.ExitOK
}

// sessionFail reports a refused step or a session that does not verify
// (exit 1) or another error (exit 2).
func sessionFail(c *cli.Context, err error) int {
	c.Errorf("%v", err)
	var te *session.TamperedError
	var se *propose.SchemaError
	var de *session.DescribeError
	var pe *propose.PathError
	var re *evolution.RefusedError
	if errors.As(err, &te) || errors.As(err, &se) || errors.As(err, &de) || errors.As(err, &pe) || errors.As(err, &re) {
		return cli.ExitFail
	}
	var pathErr *os.PathError
	var idErr *session.IDError
	var nf *session.NotFoundError
	if errors.As(err, &pathErr) || errors.As(err, &idErr) || errors.As(err, &nf) {
		return cli.ExitUsage
	}
	return cli.ExitFail // a delta or an answer that does not synthesize
}

// sessionStatus is what apply, resolve, describe and synthesize report
// besides the diagnostics.
type sessionStatus struct {
	Session      string         `json:"session"`
	Step         int            `json:"step"`
	SourceSHA256 string         `json:"source_sha256"`
	SemanticHash string         `json:"semantic_hash"`
	Holes        []session.Hole `json:"holes"`
	Applied      *session.Step  `json:"applied,omitempty"`
	Source       *string        `json:"source,omitempty"`
}

// sessionReport checks the session's source as its target file and
// prints the report: for synthesize the source (stdout) and its
// diagnostics (stderr), exit 1 on errors; after a step a summary, exit 0
// (the step is recorded whatever the diagnostics).
func sessionReport(c *cli.Context, s *session.Session, jsonOut bool, step *session.Step, synth bool) int {
	src := s.Source()
	pkg := newLoader(c).LoadSource(s.TargetPath(), src)
	diags := checkedDiagnostics(pkg)
	st := sessionStatus{Session: s.ID(), Step: len(s.Steps), SourceSHA256: propose.SHA256(src), SemanticHash: pkg.Hash, Holes: s.Holes(), Applied: step}
	if st.Holes == nil {
		st.Holes = []session.Hole{}
	}
	if synth && jsonOut {
		text := string(src)
		st.Source = &text
	}
	if synth && !jsonOut {
		c.Stdout.Write(src)
	}
	var out strings.Builder
	if !synth && !jsonOut {
		switch step.Kind {
		case session.KindDelta:
			fmt.Fprintf(&out, "step %d: applied delta %s", step.N, shortHash(step.DeltaHash))
		case session.KindResolve:
			fmt.Fprintf(&out, "step %d: resolved %s", step.N, step.Hole)
		}
		if step.By != "" {
			fmt.Fprintf(&out, " (by %s)", step.By)
		}
		errs, warns := 0, 0
		for _, d := range diags {
			switch d.Severity {
			case syntax.Error:
				errs++
			case syntax.Warning:
				warns++
			}
		}
		fmt.Fprintf(&out, "\n%s: %d line(s), %d error(s), %d warning(s)", s.Meta.Target, strings.Count(string(src), "\n"), errs, warns)
		if pkg.Hash != "" {
			fmt.Fprintf(&out, ", semantic hash %s", shortHash(pkg.Hash))
		}
		out.WriteString("\n")
		open := s.OpenHoles()
		for _, h := range open {
			fmt.Fprintf(&out, "open hole %s: %s\n", h.ID, h.Question)
		}
		switch {
		case errs > 0:
			out.WriteString("next: caps session synthesize shows the errors; apply a delta that fixes them\n")
		case len(open) > 0:
			fmt.Fprintf(&out, "next: caps session resolve %s=ANSWER, or caps session propose\n", open[0].ID)
		default:
			out.WriteString("next: caps session propose\n")
		}
		c.Stdout.Write([]byte(out.String()))
		return cli.ExitOK
	}
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	f := p.Add(&report.Source{Path: s.Meta.Target, Text: src, Lines: pkg.File.Source.CST.Lines}, diags)
	f.Extra = st
	code := p.Finish()
	if !synth {
		return cli.ExitOK
	}
	return code
}

func shortHash(h string) string {
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}

func sessionShow(c *cli.Context, s *session.Session, jsonOut bool) int {
	holes := s.Holes()
	if jsonOut {
		if holes == nil {
			holes = []session.Hole{}
		}
		steps := s.Steps
		if steps == nil {
			steps = []session.Step{}
		}
		return printJSON(c, sessionShowJSON{s.Meta, steps, holes, s.Head()})
	}
	var b strings.Builder
	what := "a new file"
	if s.Meta.BaseExists {
		what = "base " + shortHash(s.Meta.BaseSHA256)
	}
	fmt.Fprintf(&b, "session %s on %s (%s)\n", s.ID(), s.Meta.Target, what)
	for _, st := range s.Steps {
		fmt.Fprintf(&b, "  %d %-7s ", st.N, st.Kind)
		switch st.Kind {
		case session.KindDelta:
			b.WriteString(shortHash(st.DeltaHash))
		case session.KindResolve:
			fmt.Fprintf(&b, "%s = %s", st.Hole, st.Answer)
		case session.KindPropose:
			b.WriteString(st.Proposal)
		}
		if st.By != "" {
			fmt.Fprintf(&b, " (by %s)", st.By)
		}
		b.WriteString("\n")
	}
	for _, h := range holes {
		if h.Open() {
			fmt.Fprintf(&b, "open hole %s: %s\n", h.ID, h.Question)
		} else {
			fmt.Fprintf(&b, "answered %s: %s = %s\n", h.ID, h.Question, h.Answer)
		}
	}
	fmt.Fprintf(&b, "head %s\n", shortHash(s.Head()))
	c.Stdout.Write([]byte(b.String()))
	return cli.ExitOK
}

func sessionList(c *cli.Context, store *session.Store, jsonOut bool) int {
	list, _, err := store.Sessions()
	if err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	if jsonOut {
		return printJSON(c, list)
	}
	for _, e := range list {
		mark := " "
		if e.Current {
			mark = "*"
		}
		if !e.Verified {
			fmt.Fprintf(c.Stdout, "%s %s (does not verify: caps session show --session %s)\n", mark, e.ID, e.ID)
			continue
		}
		fmt.Fprintf(c.Stdout, "%s %s %s, %d step(s)\n", mark, e.ID, e.Target, e.Steps)
	}
	return cli.ExitOK
}

// sessionNewJSON is the JSON output of caps session new.
type sessionNewJSON struct {
	Session    string `json:"session"`
	Target     string `json:"target"`
	BaseExists bool   `json:"base_exists"`
}

// sessionProposeJSON is the JSON output of caps session propose.
type sessionProposeJSON struct {
	ID        string   `json:"id"`
	Session   string   `json:"session"`
	Files     []string `json:"files"`
	OpenHoles []string `json:"open_holes"`
}

// sessionShowJSON is the JSON output of caps session show.
type sessionShowJSON struct {
	Session session.Meta   `json:"session"`
	Steps   []session.Step `json:"steps"`
	Holes   []session.Hole `json:"holes"`
	Head    string         `json:"head"`
}
