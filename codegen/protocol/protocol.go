// Package protocol exports the protocol-native surface of a checked module:
// its MCP ports (tools, resources, prompts), its A2A collaborators
// (discovery, auth, skills), its A2UI surfaces (state, actions, user
// confirmation) and every typed protocol effect its machines and functions
// emit, with the transitions that emit them.
//
// From that it builds four artifacts, all deterministic (the same module
// gives the same bytes):
//
//   - the protocol plan (Build), what `caps protocol-plan` prints;
//   - the A2UI v0.9 manifest of every surface (BuildManifest), what
//     `caps a2ui-manifest` prints;
//   - A2UI v0.9 server-to-client messages for one surface (Envelope):
//     createSurface, updateComponents, updateDataModel and deleteSurface,
//     what `caps a2ui-envelope` prints; updateDataModel values are
//     type-checked against the surface's data model. Builder builds them,
//     for the command, the plan, the React target's fixtures and the live
//     A2UI adapter (runtime/adapters) alike;
//   - the architecture plan (BuildArchitecture and Mermaid): stores,
//     ports, agents, surfaces, machines with their persistence, and effects
//     grouped by target and by determinism class.
//
// The A2UI messages follow the A2UI v0.9 specification
// (specification/v0_9/json/server_to_client.json of the A2UI project): every
// message carries "version": "v0.9" and exactly one of the four message
// keys; components come from the v0.9 basic catalog (Card, Column, Row,
// Text, TextField, CheckBox, Button), data bindings are {"path": POINTER}
// and buttons send {"event": {"name", "context"}} actions. docs/protocols.md
// describes every shape.
package protocol

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// A2UIVersion is the A2UI protocol version of every message.
const A2UIVersion = "v0.9"

// BasicCatalog is the catalog id of a surface that names none: the A2UI
// v0.9 basic catalog, whose components the generated trees use.
const BasicCatalog = "https://a2ui.org/specification/v0_9/basic_catalog.json"

// Field is a named, typed input, state or context field.
type Field struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Operation is a port's tool, resource or prompt, or an agent's skill.
type Operation struct {
	Name   string  `json:"name"`
	Input  []Field `json:"input"`
	Output string  `json:"output,omitempty"`
}

// Port is a declared MCP (or HTTP) port.
type Port struct {
	Name      string      `json:"name"`
	Protocol  string      `json:"protocol"`
	Version   string      `json:"version,omitempty"`
	Endpoint  string      `json:"endpoint,omitempty"`
	Auth      string      `json:"auth,omitempty"`
	Summary   string      `json:"summary,omitempty"`
	Tools     []Operation `json:"tools"`
	Resources []Operation `json:"resources"`
	Prompts   []Operation `json:"prompts"`
}

// Agent is a declared A2A (or HTTP) collaborator.
type Agent struct {
	Name      string      `json:"name"`
	Protocol  string      `json:"protocol"`
	Version   string      `json:"version,omitempty"`
	Endpoint  string      `json:"endpoint,omitempty"`
	Discovery string      `json:"discovery,omitempty"`
	Auth      string      `json:"auth,omitempty"`
	Summary   string      `json:"summary,omitempty"`
	Skills    []Operation `json:"skills"`
}

// Action is a user action of a surface: a declared (action ...) or a bound
// machine event listed in (event ...).
type Action struct {
	Name string `json:"name"`
	// Kind is "action" for a declared action, "event" for a machine event
	// the surface sends.
	Kind                     string  `json:"kind"`
	Input                    []Field `json:"input"`
	RequiresUserConfirmation bool    `json:"requires_user_confirmation"`
}

// Surface is a declared A2UI surface.
type Surface struct {
	Name      string `json:"name"`
	Protocol  string `json:"protocol"`
	Version   string `json:"version"`
	CatalogID string `json:"catalog_id"`
	Title     string `json:"title"`
	Route     string `json:"route,omitempty"`
	Bind      string `json:"bind,omitempty"`
	// State is the declared (state ...) fields.
	State []Field `json:"state"`
	// DataModel is the surface's data model: its state, or, for a surface
	// that declares none, the bound machine's context and its current
	// state (the field "state").
	DataModel []Field  `json:"data_model"`
	Actions   []Action `json:"actions"`
}

