package capsule

import "fmt"

// The generated tests are machine scenarios (docs/cli.md, "Machine
// scenarios"), run by caps test --scenario against the generated module.

// Scenario is a scenario file.
type Scenario struct {
	Machine     string `json:"machine"`
	Description string `json:"description"`
	Events      []Step `json:"events"`
}

// Step is one input and its expectations.
type Step struct {
	Event   string         `json:"event"`
	Payload map[string]any `json:"payload,omitempty"`
	Expect  Expect         `json:"expect"`
}

// Expect is what a step must leave.
type Expect struct {
	State   string          `json:"state"`
	OK      *bool           `json:"ok,omitempty"`
	Code    string          `json:"code,omitempty"`
	Effects *[]EffectExpect `json:"effects,omitempty"`
}

// EffectExpect is one expected intent.
type EffectExpect struct {
	Effect string `json:"effect"`
	Target string `json:"target"`
	Status string `json:"status"`
	Code   string `json:"code,omitempty"`
}

// NamedScenario is a scenario and its file name stem.
type NamedScenario struct {
	Name     string
	Scenario *Scenario
}

func effects(list ...EffectExpect) *[]EffectExpect { return &list }

func planned(effect, target string) EffectExpect {
	return EffectExpect{Effect: effect, Target: target, Status: "planned"}
}

func denied(effect, target string) EffectExpect {
	return EffectExpect{Effect: effect, Target: target, Status: "denied", Code: "R_AUTHORITY_DENIED"}
}

// Scenarios are the bundle's tests: one negative scenario per bypass the
// contract makes possible to try (an effect outside the mandate, an amount
// above the limit, a protected effect without its gate, a completion
// without the receipt), each expecting the runtime to refuse it, and one
// positive scenario of the allowed path, so that a module refusing
// everything does not pass.
func Scenarios(e *EDL) []NamedScenario {
	var out []NamedScenario
	gate := func(tool string) string { return e.Gate.Port + "." + tool }
	no := false
	out = append(out, NamedScenario{"negative-01-effect-outside-mandate", &Scenario{
		Machine:     probeMachine,
		Description: fmt.Sprintf("The agent asks the doorkeeper for %s, which no capability or rule of the mandate covers; the policy's default denies it.", e.Probe.OutsideMandate),
		Events: []Step{{Event: "CallOutsideMandate", Expect: Expect{State: "probing", Effects: effects(
			planned("policy.evaluate", e.Policy.Name), denied("mcp.call", gate(e.Probe.OutsideMandate)))}}},
	}})
	var capped, approved *EDLCap
	for _, c := range e.Capabilities {
		if capped == nil && c.MaxAmountUSD != nil {
			capped = c
		}
		if approved == nil && c.Approval != "none" {
			approved = c
		}
	}
	if capped != nil && capped.Approval != "none" {
		wait := "awaiting_approval_" + capped.Action
		out = append(out, NamedScenario{"negative-02-amount-above-limit", &Scenario{
			Machine:     agentMachine,
			Description: fmt.Sprintf("A request of %d USD, one above max_amount_usd, is approved by the owner; the policy still denies the call, and the instance returns to ready.", *capped.MaxAmountUSD+1),
			Events: []Step{
				{Event: capped.Event, Payload: map[string]any{"request_id": 1, "amount_usd": *capped.MaxAmountUSD + 1}, Expect: Expect{State: wait}},
				{Event: "HumanApproved", Payload: map[string]any{"approval_id": "APR-1"}, Expect: Expect{State: "ready", Effects: effects(
					planned("policy.evaluate", e.Policy.Name), planned("capability.issue", capped.Name), denied("mcp.call", gate(capped.Action)))}},
			},
		}})
	}
	if e.Probe.ProtectedAction != "" {
		out = append(out, NamedScenario{"negative-03-protected-without-gate", &Scenario{
			Machine:     probeMachine,
			Description: fmt.Sprintf("The agent calls the protected action %s directly, without the approval gate that issues its capability; the runtime denies it for want of a live capability.", e.Probe.ProtectedAction),
			Events: []Step{{Event: "CallWithoutGate", Payload: map[string]any{"amount_usd": 1}, Expect: Expect{State: "probing", Effects: effects(
				planned("policy.evaluate", e.Policy.Name), denied("mcp.call", gate(e.Probe.ProtectedAction)))}}},
		}})
	}
	if approved != nil {
		amount := approvedAmount(approved)
		wait, done := "awaiting_approval_"+approved.Action, "awaiting_receipt_"+approved.Action
		req := map[string]any{"request_id": 2}
		if approved.MaxAmountUSD != nil {
			req["amount_usd"] = amount
		}
		out = append(out, NamedScenario{"negative-04-missing-receipt", &Scenario{
			Machine:     agentMachine,
			Description: fmt.Sprintf("After an approved %s the agent tries to complete before the doorkeeper's receipt arrives; the runtime refuses the completion until the receipt is recorded.", approved.Action),
			Events: []Step{
				{Event: approved.Event, Payload: req, Expect: Expect{State: wait}},
				{Event: "HumanApproved", Payload: map[string]any{"approval_id": "APR-2"}, Expect: Expect{State: done, Effects: effects(
					planned("policy.evaluate", e.Policy.Name), planned("capability.issue", approved.Name), planned("mcp.call", gate(approved.Action)))}},
				{Event: "Complete", Expect: Expect{State: done, OK: &no, Code: "R_NO_TRANSITION", Effects: effects()}},
			},
		}})
	}
	// The allowed path: every action once, within its limits.
	var steps []Step
	for i, c := range e.Capabilities {
		req := map[string]any{"request_id": 10 + i}
		if c.MaxAmountUSD != nil {
			req["amount_usd"] = approvedAmount(c)
		}
		if c.Approval == "none" {
			steps = append(steps, Step{Event: c.Event, Payload: req, Expect: Expect{State: "ready", Effects: effects(
				planned("policy.evaluate", e.Policy.Name), planned("capability.issue", c.Name), planned("mcp.call", gate(c.Action)),
				planned("receipt.emit", c.Action+"_receipt"))}})
			continue
		}
		steps = append(steps,
			Step{Event: c.Event, Payload: req, Expect: Expect{State: "awaiting_approval_" + c.Action}},
			Step{Event: "HumanApproved", Payload: map[string]any{"approval_id": fmt.Sprintf("APR-%d", 10+i)}, Expect: Expect{State: "awaiting_receipt_" + c.Action, Effects: effects(
				planned("policy.evaluate", e.Policy.Name), planned("capability.issue", c.Name), planned("mcp.call", gate(c.Action)))}},
			Step{Event: "ReceiptRecorded", Payload: map[string]any{"receipt_id": fmt.Sprintf("RCPT-%d", 10+i)}, Expect: Expect{State: "ready", Effects: effects(
				planned("receipt.emit", c.Action+"_executed"))}})
	}
	steps = append(steps, Step{Event: "Complete", Expect: Expect{State: "completed", Effects: effects(planned("receipt.emit", "enclosure_completed"))}})
	out = append(out, NamedScenario{"positive-01-allowed-path", &Scenario{
		Machine:     agentMachine,
		Description: "Every action of the mandate once, within its limits and with its approvals and receipts; the runtime allows each and the instance completes.",
		Events:      steps,
	}})
	return out
}

// approvedAmount is an amount that needs the approval and stays within
// the limit.
func approvedAmount(c *EDLCap) int64 {
	switch {
	case c.ApprovalAboveUSD != nil:
		return *c.ApprovalAboveUSD + 1
	case c.MaxAmountUSD != nil:
		return *c.MaxAmountUSD
	}
	return 0
}
