package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestResultSchema validates results against ResultSchema with a real
// draft 2020-12 validator: the extra fields are required of every file
// of an ok result, optional when the run failed, and nothing else may
// appear.
func TestResultSchema(t *testing.T) {
	type extra struct {
		Hash string `json:"semantic_hash"`
		Note string `json:"note,omitempty"`
	}
	b, _ := json.Marshal(ResultSchema(extra{}))
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///r.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///r.json")
	if err != nil {
		t.Fatal(err)
	}
	diag := `{"code":"E_PARSE","severity":"error","message":"m","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"related":[]}`
	for _, tt := range []struct {
		doc string
		ok  bool
	}{
		{`{"ok":true,"files":[{"path":"a.caps","diagnostics":[],"semantic_hash":"sha256:x"}]}`, true},
		{`{"ok":true,"files":[{"path":"a.caps","diagnostics":[],"semantic_hash":"sha256:x","note":"n"}]}`, true},
		{`{"ok":true,"files":[{"path":"a.caps","diagnostics":[]}]}`, false},
		{`{"ok":false,"files":[{"path":"a.caps","diagnostics":[` + diag + `]}]}`, true},
		{`{"ok":false,"files":[{"path":"a.caps","error":"no such file","diagnostics":[]}]}`, true},
		{`{"ok":true,"files":[{"path":"a.caps","diagnostics":[],"semantic_hash":"sha256:x","other":1}]}`, false},
		{`{"ok":true,"files":[{"path":"a.caps","diagnostics":[{"code":"E"}],"semantic_hash":"sha256:x"}]}`, false},
		{`{"ok":true}`, false},
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); (err == nil) != tt.ok {
			t.Errorf("%s: valid %v, want %v (%v)", tt.doc, err == nil, tt.ok, err)
		}
	}
}
