package ir

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The IR is built as a small tree of JSON values and then serialized once.
// Serialization is the RFC 8785 (JCS) form restricted to the values the IR
// uses: object members sorted by key (all keys are ASCII, so byte order is
// JCS's UTF-16 order), no insignificant whitespace, strings with the minimal
// JCS escaping, integers in plain decimal. Any JCS implementation that
// re-canonicalizes the output therefore reproduces it byte for byte.

type value interface {
	encode(b *sink)
}

// sink receives canonical bytes. It is a buffer that, given a writer,
// passes its contents on whenever they pass spillSize, so that a large
// document (a hash's input) is never held in memory whole.
type sink struct {
	bytes.Buffer
	w io.Writer
}

// spillSize is how many bytes a sink with a writer holds at most between
// the items of an array.
const spillSize = 32 << 10

// spill passes the buffered bytes to the writer once there are enough.
func (s *sink) spill() {
	if s.w != nil && s.Len() >= spillSize {
		s.w.Write(s.Bytes())
		s.Reset()
	}
}

// flush passes every buffered byte to the writer.
func (s *sink) flush() {
	s.w.Write(s.Bytes())
	s.Reset()
}

type (
	jstr  string
	jint  int64
	jbool bool
	jnull struct{}
	jarr  []value
	// jraw is an already-encoded canonical value.
	jraw []byte
)

// member is one key/value pair of an object.
type member struct {
	key string
	val value
}

// jobj is an object; its members are sorted by key when encoded. Absent
// values (nil) are left out.
type jobj []member

// jtag is an object of one member, {key: val}: a jobj of one member in one
// allocation instead of two.
type jtag member

// jpair is an object of two members, in one allocation.
type jpair [2]member

// pair returns the object {k1: v1, k2: v2}.
func pair(k1 string, v1 value, k2 string, v2 value) value {
	return jpair{{k1, v1}, {k2, v2}}
}

// set adds a member, keeping the members sorted by key.
func (o *jobj) set(key string, v value) {
	if v == nil {
		return
	}
	s := append(*o, member{})
	i := len(s) - 1
	for ; i > 0 && s[i-1].key > key; i-- {
		s[i] = s[i-1]
	}
	s[i] = member{key, v}
	*o = s
}

// emptyArray is the value of an empty array, boxed once.
var emptyArray value = jarr{}

// setArr adds an array member; every empty array is the one emptyArray,
// so that adding one allocates nothing.
func (o *jobj) setArr(key string, a jarr) {
	if len(a) == 0 {
		o.set(key, emptyArray)
		return
	}
	o.set(key, a)
}

func (o jobj) sorted() bool {
	for i := 1; i < len(o); i++ {
		if o[i-1].key > o[i].key {
			return false
		}
	}
	return true
}

func (s jstr) encode(b *sink)  { writeString(&b.Buffer, string(s)) }
func (n jint) encode(b *sink)  { b.WriteString(strconv.FormatInt(int64(n), 10)) }
func (v jbool) encode(b *sink) { b.WriteString(strconv.FormatBool(bool(v))) }
func (jnull) encode(b *sink)   { b.WriteString("null") }
func (r jraw) encode(b *sink)  { b.Write(r) }

func (a jarr) encode(b *sink) {
	b.WriteByte('[')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		if v == nil {
			b.WriteString("null")
			continue
		}
		v.encode(b)
		b.spill()
	}
	b.WriteByte(']')
}

func (t jtag) encode(b *sink) {
	b.WriteByte('{')
	writeString(&b.Buffer, t.key)
	b.WriteByte(':')
	t.val.encode(b)
	b.WriteByte('}')
}

func (p jpair) encode(b *sink) {
	first, second := p[0], p[1]
	if first.key > second.key {
		first, second = second, first
	}
	b.WriteByte('{')
	writeString(&b.Buffer, first.key)
	b.WriteByte(':')
	first.val.encode(b)
	b.WriteByte(',')
	writeString(&b.Buffer, second.key)
	b.WriteByte(':')
	second.val.encode(b)
	b.WriteByte('}')
}

