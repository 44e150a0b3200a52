package capsule

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/capsule")

const (
	root    = "../.."
	example = root + "/examples/29_capsule_refund_reviewer.capsule.yaml"
)

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// at prints a diagnostic as "CODE L:C-L:C" (1-based, columns in
// characters).
func at(text []byte, d syntax.Diagnostic) string {
	r := syntax.NewMapper(text).Range(d.Span, syntax.UTF32)
	return fmt.Sprintf("%s %d:%d-%d:%d", d.Code, r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1)
}

// TestDiagnostics: every YAML error class and every rejected-by-design
// rule has a fixture, reported with its code at its range.
func TestDiagnostics(t *testing.T) {
	for _, tt := range []struct {
		file string
		want []string
	}{
		{"yaml-syntax", []string{"E_CAPSULE_YAML 3:10-3:11"}},
		{"unknown-key", []string{"E_CAPSULE_UNKNOWN_KEY 8:3-8:13"}},
		{"wrong-type", []string{"E_CAPSULE_TYPE 10:21-10:26", "E_CAPSULE_TYPE 13:13-13:23"}},
		{"missing-identity", []string{"E_CAPSULE_NO_IDENTITY 1:1-1:8"}},
		{"missing-effects", []string{"E_CAPSULE_NO_EFFECTS 8:1-8:8"}},
		{"missing-telemetry", []string{"E_CAPSULE_NO_TELEMETRY 1:1-1:8"}},
		{"missing-field", []string{"E_CAPSULE_MISSING_FIELD 1:1-1:8", "E_CAPSULE_MISSING_FIELD 5:3-5:5", "E_CAPSULE_MISSING_FIELD 11:3-11:22"}},
		{"bad-value", []string{"E_CAPSULE_VALUE 1:10-1:13", "E_CAPSULE_VALUE 2:9-2:21", "E_CAPSULE_VALUE 8:16-8:21", "E_CAPSULE_VALUE 13:18-13:24",
			"E_CAPSULE_VALUE 16:7-16:9", "E_CAPSULE_VALUE 16:23-16:24"}},
		{"ambient-credentials", []string{"E_CAPSULE_AMBIENT_CREDENTIALS 8:16-8:29", "E_CAPSULE_AMBIENT_CREDENTIALS 14:12-14:19", "E_CAPSULE_AMBIENT_CREDENTIALS 16:7-16:53"}},
		{"default-allow", []string{"E_CAPSULE_DEFAULT_ALLOW 13:12-13:17", "E_CAPSULE_DEFAULT_ALLOW 16:12-16:17"}},
		{"ungated-effect", []string{"E_CAPSULE_UNGATED_EFFECT 11:11-11:15"}},
		{"unbound-receipt", []string{"E_CAPSULE_UNBOUND_RECEIPT 9:5-9:11", "E_CAPSULE_UNBOUND_RECEIPT 13:14-13:22"}},
		{"untraced-decisions", []string{"E_CAPSULE_UNTRACED_DECISIONS 11:13-11:18"}},
		{"image-not-pinned", []string{"W_CAPSULE_IMAGE_NOT_PINNED 13:10-13:46"}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			text := read(t, filepath.Join(root, "testdata/capsule/errors", tt.file+".capsule.yaml"))
			c, diags := Check(text)
			var got []string
			for _, d := range diags {
				got = append(got, at(text, d))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if (c.IR != nil) != (tt.file == "image-not-pinned") {
				t.Error("a contract with errors has an IR, or one with only a warning has none")
			}
		})
	}
}

// TestEveryCodeHasAFixture: each code of the package is produced by one of
// the fixtures above.
func TestEveryCodeHasAFixture(t *testing.T) {
	seen := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(root, "testdata/capsule/errors/*.capsule.yaml"))
	for _, f := range files {
		_, diags := Check(read(t, f))
		for _, d := range diags {
			seen[d.Code] = true
		}
	}
	for _, c := range Codes {
		if !seen[c] {
			t.Errorf("no fixture under testdata/capsule/errors produces %s", c)
		}
	}
}

