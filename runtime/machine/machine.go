// Package machine runs Capsulang state machines (docs/language.md section
// 8, spec §08 and §15): a compiled Machine indexes its states, events and
// transitions once; an Instance steps through events with the step
// semantics of section 8.9, keeps a snapshot (state, context, logical
// clock), arms state timeouts on its logical clock, and hands the effect
// intents of each transition to an Executor: none in dry-run mode (the
// intents are only planned), deterministic mock handlers in mock mode, or
// host adapters behind a policy in live mode (package runtime/adapters).
//
// Everything an instance does is deterministic given its inputs (events,
// clock advances, cancellations) and the outcomes its executor reports: the
// same inputs give the same results, the same trace records and, through
// package runtime/ledger, the same ledger bytes.
package machine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/cond"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax/ast"
)

// Machine is a compiled machine of a checked module. It is immutable and
// safe for concurrent use by many instances.
type Machine struct {
	Name    string
	Module  string // the module's name
	Version string // the machine's (version "V"), or ""
	// Hash is the module's semantic hash (Options.Hash), recorded in
	// ledgers and trace records.
	Hash    string
	Context []Field
	Events  []*EventType
	States  []*State
	Initial *State
	// ContextType is the context as a record type (for JSON decoding of
	// snapshots and scenario expectations).
	ContextType *types.Record

	in       *interp.Interp
	res      *check.Result
	src      []byte
	mod      *ast.Module
	decl     *ast.Machine
	states   map[string]*State
	events   map[string]*EventType
	fields   map[string]int
	zero     []value.Value
	zeroVars map[string]value.Value
	// eventVar is true when a context field is called "event", which
	// changes how event.FIELD compiles; the fast paths are then off.
	eventVar bool
	// auth is the module's Authority IR; governed is set when it declares
	// an authority-policy, and envs holds each policy's condition
	// environment for this machine's context.
	auth     *authority.Model
	governed bool
	envs     map[*authority.Policy]*cond.Env
	envOf    func(*authority.Policy) *cond.Env // envs as a function, made once
	// progs holds each policy's rules compiled for this machine, progOf
	// reads it, and condFields are the context fields they read.
	progs      map[*authority.Policy][]*cond.Program
	progOf     func(*authority.Policy) []*cond.Program
	condFields []int
	// sites counts the effect intents of the machine's transitions.
	sites int
	// allCompiled is set when every condition that parses is compiled.
	allCompiled bool
	// claims are the machine's claims (claims.go), and acceptEv the
	// claims each event reads as facts, by event index.
	claims   []*ClaimSpec
	acceptEv map[int][]*ClaimSpec
}

// Field is a context or event field.
type Field struct {
	Name string
	Type types.Type
	ik   value.IntKind // the integer kind of an integer type, for fast checks
}

// EventType is a declared event.
type EventType struct {
	Name   string
	Index  int
	Fields []Field
	// Record is the payload as a record type (Kind "event").
	Record *types.Record
	index  map[string]int
	op     string // Machine.Event, the trace operation
}

// State is a state of the machine.
type State struct {
	Name    string
	Index   int
	Final   bool
	Timeout *Timeout
	// Transitions lists the state's transitions in source order.
	Transitions []*Transition
	on          [][]*Transition // by event index
}

// Timeout is a state's (timeout DURATION EVENT).
type Timeout struct {
	Millis int64
	Text   string // the duration as written: 48h
	Event  *EventType
}

// Transition is one (on EVENT ...) clause.
type Transition struct {
	From    *State
	Event   *EventType
	Guard   ast.Expr // nil when there is none
	Target  *State
	Effects []*EffectSpec

	guardText string
	assigns   []assign
	hasArgs   bool
	planned   []Effect // the planned effects when no intent has arguments
}

// EffectSpec is one effect intent of a transition as declared.
type EffectSpec struct {
	Index   int    // position in the transition's effects
	Name    string // db.write
	Target  string // operational.claims ("" when there is none)
	Extra   []string
	Args    []ast.Expr
	Retry   int   // further attempts after a failure
	Timeout int64 // milliseconds per attempt; 0: none
	// TimeoutText is the timeout as written (10m), "" when there is none.
	TimeoutText string
	OnError     *State // nil: no on-error route
	// Claim is the claim the effect's (claim FIELD) observes (nil
	// without one).
	Claim *ClaimSpec
	// Operation is the port tool, resource or agent skill the target
	// names, when the module declares it (for live adapters).
	Operation *ast.Operation
	// Endpoint is the declared endpoint of the target's port or agent.
	Endpoint string
	// Protocol is the declared protocol of the target's port or agent.
	Protocol string

	label  string
	source string // the intent as source, without arguments
	full   string // the intent as the authority's effect input sees it
	site   int    // the intent's number in the machine: its decision cache slot
	// control is set for an effect the authority runtime carries out.
	control bool
	// cands lists by policy the rules that may hold for the intent, and
	// reads the context slots they read (authority.go).
	cands map[*authority.Policy][]int
	reads [][]int
}

