package protocol

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// ArchStore is a store of the architecture plan.
type ArchStore struct {
	Name        string   `json:"name"`
	Backend     string   `json:"backend"`
	Authority   string   `json:"authority"`
	Collections []string `json:"collections"`
	// Machines are the machines that persist into the store.
	Machines []string `json:"machines"`
}

// ArchPort is a port of the architecture plan.
type ArchPort struct {
	Name      string   `json:"name"`
	Protocol  string   `json:"protocol"`
	Version   string   `json:"version,omitempty"`
	Endpoint  string   `json:"endpoint,omitempty"`
	Tools     []string `json:"tools"`
	Resources []string `json:"resources"`
	Prompts   []string `json:"prompts"`
}

// ArchAgent is an agent of the architecture plan.
type ArchAgent struct {
	Name      string   `json:"name"`
	Protocol  string   `json:"protocol"`
	Version   string   `json:"version,omitempty"`
	Discovery string   `json:"discovery,omitempty"`
	Auth      string   `json:"auth,omitempty"`
	Skills    []string `json:"skills"`
}

// ArchSurface is a surface of the architecture plan.
type ArchSurface struct {
	Name      string `json:"name"`
	Protocol  string `json:"protocol"`
	Version   string `json:"version"`
	CatalogID string `json:"catalog_id"`
	Route     string `json:"route,omitempty"`
	Bind      string `json:"bind,omitempty"`
}

// Persistence is a machine's (persistence ...) clause.
type Persistence struct {
	Store    string `json:"store"`
	EventLog string `json:"event_log,omitempty"`
	Snapshot string `json:"snapshot,omitempty"`
	Replay   bool   `json:"replay"`
}

// ArchMachine is a machine of the architecture plan.
type ArchMachine struct {
	Name        string       `json:"name"`
	Version     string       `json:"version,omitempty"`
	Initial     string       `json:"initial"`
	States      int          `json:"states"`
	Final       []string     `json:"final"`
	Transitions int          `json:"transitions"`
	Persistence *Persistence `json:"persistence"`
	Surfaces    []string     `json:"surfaces"`
}

// EffectCount is how many transitions or functions emit an effect.
type EffectCount struct {
	Effect      string `json:"effect"`
	Target      string `json:"target,omitempty"`
	Determinism string `json:"determinism,omitempty"`
	Count       int    `json:"count"`
}

// TargetEffects are the effects aimed at one target.
type TargetEffects struct {
	Target string `json:"target"`
	// Declaration is the store, port, agent, surface or other declaration
	// the target names ("" for effects without one).
	Declaration string `json:"declaration"`
	// Kind is the declaration's kind: store, port, agent, surface, ...
	Kind    string        `json:"kind"`
	Effects []EffectCount `json:"effects"`
}

// DeterminismEffects are the effects of one determinism class.
type DeterminismEffects struct {
	Determinism string        `json:"determinism"`
	Effects     []EffectCount `json:"effects"`
}

// Architecture is the architecture plan of a module.
type Architecture struct {
	Module               string               `json:"module"`
	Hash                 string               `json:"semantic_hash"`
	Profiles             []string             `json:"profiles"`
	Stores               []ArchStore          `json:"stores"`
	Ports                []ArchPort           `json:"ports"`
	Agents               []ArchAgent          `json:"agents"`
	Surfaces             []ArchSurface        `json:"surfaces"`
	Machines             []ArchMachine        `json:"machines"`
	EffectsByTarget      []TargetEffects      `json:"effects_by_target"`
	EffectsByDeterminism []DeterminismEffects `json:"effects_by_determinism"`
	machineEdges         []archEdge
}

// archEdge is a machine's effects on one declaration, for the diagram.
type archEdge struct {
	machine, decl, kind string
	effects             []string
}

func names(ops []*ast.Operation) []string {
	out := []string{}
	for _, op := range ops {
		if op != nil && op.Name.Valid() {
			out = append(out, op.Name.Name)
		}
	}
	return out
}