// Emitter is one place that emits a protocol effect: a machine
// transition (machine, state, event, to) or a function.
type Emitter struct {
	Machine   string  `json:"machine,omitempty"`
	State     string  `json:"state,omitempty"`
	Event     string  `json:"event,omitempty"`
	To        string  `json:"to,omitempty"`
	Function  string  `json:"function,omitempty"`
	Retry     *uint64 `json:"retry,omitempty"`
	TimeoutMS *int64  `json:"timeout_ms,omitempty"`
	OnError   string  `json:"on_error,omitempty"`
	// Span is the effect intent in the source.
	Span syntax.Span `json:"-"`
}

// Contract is what a protocol effect targets: a port's tool, resource or
// prompt, an agent or one of its skills, a surface or one of its actions.
type Contract struct {
	// Kind is tool, resource, prompt, agent, skill, surface or action.
	Kind string `json:"kind"`
	// Declaration is the port, agent or surface.
	Declaration string `json:"declaration"`
	// Name is the operation, or the declaration for agent and surface.
	Name     string  `json:"name"`
	Protocol string  `json:"protocol"`
	Version  string  `json:"version,omitempty"`
	Input    []Field `json:"input,omitempty"`
	Output   string  `json:"output,omitempty"`
	// State is a surface's data model.
	State                    []Field `json:"state,omitempty"`
	RequiresUserConfirmation bool    `json:"requires_user_confirmation,omitempty"`
	// Span is the declaring form of the operation or declaration.
	Span syntax.Span `json:"-"`
}

// Effect is one typed protocol effect (an effect name and its target)
// and everything that emits it.
type Effect struct {
	Effect      string    `json:"effect"`
	Protocol    string    `json:"protocol"`
	Target      string    `json:"target"`
	TargetKind  string    `json:"target_kind"`
	Determinism string    `json:"determinism"`
	Contract    *Contract `json:"contract"`
	EmittedBy   []Emitter `json:"emitted_by"`
}

// Envelopes are the renderer-ready messages of one surface: createSurface,
// updateComponents and updateDataModel with the default data model.
type Envelopes struct {
	Surface  string    `json:"surface"`
	Messages []Message `json:"messages"`
}

// Plan is the protocol plan of a module.
type Plan struct {
	Module    string      `json:"module"`
	Hash      string      `json:"semantic_hash"`
	Ports     []Port      `json:"ports"`
	Agents    []Agent     `json:"agents"`
	Surfaces  []Surface   `json:"surfaces"`
	Effects   []Effect    `json:"effects"`
	Envelopes []Envelopes `json:"envelopes"`
}

// protocolDomains are the effect domains of the protocol effects.
var protocolDomains = map[string]bool{"mcp": true, "a2a": true, "a2ui": true, "http": true}

// IsProtocolEffect reports whether the named effect is a typed protocol
// effect (MCP, A2A, A2UI or HTTP).
func IsProtocolEffect(name string) bool {
	e := catalog.LookupEffect(name)
	return e != nil && protocolDomains[e.Domain]
}

// module holds the declarations of a checked module by name, and the
// types of their fields.
type module struct {
	res      *check.Result
	mod      *ast.Module
	ports    map[string]*ast.Port
	agents   map[string]*ast.Agent
	surfaces map[string]*ast.Surface
	machines map[string]*ast.Machine
	stores   map[string]*ast.Store
	typeDecl map[string]types.Type
}

