package authority

import (
	"fmt"
	"strings"
)

// Verdicts of an approval.
const (
	Approve = "approve"
	Reject  = "reject"
)

// Approval is a named approver's verdict on an intent the authority held
// (escalated or deferred). It is recorded in the intent's decision.
type Approval struct {
	// Verdict is Approve or Reject.
	Verdict string `json:"verdict"`
	// Principal is the declared principal the approver acts for, Name the
	// approver (a person or a key id): HumanClaimsLead:alice.
	Principal string `json:"principal"`
	Name      string `json:"name"`
	// Held is the outcome that held the intent: escalate or defer.
	Held Outcome `json:"held"`
}

// By is the approver as written on the command line: PRINCIPAL:NAME.
func (a *Approval) By() string { return a.Principal + ":" + a.Name }

// ParseApprover reads PRINCIPAL:NAME.
func ParseApprover(s string) (principal, name string, err error) {
	principal, name, ok := strings.Cut(s, ":")
	if !ok || principal == "" || name == "" {
		return "", "", fmt.Errorf("an approver is PRINCIPAL:NAME (HumanClaimsLead:alice), not %q", s)
	}
	return principal, name, nil
}

// Approvers lists the principals that may resolve an intent held by
// decision d, and says where the list comes from: the (approval P) of the
// capability in force; without one, the issuer (issued-by) of the mandate
// in force. The acting principal never approves its own intents.
func (m *Model) Approvers(d *Decision) ([]string, string) {
	if c := m.caps[d.Capability]; c != nil && c.Approval != "" {
		return m.notActing([]string{c.Approval}), "the (approval " + c.Approval + ") of capability " + c.Name
	}
	if md := m.Mandates[d.Mandate]; md != nil && md.IssuedBy != "" {
		return m.notActing([]string{md.IssuedBy}), "the issuer (issued-by " + md.IssuedBy + ") of mandate " + md.Name
	}
	return nil, "no capability (approval P) and no mandate issuer in force"
}

func (m *Model) notActing(ps []string) []string {
	var out []string
	for _, p := range ps {
		if p != m.principal {
			out = append(out, p)
		}
	}
	return out
}

// MayApprove reports why principal may not resolve an intent held by d,
// or nil when it may.
func (m *Model) MayApprove(d *Decision, principal string) error {
	if m.Principals[principal] == nil {
		return fmt.Errorf("the module declares no principal %s", principal)
	}
	ps, from := m.Approvers(d)
	for _, p := range ps {
		if p == principal {
			return nil
		}
	}
	if len(ps) == 0 {
		return fmt.Errorf("nobody may approve it: %s", from)
	}
	return fmt.Errorf("only %s may approve it (%s), not %s", strings.Join(ps, ", "), from, principal)
}

// applyApproval resolves a decision taken again at the time of an
// approval: a held outcome (escalate or defer) becomes allow when
// approved and deny when rejected; a deny stays a deny (an approval lifts
// a hold, never a refusal: an expired or used capability, a lapsed
// mandate, a rule that now denies).
func applyApproval(d *Decision, a *Approval) {
	ap := *a
	d.Approval = &ap
	rule := d.Rule
	if d.Policy != "" {
		rule = d.Policy + " " + d.Rule
	}
	switch {
	case a.Verdict == Reject:
		d.Outcome = Deny
		d.Reason = fmt.Sprintf("rejected by %s (held by %s)", a.By(), rule)
	case d.Outcome == Escalate || d.Outcome == Defer:
		d.Outcome = Allow
		d.Reason = fmt.Sprintf("approved by %s (held by %s)", a.By(), rule)
	case d.Outcome == Allow:
		d.Reason = fmt.Sprintf("approved by %s; %s", a.By(), d.Reason)
	default:
		d.Reason = fmt.Sprintf("approved by %s, but still denied: %s", a.By(), d.Reason)
	}
}
