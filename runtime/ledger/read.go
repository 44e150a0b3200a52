package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/trace"
)

// Entry is one stored record.
type Entry struct {
	Seq     uint64 // position in the store, from 1
	Type    string
	Payload []byte
}

// ReadAll reads every record of a store, in order.
func ReadAll(s Store) ([]Entry, error) {
	var out []Entry
	err := s.Iterate(func(seq uint64, p []byte) error {
		out = append(out, Entry{Seq: seq, Type: TypeOf(p), Payload: bytes.Clone(p)})
		return nil
	})
	return out, err
}

var typeKey = []byte(`"type":"`)

// TypeOf is a payload's record type. Every record type's "type" member is
// the last top-level member but "version", so it is the last occurrence of
// `"type":"` outside strings (a quote inside a JSON string is escaped).
func TypeOf(p []byte) string {
	k := bytes.LastIndex(p, typeKey)
	if k < 0 {
		return ""
	}
	rest := p[k+len(typeKey):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return ""
	}
	return string(rest[:end])
}

// InstanceRecord is the decoded descriptor.
type InstanceRecord struct {
	CapsuleHash string       `json:"capsule_hash"`
	Format      string       `json:"format"`
	Initial     string       `json:"initial"`
	InstanceID  string       `json:"instance_id"`
	Machine     string       `json:"machine"`
	Mode        machine.Mode `json:"mode"`
	Module      string       `json:"module"`
	ModulePath  string       `json:"module_path"`
	Version     string       `json:"version"`
}

// InputRecord is a decoded input.
type InputRecord struct {
	Seq         uint64            `json:"seq"`
	Kind        machine.InputKind `json:"kind"`
	Clock       int64             `json:"clock"`
	Event       string            `json:"event"`
	Payload     json.RawMessage   `json:"payload"`
	PayloadText *string           `json:"payload_text"`
	ByMs        int64             `json:"by_ms"`
	Reason      string            `json:"reason"`
	// Ref, Verdict, Principal and Name are an approval's; Claim,
	// Verdict and Principal an acceptance input's.
	Claim     string `json:"claim"`
	Ref       string `json:"ref"`
	Verdict   string `json:"verdict"`
	Principal string `json:"principal"`
	Name      string `json:"name"`
}

// Resolution is an approval input's verdict.
func (in *InputRecord) Resolution() machine.Resolution {
	return machine.Resolution{Ref: in.Ref, Verdict: in.Verdict, Principal: in.Principal, Name: in.Name}
}

// ClaimVerdict is an acceptance input's verdict.
func (in *InputRecord) ClaimVerdict() machine.ClaimVerdict {
	return machine.ClaimVerdict{Claim: in.Claim, Verdict: in.Verdict, Principal: in.Principal}
}

// EffectsRecord is a decoded effects record.
type EffectsRecord struct {
	Seq     uint64         `json:"seq"`
	Step    uint64         `json:"step"`
	Results []ResultRecord `json:"results"`
	Route   *struct {
		Effect int    `json:"effect"`
		From   string `json:"from"`
		To     string `json:"to"`
	} `json:"route"`
}

// ResultRecord is one intent's observed result.
type ResultRecord struct {
	ID       string          `json:"id"`
	Index    int             `json:"index"`
	Status   string          `json:"status"`
	Decision string          `json:"decision"`
	Code     string          `json:"code"`
	Error    string          `json:"error"`
	Attempts []AttemptRecord `json:"attempts"`
}

// AttemptRecord is one attempt's outcome.
type AttemptRecord struct {
	OK         bool            `json:"ok"`
	Adapter    string          `json:"adapter"`
	Operation  string          `json:"operation"`
	Code       string          `json:"code"`
	Error      string          `json:"error"`
	DurationMs int64           `json:"duration_ms"`
	Result     json.RawMessage `json:"result"`
	ResultText *string         `json:"result_text"`
}

// Outcome converts the attempt back to an executor outcome.
func (a *AttemptRecord) Outcome() machine.Outcome {
	o := machine.Outcome{OK: a.OK, Adapter: a.Adapter, Operation: a.Operation, Code: a.Code, Error: a.Error, DurationMs: a.DurationMs, Result: a.Result}
	if a.ResultText != nil {
		o.Result = json.RawMessage(*a.ResultText)
	}
	return o
}

