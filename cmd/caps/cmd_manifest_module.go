package main

import (
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/syntax/ast"
)

// The manifest of one module (caps manifest FILE): its operations as an
// agent calls them. A function is called with caps call, a machine is
// driven with caps machine-run; their inputs and outputs are given as JSON
// Schemas of the value encoding of docs/runtime.md.

type moduleManifest struct {
	Module     string            `json:"module"`
	File       string            `json:"file"`
	Hash       string            `json:"semantic_hash"`
	Validation afpsValidation    `json:"validation"`
	Operations []moduleOperation `json:"operations"`
}

type moduleOperation struct {
	ID   string `json:"id"`
	Type string `json:"type"` // "function" or "machine"
	// Command runs the operation; <...> are the values to fill in.
	Command string `json:"command"`
	// Pure is true for a function without effects.
	Pure bool `json:"pure"`
	// Effects lists the effect intents the operation may emit, as
	// "effect target".
	Effects []string `json:"effects"`
	// ExternalEffects is true when the operation emits effect intents
	// (which a host carries out in live mode only).
	ExternalEffects bool              `json:"external_effects"`
	SupportsDryRun  bool              `json:"supports_dry_run"`
	Schemas         map[string]any    `json:"schemas"`
	Events          []moduleEvent     `json:"events,omitempty"`
	States          []string          `json:"states,omitempty"`
	Initial         string            `json:"initial,omitempty"`
	Final           []string          `json:"final,omitempty"`
	Examples        []moduleExample   `json:"examples,omitempty"`
	Context         map[string]string `json:"context,omitempty"`
}

// moduleEvent is one event of a machine with the schema of its payload.
type moduleEvent struct {
	Name    string     `json:"name"`
	Payload cli.Schema `json:"payload"`
	Command string     `json:"command"`
}

// moduleExample is one (example ...) of a function, as a caps call line.
type moduleExample struct {
	Command string `json:"command"`
}