// Label is the effect and its targets, as written: db.write operational.claims.
func (e *EffectSpec) Label() string { return e.label }

func (e *EffectSpec) init() {
	s := e.Name
	if e.Target != "" {
		s += " " + e.Target
	}
	for _, x := range e.Extra {
		s += " " + x
	}
	e.label = s
	e.source = "(" + s + ")"
	e.full = authority.EffectString(e.Name, e.Target)
	e.control = authority.ControlEffects[e.Name]
}

// assign is one compiled assignment.
type assign struct {
	field int
	kind  assignKind
	expr  ast.Expr
	c     value.Value // assignConst
	src   int         // assignField: the context field; assignEvent: the payload field's name index
	name  string      // assignEvent: the payload field
}

type assignKind uint8

const (
	assignExpr  assignKind = iota // evaluate with the interpreter
	assignConst                   // a literal, evaluated once
	assignField                   // a bare context field
	assignEvent                   // event.FIELD
)

// Options configure Compile.
type Options struct {
	// Interp evaluates guards, assignments and effect arguments; nil
	// means interp.New(res).
	Interp *interp.Interp
	// Hash is the module's semantic hash (load.Package.Hash).
	Hash string
}

// Names lists the machines of a checked module, in declaration order.
func Names(res *check.Result) []string {
	var out []string
	if res == nil || res.File == nil || res.File.Module == nil {
		return nil
	}
	for _, d := range res.File.Module.Decls {
		if m, ok := d.(*ast.Machine); ok {
			out = append(out, m.Name.Name)
		}
	}
	return out
}

