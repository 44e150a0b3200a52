package machine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/capsulang/caps/runtime/machine"
	"github.com/google/go-cmp/cmp"
)

// intentRow is one intent of a step, as the approval tests compare it.
type intentRow struct {
	Effect, Status, Code, Reason string
}

func rows(r machine.StepResult) []intentRow {
	var out []intentRow
	for _, e := range r.Effects {
		row := intentRow{Effect: e.Spec.Label(), Status: string(e.Status), Code: e.Code}
		if e.Authority != nil {
			row.Reason = e.Authority.Reason
		}
		out = append(out, row)
	}
	return out
}

// TestResolveDeferred approves a deferred intent in dry-run: the
// mandate's issuer approves (no capability names an approver), the
// intent and the rest of its transition are then planned, and nothing
// is held any more.
func TestResolveDeferred(t *testing.T) {
	m := compile(t, "testdata/deferred.caps", "Payer")
	inst, err := m.NewInstance(machine.InstanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := inst.Step(machine.Event{Name: "Pay", Raw: json.RawMessage(`{"amount": 5000}`)})
	deferred := `on defer (if "effect == \"mcp.call.Bank.transfer\" and amount > 1000") holds for mcp.call.Bank.transfer`
	if diff := cmp.Diff([]intentRow{
		{"mcp.call Bank.transfer", "deferred", "R_AUTHORITY_DEFERRED", deferred},
		{"receipt.emit transfer_receipt", "skipped", "", ""},
	}, rows(r)); diff != "" {
		t.Fatalf("step 1 (-want +got):\n%s", diff)
	}
	if h := inst.Held(); len(h) != 1 || h[0].Seq != 1 || h[0].Effect.Status != machine.Deferred {
		t.Fatalf("held: %+v", h)
	}
	steps := []struct {
		res  machine.Resolution
		code string // failure code, "" for a resolution
		want []intentRow
	}{
		{machine.Resolution{Ref: "1", Verdict: "approve", Principal: "PayBot", Name: "self"}, "R_APPROVER_NOT_ALLOWED", nil},
		{machine.Resolution{Ref: "2", Verdict: "approve", Principal: "Treasurer", Name: "tom"}, "R_NOT_HELD", nil},
		{machine.Resolution{Ref: "1", Verdict: "maybe", Principal: "Treasurer", Name: "tom"}, "R_BAD_INPUT", nil},
		{machine.Resolution{Ref: "#1", Verdict: "approve", Principal: "Treasurer", Name: "tom"}, "", []intentRow{
			{"mcp.call Bank.transfer", "planned", "", `approved by Treasurer:tom (held by Transfers on defer (if "effect == \"mcp.call.Bank.transfer\" and amount > 1000"))`},
			{"receipt.emit transfer_receipt", "planned", "", "receipt.emit transfer_receipt"},
		}},
		{machine.Resolution{Ref: "1", Verdict: "approve", Principal: "Treasurer", Name: "tom"}, "R_NOT_HELD", nil},
	}
	for n, s := range steps {
		r := inst.Resolve(ctx, s.res)
		code := ""
		if r.Failure != nil {
			code = r.Failure.Code
		}
		if code != s.code || r.OK != (s.code == "") || r.Cause != machine.CauseApproval || r.From != "idle" || r.To != "idle" {
			t.Errorf("resolution %d: code %q (%+v), want %q", n, code, r.Failure, s.code)
		}
		if diff := cmp.Diff(s.want, rows(r)); diff != "" {
			t.Errorf("resolution %d (-want +got):\n%s", n, diff)
		}
		if s.code == "" {
			if r.Resolves != 1 || r.Effects[0].Authority.Approval == nil || r.Effects[0].Authority.Approval.Held != "defer" {
				t.Errorf("resolution %d: resolves %d, approval %+v", n, r.Resolves, r.Effects[0].Authority.Approval)
			}
		}
	}
	if h := inst.Held(); len(h) != 0 {
		t.Errorf("still held: %+v", h)
	}
	// A cancelled instance's holds are withdrawn.
	inst.Step(machine.Event{Name: "Pay", Raw: json.RawMessage(`{"amount": 2000}`)})
	inst.Cancel("closing")
	if r := inst.Resolve(ctx, machine.Resolution{Ref: "7", Verdict: "approve", Principal: "Treasurer", Name: "tom"}); r.Failure == nil || r.Failure.Code != "R_CANCELLED" {
		t.Errorf("resolution after cancel: %+v", r.Failure)
	}
}