// TraceRecord is a decoded trace record of a step.
type TraceRecord struct {
	Seq     uint64         `json:"seq"`
	Step    uint64         `json:"step"`
	ClockMs int64          `json:"clock_ms"`
	TraceID string         `json:"trace_id"`
	Records []trace.Record `json:"records"`
}

// Decode decodes an entry's payload into v.
func (e *Entry) Decode(v any) error {
	if err := json.Unmarshal(e.Payload, v); err != nil {
		return fmt.Errorf("record %d (%s): %v", e.Seq, e.Type, err)
	}
	return nil
}

// MachineEvent is the input's event, with its payload as recorded.
func (in *InputRecord) MachineEvent() machine.Event {
	ev := machine.Event{Name: in.Event, Raw: in.Payload}
	if in.PayloadText != nil {
		ev.Raw = json.RawMessage(*in.PayloadText)
	}
	if ev.Raw == nil {
		ev.Raw = json.RawMessage("{}")
	}
	return ev
}

// Traces returns the full trace records of a ledger, in order, with the
// fields the compact form leaves out filled in from the descriptor.
func Traces(entries []Entry) ([]trace.Record, error) {
	var desc InstanceRecord
	var out []trace.Record
	for k := range entries {
		e := &entries[k]
		switch e.Type {
		case TypeInstance:
			if err := e.Decode(&desc); err != nil {
				return nil, err
			}
		case TypeTrace:
			var tr TraceRecord
			if err := e.Decode(&tr); err != nil {
				return nil, err
			}
			for _, r := range tr.Records {
				r.Service, r.CapsuleHash, r.MachineInstanceID, r.Machine = desc.Module, desc.CapsuleHash, desc.InstanceID, desc.Machine
				r.TraceID, r.Seq, r.Step, r.ClockMs = tr.TraceID, tr.Seq, tr.Step, tr.ClockMs
				if r.Component == "" {
					r.Component = DefaultComponent(r.Event)
				}
				if r.Severity == "" {
					r.Severity = DefaultSeverity(r.Event, r.ErrorCode)
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// ParseInput decodes an input record. Event inputs in the canonical form
// the encoder writes take a fast path that does not decode the payload
// (it stays raw JSON); anything else goes through encoding/json.
func ParseInput(p []byte) (InputRecord, error) {
	if in, ok := fastInput(p); ok {
		return in, nil
	}
	var in InputRecord
	err := json.Unmarshal(p, &in)
	return in, err
}

// fastInput parses {"clock":C,"event":"E","kind":"event","payload":P,"seq":S,"type":"input"}.
func fastInput(p []byte) (InputRecord, bool) {
	var in InputRecord
	rest, ok := bytes.CutPrefix(p, []byte(`{"clock":`))
	if !ok {
		return in, false
	}
	var n int
	if in.Clock, n, ok = leadingInt(rest); !ok {
		return in, false
	}
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"event":"`)); !ok {
		return in, false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return in, false
	}
	in.Event = string(rest[:end])
	if rest, ok = bytes.CutPrefix(rest[end+1:], []byte(`,"kind":"event","payload":`)); !ok {
		return in, false
	}
	tail := []byte(`,"type":"input"}`)
	if !bytes.HasSuffix(rest, tail) {
		return in, false
	}
	rest = rest[:len(rest)-len(tail)]
	k := bytes.LastIndex(rest, []byte(`,"seq":`))
	if k < 0 {
		return in, false
	}
	seq, n, ok := leadingInt(rest[k+len(`,"seq":`):])
	if !ok || k+len(`,"seq":`)+n != len(rest) || seq <= 0 {
		return in, false
	}
	in.Kind, in.Seq, in.Payload = "event", uint64(seq), json.RawMessage(rest[:k])
	return in, true
}

// leadingInt reads a non-negative decimal integer at the start of b.
func leadingInt(b []byte) (int64, int, bool) {
	var v int64
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		if n >= 18 {
			return 0, 0, false
		}
		v = v*10 + int64(b[n]-'0')
		n++
	}
	return v, n, n > 0
}
