package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/propose"
)

// gatedRelease is a module whose gate needs replay evidence and a
// security approval.
const gatedRelease = `(module demo.release
  (capsule "1.0")

  (eval-suite ReleaseRegression
    (summary "Recorded releases replay unchanged.")
    (must-pass replay "ledgers/golden/*.jsonl"))

  (gate DeployCandidate
    (summary "Regression evidence and a security sign-off.")
    (requires eval-suite ReleaseRegression passed)
    (requires approval SecurityOwner granted))

  (machine Release
    (event Ship)
    (initial staged)
    (state staged
      (on Ship
        (target shipped)))
    (state shipped (type final))))
`

// snapshotTree returns every file under root, by relative path.
func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCommitRefusesUnmetGate is issue 12's scenario: the gate's eval
// evidence is missing and --approve names the security owner. The commit
// is refused, naming the unmet requirement, and changes nothing; once a
// golden ledger is supplied, the approval is still needed, and with it
// the same commit goes through.
func TestCommitRefusesUnmetGate(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".caps"), 0o755)
	module := filepath.Join(root, "release.caps")
	os.WriteFile(module, []byte(gatedRelease), 0o644)
	ws := "--workspace=" + root

	// A run of the machine, recorded from the workspace root, becomes the
	// golden ledger later; the commands below run from another folder.
	t.Chdir(root)
	if r := runCaps(t, "", "machine-run", "--ledger", "recorded", "release.caps", "Release", "Ship"); r.code != 0 {
		t.Fatalf("machine-run: %d %s", r.code, r.stderr)
	}
	t.Chdir(t.TempDir())

	candidate := strings.Replace(gatedRelease, "a security sign-off", "a sign-off by security", 1)
	cand := filepath.Join(t.TempDir(), "release.caps")
	os.WriteFile(cand, []byte(candidate), 0o644)
	r := runCaps(t, "", "propose", ws, "--target", module, "--candidate", cand, "--by", "agent:Improver", "--json")
	if r.code != 0 {
		t.Fatalf("propose: %d %s", r.code, r.stderr)
	}
	var p struct{ ID string }
	decode(t, r.stdout, &p)
	r = runCaps(t, "", "assess", ws, p.ID, "--json")
	var a struct{ Verdict string }
	decode(t, r.stdout, &a)
	if r.code != 1 || a.Verdict != propose.Incomplete {
		t.Fatalf("assess: exit %d, verdict %s", r.code, a.Verdict)
	}

	noLedger := `release.caps: gate DeployCandidate: requires eval-suite ReleaseRegression passed: eval-suite ReleaseRegression is incomplete: (must-pass replay "ledgers/golden/*.jsonl"): the glob "ledgers/golden/*.jsonl" matched no ledger; add golden ledgers it matches (from the workspace root or the module's folder)`
	before := snapshotTree(t, root)
	r = runCaps(t, "", "commit", ws, "--approve", "SecurityOwner:alice", p.ID)
	want := "caps: refused: evidence the module's governance requires is missing, and approvals cannot stand in for it:\n  " + noLedger + "\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("commit with missing evidence: exit %d\n got %q\nwant %q", r.code, r.stderr, want)
	}
	r = runCaps(t, "", "commit", ws, "--approve", "SecurityOwner:alice", "--json", p.ID)
	var refusal struct {
		Verdict string
		Unmet   []propose.Requirement
	}
	decode(t, r.stdout, &refusal)
	wantUnmet := []propose.Requirement{{Gate: "DeployCandidate", Path: "release.caps", Requirement: "eval-suite ReleaseRegression passed", Status: propose.RuleMissing,
		Why: `eval-suite ReleaseRegression is incomplete: (must-pass replay "ledgers/golden/*.jsonl"): the glob "ledgers/golden/*.jsonl" matched no ledger; add golden ledgers it matches (from the workspace root or the module's folder)`}}
	if r.code != 1 || refusal.Verdict != propose.Incomplete {
		t.Errorf("commit --json: exit %d, verdict %s", r.code, refusal.Verdict)
	}
	if diff := cmp.Diff(wantUnmet, refusal.Unmet); diff != "" {
		t.Errorf("unmet (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, snapshotTree(t, root)); diff != "" {
		t.Fatalf("a refused commit changed the workspace (-before +after):\n%s", diff)
	}

	// Supply the evidence: the approval is still required.
	golden, _ := os.ReadFile(filepath.Join(root, "recorded", "ledger.jsonl"))
	os.MkdirAll(filepath.Join(root, "ledgers", "golden"), 0o755)
	os.WriteFile(filepath.Join(root, "ledgers", "golden", "release.jsonl"), golden, 0o644)
	before = snapshotTree(t, root)
	r = runCaps(t, "", "commit", ws, p.ID)
	want = "caps: refused: needs approval:\n  release.caps: gate DeployCandidate: requires approval SecurityOwner granted: needs approval SecurityOwner; approve with --approve SecurityOwner[:NAME]\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("commit without the approval: exit %d\n got %q\nwant %q", r.code, r.stderr, want)
	}
	if diff := cmp.Diff(before, snapshotTree(t, root)); diff != "" {
		t.Fatalf("a refused commit changed the workspace (-before +after):\n%s", diff)
	}
	// A candidate that changes what the recorded run did fails the gate.
	broken := filepath.Join(t.TempDir(), "release.caps")
	os.WriteFile(broken, []byte(strings.Replace(gatedRelease, "(target shipped)", "(target staged)", 1)), 0o644)
	r = runCaps(t, "", "propose", ws, "--target", module, "--candidate", broken, "--by", "agent:Improver", "--json")
	var bp struct{ ID string }
	decode(t, r.stdout, &bp)
	r = runCaps(t, "", "assess", ws, bp.ID, "--json")
	var ba struct {
		Verdict string
		Unmet   []propose.Requirement
	}
	decode(t, r.stdout, &ba)
	if r.code != 1 || ba.Verdict != propose.Fail || len(ba.Unmet) != 2 || ba.Unmet[0].Status != propose.RuleFailed ||
		!strings.HasSuffix(ba.Unmet[0].Why, "does not replay: ledgers/golden/release.jsonl") {
		t.Errorf("a candidate that does not replay: exit %d, verdict %s, unmet %+v", r.code, ba.Verdict, ba.Unmet)
	}

	r = runCaps(t, "", "commit", ws, "--approve", "SecurityOwner:alice", p.ID)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "committed "+p.ID+" as evt-") {
		t.Fatalf("commit with the evidence and the approval: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(module); string(b) != candidate {
		t.Errorf("the commit did not write the candidate:\n%s", b)
	}
	if r := runCaps(t, "", "ledger", "verify", ws); r.code != 0 {
		t.Errorf("ledger verify: %d %s", r.code, r.stdout)
	}
}
