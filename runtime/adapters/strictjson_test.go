package adapters

import (
	"bytes"
	"encoding/json"
	"testing"
)

// compactTree rebuilds compact JSON from a parsed tree.
func compactTree(n *jnode, b *bytes.Buffer) {
	switch n.kind {
	case '{':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			compactTree(n.members[i], b)
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			compactTree(m, b)
		}
		b.WriteByte(']')
	case '"':
		var s string
		json.Unmarshal(n.raw, &s)
		sb, _ := json.Marshal(s)
		b.Write(sb)
	default:
		b.Write(n.raw)
	}
}

// FuzzParseJSON: the tree of any valid document holds exactly its values
// (as json.Unmarshal reads them); an invalid one is an error, never a
// panic.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a": [1, -2.5e3, true, false, null], "b\"c": {"d": "\u00e9\n"}}`,
		" \n{ \"k\" :\t[ [ ] , { } ] }\r\n", `"x"`, `0`, `{"a":1,"a":2}`, `[1,]`, `{"a" 1}`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := parseJSON(data)
		valid := json.Valid(data)
		if valid != (err == nil) {
			t.Fatalf("%q: valid %v, error %v", data, valid, err)
		}
		if !valid {
			return
		}
		var got bytes.Buffer
		compactTree(n, &got)
		ab, bb := normalJSON(got.Bytes()), normalJSON(data)
		if !bytes.Equal(ab, bb) {
			t.Errorf("%q: tree %s", data, got.Bytes())
		}
	})
}

// normalJSON re-encodes a valid document with its numbers as written.
func normalJSON(data []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	dec.Decode(&v)
	b, _ := json.Marshal(v)
	return b
}

func TestLineCol(t *testing.T) {
	data := []byte("{\n  \"é\": x\n}")
	for _, tt := range []struct{ off, line, col int }{{0, 1, 1}, {2, 2, 1}, {4, 2, 3}, {9, 2, 7}, {100, 3, 2}} {
		if l, c := lineCol(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("offset %d: %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}