func runModuleManifest(c *cli.Context, path string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg := loadModule(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	shown := cli.DisplayPath(path)
	if path == cli.StdinPath {
		shown = "-"
	}
	m := moduleManifest{
		Module: pkg.File.Module.Name.Name,
		File:   shown,
		Hash:   pkg.Hash,
		Validation: afpsValidation{Commands: []string{
			"caps check --json " + shown,
			"caps test --json " + shown,
		}},
		Operations: []moduleOperation{},
	}
	in := newInterp(pkg, 0, 0)
	for _, f := range in.Functions() {
		m.Operations = append(m.Operations, functionOperation(m.Module, shown, f, pkg.Src))
	}
	for _, decl := range pkg.File.Module.Decls {
		d, ok := decl.(*ast.Machine)
		if !ok {
			continue
		}
		mc, err := machine.Compile(pkg.Result, d.Name.Name, machine.Options{Hash: pkg.Hash})
		if err != nil {
			p.Fail(path, fmt.Errorf("machine %s: %v", d.Name.Name, err))
			return p.Finish()
		}
		m.Operations = append(m.Operations, machineOperation(m.Module, shown, mc))
	}
	if jsonOut {
		writeJSON(c, m)
		return p.Code()
	}
	p.Add(packageSource(path, pkg), pkg.Result.Diagnostics) // warnings
	var b strings.Builder
	fmt.Fprintf(&b, "module %s (%s): %s\n", m.Module, m.Hash, count(len(m.Operations), "operation", "operations"))
	for _, op := range m.Operations {
		eff := "pure"
		if len(op.Effects) > 0 {
			eff = "effects " + strings.Join(op.Effects, ", ")
		} else if op.Type == "machine" {
			eff = "no effect intents"
		}
		fmt.Fprintf(&b, "  %s %s: %s\n    %s\n", op.Type, op.ID, eff, op.Command)
	}
	c.Stdout.Write([]byte(b.String()))
	return p.Finish()
}

func functionOperation(module, file string, f *interp.FuncInfo, src []byte) moduleOperation {
	props, req := map[string]any{}, []any{}
	var args []string
	for _, prm := range f.Params {
		props[prm.Name] = valueSchema(prm.Type, true)
		req = append(req, prm.Name)
		args = append(args, prm.Name+"=<"+prm.Type.String()+">")
	}
	in := cli.Schema{"type": "object", "properties": props, "required": req, "additionalProperties": false,
		"description": "the arguments by name, in the JSON encoding of docs/runtime.md; on the command line each is NAME=VALUE, VALUE written as in source (or as JSON when it starts with { or [)"}
	op := moduleOperation{
		ID:       module + "." + f.Name,
		Type:     "function",
		Command:  strings.TrimSpace("caps call --json " + file + " " + f.Name + " " + strings.Join(args, " ")),
		Pure:     f.Decl.Effects == nil || f.Decl.Effects.Pure,
		Effects:  []string{},
		Schemas:  map[string]any{"input": in, "output": valueSchema(f.Result, false)},
		Examples: []moduleExample{},
	}
	if f.Decl.Effects != nil {
		for _, e := range f.Decl.Effects.Items {
			var targets []string
			for _, t := range e.Targets {
				targets = append(targets, t.Name)
			}
			op.Effects = append(op.Effects, effectString(e.Name.Name, targets))
		}
	}
	op.ExternalEffects = len(op.Effects) > 0
	for _, ex := range f.Decl.Examples {
		var kv []string
		if len(ex.Args) != len(f.Params) || f.Decl != nil && ex.Func.Name != f.Decl.Name.Name {
			continue
		}
		for i, a := range ex.Args {
			sp := a.ExprSpan()
			if sp.Start < 0 || sp.End > len(src) || sp.Start > sp.End {
				kv = nil
				break
			}
			kv = append(kv, f.Params[i].Name+"="+shellQuote(string(src[sp.Start:sp.End])))
		}
		if kv == nil && len(f.Params) > 0 {
			continue
		}
		op.Examples = append(op.Examples, moduleExample{Command: strings.TrimSpace("caps call " + file + " " + f.Name + " " + strings.Join(kv, " "))})
	}
	return op
}

func machineOperation(module, file string, m *machine.Machine) moduleOperation {
	op := moduleOperation{
		ID:             module + "." + m.Name,
		Type:           "machine",
		Command:        "caps machine-run --json --mode dry-run " + file + " " + m.Name + " <EVENT>|<EVENT>=<payload JSON>...",
		Effects:        []string{},
		SupportsDryRun: true,
		Schemas:        map[string]any{},
		Initial:        m.Initial.Name,
		Context:        map[string]string{},
	}
	seen := map[string]bool{}
	for _, st := range m.States {
		op.States = append(op.States, st.Name)
		if st.Final {
			op.Final = append(op.Final, st.Name)
		}
		for _, t := range st.Transitions {
			for _, e := range t.Effects {
				s := e.Name
				if e.Target != "" {
					s += " " + e.Target
				}
				if !seen[s] {
					seen[s] = true
					op.Effects = append(op.Effects, s)
				}
			}
		}
	}
	ctx, req := cli.Schema{}, []any{}
	for _, f := range m.Context {
		op.Context[f.Name] = f.Type.String()
		ctx[f.Name] = valueSchema(f.Type, false)
		req = append(req, f.Name)
	}
	op.Schemas["context"] = cli.Schema{"type": "object", "properties": ctx, "required": req, "additionalProperties": false,
		"description": "the machine's context as caps machine-run --json prints it"}
	var cases []any
	for _, ev := range m.Events {
		pl := valueSchema(ev.Record, true)
		op.Events = append(op.Events, moduleEvent{Name: ev.Name, Payload: pl,
			Command: "caps machine-run --json --mode dry-run " + file + " " + m.Name + " '" + ev.Name + "={...}'"})
		cases = append(cases, cli.Schema{"type": "object", "properties": cli.Schema{"event": cli.Schema{"const": ev.Name}, "payload": pl}, "required": []any{"event"}, "additionalProperties": false})
	}
	op.Schemas["input"] = cli.Schema{"type": "array", "items": cli.Schema{"oneOf": cases},
		"description": "the events to send, in order; each is EVENT or EVENT={payload} on the command line"}
	op.Schemas["output"] = "caps machine-run --json output (caps manifest --json lists its schema)"
	op.ExternalEffects = len(op.Effects) > 0
	return op
}

func effectString(name string, targets []string) string {
	if len(targets) == 0 {
		return name
	}
	return name + " " + strings.Join(targets, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:/@+=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// valueSchema is the JSON Schema of the JSON encoding of values of type t
// (docs/runtime.md): the encoding caps writes, or with input the wider
// set it reads (an integer may be a number or a string of digits, a
// Duration a number of milliseconds, a Timestamp a number of Unix
// milliseconds, a variant case without fields its bare name).
func valueSchema(t types.Type, input bool) cli.Schema {
	digits := cli.Schema{"type": "string", "pattern": "^-?[0-9]+$"}
	integer := func(s cli.Schema) cli.Schema {
		if input {
			return cli.Schema{"anyOf": []any{s, digits}, "description": t.String() + ": a number or a string of decimal digits"}
		}
		return s
	}
	switch t := t.(type) {
	case *types.Basic:
		switch t.Kind {
		case types.Unit:
			return cli.Schema{"type": "null"}
		case types.Bool:
			return cli.Schema{"type": "boolean"}
		case types.I32:
			return integer(cli.Schema{"type": "integer", "minimum": -2147483648, "maximum": 2147483647})
		case types.U32:
			return integer(cli.Schema{"type": "integer", "minimum": 0, "maximum": 4294967295})
		case types.I64, types.Int, types.U64, types.Wei, types.UntypedInt:
			if input {
				return integer(cli.Schema{"type": "integer"})
			}
			return cli.Schema{"type": "string", "pattern": "^-?[0-9]+$", "description": t.String() + " as a string of decimal digits"}
		case types.Text, types.Address:
			return cli.Schema{"type": "string"}
		case types.Duration:
			if input {
				return cli.Schema{"type": []any{"string", "integer"}, "description": "a duration literal such as 30m, or a number of milliseconds"}
			}
			return cli.Schema{"type": "string", "description": "a duration literal such as 30m or 1500ms"}
		case types.Timestamp:
			if input {
				return cli.Schema{"type": []any{"string", "integer"}, "description": "RFC 3339 text, or a number of Unix milliseconds"}
			}
			return cli.Schema{"type": "string", "format": "date-time"}
		case types.Json:
			return cli.Schema{}
		case types.Bytes32:
			return cli.Schema{"type": "string", "pattern": "^0x[0-9a-f]{64}$"}
		}
	case *types.Record:
		props, req := cli.Schema{}, []any{}
		for _, f := range t.Fields {
			props[f.Name] = valueSchema(f.Type, input)
			req = append(req, f.Name)
		}
		return cli.Schema{"type": "object", "properties": props, "required": req, "additionalProperties": false, "title": t.Name}
	case *types.Enum:
		var ms []any
		for _, m := range t.Members {
			ms = append(ms, m)
		}
		return cli.Schema{"enum": ms, "title": t.Name}
	case *types.Variant:
		var cases []any
		for _, c := range t.Cases {
			cs := cli.Schema{"type": "object", "properties": cli.Schema{"case": cli.Schema{"const": c.Name}}, "required": []any{"case"}, "additionalProperties": false}
			if len(c.Fields) > 0 {
				props, req := cli.Schema{}, []any{}
				for _, f := range c.Fields {
					props[f.Name] = valueSchema(f.Type, input)
					req = append(req, f.Name)
				}
				cs["properties"].(cli.Schema)["fields"] = cli.Schema{"type": "object", "properties": props, "required": req, "additionalProperties": false}
				cs["required"] = []any{"case", "fields"}
			}
			cases = append(cases, cs)
		}
		if input {
			for _, c := range t.Cases {
				if len(c.Fields) == 0 {
					cases = append(cases, cli.Schema{"const": c.Name})
				}
			}
		}
		return cli.Schema{"oneOf": cases, "title": t.Name}
	case *types.Option:
		if _, nested := t.Elem.(*types.Option); nested {
			return cli.Schema{"anyOf": []any{cli.Schema{"type": "null"}, cli.Schema{"type": "object", "properties": cli.Schema{"some": valueSchema(t.Elem, input)}, "required": []any{"some"}, "additionalProperties": false}}}
		}
		return cli.Schema{"anyOf": []any{cli.Schema{"type": "null"}, valueSchema(t.Elem, input)}}
	case *types.Result:
		return cli.Schema{"oneOf": []any{
			cli.Schema{"type": "object", "properties": cli.Schema{"ok": valueSchema(t.Ok, input)}, "required": []any{"ok"}, "additionalProperties": false},
			cli.Schema{"type": "object", "properties": cli.Schema{"err": valueSchema(t.Err, input)}, "required": []any{"err"}, "additionalProperties": false},
		}}
	case *types.List:
		return cli.Schema{"type": "array", "items": valueSchema(t.Elem, input)}
	case *types.Array:
		return cli.Schema{"type": "array", "items": valueSchema(t.Elem, input), "minItems": t.Len, "maxItems": t.Len}
	case *types.Map:
		if b, ok := t.Key.(*types.Basic); ok && b.Kind == types.Text {
			return cli.Schema{"type": "object", "additionalProperties": valueSchema(t.Value, input)}
		}
		return cli.Schema{"type": "array", "items": cli.Schema{"type": "array", "prefixItems": []any{valueSchema(t.Key, input), valueSchema(t.Value, input)}, "minItems": 2, "maxItems": 2}}
	}
	return cli.Schema{"description": "a value of type " + t.String()}
}
