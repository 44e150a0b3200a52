package value

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/capsulang/caps/analysis/types"
)

// JSON encoding (documented in docs/runtime.md; a stable contract):
//
//	Unit                    null
//	Bool                    true, false
//	I32, U32                a JSON number: -7, 4294967295
//	I64 (Int), U64, Wei     a JSON string of decimal digits: "-7", "18446744073709551615"
//	Text, Address           a JSON string
//	Duration                its literal as a string: "30m", "1500ms"
//	Timestamp               RFC 3339 text in UTC: "2026-03-01T12:00:00Z"
//	Json                    the document itself
//	Bytes32                 "0x" and 64 lowercase hex digits
//	record, error, event    an object with the fields in declaration order
//	enum member             its name: "small"
//	variant case            {"case": "held", "fields": {"reason": "customs", "days": 2}};
//	                        a case without fields is {"case": "lost"}
//	Option                  null for none; the payload for (some x), except
//	                        that (some x) with x itself an Option is {"some": x}
//	Result                  {"ok": x} or {"err": e}
//	List, Vector, Array     an array
//	Map                     with Text keys an object (keys in order); otherwise
//	                        an array of [key, value] pairs in key order

// MarshalJSON encodes v as described above.
func (v Value) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := v.writeJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ToJSON is MarshalJSON.
func (v Value) ToJSON() ([]byte, error) { return v.MarshalJSON() }

func (v Value) writeJSON(b *bytes.Buffer) error {
	switch v.k {
	case KindInvalid:
		return fmt.Errorf("value: cannot encode an invalid value")
	case KindUnit:
		b.WriteString("null")
	case KindBool:
		if v.n != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case KindInt:
		if v.ik == IntI32 || v.ik == IntU32 {
			b.WriteString(v.intString())
		} else {
			b.WriteByte('"')
			b.WriteString(v.intString())
			b.WriteByte('"')
		}
	case KindText, KindAddress:
		writeJSONString(b, v.AsText())
	case KindDuration:
		writeJSONString(b, FormatDuration(int64(v.n)))
	case KindTimestamp:
		writeJSONString(b, FormatTimestamp(int64(v.n)))
	case KindJson:
		b.WriteString(v.AsText())
	case KindBytes32:
		writeJSONString(b, "0x"+hex.EncodeToString([]byte(v.AsText())))
	case KindRecord:
		r := v.ref.(*record)
		b.WriteByte('{')
		for i, f := range r.fields {
			if i > 0 {
				b.WriteByte(',')
			}
			name := ""
			if i < len(r.typ.Fields) {
				name = r.typ.Fields[i].Name
			}
			writeJSONString(b, name)
			b.WriteByte(':')
			if err := f.writeJSON(b); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case KindEnum:
		writeJSONString(b, v.Name())
	case KindVariant:
		vr := v.ref.(*variant)
		b.WriteString(`{"case":`)
		writeJSONString(b, v.Name())
		if len(vr.fields) > 0 {
			b.WriteString(`,"fields":{`)
			c := vr.typ.Cases[v.n]
			for i, f := range vr.fields {
				if i > 0 {
					b.WriteByte(',')
				}
				name := ""
				if i < len(c.Fields) {
					name = c.Fields[i].Name
				}
				writeJSONString(b, name)
				b.WriteByte(':')
				if err := f.writeJSON(b); err != nil {
					return err
				}
			}
			b.WriteByte('}')
		}
		b.WriteByte('}')
	case KindOption:
		if v.n == 0 {
			b.WriteString("null")
			return nil
		}
		p := v.Payload()
		if p.k == KindOption {
			b.WriteString(`{"some":`)
			if err := p.writeJSON(b); err != nil {
				return err
			}
			b.WriteByte('}')
			return nil
		}
		return p.writeJSON(b)
	case KindResult:
		if v.n == 0 {
			b.WriteString(`{"ok":`)
		} else {
			b.WriteString(`{"err":`)
		}
		if err := v.Payload().writeJSON(b); err != nil {
			return err
		}
		b.WriteByte('}')
	case KindList:
		b.WriteByte('[')
		for i, e := range v.Elems() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := e.writeJSON(b); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case KindMap:
		keys, vals := v.MapEntries()
		m := v.ref.(*mapData)
		if m.typ != nil && types.Identical(m.typ.Key, types.TText) {
			b.WriteByte('{')
			for i := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				writeJSONString(b, keys[i].AsText())
				b.WriteByte(':')
				if err := vals[i].writeJSON(b); err != nil {
					return err
				}
			}
			b.WriteByte('}')
			return nil
		}
		b.WriteByte('[')
		for i := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('[')
			if err := keys[i].writeJSON(b); err != nil {
				return err
			}
			b.WriteByte(',')
			if err := vals[i].writeJSON(b); err != nil {
				return err
			}
			b.WriteByte(']')
		}
		b.WriteByte(']')
	}
	return nil
}

