// Package authority reads a module's Authority IR declarations (principal,
// mandate, delegation, capability, authority-policy, trust-boundary) into
// a model that both the checker and the machine runtime use: which policy
// governs an intent, what a policy condition may name (its cond.Env), and
// which capability covers an effect. docs/authority.md describes the model.
//
// The model is built from a module's syntax tree and tolerates broken
// declarations (the checker reports them); the runtime only builds it for
// checked modules.
package authority

import (
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/cond"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Outcome is a policy decision.
type Outcome string

// Outcomes, from least to most restrictive.
const (
	Allow    Outcome = "allow"
	Defer    Outcome = "defer"
	Escalate Outcome = "escalate"
	Deny     Outcome = "deny"
)

// rank orders outcomes by restrictiveness.
func (o Outcome) rank() int {
	switch o {
	case Allow:
		return 0
	case Defer:
		return 1
	case Escalate:
		return 2
	}
	return 3
}

// Stricter returns the more restrictive of a and b.
func Stricter(a, b Outcome) Outcome {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// Model is a module's Authority IR.
type Model struct {
	Principals   map[string]*Principal
	Mandates     map[string]*Mandate
	Delegations  map[string]*Delegation
	Capabilities []*Capability
	Policies     []*Policy
	policies     map[string]*Policy
	caps         map[string]*Capability
	byEffect     map[[2]string][]*Capability // {effect, target} -> capabilities naming it
	// principal is the principal the module's machines act as, and
	// mandate and delegation what it holds without a capability
	// (derived once, in FromModule).
	principal, mandate, delegation string
}

// Principal is a (principal ...) declaration.
type Principal struct {
	Name, Kind string
}

// Mandate is a (mandate ...) declaration. ValidForMs is 0 when the mandate
// has no (valid-for D): it does not expire.
type Mandate struct {
	Name               string
	IssuedBy, IssuedTo string
	ValidForMs         int64
	Revocable          bool
	// Scope holds the items of its (scope ...) clauses (nil: no scope,
	// the mandate bounds no effect).
	Scope []string
	// Decl is the declaration (for repairs and hovers).
	Decl *ast.ClauseDecl
}

// Delegation is a (delegation ...) declaration.
type Delegation struct {
	Name            string
	From, To, Under string
	MayDelegate     bool
	ExpiresAfterMs  int64    // 0: no expiry of its own
	Tools           []string // nil: any tool the mandate allows
}

// Capability is a (capability ...) declaration.
type Capability struct {
	Name           string
	Principal      string
	Effect, Target string
	Resource       string
	ValidForMs     int64 // 0: valid until revoked
	Mandate        string
	Delegation     string
	Approval       string
	Risk           string
	SingleUse      bool
}

// Policy is an (authority-policy ...) declaration.
type Policy struct {
	Name     string
	Inputs   []string
	Outcomes []Outcome
	Default  Outcome
	Rules    []*Rule
	// Decl is the declaration (for repairs and hovers).
	Decl *ast.ClauseDecl
	// Index is the policy's position in Model.Policies.
	Index int
	// defaultRule is "default " + Default, built once.
	defaultRule string
	// fixedUsed has bit s set when a compiled condition reads fixed
	// input slot s (Compile sets it).
	fixedUsed uint16
}

// Rule is one (on OUTCOME (if "CONDITION")).
type Rule struct {
	Outcome Outcome
	Text    string    // the condition as written (decoded)
	Expr    cond.Expr // nil when it does not parse
	Err     *cond.Error
	Str     *syntax.Form // the string literal, for positions
	label   string       // Label(), built once: decisions name it
}

// Inputs a decision can see, and the paths under each.
const (
	InputPrincipal  = "principal"
	InputMandate    = "mandate"
	InputDelegation = "delegation"
	InputCapability = "capability"
	InputEffect     = "effect"
	InputContext    = "context"
	InputRisk       = "risk"
)

// KnownInputs lists the inputs a decision can see, in documentation order.
var KnownInputs = []string{InputPrincipal, InputMandate, InputDelegation, InputCapability, InputEffect, InputContext, InputRisk}

// ControlEffects are the effects the authority runtime carries out itself:
// they are decisions and records, not requests to the outside world, and
// no policy decides them.
var ControlEffects = map[string]bool{
	"policy.evaluate":   true,
	"capability.issue":  true,
	"capability.revoke": true,
	"approval.request":  true,
	"receipt.emit":      true,
}

// FromModule reads the Authority IR declarations of mod.
func FromModule(mod *ast.Module) *Model {
	m := &Model{
		Principals:  map[string]*Principal{},
		Mandates:    map[string]*Mandate{},
		Delegations: map[string]*Delegation{},
		policies:    map[string]*Policy{},
		caps:        map[string]*Capability{},
		byEffect:    map[[2]string][]*Capability{},
	}
	if mod == nil {
		return m
	}
	for _, d := range mod.Decls {
		cd, ok := d.(*ast.ClauseDecl)
		if !ok || !cd.Name.Valid() {
			continue
		}
		switch cd.DeclKind {
		case ast.KindPrincipal:
			m.Principals[cd.Name.Name] = &Principal{Name: cd.Name.Name, Kind: word(cd, "kind")}
		case ast.KindMandate:
			m.Mandates[cd.Name.Name] = &Mandate{Name: cd.Name.Name, IssuedBy: word(cd, "issued-by"), IssuedTo: word(cd, "issued-to"),
				ValidForMs: duration(cd, "valid-for"), Revocable: word(cd, "revocable") == "true", Scope: scope(cd), Decl: cd}
		case ast.KindDelegation:
			m.Delegations[cd.Name.Name] = delegation(cd)
		case ast.KindCapability:
			c := capability(cd)
			m.Capabilities = append(m.Capabilities, c)
			m.caps[c.Name] = c
			if c.Effect != "" {
				k := [2]string{c.Effect, c.Target}
				m.byEffect[k] = append(m.byEffect[k], c)
			}
		case ast.KindAuthorityPolicy:
			p := policy(cd)
			p.Index = len(m.Policies)
			m.Policies = append(m.Policies, p)
			m.policies[p.Name] = p
		}
	}
	m.principal = m.actingPrincipal()
	m.mandate, m.delegation = m.standing(m.principal)
	return m
}

// Governed reports whether the module declares an authority-policy: only
// then are intents decided by policy rather than allowed as ungoverned.
func (m *Model) Governed() bool { return len(m.Policies) > 0 }

// Policy returns the policy called name, or nil.
func (m *Model) Policy(name string) *Policy { return m.policies[name] }

// Capability returns the capability called name, or nil.
func (m *Model) Capability(name string) *Capability { return m.caps[name] }

// CapabilitiesFor lists the capabilities whose (effect ...) names effect
// and target, in source order.
func (m *Model) CapabilitiesFor(effect, target string) []*Capability {
	return m.byEffect[[2]string{effect, target}]
}

func clause(cd *ast.ClauseDecl, key string) *ast.Clause {
	for _, c := range cd.Clauses {
		if c.Key.Name == key {
			return c
		}
	}
	return nil
}

// word is the text of a clause's first argument, or "".
func word(cd *ast.ClauseDecl, key string) string {
	if c := clause(cd, key); c != nil && len(c.Args) > 0 && c.Args[0].Kind != syntax.FormList {
		return c.Args[0].Text()
	}
	return ""
}

// duration is a clause's duration argument in milliseconds, 0 without one.
func duration(cd *ast.ClauseDecl, key string) int64 {
	c := clause(cd, key)
	if c == nil || len(c.Args) == 0 {
		return 0
	}
	return durationOf(c.Args[len(c.Args)-1])
}

func durationOf(f *syntax.Form) int64 {
	if f.Kind != syntax.FormNumber {
		return 0
	}
	if d, ok := ast.ParseNumber(f.Text(), f.Span()).(*ast.Duration); ok {
		return d.Millis
	}
	return 0
}

// scope reads the items of every (scope ...) clause; a list item has no
// name to match and is left out.
func scope(cd *ast.ClauseDecl) []string {
	var out []string
	for _, c := range cd.Clauses {
		if c.Key.Name != "scope" {
			continue
		}
		if out == nil {
			out = []string{}
		}
		for _, a := range c.Args {
			if a.Kind != syntax.FormList {
				out = append(out, a.Text())
			}
		}
	}
	return out
}

// Covers reports whether the mandate's scope admits an intent: it has
// no (scope ...) clause, or one of its items names the intent's effect
// (mcp.call), its target (GateCapsule.db_read_customerdb_claims) or
// the two joined (mcp.call.GateCapsule.db_read_customerdb_claims), or
// the resource of the capability in force (CustomerDB.claims), or is a
// dotted prefix of one of these (GateCapsule, CustomerDB, db).
func (md *Mandate) Covers(effect, target, resource string) bool {
	if md.Scope == nil {
		return true
	}
	for _, item := range md.Scope {
		if names(item, effect) || names(item, target) || names(item, resource) {
			return true
		}
		// effect.target, without building it
		if target != "" && len(item) > len(effect) && item[len(effect)] == '.' && item[:len(effect)] == effect && names(item[len(effect)+1:], target) {
			return true
		}
	}
	return false
}

// names reports whether a scope item names n or is a dotted prefix of it.
func names(item, n string) bool {
	return n != "" && strings.HasPrefix(n, item) && (len(n) == len(item) || n[len(item)] == '.')
}

func delegation(cd *ast.ClauseDecl) *Delegation {
	d := &Delegation{Name: cd.Name.Name, From: word(cd, "from"), To: word(cd, "to"), Under: word(cd, "under"),
		MayDelegate: word(cd, "may-delegate") == "true", ExpiresAfterMs: duration(cd, "expires-after")}
	for _, c := range cd.Clauses {
		if c.Key.Name != "tool" {
			continue
		}
		if d.Tools == nil {
			d.Tools = []string{}
		}
		for _, a := range c.Args {
			d.Tools = append(d.Tools, a.Text())
		}
	}
	return d
}

func capability(cd *ast.ClauseDecl) *Capability {
	c := &Capability{Name: cd.Name.Name, Principal: word(cd, "principal"), Resource: word(cd, "resource"),
		ValidForMs: duration(cd, "valid-for"), Mandate: word(cd, "requires-mandate"), Delegation: word(cd, "requires-delegation"),
		Approval: word(cd, "approval"), Risk: word(cd, "risk")}
	if cl := clause(cd, "effect"); cl != nil && len(cl.Args) > 0 && cl.Args[0].Kind == syntax.FormList {
		items := cl.Args[0].Items()
		if len(items) > 0 {
			c.Effect = items[0].Text()
		}
		if len(items) > 1 && items[1].Kind == syntax.FormSymbol {
			c.Target = items[1].Text()
		}
	}
	for _, cl := range cd.Clauses {
		if cl.Key.Name == "limit" && len(cl.Args) == 2 && cl.Args[0].Text() == "single-use" && cl.Args[1].Text() == "true" {
			c.SingleUse = true
		}
	}
	return c
}

func policy(cd *ast.ClauseDecl) *Policy {
	p := &Policy{Name: cd.Name.Name, Default: Deny, Decl: cd}
	for _, cl := range cd.Clauses {
		switch cl.Key.Name {
		case "input":
			for _, a := range cl.Args {
				p.Inputs = append(p.Inputs, a.Text())
			}
		case "outcome":
			for _, a := range cl.Args {
				p.Outcomes = append(p.Outcomes, Outcome(a.Text()))
			}
		case "default":
			if len(cl.Args) > 0 {
				p.Default = Outcome(cl.Args[0].Text())
			}
		case "on":
			if r := rule(cl); r != nil {
				p.Rules = append(p.Rules, r)
			}
		}
	}
	p.defaultRule = "default " + string(p.Default)
	return p
}

// rule reads (on OUTCOME (if "CONDITION")); nil when it has another shape
// (the checker reports that).
func rule(cl *ast.Clause) *Rule {
	if len(cl.Args) != 2 || cl.Args[1].Kind != syntax.FormList {
		return nil
	}
	iff := cl.Args[1]
	if iff.Head() != "if" || len(iff.Items()) != 2 || iff.Items()[1].Kind != syntax.FormString {
		return nil
	}
	r := &Rule{Outcome: Outcome(cl.Args[0].Text()), Text: iff.Items()[1].Text(), Str: iff.Items()[1]}
	r.label = fmt.Sprintf("on %s (if %q)", r.Outcome, r.Text)
	r.Expr, r.Err = cond.Parse(r.Text)
	return r
}

// HasInput reports whether the policy lists input name.
func (p *Policy) HasInput(name string) bool {
	for _, in := range p.Inputs {
		if in == name {
			return true
		}
	}
	return false
}

// Field is a context field a condition may read.
type Field struct {
	Name string
	Type types.Type
}

// Env is what p's conditions may name when deciding an intent of a
// machine with context fields ctx: the inputs p lists (each as a Text,
// `effect` also as effect.name and effect.target, `context` as
// context.FIELD and, for short, the bare FIELD).
func (p *Policy) Env(ctx []Field) *cond.Env {
	env := cond.NewEnv()
	for _, in := range KnownInputs {
		if !p.HasInput(in) {
			env.Undeclared(in)
			continue
		}
		switch in {
		case InputContext:
			for _, f := range ctx {
				path := "context." + f.Name
				if k, ok := KindOf(f.Type); ok {
					env.Define(path, k)
				} else {
					env.Unsupported(path, types.Describe(f.Type))
				}
			}
		case InputEffect:
			env.Define("effect", cond.Text)
			env.Define("effect.name", cond.Text)
			env.Define("effect.target", cond.Text)
		default:
			env.Define(in, cond.Text)
		}
	}
	if p.HasInput(InputContext) {
		for _, f := range ctx {
			if _, ok := KindOf(f.Type); ok {
				env.Alias(f.Name, "context."+f.Name)
			} else {
				env.Unsupported(f.Name, types.Describe(f.Type))
			}
		}
	}
	return env
}

// Input slots of a compiled condition (Policy.Compile): the fixed
// inputs, then context field k of the machine at SlotContext+k.
const (
	SlotEffect = iota
	SlotEffectName
	SlotEffectTarget
	SlotPrincipal
	SlotMandate
	SlotDelegation
	SlotCapability
	SlotRisk
	SlotContext
)

// Compile compiles p's rule conditions for a machine with context fields
// ctx, in rule order; a rule that does not compile (it does not check)
// has nil, and is evaluated by name.
func (p *Policy) Compile(ctx []Field) []*cond.Program {
	env := p.Env(ctx)
	fixed := map[string]int{InputEffect: SlotEffect, "effect.name": SlotEffectName, "effect.target": SlotEffectTarget,
		InputPrincipal: SlotPrincipal, InputMandate: SlotMandate, InputDelegation: SlotDelegation, InputCapability: SlotCapability, InputRisk: SlotRisk}
	slot := func(path string) (int, bool) {
		if k, ok := fixed[path]; ok {
			return k, true
		}
		if name, ok := strings.CutPrefix(path, "context."); ok {
			for k, f := range ctx {
				if f.Name == name {
					return SlotContext + k, true
				}
			}
		}
		return 0, false
	}
	out := make([]*cond.Program, len(p.Rules))
	for k, r := range p.Rules {
		if r.Expr != nil && len(cond.Check(r.Expr, env, nil)) == 0 {
			out[k], _ = cond.Compile(r.Expr, env, slot)
		}
		if out[k] == nil {
			p.fixedUsed = 1<<SlotContext - 1 // evaluated by name: fill every slot
			continue
		}
		for _, s := range out[k].Slots {
			if s < SlotContext {
				p.fixedUsed |= 1 << s
			}
		}
	}
	return out
}

// Candidates lists, in order, the rules of p that may hold for an intent
// of effect and target: those whose condition is not false whatever the
// other inputs are (cond.MayHold with only the effect known).
func (p *Policy) Candidates(effect, target string) []int {
	out := []int{}
	for k, r := range p.Rules {
		if r.Expr == nil || p.mayHold(r, effect, target) {
			out = append(out, k)
		}
	}
	return out
}

// KindOf is the condition kind of a Capsulang type: integers up to 64
// bits, Text, Address and enum members (by name) and Bool.
func KindOf(t types.Type) (cond.Kind, bool) {
	switch t := t.(type) {
	case *types.Basic:
		switch t.Kind {
		case types.Bool:
			return cond.Bool, true
		case types.I32, types.I64, types.Int, types.U32, types.U64:
			return cond.Int, true
		case types.Text, types.Address:
			return cond.Text, true
		}
	case *types.Enum:
		return cond.Text, true
	}
	return cond.Invalid, false
}

// EffectString is an intent as the `effect` input sees it: the effect
// name and the target joined by a dot (http.call.RefundAPI.issue_refund).
func EffectString(effect, target string) string {
	if target == "" {
		return effect
	}
	return effect + "." + target
}

// Tool is the operation part of a PORT.TOOL target ("" without a dot).
func Tool(target string) string {
	if i := strings.LastIndexByte(target, '.'); i >= 0 {
		return target[i+1:]
	}
	return ""
}

// effectValue answers a condition's effect inputs for an intent: effect
// (full, EFFECT.TARGET), effect.name and effect.target.
func effectValue(path, full, effect, target string) (cond.Value, bool) {
	switch path {
	case InputEffect:
		return cond.TextValue(full), true
	case "effect.name":
		return cond.TextValue(effect), true
	case "effect.target":
		return cond.TextValue(target), true
	}
	return cond.Value{}, false
}

// identityValue answers a condition's identity inputs: principal,
// mandate, delegation, capability and risk.
func identityValue(path, principal, mandate, delegation, capability, risk string) (cond.Value, bool) {
	switch path {
	case InputPrincipal:
		return cond.TextValue(principal), true
	case InputMandate:
		return cond.TextValue(mandate), true
	case InputDelegation:
		return cond.TextValue(delegation), true
	case InputCapability:
		return cond.TextValue(capability), true
	case InputRisk:
		return cond.TextValue(risk), true
	}
	return cond.Value{}, false
}

// effectOnly is the lookup of a condition of p when only the intent's
// effect is known: the effect inputs, if p reads them, and nothing else.
func (p *Policy) effectOnly(effect, target string) cond.Lookup {
	full := EffectString(effect, target)
	return func(path string) (cond.Value, bool) {
		if !p.HasInput(InputEffect) {
			return cond.Value{}, false
		}
		return effectValue(path, full, effect, target)
	}
}
