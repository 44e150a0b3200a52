package propose

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeReplay is a Replay hook that fails the ledgers named in bad and
// passes the others.
func fakeReplay(bad ...string) func(*Workspace, map[string][]byte, []string) TestReport {
	return func(_ *Workspace, _ map[string][]byte, files []string) TestReport {
		r := TestReport{Status: StatusPassed, Total: len(files)}
		for _, f := range files {
			it := TestItem{Name: f, Status: StatusPassed}
			for _, b := range bad {
				if f == b {
					it.Status, it.Message = StatusFailed, "diverges"
				}
			}
			if it.Status == StatusPassed {
				r.Passed++
			} else {
				r.Failed++
				r.Status = StatusFailed
			}
			r.Items = append(r.Items, it)
		}
		return r
	}
}

// TestMustPassReplay: a (must-pass replay GLOB) rule is met only by the
// ledgers its own glob matches, all replayed and passing; a glob that
// matches nothing is unmet however many other ledgers pass.
func TestMustPassReplay(t *testing.T) {
	const mod = `(module m
  (capsule "1.0")
  (eval-suite S (must-pass replay "ledgers/m/*.jsonl"))
  (function f (input (x U32)) (output U32) (body x)))
`
	tests := []struct {
		name    string
		ledgers []string // workspace files besides m.caps
		replay  func(*Workspace, map[string][]byte, []string) TestReport
		rule    RuleResult
		report  TestReport
	}{
		{"no ledger at all", nil, fakeReplay(),
			RuleResult{Rule: `(must-pass replay "ledgers/m/*.jsonl")`, Status: RuleMissing, Message: `the glob "ledgers/m/*.jsonl" matched no ledger; add golden ledgers it matches (from the workspace root or the module's folder)`},
			TestReport{Status: StatusNone, Reason: "no golden ledgers: no file matches ledgers/m/*.jsonl", Items: []TestItem{{Name: "ledgers/m/*.jsonl", Status: StatusNone, Message: "no file matches"}}}},
		{"only other ledgers", []string{"ledgers/golden/g.jsonl"}, fakeReplay(),
			RuleResult{Rule: `(must-pass replay "ledgers/m/*.jsonl")`, Status: RuleMissing, Message: `the glob "ledgers/m/*.jsonl" matched no ledger; add golden ledgers it matches (from the workspace root or the module's folder)`},
			TestReport{Status: StatusPassed, Total: 1, Passed: 1, Items: []TestItem{{Name: "ledgers/golden/g.jsonl", Status: StatusPassed}, {Name: "ledgers/m/*.jsonl", Status: StatusNone, Message: "no file matches"}}}},
		{"matched and replayed", []string{"ledgers/m/a.jsonl", "ledgers/m/b.jsonl"}, fakeReplay(),
			RuleResult{Rule: `(must-pass replay "ledgers/m/*.jsonl")`, Status: RuleMet},
			TestReport{Status: StatusPassed, Total: 2, Passed: 2, Items: []TestItem{{Name: "ledgers/m/a.jsonl", Status: StatusPassed}, {Name: "ledgers/m/b.jsonl", Status: StatusPassed}}}},
		{"one does not replay", []string{"ledgers/m/a.jsonl", "ledgers/m/b.jsonl"}, fakeReplay("ledgers/m/b.jsonl"),
			RuleResult{Rule: `(must-pass replay "ledgers/m/*.jsonl")`, Status: RuleFailed, Message: "does not replay: ledgers/m/b.jsonl"},
			TestReport{Status: StatusFailed, Total: 2, Passed: 1, Failed: 1, Items: []TestItem{{Name: "ledgers/m/a.jsonl", Status: StatusPassed}, {Name: "ledgers/m/b.jsonl", Status: StatusFailed, Message: "diverges"}}}},
		{"no replay verifier", []string{"ledgers/m/a.jsonl"}, nil,
			RuleResult{Rule: `(must-pass replay "ledgers/m/*.jsonl")`, Status: RuleMissing, Message: "not replayed (replay verifier not available): ledgers/m/a.jsonl"},
			TestReport{Status: StatusNotAvailable, Reason: "replay verifier not available", Total: 1, Items: []TestItem{{Name: "ledgers/m/a.jsonl", Status: StatusNotAvailable}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"m.caps": mod}
			for _, l := range tt.ledgers {
				files[l] = "{}\n"
			}
			ws := tempWorkspace(t, files)
			hooks := testHooks
			hooks.Replay = tt.replay
			cand := replaceOnce(t, mod, "(body x)", "(body (+ x 0))")
			p, err := Build(ws, Request{Kind: FromCandidate, Targets: []string{filepath.Join(ws.Root, "m.caps")}, Candidate: []byte(cand)}, hooks)
			if err != nil {
				t.Fatal(err)
			}
			a := Assess(ws, AssessInput{Proposal: p, Now: "now"}, hooks)
			if diff := cmp.Diff(tt.report, a.Tests.Replay); diff != "" {
				t.Errorf("replay report (-want +got):\n%s", diff)
			}
			if len(a.Governance.EvalSuites) != 1 || len(a.Governance.EvalSuites[0].Rules) != 1 {
				t.Fatalf("eval suites %+v", a.Governance.EvalSuites)
			}
			if diff := cmp.Diff(tt.rule, a.Governance.EvalSuites[0].Rules[0]); diff != "" {
				t.Errorf("rule (-want +got):\n%s", diff)
			}
		})
	}
}