// persistence reads (persistence (store S) (event-log L) (snapshot P)
// (replay B)).
func persistence(c *ast.Clause) *Persistence {
	if c == nil {
		return nil
	}
	p := &Persistence{}
	for _, a := range c.Args {
		if a.Kind != syntax.FormList || len(a.Items()) < 2 {
			continue
		}
		v := a.Items()[1].Text()
		switch a.Head() {
		case "store":
			p.Store = v
		case "event-log":
			p.EventLog = v
		case "snapshot":
			p.Snapshot = v
		case "replay":
			p.Replay = v == "true"
		}
	}
	return p
}

// BuildArchitecture returns the architecture plan of a checked module;
// hash is its semantic hash.
func BuildArchitecture(res *check.Result, hash string) *Architecture {
	m := newModule(res)
	a := &Architecture{Hash: hash, Profiles: []string{}, Stores: []ArchStore{}, Ports: []ArchPort{}, Agents: []ArchAgent{}, Surfaces: []ArchSurface{},
		Machines: []ArchMachine{}, EffectsByTarget: []TargetEffects{}, EffectsByDeterminism: []DeterminismEffects{}}
	if m.mod == nil {
		return a
	}
	a.Module = m.mod.Name.Name
	for _, p := range m.mod.Profiles {
		a.Profiles = append(a.Profiles, p.Name)
	}
	bound := map[string][]string{}
	persisted := map[string][]string{}
	for _, d := range m.mod.Decls {
		switch d := d.(type) {
		case *ast.Surface:
			if d.Bind.Valid() {
				bound[d.Bind.Name] = append(bound[d.Bind.Name], d.Name.Name)
			}
		case *ast.Machine:
			if p := persistence(d.Persistence); p != nil && p.Store != "" {
				persisted[p.Store] = append(persisted[p.Store], d.Name.Name)
			}
		}
	}
	targets := map[string]int{}
	classes := map[string]*DeterminismEffects{}
	edges := map[string]int{}
	count := func(list []EffectCount, e EffectCount) []EffectCount {
		for i := range list {
			if list[i].Effect == e.Effect && list[i].Target == e.Target {
				list[i].Count++
				return list
			}
		}
		e.Count = 1
		return append(list, e)
	}
	addEffect := func(machine string, e *ast.Effect) {
		ce := catalog.LookupEffect(e.Name.Name)
		if ce == nil {
			return
		}
		target := ""
		if len(e.Targets) > 0 {
			target = e.Targets[0].Name
		}
		head, _, _ := strings.Cut(target, ".")
		decl, kind := "", ce.Target
		if sym := m.declKind(head); sym != "" {
			decl, kind = head, sym
		}
		i, ok := targets[target]
		if !ok {
			i = len(a.EffectsByTarget)
			targets[target] = i
			a.EffectsByTarget = append(a.EffectsByTarget, TargetEffects{Target: target, Declaration: decl, Kind: kind, Effects: []EffectCount{}})
		}
		te := &a.EffectsByTarget[i]
		te.Effects = count(te.Effects, EffectCount{Effect: ce.Name, Determinism: ce.Determinism})
		dc := classes[ce.Determinism]
		if dc == nil {
			dc = &DeterminismEffects{Determinism: ce.Determinism, Effects: []EffectCount{}}
			classes[ce.Determinism] = dc
		}
		dc.Effects = count(dc.Effects, EffectCount{Effect: ce.Name, Target: target})
		if machine != "" && decl != "" {
			key := machine + " " + decl
			j, ok := edges[key]
			if !ok {
				j = len(a.machineEdges)
				edges[key] = j
				a.machineEdges = append(a.machineEdges, archEdge{machine: machine, decl: decl, kind: kind})
			}
			if !contains(a.machineEdges[j].effects, ce.Name) {
				a.machineEdges[j].effects = append(a.machineEdges[j].effects, ce.Name)
			}
		}
	}
	for _, d := range m.mod.Decls {
		switch d := d.(type) {
		case *ast.Store:
			cols := []string{}
			for _, c := range d.Collections {
				cols = append(cols, c.Name)
			}
			ms := persisted[d.Name.Name]
			if ms == nil {
				ms = []string{}
			}
			a.Stores = append(a.Stores, ArchStore{Name: d.Name.Name, Backend: d.Backend.Name, Authority: d.Authority.Name, Collections: cols, Machines: ms})
		case *ast.Port:
			p := m.port(d)
			a.Ports = append(a.Ports, ArchPort{Name: p.Name, Protocol: p.Protocol, Version: p.Version, Endpoint: p.Endpoint, Tools: names(d.Tools), Resources: names(d.Resources), Prompts: names(d.Prompts)})
		case *ast.Agent:
			g := m.agent(d)
			a.Agents = append(a.Agents, ArchAgent{Name: g.Name, Protocol: g.Protocol, Version: g.Version, Discovery: g.Discovery, Auth: g.Auth, Skills: names(d.Skills)})
		case *ast.Surface:
			s := m.surface(d)
			a.Surfaces = append(a.Surfaces, ArchSurface{Name: s.Name, Protocol: s.Protocol, Version: s.Version, CatalogID: s.CatalogID, Route: s.Route, Bind: s.Bind})
		case *ast.Machine:
			am := ArchMachine{Name: d.Name.Name, Version: str(d.Version), Initial: d.Initial.Name, States: len(d.States), Final: []string{}, Persistence: persistence(d.Persistence), Surfaces: bound[d.Name.Name]}
			if am.Surfaces == nil {
				am.Surfaces = []string{}
			}
			for _, st := range d.States {
				if st.Final {
					am.Final = append(am.Final, st.Name.Name)
				}
				am.Transitions += len(st.Transitions)
				for _, t := range st.Transitions {
					for _, e := range t.Effects {
						addEffect(d.Name.Name, e)
					}
				}
			}
			a.Machines = append(a.Machines, am)
		case *ast.Function:
			if d.Effects != nil {
				for _, e := range d.Effects.Items {
					addEffect("", e)
				}
			}
		}
	}
	var cls []string
	for c := range classes {
		cls = append(cls, c)
	}
	sort.Strings(cls)
	for _, c := range cls {
		a.EffectsByDeterminism = append(a.EffectsByDeterminism, *classes[c])
	}
	return a
}

