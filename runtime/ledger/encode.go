package ledger

import (
	"encoding/json"
	"github.com/capsulang/caps/analysis/authority"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/runtime/value"
)

// Format identifies the record layout of a machine ledger.
const Format = "caps.machine-ledger/1"

// Record types (the "type" member of every payload).
const (
	TypeInstance   = "instance"
	TypeInput      = "input"
	TypeTransition = "transition"
	TypeResolution = "resolution"
	TypeFailed     = "failed"
	TypeEffects    = "effects"
	TypeSnapshot   = "snapshot"
	TypeTrace      = "trace"
	// TypeClaim is the record of an acceptance input's step: the claim
	// it decided (docs/ledger.md).
	TypeClaim = "claim"
)

// Encoder builds the canonical payloads of one instance's records. The
// recorder and the replay verifier share it, so a replay regenerates the
// same bytes. Every object is written with its keys sorted, so the
// payloads are already in chain's canonical form.
type Encoder struct {
	m          *machine.Machine
	modulePath string
	ctxOrder   []int            // context fields sorted by name
	evOrder    map[string][]int // event fields sorted by name

	// doubt is set when a payload took a path that is not canonical by
	// construction (a value whose JSON chain.Canonical refused); the
	// recorder then has the store check the payload (vouched).
	doubt bool
	// unsure is set when the machine's context or event field names
	// cannot be written as canonical keys as they are sorted (invalid
	// UTF-8, a name given twice): no payload is vouched for.
	unsure bool
	// reuse, with buf, makes every payload share one buffer (ReuseBuffer).
	reuse bool
	buf   []byte
	last  [numKinds]int // the length of the last payload of each kind
}

// Payload kinds, for the buffer size estimates of alloc.
const (
	kInstance = iota
	kInput
	kStep
	kEffects
	kSnapshot
	kTrace
	numKinds
)

// NewEncoder returns the encoder of an instance of m; modulePath is the
// module's path as recorded in the descriptor.
func NewEncoder(m *machine.Machine, modulePath string) *Encoder {
	e := &Encoder{m: m, modulePath: modulePath, evOrder: map[string][]int{}}
	e.ctxOrder = sortedOrder(len(m.Context), func(k int) string { return m.Context[k].Name })
	e.unsure = !canonicalKeys(e.ctxOrder, func(k int) string { return m.Context[k].Name })
	for _, et := range m.Events {
		name := func(k int) string { return et.Fields[k].Name }
		e.evOrder[et.Name] = sortedOrder(len(et.Fields), name)
		e.unsure = e.unsure || !canonicalKeys(e.evOrder[et.Name], name)
	}
	return e
}

// canonicalKeys reports whether names, in the given order, are object
// keys in canonical order: valid UTF-8, strictly increasing.
func canonicalKeys(order []int, name func(int) string) bool {
	for n, k := range order {
		if !utf8.ValidString(name(k)) || n > 0 && name(order[n-1]) >= name(k) {
			return false
		}
	}
	return true
}

// ReuseBuffer makes the encoder write every payload into one buffer that
// it reuses: a payload is then valid only until the next call. For a
// reader that compares each payload and drops it (a replay); a recorder,
// which queues its payloads, must not use it.
func (e *Encoder) ReuseBuffer() { e.reuse = true }

// alloc returns an empty buffer for a payload of the kind of about n
// bytes, or a little more than the last one of the kind: a buffer that
// has to grow is allocated twice.
func (e *Encoder) alloc(kind, n int) []byte {
	if e.reuse {
		return e.buf[:0]
	}
	return make([]byte, 0, max(n, e.last[kind]+e.last[kind]/8))
}

// done returns a finished payload of the kind, keeping its buffer for
// reuse and its length for the next estimate.
func (e *Encoder) done(kind int, b []byte) []byte {
	if e.reuse {
		e.buf = b
	}
	e.last[kind] = len(b)
	return b
}

// vouched reports whether every payload since the last call is canonical
// by construction (what chain.Canonical would return for it), and starts
// over.
func (e *Encoder) vouched() bool {
	ok := !e.doubt && !e.unsure
	e.doubt = false
	return ok
}