func TestMoreDiagnostics(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string
	}{
		{"empty file", "", []string{"E_CAPSULE_MISSING_FIELD 1:1-1:1", "E_CAPSULE_MISSING_FIELD 1:1-1:1", "E_CAPSULE_MISSING_FIELD 1:1-1:1",
			"E_CAPSULE_MISSING_FIELD 1:1-1:1", "E_CAPSULE_NO_IDENTITY 1:1-1:1", "E_CAPSULE_NO_EFFECTS 1:1-1:1", "E_CAPSULE_NO_TELEMETRY 1:1-1:1", "E_CAPSULE_MISSING_FIELD 1:1-1:1"}},
		{"a list at the top", "- a\n- b\n", []string{"E_CAPSULE_TYPE 1:1-1:2"}},
		{"two documents", "capsule: 0.1\n---\ncapsule: 0.1\n", []string{"E_CAPSULE_YAML 2:1-2:4"}},
		{"an alias", "a: &x 1\nb: *x\n", []string{"E_CAPSULE_YAML 1:4-1:5", "E_CAPSULE_YAML 2:4-2:5"}},
		{"duplicate key", "capsule: 0.1\ncapsule: 0.1\n", []string{"E_CAPSULE_YAML 2:1-2:8"}},
		{"two verbs", "effects:\n  - read: A.b\n    write: A.b\n", []string{"E_CAPSULE_VALUE 3:5-3:10"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Check([]byte(tt.src))
			var got []string
			for _, d := range diags {
				if tt.name == "two verbs" && d.Code != CodeValue {
					continue // the rest of the contract is missing
				}
				got = append(got, at([]byte(tt.src), d))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIRGolden: the example's normalized IR, byte for byte.
func TestIRGolden(t *testing.T) {
	c, diags := Check(read(t, example))
	if len(diags) > 0 {
		t.Fatalf("the example has diagnostics: %v", diags)
	}
	got := c.IR.Canonical()
	golden := filepath.Join(root, "testdata/capsule/refund_reviewer.capsule.json")
	if *update {
		os.WriteFile(golden, got, 0o644)
	}
	if diff := cmp.Diff(string(read(t, golden)), string(got)); diff != "" {
		t.Errorf("IR differs from %s (-want +got; go test ./analysis/capsule -update):\n%s", golden, diff)
	}
	back, err := ParseIR(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Canonical(), got) {
		t.Error("ParseIR(Canonical()) does not round-trip")
	}
	if _, err := ParseIR(bytes.Replace(got, []byte(`"max_amount_usd": 250`), []byte(`"max_amount_usd": 2500`), 1)); err == nil || !strings.Contains(err.Error(), "contract_hash is sha256:") {
		t.Errorf("an edited IR was accepted: %v", err)
	}
}

// TestIRCanonical: another spelling of the example (flow style, other key
// order, defaults written out, comments) has the same IR bytes and hash.
func TestIRCanonical(t *testing.T) {
	a, _ := Check(read(t, example))
	b, diags := Check(read(t, filepath.Join(root, "testdata/capsule/respelled.capsule.yaml")))
	if len(diags) > 0 || a.IR == nil || b.IR == nil {
		t.Fatalf("diagnostics: %v", diags)
	}
	if diff := cmp.Diff(string(a.IR.Canonical()), string(b.IR.Canonical())); diff != "" {
		t.Errorf("the respelled contract normalizes differently (-example +respelled):\n%s", diff)
	}
	if a.IR.Hash() != b.IR.Hash() || !strings.HasPrefix(a.IR.Hash(), "sha256:") || len(a.IR.Hash()) != 71 {
		t.Errorf("hashes %s and %s", a.IR.Hash(), b.IR.Hash())
	}
}
