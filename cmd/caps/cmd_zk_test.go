package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/codegen/noir"
)

const riskExample = "../../examples/private_risk_proof.caps"

const riskInputs = `{"change_id": 7, "threshold": 40, "risk_model_hash": "0x1111111111111111111111111111111111111111111111111111111111111111", "risk_score": 30, "penalty": 5}`

func TestZKPlan(t *testing.T) {
	out, e, code := runCG(t, "zk-plan", riskExample)
	want := `DeploymentRiskProof (backend noir): lowers to Noir
  proves (and (> change_id 0) (<= (+ risk_score penalty) threshold))
  public  change_id U64, threshold U32, risk_model_hash Bytes32
  private risk_score U32, penalty U32
`
	if code != 0 || out != want || e != "" {
		t.Errorf("zk-plan: %d %q\n%s", code, e, cmp.Diff(want, out))
	}
	out, _, code = runCG(t, "zk-plan", "--json", riskExample)
	var got struct {
		OK    bool `json:"ok"`
		Files []struct {
			Proofs []struct {
				Name    string
				Backend string
				Claim   string
				Public  []map[string]string
				Private []map[string]string
				Lowers  bool `json:"lowers_to_noir"`
				Reasons []any
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || !got.OK || len(got.Files) != 1 || len(got.Files[0].Proofs) != 1 {
		t.Fatalf("zk-plan --json: %d %v\n%s", code, err, out)
	}
	pr := got.Files[0].Proofs[0]
	if pr.Name != "DeploymentRiskProof" || pr.Backend != "noir" || !pr.Lowers || len(pr.Reasons) != 0 || len(pr.Public) != 3 || len(pr.Private) != 2 ||
		pr.Public[2]["noir_type"] != "[u8; 32]" || pr.Private[0]["type"] != "U32" {
		t.Errorf("zk-plan --json: %+v", pr)
	}
	// A module without proofs, and one whose proof does not lower.
	out, _, code = runCG(t, "zk-plan", "../../examples/abs.caps")
	if code != 0 || out != "no zk-proof declarations\n" {
		t.Errorf("no proofs: %d %q", code, out)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.caps")
	os.WriteFile(bad, []byte(`(module m (capsule "1") (zk-proof P (backend noir) (public (t Text)) (private (s U32)) (proves (> s 1))))`), 0o644)
	out, _, code = runCG(t, "zk-plan", bad)
	if code != 0 || !strings.Contains(out, "P (backend noir): does not lower to Noir") || !strings.Contains(out, "the input t has type Text, which has no circuit encoding here") {
		t.Errorf("zk-plan bad: %d\n%s", code, out)
	}
	_, e, code = runCG(t, "emit-noir", bad, "--proof", "P", "--out-dir", filepath.Join(dir, "p"))
	if code != cli.ExitFail || !strings.Contains(e, "the zk-proof P does not lower to Noir; nothing written") {
		t.Errorf("emit-noir of a proof that does not lower: %d %q", code, e)
	}
	if _, err := os.Stat(filepath.Join(dir, "p")); err == nil {
		t.Error("emit-noir wrote a folder for a proof that does not lower")
	}
}

func TestEmitNoir(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "proj")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{riskExample, "--out-dir", out}, cli.ExitUsage, "--proof NAME is required"},
		{[]string{riskExample, "--proof", "DeploymentRiskProof"}, cli.ExitUsage, "--out-dir DIR is required"},
		{[]string{riskExample, "--proof", "Nope", "--out-dir", out}, cli.ExitFail, "no zk-proof Nope; the module declares: DeploymentRiskProof"},
		{[]string{riskExample, "--proof", "DeploymentRiskProof", "--out-dir", out, "--inputs", `{"change_id": 7}`}, cli.ExitFail, "missing inputs: threshold, risk_model_hash, risk_score, penalty"},
		{[]string{riskExample, "--proof", "DeploymentRiskProof", "--out-dir", out, "--inputs", filepath.Join(dir, "none.json")}, cli.ExitFail, "--inputs: open"},
	} {
		_, e, code := runCG(t, append([]string{"emit-noir"}, c.args...)...)
		if code != c.code || !strings.Contains(e, c.want) {
			t.Errorf("%v: %d %q, want %d %q", c.args, code, e, c.code, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a failed emit-noir left a folder")
	}
	o, e, code := runCG(t, "emit-noir", "--json", riskExample, "--proof", "DeploymentRiskProof", "--out-dir", out, "--inputs", riskInputs)
	if code != 0 || !strings.Contains(o, `"files":["Nargo.toml","Prover.toml","capsulang.json","src/main.nr"]`) || !strings.Contains(o, `"proof":"DeploymentRiskProof"`) {
		t.Fatalf("emit-noir --json: %d %s %q", code, o, e)
	}
	toml, _ := os.ReadFile(filepath.Join(out, "Prover.toml"))
	if !strings.Contains(string(toml), "threshold = \"40\"\n") || !strings.Contains(string(toml), `risk_model_hash = ["17", "17",`) {
		t.Errorf("Prover.toml:\n%s", toml)
	}
	var m noir.Manifest
	data, _ := os.ReadFile(filepath.Join(out, noir.ManifestName))
	if err := json.Unmarshal(data, &m); err != nil || m.Proof != "DeploymentRiskProof" || !strings.HasPrefix(m.SemanticHash, "sha256:") || m.Module != "examples.private_risk" {
		t.Errorf("manifest: %v %+v", err, m)
	}
	// noir-compile and noir-execute refuse a folder that is not a project,
	// and name the missing toolchain.
	_, e, code = runCG(t, "noir-compile", dir)
	if code != cli.ExitUsage || !strings.Contains(e, "is not a Nargo project (no Nargo.toml)") {
		t.Errorf("noir-compile of a non-project: %d %q", code, e)
	}
	t.Setenv("CAPS_NOIR_TOOLS", filepath.Join(dir, "nowhere"))
	_, e, code = runCG(t, "noir-compile", out)
	if code != cli.ExitUsage || !strings.Contains(e, "the Noir toolchain is not installed") {
		t.Errorf("noir-compile without the toolchain: %d %q", code, e)
	}
}

// TestNoirEndToEnd runs emit-noir, noir-compile and noir-execute with the
// real toolchain (tools/noir; npm ci there).
func TestNoirEndToEnd(t *testing.T) {
	tools, _ := filepath.Abs(filepath.Join("..", "..", "tools", "noir"))
	t.Setenv("CAPS_NOIR_TOOLS", tools)
	if _, err := noir.FindToolchain(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the Noir toolchain is missing: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	out := filepath.Join(t.TempDir(), "proj")
	if _, e, code := runCG(t, "emit-noir", riskExample, "--proof", "DeploymentRiskProof", "--out-dir", out, "--inputs", riskInputs); code != 0 {
		t.Fatalf("emit-noir: %d %s", code, e)
	}
	_, e, code := runCG(t, "noir-execute", out)
	if code != cli.ExitUsage || !strings.Contains(e, "has no compiled program; run caps noir-compile") {
		t.Errorf("noir-execute before compiling: %d %q", code, e)
	}
	o, e, code := runCG(t, "noir-compile", "--json", out)
	if code != 0 || !strings.Contains(o, `"ok":true`) || !strings.Contains(o, `"noir_wasm":"1.0.0-beta.15"`) || !strings.Contains(o, "target/deployment_risk_proof.json") {
		t.Fatalf("noir-compile: %d %s %q", code, o, e)
	}
	o, e, code = runCG(t, "noir-execute", out)
	if code != 0 || !strings.HasPrefix(o, "satisfied: the claim of DeploymentRiskProof holds for these inputs (witness ") {
		t.Errorf("noir-execute (Prover.toml): %d %q %q", code, o, e)
	}
	bad := strings.Replace(riskInputs, `"penalty": 5`, `"penalty": 20`, 1)
	o, e, code = runCG(t, "noir-execute", "--json", out, "--inputs", bad)
	if code != cli.ExitFail || !strings.Contains(o, `"satisfied":false`) || !strings.Contains(o, "the claim of DeploymentRiskProof does not hold") {
		t.Errorf("noir-execute (unsatisfied): %d %s %q", code, o, e)
	}
	// The sum wraps at 32 bits in the circuit as in the interpreter.
	wrap := strings.Replace(riskInputs, `"risk_score": 30`, `"risk_score": 4294967295`, 1)
	o, _, code = runCG(t, "noir-execute", "--json", out, "--inputs", wrap)
	if code != 0 || !strings.Contains(o, `"satisfied":true`) {
		t.Errorf("noir-execute (wrap): %d %s", code, o)
	}
	_, e, code = runCG(t, "noir-execute", out, "--inputs", `{"change_id": -1}`)
	if code != cli.ExitUsage || !strings.Contains(e, "--inputs: input change_id") {
		t.Errorf("noir-execute (bad inputs): %d %q", code, e)
	}
}
