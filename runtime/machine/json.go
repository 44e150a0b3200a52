package machine

import (
	"encoding/json"
	"sort"
	"strconv"

	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/runtime/value"
)

// AppendValue appends v's JSON encoding (docs/runtime.md) to b; it is
// value.Value.MarshalJSON without the allocations for the common scalars.
func AppendValue(b []byte, v value.Value) []byte {
	switch v.Kind() {
	case value.KindBool:
		if v.AsBool() {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case value.KindInt:
		switch v.IntKind() {
		case value.IntI32:
			return strconv.AppendInt(b, v.Int64(), 10)
		case value.IntU32:
			return strconv.AppendUint(b, v.Uint64(), 10)
		case value.IntI64:
			b = append(b, '"')
			b = strconv.AppendInt(b, v.Int64(), 10)
			return append(b, '"')
		case value.IntU64:
			b = append(b, '"')
			b = strconv.AppendUint(b, v.Uint64(), 10)
			return append(b, '"')
		}
	case value.KindText:
		return trace.AppendString(b, v.AsText())
	case value.KindInvalid:
		return append(b, "null"...)
	}
	j, err := v.MarshalJSON()
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

// AppendContext appends a context as a JSON object with the fields in
// declaration order.
func (m *Machine) AppendContext(b []byte, ctx []value.Value) []byte {
	b = append(b, '{')
	for k, f := range m.Context {
		if k > 0 {
			b = append(b, ',')
		}
		b = trace.AppendString(b, f.Name)
		b = append(b, ':')
		b = AppendValue(b, ctx[k])
	}
	return append(b, '}')
}

// ContextJSON is AppendContext as a json.RawMessage.
func (m *Machine) ContextJSON(ctx []value.Value) json.RawMessage {
	return m.AppendContext(nil, ctx)
}

// AppendPayload appends a payload as a JSON object: the declared fields
// in declaration order, then any others sorted by name.
func (et *EventType) AppendPayload(b []byte, p map[string]value.Value) []byte {
	b = append(b, '{')
	n := 0
	for _, f := range et.Fields {
		v, ok := p[f.Name]
		if !ok {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = trace.AppendString(b, f.Name)
		b = append(b, ':')
		b = AppendValue(b, v)
	}
	if n < len(p) {
		var extra []string
		for k := range p {
			if _, ok := et.index[k]; !ok {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		for _, k := range extra {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = trace.AppendString(b, k)
			b = append(b, ':')
			b = AppendValue(b, p[k])
		}
	}
	return append(b, '}')
}

// AppendPayloadOf appends the payload of an event of this machine; for an
// undeclared event its fields are sorted by name.
func (m *Machine) AppendPayloadOf(b []byte, event string, p map[string]value.Value) []byte {
	if et := m.events[event]; et != nil {
		return et.AppendPayload(b, p)
	}
	return (&EventType{}).AppendPayload(b, p)
}
