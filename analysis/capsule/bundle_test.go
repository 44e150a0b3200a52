package capsule

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func compileExample(t *testing.T) *Bundle {
	t.Helper()
	c, diags := Check(read(t, example))
	if c.IR == nil {
		t.Fatalf("diagnostics: %v", diags)
	}
	b, err := Compile(c.IR)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeExample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bundle")
	if err := compileExample(t).Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBundleArtifacts(t *testing.T) {
	b := compileExample(t)
	var got []string
	for _, a := range b.Artifacts {
		got = append(got, a.Kind+" "+a.Path)
		if a.SHA256 != Digest(a.Data) || a.Bytes != len(a.Data) {
			t.Errorf("%s: digest or size does not match its data", a.Path)
		}
	}
	want := []string{
		"contract-ir claims-refund-reviewer.capsule.json", "edl claims-refund-reviewer.edl.json", "module claims-refund-reviewer.caps",
		"probe-module claims-refund-reviewer.bypass-probe.caps",
		"docker-compose docker-compose.yaml", "seatbelt seatbelt.sb", "doorkeeper-policy doorkeeper-policy.json",
		"telemetry-plan telemetry-plan.json", "receipt-plan receipt-plan.json",
		"negative-test tests/negative-01-effect-outside-mandate.json", "negative-test tests/negative-02-amount-above-limit.json",
		"negative-test tests/negative-03-protected-without-gate.json", "negative-test tests/negative-04-missing-receipt.json",
		"scenario tests/positive-01-allowed-path.json", "attestation attestation.json",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("artifacts (-want +got):\n%s", diff)
	}
	// The attestation lists every other artifact with its digest.
	var att Attestation
	if err := json.Unmarshal(b.Artifacts[len(b.Artifacts)-1].Data, &att); err != nil {
		t.Fatal(err)
	}
	if len(att.Artifacts) != len(b.Artifacts)-1 || att.Digest != att.digest() || att.SemanticHash == "" {
		t.Errorf("attestation: %d artifacts, digest %s, semantic hash %q", len(att.Artifacts), att.Digest, att.SemanticHash)
	}
	for _, a := range att.Artifacts {
		for _, x := range b.Artifacts {
			if x.Path == a.Path && x.SHA256 != a.SHA256 {
				t.Errorf("%s: the attestation records %s, the artifact is %s", a.Path, a.SHA256, x.SHA256)
			}
		}
	}
	// Compiling twice gives the same bytes.
	again := compileExample(t)
	for i, a := range again.Artifacts {
		if !bytes.Equal(a.Data, b.Artifacts[i].Data) {
			t.Errorf("%s differs between two compilations", a.Path)
		}
	}
}

// TestVerifyNamesTheChangedFile: a bundle verifies; changing any one byte
// of any artifact makes it fail and names that file first.
func TestVerifyNamesTheChangedFile(t *testing.T) {
	dir := writeExample(t)
	if problems, _, err := Verify(dir); err != nil || len(problems) > 0 {
		t.Fatalf("a fresh bundle does not verify: %v %v", problems, err)
	}
	for _, a := range compileExample(t).Artifacts {
		for _, at := range []int{0, a.Bytes / 2, a.Bytes - 1} {
			p := filepath.Join(dir, filepath.FromSlash(a.Path))
			orig := read(t, p)
			changed := append([]byte{}, orig...)
			changed[at] ^= 0x01
			os.WriteFile(p, changed, 0o644)
			problems, _, err := Verify(dir)
			os.WriteFile(p, orig, 0o644)
			if err != nil || len(problems) == 0 {
				t.Errorf("%s with byte %d changed: verifies (%v)", a.Path, at, err)
				continue
			}
			if problems[0].Path != a.Path {
				t.Errorf("%s with byte %d changed: the first problem is about %s: %s", a.Path, at, problems[0].Path, problems[0].Message)
			}
		}
	}
	if problems, _, _ := Verify(dir); len(problems) > 0 {
		t.Fatalf("restored bundle: %v", problems)
	}
}

func TestVerifyProblems(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(dir string)
		want   []Problem
	}{
		{"extra file", func(dir string) { os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644) },
			[]Problem{{"notes.txt", "not listed in the attestation: remove it or compile the bundle again"}}},
		{"missing file", func(dir string) { os.Remove(filepath.Join(dir, "seatbelt.sb")) },
			[]Problem{{"seatbelt.sb", "missing: the attestation lists it"}}},
		{"no attestation", func(dir string) { os.Remove(filepath.Join(dir, AttestationFile)) },
			[]Problem{{AttestationFile, "missing: this is not a capsule bundle (compile one with caps capsule-compile FILE --out-dir DIR)"}}},
		{"artifact and digests changed together", func(dir string) {
			// Someone widens the limit in the module and updates the
			// attestation consistently: only recompiling the IR finds it.
			p := filepath.Join(dir, "claims-refund-reviewer.caps")
			mod := bytes.ReplaceAll(read(t, p), []byte("amount_usd > 250"), []byte("amount_usd > 900"))
			os.WriteFile(p, mod, 0o644)
			var att Attestation
			json.Unmarshal(read(t, filepath.Join(dir, AttestationFile)), &att)
			for _, a := range att.Artifacts {
				if a.Path == "claims-refund-reviewer.caps" {
					a.SHA256, a.Bytes = Digest(mod), len(mod)
				}
			}
			att.Digest = att.digest()
			os.WriteFile(filepath.Join(dir, AttestationFile), indent(&att), 0o644)
		}, []Problem{{"claims-refund-reviewer.caps", "differs from what the bundled contract IR compiles to (the file and its digest were both changed)"}}},
		{"a listed path outside the bundle", func(dir string) {
			var att Attestation
			json.Unmarshal(read(t, filepath.Join(dir, AttestationFile)), &att)
			att.Artifacts[0].Path = "../outside.json"
			att.Digest = att.digest()
			os.WriteFile(filepath.Join(dir, AttestationFile), indent(&att), 0o644)
		}, []Problem{{AttestationFile, `lists "../outside.json", which is not a file of the bundle`},
			{"claims-refund-reviewer.bypass-probe.caps", "not listed in the attestation: remove it or compile the bundle again"}}},
		{"no contract IR listed", func(dir string) {
			var att Attestation
			json.Unmarshal(read(t, filepath.Join(dir, AttestationFile)), &att)
			for _, a := range att.Artifacts {
				if a.Kind == KindContractIR {
					a.Kind = KindEDL
				}
			}
			att.Digest = att.digest()
			os.WriteFile(filepath.Join(dir, AttestationFile), indent(&att), 0o644)
		}, []Problem{{AttestationFile, "lists no contract IR (kind contract-ir)"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeExample(t)
			tt.change(dir)
			problems, _, err := Verify(dir)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := Verify(filepath.Join(t.TempDir(), "nope")); err == nil || !strings.Contains(err.Error(), "no such folder") {
		t.Errorf("a missing folder: %v", err)
	}
}

// TestWriteNeverHalfWritten: a folder that is not a bundle is not
// replaced, a failed write leaves nothing, and an earlier bundle is
// replaced whole.
func TestWriteNeverHalfWritten(t *testing.T) {
	b := compileExample(t)
	parent := t.TempDir()
	other := filepath.Join(parent, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "keep.txt"), []byte("mine"), 0o644)
	if err := b.Write(other); err == nil || !strings.Contains(err.Error(), "is not a capsule bundle") {
		t.Errorf("writing over a folder that is not a bundle: %v", err)
	}
	if got := read(t, filepath.Join(other, "keep.txt")); string(got) != "mine" {
		t.Error("the folder was changed")
	}
	file := filepath.Join(parent, "file")
	os.WriteFile(file, nil, 0o644)
	if err := b.Write(filepath.Join(file, "bundle")); err == nil {
		t.Error("writing under a file succeeded")
	}
	dir := filepath.Join(parent, "bundle")
	if err := b.Write(dir); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "stale.txt"), []byte("x"), 0o644)
	if err := b.Write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "stale.txt")); err == nil {
		t.Error("rewriting a bundle kept a file of the old one")
	}
	entries, _ := os.ReadDir(parent)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"bundle", "file", "other"}, names); diff != "" {
		t.Errorf("temporary folders left behind (-want +got):\n%s", diff)
	}
}

