package machine

import (
	"bytes"
	"encoding/json"

	"github.com/capsulang/caps/runtime/value"
)

// FillMissing completes an event's JSON payload for a dry run: every
// declared field that raw leaves out gets its type's zero value
// (value.Zero), and the names of those fields are returned in declaration
// order. A field whose type has no zero value (Timestamp, Address, a
// variant, ...) stays missing, so the strict decoder still rejects the
// payload and says which field it needs.
//
// raw is returned unchanged, with no defaulted fields, when the event is
// not declared or raw is not a JSON object (nil, "" and null count as {}):
// the step then fails as it would without defaulting. Fields raw does
// give are never touched, not even when they are ill-typed.
//
// Dry-run mode alone uses this (an agent can explore a machine without
// writing every payload); mock and live mode keep payloads strict.
func (m *Machine) FillMissing(event string, raw json.RawMessage) (json.RawMessage, []string) {
	et := m.events[event]
	if et == nil || len(et.Fields) == 0 {
		return raw, nil
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		t = []byte("{}")
	}
	if t[0] != '{' {
		return raw, nil
	}
	var given map[string]json.RawMessage
	if err := json.Unmarshal(t, &given); err != nil {
		return raw, nil
	}
	var missing []string
	var add []byte
	for _, f := range et.Fields {
		if _, ok := given[f.Name]; ok {
			continue
		}
		z, ok := value.Zero(f.Type)
		if !ok {
			continue
		}
		missing = append(missing, f.Name)
		add = append(add, ',')
		add = appendJSONString(add, f.Name)
		add = append(add, ':')
		add = AppendValue(add, z)
	}
	if len(missing) == 0 {
		return raw, nil
	}
	// Splice the zero-valued fields in before the closing brace.
	body := bytes.TrimSpace(t[1 : len(t)-1])
	out := make([]byte, 0, len(t)+len(add)+2)
	out = append(out, '{')
	if len(body) == 0 {
		add = add[1:] // no leading comma
	} else {
		out = append(out, body...)
	}
	out = append(out, add...)
	out = append(out, '}')
	return out, missing
}

func appendJSONString(b []byte, s string) []byte {
	j, _ := json.Marshal(s)
	return append(b, j...)
}
