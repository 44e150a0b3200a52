package machine

// Claims before facts (spec §07; docs/language.md, "Claims before
// facts"): the result of an mcp.* or a2a.* effect with (claim FIELD) is
// an observation that produces a claim on context field FIELD. The claim
// becomes a fact (its value is written to FIELD) when its acceptance
// policy accepts it: at once for (auto), after N distinct approvals for
// (quorum N ...), after the named principal's acceptance for (human P).
// A later observation supersedes the current claim. The claim's accepted
// event is refused (R_CLAIM_NOT_ACCEPTED) while the claim is not
// accepted, which is what the checker's E_CLAIM_READ_AS_FACT analysis
// relies on.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Acceptance rules.
const (
	RuleAuto   = "auto"
	RuleQuorum = "quorum"
	RuleHuman  = "human"
)

// Claim verdicts of an acceptance input.
const (
	VerdictAccept = "accept"
	VerdictReject = "reject"
)

// Failure codes of claims.
const (
	// CodeClaimNotAccepted: an event that reads a claim as a fact (the
	// claim's accepted event) arrived while the claim is not accepted.
	CodeClaimNotAccepted = "R_CLAIM_NOT_ACCEPTED"
	// CodeClaimNotPending: an acceptance input names a claim with no
	// pending observation.
	CodeClaimNotPending = "R_CLAIM_NOT_PENDING"
	// CodeClaimRefused: the principal may not decide the claim under its
	// policy (not the human, not in the quorum, already approved, or an
	// auto policy).
	CodeClaimRefused = "R_CLAIM_REFUSED"
	// CodeClaimBadResult: the observation does not fit the claimed
	// field's type; the claim is rejected at once.
	CodeClaimBadResult = "R_CLAIM_BAD_RESULT"
)

// CauseClaim: an acceptance input decided a claim.
const CauseClaim Cause = "claim"

// InputClaim accepts or rejects a claim.
const InputClaim InputKind = "claim"

// AcceptancePolicy is a compiled (acceptance NAME RULE).
type AcceptancePolicy struct {
	Name       string
	Rule       string // RuleAuto, RuleQuorum or RuleHuman
	Quorum     int    // RuleQuorum: approvals needed
	Principals []string
}

// String is the rule as written: (human risk_officer).
func (p *AcceptancePolicy) String() string {
	switch p.Rule {
	case RuleQuorum:
		return fmt.Sprintf("(quorum %d (principals %s))", p.Quorum, strings.Join(p.Principals, " "))
	case RuleHuman:
		return "(human " + p.Principals[0] + ")"
	}
	return "(auto)"
}

// ClaimSpec is a compiled (claim FIELD (policy P) (accepted EVENT)).
type ClaimSpec struct {
	Index    int // position in Machine.Claims
	Field    string
	Policy   *AcceptancePolicy
	Accepted *EventType
	field    int // the context slot
	typ      types.Type
}

// ClaimStatus is where a claim stands.
type ClaimStatus string

// Claim statuses.
const (
	ClaimNone       ClaimStatus = ""           // nothing observed yet
	ClaimPending    ClaimStatus = "pending"    // observed, awaiting acceptance
	ClaimAccepted   ClaimStatus = "accepted"   // a fact: its value is in the context
	ClaimRejected   ClaimStatus = "rejected"   // refused; the field keeps its last fact
	ClaimSuperseded ClaimStatus = "superseded" // replaced by a later observation
)

// Claim is one claim on a context field.
type Claim struct {
	Field  string
	ID     string // the effect intent id of the observation
	Policy string
	Status ClaimStatus
	// Value is the observation decoded as the field's type (invalid when
	// it did not fit: the claim is then rejected, and Result holds it).
	Value  value.Value
	Result json.RawMessage
	// Approvals lists the principals who accepted it, in arrival order;
	// By is who decided it: a principal, "auto", or "runtime".
	Approvals []string
	By        string
	// Seq is the input whose step observed it.
	Seq uint64
}

