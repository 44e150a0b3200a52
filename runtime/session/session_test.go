package session

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/evolution"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "session", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newWorkspace returns an empty workspace (with .caps/) and its store.
func newWorkspace(t testing.TB) (string, *Store) {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".caps"), 0o755)
	ws, err := propose.OpenWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := NewStore(ws)
	st.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	return ws.Root, st
}

// build runs the triage session: two deltas and an answer.
func build(t testing.TB, st *Store, root, id string) *Session {
	t.Helper()
	s, err := st.New(filepath.Join(root, "triage.caps"), id, "alice")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"triage-1.json", "triage-2.json"} {
		if _, err := s.Apply(DeltaInput{JSON: readTestdata(t, name), By: "alice"}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := s.Resolve("h1", "a score of 40 or more", "alice"); err != nil {
		t.Fatal(err)
	}
	return s
}

func semanticHash(t testing.TB, s *Session) (string, int) {
	t.Helper()
	pkg := (&load.Loader{}).LoadSource(s.TargetPath(), s.Source())
	errs := 0
	for _, d := range pkg.Result.Diagnostics {
		if d.Severity.String() == "error" {
			errs++
		}
	}
	return pkg.Hash, errs
}

// TestSessionDeterministic: the same steps give the same bytes after each
// step and the same semantic hash, in another workspace and after
// reopening; the final source is the golden file.
func TestSessionDeterministic(t *testing.T) {
	root1, st1 := newWorkspace(t)
	root2, st2 := newWorkspace(t)
	st2.Now = func() time.Time { return time.Date(2030, 6, 7, 8, 9, 10, 0, time.UTC) }
	a := build(t, st1, root1, "one")
	b := build(t, st2, root2, "two")
	if len(a.Sources) != 3 || len(b.Sources) != 3 {
		t.Fatalf("steps: %d %d", len(a.Sources), len(b.Sources))
	}
	for i := range a.Sources {
		if diff := cmp.Diff(string(a.Sources[i]), string(b.Sources[i])); diff != "" {
			t.Errorf("step %d differs:\n%s", i+1, diff)
		}
	}
	reopened, err := st1.Open("one")
	if err != nil {
		t.Fatal(err)
	}
	if string(reopened.Source()) != string(a.Source()) || reopened.Head() != a.Head() {
		t.Errorf("reopened session differs")
	}
	ha, errs := semanticHash(t, a)
	hb, _ := semanticHash(t, b)
	if ha == "" || ha != hb || errs != 0 {
		t.Errorf("semantic hashes %q %q, %d errors", ha, hb, errs)
	}
	golden := filepath.Join("testdata", "triage.golden.caps")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, a.Source(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(a.Source())); diff != "" {
		t.Errorf("source (-golden +got):\n%s", diff)
	}
	// The holes and the merged delta.
	if diff := cmp.Diff([]Hole{{ID: "h1", Question: "which score is urgent?", Answer: "a score of 40 or more", Step: 3}}, a.Holes()); diff != "" {
		t.Errorf("holes:\n%s", diff)
	}
	d := a.Delta()
	if len(d.OpenHoles) != 0 || !strings.Contains(strings.Join(d.Assumptions, "\n"), `answer to "which score is urgent?": a score of 40 or more`) {
		t.Errorf("merged delta: %+v", d)
	}
}

// TestSessionRefusals: bad input changes nothing.
func TestSessionRefusals(t *testing.T) {
	root, st := newWorkspace(t)
	s, err := st.New(filepath.Join(root, "triage.caps"), "s1", "")
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
		again, oerr := st.Open("s1")
		if oerr != nil {
			t.Fatalf("%s: %v", name, oerr)
		}
		if len(again.Steps) != len(s.Steps) {
			t.Errorf("%s: a step was written", name)
		}
		ents, _ := os.ReadDir(filepath.Join(st.Dir("s1"), "steps"))
		if len(ents) != len(s.Steps) {
			t.Errorf("%s: steps/ holds %d entries, want %d", name, len(ents), len(s.Steps))
		}
	}
	_, err = s.Apply(DeltaInput{JSON: readTestdata(t, "bad-kind.json")})
	check("schema", err, "at /declarations/0/kind (schema #/$defs/declaration/properties/kind/enum)")
	_, err = s.Apply(DeltaInput{JSON: readTestdata(t, "triage-2.json")})
	check("new file without module", err, `a new file needs "module"`)
	_, err = s.Apply(DeltaInput{JSON: []byte(`{"module": "examples.triage", "declarations": [{"kind": "function", "name": "f", "source": "(function f (body"}]}`)})
	check("source does not parse", err, "source does not parse")
	_, err = s.Resolve("h1", "x", "")
	check("no holes", err, `no hole "h1": the session has no holes`)
	if _, err := s.Apply(DeltaInput{JSON: readTestdata(t, "triage-1.json")}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Resolve("h9", "x", "")
	check("unknown hole", err, `no hole "h9": the session's holes are h1`)
	_, err = s.Resolve("h1", "  ", "")
	check("empty answer", err, "the answer to h1 is empty")
	_, err = s.Apply(DeltaInput{JSON: []byte(`{"module": "examples.other"}`)})
	check("other module", err, "the delta is for module examples.other, the session's is examples.triage")
	// By question text.
	if _, err := s.Resolve("which score is urgent?", "40", ""); err != nil {
		t.Fatal(err)
	}
	// A second writer that loaded the session before the first wrote.
	stale, err := st.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(DeltaInput{JSON: readTestdata(t, "triage-2.json")}); err != nil {
		t.Fatal(err)
	}
	_, err = stale.Apply(DeltaInput{JSON: readTestdata(t, "triage-2.json")})
	if err == nil || !strings.Contains(err.Error(), "got a step 3 from another command meanwhile; nothing was written") {
		t.Errorf("stale writer: %v", err)
	}
	again, err := st.Open("s1")
	if err != nil || len(again.Steps) != 3 {
		t.Fatalf("after the stale writer: %v", err)
	}
	// Ids.
	if _, err := st.New(filepath.Join(root, "x.caps"), "s1", ""); err == nil || !strings.Contains(err.Error(), "session s1 already exists") {
		t.Errorf("duplicate id: %v", err)
	}
	if _, err := st.New(filepath.Join(root, "x.caps"), "../x", ""); err == nil || !strings.Contains(err.Error(), "bad session id") {
		t.Errorf("bad id: %v", err)
	}
	if _, err := st.New(filepath.Join(root, ".caps", "x.caps"), "", ""); err == nil || !strings.Contains(err.Error(), "inside the workspace's .caps folder") {
		t.Errorf("target in .caps: %v", err)
	}
	if _, err := st.New(filepath.Join(root, "notes.txt"), "", ""); err == nil {
		t.Errorf("a non-.caps target was accepted")
	}
}

// TestSessionTampered: every kind of hand edit is refused, naming the file.
func TestSessionTampered(t *testing.T) {
	type tamper struct {
		name   string
		do     func(dir string)
		path   string
		reason string
	}
	rewrite := func(path, old, new string) func(dir string) {
		return func(dir string) {
			p := filepath.Join(dir, filepath.FromSlash(path))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), old) {
				t.Fatalf("%s lacks %q", path, old)
			}
			os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
		}
	}
	for _, tc := range []tamper{
		{"meta edited", rewrite("session.json", `"by": "alice"`, `"by": "mallory"`), "session.json", "its hash does not match its content (it was edited)"},
		{"base edited", func(dir string) { os.WriteFile(filepath.Join(dir, "base.caps"), []byte("(module x)\n"), 0o644) }, "base.caps", "is there, but the target did not exist when the session began"},
		{"answer edited", rewrite("steps/0003/step.json", `"answer": "a score of 40 or more"`, `"answer": "never"`), "steps/0003/step.json", "its hash does not match its content (it was edited)"},
		{"source edited", rewrite("steps/0002/source.caps", "(* severity 10)", "(* severity 20)"), "steps/0002/source.caps", "its hash does not match source_sha256 in step.json (it was edited)"},
		{"step removed", func(dir string) { os.RemoveAll(filepath.Join(dir, "steps", "0002")) }, "steps/0002", "is missing (steps go up to 3)"},
		{"last step removed", func(dir string) { os.RemoveAll(filepath.Join(dir, "steps", "0001")) }, "steps/0001", "is missing (steps go up to 3)"},
		{"steps swapped", func(dir string) {
			s := filepath.Join(dir, "steps")
			os.Rename(filepath.Join(s, "0001"), filepath.Join(s, "x"))
			os.Rename(filepath.Join(s, "0002"), filepath.Join(s, "0001"))
			os.Rename(filepath.Join(s, "x"), filepath.Join(s, "0002"))
		}, "steps/0001/step.json", "says it is step 2"},
		{"stray entry", func(dir string) { os.WriteFile(filepath.Join(dir, "steps", "notes"), nil, 0o644) }, "steps/notes", "is not a step"},
		{"not JSON", func(dir string) { os.WriteFile(filepath.Join(dir, "steps", "0001", "step.json"), []byte("{"), 0o644) }, "steps/0001/step.json", "not a valid record: unexpected EOF"},
		{"session.json removed", func(dir string) { os.Remove(filepath.Join(dir, "session.json")) }, "session.json", "cannot be read: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, st := newWorkspace(t)
			build(t, st, root, "s1")
			tc.do(st.Dir("s1"))
			_, err := st.Open("s1")
			var te *TamperedError
			if !errors.As(err, &te) {
				t.Fatalf("got %v, want a *TamperedError", err)
			}
			if diff := cmp.Diff(TamperedError{ID: "s1", Path: tc.path, Reason: tc.reason}, *te); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.HasSuffix(err.Error(), "; nothing was changed. Restore .caps/sessions/s1 from a backup, or start a new session (caps session new --target FILE) and apply its deltas again") {
				t.Errorf("message: %s", err)
			}
		})
	}
	// A consistent forgery of step.json (hash recomputed) is caught by the
	// replay when the recorded source no longer follows from the steps.
	t.Run("rehashed answer", func(t *testing.T) {
		root, st := newWorkspace(t)
		s := build(t, st, root, "s1")
		step := s.Steps[2]
		step.Answer = "never"
		step.Hash = stepHash(step)
		p := filepath.Join(st.Dir("s1"), "steps", "0003", "step.json")
		os.Remove(p)
		if err := writeJSON(p, step); err != nil {
			t.Fatal(err)
		}
		_, err := st.Open("s1")
		var te *TamperedError
		if !errors.As(err, &te) || te.Path != "steps/0003/source.caps" || te.Reason != "differs from what the steps synthesize (replay); the file or the synthesizer changed" {
			t.Errorf("got %v", err)
		}
	})
	// An unfinished write (a crash before the rename) is not a step.
	t.Run("leftover temporary folder", func(t *testing.T) {
		root, st := newWorkspace(t)
		build(t, st, root, "s1")
		os.MkdirAll(filepath.Join(st.Dir("s1"), "steps", ".tmp-0004-123"), 0o755)
		s, err := st.Open("s1")
		if err != nil || len(s.Steps) != 3 {
			t.Errorf("got %v", err)
		}
	})
}

