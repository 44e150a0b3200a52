package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/ir"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/patterns"
	"github.com/capsulang/caps/syntax/ast"
)

func init() {
	cli.Register(&cli.Command{
		Name: "patterns",
		Output: func() cli.Schema {
			return cli.OneOf(cli.SchemaOf(patternListJSON{}), cli.SchemaOf(patternShowJSON{}), cli.SchemaOf(patternErrorJSON{}))
		},
		Effects:  cli.Effects{Reads: []string{"the pattern library (built in)"}, Writes: nil},
		Example:  cli.Example{Line: "caps patterns show access-change-approval --json"},
		Negative: cli.Example{Line: "caps patterns show no-such-pattern --json", Exit: 1},
		Also:     []cli.Example{{Line: "caps patterns list --json"}, {Line: "caps patterns show regulated-deployment-approval --template --json"}},
		Args:     "list [--json] | show NAME [--template] [--json]",
		Short:    "list and show the pattern library's known-good workflows",
		Long: `Patterns lists the workflow library (caps patterns list) or shows one
pattern (caps patterns show NAME): what it is for, its machine with its
states, events and payload fields, the effect intents it emits, the
stores, ports, agents and surfaces it declares, and the first commands to
run on a copy. --template adds the module's source and its machine
scenario, the text caps new writes. Start from a pattern and customize
it: caps new NAME --out FILE writes a copy under a module name of its
own.

An unknown NAME is a usage error (exit 2) with the closest name.

With --json, list prints {"patterns": [{"name", "title", "summary",
"tags", "machine"}]} and show prints {"name", "title", "summary", "tags",
"module", "machine", "initial", "states": [{"name", "final"}], "events":
[{"name", "fields": [{"name", "type"}]}], "effects": [{"effect",
"target"}], "declarations": {"stores", "ports", "agents", "surfaces"},
"first_commands", "template", "scenario"} (template and scenario with
--template only).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			template := fs.Bool("template", false, "with show: include the module's source and its scenario")
			return func(c *cli.Context, args []string) int {
				if len(args) == 0 {
					return c.UsageErrorf("expected list or show NAME")
				}
				switch args[0] {
				case "list":
					if len(args) != 1 {
						return c.UsageErrorf("list takes no arguments")
					}
					if *template {
						return c.UsageErrorf("--template goes with show NAME")
					}
					return patternsList(c, *jsonOut)
				case "show":
					if len(args) != 2 {
						return c.UsageErrorf("expected show NAME (caps patterns list names them)")
					}
					p := lookupPattern(c, args[1], *jsonOut)
					if p == nil {
						return cli.ExitFail
					}
					return patternsShow(c, p, *template, *jsonOut)
				}
				return c.UsageErrorf("unknown subcommand %q: use list or show NAME", args[0])
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "new",
		Output:   func() cli.Schema { return cli.OneOf(cli.SchemaOf(newPatternJSON{}), cli.SchemaOf(patternErrorJSON{})) },
		Effects:  cli.Effects{Reads: []string{"the pattern library (built in)"}, Writes: []string{"--out FILE", "its scenario (with --scenario)"}},
		Example:  cli.Example{Line: "caps new --json access-change-approval --out build/access_change.caps"},
		Negative: cli.Example{Line: "caps new --json no-such-pattern --out build/nothing.caps", Exit: 1},
		Args:     "PATTERN --out FILE [--module NAME] [--scenario] [--force] [--json]",
		Short:    "start a module from a pattern of the library",
		Long: `New writes the pattern PATTERN (caps patterns list) to FILE as a module of
its own: the pattern's text with its module renamed to NAME, by default
FILE's base name in lower case with other characters turned into _
(access_change.caps gives access_change). It refuses to overwrite FILE
unless --force is given, writes through a temporary file, and checks the
result. It prints the next commands to run.

--scenario also writes the pattern's machine scenario beside FILE, as
scenarios/BASE.MACHINE.json (BASE is FILE's name without .caps): where
caps test --scenario, the language server's dry-run lenses and caps
assess look for a module's scenarios.

With --json it prints {"ok", "pattern", "path", "module", "machine",
"bytes", "semantic_hash", "scenario", "next"}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			out := fs.String("out", "", "the file to write")
			module := fs.String("module", "", "the module name (default: from FILE)")
			force := fs.Bool("force", false, "overwrite FILE (and the scenario) if they exist")
			withScenario := fs.Bool("scenario", false, "also write the scenario to scenarios/BASE.MACHINE.json beside FILE")
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one PATTERN (caps patterns list names them)")
				}
				if *out == "" || *out == cli.StdinPath {
					return c.UsageErrorf("--out FILE is required")
				}
				p := lookupPattern(c, args[0], *jsonOut)
				if p == nil {
					return cli.ExitFail
				}
				name := *module
				if name == "" {
					name = patterns.ModuleFor(*out)
				}
				if err := patterns.ValidModule(name); err != nil {
					return c.UsageErrorf("--module: %v", err)
				}
				return runNew(c, p, *out, name, *withScenario, *force, *jsonOut)
			}
		},
	})
}

