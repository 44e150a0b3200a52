package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/runtime/machinerun"
	"github.com/google/go-cmp/cmp"
)

// claimsExample runs machine-run on the shipped claims example.
func claimsExample(t *testing.T, root string, extra ...string) runResult {
	t.Helper()
	args := append([]string{"machine-run"}, extra...)
	args = append(args, "--mode", "mock", "--mocks", filepath.Join(root, "examples/mocks/31_claims_before_facts.scores.json"),
		filepath.Join(root, "examples/31_claims_before_facts.caps"), "LoanDecision", `Apply={"loan_id": 7}`, "ScoreAccepted",
		"!accept=risk_score=risk_officer", "Rescore", "!accept=risk_score=risk_officer", "ScoreAccepted", "Record")
	return runCaps(t, "", args...)
}

// TestMachineRunClaimsJSON: the JSON output lists each step's claims and
// acceptance input, and the current claims.
func TestMachineRunClaimsJSON(t *testing.T) {
	root, _ := filepath.Abs("../..")
	got := claimsExample(t, root, "--json")
	if got.code != 1 || got.stderr != "" {
		t.Fatalf("%+v", got)
	}
	var out struct {
		State  string
		Claims []machinerun.ClaimReport
		Steps  []struct {
			Event        string
			OK           bool
			Error        *struct{ Code string }
			Claims       []machinerun.ClaimReport
			ClaimVerdict *struct{ Claim, Verdict, Principal string } `json:"claim_verdict"`
		}
	}
	if err := json.Unmarshal([]byte(got.stdout), &out); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Event, Code, Verdict string
		Claims               []string
	}
	var rows []row
	for _, s := range out.Steps {
		r := row{Event: s.Event}
		if s.Error != nil {
			r.Code = s.Error.Code
		}
		if v := s.ClaimVerdict; v != nil {
			r.Verdict = v.Verdict + " " + v.Claim + " " + v.Principal
		}
		for _, c := range s.Claims {
			r.Claims = append(r.Claims, c.Field+" "+c.Status+" "+string(c.Value)+" "+c.By)
		}
		rows = append(rows, r)
	}
	want := []row{
		{Event: "Apply", Claims: []string{"risk_score pending 42 "}},
		{Event: "ScoreAccepted", Code: "R_CLAIM_NOT_ACCEPTED"},
		{Verdict: "accept risk_score risk_officer", Claims: []string{"risk_score accepted 42 risk_officer"}},
		{Event: "Rescore", Claims: []string{"risk_score superseded 42 risk_officer", "risk_score pending 18 "}},
		{Verdict: "accept risk_score risk_officer", Claims: []string{"risk_score accepted 18 risk_officer"}},
		{Event: "ScoreAccepted"},
		{Event: "Record"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if out.State != "recorded" || len(out.Claims) != 1 || out.Claims[0].Status != "accepted" || string(out.Claims[0].Value) != "18" || out.Claims[0].ID == "" {
		t.Errorf("final: %s %+v", out.State, out.Claims)
	}
}

// TestMachineRunClaimsLedger: a claims run recorded in a ledger replays,
// and a second run writes the same bytes.
func TestMachineRunClaimsLedger(t *testing.T) {
	root, _ := filepath.Abs("../..")
	t.Chdir(t.TempDir())
	for _, dir := range []string{"l1", "l2"} {
		if got := claimsExample(t, root, "--ledger", dir); got.code != 1 || got.stderr != "" {
			t.Fatalf("%s: %+v", dir, got)
		}
	}
	a, _ := os.ReadFile("l1/ledger.jsonl")
	b, _ := os.ReadFile("l2/ledger.jsonl")
	if len(a) == 0 || string(a) != string(b) {
		t.Fatalf("two runs wrote different ledgers (%d and %d bytes)", len(a), len(b))
	}
	if got := runCaps(t, "", "replay", "--trace", "l1"); got.code != 0 || got.stdout != "ok: LoanDecision LoanDecision-194982e746fd (mock): 32 records, 7 inputs, 7 steps replayed; state recorded\n" {
		t.Errorf("replay: %+v", got)
	}
}

// TestMachineRunClaimInputErrors: a malformed acceptance input is a usage
// error naming the form to write.
func TestMachineRunClaimInputErrors(t *testing.T) {
	machineFiles(t)
	for _, tt := range []struct{ in, stderr string }{
		{"!accept=risk_score", "caps machine-run: input \"!accept=risk_score\": write !accept=CLAIM=PRINCIPAL (!accept=score=risk_officer), CLAIM the claimed context field\n"},
		{"!reject-claim==alice", "caps machine-run: input \"!reject-claim==alice\": write !reject-claim=CLAIM=PRINCIPAL (!reject-claim=score=risk_officer), CLAIM the claimed context field\n"},
		{"!acept=a=b", "caps machine-run: input \"!acept=a=b\": the ! inputs are !cancel, !approve=STEP=PRINCIPAL:NAME, !reject=STEP=PRINCIPAL:NAME, !accept=CLAIM=PRINCIPAL and !reject-claim=CLAIM=PRINCIPAL\n"},
	} {
		got := runCaps(t, "", "machine-run", "door.caps", "Door", tt.in)
		if first, _, _ := strings.Cut(got.stderr, "usage:"); got.code != 2 || got.stdout != "" || first != tt.stderr {
			t.Errorf("%s: exit %d, stderr %q", tt.in, got.code, got.stderr)
		}
	}
	// A machine without claims refuses an acceptance: a failed step.
	got := runCaps(t, "", "machine-run", "door.caps", "Door", "!accept=code=alice")
	if got.code != 1 || got.stdout != "Door (dry-run), instance Door-"+got.stdout[len("Door (dry-run), instance Door-"):][:12]+"\n#1 !accept code by alice: FAILED R_CLAIM_NOT_PENDING: machine Door declares no claim \"code\"\nstate closed (running), clock 0ms\ncontext {\"code\":0,\"opens\":0,\"who\":\"\"}\n" {
		t.Errorf("%+v", got)
	}
}