// TestComposeConfig validates the Compose file with a real Compose
// implementation (Debian's docker-compose; config needs no daemon).
func TestComposeConfig(t *testing.T) {
	bin, err := exec.LookPath("docker-compose")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("docker-compose is not installed (apt-get install docker-compose)")
		}
		t.Skip("docker-compose is not installed (apt-get install docker-compose)")
	}
	dir := writeExample(t)
	cmd := exec.Command(bin, "--project-directory", dir, "-f", filepath.Join(dir, "docker-compose.yaml"), "config")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("docker-compose config: %v\n%s", err, out)
	}
	for _, want := range []string{"read_only: true", "internal: true", "no-new-privileges:true", "- ALL",
		"image: registry.example.test/claims/refund-reviewer@sha256:4f2a9c0e7d61b8a35e0c92f1d7a4b6e8c3f5a1d9e2b7c4f6a8d0e3b5c7f9a1d2"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the resolved configuration lacks %q:\n%s", want, out)
		}
	}
	// A broken file is refused, so the check above can fail.
	bad := filepath.Join(t.TempDir(), "docker-compose.yaml")
	os.WriteFile(bad, []byte("services:\n  agent:\n    read_only: maybe\n"), 0o644)
	if out, err := exec.Command(bin, "-f", bad, "config").CombinedOutput(); err == nil {
		t.Errorf("docker-compose accepted an invalid file:\n%s", out)
	}
}

