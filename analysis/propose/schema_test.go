package propose

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/capsulang/caps/docs/schemas"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/google/go-cmp/cmp"
)

// TestDeltaSchemaProblems: a delta that does not validate is refused with
// the instance and schema paths of each problem.
func TestDeltaSchemaProblems(t *testing.T) {
	for _, tc := range []struct {
		name, delta string
		want        []SchemaProblem
	}{
		{"unknown kind", `{"declarations": [{"kind": "funktion", "name": "x", "source": "(funktion x)"}]}`,
			[]SchemaProblem{{"/declarations/0/kind", "/$defs/declaration/properties/kind/enum", "value must be one of 'type', 'function', 'machine', 'store', 'surface', 'port', 'agent', 'contract', 'lineage', 'objective', 'eval-suite', 'successor-contract', 'budget', 'gate', 'deployment-policy', 'improvement-record', 'verification-hook', 'principal', 'mandate', 'delegation', 'capability', 'authority-policy', 'trust-boundary', 'telemetry-obligation', 'memory-policy', 'zk-proof', 'acceptance'"}}},
		{"symbol with a space", `{"declarations": [{"kind": "function", "name": "x", "clauses": [["body", "a b"]]}]}`,
			[]SchemaProblem{{"/declarations/0/clauses/0/1", "/$defs/atom/pattern", `'a b' does not match pattern '^[^\\s()";]+$'`}}},
		{"neither source nor clauses", `{"declarations": [{"kind": "function", "name": "x"}]}`,
			[]SchemaProblem{{"/declarations/0", "/$defs/declaration/oneOf", `give exactly one of "source" and "clauses"`}}},
		{"both source and clauses", `{"declarations": [{"kind": "function", "name": "x", "source": "(function x)", "clauses": [["body", "a"]]}]}`,
			[]SchemaProblem{{"/declarations/0", "/$defs/declaration/oneOf", `give exactly one of "source" and "clauses"`}}},
		{"unknown field", `{"extra": 1}`,
			[]SchemaProblem{{"", "/additionalProperties", "additional properties 'extra' not allowed"}}},
		{"not an object", `[1]`,
			[]SchemaProblem{{"", "/type", "got array, want object"}}},
		{"list as string", `{"requirements": "x"}`,
			[]SchemaProblem{{"/requirements", "/$defs/notes/type", "got string, want array"}}},
		{"clause without key", `{"declarations": [{"kind": "function", "name": "x", "clauses": [[{"text": "a"}]]}]}`,
			[]SchemaProblem{{"/declarations/0/clauses/0/0", "/$defs/atom/type", "got object, want string"}}},
		{"bad text object", `{"declarations": [{"kind": "function", "name": "x", "clauses": [["body", {"txt": "a"}]]}]}`,
			[]SchemaProblem{
				{"/declarations/0/clauses/0/1", "/$defs/text/required", "missing property 'text'"},
				{"/declarations/0/clauses/0/1", "/$defs/text/additionalProperties", "additional properties 'txt' not allowed"},
			}},
		{"bad module name", `{"module": "a (b)"}`,
			[]SchemaProblem{{"/module", "/$defs/atom/pattern", `'a (b)' does not match pattern '^[^\\s()";]+$'`}}},
		{"empty requirement", `{"requirements": [""]}`,
			[]SchemaProblem{{"/requirements/0", "/$defs/notes/items/minLength", "minLength: got 0, want 1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDelta([]byte(tc.delta))
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *SchemaError", err)
			}
			if diff := cmp.Diff(tc.want, se.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(err.Error(), "authoring delta does not validate against docs/schemas/authoring-delta.v1.schema.json\n  at ") {
				t.Errorf("message: %s", err)
			}
		})
	}
	// Not JSON at all.
	if _, err := ParseDelta([]byte(`{"module": `)); err == nil || !strings.HasPrefix(err.Error(), "authoring delta: not JSON: ") {
		t.Errorf("truncated JSON: %v", err)
	}
	// A valid delta validates.
	if err := ValidateDeltaSchema([]byte(`{"module": "a.b", "declarations": [{"kind": "function", "name": "one", "clauses": [["output", "U32"], ["body", 1], ["example", ["one"], 1]]}]}`)); err != nil {
		t.Errorf("valid delta: %v", err)
	}
}

// TestDeltaSchemaInSync keeps the published schema in step with the Go
// types: the same properties (by JSON name) at the top and in a
// declaration, the declaration kinds of the language, and the embedded
// bytes equal to the file in docs/schemas.
func TestDeltaSchemaInSync(t *testing.T) {
	file, err := os.ReadFile("../../" + DeltaSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(file) != string(schemas.AuthoringDelta) {
		t.Fatal("the embedded schema differs from the file")
	}
	var sch struct {
		Schema     string                     `json:"$schema"`
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       struct {
			Declaration struct {
				Required   []string `json:"required"`
				Properties map[string]json.RawMessage
			} `json:"declaration"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(file, &sch); err != nil {
		t.Fatal(err)
	}
	if sch.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema %q", sch.Schema)
	}
	if diff := cmp.Diff(jsonFields(reflect.TypeFor[AuthoringDelta]()), keysOf(sch.Properties)); diff != "" {
		t.Errorf("AuthoringDelta fields (-Go +schema):\n%s", diff)
	}
	if diff := cmp.Diff(jsonFields(reflect.TypeFor[DeltaDecl]()), keysOf(sch.Defs.Declaration.Properties)); diff != "" {
		t.Errorf("DeltaDecl fields (-Go +schema):\n%s", diff)
	}
	var kinds struct {
		Enum []string `json:"enum"`
	}
	json.Unmarshal(sch.Defs.Declaration.Properties["kind"], &kinds)
	var want []string
	for _, k := range ast.DeclKinds {
		want = append(want, string(k))
	}
	if diff := cmp.Diff(want, kinds.Enum); diff != "" {
		t.Errorf("declaration kinds (-language +schema):\n%s", diff)
	}
}

// jsonFields lists a struct's JSON field names, sorted.
func jsonFields(typ reflect.Type) []string {
	var out []string
	for i := 0; i < typ.NumField(); i++ {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func keysOf(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