func sortedOrder(n int, name func(int) string) []int {
	out := make([]int, n)
	for k := range out {
		out[k] = k
	}
	sort.SliceStable(out, func(a, b int) bool { return name(out[a]) < name(out[b]) })
	return out
}

// Instance is the descriptor, the ledger's first record.
func (e *Encoder) Instance(i *machine.Instance) []byte {
	m := e.m
	b := e.alloc(kInstance, 384)
	b = append(b, `{"capsule_hash":`...)
	b = str(b, m.Hash)
	b = append(b, `,"format":`...)
	b = str(b, Format)
	b = append(b, `,"initial":`...)
	b = str(b, m.Initial.Name)
	b = append(b, `,"instance_id":`...)
	b = str(b, i.ID())
	b = append(b, `,"machine":`...)
	b = str(b, m.Name)
	b = append(b, `,"mode":`...)
	b = str(b, string(i.Mode()))
	b = append(b, `,"module":`...)
	b = str(b, m.Module)
	b = append(b, `,"module_path":`...)
	b = str(b, e.modulePath)
	b = append(b, `,"type":"instance","version":`...)
	b = str(b, m.Version)
	return e.done(kInstance, append(b, '}'))
}

// Input is an input record.
func (e *Encoder) Input(in *machine.Input) []byte {
	b := e.alloc(kInput, 160)
	switch in.Kind {
	case machine.InputAdvance:
		b = append(b, `{"by_ms":`...)
		b = strconv.AppendInt(b, in.By, 10)
		b = append(b, `,"clock":`...)
		b = strconv.AppendInt(b, in.Clock, 10)
		b = append(b, `,"kind":"advance"`...)
	case machine.InputCancel:
		b = append(b, `{"clock":`...)
		b = strconv.AppendInt(b, in.Clock, 10)
		b = append(b, `,"kind":"cancel","reason":`...)
		b = str(b, in.Reason)
	case machine.InputClaim:
		v := in.Claim
		b = append(b, `{"claim":`...)
		b = str(b, v.Claim)
		b = append(b, `,"clock":`...)
		b = strconv.AppendInt(b, in.Clock, 10)
		b = append(b, `,"kind":"claim","principal":`...)
		b = str(b, v.Principal)
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, in.Seq, 10)
		b = append(b, `,"type":"input","verdict":`...)
		b = str(b, v.Verdict)
		return e.done(kInput, append(b, '}'))
	case machine.InputApproval:
		res := in.Resolution
		b = append(b, `{"clock":`...)
		b = strconv.AppendInt(b, in.Clock, 10)
		b = append(b, `,"kind":"approval","name":`...)
		b = str(b, res.Name)
		b = append(b, `,"principal":`...)
		b = str(b, res.Principal)
		b = append(b, `,"ref":`...)
		b = str(b, res.Ref)
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, in.Seq, 10)
		b = append(b, `,"type":"input","verdict":`...)
		b = str(b, res.Verdict)
		return e.done(kInput, append(b, '}'))
	default:
		b = append(b, `{"clock":`...)
		b = strconv.AppendInt(b, in.Clock, 10)
		b = append(b, `,"event":`...)
		b = str(b, in.Event.Name)
		b = append(b, `,"kind":"event"`...)
		b = e.appendPayload(b, &in.Event)
	}
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, in.Seq, 10)
	return e.done(kInput, append(b, `,"type":"input"}`...))
}

// appendPayload writes ,"payload":{...} (or ,"payload_text":"..." for a
// raw payload that is not JSON).
func (e *Encoder) appendPayload(b []byte, ev *machine.Event) []byte {
	if ev.Payload == nil {
		if len(ev.Raw) == 0 {
			return append(b, `,"payload":{}`...)
		}
		c, err := chain.Canonical(ev.Raw)
		if err != nil {
			b = append(b, `,"payload_text":`...)
			return str(b, string(ev.Raw))
		}
		b = append(b, `,"payload":`...)
		return append(b, c...)
	}
	b = append(b, `,"payload":{`...)
	order, declared := e.evOrder[ev.Name]
	var names []string
	if declared && len(order) == len(ev.Payload) {
		et, _ := e.m.Event(ev.Name)
		for _, k := range order {
			if _, ok := ev.Payload[et.Fields[k].Name]; !ok {
				declared = false
				break
			}
		}
		if declared {
			for _, k := range order {
				names = append(names, et.Fields[k].Name)
			}
		}
	}
	if names == nil && len(ev.Payload) > 0 {
		for k := range ev.Payload {
			names = append(names, k)
			// Sorted by bytes, keys are in canonical order only when
			// they are valid UTF-8 (str writes invalid bytes as U+FFFD).
			if !utf8.ValidString(k) {
				e.doubt = true
			}
		}
		sort.Strings(names)
	}
	for n, k := range names {
		if n > 0 {
			b = append(b, ',')
		}
		b = str(b, k)
		b = append(b, ':')
		b = e.appendValue(b, ev.Payload[k])
	}
	return append(b, '}')
}

