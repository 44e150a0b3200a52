package machine

// This file decodes and checks event payloads: the fast path for flat
// JSON objects, and encoding/json (value.FromJSON) for everything else.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/value"
)

// canonicalText is a raw payload for a diagnostic: its canonical JSON
// (so that the same payload gives the same text however it was laid
// out), or the text itself when it is not JSON.
func canonicalText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	s := string(raw)
	if c, err := chain.Canonical(raw); err == nil {
		s = string(c)
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// Signature prints the event's declaration: (event Name (field T)...).
func (et *EventType) Signature() string {
	s := "(event " + et.Name
	for _, f := range et.Fields {
		s += " (" + f.Name + " " + f.Type.String() + ")"
	}
	return s + ")"
}

// Decode decodes a JSON payload (nil, null and {} are empty) against the
// event's declaration: exactly the declared fields, each fitting its type.
func (et *EventType) Decode(raw json.RawMessage) (map[string]value.Value, error) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		raw = json.RawMessage("{}")
	}
	if p, ok := et.fastDecode(raw); ok {
		return p, nil
	}
	v, err := value.FromJSON(raw, et.Record)
	if err != nil {
		// FromJSON names one of several unknown fields at random: name
		// the first in sorted order, so the diagnostic is reproducible.
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			var extra []string
			for k := range obj {
				if _, ok := et.index[k]; !ok {
					extra = append(extra, k)
				}
			}
			if len(extra) > 0 {
				sort.Strings(extra)
				return nil, fmt.Errorf("event %s has no field %q", et.Name, extra[0])
			}
		}
		return nil, err
	}
	out := make(map[string]value.Value, len(et.Fields))
	for k, f := range v.Fields() {
		out[et.Fields[k].Name] = f
	}
	return out, nil
}

// check validates a decoded payload.
func (et *EventType) check(p map[string]value.Value) *Failure {
	bad := func(msg string) *Failure {
		return &Failure{Code: CodeBadPayload, Message: "bad payload: event " + et.Name + ": " + msg, Reason: "payload does not fit the declaration", Expected: et.Signature()}
	}
	for _, f := range et.Fields {
		v, ok := p[f.Name]
		if !ok {
			return bad("missing field " + f.Name)
		}
		if f.ik != value.IntNone {
			if v.Kind() != value.KindInt || v.IntKind() != f.ik {
				if err := value.Check(v, f.Type); err != nil {
					return bad(f.Name + ": " + err.Error())
				}
			}
			continue
		}
		if err := value.Check(v, f.Type); err != nil {
			return bad(f.Name + ": " + err.Error())
		}
	}
	if len(p) != len(et.Fields) {
		var extra []string
		for k := range p {
			if _, ok := et.index[k]; !ok {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		return bad("unknown field " + strings.Join(extra, ", "))
	}
	return nil
}

// fastDecode decodes a flat payload whose fields are integers, Bool or
// Text, written plainly ({"claim_id":42,"who":"ada"}), without
// encoding/json. Anything it is not sure about (escapes, exponents,
// leading zeros, out-of-range numbers, other types, a missing, unknown or
// repeated field) is left to value.FromJSON, so the two always agree.
func (et *EventType) fastDecode(raw []byte) (map[string]value.Value, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	out := make(map[string]value.Value, len(et.Fields))
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return out, len(et.Fields) == 0 && skipSpace(raw, i+1) == len(raw)
	}
	for {
		key, j, ok := plainString(raw, i)
		if !ok {
			return nil, false
		}
		k, declared := et.index[key]
		if !declared {
			return nil, false
		}
		if _, dup := out[key]; dup {
			return nil, false
		}
		i = skipSpace(raw, j)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
		f := &et.Fields[k]
		var v value.Value
		switch {
		case f.ik != value.IntNone && f.ik != value.IntWei:
			quoted := i < len(raw) && raw[i] == '"'
			if quoted {
				i++
			}
			start := i
			if i < len(raw) && raw[i] == '-' {
				i++
			}
			d := i
			for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
				i++
			}
			if i == d || i-d > 1 && raw[d] == '0' || i-d > 20 {
				return nil, false
			}
			if quoted {
				if i >= len(raw) || raw[i] != '"' {
					return nil, false
				}
			}
			num := raw[start:i]
			if quoted {
				i++
			}
			var ok bool
			if v, ok = parseInt(num, f.ik); !ok {
				return nil, false
			}
		case types.Identical(f.Type, types.TBool):
			switch {
			case bytes.HasPrefix(raw[i:], []byte("true")):
				v, i = value.True, i+4
			case bytes.HasPrefix(raw[i:], []byte("false")):
				v, i = value.False, i+5
			default:
				return nil, false
			}
		case types.Identical(f.Type, types.TText):
			str, j, ok := plainString(raw, i)
			if !ok {
				return nil, false
			}
			v, i = value.Text(str), j
		default:
			return nil, false
		}
		out[key] = v
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == '}' {
			break
		}
		if raw[i] != ',' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
	}
	return out, len(out) == len(et.Fields) && skipSpace(raw, i+1) == len(raw)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads a JSON string at b[i] without escapes, control
// characters or invalid UTF-8, and returns it and the index after it.
func plainString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	j := i + 1
	for j < len(b) && b[j] != '"' {
		if b[j] == '\\' || b[j] < 0x20 {
			return "", 0, false
		}
		j++
	}
	if j >= len(b) || !utf8.Valid(b[i+1:j]) {
		return "", 0, false
	}
	return string(b[i+1 : j]), j + 1, true
}

// parseInt parses decimal digits (with a leading - for signed kinds) as an
// integer of kind k, if it fits.
func parseInt(b []byte, k value.IntKind) (value.Value, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		if !k.Signed() {
			return value.Value{}, false
		}
		b = b[1:]
	}
	var u uint64
	for _, c := range b {
		d := uint64(c - '0')
		if u > (1<<64-1-d)/10 {
			return value.Value{}, false
		}
		u = u*10 + d
	}
	bits := k.Bits()
	switch {
	case !k.Signed():
		if bits < 64 && u >= 1<<bits {
			return value.Value{}, false
		}
		return value.Int(k, u), true
	case neg:
		if u > 1<<(bits-1) {
			return value.Value{}, false
		}
		return value.Int(k, -u), true
	default:
		if u >= 1<<(bits-1) {
			return value.Value{}, false
		}
		return value.Int(k, u), true
	}
}
