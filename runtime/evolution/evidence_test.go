package evolution

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
)

// Assessments run the scenarios of the changed machines against the
// candidate: a harmless change passes them, a changed transition fails
// them and the verdict.
func TestAssessmentRunsScenarios(t *testing.T) {
	root := copyExamples(t)
	w := open(t, root)
	file := filepath.Join(root, "examples", "insurance_claim.caps")
	orig := read(t, file)

	harmless := strings.Replace(orig, "(module examples.insurance_claim", ";; reviewed\n(module examples.insurance_claim", 1)
	p, err := w.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{file}, Candidate: []byte(harmless), By: "test"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := w.Assess(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	sc := a.Tests.Scenarios
	if sc.Status != propose.StatusPassed || sc.Total < 2 || sc.Passed != sc.Total {
		t.Fatalf("harmless change: scenarios %+v", sc)
	}

	broken := strings.Replace(orig, "(target awaiting_adjuster)", "(target manual_review)", 1)
	if broken == orig {
		t.Fatal("fixture: no awaiting_adjuster target")
	}
	p, err = w.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{file}, Candidate: []byte(broken), By: "test"})
	if err != nil {
		t.Fatal(err)
	}
	a, err = w.Assess(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Tests.Scenarios.Status != propose.StatusFailed || a.Tests.Scenarios.Failed == 0 || a.Verdict != "fail" {
		t.Fatalf("broken change: verdict %s, scenarios %+v", a.Verdict, a.Tests.Scenarios)
	}
}

// releaseModule is a one-step machine for golden-ledger tests.
const releaseModule = `(module demo.release
  (capsule "1.0")
  (machine Release
    (event Ship)
    (initial staged)
    (state staged (on Ship (target shipped)))
    (state shipped (type final))))
`

// recordRelease runs Release through Ship on the module at root/rel and
// records it in a ledger folder dir, with the relative module path rel.
func recordRelease(t *testing.T, root, rel, dir string) {
	t.Helper()
	pkg, err := (&load.Loader{}).Load(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	m, err := machine.Compile(pkg.Result, "Release", machine.Options{Hash: pkg.Hash})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ledger.CreateDir(dir, ledger.SyncNone)
	if err != nil {
		t.Fatal(err)
	}
	rec := ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: rel, Sync: ledger.SyncNone})
	inst, err := m.NewInstance(machine.InstanceOptions{Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	if r := inst.Step(machine.Event{Name: "Ship"}); !r.OK {
		t.Fatalf("step: %+v", r)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReplayGoldenLedgers: a golden ledger is a ledger folder or its chain
// file; its relative module path is relative to the workspace root, not
// the current folder; a candidate passes when it regenerates the recorded
// steps, even though its semantic hash differs, and fails when it does
// not.
func TestReplayGoldenLedgers(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "release.caps"), []byte(releaseModule), 0o644)
	recordRelease(t, root, "release.caps", filepath.Join(root, "ledgers", "golden", "folder"))
	chainFile, err := os.ReadFile(filepath.Join(root, "ledgers", "golden", "folder", ledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "ledgers", "golden", "file.jsonl"), chainFile, 0o644)
	ws, err := propose.OpenWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	golden := []string{"ledgers/golden/file.jsonl", "ledgers/golden/folder"}
	tests := []struct {
		name      string
		candidate string // "" replays the parent
		status    []string
	}{
		{"the parent", "", []string{propose.StatusPassed, propose.StatusPassed}},
		{"same behaviour, another hash", strings.Replace(releaseModule, `(capsule "1.0")`, `(capsule "1.0")
  (contract Ships (summary "a release ships"))`, 1), []string{propose.StatusPassed, propose.StatusPassed}},
		{"other behaviour", strings.Replace(releaseModule, "(on Ship (target shipped))", "(on Ship (target staged))", 1), []string{propose.StatusFailed, propose.StatusFailed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			overlay := map[string][]byte{}
			if tt.candidate != "" {
				overlay["release.caps"] = []byte(tt.candidate)
			}
			rep := replayLedgers(ws, overlay, golden)
			var got []string
			for _, it := range rep.Items {
				got = append(got, it.Status)
				if it.Status == propose.StatusFailed && !strings.Contains(it.Message, "mismatch") {
					t.Errorf("%s: %s", it.Name, it.Message)
				}
			}
			if diff := cmp.Diff(tt.status, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s\n%+v", diff, rep.Items)
			}
		})
	}
}
