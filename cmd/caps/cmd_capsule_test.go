package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const capsuleExample = "../../examples/29_capsule_refund_reviewer.capsule.yaml"

// negativeTests are the bundle's scenario files, as caps test takes them.
var bundleScenarios = []string{
	"tests/negative-01-effect-outside-mandate.json", "tests/negative-02-amount-above-limit.json",
	"tests/negative-03-protected-without-gate.json", "tests/negative-04-missing-receipt.json",
	"tests/positive-01-allowed-path.json",
}

func TestCapsuleCheck(t *testing.T) {
	r := runCaps(t, "", "capsule-check", capsuleExample)
	if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, capsuleExample+": contract claims.refund_reviewer 1.3.0 is valid: 3 effects, contract sha256:") {
		t.Errorf("clean contract: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCaps(t, "", "capsule-check", "--json", "../../testdata/capsule/errors/ungated-effect.capsule.yaml")
	want := `{"ok":false,"files":[{"path":"../../testdata/capsule/errors/ungated-effect.capsule.yaml","diagnostics":[{"code":"E_CAPSULE_UNGATED_EFFECT","severity":"error","message":"` +
		"`effects[1]` (write Orders.return_labels) changes the world with `gate: none`; a protected effect runs only as a gate action of the doorkeeper: remove `gate: none`" +
		`","range":{"start":{"line":10,"character":10},"end":{"line":10,"character":14}},"related":[]}],"module":null,"version":null,"contract_hash":null,"effects":0}]}` + "\n"
	if r.code != 1 || r.stdout != want {
		t.Errorf("contract with an error: exit %d\n%s\nwant\n%s", r.code, r.stdout, want)
	}
	r = runCaps(t, "", "capsule-check", "../../testdata/capsule/errors/default-allow.capsule.yaml")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "../../testdata/capsule/errors/default-allow.capsule.yaml:13:12: error E_CAPSULE_DEFAULT_ALLOW: ") || r.stdout != "" {
		t.Errorf("text diagnostics: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCaps(t, "", "capsule-check", "no-such.capsule.yaml")
	if r.code != 2 || r.stderr != "caps: no-such.capsule.yaml: no such file\n" {
		t.Errorf("missing file: exit %d %q", r.code, r.stderr)
	}
	r = runCaps(t, "capsule: 0.1\n", "capsule-check", "-")
	if r.code != 1 || !strings.Contains(r.stderr, "<stdin>:1:1: error E_CAPSULE_MISSING_FIELD") {
		t.Errorf("stdin: exit %d %q", r.code, r.stderr)
	}
	if r := runCaps(t, "", "capsule-check"); r.code != 2 {
		t.Errorf("no FILE: exit %d", r.code)
	}
}

func TestCapsuleIR(t *testing.T) {
	r := runCaps(t, "", "capsule-ir", capsuleExample)
	golden, err := os.ReadFile("../../testdata/capsule/refund_reviewer.capsule.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.code != 0 || r.stdout != string(golden) {
		t.Errorf("exit %d; stdout differs from the golden IR:\n%s", r.code, cmp.Diff(string(golden), r.stdout))
	}
	r = runCaps(t, "", "capsule-ir", "../../testdata/capsule/errors/unknown-key.capsule.yaml")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "E_CAPSULE_UNKNOWN_KEY") {
		t.Errorf("bad contract: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// compileBundle compiles the example into a new folder and returns it.
func compileBundle(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "capsule-refund")
	r := runCaps(t, "", "capsule-compile", "--json", capsuleExample, "--out-dir", dir)
	if r.code != 0 {
		t.Fatalf("capsule-compile: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var res struct {
		OK    bool `json:"ok"`
		Files []struct {
			Path         string `json:"path"`
			OutDir       string `json:"out_dir"`
			ModuleFile   string `json:"module_file"`
			ContractHash string `json:"contract_hash"`
			Artifacts    []struct {
				Path, Kind, SHA256 string
				Bytes              int
			} `json:"artifacts"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || !res.OK || len(res.Files) != 1 {
		t.Fatalf("capsule-compile --json: %v\n%s", err, r.stdout)
	}
	f := res.Files[0]
	if f.ModuleFile != dir+"/claims-refund-reviewer.caps" || len(f.Artifacts) != 15 || f.OutDir != dir {
		t.Errorf("capsule-compile --json: %+v", f)
	}
	for _, a := range f.Artifacts {
		b, err := os.ReadFile(filepath.Join(dir, a.Path))
		if err != nil || len(b) != a.Bytes || !strings.HasPrefix(a.SHA256, "sha256:") {
			t.Errorf("%s: %v, %d bytes listed, %d on disk", a.Path, err, a.Bytes, len(b))
		}
	}
	return dir
}

// TestCapsuleCompile: the generated module checks clean, its scenarios run
// under caps test with every bypass denied, and machine-run shows the
// runtime's decisions.
func TestCapsuleCompile(t *testing.T) {
	dir := compileBundle(t)
	mod := filepath.Join(dir, "claims-refund-reviewer.caps")
	probe := filepath.Join(dir, "claims-refund-reviewer.bypass-probe.caps")
	if r := runCaps(t, "", "check", "--json", mod); r.code != 0 || !strings.Contains(r.stdout, `"diagnostics":[]`) {
		t.Errorf("caps check on the generated module: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The probe's one diagnostic is its call outside the mandate, which the
	// checker proves can never be allowed (docs/capsule.md).
	if r := runCaps(t, "", "check", "--json", probe); r.code != 0 || strings.Count(r.stdout, `"code":`) != 1 || !strings.Contains(r.stdout, `"code":"W_AUTHORITY_NEVER_ALLOWS"`) || !strings.Contains(r.stdout, "in machine BypassProbe") {
		t.Errorf("caps check on the probe module: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	args := []string{"test", mod, probe}
	for _, s := range bundleScenarios {
		args = append(args, "--scenario", filepath.Join(dir, s))
	}
	r := runCaps(t, "", args...)
	// Scenarios are listed under the file that defines their machine: the
	// workflow module's first, then the probe's.
	var want strings.Builder
	for _, file := range []string{"EnclosedAgent", "BypassProbe"} {
		for _, s := range bundleScenarios {
			m := "BypassProbe"
			if strings.Contains(s, "amount") || strings.Contains(s, "receipt") || strings.Contains(s, "positive") {
				m = "EnclosedAgent"
			}
			if m != file {
				continue
			}
			steps := map[string]string{"tests/negative-01-effect-outside-mandate.json": "1 step", "tests/negative-02-amount-above-limit.json": "2 steps",
				"tests/negative-03-protected-without-gate.json": "1 step", "tests/negative-04-missing-receipt.json": "3 steps", "tests/positive-01-allowed-path.json": "6 steps"}[s]
			want.WriteString("PASS " + filepath.Join(dir, s) + ": " + m + " (" + steps + ")\n")
		}
	}
	want.WriteString("5 passed, 0 failed\n")
	if r.code != 0 || r.stdout != want.String() {
		t.Errorf("caps test on the bundle: exit %d\n%s%s\nwant\n%s", r.code, r.stdout, r.stderr, want.String())
	}

	// With --json every bypass shows the runtime's denial.
	r = runCaps(t, "", append([]string{"test", "--json"}, args[1:]...)...)
	for _, d := range []string{
		`"mcp.call GateCapsule.db_write_customerdb_claims [denied] R_AUTHORITY_DENIED"`,
		`"mcp.call GateCapsule.http_call_refundapi_issue_refund [denied] R_AUTHORITY_DENIED"`,
		`"error":"R_NO_TRANSITION: state awaiting_receipt_http_call_refundapi_issue_refund has no transition for Complete"`,
	} {
		if !strings.Contains(r.stdout, d) {
			t.Errorf("caps test --json lacks %s", d)
		}
	}

	// The scenarios fail when the module stops refusing: raise the limit
	// (both its allow and its deny rule).
	src, _ := os.ReadFile(mod)
	weak := filepath.Join(t.TempDir(), "weak.caps")
	os.WriteFile(weak, []byte(strings.NewReplacer("amount_usd <= 250", "amount_usd <= 100000", "amount_usd > 250", "amount_usd > 100000").Replace(string(src))), 0o644)
	wargs := []string{"test", weak, probe}
	for _, s := range bundleScenarios {
		wargs = append(wargs, "--scenario", filepath.Join(dir, s))
	}
	if r := runCaps(t, "", wargs...); r.code != 1 || !strings.Contains(r.stdout, "FAIL "+filepath.Join(dir, "tests/negative-02-amount-above-limit.json")) {
		t.Errorf("a module that lets the amount through passes the negative tests: exit %d\n%s", r.code, r.stdout)
	}

	r = runCaps(t, "", "machine-run", probe, "BypassProbe", "CallOutsideMandate")
	if r.code != 0 || !strings.Contains(r.stdout, "mcp.call GateCapsule.db_write_customerdb_claims: denied: R_AUTHORITY_DENIED: no rule of PolicyCapsule holds") {
		t.Errorf("machine-run dry-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCaps(t, "", "capsule-verify", dir); r.code != 0 || !strings.HasPrefix(r.stdout, dir+": bundle of edl.claims_refund_reviewer verifies: 15 artifacts, contract sha256:") {
		t.Errorf("capsule-verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestCapsuleCompileErrors(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	r := runCaps(t, "", "capsule-compile", "../../testdata/capsule/errors/untraced-decisions.capsule.yaml", "--out-dir", out)
	if r.code != 1 || !strings.Contains(r.stderr, "E_CAPSULE_UNTRACED_DECISIONS") {
		t.Errorf("bad contract: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a bad contract wrote its --out-dir")
	}
	file := filepath.Join(parent, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	r = runCaps(t, "", "capsule-compile", capsuleExample, "--out-dir", file)
	if r.code != 2 || r.stderr != "caps: --out-dir "+file+": "+file+" exists and is not a folder; nothing was written\n" {
		t.Errorf("--out-dir is a file: exit %d %q", r.code, r.stderr)
	}
	if r := runCaps(t, "", "capsule-compile", capsuleExample); r.code != 2 || !strings.Contains(r.stderr, "--out-dir DIR is required") {
		t.Errorf("no --out-dir: exit %d %q", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestCapsuleVerify(t *testing.T) {
	dir := compileBundle(t)
	p := filepath.Join(dir, "doorkeeper-policy.json")
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 0x20
	os.WriteFile(p, b, 0o644)
	r := runCaps(t, "", "capsule-verify", dir)
	if r.code != 1 || !strings.HasPrefix(r.stderr, dir+"/doorkeeper-policy.json: changed: the attestation records sha256:") ||
		!strings.HasSuffix(r.stderr, dir+": the bundle does not verify (1 problem); compile the contract again\n") {
		t.Errorf("changed byte: exit %d\n%s", r.code, r.stderr)
	}
	r = runCaps(t, "", "capsule-verify", "--json", dir)
	var res struct {
		OK       bool `json:"ok"`
		Problems []struct{ Path, Message string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.OK || len(res.Problems) != 1 || res.Problems[0].Path != "doorkeeper-policy.json" || r.code != 1 {
		t.Errorf("--json: exit %d %v\n%s", r.code, err, r.stdout)
	}
	if r := runCaps(t, "", "capsule-verify", filepath.Join(dir, "nope")); r.code != 2 {
		t.Errorf("missing folder: exit %d %q", r.code, r.stderr)
	}
}

// TestCapsuleLive: no attested enclosure, no live effect.
func TestCapsuleLive(t *testing.T) {
	dir := compileBundle(t)
	mod := filepath.Join(dir, "claims-refund-reviewer.caps")
	if r := runCaps(t, "", "machine-run", "--mode", "live", mod, "EnclosedAgent", "Complete"); r.code != 0 || !strings.Contains(r.stdout, "state completed (final)") {
		t.Errorf("verified bundle: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	lone := filepath.Join(t.TempDir(), "lone.caps")
	src, _ := os.ReadFile(mod)
	os.WriteFile(lone, src, 0o644)
	r := runCaps(t, "", "machine-run", "--mode", "live", lone, "EnclosedAgent", "Complete")
	if r.code != 2 || r.stdout != "" || r.stderr != "caps: "+lone+" was generated by caps capsule-compile, but no attestation beside it names it: live mode runs a generated module only from its attested bundle (compile the contract with caps capsule-compile FILE --out-dir DIR and run the module in DIR)\n" {
		t.Errorf("module without its bundle: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Dry-run still works anywhere.
	if r := runCaps(t, "", "machine-run", lone, "EnclosedAgent", "Complete"); r.code != 0 {
		t.Errorf("dry-run of a lone module: exit %d %s", r.code, r.stderr)
	}
	p := filepath.Join(dir, "telemetry-plan.json")
	b, _ := os.ReadFile(p)
	b[10] ^= 0x01
	os.WriteFile(p, b, 0o644)
	r = runCaps(t, "", "machine-run", "--mode", "live", mod, "EnclosedAgent", "Complete")
	if r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, "caps: the bundle "+dir+" does not verify, so live mode refuses claims-refund-reviewer.caps (telemetry-plan.json: changed: ") {
		t.Errorf("changed bundle: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Editing the module itself changes its digest too.
	b[10] ^= 0x01
	os.WriteFile(p, b, 0o644)
	os.WriteFile(mod, []byte(strings.Replace(string(src), "(valid-for 10m)", "(valid-for 12h)", 1)), 0o644)
	r = runCaps(t, "", "machine-run", "--mode", "live", mod, "EnclosedAgent", "Complete")
	if r.code != 2 || !strings.Contains(r.stderr, "(claims-refund-reviewer.caps: changed: ") {
		t.Errorf("edited module: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
