package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/machinerun"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Dry runs: capsulang.dryRun runs a machine in dry-run mode (effects are
// planned, never executed) over given events, a scenario file, the
// scenario files beside the capsule, or, without any, the shortest event
// path from the initial state to each final state with zero payloads. It
// steps through runtime/machinerun, as caps machine-run --mode dry-run
// does: payload fields an event leaves out get zero values (except in a
// scenario's events, kept as strict as caps test keeps them). The last
// dry run of each machine is kept and drawn as inlay hints at each
// transition it took.
func init() {
	commands["capsulang.dryRun"] = dryRunCommand
	requests["textDocument/inlayHint"] = documentOnly(inlayHints)
}

type dryStep struct {
	Event    string `json:"event"`
	From     string `json:"from"`
	To       string `json:"to"`
	Accepted bool   `json:"accepted"`
	// Defaulted lists the payload fields given zero values.
	Defaulted []string         `json:"defaulted,omitempty"`
	Effects   []map[string]any `json:"effects"`
	Context   json.RawMessage  `json:"context,omitempty"`
	Error     string           `json:"error,omitempty"`
	Code      string           `json:"code,omitempty"`
	Range     *protocol.Range  `json:"range,omitempty"`
	span      syntax.Span
}

type dryRun struct {
	Name    string    `json:"name"`
	Final   string    `json:"final,omitempty"`
	Blocked bool      `json:"blocked"`
	Steps   []dryStep `json:"steps"`
}

// rememberDryRun makes run the document's last dry run of a machine.
func (c *docCache) rememberDryRun(machineName string, run dryRun) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dryRuns == nil {
		c.dryRuns = map[string]dryRun{}
	}
	c.dryRuns[machineName] = run
}

// lastDryRuns returns the document's last dry run of each machine.
func (c *docCache) lastDryRuns() []dryRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]dryRun, 0, len(c.dryRuns))
	for _, r := range c.dryRuns {
		out = append(out, r)
	}
	return out
}

type dryArgs struct {
	URI     protocol.DocumentURI `json:"uri"`
	Machine string               `json:"machine"`
	Events  []struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	} `json:"events"`
	Scenario string `json:"scenario"`
}

func dryRunCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a dryArgs
	sn, err := s.commandSnapshot(raw, &a, &a.URI)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) {
		pkg, err := sn.checkedWithoutErrors("a dry run")
		if err != nil {
			return nil, err
		}
		mdecl := findMachine(pkg.File.Module, a.Machine)
		if mdecl == nil {
			return nil, rpcError(errInvalidParams, "no machine "+a.Machine+" in this document")
		}
		m, err := machine.Compile(pkg.Result, mdecl.Name.Name, machine.Options{})
		if err != nil {
			return nil, rpcWrap(errRequestFailed, err)
		}
		var runs []dryRun
		switch {
		case len(a.Events) > 0:
			var ins []machinerun.Input
			for _, e := range a.Events {
				ins = append(ins, machinerun.EventInput(e.Event, e.Payload))
			}
			runs = append(runs, s.runEvents(ctx, sn, m, mdecl, "events", ins, false))
		default:
			if runs, err = s.scenarioRuns(ctx, sn, m, mdecl, a.Scenario); err != nil {
				return nil, err
			}
			if len(runs) == 0 {
				runs = s.pathRuns(ctx, sn, m, mdecl)
			}
		}
		// remember the steps for inlay hints: the union of all runs
		var merged dryRun
		for _, r := range runs {
			merged.Steps = append(merged.Steps, r.Steps...)
		}
		sn.cache.rememberDryRun(mdecl.Name.Name, merged)
		s.refreshInlayHints()
		out := map[string]any{"machine": mdecl.Name.Name, "initial": mdecl.Initial.Name, "runs": runs, "steps": []dryStep{}}
		if len(runs) > 0 {
			out["steps"] = runs[0].Steps
			out["final"] = runs[0].Final
		}
		return out, nil
	}, nil
}