// lookupPattern finds a pattern or reports the unknown name with the
// closest one: bad input (exit 1), as an unknown skill is.
func lookupPattern(c *cli.Context, name string, jsonOut bool) *patterns.Pattern {
	if p := patterns.Lookup(name); p != nil {
		return p
	}
	best := spell.Nearest(name, patterns.Names())
	msg := fmt.Sprintf("unknown pattern %q", name) + spell.Hint(best, spell.Go)
	c.Errorf("%s (caps patterns list names them)", msg)
	if jsonOut {
		writeJSON(c, patternErrorJSON{Error: fmt.Sprintf("unknown pattern %q", name), DidYouMean: best, Patterns: patterns.Names()})
	}
	return nil
}

// patternErrorJSON is what patterns show and new print with --json for an
// unknown pattern.
type patternErrorJSON struct {
	Error      string   `json:"error"`
	DidYouMean string   `json:"did_you_mean,omitempty"`
	Patterns   []string `json:"patterns"`
}

type patternSummaryJSON struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Summary string   `json:"summary"`
	Tags    []string `json:"tags"`
	Machine string   `json:"machine"`
}

func patternsList(c *cli.Context, jsonOut bool) int {
	var list []patternSummaryJSON
	width := 0
	for _, p := range patterns.All() {
		list = append(list, patternSummaryJSON{p.Name, p.Title, p.Summary, p.Tags, p.Machine})
		width = max(width, len(p.Name))
	}
	if jsonOut {
		writeJSON(c, patternListJSON{list})
		return cli.ExitOK
	}
	var b strings.Builder
	for _, p := range list {
		fmt.Fprintf(&b, "%-*s  %s\n", width, p.Name, p.Summary)
	}
	c.Stdout.Write([]byte(b.String()))
	return cli.ExitOK
}

type patternFieldJSON struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type patternShowJSON struct {
	patternSummaryJSON
	Module  string `json:"module"`
	Initial string `json:"initial"`
	States  []struct {
		Name  string `json:"name"`
		Final bool   `json:"final"`
	} `json:"states"`
	Events []struct {
		Name   string             `json:"name"`
		Fields []patternFieldJSON `json:"fields"`
	} `json:"events"`
	Effects []struct {
		Effect string `json:"effect"`
		Target string `json:"target"`
	} `json:"effects"`
	Declarations  map[string][]string `json:"declarations"`
	FirstCommands []string            `json:"first_commands"`
	Template      string              `json:"template,omitempty"`
	Scenario      json.RawMessage     `json:"scenario,omitempty"`
}

