package capsule

import (
	"fmt"
	"strings"
	"unicode"
)

// EDLFormat names the lowered enclosure contract.
const EDLFormat = "capsulang.edl"

// EDL is the lowered enclosure contract: the contract's requirements as
// explicit enclosure declarations (principals, mandate, delegation, the
// gate and its actions, capabilities, the enclosure, the decision policy,
// telemetry, memory and receipts), named as the generated Capsulang module
// names them. The module and the runtime artifacts are generated from it.
type EDL struct {
	Format        string          `json:"format"`
	FormatVersion int             `json:"format_version"`
	Contract      string          `json:"contract"` // the contract's module
	Module        string          `json:"module"`   // the generated Capsulang module
	Version       string          `json:"version"`
	ContractHash  string          `json:"contract_hash"`
	Purpose       string          `json:"purpose"`
	Principals    []*EDLPrincipal `json:"principals"`
	Mandate       EDLMandate      `json:"mandate"`
	Delegation    EDLDelegation   `json:"delegation"`
	Gate          EDLGate         `json:"gate"`
	Approval      EDLApproval     `json:"approval"`
	Capabilities  []*EDLCap       `json:"capabilities"`
	Enclosure     EDLEnclosure    `json:"enclosure"`
	Policy        EDLPolicy       `json:"policy"`
	Telemetry     EDLTelemetry    `json:"telemetry"`
	Memory        []*EDLMemory    `json:"memory"`
	Receipts      []*EDLReceipt   `json:"receipts"`
	Probe         EDLProbe        `json:"probe"`
}

// EDLPrincipal is a principal: the owner (human) or the enclosed agent.
type EDLPrincipal struct {
	ID          string `json:"id"`   // human:ClaimsLead
	Name        string `json:"name"` // HumanClaimsLead
	Kind        string `json:"kind"`
	Identity    string `json:"identity"`
	Credential  string `json:"credential"`  // "" for the owner
	Attestation string `json:"attestation"` // "" for the owner
}

// EDLMandate is the mandate the owner issues to the agent.
type EDLMandate struct {
	Name      string `json:"name"`
	IssuedBy  string `json:"issued_by"`
	IssuedTo  string `json:"issued_to"`
	Purpose   string `json:"purpose"`
	ValidFor  string `json:"valid_for"`
	Revocable bool   `json:"revocable"`
}

// EDLDelegation hands the mandate to the agent.
type EDLDelegation struct {
	Name         string `json:"name"`
	From         string `json:"from"`
	To           string `json:"to"`
	Under        string `json:"under"`
	MayDelegate  bool   `json:"may_delegate"`
	ExpiresAfter string `json:"expires_after"`
}

// EDLGate is the doorkeeper: the enclosure's only way out. Actions are the
// tools the mandate covers; ProbeActions are tools the doorkeeper accepts
// only so that the authority can refuse them (the bypass tests).
type EDLGate struct {
	ID           string   `json:"id"`   // gate:capsule
	Port         string   `json:"port"` // GateCapsule
	Endpoint     string   `json:"endpoint"`
	Actions      []string `json:"actions"`
	ProbeActions []string `json:"probe_actions"`
}

// EDLApproval is the human approval gate.
type EDLApproval struct {
	Gate     string `json:"gate"`
	Approver string `json:"approver"`
}

// EDLCap is the capability for one gate action.
type EDLCap struct {
	Name             string `json:"name"`
	Action           string `json:"action"`     // the gate tool
	Intent           string `json:"intent"`     // mcp.call.GateCapsule.TOOL, as a policy condition sees it
	EDLEffect        string `json:"edl_effect"` // db.read.CustomerDB.claims
	Verb             string `json:"verb"`
	Resource         string `json:"resource"`
	ValidFor         string `json:"valid_for"`
	Risk             string `json:"risk"`
	Approval         string `json:"approval"` // none, always, above_threshold
	Approver         string `json:"approver"` // "" without approval
	SingleUse        bool   `json:"single_use"`
	MaxAmountUSD     *int64 `json:"max_amount_usd"`
	ApprovalAboveUSD *int64 `json:"approval_above_usd"`
	Receipt          string `json:"receipt"`
	Event            string `json:"event"` // the machine event that requests it
}

