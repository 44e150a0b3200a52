package scenario_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/scenario"
)

func compile(t *testing.T, path, name string) *machine.Machine {
	t.Helper()
	p, err := (&load.Loader{}).Load(path)
	if err != nil || p.Result.HasErrors() {
		t.Fatalf("load %s: %v", path, err)
	}
	m, err := machine.Compile(p.Result, name, machine.Options{Hash: p.Hash})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestShippedScenarios runs every examples/scenarios/MODULE.MACHINE.json
// against examples/MODULE.caps.
func TestShippedScenarios(t *testing.T) {
	files, _ := filepath.Glob("../../examples/scenarios/*.json")
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := scenario.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			module := "../../examples/" + strings.SplitN(filepath.Base(f), ".", 2)[0] + ".caps"
			if _, err := os.Stat(module); err != nil {
				// Not named MODULE.MACHINE.json (the spec's
				// change_approval_happy_path.json): the module is the
				// example that declares the machine.
				module = exampleDeclaring(t, s.Machine)
			}
			m := compile(t, module, s.Machine)
			if r := scenario.Run(m, s); !r.Passed {
				t.Errorf("%s", r.Text(f))
			}
		})
	}
}

func TestDiffs(t *testing.T) {
	m := compile(t, "../machine/testdata/vent.caps", "VentController")
	s, err := scenario.Parse([]byte(`{"machine": "VentController", "mode": "mock",
	  "mocks": {"mocks": [{"effect": "mcp.call", "event": "Storm", "outcomes": [{"ok": false}]}]},
	  "events": [
		{"event": "SetVent", "payload": {"percent": 40}, "expect": {"state": "idle", "ok": true, "context": {"percent": 40, "moves": 1},
		  "effects": [{"effect": "db.write", "target": "climate.commands", "status": "executed"}, {"effect": "mcp.call"}]}},
		{"event": "SetVent", "payload": {"percent": 400}, "expect": {"state": "idle", "ok": false, "effects": []}},
		{"event": "SetVent", "payload": {"percent": 400}, "expect": {"state": "sealed", "ok": true, "context": {"percent": 41, "colour": 1, "moves": "x"},
		  "effects": [{"effect": "db.write", "target": "climate.other"}]}},
		{"event": "Storm", "expect": {"state": "sealed", "effects": [{"effect": "mcp.call", "status": "failed"}]}},
		{"advance": "5h", "expect": {"state": "sealed", "effects": []}},
		{"advance": "1h", "expect": {"state": "idle", "ok": true, "effects": []}},
		{"cancel": true, "expect": {"state": "idle", "ok": true}},
		{"event": "Storm", "expect": {"state": "idle", "ok": false}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := scenario.Run(m, s)
	want := `FAIL vent.json
    step 3 (SetVent):
        state: expected sealed, got idle (R_GUARD_FALSE: guard (<= event.percent 100) is false in state idle)
        ok: expected the step to succeed, but it failed: R_GUARD_FALSE: guard (<= event.percent 100) is false in state idle
        context: machine VentController has no field colour
        context.moves: bad expected value "x": expected U32, found "x"
        context.percent: expected 41, got 40
        effects: expected 1, got 0
        effects[0]: expected db.write climate.other, got nothing
`
	if got := r.Text("vent.json"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{
		`{"events": []}`,
		`{"machine": "M", "events": [{"event": "A", "advance": "1h"}]}`,
		`{"machine": "M", "events": [{}]}`,
		`{"machine": "M", "events": [{"advance": "1h", "payload": {}}]}`,
		`{"machine": "M", "mocks": {"mocks": []}, "events": []}`,
		`{"machine": "M", "mode": "live", "events": []}`,
		`{"machine": "M", "events": [{"event": "A", "expect": {"sate": "x"}}]}`,
	} {
		if _, err := scenario.Parse([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// exampleDeclaring returns the one example that declares machine name.
func exampleDeclaring(t *testing.T, name string) string {
	t.Helper()
	files, _ := filepath.Glob("../../examples/*.caps")
	var found []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "(machine "+name+"\n") {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		t.Fatalf("machine %s is declared by %d examples (%v); name the scenario MODULE.MACHINE.json", name, len(found), found)
	}
	return found[0]
}

// TestExtraTargets: an intent with several targets (db.project's
// projection) matches its first target or all of them, nothing else.
func TestExtraTargets(t *testing.T) {
	m := compile(t, "../../examples/03_claim_review_machine.caps", "ClaimReview")
	run := func(target string) *scenario.Result {
		s, err := scenario.Parse([]byte(`{"machine": "ClaimReview", "events": [
			{"event": "SubmitClaim", "payload": {"claim_id": 1, "amount_cents": 2}},
			{"event": "ReviewCompleted", "payload": {"review_score": 3}},
			{"event": "Approve", "expect": {"state": "accepted", "effects": [{"effect": "db.write"}, {"effect": "db.project", "target": "` + target + `"}, {"effect": "a2ui.emit"}]}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		return scenario.Run(m, s)
	}
	for target, pass := range map[string]bool{"operational.claims": true, "operational.claims knowledge": true,
		"knowledge": false, "operational.claims  knowledge": false, "operational.claims knowledge x": false} {
		if r := run(target); r.Passed != pass {
			t.Errorf("target %q: passed %v, want %v\n%s", target, r.Passed, pass, r.Text("s.json"))
		}
	}
}

// TestCodes: a step may expect its failure's code, and an intent its
// denial's code.
func TestCodes(t *testing.T) {
	m := compile(t, "../machine/testdata/refund_reviewer.caps", "EnclosedAgent")
	s, err := scenario.Parse([]byte(`{"machine": "EnclosedAgent", "events": [
		{"event": "Export", "expect": {"state": "ready", "effects": [{"effect": "policy.evaluate"},
		  {"effect": "mcp.call", "status": "denied", "code": "R_AUTHORITY_DENIED"}]}},
		{"event": "HumanApproved", "payload": {"approval_id": "A"}, "expect": {"ok": false, "code": "R_NO_TRANSITION"}},
		{"event": "Export", "expect": {"effects": [{"effect": "policy.evaluate"}, {"effect": "mcp.call", "code": "R_AUTHORITY_ESCALATED"}]}},
		{"event": "HumanApproved", "payload": {"approval_id": "A"}, "expect": {"code": "R_GUARD_FALSE"}},
		{"event": "Export", "expect": {"code": "R_NO_TRANSITION"}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := scenario.Run(m, s)
	want := `FAIL refund.json
    step 3 (Export):
        effects[1]: expected mcp.call R_AUTHORITY_ESCALATED, got mcp.call GateCapsule.export_claims [denied] R_AUTHORITY_DENIED
    step 4 (HumanApproved):
        code: expected R_GUARD_FALSE, got R_NO_TRANSITION: state ready has no transition for HumanApproved
    step 5 (Export):
        code: expected R_NO_TRANSITION, got no failure
`
	if got := r.Text("refund.json"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
