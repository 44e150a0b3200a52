package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// proposeWorkspace copies the examples into a fresh workspace.
func proposeWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	ents, err := os.ReadDir("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "examples"), 0o755)
	os.MkdirAll(filepath.Join(root, ".caps"), 0o755)
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("../../examples", e.Name()))
		os.WriteFile(filepath.Join(root, "examples", e.Name()), b, 0o644)
	}
	return root
}

func jsonKeys(t *testing.T, s string) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}

// TestProposeLoop runs the whole loop from the command line on a copy of
// the examples: propose, assess, commit, history, rollback, ledger verify,
// with exact JSON fields.
func TestProposeLoop(t *testing.T) {
	root := proposeWorkspace(t)
	ws := "--workspace=" + root
	abs := filepath.Join(root, "examples", "abs.caps")
	orig, _ := os.ReadFile(abs)
	cand := filepath.Join(t.TempDir(), "abs.caps")
	os.WriteFile(cand, []byte(strings.Replace(string(orig), "(example (abs_i64 0) 0)", "(example (abs_i64 0) 0)\n    (example (abs_i64 3) 3)", 1)), 0o644)

	r := runCaps(t, "", "propose", ws, "--target", abs, "--candidate", cand, "--by", "alice", "--reason", "one more example", "--json")
	if r.code != 0 {
		t.Fatalf("propose: %d %s", r.code, r.stderr)
	}
	if got := strings.Join(jsonKeys(t, r.stdout), ","); got != "files,id,signals" {
		t.Fatalf("propose JSON keys %s", got)
	}
	var prop struct {
		ID    string
		Files []string
	}
	decode(t, r.stdout, &prop)
	if !strings.HasPrefix(prop.ID, "p-") || len(prop.Files) != 1 || prop.Files[0] != "examples/abs.caps" {
		t.Fatalf("propose: %s", r.stdout)
	}

	r = runCaps(t, "", "assess", ws, prop.ID, "--json")
	if r.code != 0 {
		t.Fatalf("assess: %d %s", r.code, r.stderr)
	}
	want := "approvals_required,assessed_at,authority_delta,blast_radius,candidate_hash,confidence,diagnostics,diff_hash,evidence_hash,files,governance,id,parent_hash,reasons,signals,tests,unmet,verdict"
	if got := strings.Join(jsonKeys(t, r.stdout), ","); got != want {
		t.Fatalf("assess JSON keys\n got %s\nwant %s", got, want)
	}
	var a struct {
		ID             string
		Verdict        string
		Confidence     float64
		BlastRadius    map[string]int `json:"blast_radius"`
		AuthorityDelta struct {
			Expansion bool
			Added     []any
			Removed   []any
		} `json:"authority_delta"`
		Diagnostics struct{ New, Resolved []any }
		Tests       map[string]struct{ Status, Reason string }
	}
	decode(t, r.stdout, &a)
	if a.ID != prop.ID || a.Verdict != "pass" || a.BlastRadius["files"] != 1 || a.BlastRadius["lines"] != 1 ||
		a.AuthorityDelta.Expansion || len(a.Diagnostics.New) != 0 || a.Tests["examples"].Status != "passed" ||
		a.Tests["scenarios"].Status != "none" || a.Confidence <= 0.9 {
		t.Fatalf("assessment: %s", r.stdout)
	}

	r = runCaps(t, "", "commit", ws, prop.ID, "--json")
	if r.code != 0 {
		t.Fatalf("commit: %d %s", r.code, r.stderr)
	}
	if got := strings.Join(jsonKeys(t, r.stdout), ","); got != "approvals,event_id,files,proposal,verdict" {
		t.Fatalf("commit JSON keys %s", got)
	}
	var c struct {
		EventID string `json:"event_id"`
	}
	decode(t, r.stdout, &c)
	if b, _ := os.ReadFile(abs); string(b) == string(orig) {
		t.Fatal("commit did not write")
	}

	r = runCaps(t, "", "history", ws, abs, "--json")
	var h struct {
		Files []struct {
			Path    string
			Events  []struct{ ID, Kind string }
			Lineage []struct {
				Event struct{ ID string }
			}
		}
	}
	decode(t, r.stdout, &h)
	if r.code != 0 || len(h.Files) != 1 || len(h.Files[0].Events) != 3 || h.Files[0].Lineage[0].Event.ID != c.EventID {
		t.Fatalf("history: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = runCaps(t, "", "history", ws)
	if r.code != 0 || !strings.Contains(r.stdout, c.EventID+" ") || !strings.Contains(r.stdout, "commit "+prop.ID+" by alice [pass") {
		t.Fatalf("history text: %s", r.stdout)
	}

	r = runCaps(t, "", "rollback", ws, c.EventID, "--json")
	if r.code != 0 || strings.Join(jsonKeys(t, r.stdout), ",") != "event_id,files,rolls_back" {
		t.Fatalf("rollback: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(abs); string(b) != string(orig) {
		t.Fatal("rollback did not restore")
	}
	r = runCaps(t, "", "rollback", ws, c.EventID)
	if r.code != 1 || !strings.Contains(r.stderr, "already rolled back") {
		t.Fatalf("second rollback: %d %s", r.code, r.stderr)
	}

	r = runCaps(t, "", "ledger", "verify", ws, "--json")
	var v struct {
		OK      bool
		Records int
	}
	decode(t, r.stdout, &v)
	if r.code != 0 || !v.OK || v.Records != 5 { // propose, assess, commit, improvement record, rollback
		t.Fatalf("ledger verify: %d %s", r.code, r.stdout)
	}
	// Tampering is caught, exit 1.
	lp := filepath.Join(root, ".caps", "ledger", "evolution.jsonl")
	data, _ := os.ReadFile(lp)
	os.WriteFile(lp, []byte(strings.Replace(string(data), `"by":"alice"`, `"by":"mallory"`, 1)), 0o644)
	r = runCaps(t, "", "ledger", "verify", ws)
	if r.code != 1 || !strings.Contains(r.stdout, "broken") || !strings.Contains(r.stdout, "line 1") {
		t.Fatalf("tampered ledger: %d %s", r.code, r.stdout)
	}
}

// TestProposeRepairAndApproval: a repair that declares an effect needs an
// approval, commit refuses without it (exit 1 with the reason), and
// repair-plan then ranks the learned option first and says why.
func TestProposeRepairAndApproval(t *testing.T) {
	root := proposeWorkspace(t)
	ws := "--workspace=" + root
	src := "(module examples.log\n  (capsule \"1.0\")\n  (store db (backend memory) (authority runtime-state) (collection log))\n  (function note (input (n U64)) (output U64)\n    (body (do (db.write db.log n) n))))\n"
	path := filepath.Join(root, "examples", "log.caps")
	os.WriteFile(path, []byte(src), 0o644)

	r := runCaps(t, "", "propose", ws, "--target", path, "--repair", "E_EFFECT_NOT_DECLARED@5:declare-effect", "--by", "agent:Fixer", "--json")
	if r.code != 0 {
		t.Fatalf("propose: %s", r.stderr)
	}
	var p struct {
		ID      string
		Signals []string
	}
	decode(t, r.stdout, &p)
	if len(p.Signals) != 2 || p.Signals[0] != "E_EFFECT_NOT_DECLARED" || !strings.HasPrefix(p.Signals[1], "errsig:E_EFFECT_NOT_DECLARED:") {
		t.Fatalf("signals %v", p.Signals)
	}
	r = runCaps(t, "", "assess", ws, p.ID, "--json")
	var a struct {
		Verdict        string
		AuthorityDelta struct {
			Expansion bool
			Added     []struct{ Kind, Name, In, Change string }
		} `json:"authority_delta"`
		Diagnostics struct{ Resolved []struct{ Code string } }
	}
	decode(t, r.stdout, &a)
	if r.code != 0 || a.Verdict != "needs-approval" || !a.AuthorityDelta.Expansion || len(a.AuthorityDelta.Added) != 1 ||
		a.AuthorityDelta.Added[0].Name != "(db.write db.log)" || a.AuthorityDelta.Added[0].In != "function note" ||
		len(a.Diagnostics.Resolved) != 1 || a.Diagnostics.Resolved[0].Code != "E_EFFECT_NOT_DECLARED" {
		t.Fatalf("assess: %s", r.stdout)
	}
	r = runCaps(t, "", "commit", ws, p.ID, "--json")
	if r.code != 1 || !strings.Contains(r.stderr, "needs approval") || strings.Join(jsonKeys(t, r.stdout), ",") != "error,reasons,unmet,verdict" {
		t.Fatalf("commit without approval: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != src {
		t.Fatal("refused commit changed the file")
	}
	r = runCaps(t, "", "commit", ws, p.ID, "--approve", "alice")
	if r.code != 0 || !strings.Contains(r.stdout, "committed "+p.ID) {
		t.Fatalf("commit: %d %s %s", r.code, r.stdout, r.stderr)
	}
	other := filepath.Join(root, "examples", "log2.caps")
	os.WriteFile(other, []byte(strings.NewReplacer("examples.log", "examples.log2", "note", "keep", "(store db", "(store st", "db.log", "st.log").Replace(src)), 0o644)
	r = runCaps(t, "", "repair-plan", other)
	if !strings.Contains(r.stdout, "why: ranked first: committed and kept 1 time(s) in a row") {
		t.Fatalf("repair-plan does not say why: %s", r.stdout)
	}
}

func TestProposeRefusals(t *testing.T) {
	root := proposeWorkspace(t)
	ws := "--workspace=" + root
	cand := filepath.Join(t.TempDir(), "x.caps")
	os.WriteFile(cand, []byte("(module x (capsule \"1\"))\n"), 0o644)
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--target", filepath.Join(root, "..", "x.caps"), "--candidate", cand}, 1, "outside the workspace"},
		{[]string{"--target", filepath.Join(root, ".git", "x.caps"), "--candidate", cand}, 1, ".git"},
		{[]string{"--target", filepath.Join(root, ".caps", "ledger", "evolution.jsonl"), "--candidate", cand}, 1, ".caps"},
		{[]string{"--target", filepath.Join(root, "examples", "abs.caps")}, 2, "exactly one of"},
		{[]string{"--target", filepath.Join(root, "examples", "abs.caps"), "--candidate", cand, "--patch", cand}, 2, "exactly one of"},
		{[]string{"--target", filepath.Join(root, "examples", "abs.caps"), "--repair", "E_X"}, 2, "CODE@LINE"},
		{[]string{"--target", filepath.Join(root, "examples", "abs.caps"), "--repair", "E_UNKNOWN_NAME@3"}, 2, "no repairable"},
	}
	for _, tt := range tests {
		r := runCaps(t, "", append([]string{"propose", ws}, tt.args...)...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.err) {
			t.Errorf("propose %v: %d %q, want %d %q", tt.args, r.code, r.stderr, tt.code, tt.err)
		}
	}
	if r := runCaps(t, "", "assess", ws, "p-0000000000000000"); r.code != 2 || !strings.Contains(r.stderr, "no proposal") {
		t.Errorf("assess of a missing proposal: %d %s", r.code, r.stderr)
	}
	if r := runCaps(t, "", "ledger", "verify", ws, "--json"); r.code != 0 {
		t.Errorf("verify of an empty ledger: %d %s", r.code, r.stdout)
	}
}