// Step is the record of a decided step: a transition with its intents, or
// a failed event (or cancellation) with its diagnostic.
func (e *Encoder) Step(r *machine.StepResult) []byte {
	b := e.alloc(kStep, 256+96*len(r.Effects))
	if f := r.Failure; f != nil {
		b = append(b, '{')
		if f.Actual != "" {
			b = append(b, `"actual":`...)
			b = str(b, f.Actual)
			b = append(b, ',')
		}
		b = append(b, `"cause":`...)
		b = str(b, string(r.Cause))
		b = append(b, `,"clock":`...)
		b = strconv.AppendInt(b, r.Clock, 10)
		b = append(b, `,"code":`...)
		b = str(b, f.Code)
		if r.Event != "" {
			b = append(b, `,"event":`...)
			b = str(b, r.Event)
		}
		if f.Expected != "" {
			b = append(b, `,"expected":`...)
			b = str(b, f.Expected)
		}
		b = append(b, `,"message":`...)
		b = str(b, f.Message)
		if f.Reason != "" {
			b = append(b, `,"reason":`...)
			b = str(b, f.Reason)
		}
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, r.Seq, 10)
		b = append(b, `,"state":`...)
		b = str(b, r.From)
		b = append(b, `,"step":`...)
		b = strconv.AppendUint(b, r.Step, 10)
		return e.done(kStep, append(b, `,"type":"failed"}`...))
	}
	if r.Cause == machine.CauseApproval {
		return e.done(kStep, e.resolution(b, r))
	}
	if r.Cause == machine.CauseClaim {
		b = append(b, `{"cause":"claim","claims":`...)
		b = e.appendClaims(b, r.Claims)
		b = append(b, `,"clock":`...)
		b = strconv.AppendInt(b, r.Clock, 10)
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, r.Seq, 10)
		b = append(b, `,"state":`...)
		b = str(b, r.From)
		b = append(b, `,"step":`...)
		b = strconv.AppendUint(b, r.Step, 10)
		return e.done(kStep, append(b, `,"type":"claim"}`...))
	}
	b = append(b, `{"cause":`...)
	b = str(b, string(r.Cause))
	b = append(b, `,"clock":`...)
	b = strconv.AppendInt(b, r.Clock, 10)
	if r.Event != "" {
		b = append(b, `,"event":`...)
		b = str(b, r.Event)
	}
	b = append(b, `,"from":`...)
	b = str(b, r.From)
	b = append(b, `,"intents":[`...)
	for k := range r.Effects {
		if k > 0 {
			b = append(b, ',')
		}
		b = e.appendIntent(b, &r.Effects[k])
	}
	b = append(b, `],"seq":`...)
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, `,"step":`...)
	b = strconv.AppendUint(b, r.Step, 10)
	b = append(b, `,"to":`...)
	b = str(b, r.Target)
	return e.done(kStep, append(b, `,"type":"transition"}`...))
}

