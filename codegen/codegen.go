// Package codegen is the registry of Capsulang's compilation backends.
//
// Compilation is a deployment and performance path from checked Capsule
// Core, never a replacement for the interpreter: every backend starts from
// a module without errors, and every backend reports what it does not
// support, with the source span of each unsupported feature, instead of
// guessing. Plan walks a checked module for one target (or all) and lists
// those features; Compile produces the artifacts.
package codegen

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/lean"
	"github.com/capsulang/caps/codegen/mermaid"
	"github.com/capsulang/caps/codegen/react"
	"github.com/capsulang/caps/codegen/riscv64"
	"github.com/capsulang/caps/codegen/scxml"
	"github.com/capsulang/caps/codegen/solidity"
	"github.com/capsulang/caps/codegen/wasm"
	"github.com/capsulang/caps/codegen/xstate"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Status of a backend.
const (
	Implemented    = "implemented"
	NotImplemented = "not-implemented"
)

// Backend describes a compilation target.
type Backend struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// Covers says what the backend compiles: "functions" or "machines".
	Covers     string `json:"covers"`
	Extension  string `json:"extension"`
	Summary    string `json:"summary"`
	Subset     string `json:"subset"`
	Validation string `json:"validation"`
}

// Backends lists every target, implemented ones first.
var Backends = []*Backend{
	{Name: "wat", Status: Implemented, Covers: "functions", Extension: ".wat",
		Summary:    "WebAssembly text for people, assembling to the same bytes as the wasm target",
		Subset:     "pure functions over Bool, I32, I64/Int, U32, U64 (i64 ABI; Bool as i32), calls and recursion, requires/ensures",
		Validation: "wat2wasm (byte-identical to the wasm target), differential tests against the interpreter"},
	{Name: "wasm", Status: Implemented, Covers: "functions", Extension: ".wasm",
		Summary:    "binary WebAssembly written directly by caps; runs under wazero with `caps call --engine wasm`",
		Subset:     "as wat",
		Validation: "wasm-validate (wabt), wazero, differential fuzzing against the interpreter"},
	{Name: "riscv64", Status: Implemented, Covers: "functions", Extension: ".s",
		Summary:    "RV64IM assembly (GNU as) under the standard integer calling convention",
		Subset:     "as wat, with at most 8 parameters (a0-a7)",
		Validation: "riscv64-linux-gnu-as/ld and qemu-riscv64, differential tests against the interpreter"},
	{Name: "solidity", Status: Implemented, Covers: "functions", Extension: ".sol",
		Summary:    "one Solidity contract: an external pure function per compiled function, wrapping arithmetic as the interpreter does, every trap a revert CapsTrap(site)",
		Subset:     "as wat (Bool, I32, I64/Int, U32, U64 as bool, int32, int64, uint32, uint64)",
		Validation: "solc (npm solc, pinned) and go-ethereum's EVM, differential tests against the interpreter"},
	{Name: "lean", Status: Implemented, Covers: "functions", Extension: ".lean",
		Summary:    "Lean 4 definitions stating the interpreter's semantics (Int with explicit wrap-around, Except String for traps); unchecked unless a Lean toolchain checks them",
		Subset:     "as wat",
		Validation: "golden files; lean FILE when a Lean toolchain is on PATH (none on the reference machine: the output is marked UNCHECKED)"},
	{Name: "xstate", Status: Implemented, Covers: "machines", Extension: ".xstate.mjs",
		Summary:    "an XState v5 machine module (JavaScript) per machine: topology, context defaults, guards, assignments, timeouts, effect metadata",
		Subset:     "guards and assignments over Bool, integers, Text and enums, calling pure functions of that subset",
		Validation: "the real xstate package under node, on the scenarios of examples/scenarios"},
	{Name: "scxml", Status: Implemented, Covers: "machines", Extension: ".scxml",
		Summary:    "a W3C SCXML document per machine with a Capsulang namespace for effects and guard sources",
		Subset:     "as xstate",
		Validation: "XML well-formedness and structure against the machine"},
	{Name: "mermaid", Status: Implemented, Covers: "machines", Extension: ".mmd",
		Summary:    "Mermaid stateDiagram-v2 per machine and a flowchart of its effect graph (caps visualize)",
		Subset:     "every machine",
		Validation: "golden files"},
	{Name: "react", Status: Implemented, Covers: "surfaces", Extension: "/",
		Summary:    "a folder with a React component and TypeScript bindings per A2UI surface, the A2UI manifest, the protocol plan and message fixtures; user actions go to the host, no effect runs",
		Subset:     "every surface",
		Validation: "tsc --strict --noEmit and react-dom/server rendering of every surface (codegen/react/testdata/harness)"},
	{Name: "native-aarch64", Status: NotImplemented, Covers: "functions", Extension: "", Summary: "native AArch64 (through Wasm AOT) is planned; compile --target native-aarch64 writes the plan as JSON, no native code"},
}

