package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refundEvents drive the spec's refund reviewer (§13) through a read, an
// escalated and an allowed refund, an export no rule allows, and a read
// after the mandate expired.
var refundEvents = []string{
	`ProposeChange={"repo":"claims"}`,
	`RequestPrivilegedAction={"request_id":7,"amount_usd":80}`,
	`HumanApproved={"approval_id":"A-1"}`,
	`RequestPrivilegedAction={"request_id":8,"amount_usd":20}`,
	`HumanApproved={"approval_id":"A-2"}`,
	`Export`,
	`+31m`,
	`ProposeChange={"repo":"claims"}`,
}

// decisionRow is one intent of a run, as the test compares it.
type decisionRow struct {
	Step    int
	Intent  string
	Status  string
	Outcome string
	Rule    string
	Code    string
}

func refundRows(t *testing.T, stdout string) []decisionRow {
	t.Helper()
	var out struct {
		Steps []struct {
			Effects []struct {
				Effect, Target, Status, Code string
				Authority                    *struct{ Outcome, Rule, Policy, Capability string }
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	var rows []decisionRow
	for k, st := range out.Steps {
		for _, e := range st.Effects {
			r := decisionRow{Step: k + 1, Intent: e.Effect + " " + e.Target, Status: e.Status, Code: e.Code}
			if e.Authority != nil {
				r.Outcome, r.Rule = e.Authority.Outcome, e.Authority.Rule
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func TestAuthorityDecisions(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "runtime", "machine", "testdata", "refund_reviewer.caps"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	os.WriteFile("refund.caps", src, 0o644)
	const (
		read     = "mcp.call GateCapsule.db_read_customerdb_claims"
		refund   = "mcp.call GateCapsule.http_call_refundapi_issue_refund"
		escalate = `on escalate (if "effect == \"mcp.call.GateCapsule.http_call_refundapi_issue_refund\" and (amount_usd > 50)")`
		allowLow = `on allow (if "effect == \"mcp.call.GateCapsule.http_call_refundapi_issue_refund\" and amount_usd <= 50")`
		allowRd  = `on allow (if "effect == \"mcp.call.GateCapsule.db_read_customerdb_claims\"")`
	)
	for _, mode := range []string{"dry-run", "mock"} {
		done := "executed"
		if mode == "dry-run" {
			done = "planned"
		}
		want := []decisionRow{
			{1, "policy.evaluate PolicyCapsule", done, "allow", "policy.evaluate", ""},
			{1, "capability.issue CapDbReadCustomerdbClaims", done, "allow", "capability.issue", ""},
			{1, read, done, "allow", allowRd, ""},
			{1, "receipt.emit proposal_receipt", done, "allow", "receipt.emit", ""},
			{2, "policy.evaluate PolicyCapsule", done, "allow", "policy.evaluate", ""},
			{2, "approval.request HumanApprovalGate", done, "allow", "approval.request", ""},
			{3, "capability.issue CapHttpCallRefundapiIssueRefund", done, "allow", "capability.issue", ""},
			{3, refund, "escalated", "escalate", escalate, "R_AUTHORITY_ESCALATED"},
			{3, "receipt.emit privileged_action_executed", "skipped", "", "", ""},
			{4, "policy.evaluate PolicyCapsule", done, "allow", "policy.evaluate", ""},
			{4, "approval.request HumanApprovalGate", done, "allow", "approval.request", ""},
			{5, "capability.issue CapHttpCallRefundapiIssueRefund", done, "allow", "capability.issue", ""},
			{5, refund, done, "allow", allowLow, ""},
			{5, "receipt.emit privileged_action_executed", done, "allow", "receipt.emit", ""},
			{6, "policy.evaluate PolicyCapsule", done, "allow", "policy.evaluate", ""},
			{6, "mcp.call GateCapsule.export_claims", "denied", "deny", "default deny", "R_AUTHORITY_DENIED"},
			{7, "policy.evaluate PolicyCapsule", done, "allow", "policy.evaluate", ""},
			{7, "capability.issue CapDbReadCustomerdbClaims", "denied", "deny", "mandate not in force", "R_AUTHORITY_DENIED"},
			{7, read, "skipped", "", "", ""},
			{7, "receipt.emit proposal_receipt", "skipped", "", "", ""},
		}
		args := append([]string{"machine-run", "--mode", mode, "--json", "refund.caps", "EnclosedAgent"}, refundEvents...)
		got := runCaps(t, "", args...)
		if got.code != 0 || got.stderr != "" {
			t.Fatalf("%s: %+v", mode, got)
		}
		if diff := cmp.Diff(want, refundRows(t, got.stdout)); diff != "" {
			t.Errorf("%s decisions (-want +got):\n%s", mode, diff)
		}
	}

	// The decisions are in the ledger; replay reproduces them byte for
	// byte, and the trace carries the spec's authority events.
	args := append([]string{"machine-run", "--mode", "mock", "--ledger", "l", "refund.caps", "EnclosedAgent"}, refundEvents...)
	if got := runCaps(t, "", args...); got.code != 0 {
		t.Fatalf("ledger run: %+v", got)
	}
	data, _ := os.ReadFile(filepath.Join("l", "ledger.jsonl"))
	for _, want := range []string{
		`"authority":{"capability":"CapHttpCallRefundapiIssueRefund","capability_id":"`,
		`"outcome":"escalate","policy":"PolicyCapsule","principal":"AgentRefundReviewer","reason":"on escalate (if `,
		`"outcome":"deny","policy":"PolicyCapsule","principal":"AgentRefundReviewer","reason":"no rule of PolicyCapsule holds for mcp.call.GateCapsule.export_claims; its default is deny","rule":"default deny"}`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the ledger has no %s", want)
		}
	}
	if got := runCaps(t, "", "replay", "l"); got.code != 0 || !strings.HasPrefix(got.stdout, "ok: EnclosedAgent ") {
		t.Errorf("replay: %+v", got)
	}
	got := runCaps(t, "", "trace", "--json", "l")
	var tr struct{ Records []map[string]any }
	if err := json.Unmarshal([]byte(got.stdout), &tr); err != nil {
		t.Fatalf("trace: %v %s", err, got.stdout)
	}
	counts := map[string]int{}
	for _, r := range tr.Records {
		ev := r["event"].(string)
		counts[ev]++
		if ev == "effect.escalated" {
			if r["policy_id"] != "PolicyCapsule" || r["capability_jti"] == "" || r["mandate_id"] != "MandateClaimsRefundReviewer" ||
				r["decision"] != "escalate" || r["error_code"] != "R_AUTHORITY_ESCALATED" || r["component"] != "authority" {
				t.Errorf("effect.escalated record: %v", r)
			}
		}
	}
	wantCounts := map[string]int{"policy.evaluated": 4, "capability.issued": 3, "effect.escalated": 1, "effect.denied": 2}
	for ev, n := range wantCounts {
		if counts[ev] != n {
			t.Errorf("%d %s records, want %d", counts[ev], ev, n)
		}
	}
}
