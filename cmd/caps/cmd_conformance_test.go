package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type conformanceDoc struct {
	OK    bool `json:"ok"`
	Files []struct {
		Dir         string   `json:"dir"`
		SpecModules []string `json:"spec_modules"`
		Levels      []struct {
			ID           string `json:"id"`
			Met          bool   `json:"met"`
			OwnMet       bool   `json:"own_met"`
			Requirements []struct {
				Requirement string `json:"requirement"`
				Met         bool   `json:"met"`
				Evidence    string `json:"evidence"`
			} `json:"requirements"`
			Modules []string `json:"modules"`
		} `json:"levels"`
		Highest string `json:"highest_met"`
	} `json:"files"`
}

func runConformanceJSON(t *testing.T, dir string) conformanceDoc {
	t.Helper()
	r := runCaps(t, "", "conformance", "--json", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc conformanceDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	return doc
}

// TestConformanceExamples: the ladder on the shipped examples, run from
// the repository's root. Every level is met, live mode and the governed
// improvement workflow included: Z3 discharges every obligation of every
// module, so CPS-7 is shown for all 17 and CPS-8 to CPS-10 follow.
func TestConformanceExamples(t *testing.T) {
	needZ3(t)
	repoRoot(t)
	doc := runConformanceJSON(t, "examples")
	f := doc.Files[0]
	type level struct {
		ID          string
		Met, OwnMet bool
		// Unmet lists the requirements not met.
		Unmet []string
	}
	var got []level
	for _, l := range f.Levels {
		g := level{ID: l.ID, Met: l.Met, OwnMet: l.OwnMet}
		for _, r := range l.Requirements {
			if !r.Met {
				g.Unmet = append(g.Unmet, r.Requirement)
			}
		}
		got = append(got, g)
	}
	want := []level{
		{"CPS-0", true, true, nil}, {"CPS-1", true, true, nil}, {"CPS-2", true, true, nil},
		{"CPS-3", true, true, nil}, {"CPS-4", true, true, nil}, {"CPS-5", true, true, nil},
		{"CPS-6", true, true, nil}, {"CPS-7", true, true, nil},
		{"CPS-8", true, true, nil}, {"CPS-9", true, true, nil}, {"CPS-10", true, true, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" || f.Highest != "CPS-10" {
		t.Errorf("highest %s; levels (-want +got):\n%s", f.Highest, diff)
	}
	evidence := map[string]string{}
	for _, l := range f.Levels {
		for _, r := range l.Requirements {
			evidence[l.ID+" "+r.Requirement] = r.Evidence
		}
	}
	for key, parts := range map[string][]string{
		"CPS-3 timeout, retry, failure and cancellation are exercised": {"the scenario runs show timeouts (1 state timeout fired, 1 intent timed out), retries (1 intent retried, 3 attempts in all), failures (", "cancellation (1 instance cancelled, 1 later event refused with R_CANCELLED)"},
		"CPS-3 machines run in live mode": {"3 scenarios (03_claim_review_machine.ClaimReview.json, 03_claim_review_machine.ClaimReview.withdrawn.json, insurance_claim.WarrantyClaim.json) run with caps machine-run --mode live against loopback peers started by this command",
			": 14 steps, 28 intents executed; the peers received 3 agent card reads, 5 A2A messages, 10 A2UI posts (25 messages) and 0 HTTP requests, as the runs report; 12 store records written; each run ends in the state its scenario expects; caps replay --trace verifies every ledger byte for byte. Not run live: 24_private_deployment_risk_proof.PrivateRiskGate.json (MCP),",
			"insurance_claim.WarrantyClaim.timeouts.json (mock outcomes)"},
		"CPS-3 a peer that is down fails the intent, and the ledger replays":   {"with the peers stopped, 03_claim_review_machine.ClaimReview.json runs live again: its first intent to a peer, a2a.task claim_reviewer.review_claim (step 1), fails with R_PEER_DOWN and the rest of that transition is skipped; caps replay --trace verifies its 30 ledger records"},
		"CPS-4 a changed ledger fails to replay":                               {"with one record changed, caps replay rejects "},
		"CPS-6 a manifest":                                                     {"caps manifest --json exits 0 and describes ", "is what the command table generates"},
		"CPS-6 CI evidence":                                                    {".ci/run runs caps conformance and the test suite (make test)"},
		"CPS-8 improvement declarations are parsed, checked and canonicalized": {"modules that check and hash (canonical IR), authority.caps, improvement_governance.caps, declare 8 of the 8 kinds: lineage, objective, eval-suite, successor-contract, budget, gate, deployment-policy, improvement-record"},
		"CPS-8 improvement records are ledger-ready": {"in a temporary workspace holding a copy of examples, caps propose adds a function with an example to each module with a gate (2 modules), then caps assess and caps commit: " +
			"authority.caps assessed needs-approval (gates: ControllerSignoff incomplete), refused without approval, then committed with --approve FinanceController:caps-conformance; " +
			"improvement_governance.caps assessed incomplete (6 governance requirements unmet; gates: PromoteRouter incomplete), its commit refused even with the approvals, the file unchanged; " +
			"the evolution ledger holds the improvement record of each commit"},
		"CPS-8 the evolution ledger verifies, and a changed one is refused": {"caps ledger verify: 6 records, hash chain intact; with one commit record changed it exits 1 naming line 3, and caps propose refuses to write"},
	} {
		ev, ok := evidence[key]
		for _, p := range parts {
			if !ok || !strings.Contains(ev, p) {
				t.Errorf("%s: evidence %q lacks %q", key, ev, p)
			}
		}
	}
	v := f.Levels[7]
	names := []string{"01_abs_i64.caps", "03_claim_review_machine.caps", "11_text_ops.caps", "17_imports.caps",
		"23_change_approval_workflow.caps", "24_private_deployment_risk_proof.caps", "30_protocol_native_a2ui.caps",
		"31_claims_before_facts.caps", "abs.caps", "authority.caps", "contracts.caps", "improvement_governance.caps",
		"insurance_claim.caps", "private_risk_proof.caps", "protocol_surface.caps", "release_approval.caps", "text_and_records.caps"}
	var wantModules []string
	for _, n := range names {
		wantModules = append(wantModules, "examples/"+n)
	}
	if diff := cmp.Diff(wantModules, v.Modules); diff != "" {
		t.Errorf("CPS-7 modules (-want +got):\n%s", diff)
	}
	// The solver's version line comes first; the rest is exact.
	wantEv := " discharges 262 of 262 obligations; every obligation of 17 of 17 modules: " + strings.Join(names, ", ") +
		". Shown for those modules only, by the SMT solver: their Lean statements (caps emit-lean-obligations) still end in sorry"
	if ev := v.Requirements[0].Evidence; !strings.HasPrefix(ev, "Z3 version ") || !strings.HasSuffix(ev, wantEv) {
		t.Errorf("CPS-7 evidence: %q; want Z3 version ...%q", ev, wantEv)
	}
	if len(f.SpecModules) == 0 || !strings.HasSuffix(f.SpecModules[0], "01_abs_i64.caps") {
		t.Errorf("spec modules: %v", f.SpecModules)
	}
}

// liveModule is a module whose machine talks to an A2A agent, an HTTP
// service and a store, with a gate: the live and evolution runs of caps
// conformance on a folder of its own.
const liveModule = `(module c.live
  (capsule "0")
  (store ops
    (backend file)
    (authority runtime-state)
    (collection requests))
  (agent reviewer
    (protocol a2a)
    (skill review))
  (port notifier
    (protocol http)
    (endpoint "https://notify.example.test")
    (tool notify))
  (gate Signoff
    (summary "The owner signs off every change.")
    (requires approval Owner granted)
    (on-fail reject)
    (on-pass manual))
  (function inc
    (input (x U32))
    (output U32)
    (body (+ x 1))
    (example (inc 1) 2))
  (machine Request
    (version "1")
    (context (n U64))
    (event Submit (n U64))
    (event Close)
    (initial idle)
    (state idle
      (on Submit
        (target review)
        (assign (n event.n))
        (effects
          (db.write ops.requests)
          (a2a.task reviewer.review)
          (http.call notifier.notify))))
    (state review
      (on Close
        (target closed)
        (effects (db.write ops.requests))))
    (state closed (type final))))
`

// liveFolder writes liveModule and a scenario into a new folder.
func liveFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755)
	os.WriteFile(filepath.Join(dir, "live.caps"), []byte(liveModule), 0o644)
	os.WriteFile(filepath.Join(dir, "scenarios", "live.Request.json"), []byte(`{"machine": "Request", "events": [
  {"event": "Submit", "payload": {"n": 5}, "expect": {"state": "review"}},
  {"event": "Close", "expect": {"state": "closed"}}]}`), 0o644)
	return dir
}