func typeRefText(t *ast.TypeRef) string {
	if t == nil {
		return ""
	}
	if len(t.Args) == 0 && t.ArrayLen() == nil {
		return t.Name.Name
	}
	parts := []string{t.Name.Name}
	for _, a := range t.Args {
		parts = append(parts, typeRefText(a))
	}
	if t.ArrayLen() != nil {
		parts = append(parts, t.ArrayLen().Text)
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// patternFacts describes a pattern from its checked module.
func patternFacts(p *patterns.Pattern) (*patternShowJSON, error) {
	f, err := ast.Parse(p.Source)
	if err != nil {
		return nil, err
	}
	res := check.Check(f, check.Options{Path: p.File})
	if res.HasErrors() {
		return nil, fmt.Errorf("pattern %s does not check: %s", p.Name, res.Diagnostics[0].Message)
	}
	out := &patternShowJSON{patternSummaryJSON: patternSummaryJSON{p.Name, p.Title, p.Summary, p.Tags, p.Machine},
		Module: p.ModuleName(), Declarations: map[string][]string{"stores": {}, "ports": {}, "agents": {}, "surfaces": {}}}
	seen := map[string]bool{}
	for _, d := range f.Module.Decls {
		switch d := d.(type) {
		case *ast.Store:
			out.Declarations["stores"] = append(out.Declarations["stores"], d.Name.Name)
		case *ast.Port:
			out.Declarations["ports"] = append(out.Declarations["ports"], d.Name.Name)
		case *ast.Agent:
			out.Declarations["agents"] = append(out.Declarations["agents"], d.Name.Name)
		case *ast.Surface:
			out.Declarations["surfaces"] = append(out.Declarations["surfaces"], d.Name.Name)
		case *ast.Machine:
			if d.Name.Name != p.Machine {
				continue
			}
			out.Initial = d.Initial.Name
			for _, e := range d.Events {
				ev := struct {
					Name   string             `json:"name"`
					Fields []patternFieldJSON `json:"fields"`
				}{Name: e.Name.Name, Fields: []patternFieldJSON{}}
				for _, fl := range e.Fields {
					ev.Fields = append(ev.Fields, patternFieldJSON{fl.Name.Name, typeRefText(fl.Type)})
				}
				out.Events = append(out.Events, ev)
			}
			for _, s := range d.States {
				out.States = append(out.States, struct {
					Name  string `json:"name"`
					Final bool   `json:"final"`
				}{s.Name.Name, s.Final})
				for _, t := range s.Transitions {
					for _, e := range t.Effects {
						var ts []string
						for _, x := range e.Targets {
							ts = append(ts, x.Name)
						}
						key := e.Name.Name + " " + strings.Join(ts, " ")
						if !seen[key] {
							seen[key] = true
							out.Effects = append(out.Effects, struct {
								Effect string `json:"effect"`
								Target string `json:"target"`
							}{e.Name.Name, strings.Join(ts, " ")})
						}
					}
				}
			}
		}
	}
	out.FirstCommands = firstCommands(p, p.File)
	return out, nil
}

// firstCommands is the daily loop on a new copy of p written to file.
func firstCommands(p *patterns.Pattern, file string) []string {
	return []string{
		"caps new " + p.Name + " --out " + file,
		"caps check " + file + " --json",
		"caps test " + file + " --json",
		"caps machine-run " + file + " " + p.Machine + " " + p.StartEvent + " --mode dry-run",
		"caps agent-graph --json " + file,
		"caps cost --json " + file,
		"caps release-preview --json " + file,
	}
}

func patternsShow(c *cli.Context, p *patterns.Pattern, template, jsonOut bool) int {
	out, err := patternFacts(p)
	if err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	if template {
		out.Template = string(p.Source)
		out.Scenario = json.RawMessage(p.Scenario)
	}
	if jsonOut {
		writeJSON(c, out)
		return cli.ExitOK
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n%s\n\n", p.Name, p.Title, p.Summary)
	fmt.Fprintf(&b, "machine %s, initial %s\n", p.Machine, out.Initial)
	var states []string
	for _, s := range out.States {
		n := s.Name
		if s.Final {
			n += " (final)"
		}
		states = append(states, n)
	}
	fmt.Fprintf(&b, "states: %s\n", strings.Join(states, ", "))
	b.WriteString("events:\n")
	for _, e := range out.Events {
		var fs []string
		for _, f := range e.Fields {
			fs = append(fs, f.Name+" "+f.Type)
		}
		fmt.Fprintf(&b, "  %s", e.Name)
		if len(fs) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(fs, ", "))
		}
		b.WriteString("\n")
	}
	var effs []string
	for _, e := range out.Effects {
		effs = append(effs, strings.TrimSpace(e.Effect+" "+e.Target))
	}
	fmt.Fprintf(&b, "effects: %s\n", strings.Join(effs, ", "))
	for _, k := range []string{"stores", "ports", "agents", "surfaces"} {
		if v := out.Declarations[k]; len(v) > 0 {
			fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(v, ", "))
		}
	}
	b.WriteString("first commands:\n")
	for _, cmd := range out.FirstCommands {
		fmt.Fprintf(&b, "  %s\n", cmd)
	}
	if template {
		fmt.Fprintf(&b, "\n%s", p.Source)
	}
	c.Stdout.Write([]byte(b.String()))
	return cli.ExitOK
}

