package main

import (
	"flag"
	"fmt"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "agent-graph",
		Output:   func() cli.Schema { return report.ResultSchema(agentGraphExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps agent-graph --json examples/03_claim_review_machine.caps"},
		Negative: cli.Example{Line: "caps agent-graph --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "--json FILE",
		Short:    "print a module's facts (declarations, machine graphs, effects, hashes) for tools",
		Long: `Agent-graph prints the facts of FILE's module ("-" for stdin) that tools
and agents need without reading the source: its semantic hash, profiles,
imports with their hashes, every declaration with its range, each machine's
graph (states, initial and final states, transitions with guard,
assignments and effect intents), each function's signature and effects,
and the effect catalog entries the module uses. The shape is documented in
docs/cli.md.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout (required)")
			return func(c *cli.Context, args []string) int {
				if !*jsonOut {
					return c.UsageErrorf("agent-graph prints JSON; pass --json")
				}
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runAgentGraph(c, args[0])
			}
		},
	})
}

type graphDecl struct {
	Kind  string       `json:"kind"`
	Name  string       `json:"name"`
	Range syntax.Range `json:"range"`
}

type graphEffect struct {
	Effect      string   `json:"effect"`
	Targets     []string `json:"targets"`
	Domain      string   `json:"domain,omitempty"`
	Determinism string   `json:"determinism,omitempty"`
	Retry       *uint64  `json:"retry,omitempty"`
	OnError     string   `json:"on_error,omitempty"`
}

type graphTransition struct {
	From    string        `json:"from"`
	Event   string        `json:"event"`
	To      string        `json:"to"`
	Guarded bool          `json:"guarded"`
	Assigns []string      `json:"assigns"`
	Effects []graphEffect `json:"effects"`
}

type graphMachine struct {
	Name        string            `json:"name"`
	Initial     string            `json:"initial"`
	States      []string          `json:"states"`
	Final       []string          `json:"final"`
	Events      []string          `json:"events"`
	Context     map[string]string `json:"context"`
	Transitions []graphTransition `json:"transitions"`
	Timeouts    []map[string]any  `json:"timeouts"`
}

type graphFunction struct {
	Name      string        `json:"name"`
	Signature string        `json:"signature"`
	Pure      bool          `json:"pure"`
	Effects   []graphEffect `json:"effects"`
	Examples  int           `json:"examples"`
}

type graphImport struct {
	Module string `json:"module"`
	File   string `json:"file"`
	Hash   string `json:"semantic_hash"`
}

type agentGraph struct {
	Module       string          `json:"module"`
	Capsule      string          `json:"capsule"`
	Hash         string          `json:"semantic_hash"`
	Profiles     []string        `json:"profiles"`
	Imports      []graphImport   `json:"imports"`
	Declarations []graphDecl     `json:"declarations"`
	Machines     []graphMachine  `json:"machines"`
	Functions    []graphFunction `json:"functions"`
	Errors       int             `json:"errors"`
	Warnings     int             `json:"warnings"`
}

func effectFacts(e *ast.Effect) graphEffect {
	g := graphEffect{Effect: e.Name.Name, Targets: []string{}, OnError: e.OnError.Name}
	for _, t := range e.Targets {
		g.Targets = append(g.Targets, t.Name)
	}
	if ce := catalog.LookupEffect(e.Name.Name); ce != nil {
		g.Domain, g.Determinism = ce.Domain, ce.Determinism
	}
	if e.Retry != nil {
		v := e.Retry.Mag
		g.Retry = &v
	}
	return g
}

func runAgentGraph(c *cli.Context, path string) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, true)
	pkg, err := newLoader(c).Load(path)
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	lines := pkg.File.Source.CST.Lines
	g := agentGraph{Profiles: []string{}, Imports: []graphImport{}, Declarations: []graphDecl{}, Machines: []graphMachine{}, Functions: []graphFunction{}, Hash: pkg.Hash}
	for _, d := range pkg.Result.Diagnostics {
		switch d.Severity {
		case syntax.Error:
			g.Errors++
		case syntax.Warning:
			g.Warnings++
		}
	}
	m := pkg.File.Module
	if m != nil {
		g.Module = m.Name.Name
		if m.Capsule != nil {
			g.Capsule = m.Capsule.Value
		}
		for _, pr := range m.Profiles {
			g.Profiles = append(g.Profiles, pr.Name)
		}
		for _, im := range pkg.Result.Imports {
			g.Imports = append(g.Imports, graphImport{Module: im.Import.Path.Name, File: im.File, Hash: im.Hash})
		}
		for _, d := range m.Decls {
			b := d.Base()
			g.Declarations = append(g.Declarations, graphDecl{Kind: string(d.Kind()), Name: b.Name.Name, Range: lines.Range(b.Form.Span(), syntax.UTF16)})
			switch d := d.(type) {
			case *ast.Machine:
				g.Machines = append(g.Machines, machineFacts(d))
			case *ast.Function:
				g.Functions = append(g.Functions, functionFacts(pkg.Result, d))
			}
		}
	}
	f := p.Add(&report.Source{Path: path, Text: pkg.Src, Lines: lines}, pkg.Result.Diagnostics)
	f.Extra = agentGraphExtra{g}
	return p.Finish()
}

func machineFacts(m *ast.Machine) graphMachine {
	gm := graphMachine{Name: m.Name.Name, Initial: m.Initial.Name, States: []string{}, Final: []string{}, Events: []string{}, Context: map[string]string{}, Transitions: []graphTransition{}, Timeouts: []map[string]any{}}
	for _, f := range m.Context {
		if f.Type != nil {
			gm.Context[f.Name.Name] = typeString(f.Type)
		}
	}
	for _, e := range m.Events {
		gm.Events = append(gm.Events, e.Name.Name)
	}
	for _, st := range m.States {
		gm.States = append(gm.States, st.Name.Name)
		if st.Final {
			gm.Final = append(gm.Final, st.Name.Name)
		}
		if st.Timeout != nil && st.Timeout.Duration != nil {
			gm.Timeouts = append(gm.Timeouts, map[string]any{"state": st.Name.Name, "after_ms": st.Timeout.Duration.Millis, "event": st.Timeout.Event.Name})
		}
		for _, t := range st.Transitions {
			gt := graphTransition{From: st.Name.Name, Event: t.Event.Name, To: t.Target.Name, Guarded: t.Guard != nil, Assigns: []string{}, Effects: []graphEffect{}}
			for _, a := range t.Assigns {
				gt.Assigns = append(gt.Assigns, a.Field.Name)
			}
			for _, e := range t.Effects {
				gt.Effects = append(gt.Effects, effectFacts(e))
			}
			gm.Transitions = append(gm.Transitions, gt)
		}
	}
	return gm
}

func functionFacts(res *check.Result, fn *ast.Function) graphFunction {
	gf := graphFunction{Name: fn.Name.Name, Pure: fn.Effects == nil || fn.Effects.Pure, Effects: []graphEffect{}, Examples: len(fn.Examples)}
	sig := "("
	for i, in := range fn.Inputs {
		if i > 0 {
			sig += " "
		}
		sig += fmt.Sprintf("(%s %s)", in.Name.Name, typeString(in.Type))
	}
	sig += ") -> "
	if fn.Output != nil {
		sig += typeString(fn.Output)
	}
	gf.Signature = sig
	if fn.Effects != nil {
		for _, e := range fn.Effects.Items {
			gf.Effects = append(gf.Effects, effectFacts(e))
		}
	}
	return gf
}

func typeString(t *ast.TypeRef) string {
	if t == nil {
		return "?"
	}
	if len(t.Args) == 0 {
		return t.Name.Name
	}
	s := "(" + t.Name.Name
	for _, a := range t.Args {
		s += " " + typeString(a)
	}
	if t.ArrayLen() != nil {
		s += " " + t.ArrayLen().Text
	}
	return s + ")"
}

// agentGraphExtra is the JSON output of this command (see its Output schema).
type agentGraphExtra struct {
	Graph agentGraph `json:"graph"`
}