// requirements returns the requirements of a level by name.
func requirements(t *testing.T, doc conformanceDoc, id string) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	for _, l := range doc.Files[0].Levels {
		if l.ID == id {
			for _, r := range l.Requirements {
				out[r.Requirement] = [2]string{map[bool]string{true: "met", false: "NOT"}[r.Met], r.Evidence}
			}
		}
	}
	return out
}

// TestConformanceLiveAndEvolution: on a folder of its own, the live runs
// reach every peer (the HTTP service too) and the evolution run commits
// with the gate's approval; the evidence is exact. Then, with the A2A
// agent stopped before the runs, live mode is unmet with the reason; and
// with the evolution ledger changed after the commits, CPS-8's workflow
// is unmet with the reason.
func TestConformanceLiveAndEvolution(t *testing.T) {
	needZ3(t)
	dir := liveFolder(t)
	doc := runConformanceJSON(t, dir)
	want3 := map[string][2]string{
		"machines run in live mode":                                    {"met", "1 scenario (live.Request.json) run with caps machine-run --mode live against loopback peers started by this command (an A2A agent, an A2UI renderer and an HTTP service, in Go on 127.0.0.1) and file-backed stores: 2 steps, 4 intents executed; the peers received 1 agent card read, 1 A2A message, 0 A2UI posts (0 messages) and 1 HTTP request, as the runs report; 2 store records written; each run ends in the state its scenario expects; caps replay --trace verifies every ledger byte for byte"},
		"a peer that is down fails the intent, and the ledger replays": {"met", "with the peers stopped, live.Request.json runs live again: its first intent to a peer, a2a.task reviewer.review (step 1), fails with R_PEER_DOWN and the rest of that transition is skipped; caps replay --trace verifies its 12 ledger records"},
		"machines step and run in dry-run and mock modes":              {"met", "caps test runs 1 scenario of " + filepath.Join(dir, "scenarios") + ": exit 0"},
		"runs are deterministic":                                       {"met", "a second run of the same scenarios prints the same bytes"},
		"timeout, retry, failure and cancellation are exercised":       {"NOT", "the scenario runs show none of them; not: timeouts (0 state timeouts fired, 0 intents timed out), retries (0 intents retried, 0 attempts in all), failures (0 failed steps, 0 failed intents), cancellation (0 instances cancelled, 0 later events refused with R_CANCELLED)"},
	}
	if diff := cmp.Diff(want3, requirements(t, doc, "CPS-3")); diff != "" {
		t.Errorf("CPS-3 (-want +got):\n%s", diff)
	}
	want8 := map[string][2]string{
		"improvement declarations are parsed, checked and canonicalized": {"NOT", "modules that check and hash (canonical IR), live.caps, declare 1 of the 8 kinds: gate; none declares lineage, objective, eval-suite, successor-contract, budget, deployment-policy, improvement-record"},
		"improvement records are ledger-ready":                           {"met", "in a temporary workspace holding a copy of " + dir + ", caps propose adds a function with an example to each module with a gate (1 module), then caps assess and caps commit: live.caps assessed needs-approval (gates: Signoff incomplete), refused without approval, then committed with --approve Owner:caps-conformance; the evolution ledger holds the improvement record of each commit (event, parent, candidate and diff hashes, a policy decision for every gate, the approvals)"},
		"the evolution ledger verifies, and a changed one is refused":    {"met", "caps ledger verify: 4 records, hash chain intact; with one commit record changed it exits 1 naming line 3, and caps propose refuses to write"},
	}
	if diff := cmp.Diff(want8, requirements(t, doc, "CPS-8")); diff != "" {
		t.Errorf("CPS-8 (-want +got):\n%s", diff)
	}

	// The A2A agent refuses connections from the start.
	conformanceLiveHook = func(p *conformancePeers) { p.a2a.close() }
	t.Cleanup(func() { conformanceLiveHook = nil })
	// The evolution ledger loses a record's integrity after the commits.
	conformanceEvolutionHook = func(ws string) {
		path := filepath.Join(ws, ".caps", "ledger", "evolution.jsonl")
		data, _ := os.ReadFile(path)
		os.WriteFile(path, []byte(strings.Replace(string(data), `"by":"agent:caps-conformance"`, `"by":"agent:mallory"`, 1)), 0o644)
	}
	t.Cleanup(func() { conformanceEvolutionHook = nil })
	doc = runConformanceJSON(t, dir)
	got3, got8 := requirements(t, doc, "CPS-3"), requirements(t, doc, "CPS-8")
	live := got3["machines run in live mode"]
	if live[0] != "NOT" || !strings.HasPrefix(live[1], "live.Request.json: a2a.task reviewer.review: failed R_PEER_DOWN agent reviewer at http://127.0.0.1:") || !strings.Contains(live[1], "/.well-known/agent-card.json is down (") {
		t.Errorf("live mode with the agent stopped: %v", live)
	}
	if down := got3["a peer that is down fails the intent, and the ledger replays"]; down != [2]string{"NOT", "not run: the live runs did not succeed"} {
		t.Errorf("peer-down run: %v", down)
	}
	ready := got8["improvement records are ledger-ready"]
	if ready[0] != "NOT" || !strings.HasPrefix(ready[1], "caps ledger verify exits 1 after the workflow: line 1: ") {
		t.Errorf("CPS-8 with the ledger changed: %v", ready)
	}
	if l := got8["the evolution ledger verifies, and a changed one is refused"]; l != [2]string{"NOT", "not run: the improvement workflow did not complete"} {
		t.Errorf("CPS-8 ledger: %v", l)
	}
	for _, l := range doc.Files[0].Levels {
		if (l.ID == "CPS-3" || l.ID == "CPS-8") && (l.Met || l.OwnMet) {
			t.Errorf("%s met with a requirement unmet", l.ID)
		}
	}
}