// Compile compiles the machine called name of a checked module.
func Compile(res *check.Result, name string, opts Options) (*Machine, error) {
	if res == nil || res.File == nil || res.File.Module == nil {
		return nil, fmt.Errorf("the file holds no module")
	}
	if res.HasErrors() {
		return nil, fmt.Errorf("module %s has errors; only checked modules run", res.File.Module.Name.Name)
	}
	var decl *ast.Machine
	for _, d := range res.File.Module.Decls {
		if m, ok := d.(*ast.Machine); ok && m.Name.Name == name {
			decl = m
		}
	}
	if decl == nil {
		names := Names(res)
		msg := fmt.Sprintf("module %s has no machine %q", res.File.Module.Name.Name, name)
		switch best := spell.Nearest(name, names); {
		case best != "":
			msg += spell.Hint(best, spell.Go)
		case len(names) > 0:
			msg += "; its machines are " + strings.Join(names, ", ")
		default:
			msg += "; it declares no machines"
		}
		return nil, fmt.Errorf("%s", msg)
	}
	in := opts.Interp
	if in == nil {
		in = interp.New(res)
	}
	m := &Machine{
		Name:   name,
		Module: res.File.Module.Name.Name,
		Hash:   opts.Hash,
		in:     in,
		res:    res,
		mod:    res.File.Module,
		decl:   decl,
		states: map[string]*State{},
		events: map[string]*EventType{},
		fields: map[string]int{},
	}
	if decl.Version != nil {
		m.Version = decl.Version.Value
	}
	if res.File.Source != nil && res.File.Source.CST != nil {
		m.src = res.File.Source.CST.Src
	}
	// Field types come from the checker's symbols.
	var machSym *check.Symbol
	for _, s := range res.Symbols {
		if s.Kind == check.SymbolKind(ast.KindMachine) && s.Decl == decl {
			machSym = s
		}
	}
	ctxTypes := map[string]types.Type{}
	evTypes := map[string]map[string]types.Type{}
	for _, s := range res.Symbols {
		switch s.Kind {
		case check.SymContextField:
			if s.Parent == machSym {
				ctxTypes[s.Name] = s.Type
			}
		case check.SymEventField:
			if s.Parent != nil && s.Parent.Parent == machSym {
				if evTypes[s.Parent.Name] == nil {
					evTypes[s.Parent.Name] = map[string]types.Type{}
				}
				evTypes[s.Parent.Name][s.Name] = s.Type
			}
		}
	}
	m.ContextType = &types.Record{Name: name + ".context", Kind: "record"}
	m.zeroVars = map[string]value.Value{}
	for i, f := range decl.Context {
		t := ctxTypes[f.Name.Name]
		if t == nil {
			return nil, fmt.Errorf("machine %s: context field %s has no type", name, f.Name.Name)
		}
		z, ok := value.Zero(t)
		if !ok {
			return nil, fmt.Errorf("machine %s: context field %s has type %s, which has no zero value", name, f.Name.Name, t)
		}
		m.Context = append(m.Context, Field{Name: f.Name.Name, Type: t, ik: value.IntKindOf(t)})
		m.ContextType.Fields = append(m.ContextType.Fields, types.Field{Name: f.Name.Name, Type: t})
		m.fields[f.Name.Name] = i
		m.zero = append(m.zero, z)
		m.zeroVars[f.Name.Name] = z
		if f.Name.Name == "event" {
			m.eventVar = true
		}
	}
	for i, ev := range decl.Events {
		et := &EventType{Name: ev.Name.Name, Index: i, index: map[string]int{}, Record: &types.Record{Name: ev.Name.Name, Kind: "event"}, op: name + "." + ev.Name.Name}
		for j, f := range ev.Fields {
			t := evTypes[ev.Name.Name][f.Name.Name]
			if t == nil {
				return nil, fmt.Errorf("machine %s: event %s field %s has no type", name, ev.Name.Name, f.Name.Name)
			}
			et.Fields = append(et.Fields, Field{Name: f.Name.Name, Type: t, ik: value.IntKindOf(t)})
			et.Record.Fields = append(et.Record.Fields, types.Field{Name: f.Name.Name, Type: t})
			et.index[f.Name.Name] = j
		}
		m.Events = append(m.Events, et)
		m.events[et.Name] = et
	}
	if err := m.compileClaims(ctxTypes); err != nil {
		return nil, err
	}
	for i, st := range decl.States {
		s := &State{Name: st.Name.Name, Index: i, Final: st.Final, on: make([][]*Transition, len(m.Events))}
		m.States = append(m.States, s)
		m.states[s.Name] = s
	}
	m.Initial = m.states[decl.Initial.Name]
	if m.Initial == nil {
		return nil, fmt.Errorf("machine %s: unknown initial state %s", name, decl.Initial.Name)
	}
	for i, st := range decl.States {
		s := m.States[i]
		if to := st.Timeout; to != nil && to.Duration != nil {
			ev := m.events[to.Event.Name]
			if ev == nil {
				return nil, fmt.Errorf("machine %s: state %s times out with unknown event %s", name, s.Name, to.Event.Name)
			}
			s.Timeout = &Timeout{Millis: to.Duration.Millis, Text: to.Duration.Text, Event: ev}
		}
		for _, t := range st.Transitions {
			tr, err := m.compileTransition(s, t)
			if err != nil {
				return nil, err
			}
			s.Transitions = append(s.Transitions, tr)
			s.on[tr.Event.Index] = append(s.on[tr.Event.Index], tr)
		}
	}
	m.compileAuthority()
	return m, nil
}

func (m *Machine) compileTransition(s *State, t *ast.Transition) (*Transition, error) {
	ev := m.events[t.Event.Name]
	target := m.states[t.Target.Name]
	if ev == nil || target == nil {
		return nil, fmt.Errorf("machine %s: state %s: transition on %s has an unknown event or target", m.Name, s.Name, t.Event.Name)
	}
	tr := &Transition{From: s, Event: ev, Guard: t.Guard, Target: target}
	if t.Guard != nil {
		tr.guardText = m.exprText(t.Guard)
	}
	for _, a := range t.Assigns {
		fi, ok := m.fields[a.Field.Name]
		if !ok {
			return nil, fmt.Errorf("machine %s: assignment to unknown field %s", m.Name, a.Field.Name)
		}
		tr.assigns = append(tr.assigns, m.compileAssign(fi, ev, a.Value))
	}
	for i, e := range t.Effects {
		spec := &EffectSpec{Index: i, Name: e.Name.Name, Args: e.Args}
		if len(e.Targets) > 0 {
			spec.Target = e.Targets[0].Name
			for _, x := range e.Targets[1:] {
				spec.Extra = append(spec.Extra, x.Name)
			}
		}
		if e.Retry != nil && !e.Retry.Neg && !e.Retry.Overflow {
			spec.Retry = int(min(e.Retry.Mag, 1000))
		}
		if e.Timeout != nil {
			spec.Timeout, spec.TimeoutText = e.Timeout.Millis, e.Timeout.Text
		}
		if e.OnError.Valid() {
			spec.OnError = m.states[e.OnError.Name]
			if spec.OnError == nil {
				return nil, fmt.Errorf("machine %s: on-error names unknown state %s", m.Name, e.OnError.Name)
			}
		}
		if len(e.Args) > 0 {
			tr.hasArgs = true
		}
		if e.Claim.Valid() {
			if spec.Claim = m.claimSpec(e.Claim.Name); spec.Claim == nil {
				return nil, fmt.Errorf("machine %s: (claim %s) names no claim", m.Name, e.Claim.Name)
			}
		}
		m.resolveOperation(spec)
		spec.init()
		spec.site = m.sites
		m.sites++
		tr.Effects = append(tr.Effects, spec)
	}
	if !tr.hasArgs {
		for _, spec := range tr.Effects {
			tr.planned = append(tr.planned, Effect{Spec: spec, Index: spec.Index, Status: Planned})
		}
	}
	return tr, nil
}