// EDLEnclosure is the trust boundary.
type EDLEnclosure struct {
	ID                    string   `json:"id"`
	Name                  string   `json:"name"`
	Mode                  string   `json:"mode"`
	FailClosed            bool     `json:"fail_closed"`
	Sandbox               string   `json:"sandbox"`
	Network               string   `json:"network"`
	Filesystem            string   `json:"filesystem"`
	EgressOnly            []string `json:"egress_only"`
	Secrets               string   `json:"secrets"`
	RequiresAttestation   bool     `json:"requires_attestation"`
	RequiresProfileDigest bool     `json:"requires_profile_digest"`
	Backends              []string `json:"backends"`
	Image                 string   `json:"image"`
	Command               []string `json:"command"`
	Workdir               string   `json:"workdir"`
	Mounts                []string `json:"mounts"`
}

// EDLPolicy is the authority policy.
type EDLPolicy struct {
	Name    string     `json:"name"`
	Default string     `json:"default"`
	Rules   []*EDLRule `json:"rules"`
}

// EDLRule is one (on OUTCOME (if "CONDITION")).
type EDLRule struct {
	Outcome   string `json:"outcome"`
	Condition string `json:"condition"`
	Why       string `json:"why"`
}

// EDLTelemetry is the telemetry obligation.
type EDLTelemetry struct {
	Name          string   `json:"name"`
	MustEmit      []string `json:"must_emit"`
	Include       []string `json:"include"`
	Export        []string `json:"export"`
	TamperEvident bool     `json:"tamper_evident"`
}

// EDLMemory is one memory policy.
type EDLMemory struct {
	Name              string `json:"name"`
	Store             string `json:"store"`
	Isolation         string `json:"isolation"`
	TTL               string `json:"ttl"`
	SourceAttribution string `json:"source_attribution"`
	HashValidation    string `json:"hash_validation"`
}

// EDLReceipt is one receipt the workflow emits.
type EDLReceipt struct {
	Label         string `json:"label"`
	State         string `json:"state"`
	Event         string `json:"event"`
	Action        string `json:"action"` // "" for the completion receipt
	ApprovalBound bool   `json:"approval_bound"`
}

// EDLProbe names the bypass attempts the generated probe machine makes.
type EDLProbe struct {
	Machine          string `json:"machine"`
	OutsideMandate   string `json:"outside_mandate"`  // a gate tool no capability covers
	ProtectedAction  string `json:"protected_action"` // "" when no effect is protected
	ProtectedCapName string `json:"protected_capability"`
}

// Names used by the generated module.
const (
	gatePort      = "GateCapsule"
	approvalGate  = "HumanApprovalGate"
	policyName    = "PolicyCapsule"
	telemetryName = "EnclosureTelemetry"
	ledgerStore   = "EnclosureLedger"
	agentMachine  = "EnclosedAgent"
	probeMachine  = "BypassProbe"
)

// mustEmit and include are the telemetry every enclosure records.
var (
	mustEmit = []string{"invocation.start", "invocation.end", "enclosure.attested", "policy.evaluated", "capability.issued", "effect.intent", "effect.denied", "effect.escalated", "effect.executed", "receipt.emitted"}
	include  = []string{"trace_id", "span_id", "agent_id", "principal_id", "mandate_id", "delegation_id", "capability_jti", "contract_hash", "enclosure_id", "effect_intent_id", "policy_id", "gate_id"}
)