// ClaimVerdict is an acceptance input: a principal accepts or rejects
// the pending claim on a field.
type ClaimVerdict struct {
	Claim     string `json:"claim"`   // the claimed context field
	Verdict   string `json:"verdict"` // VerdictAccept or VerdictReject
	Principal string `json:"principal"`
}

// Claims lists the machine's claims (nil when it declares none).
func (m *Machine) Claims() []*ClaimSpec { return m.claims }

// compileClaims compiles the machine's claim clauses and the module's
// acceptance policies they name.
func (m *Machine) compileClaims(ctxTypes map[string]types.Type) error {
	if len(m.decl.Claims) == 0 {
		return nil
	}
	policies := map[string]*AcceptancePolicy{}
	for _, d := range m.mod.Decls {
		if cd, ok := d.(*ast.ClauseDecl); ok && cd.DeclKind == ast.KindAcceptance {
			policies[cd.Name.Name] = compilePolicy(cd)
		}
	}
	m.acceptEv = map[int][]*ClaimSpec{}
	for _, cd := range m.decl.Claims {
		fi, ok := m.fields[cd.Field.Name]
		p := policies[cd.Policy.Name]
		ev := m.events[cd.Accepted.Name]
		if !ok || p == nil || ev == nil {
			return fmt.Errorf("machine %s: claim %s does not resolve", m.Name, cd.Field.Name)
		}
		cs := &ClaimSpec{Index: len(m.claims), Field: cd.Field.Name, Policy: p, Accepted: ev, field: fi, typ: ctxTypes[cd.Field.Name]}
		m.claims = append(m.claims, cs)
		m.acceptEv[ev.Index] = append(m.acceptEv[ev.Index], cs)
	}
	return nil
}

func compilePolicy(d *ast.ClauseDecl) *AcceptancePolicy {
	p := &AcceptancePolicy{Name: d.Name.Name, Rule: RuleAuto}
	for _, cl := range d.Clauses {
		switch cl.Key.Name {
		case RuleHuman:
			p.Rule = RuleHuman
			p.Principals = []string{cl.Args[0].Text()}
		case RuleQuorum:
			p.Rule = RuleQuorum
			p.Quorum, _ = strconv.Atoi(cl.Args[0].Text())
			for _, a := range cl.Args[1].Items()[1:] {
				if a.Kind == syntax.FormSymbol {
					p.Principals = append(p.Principals, a.Text())
				}
			}
		}
	}
	return p
}

// claimSpec finds the claim an effect's (claim FIELD) names.
func (m *Machine) claimSpec(field string) *ClaimSpec {
	for _, cs := range m.claims {
		if cs.Field == field {
			return cs
		}
	}
	return nil
}

// Claims returns the current claim of each of the machine's claims, in
// declaration order. The slice must not be modified.
func (i *Instance) Claims() []Claim { return i.claims }

// claimGate refuses an event that reads a claim as a fact while the
// claim is not accepted.
func (i *Instance) claimGate(et *EventType) *Failure {
	for _, cs := range i.m.acceptEv[et.Index] {
		c := &i.claims[cs.Index]
		if c.Status == ClaimAccepted {
			continue
		}
		state := "nothing was observed yet"
		switch c.Status {
		case ClaimPending:
			state = fmt.Sprintf("claim %s is pending under policy %s %s", c.ID, cs.Policy.Name, cs.Policy)
		case ClaimRejected:
			state = fmt.Sprintf("claim %s was rejected by %s", c.ID, c.By)
		}
		return &Failure{Code: CodeClaimNotAccepted,
			Message: fmt.Sprintf("%s reads %s as a fact, but %s is not accepted: %s", et.Name, cs.Field, cs.Field, state),
			Reason:  "claim " + cs.Field + " not accepted", Expected: string(ClaimAccepted), Actual: claimWord(c.Status)}
	}
	return nil
}