// declKind returns the kind of the module's declaration called name, or
// "".
func (m *module) declKind(name string) string {
	if name == "" || m.mod == nil {
		return ""
	}
	for _, d := range m.mod.Decls {
		if d.Base().Name.Name == name {
			return string(d.Kind())
		}
	}
	return ""
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9_]`)

func mid(kind, name string) string { return kind + "_" + unsafeID.ReplaceAllString(name, "_") }

func mlabel(s string) string { return strings.ReplaceAll(s, `"`, "#quot;") }

// Mermaid draws an architecture plan as a Mermaid flowchart: a subgraph
// each for stores, ports, agents, surfaces and machines; an edge from each
// machine to every declaration its effects target, labelled with the
// effects; dotted edges for persistence and surface bindings.
func (a *Architecture) Mermaid() string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s architecture\n---\nflowchart LR\n", mlabel(a.Module))
	group := func(id, title string, n int, node func(i int) string) {
		if n == 0 {
			return
		}
		fmt.Fprintf(&b, "    subgraph %s[\"%s\"]\n", id, title)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "        %s\n", node(i))
		}
		b.WriteString("    end\n")
	}
	group("stores", "Stores", len(a.Stores), func(i int) string {
		s := a.Stores[i]
		return fmt.Sprintf("%s[(\"%s<br/>%s · %s\")]", mid("store", s.Name), mlabel(s.Name), mlabel(s.Backend), mlabel(s.Authority))
	})
	group("ports", "MCP and HTTP ports", len(a.Ports), func(i int) string {
		p := a.Ports[i]
		return fmt.Sprintf("%s[[\"%s<br/>%s\"]]", mid("port", p.Name), mlabel(p.Name), mlabel(strings.TrimSpace(p.Protocol+" "+p.Version)))
	})
	group("agents", "A2A agents", len(a.Agents), func(i int) string {
		g := a.Agents[i]
		return fmt.Sprintf("%s{{\"%s<br/>%s\"}}", mid("agent", g.Name), mlabel(g.Name), mlabel(strings.TrimSpace(g.Protocol+" "+g.Version)))
	})
	group("surfaces", "A2UI surfaces", len(a.Surfaces), func(i int) string {
		s := a.Surfaces[i]
		return fmt.Sprintf("%s[/\"%s<br/>%s\"/]", mid("surface", s.Name), mlabel(s.Name), mlabel(s.Protocol+" "+s.Version))
	})
	group("machines", "Machines", len(a.Machines), func(i int) string {
		mc := a.Machines[i]
		return fmt.Sprintf("%s[\"%s<br/>%d states, %d transitions\"]", mid("machine", mc.Name), mlabel(mc.Name), mc.States, mc.Transitions)
	})
	known := map[string]bool{}
	for _, s := range a.Stores {
		known[mid("store", s.Name)] = true
	}
	for _, p := range a.Ports {
		known[mid("port", p.Name)] = true
	}
	for _, g := range a.Agents {
		known[mid("agent", g.Name)] = true
	}
	for _, s := range a.Surfaces {
		known[mid("surface", s.Name)] = true
	}
	for _, s := range a.Surfaces {
		if s.Bind != "" {
			fmt.Fprintf(&b, "    %s -. binds .-> %s\n", mid("surface", s.Name), mid("machine", s.Bind))
		}
	}
	for _, mc := range a.Machines {
		if p := mc.Persistence; p != nil && known[mid("store", p.Store)] {
			fmt.Fprintf(&b, "    %s -. persists in .-> %s\n", mid("machine", mc.Name), mid("store", p.Store))
		}
	}
	for _, e := range a.machineEdges {
		to := mid(e.kind, e.decl)
		if !known[to] {
			continue
		}
		fmt.Fprintf(&b, "    %s -- \"%s\" --> %s\n", mid("machine", e.machine), mlabel(strings.Join(e.effects, ", ")), to)
	}
	return b.String()
}

