package protocol_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/codegen/internal/testutil"
	"github.com/capsulang/caps/codegen/protocol"
)

// typesSrc has a surface whose state uses every kind of type, and a
// bound surface without state.
const typesSrc = `(module shelf
  (capsule "1")
  (profile ui.a2ui)
  (type Size (enum small large))
  (type Book (record (title Text) (pages U32)))
  (surface shelf_ui
    (protocol a2ui "v0.9")
    (state
      (count U32)
      (total U64)
      (delta I32)
      (size Size)
      (book Book)
      (tags (List Text))
      (note (Option Text))
      (extra Json)
      (wait Duration)))
  (surface lamp_ui
    (bind Lamp)
    (event Toggle))
  (machine Lamp
    (context (on Bool))
    (event Toggle)
    (initial lit)
    (state off (on Toggle (target lit) (assign (on true))))
    (state lit (on Toggle (target off) (assign (on false))))))
`

func TestEnvelopeData(t *testing.T) {
	pkg := testutil.LoadSource(t, typesSrc)
	for _, tc := range []struct {
		name, surface, data string
		want                string // the value, or the error code and message
	}{
		{"every type", "shelf_ui", `{"extra":{"b":1,"a":[true]},"count":3,"total":18446744073709551615,"delta":-4,"size":"large","book":{"title":"Dune","pages":412},"tags":["sf"],"note":null,"wait":"90s"}`,
			`{"count":3,"total":"18446744073709551615","delta":-4,"size":"large","book":{"title":"Dune","pages":412},"tags":["sf"],"note":null,"extra":{"a":[true],"b":1},"wait":"90s"}`},
		{"subset in model order", "shelf_ui", `{"note":"hi","count":"7"}`, `{"count":7,"note":"hi"}`},
		{"empty object", "shelf_ui", `{}`, `{}`},
		{"U32 out of range", "shelf_ui", `{"count":4294967296}`, "E_SURFACE_DATA_TYPE: field `count` of surface shelf_ui: 4294967296 does not fit in U32 (0 to 4294967295)"},
		{"negative U64", "shelf_ui", `{"total":-1}`, "E_SURFACE_DATA_TYPE: field `total` of surface shelf_ui: -1 does not fit in U64 (0 to 18446744073709551615)"},
		{"enum member", "shelf_ui", `{"size":"huge"}`, "E_SURFACE_DATA_TYPE: field `size` of surface shelf_ui: enum Size has no member \"huge\" (members: small, large)"},
		{"record field", "shelf_ui", `{"book":{"title":"Dune"}}`, "E_SURFACE_DATA_TYPE: field `book` of surface shelf_ui: record Book needs field \"pages\""},
		{"list element", "shelf_ui", `{"tags":["a",2]}`, "E_SURFACE_DATA_TYPE: field `tags` of surface shelf_ui: [1]: expected Text, found the number 2"},
		{"unknown field", "shelf_ui", `{"counts":1}`, "E_SURFACE_DATA_FIELD: surface shelf_ui has no data model field `counts`; did you mean `count`?"},
		{"unknown field, no suggestion", "shelf_ui", `{"zzzzzz":1}`, "E_SURFACE_DATA_FIELD: surface shelf_ui has no data model field `zzzzzz`; its fields are count, total, delta, size, book, tags, note, extra, wait"},
		{"array", "shelf_ui", `[]`, "E_SURFACE_DATA_NOT_OBJECT: the data for surface shelf_ui is not a JSON object but []; give an object of its data model's fields, such as {\"field\": value}"},
		{"bound context", "lamp_ui", `{"state":"lit","on":true}`, `{"on":true,"state":"lit"}`},
		{"bound state", "lamp_ui", `{"state":"dim"}`, "E_SURFACE_DATA_TYPE: field `state` of surface lamp_ui is the state of machine Lamp (one of off, lit); --data gives \"dim\""},
		{"unknown surface", "lamp_u", `{}`, "E_SURFACE_NOT_FOUND: module shelf has no surface `lamp_u`; did you mean `lamp_ui`?"},
		{"unknown surface, far", "zzzzzzzz", `{}`, "E_SURFACE_NOT_FOUND: module shelf has no surface `zzzzzzzz`; its surfaces are shelf_ui, lamp_ui"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := protocol.Envelope(pkg.Result, tc.surface, "data", []byte(tc.data))
			var got string
			var pe *protocol.Error
			switch {
			case errors.As(err, &pe):
				got = pe.Code + ": " + pe.Message
			case err != nil:
				t.Fatal(err)
			default:
				if len(msgs) != 1 || msgs[0].UpdateDataModel == nil || msgs[0].UpdateDataModel.Path != "/" || msgs[0].Version != "v0.9" {
					t.Fatalf("%+v", msgs)
				}
				got = string(msgs[0].UpdateDataModel.Value)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultDataAndSchema(t *testing.T) {
	pkg := testutil.LoadSource(t, typesSrc)
	msgs, err := protocol.Envelope(pkg.Result, "shelf_ui", "data", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"count":0,"total":"0","delta":0,"size":"small","book":{"title":"","pages":0},"tags":[],"note":null,"extra":null,"wait":"0ms"}`
	if got := string(msgs[0].UpdateDataModel.Value); got != want {
		t.Errorf("default data model:\n got %s\nwant %s", got, want)
	}
	// The default data model of a bound surface is the machine's zero
	// context, and its initial state.
	msgs, _ = protocol.Envelope(pkg.Result, "lamp_ui", "data", nil)
	if got := string(msgs[0].UpdateDataModel.Value); got != `{"on":false,"state":"lit"}` {
		t.Errorf("bound default: %s", got)
	}
	man := protocol.BuildManifest(pkg.Result, "h")
	b, _ := json.Marshal(man.Surfaces[0].DataModel.Properties)
	wantSchema := `{"book":{"type":"object","properties":{"pages":{"type":"integer","minimum":0,"maximum":4294967295},"title":{"type":"string"}},"required":["title","pages"],"additionalProperties":false,"x-capsulang-type":"Book"},` +
		`"count":{"type":"integer","minimum":0,"maximum":4294967295,"x-capsulang-type":"U32"},"delta":{"type":"integer","minimum":-2147483648,"maximum":2147483647,"x-capsulang-type":"I32"},` +
		`"extra":{"x-capsulang-type":"Json"},"note":{"anyOf":[{"type":"null"},{"type":"string"}],"x-capsulang-type":"(Option Text)"},"size":{"type":"string","enum":["small","large"],"x-capsulang-type":"Size"},` +
		`"tags":{"type":"array","items":{"type":"string"},"x-capsulang-type":"(List Text)"},"total":{"type":"string","pattern":"^[0-9]+$","x-capsulang-type":"U64"},"wait":{"type":"string","pattern":"^[0-9]+(ms|s|m|h|d)$","x-capsulang-type":"Duration"}}`
	if diff := cmp.Diff(wantSchema, string(b)); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
	// every default value is accepted back as --data
	msgs, _ = protocol.Envelope(pkg.Result, "shelf_ui", "data", nil)
	if again, err := protocol.Envelope(pkg.Result, "shelf_ui", "data", msgs[0].UpdateDataModel.Value); err != nil || string(again[0].UpdateDataModel.Value) != want {
		t.Errorf("the default data model is not accepted back unchanged: %v", err)
	}
}

func TestEnvelopeKinds(t *testing.T) {
	pkg := testutil.LoadSource(t, typesSrc)
	for _, kind := range protocol.Kinds {
		msgs, err := protocol.Envelope(pkg.Result, "lamp_ui", kind, nil)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		var keys []string
		for _, m := range msgs {
			b, _ := json.Marshal(m)
			var obj map[string]json.RawMessage
			_ = json.Unmarshal(b, &obj)
			for k := range obj {
				if k != "version" {
					keys = append(keys, k)
				}
			}
		}
		want := map[string]string{"create": "createSurface", "components": "updateComponents", "data": "updateDataModel", "delete": "deleteSurface", "stream": "createSurface updateComponents updateDataModel"}[kind]
		if got := strings.Join(keys, " "); got != want {
			t.Errorf("%s: %s, want %s", kind, got, want)
		}
	}
	if _, err := protocol.Envelope(pkg.Result, "lamp_ui", "create", []byte(`{}`)); err == nil {
		t.Error("--data with create is accepted")
	}
}

// TestComponentIDsUnique: ids derived from names that clash (state field
// x_label next to x, action a_b's input c next to action a's input b_c)
// stay unique, and every child named exists.
func TestComponentIDsUnique(t *testing.T) {
	pkg := testutil.LoadSource(t, `(module clash
  (capsule "1")
  (profile ui.a2ui)
  (surface s
    (state (x Text) (x_label Text) (x_label_value U32))
    (action a (input (b_c Text)))
    (action a_b (input (c Text)))))
`)
	msgs, err := protocol.Envelope(pkg.Result, "s", "components", nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	cs := msgs[0].UpdateComponents.Components
	for _, c := range cs {
		if ids[c.ID] {
			t.Errorf("id %s is used twice", c.ID)
		}
		ids[c.ID] = true
	}
	for _, c := range cs {
		for _, ch := range append(append([]string{}, c.Children...), c.Child) {
			if ch != "" && !ids[ch] {
				t.Errorf("%s names child %s, which does not exist", c.ID, ch)
			}
		}
	}
	if len(cs) != 22 {
		t.Errorf("%d components, want 22", len(cs))
	}
}