func claimWord(s ClaimStatus) string {
	if s == ClaimNone {
		return "none"
	}
	return string(s)
}

// observe turns the result of an executed effect with (claim FIELD) into
// a claim, superseding the current one; an auto policy accepts it.
func (i *Instance) observe(r *StepResult, e *Effect, span string) {
	cs := e.Spec.Claim
	cur := &i.claims[cs.Index]
	id := e.ID
	if id == "" {
		id = i.IntentID(r.Step, e.Index)
	}
	if cur.Status == ClaimPending || cur.Status == ClaimAccepted {
		old := *cur
		old.Status = ClaimSuperseded
		r.Claims = append(r.Claims, old)
		if i.tracing {
			rec := i.claimRecord(r, trace.ClaimSuperseded, cs, old.ID, span)
			rec.Body = fmt.Sprintf("claim %s on %s (%s) superseded by %s", old.ID, cs.Field, cur.Status, id)
			rec.Reason = "superseded by " + id
			i.emit(r, rec)
		}
	}
	res := e.Result()
	c := Claim{Field: cs.Field, ID: id, Policy: cs.Policy.Name, Status: ClaimPending, Seq: r.Seq}
	v, err := observationValue(res, cs.typ)
	if i.tracing {
		rec := i.claimRecord(r, trace.ClaimObserved, cs, id, span)
		rec.Body = fmt.Sprintf("%s observed %s: a claim on %s under policy %s %s", e.Spec.Label(), canonicalText(res), cs.Field, cs.Policy.Name, cs.Policy)
		rec.Effect, rec.Target = e.Spec.Name, e.Spec.Target
		i.emit(r, rec)
	}
	switch {
	case err != nil:
		c.Status, c.By, c.Result = ClaimRejected, "runtime", res
		if i.tracing {
			rec := i.claimRecord(r, trace.ClaimRejected, cs, id, span)
			rec.Severity, rec.ErrorCode = trace.Error, CodeClaimBadResult
			rec.Body = fmt.Sprintf("the observation does not fit %s %s: %v", cs.Field, cs.typ, err)
			rec.Expected, rec.Actual = cs.typ.String(), canonicalText(res)
			i.emit(r, rec)
		}
	case cs.Policy.Rule == RuleAuto:
		c.Value, c.Status, c.By = v, ClaimAccepted, RuleAuto
		i.setFact(r, cs, v)
		if i.tracing {
			rec := i.claimRecord(r, trace.ClaimAccepted, cs, id, span)
			rec.Body = fmt.Sprintf("accepted by policy %s (auto): %s = %s is a fact", cs.Policy.Name, cs.Field, v)
			i.emit(r, rec)
		}
	default:
		c.Value = v
	}
	*cur = c
	r.Claims = append(r.Claims, c)
}

// isProjection reports whether an effect writes the context to a read
// model (a store projection).
func isProjection(effect string) bool { return effect == "db.project" || effect == "typedb.write" }

// projected traces, for an executed store projection, each accepted
// claim it carried: every fact in the read model names its claim and
// who accepted it.
func (i *Instance) projected(r *StepResult, e *Effect, span string) {
	for k, cs := range i.m.claims {
		c := &i.claims[k]
		if c.Status != ClaimAccepted {
			continue
		}
		rec := i.claimRecord(r, trace.ClaimProjected, cs, c.ID, span)
		rec.Body = fmt.Sprintf("%s projected %s = %s, claim %s accepted by %s", e.Spec.Label(), cs.Field, c.Value, c.ID, c.By)
		rec.Effect, rec.Target, rec.PrincipalID = e.Spec.Name, e.Spec.Target, c.By
		i.emit(r, rec)
	}
}

// setFact writes an accepted claim's value to its context field.
func (i *Instance) setFact(r *StepResult, cs *ClaimSpec, v value.Value) {
	ctx := make([]value.Value, len(i.ctx))
	copy(ctx, i.ctx)
	ctx[cs.field] = v
	i.ctx, r.Context = ctx, ctx
	i.vars[cs.Field] = v
}