// TestConformanceHonest: a failing example stops the ladder at CPS-1, and
// a failed obligation keeps its module out of CPS-7.
func TestConformanceHonest(t *testing.T) {
	needZ3(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.caps"), []byte(`(module c.good
  (capsule "0")
  (function inc (input (x U32)) (output U32)
    (requires (< x 100))
    (ensures (> result x))
    (body (+ x 1))
    (example (inc 1) 2)))
`), 0o644)
	os.WriteFile(filepath.Join(dir, "wrong.caps"), []byte(`(module c.wrong
  (capsule "0")
  (function bump (input (x U32)) (output U32)
    (ensures (> result x))
    (body (+ x 1))
    (example (bump 1) 3)))
`), 0o644)
	f := runConformanceJSON(t, dir).Files[0]
	if f.Highest != "CPS-1" || f.Levels[2].Met || f.Levels[2].Requirements[0].Evidence != "1 of 2 function examples pass in the interpreter (failing in: wrong.caps)" {
		t.Errorf("highest %s; CPS-2 %+v", f.Highest, f.Levels[2])
	}
	if diff := cmp.Diff([]string{filepath.ToSlash(filepath.Join(dir, "good.caps"))}, f.Levels[7].Modules); diff != "" {
		t.Errorf("CPS-7 modules (-want +got):\n%s", diff)
	}
	if r := runCaps(t, "", "conformance", t.TempDir()); r.code != 2 || !strings.Contains(r.stderr, "holds no .caps module") {
		t.Errorf("empty folder: exit %d %q", r.code, r.stderr)
	}
}
