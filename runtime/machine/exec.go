package machine

import (
	"context"
	"encoding/json"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/runtime/value"
)

// Mode is how an instance treats effect intents (spec §08).
type Mode string

// Modes.
const (
	// DryRun plans effects without executing them: every intent is
	// returned with status "planned".
	DryRun Mode = "dry-run"
	// Mock executes deterministic mock handlers.
	Mock Mode = "mock"
	// Live sends intents to host adapters behind a host policy.
	Live Mode = "live"
	// Replay feeds back the outcomes a ledger recorded.
	Replay Mode = "replay"
)

// ParseMode parses a mode name.
func ParseMode(s string) (Mode, bool) {
	switch Mode(s) {
	case DryRun, Mock, Live:
		return Mode(s), true
	}
	return "", false
}

// Executor carries out effect intents for an instance. A nil Executor
// means dry-run. Implementations: adapters.Mock, adapters.Live, and the
// replay executor of package runtime/replay.
type Executor interface {
	Mode() Mode
	// Approve decides, before the first attempt, whether the host allows
	// the intent.
	Approve(c *Call) Decision
	// Execute makes one attempt at the intent. It must not panic; every
	// failure is an Outcome with OK false. ctx is cancelled when the
	// instance's step is cancelled; a live executor also bounds the
	// attempt by c.Spec.Timeout.
	Execute(ctx context.Context, c *Call) Outcome
}

// Decision is a host policy's answer for one intent.
type Decision struct {
	Allowed bool
	// Rule says which policy rule decided (for the trace), e.g.
	// "allow mcp.call everything.echo" or "default deny".
	Rule string
}

// Call is one attempt at an effect intent, as an executor sees it.
type Call struct {
	Machine    *Machine
	InstanceID string
	IntentID   string
	Seq, Step  uint64
	Attempt    int // 1-based
	Spec       *EffectSpec
	// Args are the intent's evaluated arguments (nil when it has none).
	Args []value.Value
	// Event and Payload are the event being handled; From is the state it
	// arrived in and State the transition's target.
	Event   string
	Payload map[string]value.Value
	From    string
	State   string
	// Context is the context after the transition's assignments. It must
	// not be modified.
	Context []value.Value
	Clock   int64
}

// Outcome is the observed result of one attempt.
type Outcome struct {
	OK bool `json:"ok"`
	// Result is the adapter's result as JSON (nil for none).
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	// Code classifies a failure: R_EFFECT_FAILED, R_EFFECT_TIMEOUT,
	// R_EFFECT_CANCELLED, or an adapter's own code.
	Code string `json:"code,omitempty"`
	// DurationMs is how long the attempt took: on the logical clock for
	// mocks (their declared latency), measured for live adapters.
	DurationMs int64 `json:"duration_ms"`
	// Adapter names the adapter that ran the attempt: mock, mcp, http.
	Adapter string `json:"adapter,omitempty"`
	// Operation is the adapter-level operation, e.g. "tools/call echo".
	Operation string `json:"operation,omitempty"`
}

// EffectStatus is what became of an intent.
type EffectStatus string

// Effect statuses.
const (
	Planned  EffectStatus = "planned"  // dry-run: not executed
	Executed EffectStatus = "executed" // an attempt succeeded
	Failed   EffectStatus = "failed"   // every attempt failed
	Denied   EffectStatus = "denied"   // the host policy refused it
	Skipped  EffectStatus = "skipped"  // an earlier intent of the step failed
	Rejected EffectStatus = "rejected" // held by the authority, then rejected by an approver
)

// Effect is one effect intent emitted by a step, and what became of it.
type Effect struct {
	Spec  *EffectSpec
	Index int
	// ID is the deterministic effect_intent_id; "" when the instance
	// neither traces nor records.
	ID   string
	Args []value.Value
	// Status is Planned in dry-run mode.
	Status   EffectStatus
	Decision string // the host policy rule that approved or denied it
	// Authority is the module's authority decision (nil: the module is
	// ungoverned, or the intent was skipped before it was decided).
	Authority *authority.Decision
	Attempts  []Outcome
	// Error and Code describe the final failure of a failed or denied
	// intent.
	Error string
	Code  string
}

// Result is the last attempt's result, or nil.
func (e *Effect) Result() json.RawMessage {
	if n := len(e.Attempts); n > 0 {
		return e.Attempts[n-1].Result
	}
	return nil
}

// Failure codes of failed events and effects.
const (
	CodeUnknownEvent    = "R_UNKNOWN_EVENT"    // the machine declares no such event
	CodeBadPayload      = "R_BAD_PAYLOAD"      // the payload does not fit the event's declaration
	CodeNoTransition    = "R_NO_TRANSITION"    // the current state has no transition for the event
	CodeGuardFalse      = "R_GUARD_FALSE"      // every guard of the state's transitions for the event is false
	CodeEvalError       = "R_EVAL_ERROR"       // a guard, assignment or effect argument trapped
	CodeFinalState      = "R_FINAL_STATE"      // the instance is in a final state
	CodeCancelled       = "R_CANCELLED"        // the instance was cancelled
	CodeLedger          = "R_LEDGER"           // recording the instance failed; it stops
	CodeBadInput        = "R_BAD_INPUT"        // an advance by a negative duration
	CodeEffectFailed    = "R_EFFECT_FAILED"    // the adapter reported a failure
	CodeEffectTimeout   = "R_EFFECT_TIMEOUT"   // an attempt took longer than the effect's timeout
	CodeEffectDenied    = "R_EFFECT_DENIED"    // the host policy denied the intent
	CodeEffectCancelled = "R_EFFECT_CANCELLED" // the step was cancelled during the attempt
)
