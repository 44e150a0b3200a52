package chain

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// isCanonical reports whether b is already in canonical form, so that
// Canonical(b) would return b unchanged. It allocates nothing and reads b
// once; it is the fast path of Canonical and of verification, where the
// payloads written by this package (and by the machine ledger's encoder)
// are canonical already.
//
// It may answer false for some canonical inputs (keys with escapes, very
// deep nesting): callers then take the slow path, which decides exactly.
// It never answers true for an input that is not canonical.
func isCanonical(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	c := canonChecker{b: b}
	if !c.value(0) {
		return false
	}
	return c.i == len(b)
}

// fastMaxDepth bounds the nesting the fast path follows; deeper values go
// to the slow path, which has its own limit.
const fastMaxDepth = 512

type canonChecker struct {
	b       []byte
	i       int
	escaped bool // the last string read held an escape
}

func (c *canonChecker) value(depth int) bool {
	if c.i >= len(c.b) || depth > fastMaxDepth {
		return false
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		return c.object(depth)
	case ch == '[':
		c.i++
		if c.i < len(c.b) && c.b[c.i] == ']' {
			c.i++
			return true
		}
		for {
			if !c.value(depth + 1) {
				return false
			}
			if done, ok := c.next(']'); done || !ok {
				return ok
			}
		}
	case ch == '"':
		_, _, ok := c.str()
		return ok
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number()
	case ch == 't':
		return c.lit("true")
	case ch == 'f':
		return c.lit("false")
	case ch == 'n':
		return c.lit("null")
	}
	return false
}

func (c *canonChecker) lit(s string) bool {
	if len(c.b)-c.i < len(s) || string(c.b[c.i:c.i+len(s)]) != s {
		return false
	}
	c.i += len(s)
	return true
}

// object checks an object whose keys are strictly increasing. Keys with
// escapes are left to the slow path (their order is that of the decoded
// strings).
func (c *canonChecker) object(depth int) bool {
	c.i++ // {
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		return true
	}
	var prev []byte
	for n := 0; ; n++ {
		if c.i >= len(c.b) || c.b[c.i] != '"' {
			return false
		}
		start, end, ok := c.str()
		if !ok || c.escaped {
			return false
		}
		key := c.b[start:end]
		if n > 0 && string(prev) >= string(key) {
			return false
		}
		prev = key
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			return false
		}
		c.i++
		if !c.value(depth + 1) {
			return false
		}
		if done, ok := c.next('}'); done || !ok {
			return ok
		}
	}
}

// next consumes what follows a member or element: closer ends the
// container (done), a comma announces another; anything else is not
// canonical (ok false).
func (c *canonChecker) next(closer byte) (done, ok bool) {
	if c.i >= len(c.b) {
		return false, false
	}
	switch c.b[c.i] {
	case closer:
		c.i++
		return true, true
	case ',':
		c.i++
		return false, true
	}
	return false, false
}

// str checks a string at c.i written with the minimal escaping of
// Canonical and returns the bounds of its contents. c.escaped says
// whether it held an escape.
func (c *canonChecker) str() (start, end int, ok bool) {
	c.escaped = false
	b := c.b
	i := c.i + 1
	start = i
	for {
		i += plainRun(b[i:])
		if i >= len(b) {
			return 0, 0, false
		}
		switch b[i] {
		case '"':
			c.i = i + 1
			return start, i, true
		case '\\':
			c.escaped = true
			if i+1 >= len(b) {
				return 0, 0, false
			}
			switch b[i+1] {
			case '"', '\\', 'b', 't', 'n', 'f', 'r':
				i += 2
			case 'u':
				// Only control characters other than the five with short
				// escapes, as \u00xx in lowercase hex.
				if i+6 > len(b) || b[i+2] != '0' || b[i+3] != '0' || (b[i+4] != '0' && b[i+4] != '1') {
					return 0, 0, false
				}
				lo := b[i+5]
				var v byte
				switch {
				case lo >= '0' && lo <= '9':
					v = lo - '0'
				case lo >= 'a' && lo <= 'f':
					v = lo - 'a' + 10
				default:
					return 0, 0, false
				}
				if b[i+4] == '0' {
					switch v {
					case '\b', '\t', '\n', '\f', '\r':
						return 0, 0, false
					}
				}
				i += 6
			default:
				return 0, 0, false
			}
		default: // a control character
			return 0, 0, false
		}
	}
}

// number checks the JSON number grammar (numbers are kept as written).
func (c *canonChecker) number() bool {
	b := c.b
	i := c.i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		d := i + 1
		if i = skipDigits(b, d); i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		if i = skipDigits(b, d); i == d {
			return false
		}
	}
	c.i = i
	return true
}

// skipDigits returns the index after the run of ASCII digits at b[i:].
func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// plainRun returns the length of the run of bytes at the start of b that
// a JSON string holds as they are: everything from 0x20 up but '"' and
// '\'. It looks at 8 bytes at a time.
func plainRun(b []byte) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (lo * '"')
		s := x ^ (lo * '\\')
		// The lowest flagged byte is the first quote, backslash or
		// control character (flags above it may be false).
		if m := ((q-lo)&^q | (s-lo)&^s | (x-lo*0x20)&^x) & hi; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			break
		}
	}
	return i
}