// pascal joins the words of s (split at anything but letters and digits)
// with their first letters in upper case: db_read_x -> DbReadX.
func pascal(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// BaseName is the file name stem of a contract's artifacts:
// claims.refund_reviewer -> claims-refund-reviewer.
func BaseName(module string) string {
	return strings.NewReplacer(".", "-", "_", "-").Replace(module)
}

// Lower lowers a checked contract's IR into the EDL enclosure contract.
func Lower(ir *IR) *EDL {
	hash := ir.Hash()
	owner := "Human" + pascal(strings.TrimPrefix(ir.Identity.Owner, "human:"))
	kind, name, _ := strings.Cut(ir.Identity.ID, ":")
	agent := pascal(kind) + name
	stem := pascal(ir.Module)
	identity := "cryptographic"
	if ir.Identity.Cryptographic != "required" {
		identity = "oidc"
	}
	e := &EDL{
		Format: EDLFormat, FormatVersion: 1, Contract: ir.Module, Module: "edl." + strings.ReplaceAll(ir.Module, ".", "_"),
		Version: ir.Version, ContractHash: hash, Purpose: ir.Purpose,
		Principals: []*EDLPrincipal{
			{ID: ir.Identity.Owner, Name: owner, Kind: "human", Identity: "passkey-or-oidc"},
			{ID: ir.Identity.ID, Name: agent, Kind: ir.Identity.Kind, Identity: identity, Credential: strings.ReplaceAll(ir.Identity.Credentials, "_", "-"), Attestation: ir.Identity.Attestation},
		},
		Mandate:    EDLMandate{Name: "Mandate" + stem, IssuedBy: owner, IssuedTo: agent, Purpose: ir.Purpose, ValidFor: ir.Identity.MandateValidFor, Revocable: true},
		Delegation: EDLDelegation{Name: "Delegation" + stem, From: owner, To: agent, Under: "Mandate" + stem, ExpiresAfter: ir.Identity.MandateValidFor},
		Gate:       EDLGate{ID: "gate:capsule", Port: gatePort, Endpoint: ir.Runtime.DoorkeeperEndpoint, Actions: []string{}, ProbeActions: []string{}},
		Approval:   EDLApproval{Gate: approvalGate, Approver: owner},
		Enclosure: EDLEnclosure{
			ID: "enc:" + BaseName(ir.Module), Name: "Enc" + stem, Mode: ir.Runtime.Mode, FailClosed: true, Sandbox: "required",
			Network: "deny-by-default", Filesystem: "root-read-only", EgressOnly: []string{gatePort}, Secrets: "ambient-deny",
			RequiresAttestation: ir.Identity.Attestation == "required", RequiresProfileDigest: true,
			Backends: ir.Runtime.BackendPreference, Image: ir.Runtime.Image, Command: ir.Runtime.Command, Workdir: ir.Runtime.Workdir, Mounts: ir.Runtime.Mounts,
		},
		Policy:    EDLPolicy{Name: policyName, Default: ir.Policy.Default, Rules: []*EDLRule{}},
		Telemetry: EDLTelemetry{Name: telemetryName, MustEmit: mustEmit, Include: include, Export: ir.Telemetry.Export, TamperEvident: ir.Telemetry.TamperEvident},
		Memory:    []*EDLMemory{},
		Receipts:  []*EDLReceipt{},
		Probe:     EDLProbe{Machine: probeMachine},
	}
	for _, ef := range ir.Effects {
		c := &EDLCap{
			Name: "Cap" + pascal(ef.Tool), Action: ef.Tool, Intent: "mcp.call." + gatePort + "." + ef.Tool, EDLEffect: ef.EDLEffect,
			Verb: ef.Verb, Resource: ef.Resource, ValidFor: ef.ValidFor, Risk: ef.Risk, Approval: ef.Approval,
			SingleUse: ef.Approval != "none", MaxAmountUSD: ef.MaxAmountUSD, ApprovalAboveUSD: ef.ApprovalRequiredAboveUSD,
			Receipt: ef.Receipt, Event: "Request" + pascal(ef.Tool),
		}
		if ef.Approval != "none" {
			c.Approver = owner
		}
		e.Gate.Actions = append(e.Gate.Actions, ef.Tool)
		e.Capabilities = append(e.Capabilities, c)
		e.Policy.Rules = append(e.Policy.Rules, rules(c, ir.Policy.Escalation)...)
		e.Receipts = append(e.Receipts, receipts(c)...)
	}
	e.Receipts = append(e.Receipts, &EDLReceipt{Label: "enclosure_completed", State: "ready", Event: "Complete"})
	for _, s := range ir.Memory.Stores {
		e.Memory = append(e.Memory, &EDLMemory{Name: "Mem" + pascal(strings.TrimPrefix(s.ID, "mem:")), Store: s.ID,
			Isolation: strings.ReplaceAll(s.Isolation, "_", "-"), TTL: s.TTL, SourceAttribution: s.SourceAttribution,
			HashValidation: strings.ReplaceAll(s.HashValidation, "_", "-")})
	}
	e.Probe.OutsideMandate = probeTool(ir)
	e.Gate.ProbeActions = append(e.Gate.ProbeActions, e.Probe.OutsideMandate)
	for _, want := range []bool{true, false} { // the first protected action, one that needs approval first
		for _, c := range e.Capabilities {
			if e.Probe.ProtectedAction == "" && c.Verb != "read" && (c.Approval != "none") == want {
				e.Probe.ProtectedAction, e.Probe.ProtectedCapName = c.Action, c.Name
			}
		}
	}
	return e
}

// probeTool is a gate tool the mandate does not cover: another verb on a
// resource the contract names (a write where it only reads, say).
func probeTool(ir *IR) string {
	have := map[string]bool{}
	for _, ef := range ir.Effects {
		have[ef.Verb+" "+ef.Resource] = true
	}
	for _, ef := range ir.Effects {
		for _, v := range []string{"write", "delete", "call", "read"} {
			if !have[v+" "+ef.Resource] {
				return strings.ReplaceAll(Verbs[v], ".", "_") + "_" + strings.ToLower(strings.ReplaceAll(ef.Resource, ".", "_"))
			}
		}
	}
	return "unmandated_action"
}

func lit(s string) string { return `"` + s + `"` }

// rules are the policy rules of one capability's intent.
func rules(c *EDLCap, esc []*Escalation) []*EDLRule {
	is := "effect == " + lit(c.Intent)
	var out []*EDLRule
	switch {
	case c.MaxAmountUSD != nil:
		m := *c.MaxAmountUSD
		out = append(out, &EDLRule{Outcome: "allow", Condition: fmt.Sprintf("%s and amount_usd <= %d", is, m),
			Why: fmt.Sprintf("%s %s up to max_amount_usd %d", c.Verb, c.Resource, m)})
		seen := map[string]bool{}
		if c.ApprovalAboveUSD != nil {
			x := fmt.Sprintf("amount_usd > %d", *c.ApprovalAboveUSD)
			seen[x] = true
			out = append(out, &EDLRule{Outcome: "escalate", Condition: fmt.Sprintf("%s and (%s) and not approved", is, x),
				Why: fmt.Sprintf("approval_required_above_usd %d: held for %s until approved", *c.ApprovalAboveUSD, approvalGate)})
		}
		for _, x := range esc {
			if seen[x.If] {
				continue
			}
			seen[x.If] = true
			out = append(out, &EDLRule{Outcome: "escalate", Condition: fmt.Sprintf("%s and (%s) and not approved", is, x.If),
				Why: fmt.Sprintf("policy.escalation %q requires %s", x.If, strings.Join(x.Require, ", "))})
		}
		out = append(out, &EDLRule{Outcome: "deny", Condition: fmt.Sprintf("%s and amount_usd > %d", is, m),
			Why: fmt.Sprintf("above max_amount_usd %d, even when approved", m)})
	case c.Approval == "always":
		out = append(out,
			&EDLRule{Outcome: "allow", Condition: is + " and approved", Why: fmt.Sprintf("%s %s once approved", c.Verb, c.Resource)},
			&EDLRule{Outcome: "escalate", Condition: is + " and not approved", Why: "approval: always: held for " + approvalGate})
	default:
		out = append(out, &EDLRule{Outcome: "allow", Condition: is, Why: fmt.Sprintf("%s %s is in the mandate", c.Verb, c.Resource)})
	}
	return out
}

// receipts are the receipts of one capability's path through the
// workflow.
func receipts(c *EDLCap) []*EDLReceipt {
	if c.Approval == "none" {
		return []*EDLReceipt{{Label: c.Action + "_receipt", State: "ready", Event: c.Event, Action: c.Action}}
	}
	wait, done := "awaiting_approval_"+c.Action, "awaiting_receipt_"+c.Action
	return []*EDLReceipt{
		{Label: c.Action + "_approval_requested", State: "ready", Event: c.Event, Action: c.Action},
		{Label: c.Action + "_denied", State: wait, Event: "HumanDenied", Action: c.Action},
		{Label: c.Action + "_executed", State: done, Event: "ReceiptRecorded", Action: c.Action, ApprovalBound: true},
	}
}