// writeJSONString writes s as a JSON string without HTML escaping;
// invalid UTF-8 becomes U+FFFD.
func writeJSONString(b *bytes.Buffer, s string) {
	const hexDigits = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b.WriteString(`\"`)
			case c == '\\':
				b.WriteString(`\\`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20 || c == 0x7f:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// JSON returns a Json value holding the document raw, in canonical form
// (no insignificant space, object keys sorted, numbers as written).
func JSON(raw []byte) (Value, error) {
	x, err := decodeAny(raw)
	if err != nil {
		return Value{}, err
	}
	return jsonValue(x), nil
}

func jsonValue(x any) Value {
	var b bytes.Buffer
	writeCanonical(&b, x)
	return Value{k: KindJson, ref: b.String()}
}

func decodeAny(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not valid JSON: unexpected text after the document")
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("not valid JSON: unexpected text after the document")
	}
	return x, nil
}

func writeCanonical(b *bytes.Buffer, x any) {
	switch x := x.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(x.String())
	case string:
		writeJSONString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	}
}

// FromJSON decodes the JSON encoding of a value of type t (the inverse of
// MarshalJSON). For input it is lenient where that is unambiguous: any
// integer may be a JSON number or a string of digits, a Duration may be a
// number of milliseconds, a Timestamp a number of Unix milliseconds, and a
// bare variant case may be written as its name.
func FromJSON(data []byte, t types.Type) (Value, error) {
	x, err := decodeAny(data)
	if err != nil {
		return Value{}, err
	}
	return fromAny(x, t, "")
}

type pathError struct {
	path string
	msg  string
}

func (e *pathError) Error() string {
	if e.path == "" {
		return e.msg
	}
	return e.path + ": " + e.msg
}

func jsonErr(path, format string, args ...any) error {
	return &pathError{path: path, msg: fmt.Sprintf(format, args...)}
}

