package replay_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/replay"
	"github.com/google/go-cmp/cmp"
)

const claimMocks = `{"mocks": [
  {"effect": "mcp.call", "target": "scorer.score", "event": "Start", "outcomes": [{"result": 45}]},
  {"effect": "mcp.call", "target": "scorer.score", "event": "Rescore", "outcomes": [{"result": "high"}]},
  {"effect": "a2a.task", "outcomes": [{"result": 3}]},
  {"effect": "mcp.call", "target": "scorer.label", "outcomes": [{"result": 9}]}
]}`

// recordClaims runs a claims scenario in mock mode into a ledger in dir:
// observations, a refused event, a refused and a granted acceptance, a
// quorum, a superseding observation that the runtime rejects.
func recordClaims(t *testing.T, module, dir string) {
	t.Helper()
	p, err := (&load.Loader{}).Load(module)
	if err != nil || p.Result.HasErrors() {
		t.Fatalf("load: %v", err)
	}
	m, err := machine.Compile(p.Result, "Review", machine.Options{Hash: p.Hash})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ledger.CreateDir(dir, ledger.SyncNone)
	if err != nil {
		t.Fatal(err)
	}
	rec := ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: module})
	mf, err := adapters.ParseMocks([]byte(claimMocks))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: adapters.NewMock(mf), Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v := func(claim, verdict, who string) {
		inst.Decide(ctx, machine.ClaimVerdict{Claim: claim, Verdict: verdict, Principal: who})
	}
	inst.Step(machine.Event{Name: "Start"})
	inst.Step(machine.Event{Name: "ScoreAccepted"}) // R_CLAIM_NOT_ACCEPTED
	v("score", machine.VerdictAccept, "alice")      // R_CLAIM_REFUSED
	v("score", machine.VerdictAccept, "risk_officer")
	v("audit", machine.VerdictAccept, "alice")
	v("audit", machine.VerdictReject, "bob")
	inst.Step(machine.Event{Name: "Rescore"}) // supersedes score; "high" is rejected
	inst.Step(machine.Event{Name: "LabelAccepted"})
	if err := inst.Err(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReplayClaims: replay regenerates every record of a claims run,
// trace records included, byte for byte; two runs give the same ledger;
// rejected and superseded claims are in it.
func TestReplayClaims(t *testing.T) {
	src, err := os.ReadFile("../machine/testdata/claims.caps")
	if err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(t.TempDir(), "claims.caps")
	if err := os.WriteFile(module, src, 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := t.TempDir(), t.TempDir()
	recordClaims(t, module, a)
	recordClaims(t, module, b)
	x, _ := os.ReadFile(ledgerFile(a))
	y, _ := os.ReadFile(ledgerFile(b))
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Fatalf("two runs gave different ledgers (%d and %d bytes)", len(x), len(y))
	}
	rep := replay.Dir(a, replay.Options{Trace: true})
	if !rep.OK || rep.Verified != rep.Records || rep.Inputs != 8 || rep.State != "open" {
		t.Fatalf("replay: %s", rep.Text())
	}
	if got, want := string(rep.Context), `{"audit":0,"label":9,"ok":false,"score":45}`; got != want {
		t.Errorf("replayed context %s, want %s", got, want)
	}
	recs, err := readRecords(ledgerFile(a))
	if err != nil {
		t.Fatal(err)
	}
	for n, r := range recs { // the claim members are written in canonical form
		if c, err := chain.Canonical(r.Payload); err != nil || !bytes.Equal(c, r.Payload) {
			t.Errorf("record %d: not canonical: %s", n+1, r.Payload)
		}
	}
	types := map[string]int{}
	var claimSteps, effects []string
	for _, r := range recs {
		typ := ledger.TypeOf(r.Payload)
		types[typ]++
		switch typ {
		case ledger.TypeClaim:
			claimSteps = append(claimSteps, string(r.Payload))
		case ledger.TypeEffects:
			if bytes.Contains(r.Payload, []byte(`"claims"`)) {
				effects = append(effects, string(r.Payload[:bytes.Index(r.Payload, []byte(`,"results"`))]))
			}
		}
	}
	if diff := cmp.Diff(map[string]int{"instance": 1, "input": 8, "transition": 3, "failed": 2, "claim": 3, "effects": 2, "snapshot": 7, "trace": 8}, types); diff != "" {
		t.Errorf("record types (-want +got):\n%s", diff)
	}
	id := func(step string) string { // the effect intent id of an observation
		for _, e := range effects {
			if k := strings.Index(e, `"id":"`); k >= 0 && strings.Contains(e, step) {
				return e[k+6 : k+6+32]
			}
		}
		return "?"
	}
	s1 := id(`"field":"score"`)
	wantClaims := []string{
		`{"cause":"claim","claims":[{"approvals":["risk_officer"],"by":"risk_officer","field":"score","id":"` + s1 + `","policy":"officer","seq":1,"status":"accepted","value":45}],"clock":0,"seq":4,"state":"open","step":4,"type":"claim"}`,
	}
	if diff := cmp.Diff(wantClaims[0], claimSteps[0]); diff != "" {
		t.Errorf("claim record (-want +got):\n%s", diff)
	}
	if len(claimSteps) != 3 || !strings.Contains(claimSteps[2], `"by":"bob","field":"audit"`) || !strings.Contains(claimSteps[2], `"status":"rejected"`) {
		t.Errorf("claim records: %q", claimSteps)
	}
	if len(effects) != 2 || !strings.Contains(effects[1], `"status":"superseded"`) || !strings.Contains(effects[1], `"result":"high","seq":7,"status":"rejected"`) {
		t.Errorf("effects records with claims: %q", effects)
	}
}