func newModule(res *check.Result) *module {
	m := &module{res: res, ports: map[string]*ast.Port{}, agents: map[string]*ast.Agent{}, surfaces: map[string]*ast.Surface{},
		machines: map[string]*ast.Machine{}, stores: map[string]*ast.Store{}, typeDecl: map[string]types.Type{}}
	if res == nil || res.File == nil || res.File.Module == nil {
		return m
	}
	m.mod = res.File.Module
	for _, d := range m.mod.Decls {
		switch d := d.(type) {
		case *ast.Port:
			m.ports[d.Name.Name] = d
		case *ast.Agent:
			m.agents[d.Name.Name] = d
		case *ast.Surface:
			m.surfaces[d.Name.Name] = d
		case *ast.Machine:
			m.machines[d.Name.Name] = d
		case *ast.Store:
			m.stores[d.Name.Name] = d
		}
	}
	for _, s := range res.Symbols {
		if s.Parent == nil && s.Kind == check.SymbolKind(ast.KindType) && s.Type != nil {
			if _, ok := m.typeDecl[s.Name]; !ok {
				m.typeDecl[s.Name] = s.Type
			}
		}
	}
	return m
}

// resolve returns the type a type expression names (types.TInvalid when
// it names none).
func (m *module) resolve(t *ast.TypeRef) types.Type {
	if t == nil {
		return types.TInvalid
	}
	if b, ok := types.Builtins[t.Name.Name]; ok && len(t.Args) == 0 {
		return b
	}
	args := make([]types.Type, len(t.Args))
	for i, a := range t.Args {
		args[i] = m.resolve(a)
	}
	switch t.Name.Name {
	case "List", "Vector":
		if len(args) == 1 {
			return &types.List{Elem: args[0]}
		}
	case "Array":
		if len(args) == 1 && t.ArrayLen() != nil {
			return &types.Array{Elem: args[0], Len: int(t.ArrayLen().Mag)}
		}
	case "Option":
		if len(args) == 1 {
			return &types.Option{Elem: args[0]}
		}
	case "Result":
		if len(args) == 2 {
			return &types.Result{Ok: args[0], Err: args[1]}
		}
	case "Map":
		if len(args) == 2 {
			return &types.Map{Key: args[0], Value: args[1]}
		}
	}
	if tt, ok := m.typeDecl[t.Name.Name]; ok && len(args) == 0 {
		return tt
	}
	return types.TInvalid
}

// TypeString writes a type expression as in the source: U64,
// (List Claim), (Array U8 4).
func TypeString(t *ast.TypeRef) string {
	if t == nil {
		return ""
	}
	if len(t.Args) == 0 && t.ArrayLen() == nil {
		return t.Name.Name
	}
	var b strings.Builder
	b.WriteString("(" + t.Name.Name)
	for _, a := range t.Args {
		b.WriteString(" " + TypeString(a))
	}
	if t.ArrayLen() != nil {
		b.WriteString(" " + t.ArrayLen().Text)
	}
	return b.String() + ")"
}

func fields(fs []*ast.Field) []Field {
	out := []Field{}
	for _, f := range fs {
		if f == nil || !f.Name.Valid() {
			continue
		}
		out = append(out, Field{Name: f.Name.Name, Type: TypeString(f.Type)})
	}
	return out
}

func operations(ops []*ast.Operation) []Operation {
	out := []Operation{}
	for _, op := range ops {
		if op == nil || !op.Name.Valid() {
			continue
		}
		out = append(out, Operation{Name: op.Name.Name, Input: fields(op.Inputs), Output: TypeString(op.Output)})
	}
	return out
}

func str(s *ast.StringLit) string {
	if s == nil {
		return ""
	}
	return s.Value
}

func protoName(p *ast.Protocol) (string, string) {
	if p == nil {
		return "", ""
	}
	return p.Name.Name, str(p.Version)
}

// clauseWord returns the first argument of the named clause as text: a
// symbol's name or a string's decoded value.
func clauseWord(cls []*ast.Clause, key string) string {
	for _, c := range cls {
		if c != nil && c.Key.Name == key && len(c.Args) > 0 {
			a := c.Args[0]
			return a.Text()
		}
	}
	return ""
}