func describeJSON(x any) string {
	switch x := x.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return "the number " + x.String()
	case string:
		return "the string " + strconv.Quote(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a JSON value"
}

func sub(path, part string) string {
	if path == "" {
		return part
	}
	if strings.HasPrefix(part, "[") {
		return path + part
	}
	return path + "." + part
}

func fromAny(x any, t types.Type, path string) (Value, error) {
	switch tt := t.(type) {
	case *types.Basic:
		return basicFromAny(x, tt, path)
	case *types.Record:
		obj, ok := x.(map[string]any)
		if !ok {
			return Value{}, jsonErr(path, "expected an object for %s, found %s", types.Describe(tt), describeJSON(x))
		}
		fields := make([]Value, len(tt.Fields))
		for i, f := range tt.Fields {
			fx, ok := obj[f.Name]
			if !ok {
				return Value{}, jsonErr(path, "%s needs field %q", types.Describe(tt), f.Name)
			}
			fv, err := fromAny(fx, f.Type, sub(path, f.Name))
			if err != nil {
				return Value{}, err
			}
			fields[i] = fv
		}
		for k := range obj {
			if tt.Field(k) == nil {
				return Value{}, jsonErr(path, "%s has no field %q", types.Describe(tt), k)
			}
		}
		return Record(tt, fields), nil
	case *types.Enum:
		s, ok := x.(string)
		if !ok {
			return Value{}, jsonErr(path, "expected a member of enum %s, found %s", tt.Name, describeJSON(x))
		}
		s = strings.TrimPrefix(s, tt.Name+".")
		for i, m := range tt.Members {
			if m == s {
				return Enum(tt, i), nil
			}
		}
		return Value{}, jsonErr(path, "enum %s has no member %q (members: %s)", tt.Name, s, strings.Join(tt.Members, ", "))
	case *types.Variant:
		var name string
		var fx any
		switch x := x.(type) {
		case string:
			name = x
		case map[string]any:
			n, ok := x["case"].(string)
			if !ok {
				return Value{}, jsonErr(path, `expected {"case": NAME, "fields": {...}} for variant %s`, tt.Name)
			}
			name, fx = n, x["fields"]
			for k := range x {
				if k != "case" && k != "fields" {
					return Value{}, jsonErr(path, "unexpected key %q in a variant; use \"case\" and \"fields\"", k)
				}
			}
		default:
			return Value{}, jsonErr(path, "expected a case of variant %s, found %s", tt.Name, describeJSON(x))
		}
		name = strings.TrimPrefix(name, tt.Name+".")
		ci := caseIndex(tt, name)
		if ci < 0 {
			return Value{}, jsonErr(path, "variant %s has no case %q (cases: %s)", tt.Name, name, caseNames(tt))
		}
		c := tt.Cases[ci]
		obj, _ := fx.(map[string]any)
		if fx != nil && obj == nil {
			return Value{}, jsonErr(path, "the fields of case %s must be an object", name)
		}
		fields := make([]Value, len(c.Fields))
		for i, f := range c.Fields {
			v, ok := obj[f.Name]
			if !ok {
				return Value{}, jsonErr(path, "case %s needs field %q", name, f.Name)
			}
			fv, err := fromAny(v, f.Type, sub(path, name+"."+f.Name))
			if err != nil {
				return Value{}, err
			}
			fields[i] = fv
		}
		if len(obj) > len(c.Fields) {
			for k := range obj {
				if !hasField(c.Fields, k) {
					return Value{}, jsonErr(path, "case %s has no field %q", name, k)
				}
			}
		}
		return Variant(tt, ci, fields), nil
	case *types.Option:
		if x == nil {
			return None(), nil
		}
		if _, nested := tt.Elem.(*types.Option); nested {
			obj, ok := x.(map[string]any)
			inner, has := obj["some"]
			if !ok || !has || len(obj) != 1 {
				return Value{}, jsonErr(path, `expected null or {"some": ...} for %s`, tt)
			}
			x = inner
		}
		p, err := fromAny(x, tt.Elem, path)
		if err != nil {
			return Value{}, err
		}
		return Some(p), nil
	case *types.Result:
		obj, ok := x.(map[string]any)
		if ok && len(obj) == 1 {
			if v, has := obj["ok"]; has {
				p, err := fromAny(v, tt.Ok, sub(path, "ok"))
				return Ok(p), err
			}
			if v, has := obj["err"]; has {
				p, err := fromAny(v, tt.Err, sub(path, "err"))
				return Err(p), err
			}
		}
		return Value{}, jsonErr(path, `expected {"ok": ...} or {"err": ...} for %s, found %s`, tt, describeJSON(x))
	case *types.List, *types.Array:
		arr, ok := x.([]any)
		if !ok {
			return Value{}, jsonErr(path, "expected an array for %s, found %s", t, describeJSON(x))
		}
		elem, n := elemOf(t)
		if n >= 0 && len(arr) != n {
			return Value{}, jsonErr(path, "%s needs exactly %d elements, found %d", t, n, len(arr))
		}
		elems := make([]Value, len(arr))
		for i, e := range arr {
			ev, err := fromAny(e, elem, sub(path, "["+strconv.Itoa(i)+"]"))
			if err != nil {
				return Value{}, err
			}
			elems[i] = ev
		}
		return List(elems), nil
	case *types.Map:
		var keys, vals []Value
		switch x := x.(type) {
		case map[string]any:
			if !types.Identical(tt.Key, types.TText) {
				return Value{}, jsonErr(path, "a %s is written as an array of [key, value] pairs", tt)
			}
			for k, e := range x {
				ev, err := fromAny(e, tt.Value, sub(path, strconv.Quote(k)))
				if err != nil {
					return Value{}, err
				}
				keys, vals = append(keys, Text(k)), append(vals, ev)
			}
		case []any:
			for i, e := range x {
				pair, ok := e.([]any)
				if !ok || len(pair) != 2 {
					return Value{}, jsonErr(sub(path, "["+strconv.Itoa(i)+"]"), "expected a [key, value] pair")
				}
				kv, err := fromAny(pair[0], tt.Key, sub(path, "["+strconv.Itoa(i)+"][0]"))
				if err != nil {
					return Value{}, err
				}
				vv, err := fromAny(pair[1], tt.Value, sub(path, "["+strconv.Itoa(i)+"][1]"))
				if err != nil {
					return Value{}, err
				}
				keys, vals = append(keys, kv), append(vals, vv)
			}
		default:
			return Value{}, jsonErr(path, "expected an object or an array of pairs for %s, found %s", tt, describeJSON(x))
		}
		return Map(tt, keys, vals), nil
	}
	return Value{}, jsonErr(path, "values of type %s cannot be decoded", types.Describe(t))
}

func hasField(fs []types.Field, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

func caseIndex(t *types.Variant, name string) int {
	for i, c := range t.Cases {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func caseNames(t *types.Variant) string {
	var names []string
	for _, c := range t.Cases {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// elemOf returns the element type of a list, vector or array type and the
// required length (-1 for lists).
func elemOf(t types.Type) (types.Type, int) {
	switch t := t.(type) {
	case *types.List:
		return t.Elem, -1
	case *types.Array:
		return t.Elem, t.Len
	}
	return nil, -1
}

func basicFromAny(x any, t *types.Basic, path string) (Value, error) {
	if k := IntKindOf(t); k != IntNone {
		var text string
		switch x := x.(type) {
		case json.Number:
			text = x.String()
		case string:
			text = x
		default:
			return Value{}, jsonErr(path, "expected %s, found %s", t, describeJSON(x))
		}
		v, err := ParseInt(text, t)
		if err != nil {
			return Value{}, jsonErr(path, "%v", err)
		}
		return v, nil
	}
	switch t.Kind {
	case types.Unit:
		if x == nil {
			return Unit(), nil
		}
	case types.Bool:
		if b, ok := x.(bool); ok {
			return Bool(b), nil
		}
	case types.Text:
		if s, ok := x.(string); ok {
			return Text(s), nil
		}
	case types.Address:
		if s, ok := x.(string); ok {
			return Address(s), nil
		}
	case types.Json:
		return jsonValue(x), nil
	case types.Duration:
		switch x := x.(type) {
		case string:
			v, err := ParseDuration(x)
			if err != nil {
				return Value{}, jsonErr(path, "%v", err)
			}
			return v, nil
		case json.Number:
			ms, err := strconv.ParseInt(x.String(), 10, 64)
			if err != nil || ms < 0 {
				return Value{}, jsonErr(path, "a Duration in milliseconds must be a whole number ≥ 0, found %s", x)
			}
			return Duration(ms), nil
		}
	case types.Timestamp:
		switch x := x.(type) {
		case string:
			v, err := ParseTimestamp(x)
			if err != nil {
				return Value{}, jsonErr(path, "%v", err)
			}
			return v, nil
		case json.Number:
			ms, err := strconv.ParseInt(x.String(), 10, 64)
			if err != nil {
				return Value{}, jsonErr(path, "a Timestamp in Unix milliseconds must be a whole number, found %s", x)
			}
			return Timestamp(ms), nil
		}
	case types.Bytes32:
		if s, ok := x.(string); ok {
			v, err := ParseBytes32(s)
			if err != nil {
				return Value{}, jsonErr(path, "%v", err)
			}
			return v, nil
		}
	}
	return Value{}, jsonErr(path, "expected %s, found %s", t, describeJSON(x))
}

// ParseInt reads a decimal integer (optionally negative) as a value of the
// integer type t, rejecting text that does not fit.
func ParseInt(text string, t types.Type) (Value, error) {
	k := IntKindOf(t)
	if k == IntNone {
		return Value{}, fmt.Errorf("%s is not an integer type", types.Describe(t))
	}
	digits := strings.TrimPrefix(text, "-")
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return Value{}, fmt.Errorf("expected %s, found %q", t, text)
	}
	n, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return Value{}, fmt.Errorf("expected %s, found %q", t, text)
	}
	lo, hi := Range(k)
	if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
		return Value{}, fmt.Errorf("%s does not fit in %s (%s to %s)", text, t, lo, hi)
	}
	if k == IntWei {
		return WeiBig(n), nil
	}
	if n.Sign() < 0 {
		return Int(k, uint64(n.Int64())), nil
	}
	return Int(k, n.Uint64()), nil
}

// Range returns the smallest and largest values of integer kind k.
func Range(k IntKind) (lo, hi *big.Int) {
	bits := uint(k.Bits())
	one := big.NewInt(1)
	if k.Signed() {
		hi = new(big.Int).Sub(new(big.Int).Lsh(one, bits-1), one)
		lo = new(big.Int).Neg(new(big.Int).Lsh(one, bits-1))
		return lo, hi
	}
	return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
}

// ParseTimestamp reads RFC 3339 text ("2026-03-01T12:00:00Z", offsets
// allowed) as a Timestamp; precision below a millisecond is dropped.
func ParseTimestamp(s string) (Value, error) {
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return Value{}, fmt.Errorf("expected a Timestamp as RFC 3339 text such as 2026-03-01T12:00:00Z, found %q", s)
	}
	return Timestamp(tm.UnixMilli()), nil
}

// ParseBytes32 reads "0x" followed by 64 hex digits.
func ParseBytes32(s string) (Value, error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || len(h) != 64 {
		return Value{}, fmt.Errorf("expected Bytes32 as 0x and 64 hex digits, found %q", s)
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return Value{}, fmt.Errorf("expected Bytes32 as 0x and 64 hex digits, found %q", s)
	}
	var b [32]byte
	copy(b[:], raw)
	return Bytes32(b), nil
}
