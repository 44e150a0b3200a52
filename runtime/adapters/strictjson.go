package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONError is an error at a place in a JSON document: its JSON path
// ($.host.allow[0].effect) and its line and column (1-based; the column
// counts characters), when known.
type JSONError struct {
	Path      string
	Line, Col int
	Msg       string
}

func (e *JSONError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:%d: ", e.Line, e.Col)
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// jnode is a parsed JSON value with its place in the document.
type jnode struct {
	off     int    // offset of the value's first byte
	kind    byte   // '{', '[', '"', '0' (number), 't'/'f' (boolean), 'n' (null)
	raw     []byte // the value's bytes
	keys    []string
	keyOffs []int
	members []*jnode // object members (in order, beside keys) or array items
}

// decodeStrict decodes data into v, a pointer to a struct. Unlike
// encoding/json it reports every problem with the JSON path and the line
// and column of the value: malformed JSON, an unknown field, a field given
// twice, a missing field (a struct field whose tag has no omitempty), a
// value of the wrong type. The error is a *JSONError.
func decodeStrict(data []byte, v any) error {
	root, err := parseJSON(data)
	if err != nil {
		return err
	}
	if err := checkNode(data, root, reflect.TypeOf(v).Elem(), "$"); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers in untyped fields (limits) stay exact
	if err := dec.Decode(v); err != nil {
		return &JSONError{Path: "$", Msg: err.Error()}
	}
	return nil
}

// parseJSON parses one JSON value (and nothing after it) into a tree.
func parseJSON(data []byte) (*jnode, error) {
	var probe json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, syntaxError(data, int(se.Offset)-1, strings.TrimPrefix(se.Error(), "json: "))
		}
		return nil, &JSONError{Msg: "not valid JSON: " + err.Error()}
	}
	p := &jparser{data: data}
	return p.value(), nil
}

func syntaxError(data []byte, off int, msg string) *JSONError {
	line, col := lineCol(data, max(off, 0))
	return &JSONError{Line: line, Col: col, Msg: "not valid JSON: " + msg}
}

// lineCol returns the 1-based line and character column of a byte offset.
func lineCol(data []byte, off int) (int, int) {
	off = min(off, len(data))
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[start:]) + 1
}

// jparser builds the tree of a document already known to be valid JSON.
type jparser struct {
	data []byte
	pos  int
}

func (p *jparser) skip() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) value() *jnode {
	p.skip()
	n := &jnode{off: p.pos, kind: p.data[p.pos]}
	switch n.kind {
	case '{':
		p.pos++
		for {
			p.skip()
			if p.data[p.pos] == '}' {
				p.pos++
				break
			}
			if p.data[p.pos] == ',' {
				p.pos++
				p.skip()
			}
			keyOff := p.pos
			key := p.value()
			var k string
			json.Unmarshal(key.raw, &k)
			p.skip()
			p.pos++ // ':'
			n.keys = append(n.keys, k)
			n.keyOffs = append(n.keyOffs, keyOff)
			n.members = append(n.members, p.value())
		}
	case '[':
		p.pos++
		for {
			p.skip()
			if p.data[p.pos] == ']' {
				p.pos++
				break
			}
			if p.data[p.pos] == ',' {
				p.pos++
			}
			n.members = append(n.members, p.value())
		}
	case '"':
		p.pos++
		for p.data[p.pos] != '"' {
			if p.data[p.pos] == '\\' {
				p.pos++
			}
			p.pos++
		}
		p.pos++
	default:
		if n.kind == '-' || n.kind >= '0' && n.kind <= '9' {
			n.kind = '0'
		}
		for p.pos < len(p.data) && !strings.ContainsRune(" \t\n\r,]}", rune(p.data[p.pos])) {
			p.pos++
		}
	}
	n.raw = p.data[n.off:p.pos]
	return n
}

var (
	unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	rawMessageType  = reflect.TypeOf(json.RawMessage(nil))
)

// checkNode checks a value against the Go type it will be decoded into.
func checkNode(data []byte, n *jnode, t reflect.Type, path string) error {
	fail := func(format string, args ...any) error {
		line, col := lineCol(data, n.off)
		return &JSONError{Path: path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return nil
	}
	if t.Kind() == reflect.Pointer {
		if n.kind == 'n' {
			return nil
		}
		return checkNode(data, n, t.Elem(), path)
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(n.raw); err != nil {
			return fail("%v", err)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.kind != '{' {
			return fail("expected an object, found %s", describeNode(n))
		}
		return checkObject(data, n, t, path)
	case reflect.Map:
		if n.kind == 'n' {
			return nil
		}
		if n.kind != '{' {
			return fail("expected an object, found %s", describeNode(n))
		}
		seen := map[string]bool{}
		for i, k := range n.keys {
			if seen[k] {
				line, col := lineCol(data, n.keyOffs[i])
				return &JSONError{Path: childPath(path, k), Line: line, Col: col, Msg: "given twice"}
			}
			seen[k] = true
			if err := checkNode(data, n.members[i], t.Elem(), childPath(path, k)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.kind == 'n' {
			return nil
		}
		if n.kind != '[' {
			return fail("expected an array, found %s", describeNode(n))
		}
		for i, it := range n.members {
			if err := checkNode(data, it, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.String:
		if n.kind != '"' {
			return fail("expected a string, found %s", describeNode(n))
		}
	case reflect.Bool:
		if n.kind != 't' && n.kind != 'f' {
			return fail("expected true or false, found %s", describeNode(n))
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if n.kind != '0' {
			return fail("expected a whole number, found %s", describeNode(n))
		}
		if _, err := strconv.ParseInt(string(n.raw), 10, 64); err != nil {
			return fail("expected a whole number, found %s", n.raw)
		}
	case reflect.Float64:
		if n.kind != '0' {
			return fail("expected a number, found %s", describeNode(n))
		}
	}
	return nil
}

// checkObject checks an object against a struct: no unknown, repeated or
// missing fields.
func checkObject(data []byte, n *jnode, t reflect.Type, path string) error {
	fields := map[string]reflect.StructField{}
	var names, required []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = f
		names = append(names, name)
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	seen := map[string]bool{}
	for i, k := range n.keys {
		line, col := lineCol(data, n.keyOffs[i])
		f, ok := fields[k]
		switch {
		case !ok:
			return &JSONError{Path: childPath(path, k), Line: line, Col: col,
				Msg: fmt.Sprintf("unknown field %q; the fields here are %s", k, strings.Join(names, ", "))}
		case seen[k]:
			return &JSONError{Path: childPath(path, k), Line: line, Col: col, Msg: "given twice"}
		}
		seen[k] = true
		if err := checkNode(data, n.members[i], f.Type, childPath(path, k)); err != nil {
			return err
		}
	}
	var missing []string
	for _, r := range required {
		if !seen[r] {
			missing = append(missing, strconv.Quote(r))
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		line, col := lineCol(data, n.off)
		word := "field"
		if len(missing) > 1 {
			word = "fields"
		}
		return &JSONError{Path: path, Line: line, Col: col, Msg: fmt.Sprintf("missing %s %s", word, strings.Join(missing, ", "))}
	}
	return nil
}

// childPath appends an object key to a JSON path: .key for plain names,
// ["key"] otherwise.
func childPath(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func describeNode(n *jnode) string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	}
	return "null"
}
