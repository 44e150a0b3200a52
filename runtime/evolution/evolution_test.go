package evolution

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/analysis/repair"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/syntax"
)

// copyExamples copies the repository's examples into a fresh workspace.
func copyExamples(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join("..", "..", "examples")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, "examples", rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, ".caps"), 0o755)
	return root
}

func open(t testing.TB, root string) *Workspace {
	t.Helper()
	w, err := Open(root, Options{Sync: chain.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func read(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func edit(t testing.TB, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q not found", old)
	}
	return strings.Replace(s, old, new, 1)
}

func verifyOK(t testing.TB, w *Workspace) *chain.Report {
	t.Helper()
	rep, err := w.VerifyLedger()
	if err != nil || !rep.OK {
		t.Fatalf("ledger: %+v %v", rep, err)
	}
	return rep
}

// TestFullLoop runs propose, assess, commit, history and rollback on a copy
// of the examples, with each kind of proposal.
func TestFullLoop(t *testing.T) {
	root := copyExamples(t)
	w := open(t, root)
	absPath := filepath.Join(root, "examples", "abs.caps")
	orig := read(t, absPath)

	// A whole candidate: one more example.
	cand := edit(t, orig, "(example (abs_i64 0) 0)", "(example (abs_i64 0) 0)\n    (example (abs_i64 5) 5)")
	p, err := w.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{absPath}, Candidate: []byte(cand), By: "alice", Reason: "more examples"})
	if err != nil {
		t.Fatal(err)
	}
	if read(t, absPath) != orig {
		t.Fatal("propose changed the workspace")
	}
	a, err := w.Assess(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict != propose.Pass || a.BlastRadius.Files != 1 || a.BlastRadius.Lines != 1 || a.Tests.Examples.Status != propose.StatusPassed {
		t.Fatalf("assessment: %+v", a)
	}
	if a.ParentHash == a.CandidateHash || !strings.HasPrefix(a.DiffHash, "sha256:") {
		t.Fatalf("hashes %s %s %s", a.ParentHash, a.CandidateHash, a.DiffHash)
	}
	ev, err := w.Commit(p.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if read(t, absPath) != cand {
		t.Fatal("commit did not write the candidate")
	}
	if _, err := w.Commit(p.ID, nil); err == nil || !strings.Contains(err.Error(), "already committed") {
		t.Fatalf("second commit: %v", err)
	}

	// A patch on top of it.
	patch := propose.UnifiedDiff("examples/abs.caps", []byte(cand), true, []byte(edit(t, cand, "(example (abs_i64 12) 12)", "(example (abs_i64 12) 12)\n    (example (abs_i64 -1) 1)")))
	p2, err := w.Propose(propose.Request{Kind: propose.FromPatch, Patch: []byte(patch), By: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	ev2, err := w.Commit(p2.ID, nil) // assessed on the way
	if err != nil {
		t.Fatal(err)
	}
	if ev2.Parent != ev.ID {
		t.Fatalf("lineage parent %s, want %s", ev2.Parent, ev.ID)
	}

	// Rollback needs the later change rolled back first.
	if _, err := w.Rollback(ev.ID, "carol"); err == nil || !strings.Contains(err.Error(), "roll back the later change first") {
		t.Fatalf("rollback under a later commit: %v", err)
	}
	rb, err := w.Rollback(ev2.ID, "carol")
	if err != nil {
		t.Fatal(err)
	}
	if read(t, absPath) != cand || rb.RollsBack != ev2.ID {
		t.Fatal("rollback did not restore the pre-commit bytes")
	}
	if _, err := w.Rollback(ev2.ID, "carol"); err == nil {
		t.Fatal("double rollback accepted")
	}
	if _, err := w.Rollback(ev.ID, "carol"); err != nil {
		t.Fatal(err)
	}
	if read(t, absPath) != orig {
		t.Fatal("second rollback did not restore the original")
	}

	// A delta creating a new file.
	newPath := filepath.Join(root, "examples", "triage.caps")
	p3, err := w.Propose(propose.Request{Kind: propose.FromDelta, Targets: []string{newPath}, Delta: []byte(`{"module": "examples.triage",
		"open_holes": ["which queue for refunds?"],
		"declarations": [{"kind": "function", "name": "score", "clauses": [["input", ["x", "U32"]], ["output", "U32"], ["body", "x"], ["example", ["score", 3], 3]]}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	a3, err := w.Assess(p3.ID)
	if err != nil || a3.Verdict != propose.NeedsApproval {
		t.Fatalf("delta with open holes: %+v %v", a3, err)
	}
	var re *RefusedError
	if _, err := w.Commit(p3.ID, nil); !errors.As(err, &re) {
		t.Fatalf("commit without approval: %v", err)
	}
	ev3, err := w.Commit(p3.ID, []string{"dana"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(newPath); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Rollback(ev3.ID, "dana"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(newPath); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("rollback of a created file left it")
	}

	// History and the ledger.
	h, err := w.History(absPath)
	if err != nil || len(h.Files) != 1 {
		t.Fatalf("history: %+v %v", h, err)
	}
	kinds := []string{}
	for _, e := range h.Files[0].Events {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, " "); got != "propose assess commit propose assess commit rollback rollback" {
		t.Fatalf("events: %s", got)
	}
	if len(h.Files[0].Lineage) != 1 || len(h.Files[0].Lineage[0].Children) != 2 {
		b, _ := json.MarshalIndent(h.Files[0].Lineage, "", " ")
		t.Fatalf("lineage tree:\n%s", b)
	}
	rep := verifyOK(t, w)
	imps, _ := w.Records(TypeImprovement)
	if len(imps) != 3 || rep.Records < 15 {
		t.Fatalf("%d improvement records, %d records", len(imps), rep.Records)
	}
	var imp ImprovementRecord
	json.Unmarshal(imps[0], &imp)
	if imp.Event != ev.ID || imp.ParentHash != a.ParentHash || imp.RollbackPointer != a.ParentHash || imp.DeploymentOutcome.Result != "committed" {
		t.Fatalf("improvement record %+v", imp)
	}
}

// TestRepairLearning: a committed and kept repair is ranked first for the
// same signal, in another file; a rollback resets the streak.
func TestRepairLearning(t *testing.T) {
	root := copyExamples(t)
	w := open(t, root)
	src := func(mod, fn, store string) string {
		return "(module " + mod + "\n  (capsule \"1.0\")\n  (store " + store + " (backend memory) (authority runtime-state) (collection log))\n" +
			"  (function " + fn + " (input (n U64)) (output U64)\n    (body (do (db.write " + store + ".log n) n))))\n"
	}
	a := filepath.Join(root, "examples", "a.caps")
	os.WriteFile(a, []byte(src("examples.a", "note", "db")), 0o644)
	p, err := w.Propose(propose.Request{Kind: propose.FromRepair, Targets: []string{a}, Repair: &propose.RepairRef{Code: "E_EFFECT_NOT_DECLARED", Line: 5}, By: "agent:Fixer"})
	if err != nil {
		t.Fatal(err)
	}
	as, _ := w.Assess(p.ID)
	if as.Verdict != propose.NeedsApproval || !as.AuthorityDelta.Expansion {
		t.Fatalf("repair that declares an effect: %+v", as)
	}
	ev, err := w.Commit(p.ID, []string{"alice"})
	if err != nil {
		t.Fatal(err)
	}
	sols, _ := w.Records(TypeSolution)
	if len(sols) != 1 {
		t.Fatalf("%d solution records", len(sols))
	}
	var sol SolutionRecord
	json.Unmarshal(sols[0], &sol)
	if sol.AssetID != assetID(sol.Asset) || sol.Event != ev.ID || sol.Asset.Strategy.Option != "declare-effect" {
		t.Fatalf("solution %+v", sol)
	}
	// Another file, another function and store: the same signal.
	plan := func() repair.Plan {
		return repair.Plan{
			Diagnostic: syntax.Diagnostic{Code: "E_EFFECT_NOT_DECLARED", Message: "function keep performs (db.write st.log) but does not declare it; add it to (effects ...)"},
			Options:    []repair.Option{{ID: "other", Rank: 0}, {ID: "declare-effect", Rank: 1}},
		}
	}
	got := w.Rerank([]repair.Plan{plan()})
	if got[0].Options[0].ID != "declare-effect" || !strings.Contains(got[0].Options[0].Why, "kept 1 time") {
		t.Fatalf("not ranked first: %+v", got[0].Options)
	}
	if _, err := w.Rollback(ev.ID, "alice"); err != nil {
		t.Fatal(err)
	}
	got = w.Rerank([]repair.Plan{plan()})
	if got[0].Options[0].ID != "other" || got[0].Options[1].Why != "" {
		t.Fatalf("rolled back repair still preferred: %+v", got[0].Options)
	}
}

// TestConcurrentCommits: two proposals for one file committed at once by
// two workspaces (two lock holders): with separate regions both land (the
// second is re-based and re-assessed); on the same line one wins and the
// other is refused as stale.
func TestConcurrentCommits(t *testing.T) {
	for _, conflict := range []bool{false, true} {
		name := "separate"
		if conflict {
			name = "conflict"
		}
		t.Run(name, func(t *testing.T) {
			root := copyExamples(t)
			path := filepath.Join(root, "examples", "abs.caps")
			orig := read(t, path)
			c1 := edit(t, orig, "(example (abs_i64 0) 0)", "(example (abs_i64 0) 0)\n    (example (abs_i64 1) 1)")
			old2, add2 := "(example (clamp 7 7 7) 7)", "(example (clamp 8 0 9) 8)"
			if conflict {
				old2, add2 = "(example (abs_i64 0) 0)", "(example (abs_i64 2) 2)"
			}
			c2 := edit(t, orig, old2, old2+"\n    "+add2)
			w1, w2 := open(t, root), open(t, root)
			p1, err := w1.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{path}, Candidate: []byte(c1)})
			if err != nil {
				t.Fatal(err)
			}
			p2, err := w2.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{path}, Candidate: []byte(c2)})
			if err != nil {
				t.Fatal(err)
			}
			w1.Assess(p1.ID)
			w2.Assess(p2.ID)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, job := range []struct {
				w  *Workspace
				id string
			}{{w1, p1.ID}, {w2, p2.ID}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = job.w.Commit(job.id, nil)
				}()
			}
			wg.Wait()
			final := read(t, path)
			if !conflict {
				if errs[0] != nil || errs[1] != nil {
					t.Fatalf("commits: %v / %v", errs[0], errs[1])
				}
				if !strings.Contains(final, "(abs_i64 1) 1)") || !strings.Contains(final, "(clamp 8 0 9) 8)") {
					t.Fatalf("both changes should be in:\n%s", final)
				}
			} else {
				ok := 0
				for _, err := range errs {
					var re *RefusedError
					if err == nil {
						ok++
					} else if !errors.As(err, &re) || !strings.Contains(err.Error(), "stale") {
						t.Fatalf("loser: %v", err)
					}
				}
				if ok != 1 || (final != c1 && final != c2) {
					t.Fatalf("%d commits won; file:\n%s", ok, final)
				}
			}
			verifyOK(t, w1)
		})
	}
}

// TestRefusedPaths: proposals that reach outside the workspace, into .git
// or the ledger are refused, and so are tampered proposal files.
func TestRefusedPaths(t *testing.T) {
	root := copyExamples(t)
	w := open(t, root)
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "x.caps"), []byte("(module x)"), 0o644)
	os.Symlink(filepath.Join(outside, "x.caps"), filepath.Join(root, "examples", "link.caps"))
	for _, target := range []string{
		filepath.Join(root, "..", "x.caps"),
		filepath.Join(root, "examples", "link.caps"),
		filepath.Join(root, ".git", "hooks.caps"),
		filepath.Join(root, ".caps", "ledger", "evolution.jsonl"),
		filepath.Join(root, ".caps", "ledger", "x.caps"),
	} {
		_, err := w.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{target}, Candidate: []byte("(module x)")})
		var pe *propose.PathError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v", target, err)
		}
	}
	for _, patch := range []string{
		"--- a/../x.caps\n+++ b/../x.caps\n@@ -1 +1 @@\n-(module x)\n+(module y)\n--- a/examples/abs.caps\n+++ b/examples/abs.caps\n@@ -1 +1 @@\n-x\n+y\n",
		"--- /dev/null\n+++ b/.caps/ledger/evolution.caps\n@@ -0,0 +1 @@\n+(module x)\n--- a/examples/abs.caps\n+++ b/examples/abs.caps\n@@ -1 +1 @@\n-x\n+y\n",
	} {
		if _, err := w.Propose(propose.Request{Kind: propose.FromPatch, Patch: []byte(patch)}); err == nil {
			t.Errorf("patch accepted:\n%s", patch)
		}
	}
	// A proposal whose stored candidate was altered is refused.
	path := filepath.Join(root, "examples", "abs.caps")
	p, err := w.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{path}, Candidate: []byte(edit(t, read(t, path), "(example (abs_i64 0) 0)", ""))})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, ".caps", "proposals", p.ID, "candidate", "examples", "abs.caps"), []byte("(module evil)"), 0o644)
	if _, err := w.Commit(p.ID, nil); err == nil || !strings.Contains(err.Error(), "altered") {
		t.Fatalf("tampered proposal: %v", err)
	}
	if _, err := w.Commit("../../etc", nil); err == nil {
		t.Fatal("bad id accepted")
	}
}

func TestLedgerTamperDetected(t *testing.T) {
	root := copyExamples(t)
	w := open(t, root)
	path := filepath.Join(root, "examples", "abs.caps")
	p, _ := w.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{path}, Candidate: []byte(edit(t, read(t, path), "(example (abs_i64 0) 0)", ""))})
	w.Commit(p.ID, nil)
	verifyOK(t, w)
	data := read(t, w.LedgerPath())
	os.WriteFile(w.LedgerPath(), []byte(strings.Replace(data, `"by":"anonymous"`, `"by":"mallory"`, 1)), 0o644)
	rep, _ := w.VerifyLedger()
	if rep.OK || rep.Problem.Line != 1 {
		t.Fatalf("tampering not detected: %+v", rep)
	}
	// Writing to a tampered ledger is refused, though its last record is
	// intact: nothing is appended after the broken record (issue 19).
	tampered := read(t, w.LedgerPath())
	_, err := w.Propose(propose.Request{Kind: propose.FromCandidate, Targets: []string{path}, Candidate: []byte("(module examples.abs (capsule \"1.0\"))\n")})
	var re *RefusedError
	if !errors.As(err, &re) || re.Broken == nil || re.Broken.Line != 1 ||
		!strings.Contains(err.Error(), " is broken at record 1: hash does not match its content (altered)") {
		t.Fatalf("propose on a tampered ledger: %v", err)
	}
	if read(t, w.LedgerPath()) != tampered {
		t.Fatal("propose appended to a tampered ledger")
	}
	h, err := w.History("")
	if err != nil || h.Ledger.OK || h.Ledger.Problem.Line != 1 || len(h.Files) != 1 || len(h.Files[0].Events) != 3 {
		t.Fatalf("history of a tampered ledger: %+v %v", h, err)
	}
	for _, e := range h.Files[0].Events {
		if e.Verified {
			t.Errorf("event %s (record %d) is marked verified after the broken record 1", e.ID, e.Seq)
		}
	}
}