func runNew(c *cli.Context, p *patterns.Pattern, out, module string, withScenario, force, jsonOut bool) int {
	src := p.Template(module)
	f, err := ast.Parse(src)
	if err != nil {
		c.Errorf("pattern %s: %v", p.Name, err)
		return cli.ExitUsage
	}
	if res := check.Check(f, check.Options{Path: out}); res.HasErrors() {
		c.Errorf("pattern %s does not check under module %s: %s", p.Name, module, res.Diagnostics[0].Message)
		return cli.ExitFail
	}
	hash, err := ir.Hash(f.Module)
	if err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	scen := ""
	if withScenario {
		scen = filepath.Join(filepath.Dir(out), "scenarios", strings.TrimSuffix(filepath.Base(out), ".caps")+"."+p.Machine+".json")
	}
	for _, f := range []string{out, scen} {
		if _, err := os.Stat(f); f != "" && err == nil && !force {
			c.Errorf("%s exists; pass --force to overwrite it, or choose another --out", f)
			return cli.ExitUsage
		}
	}
	if err := writeFileAtomic(out, src); err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	next := firstCommands(p, out)[1:]
	if scen != "" {
		if err := writeFileAtomic(scen, p.Scenario); err != nil {
			c.Errorf("%v (%s was written)", err, out)
			return cli.ExitUsage
		}
		next[1] = "caps test " + out + " --scenario " + scen + " --json"
	}
	if jsonOut {
		writeJSON(c, newPatternJSON{true, p.Name, out, module, p.Machine, len(src), hash, scen, next})
		return cli.ExitOK
	}
	var b strings.Builder
	fmt.Fprintf(&b, "wrote %s: pattern %s as module %s (machine %s)\n", out, p.Name, module, p.Machine)
	if scen != "" {
		fmt.Fprintf(&b, "wrote %s: its scenario\n", scen)
	}
	b.WriteString("next:\n")
	for _, n := range next {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	c.Stdout.Write([]byte(b.String()))
	return cli.ExitOK
}

// patternListJSON is the JSON output of this command (see its Output schema).
type patternListJSON struct {
	Patterns []patternSummaryJSON `json:"patterns"`
}

// newPatternJSON is the JSON output of this command (see its Output schema).
type newPatternJSON struct {
	OK       bool     `json:"ok"`
	Pattern  string   `json:"pattern"`
	Path     string   `json:"path"`
	Module   string   `json:"module"`
	Machine  string   `json:"machine"`
	Bytes    int      `json:"bytes"`
	Hash     string   `json:"semantic_hash"`
	Scenario string   `json:"scenario,omitempty"`
	Next     []string `json:"next"`
}
