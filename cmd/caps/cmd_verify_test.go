package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// needZ3 skips a test when z3 is not installed, and fails it under
// CI=true.
func needZ3(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("z3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and z3 is not installed (Debian package z3)")
		}
		t.Skip("z3 is not installed (Debian package z3)")
	}
}

const verifyFixture = "../../testdata/verify/contracts.caps"

func TestVerifyReportJSON(t *testing.T) {
	needZ3(t)
	for _, args := range [][]string{{"--format", "json"}, {"--json"}} {
		r := runCaps(t, "", append([]string{"verify-report"}, append(args, verifyFixture)...)...)
		if r.code != 1 || r.stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q; want 1 (obligations failed) and no stderr", args, r.code, r.stderr)
		}
		var doc struct {
			OK    bool `json:"ok"`
			Files []struct {
				Path    string `json:"path"`
				Module  string `json:"module"`
				Solver  string `json:"solver"`
				Summary struct {
					Obligations, Discharged, Open, Failed int
				} `json:"summary"`
				Obligations []struct {
					ID             string `json:"id"`
					Kind           string `json:"kind"`
					Status         string `json:"status"`
					Claim          string `json:"claim"`
					Counterexample []struct{ Name, Value string }
					Confirmation   *struct {
						Confirmed bool `json:"confirmed"`
					} `json:"confirmation"`
					Range struct {
						Start struct{ Line, Character int }
					} `json:"range"`
				} `json:"obligations"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, r.stdout)
		}
		if doc.OK || len(doc.Files) != 1 {
			t.Fatalf("ok=%t with %d files", doc.OK, len(doc.Files))
		}
		f := doc.Files[0]
		if f.Module != "verify.contracts" || !strings.HasPrefix(f.Solver, "Z3 version ") {
			t.Errorf("module %q solver %q", f.Module, f.Solver)
		}
		if s := f.Summary; s.Obligations != 26 || s.Discharged != 19 || s.Open != 0 || s.Failed != 7 {
			t.Errorf("summary %+v, want 26 obligations: 19 discharged, 0 open, 7 failed", s)
		}
		o := f.Obligations[0]
		if o.ID != "verify.contracts/abs_wrong/ensures/0" || o.Kind != "ensures" || o.Status != "failed" || o.Claim != "(>= result 0)" ||
			o.Range.Start.Line != 13 || o.Range.Start.Character != 13 || o.Confirmation == nil || !o.Confirmation.Confirmed {
			t.Errorf("first obligation %+v", o)
		}
		want := []struct{ Name, Value string }{{"x", "-9223372036854775808"}, {"result", "-9223372036854775808"}}
		if diff := cmp.Diff(want, o.Counterexample); diff != "" {
			t.Errorf("counterexample (-want +got)\n%s", diff)
		}
	}
}

func TestVerifyReportExitCodes(t *testing.T) {
	needZ3(t)
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string // a prefix
		stderr string // a substring
	}{
		{[]string{"verify-report", "../../examples/contracts.caps"}, 0, "../../examples/contracts.caps: module examples.contracts: 19 obligations: 19 discharged, 0 open, 0 failed (Z3 version", ""},
		{[]string{"refinement-report", "--require-closed", "../../examples/contracts.caps"}, 0, "../../examples/contracts.caps: module examples.contracts\n", ""},
		{[]string{"refinement-report", "--require-closed", verifyFixture}, 1, verifyFixture + ": module verify.contracts\n", ""},
		{[]string{"refinement-report", verifyFixture}, 1, verifyFixture + ": module verify.contracts\n", ""}, // obligations failed
		{[]string{"verify-report", "--format", "yaml", verifyFixture}, 2, "", "--format must be text or json"},
		{[]string{"verify-report", "--timeout", "0s", verifyFixture}, 2, "", "--timeout must be positive"},
		{[]string{"verify-report", "../../testdata/check/e_zk_proof.caps"}, 1, "", "error E_UNKNOWN_PROOF_BACKEND"},
		{[]string{"verify-report", "no-such-file.caps"}, 2, "", "no-such-file.caps"},
	} {
		r := runCaps(t, "", tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("caps %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(tc.args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// TestVerifyMissingZ3: without z3 on PATH both commands stop with exit 2
// and name the package to install.
func TestVerifyMissingZ3(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, cmd := range []string{"verify-report", "refinement-report"} {
		r := runCaps(t, "", cmd, verifyFixture)
		if r.code != 2 || !strings.Contains(r.stderr, "install the Debian package `z3`") {
			t.Errorf("%s without z3: exit %d, stderr %q", cmd, r.code, r.stderr)
		}
	}
}
