package value

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// String prints v in Capsulang syntax, so that a printed value can be
// pasted into an example or passed back to Parse:
//
//	7  -7  true  "a \"b\"\n"  30m  none  (some 1)  (ok 1)  (err "x")
//	(list 1 2)  Size.small  (delivered "sig")  Outcome.lost
//	(record Claim (id 1) (amount 2))
//
// The types without literal syntax print as strings Parse accepts: a
// Timestamp as RFC 3339 text in UTC ("2026-03-01T12:00:00Z"), Json as its
// canonical JSON text, an Address as its text and Bytes32 as "0x" and 64
// hex digits. Unit prints as `unit` and a map as (map (KEY VALUE)...),
// notations of the toolchain rather than of the language.
func (v Value) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v Value) write(b *strings.Builder) {
	switch v.k {
	case KindInvalid:
		b.WriteString("<invalid>")
	case KindUnit:
		b.WriteString("unit")
	case KindBool:
		if v.n != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case KindInt:
		b.WriteString(v.intString())
	case KindText:
		b.WriteString(Quote(v.AsText()))
	case KindDuration:
		b.WriteString(FormatDuration(int64(v.n)))
	case KindTimestamp:
		b.WriteString(Quote(FormatTimestamp(int64(v.n))))
	case KindJson, KindAddress:
		b.WriteString(Quote(v.AsText()))
	case KindBytes32:
		b.WriteString(Quote("0x" + hex.EncodeToString([]byte(v.AsText()))))
	case KindRecord:
		r := v.ref.(*record)
		b.WriteString("(record ")
		b.WriteString(r.typ.Name)
		for i, f := range r.fields {
			b.WriteString(" (")
			if i < len(r.typ.Fields) {
				b.WriteString(r.typ.Fields[i].Name)
			}
			b.WriteByte(' ')
			f.write(b)
			b.WriteByte(')')
		}
		b.WriteByte(')')
	case KindEnum:
		b.WriteString(v.Type().String())
		b.WriteByte('.')
		b.WriteString(v.Name())
	case KindVariant:
		vr := v.ref.(*variant)
		if len(vr.fields) == 0 {
			b.WriteString(vr.typ.Name)
			b.WriteByte('.')
			b.WriteString(v.Name())
			return
		}
		b.WriteByte('(')
		b.WriteString(v.Name())
		for _, f := range vr.fields {
			b.WriteByte(' ')
			f.write(b)
		}
		b.WriteByte(')')
	case KindOption:
		if v.n == 0 {
			b.WriteString("none")
			return
		}
		b.WriteString("(some ")
		v.Payload().write(b)
		b.WriteByte(')')
	case KindResult:
		if v.n == 0 {
			b.WriteString("(ok ")
		} else {
			b.WriteString("(err ")
		}
		v.Payload().write(b)
		b.WriteByte(')')
	case KindList:
		b.WriteString("(list")
		for _, e := range v.Elems() {
			b.WriteByte(' ')
			e.write(b)
		}
		b.WriteByte(')')
	case KindMap:
		b.WriteString("(map")
		keys, vals := v.MapEntries()
		for i := range keys {
			b.WriteString(" (")
			keys[i].write(b)
			b.WriteByte(' ')
			vals[i].write(b)
			b.WriteByte(')')
		}
		b.WriteByte(')')
	}
}

func (v Value) intString() string {
	switch {
	case v.ik == IntWei:
		return v.weiRef().String()
	case v.ik.Signed():
		return strconv.FormatInt(int64(v.n), 10)
	}
	return strconv.FormatUint(v.n, 10)
}

// Quote returns s as a Capsulang string literal. It uses the escapes \\ \"
// \n \r \t \0 and writes other control and non-printable characters as
// \u{H}; printable characters, emoji included, are kept as they are.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		default:
			if r == utf8.RuneError && size <= 1 || r != ' ' && !unicode.IsPrint(r) {
				b.WriteString(`\u{`)
				b.WriteString(strings.ToUpper(strconv.FormatInt(int64(r), 16)))
				b.WriteByte('}')
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FormatDuration writes a duration in milliseconds as a Capsulang duration
// literal in the largest unit that divides it exactly: 30m, 36h, 1500ms.
func FormatDuration(ms int64) string {
	if ms == 0 {
		return "0ms"
	}
	for _, u := range []struct {
		unit string
		ms   int64
	}{{"d", 86_400_000}, {"h", 3_600_000}, {"m", 60_000}, {"s", 1000}} {
		if ms%u.ms == 0 {
			return strconv.FormatInt(ms/u.ms, 10) + u.unit
		}
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

// FormatTimestamp writes Unix milliseconds as RFC 3339 text in UTC, with
// fractional seconds only when they are not zero.
func FormatTimestamp(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.999Z07:00")
}
