package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/codegen/protocol"
	"github.com/capsulang/caps/syntax"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "protocol-plan",
		Output:   func() cli.Schema { return report.ResultSchema(protocolPlanExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps protocol-plan --json examples/30_protocol_native_a2ui.caps"},
		Negative: cli.Example{Line: "caps protocol-plan --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--json] FILE",
		Short:    "list a module's MCP ports, A2A agents, A2UI surfaces, protocol effects and A2UI envelopes",
		Long: `Protocol-plan checks FILE ("-" for stdin) and prints its protocol-native
surface: the MCP ports with their tools, resources and prompts; the A2A
collaborators with their discovery URL, auth and skills; the A2UI surfaces
with their state, data model, actions and which actions need the user's
confirmation; every typed protocol effect (mcp.*, a2a.*, a2ui.*, http.*)
with its target, the contract it targets and the transitions (machine,
state, event) or functions that emit it; and, for each surface, the
renderer-ready A2UI v0.9 messages (createSurface, updateComponents and
updateDataModel with the default data model).

With --json it prints {"ok", "files": [{"path", "diagnostics",
"protocol_plan": {...}}]}; docs/protocols.md describes every field.
Without --json it prints a summary. Exit 1 when FILE has errors.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runProtocolPlan(c, args[0], *jsonOut)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "a2ui-manifest",
		Output:   func() cli.Schema { return report.ResultSchema(a2uiManifestExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps a2ui-manifest --json examples/30_protocol_native_a2ui.caps"},
		Negative: cli.Example{Line: "caps a2ui-manifest --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--json] FILE",
		Short:    "print the A2UI v0.9 manifest of every surface of a module",
		Long: `A2ui-manifest checks FILE ("-" for stdin) and prints the A2UI v0.9
manifest of each of its surfaces: surface and catalog ids, title, route,
bound machine, the JSON Schema of its data model, each action (declared
actions, then the machine events the surface sends) with the data model
path of its inputs, the schema of the context its button sends and whether
it needs the user's confirmation, and the surface's component tree from
the v0.9 basic catalog.

With --json it prints {"ok", "files": [{"path", "diagnostics",
"manifest": {...}}]}; docs/protocols.md describes every field. Without
--json it prints a summary. Exit 1 when FILE has errors.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runA2UIManifest(c, args[0], *jsonOut)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "a2ui-envelope",
		Output:   func() cli.Schema { return report.ResultSchema(a2uiEnvelopeExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps a2ui-envelope --json --kind create examples/30_protocol_native_a2ui.caps repo_review_ui"},
		Negative: cli.Example{Line: "caps a2ui-envelope --json --kind create examples/30_protocol_native_a2ui.caps no_such_surface", Exit: 1},
		Args:     "[--json] --kind create|components|data|delete|stream [--data JSON] FILE SURFACE",
		Short:    "print deterministic A2UI v0.9 messages for one surface",
		Long: `A2ui-envelope checks FILE and prints A2UI v0.9 server-to-client messages
for its surface SURFACE, the same bytes for the same module and arguments:

    create      createSurface (surface id, catalog id, sendDataModel)
    components  updateComponents (the surface's component tree)
    data        updateDataModel at "/" (the default data model, or --data)
    delete      deleteSurface
    stream      create, components and data, in that order

--data JSON (with --kind data) is the value to send: a JSON object whose
fields are fields of the surface's data model, each of its type. Values
are written in the runtime's JSON encoding, in the data model's order.
An unknown surface (E_SURFACE_NOT_FOUND), data that is not an object
(E_SURFACE_DATA_NOT_OBJECT), an unknown field (E_SURFACE_DATA_FIELD) or a value of
the wrong type (E_SURFACE_DATA_TYPE) is a diagnostic and exit 1.

Without --json it prints the messages as JSON Lines, one message a line,
ready for a renderer. With --json it prints {"ok", "files": [{"path",
"diagnostics", "surface", "kind", "messages"}]}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			kind := fs.String("kind", "", "the messages: "+strings.Join(protocol.Kinds, ", "))
			var data *string
			fs.Func("data", "the data model value (a JSON object) for --kind data", func(s string) error {
				data = &s
				return nil
			})
			return func(c *cli.Context, args []string) int {
				if len(args) != 2 {
					return c.UsageErrorf("expected FILE and SURFACE")
				}
				if *kind == "" {
					return c.UsageErrorf("--kind is required (one of %s)", strings.Join(protocol.Kinds, ", "))
				}
				if !contains(protocol.Kinds, *kind) {
					return c.UsageErrorf("unknown --kind %q; kinds are %s", *kind, strings.Join(protocol.Kinds, ", "))
				}
				if data != nil && *kind != "data" {
					return c.UsageErrorf("--data goes with --kind data, not --kind %s", *kind)
				}
				return runA2UIEnvelope(c, args[0], args[1], *kind, data, *jsonOut)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "architecture-plan",
		Output:   func() cli.Schema { return report.ResultSchema(architectureExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps architecture-plan --json examples/03_claim_review_machine.caps"},
		Negative: cli.Example{Line: "caps architecture-plan --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--json | --kind summary|mermaid] FILE",
		Short:    "print a module's architecture: stores, ports, agents, surfaces, machines, effects",
		Long: `Architecture-plan checks FILE ("-" for stdin) and prints its architecture:
the stores with their backend, authority, collections and the machines
persisted in them; the ports, agents and surfaces; the machines with their
persistence (store, event log, snapshot policy, replay) and the surfaces
bound to them; and every effect intent, grouped by the target it acts on
and by determinism class (ledgered, external, observable, ...), with how
many transitions or functions emit it.

--kind summary (the default) prints a summary; --kind mermaid prints a
Mermaid flowchart (like caps visualize): a subgraph per kind of
declaration, an edge from each machine to what its effects target, and
dotted edges for persistence and surface bindings. With --json it prints
{"ok", "files": [{"path", "diagnostics", "architecture": {...}}]};
docs/protocols.md describes every field. Exit 1 when FILE has errors.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			kind := fs.String("kind", "summary", "summary or mermaid")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				if *kind != "summary" && *kind != "mermaid" {
					return c.UsageErrorf("--kind is summary or mermaid, not %q", *kind)
				}
				if *jsonOut && *kind != "summary" {
					return c.UsageErrorf("--json prints the plan as JSON; leave out --kind %s", *kind)
				}
				return runArchitecturePlan(c, args[0], *kind, *jsonOut)
			}
		},
	})
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// loadClean loads FILE for a protocol command. It returns the package,
// its source and its diagnostics when the module checks without errors;
// otherwise it reports the failure through p and returns a nil package.
func loadClean(c *cli.Context, p *report.Printer, path string) (*load.Package, *report.Source, []syntax.Diagnostic) {
	pkg := loadModule(c, p, path)
	if pkg == nil {
		return nil, nil, nil
	}
	src, diags := packageSource(path, pkg), pkg.Result.Diagnostics
	return pkg, src, diags
}

func runProtocolPlan(c *cli.Context, path string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, src, diags := loadClean(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	plan := protocol.Build(pkg.Result, pkg.Hash)
	f := p.Add(src, diags)
	if jsonOut {
		f.Extra = protocolPlanExtra{plan}
		return p.Finish()
	}
	c.Stdout.Write([]byte(plan.Text()))
	fmt.Fprintf(c.Stdout, "print the plan with: caps protocol-plan --json %s\n", cli.DisplayPath(path))
	return p.Finish()
}

func runA2UIManifest(c *cli.Context, path string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, src, diags := loadClean(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	man := protocol.BuildManifest(pkg.Result, pkg.Hash)
	f := p.Add(src, diags)
	if jsonOut {
		f.Extra = a2uiManifestExtra{man}
		return p.Finish()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "A2UI %s manifest of module %s: %s\n", man.A2UIVersion, man.Module, count(len(man.Surfaces), "surface", "surfaces"))
	for _, s := range man.Surfaces {
		fmt.Fprintf(&b, "surface %s: catalog %s, %s, %s, %s\n", s.SurfaceID, s.CatalogID,
			count(len(s.DataModel.Required), "data field", "data fields"), count(len(s.Actions), "action", "actions"), count(len(s.Components), "component", "components"))
	}
	fmt.Fprintf(&b, "print the manifest with: caps a2ui-manifest --json %s\n", cli.DisplayPath(path))
	c.Stdout.Write([]byte(b.String()))
	return p.Finish()
}

func runA2UIEnvelope(c *cli.Context, path, surface, kind string, data *string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, src, diags := loadClean(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	var raw []byte
	if data != nil {
		raw = []byte(*data)
	}
	msgs, err := protocol.Envelope(pkg.Result, surface, kind, raw)
	var pe *protocol.Error
	switch {
	case errors.As(err, &pe):
		p.Add(src, append(diags, pe.Diagnostic()))
		return p.Finish()
	case err != nil:
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	f := p.Add(src, diags)
	if jsonOut {
		f.Extra = a2uiEnvelopeExtra{surface, kind, msgs}
		return p.Finish()
	}
	for _, m := range msgs {
		c.Stdout.Write(append(m.Encode(), '\n'))
	}
	return p.Finish()
}

func runArchitecturePlan(c *cli.Context, path, kind string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, src, diags := loadClean(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	arch := protocol.BuildArchitecture(pkg.Result, pkg.Hash)
	f := p.Add(src, diags)
	switch {
	case jsonOut:
		f.Extra = architectureExtra{arch}
	case kind == "mermaid":
		c.Stdout.Write([]byte(arch.Mermaid()))
	default:
		c.Stdout.Write([]byte(arch.Text()))
	}
	return p.Finish()
}

// protocolPlanExtra is the JSON output of this command (see its Output schema).
type protocolPlanExtra struct {
	Plan *protocol.Plan `json:"protocol_plan"`
}

// a2uiManifestExtra is the JSON output of this command (see its Output schema).
type a2uiManifestExtra struct {
	Manifest *protocol.Manifest `json:"manifest"`
}

// a2uiEnvelopeExtra is the JSON output of this command (see its Output schema).
type a2uiEnvelopeExtra struct {
	Surface  string             `json:"surface"`
	Kind     string             `json:"kind"`
	Messages []protocol.Message `json:"messages"`
}

// architectureExtra is the JSON output of this command (see its Output schema).
type architectureExtra struct {
	Architecture *protocol.Architecture `json:"architecture"`
}