func (i *Instance) claimRecord(r *StepResult, event string, cs *ClaimSpec, id, parent string) trace.Record {
	rec := i.record(r, event, trace.ComponentClaim, i.m.Name+".claim."+cs.Field, i.nextSpan(), parent)
	rec.EffectIntentID, rec.PolicyID = id, cs.Policy.Name
	return rec
}

// Decide applies an acceptance input: principal v.Principal accepts or
// rejects the pending claim on v.Claim. Accepted under its policy (the
// human, or the quorum's last missing approval), the claim becomes a
// fact: its value is written to the field. One rejection by a principal
// of the policy rejects it. The step never moves the instance. It fails,
// changing nothing, when no claim on the field is pending
// (R_CLAIM_NOT_PENDING) or when the principal may not decide it
// (R_CLAIM_REFUSED).
func (i *Instance) Decide(ctx context.Context, v ClaimVerdict) StepResult {
	r := i.standstill(Input{Kind: InputClaim, Claim: &v}, CauseClaim)
	r.Verdict = &v
	root := ""
	if i.tracing {
		i.startTrace(r)
		root = i.nextSpan()
	}
	cs, f := i.judgeable(v)
	if f != nil {
		r.Failure = f
		if i.tracing {
			rec := i.record(r, trace.ClaimRefused, trace.ComponentClaim, i.m.Name+".claim."+v.Claim, root, "")
			rec.Severity, rec.Body = trace.Error, f.Message
			rec.Reason, rec.Expected, rec.Actual, rec.ErrorCode = f.Reason, f.Expected, f.Actual, f.Code
			rec.PrincipalID = v.Principal
			i.emit(r, rec)
		}
		i.notify(r)
		return *r
	}
	c := &i.claims[cs.Index]
	p := cs.Policy
	event := ""
	switch {
	case v.Verdict == VerdictReject:
		c.Status, c.By = ClaimRejected, v.Principal
		event = trace.ClaimRejected
	case p.Rule == RuleHuman:
		c.Approvals = append(slices.Clip(c.Approvals), v.Principal)
		c.Status, c.By = ClaimAccepted, v.Principal
		event = trace.ClaimAccepted
	default: // quorum
		c.Approvals = append(slices.Clip(c.Approvals), v.Principal)
		event = trace.ClaimApproved
		if len(c.Approvals) >= p.Quorum {
			c.Status, c.By = ClaimAccepted, v.Principal
			event = trace.ClaimAccepted
		}
	}
	if c.Status == ClaimAccepted {
		i.setFact(r, cs, c.Value)
	}
	r.OK = true
	r.Claims = []Claim{*c}
	if i.tracing {
		rec := i.record(r, event, trace.ComponentClaim, i.m.Name+".claim."+cs.Field, root, "")
		rec.EffectIntentID, rec.PolicyID, rec.PrincipalID = c.ID, p.Name, v.Principal
		switch event {
		case trace.ClaimRejected:
			rec.Body = fmt.Sprintf("%s rejected claim %s on %s; %s keeps its last fact", v.Principal, c.ID, cs.Field, cs.Field)
		case trace.ClaimApproved:
			rec.Body = fmt.Sprintf("%s approved claim %s on %s (%d of %d)", v.Principal, c.ID, cs.Field, len(c.Approvals), p.Quorum)
		default:
			rec.Body = fmt.Sprintf("%s accepted claim %s under policy %s %s: %s = %s is a fact", v.Principal, c.ID, p.Name, p, cs.Field, c.Value)
		}
		i.emit(r, rec)
	}
	if i.obs != nil && i.err == nil {
		if err := i.obs.Committed(i, r); err != nil {
			i.err = err
		}
	}
	if i.tracing {
		i.snapshotRecord(r)
	}
	if i.obs != nil && i.err == nil {
		if err := i.obs.Finished(i, r); err != nil {
			i.err = err
		}
	}
	return *r
}