// compileAssign picks a fast path for the common right-hand sides: a
// literal, a bare context field, event.FIELD.
func (m *Machine) compileAssign(field int, ev *EventType, e ast.Expr) assign {
	a := assign{field: field, kind: assignExpr, expr: e}
	switch x := e.(type) {
	case *ast.IntLit, *ast.BoolLit, *ast.StringLit, *ast.Duration, *ast.NoneLit:
		v, err := m.in.EvalExpr(e, interp.Env{Vars: m.zeroVars, Event: map[string]value.Value{}})
		if err == nil && value.Check(v, m.Context[field].Type) == nil {
			a.kind, a.c = assignConst, v
		}
	case *ast.Name:
		if m.eventVar {
			break
		}
		if len(x.Parts) == 1 {
			if fi, ok := m.fields[x.Parts[0].Name]; ok {
				a.kind, a.src = assignField, fi
			}
		} else if len(x.Parts) == 2 && x.Parts[0].Name == "event" {
			if _, ok := ev.index[x.Parts[1].Name]; ok {
				a.kind, a.name = assignEvent, x.Parts[1].Name
			}
		}
	}
	return a
}

// resolveOperation finds the declared port tool/resource/prompt or agent
// skill an effect's target names (port.tool), for adapters.
func (m *Machine) resolveOperation(spec *EffectSpec) {
	owner, op, ok := strings.Cut(spec.Target, ".")
	if !ok {
		return
	}
	for _, d := range m.mod.Decls {
		switch d := d.(type) {
		case *ast.Port:
			if d.Name.Name != owner {
				continue
			}
			if d.Endpoint != nil {
				spec.Endpoint = d.Endpoint.Value
			}
			if d.Protocol != nil {
				spec.Protocol = d.Protocol.Name.Name
			}
			for _, list := range [][]*ast.Operation{d.Tools, d.Resources, d.Prompts} {
				for _, o := range list {
					if o.Name.Name == op {
						spec.Operation = o
					}
				}
			}
		case *ast.Agent:
			if d.Name.Name != owner {
				continue
			}
			if d.Endpoint != nil {
				spec.Endpoint = d.Endpoint.Value
			}
			if d.Protocol != nil {
				spec.Protocol = d.Protocol.Name.Name
			}
			for _, o := range d.Skills {
				if o.Name.Name == op {
					spec.Operation = o
				}
			}
		}
	}
}

// State returns the named state.
func (m *Machine) State(name string) (*State, bool) {
	s, ok := m.states[name]
	return s, ok
}

// Event returns the named event.
func (m *Machine) Event(name string) (*EventType, bool) {
	e, ok := m.events[name]
	return e, ok
}

// FieldIndex returns the index of the named context field.
func (m *Machine) FieldIndex(name string) (int, bool) {
	i, ok := m.fields[name]
	return i, ok
}

// ZeroContext returns a new context with every field at its zero value.
func (m *Machine) ZeroContext() []value.Value {
	return append([]value.Value(nil), m.zero...)
}

// Interp is the interpreter the machine evaluates with.
func (m *Machine) Interp() *interp.Interp { return m.in }

// Checked returns the checked module the machine was compiled from.
func (m *Machine) Checked() *check.Result { return m.res }

// Handles lists the events state s has transitions for, sorted.
func (s *State) Handles() []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range s.Transitions {
		if !seen[t.Event.Name] {
			seen[t.Event.Name] = true
			out = append(out, t.Event.Name)
		}
	}
	sort.Strings(out)
	return out
}

// exprText is an expression's source text (on one line), for diagnostics.
func (m *Machine) exprText(e ast.Expr) string {
	sp := e.ExprSpan()
	if sp.Start < 0 || sp.End > len(m.src) || sp.Start >= sp.End {
		return "the guard"
	}
	return strings.Join(strings.Fields(string(m.src[sp.Start:sp.End])), " ")
}