// Text summarizes an architecture plan for people.
func (a *Architecture) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "architecture of module %s\n", a.Module)
	fmt.Fprintf(&b, "semantic hash %s\n", a.Hash)
	for _, s := range a.Stores {
		fmt.Fprintf(&b, "store %s: backend %s, authority %s", s.Name, dash(s.Backend), dash(s.Authority))
		if len(s.Collections) > 0 {
			fmt.Fprintf(&b, ", collections %s", strings.Join(s.Collections, " "))
		}
		if len(s.Machines) > 0 {
			fmt.Fprintf(&b, "; persists %s", strings.Join(s.Machines, " "))
		}
		b.WriteString("\n")
	}
	for _, p := range a.Ports {
		fmt.Fprintf(&b, "port %s (%s): %s, %s, %s\n", p.Name, strings.TrimSpace(p.Protocol+" "+p.Version), plural(len(p.Tools), "tool"), plural(len(p.Resources), "resource"), plural(len(p.Prompts), "prompt"))
	}
	for _, g := range a.Agents {
		fmt.Fprintf(&b, "agent %s (%s): skills %s\n", g.Name, strings.TrimSpace(g.Protocol+" "+g.Version), dash(strings.Join(g.Skills, " ")))
	}
	for _, s := range a.Surfaces {
		fmt.Fprintf(&b, "surface %s (%s %s)", s.Name, s.Protocol, s.Version)
		if s.Bind != "" {
			fmt.Fprintf(&b, " bound to %s", s.Bind)
		}
		b.WriteString("\n")
	}
	for _, mc := range a.Machines {
		fmt.Fprintf(&b, "machine %s: %d states, %d transitions, ", mc.Name, mc.States, mc.Transitions)
		if p := mc.Persistence; p != nil {
			fmt.Fprintf(&b, "persisted in %s (event log %s, snapshot %s, replay %t)\n", p.Store, dash(p.EventLog), dash(p.Snapshot), p.Replay)
		} else {
			b.WriteString("not persisted\n")
		}
	}
	for _, d := range a.EffectsByDeterminism {
		var parts []string
		for _, e := range d.Effects {
			s := e.Effect
			if e.Target != "" {
				s += " " + e.Target
			}
			parts = append(parts, fmt.Sprintf("%s ×%d", s, e.Count))
		}
		fmt.Fprintf(&b, "%s effects: %s\n", d.Determinism, strings.Join(parts, ", "))
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
