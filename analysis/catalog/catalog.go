// Package catalog holds Capsulang's data tables: the effect catalog, the
// profiles and the effect domains each admits, and the clause schema of the
// governance and Authority IR declarations. The tables are embedded JSON,
// shared by the checker, hover, completion and the docs.
package catalog

import (
	_ "embed"
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

//go:embed effects.json
var effectsJSON []byte

//go:embed profiles.json
var profilesJSON []byte

//go:embed constructs.json
var constructsJSON []byte

// Effect is one catalogued effect.
type Effect struct {
	Name        string `json:"name"`
	Domain      string `json:"domain"`
	Description string `json:"description"`
	Determinism string `json:"determinism"`
	// Target says what the effect's first argument must name: store,
	// store-collection, port-tool, port-resource, agent-skill,
	// agent-skill-optional, surface, surface-action-optional, a
	// declaration kind (gate, eval-suite, ...), free (any name) or none.
	Target         string `json:"target"`
	OptionalTarget bool   `json:"optional_target,omitempty"`
	// ExtraTargets says what further targets name (db.project's projection).
	ExtraTargets string `json:"extra_targets,omitempty"`
	// BudgetOnly marks a name catalogued only so that budgets can allow or
	// deny it (deploy.live, secret.read): no function or transition may
	// perform it.
	BudgetOnly bool `json:"budget_only,omitempty"`
	// Instead names the effect to perform in place of a budget-only one,
	// when there is a governed equivalent (deploy.promote for deploy.live).
	Instead string `json:"instead,omitempty"`
}

// Profile is one profile and the effects it admits.
type Profile struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Domains     []string `json:"domains"`
	Effects     []string `json:"effects"`
}

// Admits reports whether the profile admits the effect.
func (p *Profile) Admits(e *Effect) bool {
	for _, d := range p.Domains {
		if d == e.Domain {
			return true
		}
	}
	for _, n := range p.Effects {
		if n == e.Name {
			return true
		}
	}
	return false
}

// Clause is the schema of one clause of a construct.
type Clause struct {
	Key string `json:"key"`
	// Args is the argument pattern; Alts lists alternative patterns.
	Args     []string   `json:"args,omitempty"`
	Alts     [][]string `json:"alts,omitempty"`
	Repeat   bool       `json:"repeat,omitempty"`
	Required bool       `json:"required,omitempty"`
	// Defines names a local namespace the clause's first argument adds to
	// (objective metrics, policy outcomes); Uses checks a first argument
	// against it.
	Defines string `json:"defines,omitempty"`
	Uses    string `json:"uses,omitempty"`
}

// Patterns returns the clause's argument patterns.
func (c *Clause) Patterns() [][]string {
	if c.Alts != nil {
		return c.Alts
	}
	return [][]string{c.Args}
}

// Construct is the schema of a governance or Authority IR declaration.
type Construct struct {
	Kind    string    `json:"kind"`
	Summary string    `json:"summary"`
	Clauses []*Clause `json:"clauses"`
}

// Clause returns the schema of the clause with the given key, or nil.
func (c *Construct) Clause(key string) *Clause {
	for _, cl := range c.Clauses {
		if cl.Key == key {
			return cl
		}
	}
	return nil
}

// Keys returns the construct's clause keys.
func (c *Construct) Keys() []string {
	var out []string
	for _, cl := range c.Clauses {
		out = append(out, cl.Key)
	}
	return out
}

var (
	effects     map[string]*Effect
	effectList  []*Effect
	performable []string // PerformableEffectNames
	profiles    map[string]*Profile
	profList    []*Profile
	constructs  map[string]*Construct
)

func init() {
	var e struct{ Effects []*Effect }
	var p struct{ Profiles []*Profile }
	var c struct{ Constructs []*Construct }
	for _, x := range []struct {
		data []byte
		v    any
	}{{effectsJSON, &e}, {profilesJSON, &p}, {constructsJSON, &c}} {
		if err := json.Unmarshal(x.data, x.v); err != nil {
			panic("catalog: bad embedded JSON: " + err.Error())
		}
	}
	effects = map[string]*Effect{}
	for _, x := range e.Effects {
		effects[x.Name] = x
	}
	effectList = e.Effects
	performable = performableNames()
	profiles = map[string]*Profile{}
	for _, x := range p.Profiles {
		profiles[x.Name] = x
	}
	profList = p.Profiles
	constructs = map[string]*Construct{}
	for _, x := range c.Constructs {
		constructs[x.Kind] = x
	}
}

// LookupEffect returns the catalogued effect, or nil.
func LookupEffect(name string) *Effect { return effects[name] }

// Effects returns every catalogued effect, in catalog order.
func Effects() []*Effect { return effectList }

// EffectNames returns the effect names, sorted.
func EffectNames() []string {
	out := make([]string, 0, len(effectList))
	for _, e := range effectList {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}

// PerformableEffectNames returns, sorted, the names of the effects a
// function or transition may perform: every effect but the budget-only
// ones. The list is computed once and shared (the checker asks for it on
// every effect it resolves): the caller must not modify it.
func PerformableEffectNames() []string { return performable }

// performableNames computes PerformableEffectNames' list.
func performableNames() []string {
	out := make([]string, 0, len(effectList))
	for _, e := range effectList {
		if !e.BudgetOnly {
			out = append(out, e.Name)
		}
	}
	sort.Strings(out)
	return slices.Clip(out)
}

// LookupProfile returns the profile, or nil.
func LookupProfile(name string) *Profile { return profiles[name] }

// Profiles returns every profile, in catalog order.
func Profiles() []*Profile { return profList }

// ProfileNames returns the profile names, sorted.
func ProfileNames() []string {
	out := make([]string, 0, len(profList))
	for _, p := range profList {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// AdmittingProfiles returns the profiles that admit the effect, sorted by
// how little else they admit (the narrowest first).
func AdmittingProfiles(e *Effect) []*Profile {
	var out []*Profile
	for _, p := range profList {
		if p.Admits(e) {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return len(out[i].Domains)+len(out[i].Effects) < len(out[j].Domains)+len(out[j].Effects)
	})
	return out
}

// LookupConstruct returns the clause schema of a governance or Authority IR
// declaration kind, or nil.
func LookupConstruct(kind string) *Construct { return constructs[kind] }

// IsActorPrefix reports whether a qualified reference prefix names an actor
// rather than a declaration (approval:SecurityOwner, agent:Improver).
func IsActorPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "approval", "agent", "human", "service", "team", "user", "org", "role":
		return true
	}
	return false
}
