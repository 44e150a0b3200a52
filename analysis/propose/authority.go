package propose

import (
	"sort"
	"strconv"
	"strings"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// AuthorityItem is one change of what a capsule may do.
type AuthorityItem struct {
	// Path is the file (in an assessment).
	Path string `json:"path,omitempty"`
	// Kind is what changed: effect, profile, store, collection, port,
	// tool, resource, prompt, agent, skill, surface, action, persistence,
	// or a declaration kind (capability, trust-boundary, gate, ...).
	Kind string `json:"kind"`
	// Name names it: an effect intent "(db.write claims)", a profile, a
	// declaration name, a clause "(requires approval Owner granted)" or,
	// for a changed setting, the clause key.
	Name string `json:"name"`
	// In is the declaration it belongs to ("function f", "trust-boundary
	// T"), or "module".
	In string `json:"in"`
	// Change is added or widened (in AuthorityDelta.Added), removed or
	// narrowed (in AuthorityDelta.Removed).
	Change string `json:"change"`
	// From and To are a changed setting's old and new values ("" when
	// absent); To is "removed" for a restriction that was removed.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// AuthorityDelta compares the authority of a parent module and its
// candidate. Added lists authority gained: grants added (effects, profiles,
// ports and tools, agents and skills, stores, surfaces and actions,
// capabilities, principals, mandates, delegations, allow rules) and
// restrictions removed or loosened (trust-boundary settings, capability
// limits and approvals, gate requirements, successor-contract rules,
// budget limits, ...). Removed lists authority given up. Expansion is true
// when Added is not empty: the effect-expansion rule of a successor
// contract, and the needs-approval verdict, key on it.
type AuthorityDelta struct {
	Expansion bool            `json:"expansion"`
	Added     []AuthorityItem `json:"added"`
	Removed   []AuthorityItem `json:"removed"`
}

// typedKeys are the clauses of ports, agents, surfaces and stores that
// have typed fields (compared as such) or are descriptions.
var typedKeys = map[string]bool{
	"protocol": true, "endpoint": true, "tool": true, "resource": true, "prompt": true, "skill": true,
	"action": true, "summary": true, "title": true, "route": true, "catalog": true, "bind": true,
	"events": true, "state": true, "backend": true, "authority": true, "collection": true,
}

// fact is one piece of authority in a module.
type fact struct {
	kind  string
	name  string // item text, or the setting's key
	in    string
	pol   int // +1 grant, -1 restriction
	attr  string
	value string // for settings
	set   bool   // a setting (single-valued), compared by value
}

func (f fact) key() string { return f.kind + "\x00" + f.in + "\x00" + f.name }

// declFacts is the authority of one declaration.
type declFacts struct {
	kind, name string
	pol        int // the declaration's own polarity
	facts      []fact
}

// declPolarity says whether declaring something of a kind grants (+1) or
// restricts (-1) authority; 0 is neither.
var declPolarity = map[string]int{
	"port": 1, "agent": 1, "store": 1, "surface": 1, "capability": 1,
	"principal": 1, "mandate": 1, "delegation": 1,
	"trust-boundary": -1, "authority-policy": -1, "contract": -1, "gate": -1,
	"successor-contract": -1, "eval-suite": -1, "verification-hook": -1,
	"telemetry-obligation": -1, "budget": -1, "memory-policy": -1,
	"deployment-policy": -1,
}

// Clause classes of the clause declarations:
//
//	grant, restrict       each argument is one grant / restriction
//	grant1, restrict1     the whole clause is one grant / restriction
//	strict:V|W            a setting whose strict values are V, W
//	dur, num              a limit: a smaller duration / number is stricter
//	attr                  a setting of unknown direction: any change widens
//	neutral               not authority (summaries, descriptions)
//
// Keys missing from the table are "attr".
var clauseClass = map[string]map[string]string{
	"capability": {"principal": "grant1", "effect": "grant1", "resource": "grant1", "valid-for": "dur",
		"requires-mandate": "restrict1", "requires-delegation": "restrict1", "approval": "restrict1",
		"limit": "restrict1", "summary": "neutral"},
	"principal":  {"credential": "strict:short-lived", "attestation": "strict:required", "summary": "neutral"},
	"mandate":    {"scope": "grant1", "valid-for": "dur", "revocable": "strict:true", "summary": "neutral"},
	"delegation": {"may-delegate": "strict:false", "expires-after": "dur", "tool": "grant", "summary": "neutral"},
	"trust-boundary": {"mode": "strict:enforce", "fail-closed": "strict:true", "sandbox": "strict:required",
		"network": "strict:deny-by-default|deny|none", "filesystem": "strict:root-read-only|read-only|none",
		"egress-only": "grant", "secrets": "strict:ambient-deny|deny|none", "requires-attestation": "strict:true",
		"requires-profile-digest": "strict:true", "capability": "grant", "summary": "neutral"},
	"authority-policy": {"input": "neutral", "outcome": "neutral", "default": "strict:deny", "on": "on", "summary": "neutral"},
	"telemetry-obligation": {"must-emit": "restrict", "include": "restrict", "export": "restrict",
		"tamper-evident": "strict:true", "summary": "neutral"},
	"memory-policy": {"isolation": "strict:per-session|per-request", "ttl": "dur", "source-attribution": "strict:required",
		"hash-validation": "strict:on-read|always", "quarantine": "restrict", "promotion": "grant", "summary": "neutral"},
	"budget": {"max-iterations": "num", "max-proposals": "num", "max-llm-calls": "num", "max-ci-runs": "num",
		"max-wall-clock-ms": "num", "max-cost-usd": "num", "max-files": "num", "max-lines": "num",
		"allow-effects": "grant", "deny-effects": "restrict", "summary": "neutral"},
	"gate":               {"requires": "restrict1", "summary": "neutral"},
	"successor-contract": {"preserve": "restrict1", "forbid": "restrict1", "require": "restrict1", "summary": "neutral"},
	"contract":           {"store": "restrict", "function": "restrict", "requires": "restrict1", "invariant": "restrict1", "summary": "neutral"},
	"eval-suite":         {"dataset": "restrict1", "metric": "restrict1", "must-pass": "restrict1", "summary": "neutral"},
	"verification-hook":  {"target": "neutral", "status": "neutral", "subject": "restrict1", "obligation": "restrict1", "summary": "neutral"},
	"deployment-policy": {"mode": "strict:shadow-first", "canary-percent": "num", "promote-gate": "restrict1",
		"quarantine-on": "restrict", "summary": "neutral"},
	"objective":          {"constraint": "restrict1", "*": "neutral"},
	"lineage":            {"*": "neutral"},
	"improvement-record": {"*": "neutral"},
	"zk-proof":           {"*": "neutral"},
}

func classOf(kind, key string) string {
	t := clauseClass[kind]
	if c, ok := t[key]; ok {
		return c
	}
	if c, ok := t["*"]; ok {
		return c
	}
	return "attr"
}

// moduleAuthority extracts the authority facts of a module: module-level
// facts (profiles) and facts per declaration, keyed "kind name".
func moduleAuthority(m *ast.Module) ([]fact, map[string]*declFacts) {
	decls := map[string]*declFacts{}
	if m == nil {
		return nil, decls
	}
	var mod []fact
	for _, p := range m.Profiles {
		mod = append(mod, fact{kind: "profile", name: p.Name, in: "module", pol: 1})
	}
	for _, d := range m.Decls {
		if d == nil || d.Base() == nil {
			continue
		}
		kind := string(d.Kind())
		name := d.Base().Name.Name
		df := &declFacts{kind: kind, name: name, pol: declPolarity[kind]}
		in := kind + " " + name
		add := func(f fact) {
			f.in = in
			df.facts = append(df.facts, f)
		}
		setting := func(key string, v string) {
			if v != "" {
				add(fact{kind: kind, name: key, set: true, attr: "attr", value: v})
			}
		}
		switch d := d.(type) {
		case *ast.Function:
			if d.Effects != nil {
				for _, e := range d.Effects.Items {
					add(fact{kind: "effect", name: effectText(e), pol: 1})
				}
			}
		case *ast.Machine:
			for _, st := range d.States {
				for _, t := range st.Transitions {
					for _, e := range t.Effects {
						add(fact{kind: "effect", name: effectText(e), pol: 1})
					}
				}
			}
			if d.Persistence != nil {
				for _, a := range d.Persistence.Args {
					if a.Head() == "store" {
						add(fact{kind: "persistence", name: formText(a), pol: 1})
					}
				}
			}
		case *ast.Store:
			setting("backend", d.Backend.Name)
			setting("authority", d.Authority.Name)
			for _, c := range d.Collections {
				add(fact{kind: "collection", name: name + "." + c.Name, pol: 1})
			}
		case *ast.Port:
			setting("protocol", protocolText(d.Protocol))
			setting("endpoint", stringText(d.Endpoint))
			for _, group := range []struct {
				kind string
				ops  []*ast.Operation
			}{{"tool", d.Tools}, {"resource", d.Resources}, {"prompt", d.Prompts}} {
				for _, op := range group.ops {
					add(fact{kind: group.kind, name: name + "." + op.Name.Name, pol: 1})
				}
			}
		case *ast.Agent:
			setting("protocol", protocolText(d.Protocol))
			setting("endpoint", stringText(d.Endpoint))
			for _, op := range d.Skills {
				add(fact{kind: "skill", name: name + "." + op.Name.Name, pol: 1})
			}
		case *ast.Surface:
			setting("protocol", protocolText(d.Protocol))
			setting("route", stringText(d.Route))
			setting("bind", d.Bind.Name)
			for _, op := range d.Actions {
				add(fact{kind: "action", name: name + "." + op.Name.Name, pol: 1})
			}
		}
		switch d.(type) {
		case *ast.Port, *ast.Agent, *ast.Surface, *ast.Store:
			// Other clauses (auth, discovery, ...) are settings: any change
			// widens.
			for _, cl := range ast.ClausesOf(d) {
				if typedKeys[cl.Key.Name] {
					continue
				}
				var vs []string
				for _, a := range cl.Args {
					vs = append(vs, formText(a))
				}
				setting(cl.Key.Name, strings.Join(vs, " "))
			}
		}
		switch d := d.(type) {
		case *ast.ClauseDecl:
			for _, cl := range d.Clauses {
				key := cl.Key.Name
				class := classOf(kind, key)
				switch {
				case class == "neutral":
				case class == "grant" || class == "restrict":
					pol := 1
					if class == "restrict" {
						pol = -1
					}
					for _, a := range cl.Args {
						add(fact{kind: kind, name: "(" + key + " " + formText(a) + ")", pol: pol})
					}
				case class == "grant1" || class == "restrict1":
					pol := 1
					if class == "restrict1" {
						pol = -1
					}
					add(fact{kind: kind, name: formText(cl.Form), pol: pol})
				case class == "on":
					pol := -1
					if len(cl.Args) > 0 && cl.Args[0].Text() == "allow" {
						pol = 1
					}
					add(fact{kind: kind, name: formText(cl.Form), pol: pol})
				default:
					// A setting. Keyed settings (ttl NAME DURATION) keep the
					// name in the key.
					k, args := key, cl.Args
					if class == "dur" && len(args) == 2 {
						k, args = key+" "+formText(args[0]), args[1:]
					}
					var vs []string
					for _, a := range args {
						vs = append(vs, formText(a))
					}
					add(fact{kind: kind, name: k, set: true, attr: class, value: strings.Join(vs, " ")})
				}
			}
		}
		decls[kind+" "+name] = df
	}
	return mod, decls
}

// effectText renders an effect intent's name and targets: (db.write claims).
func effectText(e *ast.Effect) string {
	parts := []string{e.Name.Name}
	for _, t := range e.Targets {
		parts = append(parts, t.Name)
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func protocolText(p *ast.Protocol) string {
	if p == nil {
		return ""
	}
	if p.Version != nil {
		return p.Name.Name + " " + strconv.Quote(p.Version.Value)
	}
	return p.Name.Name
}

func stringText(s *ast.StringLit) string {
	if s == nil {
		return ""
	}
	return strconv.Quote(s.Value)
}

// formText renders a form compactly: one space between items.
func formText(f *syntax.Form) string {
	if f == nil {
		return ""
	}
	switch f.Kind {
	case syntax.FormString:
		return strconv.Quote(f.Text())
	case syntax.FormList:
		parts := make([]string, len(f.Items()))
		for i, it := range f.Items() {
			parts[i] = formText(it)
		}
		return "(" + strings.Join(parts, " ") + ")"
	}
	return f.Text()
}

// CompareAuthority computes the authority delta from parent to candidate
// (either may be nil: a new or a removed module).
func CompareAuthority(parent, candidate *ast.Module) AuthorityDelta {
	pm, pd := moduleAuthority(parent)
	cm, cd := moduleAuthority(candidate)
	var d AuthorityDelta
	put := func(it AuthorityItem) {
		if it.Change == "added" || it.Change == "widened" {
			d.Added = append(d.Added, it)
		} else {
			d.Removed = append(d.Removed, it)
		}
	}
	compareFacts(pm, cm, put)
	keys := map[string]bool{}
	for k := range pd {
		keys[k] = true
	}
	for k := range cd {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		p, c := pd[k], cd[k]
		switch {
		case p == nil:
			if c.pol > 0 {
				put(AuthorityItem{Kind: c.kind, Name: c.name, In: "module", Change: "added"})
			} else if c.pol < 0 {
				put(AuthorityItem{Kind: c.kind, Name: c.name, In: "module", Change: "narrowed"})
			}
			for _, f := range c.facts {
				if f.pol > 0 && !f.set {
					put(AuthorityItem{Kind: f.kind, Name: f.name, In: f.in, Change: "added"})
				}
			}
		case c == nil:
			if p.pol > 0 {
				put(AuthorityItem{Kind: p.kind, Name: p.name, In: "module", Change: "removed"})
			} else if p.pol < 0 {
				put(AuthorityItem{Kind: p.kind, Name: p.name, In: "module", Change: "widened", To: "removed"})
			}
			for _, f := range p.facts {
				if f.pol > 0 && !f.set {
					put(AuthorityItem{Kind: f.kind, Name: f.name, In: f.in, Change: "removed"})
				}
			}
		default:
			compareFacts(p.facts, c.facts, put)
		}
	}
	if d.Added == nil {
		d.Added = []AuthorityItem{}
	}
	if d.Removed == nil {
		d.Removed = []AuthorityItem{}
	}
	d.Expansion = len(d.Added) > 0
	return d
}

func compareFacts(ps, cs []fact, put func(AuthorityItem)) {
	pk, ck := indexFacts(ps), indexFacts(cs)
	keys := map[string]bool{}
	for k := range pk {
		keys[k] = true
	}
	for k := range ck {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		p, pok := pk[k]
		c, cok := ck[k]
		f := c
		if !cok {
			f = p
		}
		if f.set {
			change := compareSetting(f.attr, p.value, c.value, pok, cok)
			if change != "" {
				put(AuthorityItem{Kind: f.kind, Name: f.name, In: f.in, Change: change, From: p.value, To: c.value})
			}
			continue
		}
		switch {
		case pok && cok:
		case cok && f.pol > 0:
			put(AuthorityItem{Kind: f.kind, Name: f.name, In: f.in, Change: "added"})
		case cok && f.pol < 0:
			put(AuthorityItem{Kind: f.kind, Name: f.name, In: f.in, Change: "narrowed"})
		case pok && f.pol > 0:
			put(AuthorityItem{Kind: f.kind, Name: f.name, In: f.in, Change: "removed"})
		case pok && f.pol < 0:
			put(AuthorityItem{Kind: f.kind, Name: f.name, In: f.in, Change: "widened", To: "removed"})
		}
	}
}

func indexFacts(fs []fact) map[string]fact {
	out := map[string]fact{}
	for _, f := range fs {
		out[f.key()] = f
	}
	return out
}

// compareSetting classifies a change of a setting: "widened", "narrowed"
// or "" (unchanged).
func compareSetting(class, old, new string, hadOld, hasNew bool) string {
	if hadOld && hasNew && old == new {
		return ""
	}
	if strictSet, ok := strings.CutPrefix(class, "strict:"); ok {
		strict := func(v string) bool {
			for _, s := range strings.Split(strictSet, "|") {
				if v == s {
					return true
				}
			}
			return false
		}
		if hasNew && strict(new) && (!hadOld || !strict(old)) {
			return "narrowed"
		}
		return "widened"
	}
	if class == "dur" || class == "num" {
		if !hasNew {
			return "widened" // limit removed
		}
		if !hadOld {
			return "narrowed" // limit added
		}
		a, aok := limitValue(class, old)
		b, bok := limitValue(class, new)
		if aok && bok {
			if b < a {
				return "narrowed"
			}
			if b == a {
				return ""
			}
		}
		return "widened"
	}
	return "widened"
}

// limitValue parses a number, or a duration (in milliseconds).
func limitValue(class, s string) (float64, bool) {
	if class == "num" {
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	}
	units := []struct {
		suffix string
		ms     float64
	}{{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"d", 86400000}, {"w", 7 * 86400000}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			if f, err := strconv.ParseFloat(n, 64); err == nil {
				return f * u.ms, true
			}
		}
	}
	return 0, false
}

// declaredEffects returns every effect name a module declares (functions
// and transitions), sorted.
func declaredEffects(m *ast.Module) []string {
	set := map[string]bool{}
	if m == nil {
		return nil
	}
	for _, d := range m.Decls {
		switch d := d.(type) {
		case *ast.Function:
			if d.Effects != nil {
				for _, e := range d.Effects.Items {
					set[e.Name.Name] = true
				}
			}
		case *ast.Machine:
			for _, st := range d.States {
				for _, t := range st.Transitions {
					for _, e := range t.Effects {
						set[e.Name.Name] = true
					}
				}
			}
		}
	}
	out := sortedKeys(set)
	sort.Strings(out)
	return out
}