// resolution is the record of an approval step: the verdict, the input
// (seq) whose step held the intent it resolved, and that intent and the ones after it,
// decided again (docs/ledger.md).
func (e *Encoder) resolution(b []byte, r *machine.StepResult) []byte {
	res := r.Resolution
	b = append(b, `{"approval":{"name":`...)
	b = str(b, res.Name)
	b = append(b, `,"principal":`...)
	b = str(b, res.Principal)
	b = append(b, `,"verdict":`...)
	b = str(b, res.Verdict)
	b = append(b, `},"cause":`...)
	b = str(b, string(r.Cause))
	b = append(b, `,"clock":`...)
	b = strconv.AppendInt(b, r.Clock, 10)
	b = append(b, `,"intents":[`...)
	for k := range r.Effects {
		if k > 0 {
			b = append(b, ',')
		}
		b = e.appendIntent(b, &r.Effects[k])
	}
	b = append(b, `],"resolves":`...)
	b = strconv.AppendUint(b, r.Resolves, 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, `,"state":`...)
	b = str(b, r.From)
	b = append(b, `,"step":`...)
	b = strconv.AppendUint(b, r.Step, 10)
	return append(b, `,"type":"resolution"}`...)
}

func (e *Encoder) appendIntent(b []byte, x *machine.Effect) []byte {
	s := x.Spec
	b = append(b, '{')
	if len(x.Args) > 0 {
		b = append(b, `"args":[`...)
		for k, a := range x.Args {
			if k > 0 {
				b = append(b, ',')
			}
			b = e.appendValue(b, a)
		}
		b = append(b, `],`...)
	}
	if d := x.Authority; d != nil {
		b = appendDecision(b, d)
		b = append(b, ',')
	}
	b = append(b, `"effect":`...)
	b = str(b, s.Name)
	if len(s.Extra) > 0 {
		b = append(b, `,"extra_targets":[`...)
		for k, t := range s.Extra {
			if k > 0 {
				b = append(b, ',')
			}
			b = str(b, t)
		}
		b = append(b, ']')
	}
	b = append(b, `,"id":`...)
	b = str(b, x.ID)
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(x.Index), 10)
	if s.OnError != nil {
		b = append(b, `,"on_error":`...)
		b = str(b, s.OnError.Name)
	}
	if s.Retry > 0 {
		b = append(b, `,"retry":`...)
		b = strconv.AppendInt(b, int64(s.Retry), 10)
	}
	if s.Target != "" {
		b = append(b, `,"target":`...)
		b = str(b, s.Target)
	}
	if s.Timeout > 0 {
		b = append(b, `,"timeout_ms":`...)
		b = strconv.AppendInt(b, s.Timeout, 10)
	}
	return append(b, '}')
}

// appendDecision writes an intent's authority decision: "authority" and
// an object with the decision's fields in key order.
func appendDecision(b []byte, d *authority.Decision) []byte {
	b = append(b, `"authority":{`...)
	if a := d.Approval; a != nil {
		b = append(b, `"approval":{"held":`...)
		b = str(b, string(a.Held))
		b = append(b, `,"name":`...)
		b = str(b, a.Name)
		b = append(b, `,"principal":`...)
		b = str(b, a.Principal)
		b = append(b, `,"verdict":`...)
		b = str(b, a.Verdict)
		b = append(b, `},`...)
	}
	b = optStr(b, `"capability":`, d.Capability)
	b = optStr(b, `"capability_id":`, d.CapabilityID)
	b = optStr(b, `"delegation":`, d.Delegation)
	b = optStr(b, `"mandate":`, d.Mandate)
	b = append(b, `"outcome":`...)
	b = str(b, string(d.Outcome))
	b = append(b, ',')
	b = optStr(b, `"policy":`, d.Policy)
	b = optStr(b, `"principal":`, d.Principal)
	b = append(b, `"reason":`...)
	b = str(b, d.Reason)
	b = append(b, `,"rule":`...)
	b = str(b, d.Rule)
	return append(b, '}')
}

