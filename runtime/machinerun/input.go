package machinerun

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/value"
)

// DefaultCancelReason is the reason of a !cancel input that gives none.
const DefaultCancelReason = "cancelled from the command line"

// Input is one input to an instance, in the form caps machine-run takes
// it on its command line. Exactly one of its kinds is set: the zero Input
// with Event set is an event.
type Input struct {
	// Text is the input as written; an advance that fails is reported
	// under it.
	Text string
	// Event is an event (NAME or NAME={json payload}); the kind of an
	// Input that sets nothing else.
	Event machine.Event
	// Advance moves the logical clock forward by AdvanceMs milliseconds
	// (+DURATION).
	Advance   bool
	AdvanceMs int64
	// Cancel cancels the instance with this reason (!cancel,
	// !cancel=REASON).
	Cancel *string
	// Resolve approves or rejects a held intent (!approve=STEP=P:NAME,
	// !reject=STEP=P:NAME).
	Resolve *machine.Resolution
	// Claim accepts or rejects a pending claim (!accept=CLAIM=P,
	// !reject-claim=CLAIM=P).
	Claim *machine.ClaimVerdict
}

// EventInput is the input that delivers event name with its payload as
// JSON (nil: none).
func EventInput(name string, payload json.RawMessage) Input {
	return Input{Text: name, Event: machine.Event{Name: name, Raw: payload}}
}

// ParseInputs parses the inputs of a command line, in order; the first
// one that does not parse is the error.
func ParseInputs(args []string) ([]Input, error) {
	var out []Input
	for _, a := range args {
		in, err := ParseInput(a)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// ParseInput parses one input:
//
//	NAME, NAME={json}                  an event and its payload
//	+DURATION                          move the clock (+30m, +48h)
//	!cancel, !cancel=REASON            cancel the instance
//	!approve=STEP=PRINCIPAL:NAME       approve the intent held at step #STEP
//	!reject=STEP=PRINCIPAL:NAME        reject it
//	!accept=CLAIM=PRINCIPAL            accept the pending claim on CLAIM
//	!reject-claim=CLAIM=PRINCIPAL      reject it
//
// An error says what the input should look like.
func ParseInput(a string) (Input, error) {
	in := Input{Text: a}
	switch {
	case strings.HasPrefix(a, "+"):
		d, err := value.ParseDuration(a[1:])
		if err != nil {
			return Input{}, fmt.Errorf("input %q: +DURATION moves the clock, e.g. +30m: %v", a, err)
		}
		in.Advance, in.AdvanceMs = true, d.Millis()
	case a == "!cancel" || strings.HasPrefix(a, "!cancel="):
		reason := strings.TrimPrefix(strings.TrimPrefix(a, "!cancel"), "=")
		if reason == "" {
			reason = DefaultCancelReason
		}
		in.Cancel = &reason
	case strings.HasPrefix(a, "!approve=") || strings.HasPrefix(a, "!reject="):
		verdict, rest, _ := strings.Cut(a[1:], "=")
		ref, by, ok := strings.Cut(rest, "=")
		if !ok || ref == "" {
			return Input{}, fmt.Errorf("input %q: write !%s=STEP=PRINCIPAL:NAME (!%s=5=HumanClaimsLead:alice), STEP the #number of the step that holds the intent, or the intent's id", a, verdict, verdict)
		}
		principal, name, err := authority.ParseApprover(by)
		if err != nil {
			return Input{}, fmt.Errorf("input %q: %v", a, err)
		}
		in.Resolve = &machine.Resolution{Ref: ref, Verdict: verdict, Principal: principal, Name: name}
	case strings.HasPrefix(a, "!accept=") || strings.HasPrefix(a, "!reject-claim="):
		kind, rest, _ := strings.Cut(a[1:], "=")
		field, principal, ok := strings.Cut(rest, "=")
		if !ok || field == "" || principal == "" {
			return Input{}, fmt.Errorf("input %q: write !%s=CLAIM=PRINCIPAL (!%s=score=risk_officer), CLAIM the claimed context field", a, kind, kind)
		}
		verdict := machine.VerdictAccept
		if kind == "reject-claim" {
			verdict = machine.VerdictReject
		}
		in.Claim = &machine.ClaimVerdict{Claim: field, Verdict: verdict, Principal: principal}
	case strings.HasPrefix(a, "!"):
		return Input{}, fmt.Errorf("input %q: the ! inputs are !cancel, !approve=STEP=PRINCIPAL:NAME, !reject=STEP=PRINCIPAL:NAME, !accept=CLAIM=PRINCIPAL and !reject-claim=CLAIM=PRINCIPAL", a)
	default:
		name, payload, has := strings.Cut(a, "=")
		if name == "" {
			return Input{}, fmt.Errorf("input %q: write an event as NAME or NAME={json payload}", a)
		}
		in.Event.Name = name
		if has {
			if !json.Valid([]byte(payload)) {
				var v any
				err := json.Unmarshal([]byte(payload), &v)
				return Input{}, fmt.Errorf("event %s: the payload is not JSON: %v", name, err)
			}
			in.Event.Raw = json.RawMessage(payload)
		}
	}
	return in, nil
}
