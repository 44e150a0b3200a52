package machine

import (
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/google/go-cmp/cmp"
)

const fillSrc = `(module fill
  (capsule "1.0")
  (type Level (enum low high))
  (machine M
    (context (n U64))
    (event E (id U64) (score U32) (note Text) (ok Bool) (level Level) (tags (List Text)) (at Timestamp))
    (event Bare)
    (initial s)
    (state s (on E (target s)) (on Bare (target s)))))
`

func TestFillMissing(t *testing.T) {
	f, err := ast.Parse([]byte(fillSrc))
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check(f, check.Options{Path: "fill.caps"})
	if res.HasErrors() {
		t.Fatalf("%v", res.Diagnostics)
	}
	m, err := Compile(res, "M", Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		event, raw string
		want       string
		defaulted  []string
	}{
		// Every field with a zero value is filled, in declaration order;
		// Timestamp has none and stays missing.
		{"E", "", `{"id":"0","score":0,"note":"","ok":false,"level":"low","tags":[]}`, []string{"id", "score", "note", "ok", "level", "tags"}},
		{"E", "null", `{"id":"0","score":0,"note":"","ok":false,"level":"low","tags":[]}`, []string{"id", "score", "note", "ok", "level", "tags"}},
		{"E", ` { "score" : 7 } `, `{"score" : 7,"id":"0","note":"","ok":false,"level":"low","tags":[]}`, []string{"id", "note", "ok", "level", "tags"}},
		// Given fields are never touched, even ill-typed ones.
		{"E", `{"id":"x","score":1,"note":"n","ok":true,"level":"high","tags":["a"],"at":"2026-01-01T00:00:00Z"}`,
			`{"id":"x","score":1,"note":"n","ok":true,"level":"high","tags":["a"],"at":"2026-01-01T00:00:00Z"}`, nil},
		// Not an object, an unknown event, an event without fields: unchanged.
		{"E", `[1]`, `[1]`, nil},
		{"E", `{bad`, `{bad`, nil},
		{"Nope", `{}`, `{}`, nil},
		{"Bare", ``, ``, nil},
	}
	for _, tt := range tests {
		got, defaulted := m.FillMissing(tt.event, []byte(tt.raw))
		if string(got) != tt.want || !cmp.Equal(defaulted, tt.defaulted) {
			t.Errorf("FillMissing(%s, %s) = %s %q, want %s %q", tt.event, tt.raw, got, defaulted, tt.want, tt.defaulted)
		}
	}
}
