package machinerun

import (
	"encoding/json"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/value"
)

// Report is a run as caps machine-run --json prints it.
type Report struct {
	Machine  string          `json:"machine"`
	Mode     string          `json:"mode"`
	Instance string          `json:"instance"`
	State    string          `json:"state"`
	Status   string          `json:"status"`
	Clock    string          `json:"clock"`
	Context  json.RawMessage `json:"context"`
	Steps    []StepReport    `json:"steps"`
	// Claims is the current claim of each of the machine's claims.
	Claims []ClaimReport `json:"claims,omitempty"`
	Ledger string        `json:"ledger,omitempty"`
}

// ClaimReport is a claim (docs/language.md, "Claims before facts").
type ClaimReport struct {
	Field     string          `json:"field"`
	ID        string          `json:"id,omitempty"`
	Policy    string          `json:"policy"`
	Status    string          `json:"status"`
	Value     json.RawMessage `json:"value,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Approvals []string        `json:"approvals,omitempty"`
	By        string          `json:"by,omitempty"`
}

// StepReport is one step of a Report.
type StepReport struct {
	Seq     uint64          `json:"seq"`
	Event   string          `json:"event"`
	Cause   string          `json:"cause"`
	Payload json.RawMessage `json:"payload,omitempty"`
	// Defaulted lists the payload fields dry-run mode set to their zero
	// values because the input left them out.
	Defaulted []string        `json:"defaulted,omitempty"`
	From      string          `json:"from"`
	To        string          `json:"to"`
	OK        bool            `json:"ok"`
	Error     *StepError      `json:"error"`
	Context   json.RawMessage `json:"context"`
	Effects   []EffectReport  `json:"effects"`
	Route     *machine.Route  `json:"route,omitempty"`
	Clock     string          `json:"clock"`
	// Approval and Resolves are an approval step's verdict and the step
	// whose held intent it resolved.
	Approval *ApprovalReport `json:"approval,omitempty"`
	Resolves uint64          `json:"resolves,omitempty"`
	// Verdict is a claim step's acceptance input, and Claims the claims
	// the step observed, superseded or decided.
	Verdict *machine.ClaimVerdict `json:"claim_verdict,omitempty"`
	Claims  []ClaimReport         `json:"claims,omitempty"`
}

// ApprovalReport is an approval step's verdict on a held intent.
type ApprovalReport struct {
	Ref       string `json:"ref"`
	Verdict   string `json:"verdict"`
	Principal string `json:"principal"`
	Name      string `json:"name"`
}

// StepError is why a step failed.
type StepError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// EffectReport is an effect intent of a step and its outcome.
type EffectReport struct {
	Effect   string        `json:"effect"`
	Target   string        `json:"target,omitempty"`
	Extra    []string      `json:"extra_targets,omitempty"`
	Args     []value.Value `json:"args,omitempty"`
	ID       string        `json:"id,omitempty"`
	Status   string        `json:"status"`
	Retry    int           `json:"retry,omitempty"`
	Timeout  string        `json:"timeout,omitempty"`
	OnError  string        `json:"on_error,omitempty"`
	Decision string        `json:"decision,omitempty"`
	// Authority is the module's authority decision (docs/authority.md);
	// absent for an intent skipped before it was decided.
	Authority *authority.Decision `json:"authority,omitempty"`
	Attempts  []machine.Outcome   `json:"attempts,omitempty"`
	Result    json.RawMessage     `json:"result,omitempty"`
	Code      string              `json:"code,omitempty"`
	Error     string              `json:"error,omitempty"`
}

// Report shapes the run as caps machine-run --json prints it.
func (res *Result) Report() Report {
	m, inst := res.Machine, res.Instance
	out := Report{Machine: m.Name, Mode: string(inst.Mode()), Instance: inst.ID(), State: inst.State(), Status: string(inst.Status()),
		Clock: value.FormatDuration(inst.Clock()), Context: m.ContextJSON(inst.Context()), Steps: []StepReport{}, Ledger: res.Ledger}
	for k := range res.Steps {
		out.Steps = append(out.Steps, StepReportOf(m, &res.Steps[k]))
	}
	out.Claims = ClaimReports(inst.Claims())
	return out
}

// StepReportOf shapes one step of a run of m.
func StepReportOf(m *machine.Machine, s *Step) StepReport {
	r := &s.StepResult
	sj := StepReport{Seq: r.Seq, Event: r.Event, Cause: string(r.Cause), From: r.From, To: r.To, OK: r.OK,
		Context: m.ContextJSON(r.Context), Effects: EffectReports(r.Effects, m.Governed()), Route: r.Route, Clock: value.FormatDuration(r.Clock),
		Defaulted: s.Defaulted}
	if r.Payload != nil {
		sj.Payload = m.AppendPayloadOf(nil, r.Event, r.Payload)
	}
	if r.Failure != nil {
		sj.Error = &StepError{Code: r.Failure.Code, Message: r.Failure.Message}
	}
	if res := r.Resolution; res != nil {
		sj.Approval = &ApprovalReport{Ref: res.Ref, Verdict: res.Verdict, Principal: res.Principal, Name: res.Name}
		sj.Resolves = r.Resolves
	}
	sj.Verdict, sj.Claims = r.Verdict, ClaimReports(r.Claims)
	return sj
}

// ClaimReports shapes claims (nil for none).
func ClaimReports(cs []machine.Claim) []ClaimReport {
	var out []ClaimReport
	for _, c := range cs {
		cj := ClaimReport{Field: c.Field, ID: c.ID, Policy: c.Policy, Status: string(c.Status), Approvals: c.Approvals, By: c.By}
		if c.Status == machine.ClaimNone {
			cj.Status = "none"
		}
		if c.Value.Kind() != value.KindInvalid {
			cj.Value = machine.AppendValue(nil, c.Value)
		} else if len(c.Result) > 0 {
			cj.Result = c.Result
		}
		out = append(out, cj)
	}
	return out
}

// EffectReports shapes a step's intents (never nil). In a module without
// an authority-policy (not governed), every intent that was not skipped
// reports authority.Ungoverned.
func EffectReports(effs []machine.Effect, governed bool) []EffectReport {
	out := []EffectReport{}
	for k := range effs {
		e := &effs[k]
		ej := EffectReport{Effect: e.Spec.Name, Target: e.Spec.Target, Extra: e.Spec.Extra, Args: e.Args, ID: e.ID,
			Status: string(e.Status), Retry: e.Spec.Retry, Timeout: e.Spec.TimeoutText, Decision: e.Decision,
			Authority: e.Authority, Attempts: e.Attempts, Result: e.Result(), Code: e.Code, Error: e.Error}
		if !governed && e.Status != machine.Skipped {
			ej.Authority = authority.Ungoverned
		}
		if e.Spec.OnError != nil {
			ej.OnError = e.Spec.OnError.Name
		}
		out = append(out, ej)
	}
	return out
}