// TestSessionPropose: a session ends in the workflow, never in a direct
// write; a changed target is refused.
func TestSessionPropose(t *testing.T) {
	root, st := newWorkspace(t)
	s := build(t, st, root, "s1")
	w, err := evolution.Open(root, evolution.Options{Sync: chain.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Propose(w, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "triage.caps")); err == nil {
		t.Fatal("proposing wrote the target")
	}
	if p.Source.Kind != propose.FromDelta || p.Reason != "authoring session s1" || len(p.OpenHoles) != 0 || string(p.Files[0].Candidate) != string(s.Source()) {
		t.Errorf("proposal: %+v", p)
	}
	a, err := w.Assess(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict != propose.Pass {
		t.Errorf("verdict %s: %+v", a.Verdict, a.Reasons)
	}
	again, err := st.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	last := again.Steps[len(again.Steps)-1]
	if last.Kind != KindPropose || last.Proposal != p.ID || last.SourceSHA256 != propose.SHA256(s.Source()) {
		t.Errorf("propose step: %+v", last)
	}
	if _, err := w.Commit(p.ID, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, "triage.caps"))
	if string(got) != string(s.Source()) {
		t.Errorf("committed file differs from the session's source")
	}
	// The target changed: the session no longer applies.
	if _, err := again.Propose(w, "alice", ""); err == nil || !strings.Contains(err.Error(), "refused: triage.caps changed since session s1 began") {
		t.Errorf("changed target: %v", err)
	}
	// Open holes stay open in the proposal and need an approval.
	s2, err := st.New(filepath.Join(root, "other.caps"), "s2", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Apply(DeltaInput{JSON: []byte(`{"module": "examples.other", "open_holes": ["who owns it?"], "declarations": [{"kind": "function", "name": "one", "clauses": [["output", "U32"], ["body", 1], ["example", ["one"], 1]]}]}`)}); err != nil {
		t.Fatal(err)
	}
	p2, err := s2.Propose(w, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	a2, err := w.Assess(p2.ID)
	if err != nil || a2.Verdict != propose.NeedsApproval || len(p2.OpenHoles) != 1 {
		t.Errorf("open holes: %v %+v %v", err, a2, p2.OpenHoles)
	}
}

// BenchmarkOpen measures opening (verifying and replaying) a session of
// 40 steps, each adding a function.
func BenchmarkOpen(b *testing.B) {
	root, st := newWorkspace(b)
	s, err := st.New(filepath.Join(root, "big.caps"), "big", "")
	if err != nil {
		b.Fatal(err)
	}
	for i := range 40 {
		d := fmt.Sprintf(`{"module": "examples.big", "requirements": ["r%d"], "declarations": [{"kind": "function", "name": "f%d", "clauses": [["input", ["x", "U32"]], ["output", "U32"], ["body", ["+", "x", %d]], ["example", ["f%d", 1], %d]]}]}`, i, i, i, i, i+1)
		if _, err := s.Apply(DeltaInput{JSON: []byte(d)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := st.Open("big"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSessions: the listing is sorted by id, marks the current session,
// and lists one that does not verify with its problem; an empty workspace
// lists [] (not nil).
func TestSessions(t *testing.T) {
	root, st := newWorkspace(t)
	list, cur, err := st.Sessions()
	if err != nil || cur != "" || list == nil || len(list) != 0 {
		t.Fatalf("empty workspace: %#v %q %v", list, cur, err)
	}
	build(t, st, root, "zeta")
	build(t, st, root, "alpha") // New makes it current
	if err := os.WriteFile(filepath.Join(st.Dir("zeta"), "session.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, cur, err = st.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	_, openErr := st.Open("zeta")
	want := []Entry{
		{ID: "alpha", Current: true, Target: "triage.caps", Steps: 3, Verified: true},
		{ID: "zeta", Problem: openErr.Error()},
	}
	if diff := cmp.Diff(want, list); diff != "" || cur != "alpha" {
		t.Errorf("current %q; sessions (-want +got):\n%s", cur, diff)
	}
}