func (o jobj) encode(b *sink) {
	if !o.sorted() {
		s := make(jobj, len(o))
		copy(s, o)
		sort.SliceStable(s, func(i, j int) bool { return s[i].key < s[j].key })
		o = s
	}
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b.Buffer, m.key)
		b.WriteByte(':')
		m.val.encode(b)
	}
	b.WriteByte('}')
}

// encodeValue returns the canonical bytes of v.
func encodeValue(v value) []byte {
	if v == nil {
		return []byte("null")
	}
	var b sink
	b.Grow(256)
	v.encode(&b)
	return b.Bytes()
}

// encodings stores the canonical bytes of many values in shared chunks:
// each value is encoded in one scratch buffer and copied to the current
// chunk, so that storing it costs no allocation of its own.
type encodings struct {
	scratch sink
	chunk   []byte
}

// chunkSize is the size of an encodings chunk.
const chunkSize = 64 << 10

// encode returns the canonical bytes of v, stored in e.
func (e *encodings) encode(v value) []byte {
	e.scratch.Reset()
	if v == nil {
		e.scratch.WriteString("null")
	} else {
		v.encode(&e.scratch)
	}
	b := e.scratch.Bytes()
	if len(b) > cap(e.chunk)-len(e.chunk) {
		e.chunk = make([]byte, 0, max(chunkSize, len(b)))
	}
	start := len(e.chunk)
	e.chunk = append(e.chunk, b...)
	return e.chunk[start:len(e.chunk):len(e.chunk)]
}

const hexDigits = "0123456789abcdef"

// writeString writes s as a JSON string with the JCS escaping: `"` and `\`
// are escaped, U+0008, U+0009, U+000A, U+000C and U+000D use their short
// escapes, other control characters below U+0020 use \u00xx with lowercase
// hex, and everything else is written as raw UTF-8. Bytes that are not
// valid UTF-8 are replaced by U+FFFD, one replacement per invalid byte, so
// that the output is always valid UTF-8.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b.WriteString(`\"`)
			case c == '\\':
				b.WriteString(`\\`)
			case c == '\b':
				b.WriteString(`\b`)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\f':
				b.WriteString(`\f`)
			case c == '\r':
				b.WriteString(`\r`)
			case c < 0x20:
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
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// Indent returns the human-readable form of canonical IR: the same JSON
// document indented by two spaces, with a final newline. It adds only
// whitespace, so compacting the result (encoding/json.Compact) gives the
// canonical bytes back. Input that is not valid JSON is returned unchanged.
func Indent(canonical []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, canonical, "", "  "); err != nil {
		return canonical
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// ---- sorting helpers

// sortByName sorts items by a primary name; items with the same name are
// ordered by their canonical bytes, so the order is total and independent
// of the input order. The items are replaced by their encodings.
func sortByName(items []value, names []string) jarr {
	ks := make([]keyed, len(items))
	for i, it := range items {
		ks[i] = keyed{name: names[i], enc: encodeValue(it)}
	}
	return sortKeyed(ks)
}

// keyed is an encoded item with its primary name, for sortKeyed.
type keyed struct {
	name string
	enc  []byte
}

// sortKeyed sorts encoded items by name, then by their bytes, as
// sortByName does.
func sortKeyed(ks []keyed) jarr {
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return bytes.Compare(a.enc, b.enc)
	})
	out := make(jarr, len(ks))
	for i, k := range ks {
		out[i] = jraw(k.enc)
	}
	return out
}

// stableByKey sorts items by key, keeping the source order of items with
// the same key.
func stableByKey(items []value, keys []string) jarr {
	if len(items) < 2 {
		return jarr(items)
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	out := make(jarr, len(items))
	for i, k := range idx {
		out[i] = items[k]
	}
	return out
}

// sortedStrings returns the strings sorted, as a JSON array; when dedup is
// set, repeated strings appear once.
func sortedStrings(ss []string, dedup bool) jarr {
	s := append([]string(nil), ss...)
	sort.Strings(s)
	out := make(jarr, 0, len(s))
	for i, v := range s {
		if dedup && i > 0 && s[i-1] == v {
			continue
		}
		out = append(out, jstr(v))
	}
	return out
}
