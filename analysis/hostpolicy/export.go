// Package hostpolicy exports the module-owned part of the host-policy
// artifact (docs/authority.md, "The host-policy artifact"): the module's
// Authority IR declarations as typed objects with named fields, and every
// effect intent its machines can emit.
//
// The export is a function of the checked module alone. Every field of a
// declaration is always present: a field whose clause the declaration does
// not give is null (lists included: an absent (egress-only ...) is null,
// never an empty list). Declarations are listed in source order. A
// duration is given twice, as written ("30m", in the field named after the
// clause) and in milliseconds (the same name with "_ms").
//
// The runtime's loader (runtime/adapters) compares an artifact's sections
// with a fresh export through Compare, which ignores what the semantic hash
// ignores: the order of declarations and intents, and how a duration is
// spelled.
package hostpolicy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Authority is the "authority" section: the module's Authority IR.
type Authority struct {
	Principals           []*Principal           `json:"principals"`
	Mandates             []*Mandate             `json:"mandates"`
	Delegations          []*Delegation          `json:"delegations"`
	Capabilities         []*Capability          `json:"capabilities"`
	Policies             []*Policy              `json:"policies"`
	TrustBoundaries      []*TrustBoundary       `json:"trust_boundaries"`
	TelemetryObligations []*TelemetryObligation `json:"telemetry_obligations"`
	MemoryPolicies       []*MemoryPolicy        `json:"memory_policies"`
}

// Principal is a (principal NAME ...) declaration.
type Principal struct {
	Name        string  `json:"name"`
	Kind        *string `json:"kind"`
	Identity    *string `json:"identity"`
	Credential  *string `json:"credential"`
	Attestation *string `json:"attestation"`
	Owner       *string `json:"owner"`
	Summary     *string `json:"summary"`
}

// Mandate is a (mandate NAME ...) declaration. Scope holds the items of
// every (scope ...) clause in order.
type Mandate struct {
	Name       string   `json:"name"`
	IssuedBy   *string  `json:"issued_by"`
	IssuedTo   *string  `json:"issued_to"`
	Purpose    *string  `json:"purpose"`
	Scope      []string `json:"scope"`
	ValidFor   *string  `json:"valid_for"`
	ValidForMs *int64   `json:"valid_for_ms"`
	Revocable  *bool    `json:"revocable"`
	Summary    *string  `json:"summary"`
}

// Delegation is a (delegation NAME ...) declaration. Tools holds the names
// of every (tool ...) clause in order.
type Delegation struct {
	Name           string   `json:"name"`
	From           *string  `json:"from"`
	To             *string  `json:"to"`
	Under          *string  `json:"under"`
	MayDelegate    *bool    `json:"may_delegate"`
	ExpiresAfter   *string  `json:"expires_after"`
	ExpiresAfterMs *int64   `json:"expires_after_ms"`
	Tools          []string `json:"tools"`
	Traceability   *string  `json:"traceability"`
	Summary        *string  `json:"summary"`
}

// Capability is a (capability NAME ...) declaration. Effect and Target
// come from (effect (EFFECT TARGET EXTRA...)); Limits from every
// (limit NAME VALUE) clause.
type Capability struct {
	Name               string         `json:"name"`
	Principal          *string        `json:"principal"`
	Effect             *string        `json:"effect"`
	Target             *string        `json:"target"`
	ExtraTargets       []string       `json:"extra_targets"`
	Resource           *string        `json:"resource"`
	ValidFor           *string        `json:"valid_for"`
	ValidForMs         *int64         `json:"valid_for_ms"`
	RequiresMandate    *string        `json:"requires_mandate"`
	RequiresDelegation *string        `json:"requires_delegation"`
	Approval           *string        `json:"approval"`
	Risk               *string        `json:"risk"`
	Limits             map[string]any `json:"limits"`
	Revocation         *string        `json:"revocation"`
	Summary            *string        `json:"summary"`
}