// Lookup returns the named backend, or nil.
func Lookup(name string) *Backend {
	for _, b := range Backends {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// Names lists the backend names.
func Names() []string {
	var out []string
	for _, b := range Backends {
		out = append(out, b.Name)
	}
	return out
}

// Feature is an unsupported feature found by Plan.
type Feature struct {
	Decl    string      // the function or machine it is in
	Feature string      // what is not supported, and why
	Span    syntax.Span // where
}

// Plan is one target's readiness for a module.
type Plan struct {
	Target string
	Status string
	// Ready is true when the target compiles something and nothing it
	// covers is left out.
	Ready bool
	// Compiled lists the declarations the target compiles; Skipped those
	// it covers but cannot compile.
	Compiled    []string
	Skipped     []string
	Unsupported []Feature
	// Note explains a target that has nothing to do or is not implemented.
	Note string
}

func features(us []core.Unsupported) []Feature {
	var out []Feature
	for _, u := range us {
		out = append(out, Feature{Decl: u.Func, Feature: u.Feature, Span: u.Span})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Span.Start < out[j].Span.Start })
	return out
}

func countDecls(res *check.Result) (funcs, machines []string) {
	if res.File == nil || res.File.Module == nil {
		return
	}
	for _, d := range res.File.Module.Decls {
		switch d := d.(type) {
		case *ast.Function:
			funcs = append(funcs, d.Name.Name)
		case *ast.Machine:
			machines = append(machines, d.Name.Name)
		}
	}
	return
}

// PlanFor returns the plan of one target for a checked module.
func PlanFor(res *check.Result, target string) (*Plan, error) {
	b := Lookup(target)
	if b == nil {
		return nil, fmt.Errorf("unknown target %q; targets are %s", target, strings.Join(Names(), ", "))
	}
	p := &Plan{Target: target, Status: b.Status, Compiled: []string{}, Skipped: []string{}, Unsupported: []Feature{}}
	if b.Status != Implemented {
		p.Note = b.Summary
		return p, nil
	}
	funcs, machines := countDecls(res)
	switch b.Covers {
	case "functions":
		m := core.Lower(res)
		for _, f := range m.Funcs {
			if target == "riscv64" && len(f.Params) > riscv64.MaxParams {
				p.Skipped = append(p.Skipped, f.Name)
				p.Unsupported = append(p.Unsupported, Feature{Decl: f.Name, Feature: fmt.Sprintf("functions with more than %d parameters (the RV64 ABI here passes them in a0-a7)", riscv64.MaxParams), Span: f.Decl.Name.Span})
				continue
			}
			p.Compiled = append(p.Compiled, f.Name)
		}
		p.Skipped = append(p.Skipped, m.Skipped...)
		p.Unsupported = append(p.Unsupported, features(m.Unsupported)...)
		if len(funcs) == 0 {
			p.Note = "the module declares no function"
		}
	case "surfaces":
		p.Compiled = append(p.Compiled, react.Surfaces(res)...)
		if len(p.Compiled) == 0 {
			p.Note = "the module declares no surface"
		}
	case "machines":
		p.Compiled = append(p.Compiled, machines...)
		if len(machines) == 0 {
			p.Note = "the module declares no machine"
		} else if target != "mermaid" {
			p.Unsupported = features(xstate.Unsupported(res))
			bad := map[string]bool{}
			for _, f := range p.Unsupported {
				if m := strings.SplitN(f.Decl, ".", 2)[0]; m != "" {
					bad[m] = true
				}
			}
			if len(bad) > 0 {
				p.Compiled = nil
				for _, m := range machines {
					if bad[m] {
						p.Skipped = append(p.Skipped, m)
					} else {
						p.Compiled = append(p.Compiled, m)
					}
				}
			}
		}
	}
	if p.Compiled == nil {
		p.Compiled = []string{}
	}
	p.Ready = len(p.Compiled) > 0 && len(p.Unsupported) == 0
	return p, nil
}

// Artifact is one output file of a compilation.
type Artifact struct {
	// Name is a suggested file name suffix (for several machines); ""
	// for the single artifact. For a folder target (react) it is the
	// file's slash-separated path inside the folder.
	Name string
	Data []byte
}

// Output is the result of Compile.
type Output struct {
	Target    string
	Artifacts []Artifact
	Plan      *Plan
	// Check says whether a toolchain checked the artifact (lean only).
	Check *lean.Status
}

// ErrNothing is returned when a target has nothing to compile.
var ErrNothing = errors.New("nothing to compile")

// Compile compiles a checked module (without errors) for target.
func Compile(res *check.Result, target string) (*Output, error) {
	p, err := PlanFor(res, target)
	if err != nil {
		return nil, err
	}
	if p.Status != Implemented {
		return nil, fmt.Errorf("target %s is not implemented: %s", target, Lookup(target).Summary)
	}
	if len(p.Compiled) == 0 {
		why := p.Note
		if why == "" {
			why = "no declaration is in the target's subset (see caps compile-plan)"
		}
		return nil, fmt.Errorf("%w for %s: %s", ErrNothing, target, why)
	}
	out := &Output{Target: target, Plan: p}
	switch target {
	case "wat", "wasm":
		m, err := wasm.Compile(core.Lower(res))
		if err != nil {
			return nil, err
		}
		if target == "wat" {
			out.Artifacts = []Artifact{{Data: []byte(m.WAT)}}
		} else {
			out.Artifacts = []Artifact{{Data: m.Binary}}
		}
	case "riscv64":
		m := core.Lower(res)
		keep := m.Funcs[:0:0]
		for _, f := range m.Funcs {
			if len(f.Params) <= riscv64.MaxParams {
				keep = append(keep, f)
			}
		}
		if len(keep) != len(m.Funcs) {
			return nil, fmt.Errorf("some functions take more than %d parameters; see caps compile-plan", riscv64.MaxParams)
		}
		asm, err := riscv64.Compile(m)
		if err != nil {
			return nil, err
		}
		out.Artifacts = []Artifact{{Data: []byte(asm)}}
	case "solidity":
		c, err := solidity.Compile(core.Lower(res), solidity.Options{}, sitePlace(res))
		if err != nil {
			return nil, err
		}
		out.Artifacts = []Artifact{{Data: []byte(c.Source)}}
	case "lean":
		src, err := lean.Compile(core.Lower(res), sitePlace(res))
		if err != nil {
			return nil, err
		}
		st := lean.Check(src)
		if st.Checked {
			src = strings.Replace(src, lean.UncheckedMarker, "-- caps: checked by "+st.Tool, 1)
		}
		out.Check = &st
		out.Artifacts = []Artifact{{Data: []byte(src)}}
	case "xstate":
		r, err := xstate.Generate(res)
		if err != nil {
			return nil, err
		}
		out.Artifacts = []Artifact{{Data: []byte(r.Source)}}
	case "scxml":
		r, err := scxml.Generate(res)
		if err != nil {
			return nil, err
		}
		for _, d := range r.Documents {
			name := ""
			if len(r.Documents) > 1 {
				name = d.Machine
			}
			out.Artifacts = append(out.Artifacts, Artifact{Name: name, Data: []byte(d.Source)})
		}
	case "react":
		hash, err := load.IROptions(res).Hash(res.File.Module)
		if err != nil {
			return nil, err
		}
		files, err := react.Generate(res, hash)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			out.Artifacts = append(out.Artifacts, Artifact{Name: f.Path, Data: f.Data})
		}
	case "mermaid":
		s, err := mermaid.StateDiagrams(res, "")
		if err != nil {
			return nil, err
		}
		e, _ := mermaid.EffectGraphs(res, "")
		out.Artifacts = []Artifact{{Data: []byte(s + "\n" + e)}}
	}
	return out, nil
}

// sitePlace returns a function that names a site's place as "line L:C".
func sitePlace(res *check.Result) func(*core.Site) string {
	if res.File == nil || res.File.Source == nil || res.File.Source.CST == nil {
		return nil
	}
	lines := res.File.Source.CST.Lines
	return func(s *core.Site) string {
		return "line " + lines.Point(s.Span.Start).String()
	}
}