// Effects is the record of the observed effect results of a step, or nil
// when nothing was executed or held (dry-run without authority
// decisions to report, a failed event, no intents).
func (e *Encoder) Effects(r *machine.StepResult) []byte {
	if r.Failure != nil || len(r.Effects) == 0 || allPlanned(r.Effects) {
		return nil
	}
	b := e.alloc(kEffects, 128+160*len(r.Effects))
	b = append(b, '{')
	if len(r.Claims) > 0 {
		b = append(b, `"claims":`...)
		b = e.appendClaims(b, r.Claims)
		b = append(b, ',')
	}
	b = append(b, `"results":[`...)
	for k := range r.Effects {
		x := &r.Effects[k]
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"attempts":[`...)
		for n := range x.Attempts {
			if n > 0 {
				b = append(b, ',')
			}
			b = appendAttempt(b, &x.Attempts[n])
		}
		b = append(b, ']')
		if x.Code != "" {
			b = append(b, `,"code":`...)
			b = str(b, x.Code)
		}
		if x.Decision != "" {
			b = append(b, `,"decision":`...)
			b = str(b, x.Decision)
		}
		if x.Error != "" {
			b = append(b, `,"error":`...)
			b = str(b, x.Error)
		}
		b = append(b, `,"id":`...)
		b = str(b, x.ID)
		b = append(b, `,"index":`...)
		b = strconv.AppendInt(b, int64(x.Index), 10)
		b = append(b, `,"status":`...)
		b = str(b, string(x.Status))
		b = append(b, '}')
	}
	b = append(b, ']')
	if rt := r.Route; rt != nil {
		b = append(b, `,"route":{"effect":`...)
		b = strconv.AppendInt(b, int64(rt.Effect), 10)
		b = append(b, `,"from":`...)
		b = str(b, rt.From)
		b = append(b, `,"to":`...)
		b = str(b, rt.To)
		b = append(b, '}')
	}
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, `,"step":`...)
	b = strconv.AppendUint(b, r.Step, 10)
	return e.done(kEffects, append(b, `,"type":"effects"}`...))
}

// allPlanned reports whether no intent got further than planned.
func allPlanned(effs []machine.Effect) bool {
	for k := range effs {
		if effs[k].Status != machine.Planned {
			return false
		}
	}
	return true
}

func appendAttempt(b []byte, o *machine.Outcome) []byte {
	b = append(b, '{')
	if o.Adapter != "" {
		b = append(b, `"adapter":`...)
		b = str(b, o.Adapter)
		b = append(b, ',')
	}
	if o.Code != "" {
		b = append(b, `"code":`...)
		b = str(b, o.Code)
		b = append(b, ',')
	}
	b = append(b, `"duration_ms":`...)
	b = strconv.AppendInt(b, o.DurationMs, 10)
	if o.Error != "" {
		b = append(b, `,"error":`...)
		b = str(b, o.Error)
	}
	if o.OK {
		b = append(b, `,"ok":true`...)
	} else {
		b = append(b, `,"ok":false`...)
	}
	if o.Operation != "" {
		b = append(b, `,"operation":`...)
		b = str(b, o.Operation)
	}
	if len(o.Result) > 0 {
		c, err := chain.Canonical(o.Result)
		if err != nil {
			b = append(b, `,"result_text":`...)
			b = str(b, string(o.Result))
		} else {
			b = append(b, `,"result":`...)
			b = append(b, c...)
		}
	}
	return append(b, '}')
}

// Snapshot is the record of the instance's state after a step (or, with
// r nil, after it started).
func (e *Encoder) Snapshot(i *machine.Instance, r *machine.StepResult) []byte {
	var seq, step uint64
	if r != nil {
		seq, step = r.Seq, r.Step
	}
	b := e.alloc(kSnapshot, 192+24*len(e.ctxOrder))
	b = append(b, '{')
	if cs := i.Claims(); len(cs) > 0 {
		b = append(b, `"claims":`...)
		b = e.appendClaims(b, cs)
		b = append(b, ',')
	}
	b = append(b, `"clock":`...)
	b = strconv.AppendInt(b, i.Clock(), 10)
	b = append(b, `,"context":`...)
	b = e.appendContext(b, i.Context())
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, `,"state":`...)
	b = str(b, i.State())
	b = append(b, `,"status":`...)
	b = str(b, string(i.Status()))
	b = append(b, `,"step":`...)
	b = strconv.AppendUint(b, step, 10)
	if to, deadline, ok := i.Timer(); ok {
		b = append(b, `,"timer":{"deadline_ms":`...)
		b = strconv.AppendInt(b, deadline, 10)
		b = append(b, `,"event":`...)
		b = str(b, to.Event.Name)
		b = append(b, '}')
	}
	return e.done(kSnapshot, append(b, `,"type":"snapshot"}`...))
}

func (e *Encoder) appendContext(b []byte, ctx []value.Value) []byte {
	b = append(b, '{')
	for n, k := range e.ctxOrder {
		if n > 0 {
			b = append(b, ',')
		}
		b = str(b, e.m.Context[k].Name)
		b = append(b, ':')
		b = e.appendValue(b, ctx[k])
	}
	return append(b, '}')
}

// Trace is the record of a step's semantic trace records, in the compact
// form of docs/ledger.md: the members every record of the step shares
// (trace_id, seq, step, clock_ms) are written once; those every record of
// the instance shares (service, capsule_hash, machine_instance_id,
// machine) are in the descriptor; component and severity_text are left
// out when they are the ones the event implies (DefaultComponent,
// DefaultSeverity), and duration_ms when it is 0. Nil when the step has
// no records.
func (e *Encoder) Trace(r *machine.StepResult) []byte {
	if len(r.Trace) == 0 {
		return nil
	}
	t0 := &r.Trace[0]
	b := e.alloc(kTrace, 96+200*len(r.Trace))
	b = append(b, `{"clock_ms":`...)
	b = strconv.AppendInt(b, t0.ClockMs, 10)
	b = append(b, `,"records":[`...)
	for k := range r.Trace {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendCompactTrace(b, &r.Trace[k])
	}
	b = append(b, `],"seq":`...)
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, `,"step":`...)
	b = strconv.AppendUint(b, r.Step, 10)
	b = append(b, `,"trace_id":`...)
	b = str(b, t0.TraceID)
	return e.done(kTrace, append(b, `,"type":"trace"}`...))
}

// DefaultComponent is the component a trace event implies.
func DefaultComponent(event string) string {
	switch {
	case strings.HasPrefix(event, "effect."):
		return trace.ComponentEffect
	case strings.HasPrefix(event, "adapter."):
		return trace.ComponentAdapter
	case strings.HasPrefix(event, "policy."), strings.HasPrefix(event, "capability."), strings.HasPrefix(event, "approval."):
		return trace.ComponentAuthority
	case strings.HasPrefix(event, "claim."):
		return trace.ComponentClaim
	}
	return trace.ComponentMachine
}

// DefaultSeverity is the severity a trace event implies.
func DefaultSeverity(event, errorCode string) string {
	switch event {
	case trace.TransitionFail, trace.EffectFailed, trace.EffectDenied, trace.AdapterFail, trace.ClaimRefused:
		return trace.Error
	case trace.InstanceCancel:
		if errorCode != "" {
			return trace.Error
		}
	}
	return trace.Info
}

func appendCompactTrace(b []byte, r *trace.Record) []byte {
	b = append(b, '{')
	b = optStr(b, `"actual":`, r.Actual)
	b = optStr(b, `"adapter":`, r.Adapter)
	b = optStr(b, `"approved_by":`, r.ApprovedBy)
	if r.Attempt != 0 {
		b = append(b, `"attempt":`...)
		b = strconv.AppendInt(b, int64(r.Attempt), 10)
		b = append(b, ',')
	}
	b = append(b, `"body":`...)
	b = str(b, r.Body)
	b = append(b, ',')
	b = optStr(b, `"capability_jti":`, r.CapabilityJTI)
	if r.Component != DefaultComponent(r.Event) {
		b = optStr(b, `"component":`, r.Component)
	}
	b = optStr(b, `"decision":`, r.Decision)
	b = optStr(b, `"delegation_id":`, r.DelegationID)
	if r.DurationMs != 0 {
		b = append(b, `"duration_ms":`...)
		b = strconv.AppendInt(b, r.DurationMs, 10)
		b = append(b, ',')
	}
	b = optStr(b, `"effect":`, r.Effect)
	b = optStr(b, `"effect_intent_id":`, r.EffectIntentID)
	b = optStr(b, `"error_code":`, r.ErrorCode)
	b = append(b, `"event":`...)
	b = str(b, r.Event)
	b = append(b, ',')
	b = optStr(b, `"expected":`, r.Expected)
	b = optStr(b, `"from_state":`, r.FromState)
	b = optStr(b, `"machine_event":`, r.MachineEvent)
	b = optStr(b, `"mandate_id":`, r.MandateID)
	b = append(b, `"operation":`...)
	b = str(b, r.Operation)
	b = append(b, ',')
	b = optStr(b, `"parent_span_id":`, r.ParentSpanID)
	b = optStr(b, `"policy_id":`, r.PolicyID)
	b = optStr(b, `"principal_id":`, r.PrincipalID)
	b = optStr(b, `"reason":`, r.Reason)
	if r.Severity != DefaultSeverity(r.Event, r.ErrorCode) {
		b = optStr(b, `"severity_text":`, r.Severity)
	}
	b = append(b, `"span_id":`...)
	b = str(b, r.SpanID)
	b = append(b, ',')
	b = optStr(b, `"target":`, r.Target)
	b = optStr(b, `"to_state":`, r.ToState)
	if len(r.TraceHistory) > 0 {
		b = append(b, `"trace_history":[`...)
		for k, c := range r.TraceHistory {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"clock_ms":`...)
			b = strconv.AppendInt(b, c.ClockMs, 10)
			if c.ErrorCode != "" {
				b = append(b, `,"error_code":`...)
				b = str(b, c.ErrorCode)
			}
			b = append(b, `,"event":`...)
			b = str(b, c.Event)
			b = append(b, `,"operation":`...)
			b = str(b, c.Operation)
			b = append(b, `,"span_id":`...)
			b = str(b, c.SpanID)
			b = append(b, '}')
		}
		b = append(b, `],`...)
	}
	return append(b[:len(b)-1], '}')
}

