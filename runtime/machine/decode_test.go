package machine

import (
	"encoding/json"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/value"
)

// decodeEvent is a test event with every kind of field the fast path
// decodes.
func decodeEvent(t testing.TB) *EventType {
	p, err := (&load.Loader{}).Load("testdata/decode.caps")
	if err != nil || p.Result.HasErrors() {
		t.Fatalf("load: %v %v", err, p.Result.Diagnostics)
	}
	m, err := Compile(p.Result, "D", Options{})
	if err != nil {
		t.Fatal(err)
	}
	et, _ := m.Event("E")
	return et
}

// checkSame fails when the fast path accepts raw but disagrees with
// value.FromJSON.
func checkSame(t *testing.T, et *EventType, raw []byte) {
	fast, ok := et.fastDecode(raw)
	if !ok {
		return
	}
	v, err := value.FromJSON(raw, et.Record)
	if err != nil {
		t.Fatalf("%s: the fast path accepts what FromJSON refuses: %v", raw, err)
	}
	for k, f := range v.Fields() {
		if got := fast[et.Fields[k].Name]; !value.Equal(got, f) {
			t.Fatalf("%s: field %s: fast %v, FromJSON %v", raw, et.Fields[k].Name, got, f)
		}
	}
}

func TestFastDecode(t *testing.T) {
	et := decodeEvent(t)
	accepted := []string{
		`{"a":1,"b":-2,"c":"3","d":"-4","e":true,"f":"x y","g":0}`,
		` { "g" : 0 , "f":"é","e":false,"d":-9223372036854775808,"c":18446744073709551615,"b":-2147483648,"a":4294967295 } `,
	}
	refused := []string{
		`{"a":1}`, `{"a":01,"b":0,"c":0,"d":0,"e":true,"f":"","g":0}`, `{"a":1.5,"b":0,"c":0,"d":0,"e":true,"f":"","g":0}`,
		`{"a":4294967296,"b":0,"c":0,"d":0,"e":true,"f":"","g":0}`, `{"a":-1,"b":0,"c":0,"d":0,"e":true,"f":"","g":0}`,
		`{"a":1,"b":0,"c":0,"d":0,"e":true,"f":"\n","g":0}`, `{"a":1,"b":0,"c":0,"d":0,"e":true,"f":"a\"","g":0}`,
		`{"a":1,"a":1,"b":0,"c":0,"d":0,"e":true,"f":"","g":0}`, `{"a":1,"b":0,"c":0,"d":0,"e":true,"f":"","g":0,"h":1}`,
		`{"a":1,"b":0,"c":0,"d":0,"e":true,"f":"","g":0}x`, `[1]`, `{"a":1e2,"b":0,"c":0,"d":0,"e":true,"f":"","g":0}`,
	}
	for _, raw := range accepted {
		if _, ok := et.fastDecode([]byte(raw)); !ok {
			t.Errorf("refused %s", raw)
		}
		checkSame(t, et, []byte(raw))
	}
	for _, raw := range refused {
		if _, ok := et.fastDecode([]byte(raw)); ok {
			t.Errorf("accepted %s", raw)
		}
	}
}

func FuzzFastDecode(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":-2,"c":"3","d":"-4","e":true,"f":"x y","g":0}`))
	f.Add([]byte(`{"g":0,"f":"é","e":false,"d":-9,"c":"18446744073709551615","b":-2,"a":42}`))
	et := decodeEvent(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			if _, ok := et.fastDecode(raw); ok {
				t.Fatalf("accepted invalid JSON %q", raw)
			}
			return
		}
		checkSame(t, et, raw)
	})
}
