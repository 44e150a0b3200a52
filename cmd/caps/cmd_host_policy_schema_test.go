package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaFile is the published JSON Schema of the artifact.
const schemaFile = "docs/schemas/host-policy.v1.schema.json"

// compileSchema compiles the published schema with a real JSON Schema
// (draft 2020-12) validator.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(schemaFile)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	return sch
}

// TestHostPolicySchema validates the artifacts of every shipped example and
// of the spec's refund reviewer against the published schema.
func TestHostPolicySchema(t *testing.T) {
	repoRoot(t)
	sch := compileSchema(t)
	var files []string
	all, _ := filepath.Glob("examples/*.caps")
	for _, f := range all {
		if !strings.Contains(filepath.Base(f), "_bad_") { // negative examples do not check
			files = append(files, f)
		}
	}
	files = append(files, refundReviewer, "runtime/adapters/testdata/enclosed.caps")
	if len(files) < 8 {
		t.Fatalf("only %d modules: %v", len(files), files)
	}
	for _, f := range files {
		got := runCaps(t, "", "host-policy", "--json", f)
		if got.code != 0 {
			t.Errorf("%s: %+v", f, got)
			continue
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(got.stdout))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("the artifact of %s does not validate against %s:\n%v", f, schemaFile, err)
		}
	}
	// A host section with bindings, as a host writes it.
	dir := t.TempDir()
	host := filepath.Join(dir, "host.json")
	os.WriteFile(host, []byte(`{"allow": [{"effect": "mcp.call", "target": "GateCapsule.*"}], "deny": [{"effect": "*", "target": "RefundAPI.*"}],
		"mcp": {"GateCapsule": {"command": ["doorkeeper", "--stdio"], "env": {"TOKEN": "${DOORKEEPER_TOKEN}"}, "dir": "/srv"}}, "timeout": 15000}`), 0o644)
	got := runCaps(t, "", "host-policy", "--json", "--host", host, refundReviewer)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(got.stdout))
	if err != nil {
		t.Fatalf("%+v %v", got, err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the artifact with bindings does not validate:\n%v", err)
	}
	// The shipped artifact with MCP (and resources), A2A, A2UI and store
	// bindings, which live mode loads.
	const live = "testdata/live/change_approval.host-policy.json"
	data, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	if inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s does not validate:\n%v", live, err)
	}
	for _, bad := range []struct{ field, binding, want string }{
		{"a2a", `{"security_reviewer": {"url": "https://x.test", "token": "t"}}`, "'token'"},
		{"stores", `{"operational": {"dir": ""}}`, "/host/stores/operational/dir"},
		{"a2ui", `{"change_status": {"url": "file:///tmp/x"}}`, "/host/a2ui/change_status/url"},
	} {
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		dec.Decode(&doc)
		var b any
		json.Unmarshal([]byte(bad.binding), &b)
		doc["host"].(map[string]any)[bad.field] = b
		if err := sch.Validate(doc); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s %s: %v, want an error about %s", bad.field, bad.binding, err, bad.want)
		}
	}
	if got := runCaps(t, "", "host-policy", "--host", live, "testdata/live/change_approval.caps"); got.code != 0 ||
		!strings.Contains(got.stdout, "\nhost: 10 allow rules, 0 deny rules, 1 MCP binding, 0 HTTP bindings, 1 A2A binding, 3 A2UI bindings, 1 store binding, timeout 30s\n") {
		t.Errorf("host-policy --host %s: %+v", live, got)
	}
}

// TestHostPolicySchemaRejects: broken artifacts fail validation with the
// schema's specific errors.
func TestHostPolicySchemaRejects(t *testing.T) {
	repoRoot(t)
	sch := compileSchema(t)
	good := runCaps(t, "", "host-policy", "--json", refundReviewer).stdout
	tests := []struct {
		name string
		edit func(doc map[string]any)
		want []string
	}{
		{"unknown field in a capability", func(doc map[string]any) {
			capability(doc, 0)["colour"] = "red"
		}, []string{"at '/authority/capabilities/0': additional properties 'colour' not allowed"}},
		{"absent clause omitted instead of null", func(doc map[string]any) {
			delete(capability(doc, 1), "risk")
		}, []string{"at '/authority/capabilities/1': missing property 'risk'"}},
		{"empty list instead of null", func(doc map[string]any) {
			capability(doc, 0)["extra_targets"] = []any{}
		}, []string{"at '/authority/capabilities/0/extra_targets': minItems: got 0, want 1"}},
		{"duration not as written", func(doc map[string]any) {
			capability(doc, 0)["valid_for"] = "ten minutes"
		}, []string{"at '/authority/capabilities/0/valid_for': 'ten minutes' does not match pattern '^[0-9]+(ms|s|m|h|d)$'"}},
		{"wrong version", func(doc map[string]any) { doc["version"] = 2 }, []string{"at '/version': value must be 1"}},
		{"bad hash", func(doc map[string]any) { doc["semantic_hash"] = "sha1:abc" },
			[]string{"at '/semantic_hash': 'sha1:abc' does not match pattern '^sha256:[0-9a-f]{64}$'"}},
		{"file URL", func(doc map[string]any) {
			doc["host"].(map[string]any)["http"] = map[string]any{"GateCapsule": map[string]any{"url": "file:///etc/passwd"}}
		}, []string{`at '/host/http/GateCapsule/url': 'file:///etc/passwd' does not match pattern '^https?://[^/*?\\[]+'`}},
		{"MCP binding without command", func(doc map[string]any) {
			doc["host"].(map[string]any)["mcp"] = map[string]any{"GateCapsule": map[string]any{"command": []any{}}}
		}, []string{"at '/host/mcp/GateCapsule/command': minItems: got 0, want 1"}},
		{"host field missing", func(doc map[string]any) { delete(doc["host"].(map[string]any), "deny") },
			[]string{"at '/host': missing property 'deny'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal([]byte(good), &doc); err != nil {
				t.Fatal(err)
			}
			tt.edit(doc)
			b, _ := json.Marshal(doc)
			inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			err := sch.Validate(inst)
			ve, ok := err.(*jsonschema.ValidationError)
			if !ok {
				t.Fatalf("validated: %v", err)
			}
			if diff := cmp.Diff(tt.want, leafErrors(ve)); diff != "" {
				t.Errorf("(-want +got):\n%s\nfull error:\n%v", diff, err)
			}
		})
	}
}

func capability(doc map[string]any, i int) map[string]any {
	return doc["authority"].(map[string]any)["capabilities"].([]any)[i].(map[string]any)
}

// leafErrors lists the innermost causes of a validation error, sorted.
func leafErrors(e *jsonschema.ValidationError) []string {
	if len(e.Causes) == 0 {
		return []string{e.Error()}
	}
	var out []string
	for _, c := range e.Causes {
		out = append(out, leafErrors(c)...)
	}
	sort.Strings(out)
	return out
}