// Policy is an (authority-policy NAME ...) declaration.
type Policy struct {
	Name     string   `json:"name"`
	Inputs   []string `json:"inputs"`
	Outcomes []string `json:"outcomes"`
	Default  *string  `json:"default"`
	Rules    []*Rule  `json:"rules"`
	Summary  *string  `json:"summary"`
}

// Rule is one (on OUTCOME (if "CONDITION")) of a policy, in source order.
type Rule struct {
	Outcome   string `json:"outcome"`
	Condition string `json:"condition"`
}

// TrustBoundary is a (trust-boundary NAME ...) declaration. Capabilities
// holds the names of every (capability ...) clause in order.
type TrustBoundary struct {
	Name                  string   `json:"name"`
	Mode                  *string  `json:"mode"`
	FailClosed            *bool    `json:"fail_closed"`
	Sandbox               *string  `json:"sandbox"`
	Network               *string  `json:"network"`
	Filesystem            *string  `json:"filesystem"`
	EgressOnly            []string `json:"egress_only"`
	Secrets               *string  `json:"secrets"`
	RequiresAttestation   *bool    `json:"requires_attestation"`
	RequiresProfileDigest *bool    `json:"requires_profile_digest"`
	Capabilities          []string `json:"capabilities"`
	Summary               *string  `json:"summary"`
}

// TelemetryObligation is a (telemetry-obligation NAME ...) declaration.
// MustEmit and Include hold the names of every clause of that key in
// order.
type TelemetryObligation struct {
	Name          string   `json:"name"`
	MustEmit      []string `json:"must_emit"`
	Include       []string `json:"include"`
	Export        []string `json:"export"`
	TamperEvident *bool    `json:"tamper_evident"`
	Summary       *string  `json:"summary"`
}

// MemoryPolicy is a (memory-policy NAME ...) declaration.
type MemoryPolicy struct {
	Name              string   `json:"name"`
	Isolation         *string  `json:"isolation"`
	TTL               []*TTL   `json:"ttl"`
	SourceAttribution *string  `json:"source_attribution"`
	HashValidation    *string  `json:"hash_validation"`
	Quarantine        []string `json:"quarantine"`
	Promotion         []string `json:"promotion"`
	Summary           *string  `json:"summary"`
}

// TTL is one (ttl NAME? DURATION) of a memory policy.
type TTL struct {
	Name       *string `json:"name"`
	Duration   string  `json:"duration"`
	DurationMs int64   `json:"duration_ms"`
}

// Effect is one effect intent a machine can emit: the effect and target of
// an intent of the transition on Event in State.
type Effect struct {
	Machine string  `json:"machine"`
	State   string  `json:"state"`
	Event   string  `json:"event"`
	Effect  string  `json:"effect"`
	Target  *string `json:"target"`
}

// Clauses lists, for each Authority IR declaration kind, the clause keys
// the export carries. A clause the construct catalog accepts but this list
// lacks would be lost; a test keeps the two in step.
var Clauses = map[ast.DeclKind][]string{
	ast.KindPrincipal:           {"kind", "identity", "credential", "attestation", "owner", "summary"},
	ast.KindMandate:             {"issued-by", "issued-to", "purpose", "scope", "valid-for", "revocable", "summary"},
	ast.KindDelegation:          {"from", "to", "under", "may-delegate", "expires-after", "tool", "traceability", "summary"},
	ast.KindCapability:          {"principal", "effect", "resource", "valid-for", "requires-mandate", "requires-delegation", "approval", "risk", "limit", "revocation", "summary"},
	ast.KindAuthorityPolicy:     {"input", "outcome", "default", "on", "summary"},
	ast.KindTrustBoundary:       {"mode", "fail-closed", "sandbox", "network", "filesystem", "egress-only", "secrets", "requires-attestation", "requires-profile-digest", "capability", "summary"},
	ast.KindTelemetryObligation: {"must-emit", "include", "export", "tamper-evident", "summary"},
	ast.KindMemoryPolicy:        {"isolation", "ttl", "source-attribution", "hash-validation", "quarantine", "promotion", "summary"},
}