// optStr writes key and s and a comma, when s is not empty.
func optStr(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, key...)
	b = str(b, s)
	return append(b, ',')
}

func str(b []byte, s string) []byte { return trace.AppendString(b, s) }

// appendValue writes a value's JSON encoding in canonical form.
func (e *Encoder) appendValue(b []byte, v value.Value) []byte {
	switch v.Kind() {
	case value.KindBool, value.KindInt, value.KindText, value.KindInvalid:
		if v.Kind() != value.KindInt || v.IntKind() != value.IntWei {
			return machine.AppendValue(b, v)
		}
	}
	j, err := v.MarshalJSON()
	if err != nil {
		return append(b, "null"...)
	}
	c, err := chain.Canonical(j)
	if err != nil {
		e.doubt = true
		return append(b, j...)
	}
	return append(b, c...)
}

// CanonicalContext is the canonical JSON of a context, as snapshots hold it.
func (e *Encoder) CanonicalContext(ctx []value.Value) json.RawMessage {
	return e.appendContext(nil, ctx)
}

// appendClaims writes claims as an array of objects with sorted keys:
// approvals (when any), by (when decided), field, id, policy, result
// (the observation, when it did not fit the field), seq, status, value
// (when it fitted). A claim on which nothing was observed yet is
// {"field":F,"policy":P,"status":"none"}.
func (e *Encoder) appendClaims(b []byte, cs []machine.Claim) []byte {
	b = append(b, '[')
	for k := range cs {
		c := &cs[k]
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		if len(c.Approvals) > 0 {
			b = append(b, `"approvals":[`...)
			for n, p := range c.Approvals {
				if n > 0 {
					b = append(b, ',')
				}
				b = str(b, p)
			}
			b = append(b, `],`...)
		}
		b = optStr(b, `"by":`, c.By)
		b = append(b, `"field":`...)
		b = str(b, c.Field)
		if c.Status == machine.ClaimNone {
			b = append(b, `,"policy":`...)
			b = str(b, c.Policy)
			b = append(b, `,"status":"none"}`...)
			continue
		}
		b = append(b, `,"id":`...)
		b = str(b, c.ID)
		b = append(b, `,"policy":`...)
		b = str(b, c.Policy)
		if c.Value.Kind() == value.KindInvalid && len(c.Result) > 0 {
			if j, err := chain.Canonical(c.Result); err == nil {
				b = append(b, `,"result":`...)
				b = append(b, j...)
			} else {
				b = append(b, `,"result_text":`...)
				b = str(b, string(c.Result))
			}
		}
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, c.Seq, 10)
		b = append(b, `,"status":`...)
		b = str(b, string(c.Status))
		if c.Value.Kind() != value.KindInvalid {
			b = append(b, `,"value":`...)
			b = e.appendValue(b, c.Value)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}
