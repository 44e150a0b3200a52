// Package trace defines the semantic trace records of the machine runtime
// (spec §10, conformance level CPS-5): what happened while an instance
// handled an input, why a step failed, which effect intents were planned,
// approved, executed or failed, and which adapter calls were made.
//
// A Record is a flat, transport-neutral evidence record. Its field names
// follow the spec (trace_id, span_id, event, component, operation,
// service, reason, expected, actual, error_code, duration_ms, capsule_hash,
// machine_instance_id, effect_intent_id, trace_history) and, where
// OpenTelemetry's log data model has a name for the same thing, that name
// (trace_id, span_id, parent_span_id, severity_text, body).
//
// Records are deterministic: ids are derived from the instance id and the
// step numbers (never random), times and durations are on the instance's
// logical clock except for the measured durations of live adapter calls,
// so the same inputs give the same records, byte for byte.
package trace

import (
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// Runtime event kinds (spec §10).
const (
	TransitionStart = "machine.transition.start"
	TransitionEnd   = "machine.transition.end"
	TransitionFail  = "machine.transition.fail"
	Snapshot        = "snapshot"
	EffectIntent    = "effect.intent"
	EffectApproved  = "effect.approved"
	EffectDenied    = "effect.denied"
	EffectExecuted  = "effect.executed"
	EffectFailed    = "effect.failed"
	EffectSkipped   = "effect.skipped"
	AdapterStart    = "adapter.call.start"
	AdapterEnd      = "adapter.call.end"
	AdapterFail     = "adapter.call.fail"
	InstanceCancel  = "machine.cancel"
)

// Claim event kinds (spec §07, docs/language.md "Claims before facts"):
// an external effect's result observed as a claim, a quorum approval,
// the claim accepted as a fact, rejected, superseded by a later
// observation, an acceptance input refused, or an accepted claim carried
// by a store projection.
const (
	ClaimObserved   = "claim.observed"
	ClaimApproved   = "claim.approved"
	ClaimAccepted   = "claim.accepted"
	ClaimRejected   = "claim.rejected"
	ClaimSuperseded = "claim.superseded"
	ClaimRefused    = "claim.refused"
	// ClaimProjected: a store projection carried an accepted claim.
	ClaimProjected = "claim.projected"
)

// Verification event kinds (spec §10). The runtime emits the two contract
// failures, each just before the machine.transition.fail of the step: a
// requires or an ensures of a function that a guard, an assignment or an
// effect argument called did not hold. The others belong to the spec's
// vocabulary but have no runtime source: proof obligations are generated
// and discharged ahead of time (caps verify-report), and machines declare
// no invariants.
const (
	PreconditionFail     = "precondition.fail"
	PostconditionFail    = "postcondition.fail"
	InvariantFail        = "invariant.fail"
	ObligationCreated    = "proof.obligation.created"
	ObligationDischarged = "proof.obligation.discharged"
	ObligationFailed     = "proof.obligation.failed"
)

// Components.
const (
	ComponentMachine = "machine"
	ComponentEffect  = "effect"
	ComponentAdapter = "adapter"
	// ComponentAuthority is the authority runtime: policy decisions and
	// capabilities (docs/authority.md).
	ComponentAuthority = "authority"
	// ComponentContract is a function contract (requires, ensures)
	// checked while a step evaluated its guard, assignments or effect
	// arguments.
	ComponentContract = "contract"
	// ComponentClaim is claims before facts: observations, acceptance.
	ComponentClaim = "claim"
)

// Severities (OpenTelemetry severity_text).
const (
	Info  = "INFO"
	Error = "ERROR"
)

// Record is one semantic trace record. Optional fields are omitted from
// the JSON when empty; the order of the fields in the JSON is the order
// below.
type Record struct {
	TraceID      string `json:"trace_id"`
	SpanID       string `json:"span_id"`
	ParentSpanID string `json:"parent_span_id,omitempty"`
	Event        string `json:"event"`
	Severity     string `json:"severity_text"`
	Body         string `json:"body"`
	Component    string `json:"component"`
	Operation    string `json:"operation"`
	Service      string `json:"service"`
	// ClockMs is the instance's logical clock, in milliseconds.
	ClockMs           int64  `json:"clock_ms"`
	Seq               uint64 `json:"seq"`
	Step              uint64 `json:"step"`
	CapsuleHash       string `json:"capsule_hash"`
	MachineInstanceID string `json:"machine_instance_id"`
	Machine           string `json:"machine"`
	MachineEvent      string `json:"machine_event,omitempty"`
	FromState         string `json:"from_state,omitempty"`
	ToState           string `json:"to_state,omitempty"`
	EffectIntentID    string `json:"effect_intent_id,omitempty"`
	Effect            string `json:"effect,omitempty"`
	Target            string `json:"target,omitempty"`
	Adapter           string `json:"adapter,omitempty"`
	Attempt           int    `json:"attempt,omitempty"`
	Reason            string `json:"reason,omitempty"`
	Expected          string `json:"expected,omitempty"`
	Actual            string `json:"actual,omitempty"`
	ErrorCode         string `json:"error_code,omitempty"`
	DurationMs        int64  `json:"duration_ms"`
	// The authority decision of an authority record: the outcome and the
	// ids of the policy, principal, mandate, delegation and capability
	// (the attribution fields of the spec's telemetry obligations).
	Decision      string `json:"decision,omitempty"`
	PolicyID      string `json:"policy_id,omitempty"`
	PrincipalID   string `json:"principal_id,omitempty"`
	MandateID     string `json:"mandate_id,omitempty"`
	DelegationID  string `json:"delegation_id,omitempty"`
	CapabilityJTI string `json:"capability_jti,omitempty"`
	// ApprovedBy is the approver (PRINCIPAL:NAME) who resolved an intent
	// the authority held, on the records of that resolution.
	ApprovedBy string `json:"approved_by,omitempty"`
	// TraceHistory holds the breadcrumbs that led to an error-level
	// record (the most recent last); empty on other records.
	TraceHistory []Breadcrumb `json:"trace_history,omitempty"`
}

// Breadcrumb is a short summary of an earlier record.
type Breadcrumb struct {
	ClockMs   int64  `json:"clock_ms"`
	Event     string `json:"event"`
	Operation string `json:"operation"`
	SpanID    string `json:"span_id"`
	ErrorCode string `json:"error_code,omitempty"`
}

// MaxBreadcrumbs bounds a record's trace_history.
const MaxBreadcrumbs = 16

// Breadcrumbs is a bounded ring of the most recent records' summaries.
// The zero value is ready to use.
type Breadcrumbs struct {
	ring [MaxBreadcrumbs]Breadcrumb
	n    int // records added
}

// Add remembers r.
func (b *Breadcrumbs) Add(r *Record) {
	b.ring[b.n%MaxBreadcrumbs] = Breadcrumb{ClockMs: r.ClockMs, Event: r.Event, Operation: r.Operation, SpanID: r.SpanID, ErrorCode: r.ErrorCode}
	b.n++
}

// History returns the remembered breadcrumbs, oldest first.
func (b *Breadcrumbs) History() []Breadcrumb {
	n := min(b.n, MaxBreadcrumbs)
	out := make([]Breadcrumb, 0, n)
	for i := b.n - n; i < b.n; i++ {
		out = append(out, b.ring[i%MaxBreadcrumbs])
	}
	return out
}

// IDs derives the deterministic trace and span ids of one instance.
type IDs struct {
	prefix string // 16 hex digits from the instance id
}

// NewIDs returns the id source of the instance with the given id.
func NewIDs(instanceID string) IDs {
	h := fnv.New64a()
	h.Write([]byte(instanceID))
	var b [8]byte
	s := h.Sum64()
	for i := range b {
		b[i] = byte(s >> (56 - 8*i))
	}
	return IDs{prefix: hex.EncodeToString(b[:])}
}

// Trace returns the trace id of the input with sequence number seq: 32
// hex digits, as OpenTelemetry's 16-byte trace ids.
func (x IDs) Trace(seq uint64) string {
	return x.prefix + hex16(seq)
}

// Span returns the span id of the n-th record (n ≥ 1) of step step: 16
// hex digits, never all zero.
func (x IDs) Span(step uint64, n int) string {
	return hex16(step<<20 | uint64(n)&0xfffff)
}

func hex16(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// AppendJSON appends r's JSON encoding (the same bytes encoding/json
// produces for it, without HTML escaping) to b.
func (r *Record) AppendJSON(b []byte) []byte {
	b = append(b, `{"trace_id":`...)
	b = AppendString(b, r.TraceID)
	b = append(b, `,"span_id":`...)
	b = AppendString(b, r.SpanID)
	if r.ParentSpanID != "" {
		b = append(b, `,"parent_span_id":`...)
		b = AppendString(b, r.ParentSpanID)
	}
	b = append(b, `,"event":`...)
	b = AppendString(b, r.Event)
	b = append(b, `,"severity_text":`...)
	b = AppendString(b, r.Severity)
	b = append(b, `,"body":`...)
	b = AppendString(b, r.Body)
	b = append(b, `,"component":`...)
	b = AppendString(b, r.Component)
	b = append(b, `,"operation":`...)
	b = AppendString(b, r.Operation)
	b = append(b, `,"service":`...)
	b = AppendString(b, r.Service)
	b = append(b, `,"clock_ms":`...)
	b = strconv.AppendInt(b, r.ClockMs, 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, `,"step":`...)
	b = strconv.AppendUint(b, r.Step, 10)
	b = append(b, `,"capsule_hash":`...)
	b = AppendString(b, r.CapsuleHash)
	b = append(b, `,"machine_instance_id":`...)
	b = AppendString(b, r.MachineInstanceID)
	b = append(b, `,"machine":`...)
	b = AppendString(b, r.Machine)
	b = optString(b, `,"machine_event":`, r.MachineEvent)
	b = optString(b, `,"from_state":`, r.FromState)
	b = optString(b, `,"to_state":`, r.ToState)
	b = optString(b, `,"effect_intent_id":`, r.EffectIntentID)
	b = optString(b, `,"effect":`, r.Effect)
	b = optString(b, `,"target":`, r.Target)
	b = optString(b, `,"adapter":`, r.Adapter)
	if r.Attempt != 0 {
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(r.Attempt), 10)
	}
	b = optString(b, `,"reason":`, r.Reason)
	b = optString(b, `,"expected":`, r.Expected)
	b = optString(b, `,"actual":`, r.Actual)
	b = optString(b, `,"error_code":`, r.ErrorCode)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, r.DurationMs, 10)
	b = optString(b, `,"decision":`, r.Decision)
	b = optString(b, `,"policy_id":`, r.PolicyID)
	b = optString(b, `,"principal_id":`, r.PrincipalID)
	b = optString(b, `,"mandate_id":`, r.MandateID)
	b = optString(b, `,"delegation_id":`, r.DelegationID)
	b = optString(b, `,"capability_jti":`, r.CapabilityJTI)
	b = optString(b, `,"approved_by":`, r.ApprovedBy)
	if len(r.TraceHistory) > 0 {
		b = append(b, `,"trace_history":[`...)
		for i, c := range r.TraceHistory {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"clock_ms":`...)
			b = strconv.AppendInt(b, c.ClockMs, 10)
			b = append(b, `,"event":`...)
			b = AppendString(b, c.Event)
			b = append(b, `,"operation":`...)
			b = AppendString(b, c.Operation)
			b = append(b, `,"span_id":`...)
			b = AppendString(b, c.SpanID)
			b = optString(b, `,"error_code":`, c.ErrorCode)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// MarshalJSON is AppendJSON.
func (r *Record) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// UnmarshalJSON decodes a record.
func (r *Record) UnmarshalJSON(data []byte) error {
	type plain Record
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*r = Record(p)
	return nil
}

func optString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, key...)
	return AppendString(b, s)
}

// AppendString appends s as a JSON string with the minimal escaping of
// RFC 8785 (the canonical JSON of docs/ledger.md): `"` and `\` escaped,
// \b \t \n \f \r for those control characters, \u00XX (lowercase) for the
// other control characters, everything else as UTF-8; invalid UTF-8
// becomes U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		i += plainASCII(s[i:])
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = utf8.AppendRune(b, utf8.RuneError)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainASCII returns the length of the run of bytes at the start of s
// that AppendString copies as they are without looking further: printable
// ASCII but '"' and '\\'. It looks at 8 bytes at a time.
func plainASCII(s string) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q := x ^ (lo * '"')
		e := x ^ (lo * '\\')
		// The lowest flagged byte is the first quote, backslash, control
		// or non-ASCII byte (flags above it may be false).
		if m := ((q-lo)&^q | (e-lo)&^e | (x-lo*0x20)&^x | x) & hi; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			break
		}
	}
	return i
}
