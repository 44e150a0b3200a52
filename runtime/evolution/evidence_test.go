package evolution

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/propose"
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