func (m *module) port(p *ast.Port) Port {
	proto, ver := protoName(p.Protocol)
	return Port{Name: p.Name.Name, Protocol: proto, Version: ver, Endpoint: str(p.Endpoint), Auth: clauseWord(p.Clauses, "auth"),
		Summary: clauseWord(p.Clauses, "summary"), Tools: operations(p.Tools), Resources: operations(p.Resources), Prompts: operations(p.Prompts)}
}

func (m *module) agent(a *ast.Agent) Agent {
	proto, ver := protoName(a.Protocol)
	return Agent{Name: a.Name.Name, Protocol: proto, Version: ver, Endpoint: str(a.Endpoint), Discovery: clauseWord(a.Clauses, "discovery"),
		Auth: clauseWord(a.Clauses, "auth"), Summary: clauseWord(a.Clauses, "summary"), Skills: operations(a.Skills)}
}

// confirms reports whether an action declares (requires-user-confirmation
// true).
func confirms(op *ast.Operation) bool {
	for _, c := range op.Clauses {
		if c.Key.Name == "requires-user-confirmation" {
			return len(c.Args) == 0 || c.Args[0].Text() == "true"
		}
	}
	return false
}

// dataField is a data model field with its resolved type and the span of
// its declaration.
type dataField struct {
	Field
	typ  types.Type
	span syntax.Span
	// def is the default JSON value when the type's zero value is not it
	// (the initial state of a bound machine).
	def string
}

// dataModel returns the fields of a surface's data model: its declared
// state, or the bound machine's context and "state".
func (m *module) dataModel(s *ast.Surface) []dataField {
	var out []dataField
	if len(s.State) > 0 {
		for _, f := range s.State {
			if f == nil || !f.Name.Valid() {
				continue
			}
			out = append(out, dataField{Field: Field{f.Name.Name, TypeString(f.Type)}, typ: m.resolve(f.Type), span: f.Form.Span()})
		}
		return out
	}
	mc := m.machines[s.Bind.Name]
	if mc == nil {
		return nil
	}
	for _, f := range mc.Context {
		if f == nil || !f.Name.Valid() {
			continue
		}
		out = append(out, dataField{Field: Field{f.Name.Name, TypeString(f.Type)}, typ: m.resolve(f.Type), span: f.Form.Span()})
	}
	st := &types.Enum{Name: mc.Name.Name + ".state"}
	for _, x := range mc.States {
		st.Members = append(st.Members, x.Name.Name)
	}
	def, _ := json.Marshal(mc.Initial.Name)
	return append(out, dataField{Field{"state", "Text"}, st, mc.Name.Span, string(def)})
}

func (m *module) surface(s *ast.Surface) Surface {
	proto, ver := protoName(s.Protocol)
	if proto == "" {
		proto = "a2ui"
	}
	if ver == "" {
		ver = A2UIVersion
	}
	out := Surface{Name: s.Name.Name, Protocol: proto, Version: ver, CatalogID: str(s.Catalog), Title: str(s.Title), Route: str(s.Route),
		Bind: s.Bind.Name, State: fields(s.State), DataModel: []Field{}, Actions: m.actions(s)}
	if out.CatalogID == "" {
		out.CatalogID = BasicCatalog
	}
	if out.Title == "" {
		out.Title = humanize(s.Name.Name)
	}
	for _, f := range m.dataModel(s) {
		out.DataModel = append(out.DataModel, f.Field)
	}
	return out
}

// actions lists a surface's declared actions, then the machine events it
// sends.
func (m *module) actions(s *ast.Surface) []Action {
	out := []Action{}
	for _, a := range s.Actions {
		if a == nil || !a.Name.Valid() {
			continue
		}
		out = append(out, Action{Name: a.Name.Name, Kind: "action", Input: fields(a.Inputs), RequiresUserConfirmation: confirms(a)})
	}
	mc := m.machines[s.Bind.Name]
	for _, e := range s.Events {
		act := Action{Name: e.Name, Kind: "event", Input: []Field{}}
		if mc != nil {
			for _, ev := range mc.Events {
				if ev.Name.Name == e.Name {
					act.Input = fields(ev.Fields)
				}
			}
		}
		out = append(out, act)
	}
	return out
}