// TestSeatbelt: the profile denies by default, keeps the keychain out and
// lets the agent out only to the doorkeeper's forwarder.
func TestSeatbelt(t *testing.T) {
	var sb string
	for _, a := range compileExample(t).Artifacts {
		if a.Kind == KindSeatbelt {
			sb = string(a.Data)
		}
	}
	depth := 0
	var rules []string
	for _, line := range strings.Split(sb, "\n") {
		if strings.HasPrefix(line, ";") || line == "" {
			continue
		}
		rules = append(rules, line)
		for _, r := range line {
			switch r {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth < 0 {
				t.Fatalf("unbalanced: %s", line)
			}
		}
	}
	if depth != 0 {
		t.Fatalf("unbalanced profile:\n%s", sb)
	}
	if len(rules) < 2 || rules[0] != "(version 1)" || rules[1] != "(deny default)" {
		t.Errorf("the profile does not start with (version 1) (deny default):\n%s", sb)
	}
	for _, want := range []string{`(deny file-read* file-write* (regex #"/Library/Keychains/"))`, `(allow network-outbound (remote tcp "localhost:443"))`, `(deny network-inbound)`} {
		if !strings.Contains(sb, want) {
			t.Errorf("the profile lacks %s", want)
		}
	}
	if strings.Contains(sb, `(allow network*`) || strings.Contains(sb, `(allow default`) {
		t.Error("the profile allows the network or everything")
	}
}

func TestDoorkeeperPolicy(t *testing.T) {
	var d DoorkeeperPolicy
	for _, a := range compileExample(t).Artifacts {
		if a.Kind == KindDoorkeeper {
			if err := json.Unmarshal(a.Data, &d); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []string
	for _, r := range d.Actions {
		s := r.Action + " " + r.Capability + " " + r.Receipt
		if r.Approval != nil {
			s += " approval:" + *r.Approval + "/" + *r.Approver
		}
		if r.MaxAmountUSD != nil {
			s += " max"
		}
		got = append(got, s)
	}
	want := []string{
		"db_read_customerdb_claims CapDbReadCustomerdbClaims required",
		"db_write_casenotes_refund_decisions CapDbWriteCasenotesRefundDecisions required",
		"http_call_refundapi_issue_refund CapHttpCallRefundapiIssueRefund approval_bound approval:HumanApprovalGate/HumanClaimsLead max",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("doorkeeper actions (-want +got):\n%s", diff)
	}
	if d.Default != "deny" || !cmp.Equal(d.Refused, []string{"db_write_customerdb_claims"}) {
		t.Errorf("default %s, refused %v", d.Default, d.Refused)
	}
}

// TestTamperedBundle: the shipped tampered bundle (docs/capsule.md) has
// one changed file, and Verify names exactly that one.
func TestTamperedBundle(t *testing.T) {
	problems, att, err := Verify(filepath.Join(root, "testdata/capsule/tampered-bundle"))
	if err != nil || att == nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || problems[0].Path != "seatbelt.sb" || !strings.HasPrefix(problems[0].Message, "changed: the attestation records sha256:") {
		t.Errorf("problems: %v", problems)
	}
}