func findMachine(mod *ast.Module, name string) *ast.Machine {
	if mod == nil {
		return nil
	}
	var first *ast.Machine
	for _, d := range mod.Decls {
		if m, ok := d.(*ast.Machine); ok {
			if first == nil {
				first = m
			}
			if m.Name.Name == name {
				return m
			}
		}
	}
	if name == "" {
		return first
	}
	return nil
}

// runEvents steps a fresh dry-run instance through events, up to the
// first that fails; strict keeps the payloads as they are.
func (s *Server) runEvents(ctx context.Context, sn *snapshot, m *machine.Machine, mdecl *ast.Machine, name string, evs []machinerun.Input, strict bool) dryRun {
	run := dryRun{Name: name, Steps: []dryStep{}}
	mr, err := machinerun.Start(sn.Package(), sn.path, m, machinerun.Options{Mode: machine.DryRun, StrictPayloads: strict})
	if err != nil {
		run.Blocked = true
		return run
	}
	defer mr.Close()
	for _, ev := range evs {
		steps, _ := mr.Apply(ctx, ev) // an event: one step, no error
		r := &steps[0]
		st := dryStep{Event: r.Event, From: r.From, To: r.To, Accepted: r.OK, Defaulted: r.Defaulted, Effects: []map[string]any{}, Context: m.ContextJSON(r.Context)}
		for _, e := range r.Effects {
			em := map[string]any{"effect": e.Spec.Name, "target": e.Spec.Target, "status": string(e.Status)}
			if e.Authority != nil {
				em["authority"] = e.Authority
			}
			st.Effects = append(st.Effects, em)
		}
		if r.Failure != nil {
			st.Error, st.Code = r.Failure.Message, r.Failure.Code
			run.Blocked = true
		}
		if f := transitionForm(mdecl, r.From, r.Event, r.Target); f != nil {
			st.span = f.Span()
			rg := sn.rng(f.Span())
			st.Range = &rg
		}
		run.Steps = append(run.Steps, st)
		if r.Failure != nil {
			break
		}
	}
	return run
}

// transitionForm finds the (on EVENT ...) clause a step took (or, for a
// failed event, the first one for the event in that state).
func transitionForm(m *ast.Machine, from, event, target string) *syntax.Form {
	var first *syntax.Form
	for _, st := range m.States {
		if st.Name.Name != from {
			continue
		}
		for _, t := range st.Transitions {
			if t.Event.Name != event {
				continue
			}
			if first == nil {
				first = t.Form
			}
			if target == "" || t.Target.Name == target {
				return t.Form
			}
		}
	}
	return first
}

type eventPath struct {
	final  string
	events []string
}