// Error is a declaration the export cannot represent.
type Error struct {
	Span syntax.Span
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Export returns the Authority IR of a checked module and the effect
// intents of its machines. It fails on a clause it cannot represent (a
// policy rule that is not (on OUTCOME (if "CONDITION")), a limit given
// twice); every such error is an *Error.
func Export(m *ast.Module) (*Authority, []Effect, error) {
	a := &Authority{
		Principals: []*Principal{}, Mandates: []*Mandate{}, Delegations: []*Delegation{},
		Capabilities: []*Capability{}, Policies: []*Policy{}, TrustBoundaries: []*TrustBoundary{},
		TelemetryObligations: []*TelemetryObligation{}, MemoryPolicies: []*MemoryPolicy{},
	}
	effects := []Effect{}
	if m == nil {
		return a, effects, nil
	}
	for _, d := range m.Decls {
		switch d := d.(type) {
		case *ast.ClauseDecl:
			if d == nil {
				continue
			}
			if err := a.add(d); err != nil {
				return nil, nil, err
			}
		case *ast.Machine:
			if d != nil {
				effects = appendEffects(effects, d)
			}
		}
	}
	return a, effects, nil
}

// add appends the export of one declaration to its list; declarations
// that are not Authority IR are ignored.
func (a *Authority) add(d *ast.ClauseDecl) error {
	c := clauses{d.Clauses}
	name := d.Name.Name
	switch d.DeclKind {
	case ast.KindPrincipal:
		a.Principals = append(a.Principals, &Principal{Name: name, Kind: c.word("kind"), Identity: c.word("identity"),
			Credential: c.word("credential"), Attestation: c.word("attestation"), Owner: c.word("owner"), Summary: c.word("summary")})
	case ast.KindMandate:
		text, ms := c.duration("valid-for")
		a.Mandates = append(a.Mandates, &Mandate{Name: name, IssuedBy: c.word("issued-by"), IssuedTo: c.word("issued-to"),
			Purpose: c.word("purpose"), Scope: c.items("scope"), ValidFor: text, ValidForMs: ms, Revocable: c.bool("revocable"), Summary: c.word("summary")})
	case ast.KindDelegation:
		text, ms := c.duration("expires-after")
		a.Delegations = append(a.Delegations, &Delegation{Name: name, From: c.word("from"), To: c.word("to"), Under: c.word("under"),
			MayDelegate: c.bool("may-delegate"), ExpiresAfter: text, ExpiresAfterMs: ms, Tools: c.items("tool"),
			Traceability: c.word("traceability"), Summary: c.word("summary")})
	case ast.KindCapability:
		cp, err := capability(d, c)
		if err != nil {
			return err
		}
		a.Capabilities = append(a.Capabilities, cp)
	case ast.KindAuthorityPolicy:
		p, err := policy(d, c)
		if err != nil {
			return err
		}
		a.Policies = append(a.Policies, p)
	case ast.KindTrustBoundary:
		a.TrustBoundaries = append(a.TrustBoundaries, &TrustBoundary{Name: name, Mode: c.word("mode"), FailClosed: c.bool("fail-closed"),
			Sandbox: c.word("sandbox"), Network: c.word("network"), Filesystem: c.word("filesystem"), EgressOnly: c.items("egress-only"),
			Secrets: c.word("secrets"), RequiresAttestation: c.bool("requires-attestation"), RequiresProfileDigest: c.bool("requires-profile-digest"),
			Capabilities: c.items("capability"), Summary: c.word("summary")})
	case ast.KindTelemetryObligation:
		a.TelemetryObligations = append(a.TelemetryObligations, &TelemetryObligation{Name: name, MustEmit: c.items("must-emit"),
			Include: c.items("include"), Export: c.items("export"), TamperEvident: c.bool("tamper-evident"), Summary: c.word("summary")})
	case ast.KindMemoryPolicy:
		a.MemoryPolicies = append(a.MemoryPolicies, &MemoryPolicy{Name: name, Isolation: c.word("isolation"), TTL: ttls(c),
			SourceAttribution: c.word("source-attribution"), HashValidation: c.word("hash-validation"),
			Quarantine: c.items("quarantine"), Promotion: c.items("promotion"), Summary: c.word("summary")})
	}
	return nil
}

// capability exports a capability: its effect form and its limits.
func capability(d *ast.ClauseDecl, c clauses) (*Capability, error) {
	text, ms := c.duration("valid-for")
	cp := &Capability{Name: d.Name.Name, Principal: c.word("principal"), Resource: c.word("resource"), ValidFor: text, ValidForMs: ms,
		RequiresMandate: c.word("requires-mandate"), RequiresDelegation: c.word("requires-delegation"), Approval: c.word("approval"),
		Risk: c.word("risk"), Revocation: c.word("revocation"), Summary: c.word("summary")}
	if cl := c.last("effect"); cl != nil && len(cl.Args) == 1 && cl.Args[0].Head() != "" {
		f := cl.Args[0]
		cp.Effect = ptr(f.Head())
		for _, t := range f.Items()[1:] {
			if cp.Target == nil {
				cp.Target = ptr(t.Text())
			} else {
				cp.ExtraTargets = append(cp.ExtraTargets, t.Text())
			}
		}
	}
	for _, cl := range c.all("limit") {
		if len(cl.Args) != 2 {
			continue
		}
		key := cl.Args[0].Text()
		if _, dup := cp.Limits[key]; dup {
			return nil, &Error{cl.Form.Span(), fmt.Sprintf("capability %s gives (limit %s ...) twice; a limit has one value: keep one of them", cp.Name, key)}
		}
		if cp.Limits == nil {
			cp.Limits = map[string]any{}
		}
		cp.Limits[key] = limitValue(cl.Args[1])
	}
	return cp, nil
}

// limitValue is a limit's value as JSON: true and false are booleans, a
// whole number that fits 64 bits is a number, and anything else is its
// text as written.
func limitValue(f *syntax.Form) any {
	switch f.Kind {
	case syntax.FormSymbol:
		switch f.Text() {
		case "true":
			return true
		case "false":
			return false
		}
	case syntax.FormNumber:
		if _, ok := ast.ParseNumber(f.Text(), f.Span()).(*ast.IntLit); ok {
			if n, err := strconv.ParseInt(f.Text(), 10, 64); err == nil {
				return n
			}
		}
	}
	return formText(f)
}

// policy exports an authority policy; every (on OUTCOME ...) must be
// (on OUTCOME (if "CONDITION")).
func policy(d *ast.ClauseDecl, c clauses) (*Policy, error) {
	p := &Policy{Name: d.Name.Name, Inputs: c.items("input"), Outcomes: c.items("outcome"), Default: c.word("default"), Summary: c.word("summary")}
	for _, cl := range c.all("on") {
		if len(cl.Args) != 2 || cl.Args[0].Kind != syntax.FormSymbol || cl.Args[1].Head() != "if" ||
			len(cl.Args[1].Items()) != 2 || cl.Args[1].Items()[1].Kind != syntax.FormString {
			return nil, &Error{cl.Form.Span(), fmt.Sprintf("authority-policy %s: %s is not a rule of the form (on OUTCOME (if \"CONDITION\")); the host-policy artifact carries only rules of that form: rewrite it so", p.Name, formText(cl.Form))}
		}
		p.Rules = append(p.Rules, &Rule{Outcome: cl.Args[0].Text(), Condition: cl.Args[1].Items()[1].Text()})
	}
	return p, nil
}

// ttls exports the (ttl NAME? DURATION) clauses of a memory policy.
func ttls(c clauses) []*TTL {
	var out []*TTL
	for _, cl := range c.all("ttl") {
		t := &TTL{}
		args := cl.Args
		if len(args) == 2 && args[0].Kind == syntax.FormSymbol {
			t.Name = ptr(args[0].Text())
			args = args[1:]
		}
		if len(args) != 1 {
			continue
		}
		d, ok := ast.ParseNumber(args[0].Text(), args[0].Span()).(*ast.Duration)
		if !ok {
			continue
		}
		t.Duration, t.DurationMs = d.Text, d.Millis
		out = append(out, t)
	}
	return out
}

// appendEffects appends the effect intents of a machine's transitions, in
// source order, each distinct (state, event, effect, target) once.
func appendEffects(out []Effect, m *ast.Machine) []Effect {
	seen := map[string]bool{}
	for _, s := range m.States {
		if s == nil {
			continue
		}
		for _, t := range s.Transitions {
			if t == nil {
				continue
			}
			for _, e := range t.Effects {
				if e == nil || !e.Name.Valid() {
					continue
				}
				fx := Effect{Machine: m.Name.Name, State: s.Name.Name, Event: t.Event.Name, Effect: e.Name.Name}
				key := fx.State + "\x00" + fx.Event + "\x00" + fx.Effect
				if len(e.Targets) > 0 {
					fx.Target = ptr(e.Targets[0].Name)
					key += "\x00" + e.Targets[0].Name
				}
				if !seen[key] {
					seen[key] = true
					out = append(out, fx)
				}
			}
		}
	}
	return out
}

// clauses reads the clauses of one declaration.
type clauses struct{ cs []*ast.Clause }

// last returns the last clause with the key (the one that counts when a
// single-valued clause is repeated, which the checker reports).
func (c clauses) last(key string) *ast.Clause {
	var found *ast.Clause
	for _, cl := range c.cs {
		if cl != nil && cl.Key.Name == key {
			found = cl
		}
	}
	return found
}

// all returns every clause with the key, in source order.
func (c clauses) all(key string) []*ast.Clause {
	var out []*ast.Clause
	for _, cl := range c.cs {
		if cl != nil && cl.Key.Name == key {
			out = append(out, cl)
		}
	}
	return out
}

// word returns the single argument of the clause (a name, or a string's
// value), or nil when the clause is absent.
func (c clauses) word(key string) *string {
	cl := c.last(key)
	if cl == nil || len(cl.Args) == 0 {
		return nil
	}
	return ptr(formText(cl.Args[0]))
}

// bool returns the clause's true or false, or nil.
func (c clauses) bool(key string) *bool {
	cl := c.last(key)
	if cl == nil || len(cl.Args) != 1 || cl.Args[0].Kind != syntax.FormSymbol {
		return nil
	}
	switch cl.Args[0].Text() {
	case "true":
		return ptr(true)
	case "false":
		return ptr(false)
	}
	return nil
}

// duration returns the clause's duration as written and in milliseconds,
// or nils.
func (c clauses) duration(key string) (*string, *int64) {
	cl := c.last(key)
	if cl == nil || len(cl.Args) != 1 {
		return nil, nil
	}
	d, ok := ast.ParseNumber(cl.Args[0].Text(), cl.Args[0].Span()).(*ast.Duration)
	if !ok || cl.Args[0].Kind != syntax.FormNumber {
		return nil, nil
	}
	return ptr(d.Text), ptr(d.Millis)
}

// items returns the arguments of every clause with the key, in order, or
// nil when there is none.
func (c clauses) items(key string) []string {
	var out []string
	for _, cl := range c.all(key) {
		for _, a := range cl.Args {
			out = append(out, formText(a))
		}
	}
	return out
}

// formText renders a form as one string: a name or number as written, a
// string's value, a list as (item ...) with its strings quoted.
func formText(f *syntax.Form) string {
	if f == nil {
		return ""
	}
	if f.Kind != syntax.FormList {
		return f.Text()
	}
	parts := make([]string, len(f.Items()))
	for i, it := range f.Items() {
		if it != nil && it.Kind == syntax.FormString {
			parts[i] = strconv.Quote(it.Text())
		} else {
			parts[i] = formText(it)
		}
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func ptr[T any](v T) *T { return &v }
