package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateApproval = flag.Bool("update-approval", false, "rewrite testdata/authority/refund_approval.ledger.jsonl")

// approvalEvents hold three refunds above 50 USD for approval: the first
// is approved (after a principal that may not approve tried), the
// second rejected, the third approved after its capability expired.
var approvalEvents = []string{
	`RequestPrivilegedAction={"request_id":7,"amount_usd":80}`,
	`HumanApproved={"approval_id":"A-1"}`,
	`!approve=2=AgentRefundReviewer:bot`,
	`!approve=#2=HumanClaimsLead:alice`,
	`!approve=2=HumanClaimsLead:alice`,
	`RequestPrivilegedAction={"request_id":8,"amount_usd":90}`,
	`HumanApproved={"approval_id":"A-2"}`,
	`!reject=7=HumanClaimsLead:alice`,
	`RequestPrivilegedAction={"request_id":9,"amount_usd":95}`,
	`HumanApproved={"approval_id":"A-3"}`,
	`+6m`,
	`!approve=10=HumanClaimsLead:bob`,
}

// TestApprovalResolution resolves held intents from the command line:
// the text and JSON of the steps, the exact ledger bytes (a golden file;
// -update-approval rewrites it), and a replay that regenerates them.
func TestApprovalResolution(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "runtime", "machine", "testdata", "refund_reviewer.caps"))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := filepath.Abs(filepath.Join("..", "..", "testdata", "authority", "refund_approval.ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	os.WriteFile("refund.caps", src, 0o644)

	const (
		refund   = "mcp.call GateCapsule.http_call_refundapi_issue_refund"
		escalate = `on escalate (if "effect == \"mcp.call.GateCapsule.http_call_refundapi_issue_refund\" and (amount_usd > 50)")`
	)
	got := runCaps(t, "", append([]string{"machine-run", "--mode", "mock", "--json", "refund.caps", "EnclosedAgent"}, approvalEvents...)...)
	if got.code != 1 || got.stderr != "" { // steps 3 and 5 fail
		t.Fatalf("%+v", got)
	}
	want := []decisionRow{
		{1, "policy.evaluate PolicyCapsule", "executed", "allow", "policy.evaluate", ""},
		{1, "approval.request HumanApprovalGate", "executed", "allow", "approval.request", ""},
		{2, "capability.issue CapHttpCallRefundapiIssueRefund", "executed", "allow", "capability.issue", ""},
		{2, refund, "escalated", "escalate", escalate, "R_AUTHORITY_ESCALATED"},
		{2, "receipt.emit privileged_action_executed", "skipped", "", "", ""},
		// 3: AgentRefundReviewer may not approve (failed step, no intents)
		{4, refund, "executed", "allow", escalate, ""},
		{4, "receipt.emit privileged_action_executed", "executed", "allow", "receipt.emit", ""},
		// 5: nothing is held at #2 any more
		{6, "policy.evaluate PolicyCapsule", "executed", "allow", "policy.evaluate", ""},
		{6, "approval.request HumanApprovalGate", "executed", "allow", "approval.request", ""},
		{7, "capability.issue CapHttpCallRefundapiIssueRefund", "executed", "allow", "capability.issue", ""},
		{7, refund, "escalated", "escalate", escalate, "R_AUTHORITY_ESCALATED"},
		{7, "receipt.emit privileged_action_executed", "skipped", "", "", ""},
		{8, refund, "rejected", "deny", escalate, "R_AUTHORITY_REJECTED"},
		{8, "receipt.emit privileged_action_executed", "skipped", "", "", ""},
		{9, "policy.evaluate PolicyCapsule", "executed", "allow", "policy.evaluate", ""},
		{9, "approval.request HumanApprovalGate", "executed", "allow", "approval.request", ""},
		{10, "capability.issue CapHttpCallRefundapiIssueRefund", "executed", "allow", "capability.issue", ""},
		{10, refund, "escalated", "escalate", escalate, "R_AUTHORITY_ESCALATED"},
		{10, "receipt.emit privileged_action_executed", "skipped", "", "", ""},
		// +6m fires no timeout: no step
		{11, refund, "denied", "deny", "capability required", "R_AUTHORITY_DENIED"},
		{11, "receipt.emit privileged_action_executed", "skipped", "", "", ""},
	}
	if diff := cmp.Diff(want, refundRows(t, got.stdout)); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}

	got = runCaps(t, "", append([]string{"machine-run", "--mode", "mock", "refund.caps", "EnclosedAgent"}, approvalEvents[:5]...)...)
	wantText := `EnclosedAgent (mock), instance EnclosedAgent-5d32f29d83eb
#1 RequestPrivilegedAction: ready -> waiting_for_approval
    policy.evaluate PolicyCapsule: executed (1 attempt, 0ms)
    approval.request HumanApprovalGate: executed (1 attempt, 0ms)
#2 HumanApproved: waiting_for_approval -> ready
    capability.issue CapHttpCallRefundapiIssueRefund: executed (1 attempt, 0ms)
    mcp.call GateCapsule.http_call_refundapi_issue_refund: escalated: R_AUTHORITY_ESCALATED: on escalate (if "effect == \"mcp.call.GateCapsule.http_call_refundapi_issue_refund\" and (amount_usd > 50)") holds for mcp.call.GateCapsule.http_call_refundapi_issue_refund
    receipt.emit privileged_action_executed: skipped
#3 !approve 2 by AgentRefundReviewer:bot: FAILED R_APPROVER_NOT_ALLOWED: AgentRefundReviewer:bot may not approve mcp.call GateCapsule.http_call_refundapi_issue_refund held by #2: only HumanClaimsLead may approve it (the (approval HumanClaimsLead) of capability CapHttpCallRefundapiIssueRefund), not AgentRefundReviewer
#4 !approve #2 by HumanClaimsLead:alice: resolves #2, in ready
    mcp.call GateCapsule.http_call_refundapi_issue_refund: executed (1 attempt, 0ms)
    receipt.emit privileged_action_executed: executed (1 attempt, 0ms)
#5 !approve 2 by HumanClaimsLead:alice: FAILED R_NOT_HELD: #2 holds no intent for approval; nothing is held
state ready (running), clock 0ms
context {"request_id":"7","amount_usd":80}
`
	if diff := cmp.Diff(wantText, got.stdout); diff != "" || got.code != 1 {
		t.Errorf("text output, exit %d (-want +got):\n%s", got.code, diff)
	}

	// The ledger, byte for byte.
	args := append([]string{"machine-run", "--mode", "mock", "--ledger", "l", "refund.caps", "EnclosedAgent"}, approvalEvents...)
	if got := runCaps(t, "", args...); got.code != 1 {
		t.Fatalf("ledger run: %+v", got)
	}
	data, err := os.ReadFile(filepath.Join("l", "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if *updateApproval {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantLedger, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(string(wantLedger), "\n"), strings.Split(string(data), "\n")); diff != "" {
		t.Errorf("ledger (-want +got; rerun with -update-approval if the change is intended):\n%s", diff)
	}
	for _, part := range []string{
		`{"clock":0,"kind":"approval","name":"alice","principal":"HumanClaimsLead","ref":"#2","seq":4,"type":"input","verdict":"approve"}`,
		`"authority":{"approval":{"held":"escalate","name":"alice","principal":"HumanClaimsLead","verdict":"approve"},"capability":"CapHttpCallRefundapiIssueRefund"`,
		`"resolves":2,"seq":4,"state":"ready","step":4,"type":"resolution"}`,
		`"approval":{"held":"escalate","name":"alice","principal":"HumanClaimsLead","verdict":"reject"}`,
		`"event":"approval.rejected"`,
		`"approved_by":"HumanClaimsLead:bob"`,
	} {
		if !strings.Contains(string(data), part) {
			t.Errorf("the ledger has no %s", part)
		}
	}
	for _, flags := range [][]string{{"replay", "l"}, {"replay", "--trace", "l"}} {
		got := runCaps(t, "", flags...)
		if want := "ok: EnclosedAgent EnclosedAgent-5d32f29d83eb (mock): 54 records, 12 inputs, 11 steps replayed; state ready\n"; got.stdout != want || got.code != 0 {
			t.Errorf("%v: %+v, want %q", flags, got, want)
		}
	}
}

func TestApprovalInputErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"!approve=HumanClaimsLead:alice", `caps machine-run: input "!approve=HumanClaimsLead:alice": write !approve=STEP=PRINCIPAL:NAME (!approve=5=HumanClaimsLead:alice), STEP the #number of the step that holds the intent, or the intent's id` + "\n"},
		{"!reject=3=alice", `caps machine-run: input "!reject=3=alice": an approver is PRINCIPAL:NAME (HumanClaimsLead:alice), not "alice"` + "\n"},
		{"!grant=3=A:b", `caps machine-run: input "!grant=3=A:b": the ! inputs are !cancel, !approve=STEP=PRINCIPAL:NAME, !reject=STEP=PRINCIPAL:NAME, !accept=CLAIM=PRINCIPAL and !reject-claim=CLAIM=PRINCIPAL` + "\n"},
	} {
		got := runCaps(t, "", "machine-run", "x.caps", "M", tc.in)
		if got.code != 2 || !strings.HasPrefix(got.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q, want prefix %q", tc.in, got.code, got.stderr, tc.want)
		}
	}
}