// judgeable finds the claim an acceptance input decides and checks that
// its principal may decide it.
func (i *Instance) judgeable(v ClaimVerdict) (*ClaimSpec, *Failure) {
	if i.err != nil {
		return nil, &Failure{Code: CodeLedger, Message: "the instance stopped: " + i.err.Error(), Reason: "recording failed"}
	}
	if i.status == Cancelled {
		return nil, &Failure{Code: CodeCancelled, Message: "the instance was cancelled; its claims can no longer be decided", Reason: "instance cancelled", Expected: "running", Actual: "cancelled"}
	}
	if v.Verdict != VerdictAccept && v.Verdict != VerdictReject {
		return nil, &Failure{Code: CodeBadInput, Message: fmt.Sprintf("a claim's verdict is %s or %s, not %q", VerdictAccept, VerdictReject, v.Verdict)}
	}
	cs := i.m.claimSpec(v.Claim)
	if cs == nil {
		names := make([]string, len(i.m.claims))
		for k, c := range i.m.claims {
			names[k] = c.Field
		}
		msg := fmt.Sprintf("machine %s declares no claim %q", i.m.Name, v.Claim)
		if len(names) > 0 {
			msg += "; its claims are " + strings.Join(names, ", ")
		}
		return nil, &Failure{Code: CodeClaimNotPending, Message: msg, Reason: "unknown claim", Expected: strings.Join(names, ", "), Actual: v.Claim}
	}
	c := &i.claims[cs.Index]
	if c.Status != ClaimPending {
		return nil, &Failure{Code: CodeClaimNotPending, Message: fmt.Sprintf("no claim on %s is pending (%s); only an observation awaiting acceptance can be decided", cs.Field, claimWord(c.Status)),
			Reason: "nothing pending", Expected: string(ClaimPending), Actual: claimWord(c.Status)}
	}
	p := cs.Policy
	refuse := func(why string) (*ClaimSpec, *Failure) {
		return nil, &Failure{Code: CodeClaimRefused, Message: fmt.Sprintf("%s may not %s claim %s on %s: %s", v.Principal, v.Verdict, c.ID, cs.Field, why),
			Reason: "policy " + p.Name + " " + p.String(), Expected: strings.Join(p.Principals, ", "), Actual: v.Principal}
	}
	switch {
	case p.Rule == RuleAuto:
		return refuse("policy " + p.Name + " is (auto); it needs no acceptance")
	case !slices.Contains(p.Principals, v.Principal):
		return refuse(fmt.Sprintf("policy %s %s names %s", p.Name, p, strings.Join(p.Principals, ", ")))
	case v.Verdict == VerdictAccept && slices.Contains(c.Approvals, v.Principal):
		return refuse("they have already approved it; a quorum counts distinct principals")
	}
	return cs, nil
}

// observationValue decodes an effect's result as the claimed field's
// type: the result itself when it fits; otherwise, for an MCP tool result
// ({"content": [...], "structuredContent": ...}), its structured content,
// or its first text content (as the text itself for a Text field, as JSON
// for any other type). The error is the first decoding's.
func observationValue(res json.RawMessage, t types.Type) (value.Value, error) {
	v, err := value.FromJSON(res, t)
	if err == nil {
		return v, nil
	}
	var tool struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(res, &tool) != nil {
		return v, err
	}
	if len(tool.Structured) > 0 {
		if sv, serr := value.FromJSON(tool.Structured, t); serr == nil {
			return sv, nil
		}
	}
	for _, c := range tool.Content {
		if c.Type != "text" {
			continue
		}
		if types.Identical(t, types.TText) {
			return value.Text(c.Text), nil
		}
		if tv, terr := value.FromJSON(json.RawMessage(c.Text), t); terr == nil {
			return tv, nil
		}
		break
	}
	return v, err
}
