package machinerun_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/internal/testutil"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/machinerun"
	"github.com/capsulang/caps/runtime/replay"
	"github.com/capsulang/caps/runtime/value"
)

func TestParseInput(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		in   string
		want machinerun.Input
		err  string
	}{
		{in: "Approve", want: machinerun.Input{Text: "Approve", Event: machine.Event{Name: "Approve"}}},
		{in: `ReviewCompleted={"review_score": 12}`, want: machinerun.Input{Text: `ReviewCompleted={"review_score": 12}`,
			Event: machine.Event{Name: "ReviewCompleted", Raw: json.RawMessage(`{"review_score": 12}`)}}},
		{in: "Close={}", want: machinerun.Input{Text: "Close={}", Event: machine.Event{Name: "Close", Raw: json.RawMessage(`{}`)}}},
		{in: "+30m", want: machinerun.Input{Text: "+30m", Advance: true, AdvanceMs: 30 * 60 * 1000}},
		{in: "+2d", want: machinerun.Input{Text: "+2d", Advance: true, AdvanceMs: 2 * 24 * 3600 * 1000}},
		{in: "!cancel", want: machinerun.Input{Text: "!cancel", Cancel: str("cancelled from the command line")}},
		{in: "!cancel=", want: machinerun.Input{Text: "!cancel=", Cancel: str("cancelled from the command line")}},
		{in: "!cancel=operator request", want: machinerun.Input{Text: "!cancel=operator request", Cancel: str("operator request")}},
		{in: "!approve=5=HumanClaimsLead:alice", want: machinerun.Input{Text: "!approve=5=HumanClaimsLead:alice",
			Resolve: &machine.Resolution{Ref: "5", Verdict: "approve", Principal: "HumanClaimsLead", Name: "alice"}}},
		{in: "!reject=#7=HumanClaimsLead:bob", want: machinerun.Input{Text: "!reject=#7=HumanClaimsLead:bob",
			Resolve: &machine.Resolution{Ref: "#7", Verdict: "reject", Principal: "HumanClaimsLead", Name: "bob"}}},
		{in: "!accept=risk_score=risk_officer", want: machinerun.Input{Text: "!accept=risk_score=risk_officer",
			Claim: &machine.ClaimVerdict{Claim: "risk_score", Verdict: machine.VerdictAccept, Principal: "risk_officer"}}},
		{in: "!reject-claim=risk_score=risk_officer", want: machinerun.Input{Text: "!reject-claim=risk_score=risk_officer",
			Claim: &machine.ClaimVerdict{Claim: "risk_score", Verdict: machine.VerdictReject, Principal: "risk_officer"}}},

		{in: "+soon", err: `input "+soon": +DURATION moves the clock, e.g. +30m: ` + errText(value.ParseDuration("soon"))},
		{in: "+", err: `input "+": +DURATION moves the clock, e.g. +30m: ` + errText(value.ParseDuration(""))},
		{in: "!approve=5", err: `input "!approve=5": write !approve=STEP=PRINCIPAL:NAME (!approve=5=HumanClaimsLead:alice), STEP the #number of the step that holds the intent, or the intent's id`},
		{in: "!reject==HumanClaimsLead:alice", err: `input "!reject==HumanClaimsLead:alice": write !reject=STEP=PRINCIPAL:NAME (!reject=5=HumanClaimsLead:alice), STEP the #number of the step that holds the intent, or the intent's id`},
		{in: "!approve=5=alice", err: `input "!approve=5=alice": an approver is PRINCIPAL:NAME (HumanClaimsLead:alice), not "alice"`},
		{in: "!approve=5=HumanClaimsLead:", err: `input "!approve=5=HumanClaimsLead:": an approver is PRINCIPAL:NAME (HumanClaimsLead:alice), not "HumanClaimsLead:"`},
		{in: "!accept=risk_score", err: `input "!accept=risk_score": write !accept=CLAIM=PRINCIPAL (!accept=score=risk_officer), CLAIM the claimed context field`},
		{in: "!reject-claim==risk_officer", err: `input "!reject-claim==risk_officer": write !reject-claim=CLAIM=PRINCIPAL (!reject-claim=score=risk_officer), CLAIM the claimed context field`},
		{in: "!accept=risk_score=", err: `input "!accept=risk_score=": write !accept=CLAIM=PRINCIPAL (!accept=score=risk_officer), CLAIM the claimed context field`},
		{in: "!approve", err: `input "!approve": the ! inputs are !cancel, !approve=STEP=PRINCIPAL:NAME, !reject=STEP=PRINCIPAL:NAME, !accept=CLAIM=PRINCIPAL and !reject-claim=CLAIM=PRINCIPAL`},
		{in: "!cancelled", err: `input "!cancelled": the ! inputs are !cancel, !approve=STEP=PRINCIPAL:NAME, !reject=STEP=PRINCIPAL:NAME, !accept=CLAIM=PRINCIPAL and !reject-claim=CLAIM=PRINCIPAL`},
		{in: "={}", err: `input "={}": write an event as NAME or NAME={json payload}`},
		{in: "", err: `input "": write an event as NAME or NAME={json payload}`},
		{in: `Submit={"score": 1`, err: `event Submit: the payload is not JSON: unexpected end of JSON input`},
		{in: "Submit=", err: `event Submit: the payload is not JSON: unexpected end of JSON input`},
		{in: "Submit=score", err: `event Submit: the payload is not JSON: invalid character 's' looking for beginning of value`},
	} {
		got, err := machinerun.ParseInput(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseInput(%q): error %v\nwant %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseInput(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseInput(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestParseInputs: the inputs in order; the first bad one is the error.
func TestParseInputs(t *testing.T) {
	got, err := machinerun.ParseInputs([]string{"Submit", "+1h", "!cancel=done"})
	if err != nil {
		t.Fatal(err)
	}
	reason := "done"
	want := []machinerun.Input{{Text: "Submit", Event: machine.Event{Name: "Submit"}}, {Text: "+1h", Advance: true, AdvanceMs: 3600 * 1000}, {Text: "!cancel=done", Cancel: &reason}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, err := machinerun.ParseInputs([]string{"Submit", "!nope", "=x"}); got != nil || err == nil || !strings.HasPrefix(err.Error(), `input "!nope": `) {
		t.Errorf("got %v, %v; want the error of !nope", got, err)
	}
}

func mustParse(t *testing.T, args ...string) []machinerun.Input {
	t.Helper()
	ins, err := machinerun.ParseInputs(args)
	if err != nil {
		t.Fatal(err)
	}
	return ins
}

// row is a step in short.
type row struct {
	Seq       uint64
	Label     string // the event, or the cause of a step without one
	From, To  string
	OK        bool
	Code      string
	Defaulted []string
	Effects   []string // LABEL STATUS
	Resolves  uint64
}

func rows(res *machinerun.Result) []row {
	var out []row
	for _, s := range res.Steps {
		r := row{Seq: s.Seq, Label: s.Event, From: s.From, To: s.To, OK: s.OK, Defaulted: s.Defaulted, Resolves: s.Resolves}
		if r.Label == "" {
			r.Label = string(s.Cause)
		}
		if s.Failure != nil {
			r.Code = s.Failure.Code
		}
		for _, e := range s.Effects {
			r.Effects = append(r.Effects, e.Spec.Label()+" "+string(e.Status))
		}
		out = append(out, r)
	}
	return out
}

const claimReview = "../../examples/03_claim_review_machine.caps"

// TestDryRun: dry-run mode plans the intents, gives the payload fields an
// event leaves out their zero values (and names them), goes on after a
// failed step, and prints as caps machine-run does.
func TestDryRun(t *testing.T) {
	pkg := testutil.Load(t, claimReview)
	ins := mustParse(t, "SubmitClaim", `ReviewCompleted={"review_score": 12}`, "Nope", "Approve", "+1h", "!cancel")
	res, err := machinerun.Execute(context.Background(), pkg, claimReview, "ClaimReview", ins, machinerun.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []row{
		{Seq: 1, Label: "SubmitClaim", From: "idle", To: "awaiting_review", OK: true, Defaulted: []string{"claim_id", "amount_cents"},
			Effects: []string{"db.write operational.claims planned", "a2a.task claim_reviewer.review_claim planned", "a2ui.emit claim_status planned"}},
		{Seq: 2, Label: "ReviewCompleted", From: "awaiting_review", To: "awaiting_human_decision", OK: true,
			Effects: []string{"db.write operational.agent_tasks planned", "a2ui.emit claim_decision planned"}},
		{Seq: 3, Label: "Nope", From: "awaiting_human_decision", To: "awaiting_human_decision", Code: "R_UNKNOWN_EVENT"},
		{Seq: 4, Label: "Approve", From: "awaiting_human_decision", To: "accepted", OK: true,
			Effects: []string{"db.write operational.decisions planned", "db.project operational.claims knowledge planned", "a2ui.emit claim_status planned"}},
		{Seq: 6, Label: "cancel", From: "accepted", To: "accepted", Code: "R_FINAL_STATE"},
	}
	if diff := cmp.Diff(want, rows(res)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if !res.Failed || res.Problems != nil || res.LedgerFailed || res.Ledger != "" {
		t.Errorf("failed %v, problems %v, ledger failed %v, ledger %q", res.Failed, res.Problems, res.LedgerFailed, res.Ledger)
	}
	id := res.Instance.ID()
	wantText := `ClaimReview (dry-run), instance ` + id + `
#1 SubmitClaim: idle -> awaiting_review
    defaulted (zero values): claim_id, amount_cents
    db.write operational.claims: planned
    a2a.task claim_reviewer.review_claim: planned
    a2ui.emit claim_status: planned
#2 ReviewCompleted: awaiting_review -> awaiting_human_decision
    db.write operational.agent_tasks: planned
    a2ui.emit claim_decision: planned
#3 Nope: FAILED R_UNKNOWN_EVENT: ` + res.Steps[2].Failure.Message + `
#4 Approve: awaiting_human_decision -> accepted
    db.write operational.decisions: planned
    db.project operational.claims knowledge: planned
    a2ui.emit claim_status: planned
#6 !cancel: FAILED R_FINAL_STATE: the instance is in final state accepted; there is nothing to cancel
state accepted (final), clock 1h
context {"claim_id":"0","amount_cents":"0","review_score":12,"reviews":1,"approved":true,"reason":""}
`
	if diff := cmp.Diff(wantText, res.Text()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	rep := res.Report()
	if rep.Mode != "dry-run" || rep.State != "accepted" || rep.Status != "final" || rep.Clock != "1h" || len(rep.Steps) != 5 ||
		!cmp.Equal(rep.Steps[0].Defaulted, []string{"claim_id", "amount_cents"}) || string(rep.Steps[0].Payload) != `{"claim_id":"0","amount_cents":"0"}` ||
		rep.Steps[2].Error == nil || rep.Steps[2].Error.Code != "R_UNKNOWN_EVENT" {
		b, _ := json.Marshal(rep)
		t.Errorf("report: %s", b)
	}
}

// TestStrictPayloads: mock mode, and dry-run with StrictPayloads, leave a
// payload as it is: a missing field is a failed step.
func TestStrictPayloads(t *testing.T) {
	pkg := testutil.Load(t, claimReview)
	for _, o := range []machinerun.Options{{Mode: machine.Mock}, {Mode: machine.DryRun, StrictPayloads: true}} {
		res, err := machinerun.Execute(context.Background(), pkg, claimReview, "ClaimReview", mustParse(t, "SubmitClaim"), o)
		if err != nil {
			t.Fatal(err)
		}
		want := []row{{Seq: 1, Label: "SubmitClaim", From: "idle", To: "idle", Code: "R_BAD_PAYLOAD"}}
		if diff := cmp.Diff(want, rows(res)); diff != "" || !res.Failed {
			t.Errorf("%+v: failed %v (-want +got):\n%s", o, res.Failed, diff)
		}
	}
}

// TestMockLedger: a mock run with a mocks file, recorded in a new ledger
// that replays; a second run into the same folder does not start.
func TestMockLedger(t *testing.T) {
	const file = "../../examples/insurance_claim.caps"
	pkg := testutil.Load(t, file)
	dir := filepath.Join(t.TempDir(), "ledger")
	o := machinerun.Options{Mode: machine.Mock, Mocks: "../../examples/mocks/insurance_claim.assessor_down.json", Ledger: dir, Sync: ledger.SyncStep}
	ins := mustParse(t, `FileClaim={"claim_id":1,"policy_id":2,"amount_cents":300}`)
	res, err := machinerun.Execute(context.Background(), pkg, file, "WarrantyClaim", ins, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Problems != nil || res.LedgerFailed || res.Ledger != dir || len(res.Steps) != 1 {
		t.Fatalf("problems %v, ledger failed %v, ledger %q, %d steps", res.Problems, res.LedgerFailed, res.Ledger, len(res.Steps))
	}
	var statuses []string
	for _, e := range res.Steps[0].Effects {
		statuses = append(statuses, e.Spec.Label()+" "+string(e.Status)+" "+e.Code)
	}
	// The mocks file takes the assessor agent down: its task fails and the
	// intents after it are skipped.
	wantStatuses := []string{"db.write claims_db.claims executed ", "a2a.task damage_assessor.estimate_repair failed E_UNAVAILABLE", "a2ui.emit claim_intake skipped "}
	if diff := cmp.Diff(wantStatuses, statuses); diff != "" {
		t.Errorf("intents (-want +got):\n%s", diff)
	}
	rep := replay.Dir(dir, replay.Options{Trace: true})
	if !rep.OK || rep.Records == 0 || rep.Verified != rep.Records || rep.Inputs != 1 || rep.Steps != 1 || rep.Mode != "mock" ||
		rep.Machine != "WarrantyClaim" || rep.InstanceID != res.Instance.ID() || rep.State != res.Instance.State() {
		b, _ := json.Marshal(rep)
		t.Errorf("replay: %s", b)
	}
	if got := res.Report().Ledger; got != dir {
		t.Errorf("report ledger %q", got)
	}
	if !strings.HasSuffix(res.Text(), "\nledger "+dir+"\n") {
		t.Errorf("text does not end with the ledger:\n%s", res.Text())
	}
	_, err = machinerun.Execute(context.Background(), pkg, file, "WarrantyClaim", ins, o)
	if !errors.Is(err, ledger.ErrExists) || err.Error() != ledger.ErrExists.Error()+": "+filepath.Join(dir, ledger.FileName) {
		t.Errorf("second run into %s: %v", dir, err)
	}
}

// TestApproval: an intent the authority escalated is held; an approver
// the module does not allow fails, an allowed one resumes it.
func TestApproval(t *testing.T) {
	const file = "../machine/testdata/refund_reviewer.caps"
	pkg := testutil.Load(t, file)
	ins := mustParse(t, `RequestPrivilegedAction={"request_id":7,"amount_usd":80}`, `HumanApproved={"approval_id":"A-1"}`,
		"!approve=2=AgentRefundReviewer:bot", "!approve=#2=HumanClaimsLead:alice", "!approve=2=HumanClaimsLead:alice")
	res, err := machinerun.Execute(context.Background(), pkg, file, "EnclosedAgent", ins, machinerun.Options{Mode: machine.Mock})
	if err != nil {
		t.Fatal(err)
	}
	got := rows(res)
	const refund = "mcp.call GateCapsule.http_call_refundapi_issue_refund"
	want := []row{
		{Seq: 1, Label: "RequestPrivilegedAction", From: "ready", To: "waiting_for_approval", OK: true,
			Effects: []string{"policy.evaluate PolicyCapsule executed", "approval.request HumanApprovalGate executed"}},
		{Seq: 2, Label: "HumanApproved", From: "waiting_for_approval", To: "ready", OK: true,
			Effects: []string{"capability.issue CapHttpCallRefundapiIssueRefund executed", refund + " escalated", "receipt.emit privileged_action_executed skipped"}},
		{Seq: 3, Label: "approval", From: "ready", To: "ready", Code: "R_APPROVER_NOT_ALLOWED"},
		{Seq: 4, Label: "approval", From: "ready", To: "ready", OK: true, Resolves: 2,
			Effects: []string{refund + " executed", "receipt.emit privileged_action_executed executed"}},
		{Seq: 5, Label: "approval", From: "ready", To: "ready", Code: "R_NOT_HELD"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	rep := res.Report()
	if a := rep.Steps[3].Approval; a == nil || *a != (machinerun.ApprovalReport{Ref: "#2", Verdict: "approve", Principal: "HumanClaimsLead", Name: "alice"}) || rep.Steps[3].Resolves != 2 {
		t.Errorf("approval step: %+v", rep.Steps[3])
	}
	text := res.Text()
	for _, line := range []string{"#4 !approve #2 by HumanClaimsLead:alice: resolves #2, in ", "#3 !approve 2 by AgentRefundReviewer:bot: FAILED "} {
		if !strings.Contains(text, line) {
			t.Errorf("text lacks %q:\n%s", line, text)
		}
	}
}

// TestStartErrors: a run that cannot start says why, naming the module as
// Options.Name shows it.
func TestStartErrors(t *testing.T) {
	pkg := testutil.Load(t, claimReview)
	missing := filepath.Join(t.TempDir(), "missing.json")
	for _, tc := range []struct {
		name, machine string
		o             machinerun.Options
		want          string
	}{
		{"unknown machine", "Nope", machinerun.Options{Name: "claims.caps"}, "claims.caps: " + errText(machine.Compile(pkg.Result, "Nope", machine.Options{}))},
		{"unknown machine, no name", "Nope", machinerun.Options{}, claimReview + ": " + errText(machine.Compile(pkg.Result, "Nope", machine.Options{}))},
		{"replay mode", "ClaimReview", machinerun.Options{Mode: machine.Replay}, `mode "replay": a machine runs in dry-run, mock or live mode`},
		{"missing mocks", "ClaimReview", machinerun.Options{Mode: machine.Mock, Mocks: missing}, errText(adapters.LoadMocks(missing))},
	} {
		_, err := machinerun.Execute(context.Background(), pkg, claimReview, tc.machine, nil, tc.o)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

// errText is the text of the error a call returns ("" for none: the
// test comparing with it then fails).
func errText(_ any, err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestApplyAdvanceError: an advance that cannot complete is an error
// named by the input's text; Execute counts it as a failure and goes on.
func TestApplyAdvanceError(t *testing.T) {
	pkg := testutil.Load(t, claimReview)
	back := machinerun.Input{Text: "+back", Advance: true, AdvanceMs: -1000}
	res, err := machinerun.Execute(context.Background(), pkg, claimReview, "ClaimReview", append([]machinerun.Input{back}, mustParse(t, "SubmitClaim")...), machinerun.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, p := range res.Problems {
		problems = append(problems, p.Error())
	}
	if diff := cmp.Diff([]string{"+back: cannot move the clock back (advance by -1000ms)"}, problems); diff != "" || !res.Failed || len(res.Steps) != 1 || !res.Steps[0].OK {
		t.Errorf("failed %v, %d steps; problems (-want +got):\n%s", res.Failed, len(res.Steps), diff)
	}
}
