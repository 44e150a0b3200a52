package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical returns the canonical form of the JSON value in b (see
// docs/ledger.md, "Canonical JSON"):
//
//   - no insignificant whitespace;
//   - object members sorted by key, compared as byte strings of their
//     UTF-8 encoding (that is, by Unicode code point); a key given twice
//     is an error;
//   - strings written with the minimal escaping of RFC 8785: `"` and `\`
//     as \" and \\, the control characters U+0008, U+0009, U+000A, U+000C
//     and U+000D as \b \t \n \f \r, other control characters below U+0020
//     as \u00XX (lowercase hex), everything else as UTF-8;
//   - numbers copied exactly as written (JSON number grammar), so that no
//     precision is ever lost and re-canonicalizing is the identity.
//
// Invalid JSON, invalid UTF-8 (or an escaped lone surrogate) and trailing
// data are errors.
func Canonical(b []byte) ([]byte, error) {
	if isCanonical(b) {
		return bytes.Clone(b), nil
	}
	return canonicalSlow(b)
}

// canonicalSlow is Canonical for input that is not canonical already: it
// parses b and writes it again.
func canonicalSlow(b []byte) ([]byte, error) {
	if !utf8.Valid(b) {
		return nil, errors.New("chain: JSON is not valid UTF-8")
	}
	p := &canon{in: b, out: new(bytes.Buffer)}
	p.out.Grow(len(b))
	p.ws()
	if err := p.value(0); err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.in) {
		return nil, fmt.Errorf("chain: trailing data after the JSON value at byte %d", p.i)
	}
	return p.out.Bytes(), nil
}

// CanonicalValue marshals v with encoding/json and returns its canonical
// form.
func CanonicalValue(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Canonical(b)
}

// maxDepth bounds nesting, so that hostile input cannot exhaust the stack.
const maxDepth = 10000

type canon struct {
	in  []byte
	i   int
	out *bytes.Buffer
}

func (p *canon) errf(format string, args ...any) error {
	return fmt.Errorf("chain: invalid JSON at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *canon) ws() {
	for p.i < len(p.in) {
		switch p.in[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *canon) value(depth int) error {
	if depth > maxDepth {
		return p.errf("nested too deeply")
	}
	if p.i >= len(p.in) {
		return p.errf("unexpected end of input")
	}
	switch c := p.in[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		p.i++
		p.out.WriteByte('[')
		p.ws()
		if p.i < len(p.in) && p.in[p.i] == ']' {
			p.i++
			p.out.WriteByte(']')
			return nil
		}
		for {
			p.ws()
			if err := p.value(depth + 1); err != nil {
				return err
			}
			p.ws()
			if p.i >= len(p.in) {
				return p.errf("unexpected end of input in an array")
			}
			if p.in[p.i] == ']' {
				p.i++
				p.out.WriteByte(']')
				return nil
			}
			if p.in[p.i] != ',' {
				return p.errf("expected , or ] in an array")
			}
			p.i++
			p.out.WriteByte(',')
		}
	case c == '"':
		s, err := p.str()
		if err != nil {
			return err
		}
		writeString(p.out, s)
		return nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.in[p.i:], []byte(lit)) {
				p.i += len(lit)
				p.out.WriteString(lit)
				return nil
			}
		}
		return p.errf("unexpected character %q", c)
	}
}

func (p *canon) object(depth int) error {
	p.i++ // {
	type member struct {
		key string
		val []byte
	}
	var ms []member
	p.ws()
	if p.i < len(p.in) && p.in[p.i] == '}' {
		p.i++
		p.out.WriteString("{}")
		return nil
	}
	outer := p.out
	for {
		p.ws()
		if p.i >= len(p.in) || p.in[p.i] != '"' {
			return p.errf("expected a string key in an object")
		}
		k, err := p.str()
		if err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.in) || p.in[p.i] != ':' {
			return p.errf("expected : after an object key")
		}
		p.i++
		p.ws()
		p.out = new(bytes.Buffer)
		if err := p.value(depth + 1); err != nil {
			return err
		}
		ms = append(ms, member{k, p.out.Bytes()})
		p.ws()
		if p.i >= len(p.in) {
			return p.errf("unexpected end of input in an object")
		}
		if p.in[p.i] == '}' {
			p.i++
			break
		}
		if p.in[p.i] != ',' {
			return p.errf("expected , or } in an object")
		}
		p.i++
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	p.out = outer
	p.out.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			if m.key == ms[i-1].key {
				return fmt.Errorf("chain: object key %q is given twice", m.key)
			}
			p.out.WriteByte(',')
		}
		writeString(p.out, m.key)
		p.out.WriteByte(':')
		p.out.Write(m.val)
	}
	p.out.WriteByte('}')
	return nil
}

// str parses a JSON string at p.i and returns its value.
func (p *canon) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	// Fast path: no escapes.
	for p.i < len(p.in) {
		c := p.in[p.i]
		if c == '"' {
			s := string(p.in[start:p.i])
			p.i++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.errf("control character in a string")
		}
		p.i++
	}
	buf := append([]byte(nil), p.in[start:p.i]...)
	for p.i < len(p.in) {
		c := p.in[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), nil
		case c < 0x20:
			return "", p.errf("control character in a string")
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.in) {
			break
		}
		e := p.in[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.errf("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xdc00 || p.i+1 >= len(p.in) || p.in[p.i] != '\\' || p.in[p.i+1] != 'u' {
					return "", p.errf("lone surrogate in a \\u escape")
				}
				p.i += 2
				r2, ok := p.hex4()
				if !ok || r2 < 0xdc00 || r2 > 0xdfff {
					return "", p.errf("lone surrogate in a \\u escape")
				}
				r = utf16.DecodeRune(r, r2)
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.errf("bad escape \\%c", e)
		}
	}
	return "", p.errf("unterminated string")
}

func (p *canon) hex4() (rune, bool) {
	if p.i+4 > len(p.in) {
		return 0, false
	}
	var r rune
	for _, c := range p.in[p.i : p.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

// number checks the JSON number grammar and copies the number as written.
func (p *canon) number() error {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.in) && p.in[p.i] >= '0' && p.in[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.in[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.in) && p.in[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return p.errf("bad number")
	}
	if p.i < len(p.in) && p.in[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.errf("bad number")
		}
	}
	if p.i < len(p.in) && (p.in[p.i] == 'e' || p.in[p.i] == 'E') {
		p.i++
		if p.i < len(p.in) && (p.in[p.i] == '+' || p.in[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.errf("bad number")
		}
	}
	p.out.Write(p.in[start:p.i])
	return nil
}

const hexDigits = "0123456789abcdef"

// writeString writes s as a JSON string with minimal escaping.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		}
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