// actionInputs returns the typed inputs of a surface's action or event.
func (m *module) actionInputs(s *ast.Surface, a Action) []dataField {
	var fs []*ast.Field
	if a.Kind == "action" {
		for _, op := range s.Actions {
			if op != nil && op.Name.Name == a.Name {
				fs = op.Inputs
				break
			}
		}
	} else if mc := m.machines[s.Bind.Name]; mc != nil {
		for _, ev := range mc.Events {
			if ev.Name.Name == a.Name {
				fs = ev.Fields
				break
			}
		}
	}
	var out []dataField
	for _, f := range fs {
		if f != nil && f.Name.Valid() {
			out = append(out, dataField{Field: Field{f.Name.Name, TypeString(f.Type)}, typ: m.resolve(f.Type), span: f.Form.Span()})
		}
	}
	return out
}

// humanize turns a name into words: approve_issue_creation becomes
// "Approve issue creation"; RejectIssueCreation stays as it is.
func humanize(name string) string {
	if !strings.Contains(name, "_") {
		return name
	}
	s := strings.TrimSpace(strings.ReplaceAll(name, "_", " "))
	if s == "" {
		return name
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Build returns the protocol plan of a checked module; hash is its
// semantic hash.
func Build(res *check.Result, hash string) *Plan {
	m := newModule(res)
	p := &Plan{Hash: hash, Ports: []Port{}, Agents: []Agent{}, Surfaces: []Surface{}, Effects: []Effect{}, Envelopes: []Envelopes{}}
	if m.mod == nil {
		return p
	}
	p.Module = m.mod.Name.Name
	for _, d := range m.mod.Decls {
		switch d := d.(type) {
		case *ast.Port:
			p.Ports = append(p.Ports, m.port(d))
		case *ast.Agent:
			p.Agents = append(p.Agents, m.agent(d))
		case *ast.Surface:
			p.Surfaces = append(p.Surfaces, m.surface(d))
			msgs := []Message{createSurface(m.surface(d))}
			msgs = append(msgs, m.updateComponents(d), m.defaultData(d))
			p.Envelopes = append(p.Envelopes, Envelopes{Surface: d.Name.Name, Messages: msgs})
		}
	}
	p.Effects = m.effects()
	return p
}

// effects collects the module's protocol effects, grouped by effect and
// target in the order they first appear.
func (m *module) effects() []Effect {
	out := []Effect{}
	index := map[string]int{}
	add := func(e *ast.Effect, em Emitter) {
		ce := catalog.LookupEffect(e.Name.Name)
		if ce == nil || !protocolDomains[ce.Domain] {
			return
		}
		target := ""
		if len(e.Targets) > 0 {
			target = e.Targets[0].Name
		}
		if e.Retry != nil {
			v := e.Retry.Mag
			em.Retry = &v
		}
		if e.Timeout != nil {
			v := e.Timeout.Millis
			em.TimeoutMS = &v
		}
		em.OnError = e.OnError.Name
		em.Span = e.Form.Span()
		key := e.Name.Name + " " + target
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			c := m.Contract(e.Name.Name, target)
			kind := strings.TrimSuffix(ce.Target, "-optional")
			if c != nil && (c.Kind == "agent" || c.Kind == "surface") {
				kind = c.Kind
			}
			out = append(out, Effect{Effect: e.Name.Name, Protocol: ce.Domain, Target: target, TargetKind: kind, Determinism: ce.Determinism, Contract: c, EmittedBy: []Emitter{}})
		}
		out[i].EmittedBy = append(out[i].EmittedBy, em)
	}
	for _, d := range m.mod.Decls {
		switch d := d.(type) {
		case *ast.Machine:
			for _, st := range d.States {
				for _, t := range st.Transitions {
					for _, e := range t.Effects {
						add(e, Emitter{Machine: d.Name.Name, State: st.Name.Name, Event: t.Event.Name, To: t.Target.Name})
					}
				}
			}
		case *ast.Function:
			if d.Effects != nil {
				for _, e := range d.Effects.Items {
					add(e, Emitter{Function: d.Name.Name})
				}
			}
		}
	}
	return out
}

// Contract returns what the protocol effect named effect targets at
// target (PORT.tool, AGENT.skill, AGENT, SURFACE, SURFACE.action), or nil
// when the effect is no protocol effect or the target is not declared.
func (m *module) Contract(effect, target string) *Contract {
	ce := catalog.LookupEffect(effect)
	if ce == nil || !protocolDomains[ce.Domain] {
		return nil
	}
	head, member, _ := strings.Cut(target, ".")
	kind := strings.TrimSuffix(ce.Target, "-optional")
	switch kind {
	case "port-tool", "port-resource":
		p := m.ports[head]
		if p == nil {
			return nil
		}
		proto, ver := protoName(p.Protocol)
		groups := []struct {
			kind string
			ops  []*ast.Operation
		}{{"tool", p.Tools}, {"resource", p.Resources}, {"prompt", p.Prompts}}
		for _, g := range groups {
			for _, op := range g.ops {
				if op.Name.Name == member {
					return &Contract{Kind: g.kind, Declaration: head, Name: member, Protocol: proto, Version: ver, Input: fields(op.Inputs), Output: TypeString(op.Output), Span: op.Form.Span()}
				}
			}
		}
	case "agent-skill":
		a := m.agents[head]
		if a == nil {
			return nil
		}
		proto, ver := protoName(a.Protocol)
		if member == "" {
			return &Contract{Kind: "agent", Declaration: head, Name: head, Protocol: proto, Version: ver, Span: a.Form.Span()}
		}
		for _, op := range a.Skills {
			if op.Name.Name == member {
				return &Contract{Kind: "skill", Declaration: head, Name: member, Protocol: proto, Version: ver, Input: fields(op.Inputs), Output: TypeString(op.Output), Span: op.Form.Span()}
			}
		}
	case "surface", "surface-action":
		s := m.surfaces[head]
		if s == nil {
			return nil
		}
		sf := m.surface(s)
		if member == "" {
			return &Contract{Kind: "surface", Declaration: head, Name: head, Protocol: sf.Protocol, Version: sf.Version, State: sf.DataModel, Span: s.Form.Span()}
		}
		for _, op := range s.Actions {
			if op.Name.Name == member {
				return &Contract{Kind: "action", Declaration: head, Name: member, Protocol: sf.Protocol, Version: sf.Version, Input: fields(op.Inputs), RequiresUserConfirmation: confirms(op), Span: op.Form.Span()}
			}
		}
	}
	return nil
}

// ContractOf returns the contract the protocol effect targets in a checked
// module (see Plan's effects), or nil.
func ContractOf(res *check.Result, effect, target string) *Contract {
	return newModule(res).Contract(effect, target)
}

// Describe writes a contract for people, as Markdown: its kind, the
// declaration, the protocol and the typed signature.
func (c *Contract) Describe() string {
	var b strings.Builder
	proto := c.Protocol
	if c.Version != "" {
		proto += " " + c.Version
	}
	switch c.Kind {
	case "agent", "surface":
		b.WriteString(c.Kind + " `" + c.Name + "` (" + proto + ")")
	default:
		owner := map[string]string{"tool": "port", "resource": "port", "prompt": "port", "skill": "agent", "action": "surface"}[c.Kind]
		b.WriteString(c.Kind + " `" + c.Declaration + "." + c.Name + "` of " + owner + " `" + c.Declaration + "` (" + proto + ")")
	}
	b.WriteString("\n\n```capsulang\n")
	switch c.Kind {
	case "agent":
		b.WriteString("(agent " + c.Name + ")")
	case "surface":
		b.WriteString("(state")
		for _, f := range c.State {
			b.WriteString(" (" + f.Name + " " + f.Type + ")")
		}
		b.WriteString(")")
	default:
		b.WriteString("(" + c.Kind + " " + c.Name)
		if len(c.Input) > 0 {
			b.WriteString(" (input")
			for _, f := range c.Input {
				b.WriteString(" (" + f.Name + " " + f.Type + ")")
			}
			b.WriteString(")")
		}
		if c.Output != "" {
			b.WriteString(" (output " + c.Output + ")")
		}
		b.WriteString(")")
	}
	b.WriteString("\n```")
	if c.RequiresUserConfirmation {
		b.WriteString("\n\nrequires user confirmation")
	}
	return b.String()
}

// SurfaceNames lists the module's surfaces in declaration order.
func SurfaceNames(res *check.Result) []string {
	var out []string
	if res == nil || res.File == nil || res.File.Module == nil {
		return nil
	}
	for _, d := range res.File.Module.Decls {
		if s, ok := d.(*ast.Surface); ok {
			out = append(out, s.Name.Name)
		}
	}
	return out
}

// Text summarizes the plan for people, one line per port, agent and
// surface, then the protocol effects and who emits them (what `caps
// protocol-plan` prints without --json, and the language server's
// capsulang.protocolPlan).
func (pl *Plan) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol plan of module %s\n", pl.Module)
	ops := func(word string, os []Operation) string {
		if len(os) == 0 {
			return ""
		}
		var ns []string
		for _, o := range os {
			ns = append(ns, o.Name)
		}
		return "; " + word + " " + strings.Join(ns, " ")
	}
	for _, pt := range pl.Ports {
		fmt.Fprintf(&b, "port %s (%s)%s%s%s\n", pt.Name, strings.TrimSpace(pt.Protocol+" "+pt.Version),
			ops("tools", pt.Tools), ops("resources", pt.Resources), ops("prompts", pt.Prompts))
	}
	for _, a := range pl.Agents {
		extra := ""
		if a.Discovery != "" {
			extra += ", discovery " + a.Discovery
		}
		if a.Auth != "" {
			extra += ", auth " + a.Auth
		}
		fmt.Fprintf(&b, "agent %s (%s%s)%s\n", a.Name, strings.TrimSpace(a.Protocol+" "+a.Version), extra, ops("skills", a.Skills))
	}
	for _, s := range pl.Surfaces {
		fmt.Fprintf(&b, "surface %s (%s %s)", s.Name, s.Protocol, s.Version)
		if s.Bind != "" {
			fmt.Fprintf(&b, " bound to %s", s.Bind)
		}
		var fs, as []string
		for _, f := range s.DataModel {
			fs = append(fs, f.Name)
		}
		for _, a := range s.Actions {
			n := a.Name
			if a.RequiresUserConfirmation {
				n += " (confirmed by the user)"
			}
			as = append(as, n)
		}
		if len(fs) > 0 {
			fmt.Fprintf(&b, "; data %s", strings.Join(fs, " "))
		}
		if len(as) > 0 {
			fmt.Fprintf(&b, "; actions %s", strings.Join(as, ", "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s:\n", countOf(len(pl.Effects), "protocol effect", "protocol effects"))
	for _, e := range pl.Effects {
		var by []string
		for _, em := range e.EmittedBy {
			if em.Function != "" {
				by = append(by, "function "+em.Function)
			} else {
				by = append(by, fmt.Sprintf("%s %s on %s", em.Machine, em.State, em.Event))
			}
		}
		target := e.Target
		if e.Contract == nil && target != "" {
			target += " (undeclared)"
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", e.Effect, target, strings.Join(by, ", "))
	}
	fmt.Fprintf(&b, "%s\n", countOf(len(pl.Envelopes), "surface with A2UI envelopes", "surfaces with A2UI envelopes"))
	return b.String()
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