// shortestPaths finds, by breadth-first search over the transitions, the
// shortest event path from the initial state to each final state.
func shortestPaths(m *ast.Machine) []eventPath {
	type node struct {
		state string
		path  []string
	}
	final := map[string]bool{}
	for _, st := range m.States {
		if st.Final {
			final[st.Name.Name] = true
		}
	}
	seen := map[string]bool{m.Initial.Name: true}
	queue := []node{{m.Initial.Name, nil}}
	var out []eventPath
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if final[n.state] {
			out = append(out, eventPath{n.state, n.path})
			continue
		}
		for _, st := range m.States {
			if st.Name.Name != n.state {
				continue
			}
			for _, t := range st.Transitions {
				if seen[t.Target.Name] {
					continue
				}
				seen[t.Target.Name] = true
				queue = append(queue, node{t.Target.Name, append(append([]string(nil), n.path...), t.Event.Name)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].final < out[j].final })
	return out
}

// scenarioRuns replays the scenario file named by the command, or else
// those beside the capsule; an unusable file is an InvalidParams error.
func (s *Server) scenarioRuns(ctx context.Context, sn *snapshot, m *machine.Machine, mdecl *ast.Machine, arg string) ([]dryRun, error) {
	files, err := s.scenarioFiles(sn.path, arg, mdecl.Name.Name)
	if err != nil {
		return nil, rpcWrap(errInvalidParams, err)
	}
	var runs []dryRun
	for _, f := range files {
		evs, err := f.events(mdecl.Name.Name)
		if err != nil {
			return nil, rpcWrap(errInvalidParams, err)
		}
		var ins []machinerun.Input
		for _, ev := range evs {
			ins = append(ins, machinerun.Input{Text: ev.Name, Event: ev})
		}
		runs = append(runs, s.runEvents(ctx, sn, m, mdecl, filepath.Base(f.name), ins, true))
	}
	return runs, nil
}

// pathRuns runs the shortest event path to each final state, with zero
// payloads (every field defaulted).
func (s *Server) pathRuns(ctx context.Context, sn *snapshot, m *machine.Machine, mdecl *ast.Machine) []dryRun {
	var runs []dryRun
	for _, p := range shortestPaths(mdecl) {
		var evs []machinerun.Input
		for _, name := range p.events {
			evs = append(evs, machinerun.EventInput(name, nil))
		}
		run := s.runEvents(ctx, sn, m, mdecl, "path to "+p.final, evs, false)
		run.Final = p.final
		runs = append(runs, run)
	}
	return runs
}

// scenarioFiles returns the scenario files a dry run replays: the one
// named by the command, or else those beside the capsule.
func (s *Server) scenarioFiles(docPath, arg, machineName string) ([]scenarioFile, error) {
	if arg == "" {
		return besideScenarios(docPath, machineName)
	}
	f, err := s.namedScenario(docPath, arg)
	if err != nil {
		return nil, err
	}
	return []scenarioFile{f}, nil
}

// ---- inlay hints (LSP 3.17; go.lsp.dev/protocol stops at 3.16)

type inlayHint struct {
	Position     protocol.Position `json:"position"`
	Label        string            `json:"label"`
	Kind         int               `json:"kind,omitempty"`
	Tooltip      string            `json:"tooltip,omitempty"`
	PaddingLeft  bool              `json:"paddingLeft,omitempty"`
	PaddingRight bool              `json:"paddingRight,omitempty"`
}

// inlayHints draws the last dry run of each machine at the transitions it
// took: the resulting state and the effect intents, or why it was refused.
func inlayHints(_ context.Context, sn *snapshot) (any, error) {
	out := []inlayHint{}
	src := sn.cst.Src
	for _, run := range sn.cache.lastDryRuns() {
		for _, st := range run.Steps {
			if st.span.End == 0 || st.span.End > len(src) {
				continue
			}
			label := "⇒ " + st.To
			if !st.Accepted {
				label = "✗ " + st.Code
			}
			var effs []string
			for _, e := range st.Effects {
				t, _ := e["target"].(string)
				eff := strings.TrimSpace(fmt.Sprint(e["effect"]) + " " + t)
				if status, _ := e["status"].(string); status != "" && status != "planned" {
					eff += " (" + status + ")" // what the authority would deny, escalate, defer or hold
				}
				effs = append(effs, eff)
			}
			if len(effs) > 0 {
				label += " · " + strings.Join(effs, ", ")
			}
			tip := fmt.Sprintf("dry run (%s): %s -> %s on %s", run.Name, st.From, st.To, st.Event)
			if st.Error != "" {
				tip += ": " + st.Error
			}
			pos := sn.rng(syntax.Span{Start: st.span.End, End: st.span.End}).Start
			out = append(out, inlayHint{Position: pos, Label: label, Tooltip: tip, PaddingLeft: true})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Position, out[j].Position
		return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
	})
	return out, nil
}

// refreshInlayHints asks the client to re-request inlay hints, when it
// supports that.
func (s *Server) refreshInlayHints() {
	s.mu.Lock()
	ok := s.clientInlayRefresh
	s.mu.Unlock()
	if ok {
		go s.conn.Call(context.Background(), "workspace/inlayHint/refresh", nil, nil)
	}
}
