package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// treeBytes reads every file under root, by path.
func treeBytes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBrokenLedgerRefusesMutation (issue 19, item 3): with one byte of the
// evolution ledger flipped, every command that writes (propose, assess,
// commit, rollback) refuses with exit 1 and a message naming the broken
// record, and changes no byte of the workspace or its .caps folder;
// history marks the events from the broken record on and exits 1.
func TestBrokenLedgerRefusesMutation(t *testing.T) {
	root := proposeWorkspace(t)
	ws := "--workspace=" + root
	abs := filepath.Join(root, "examples", "abs.caps")
	orig, _ := os.ReadFile(abs)
	cand := func(n int) string {
		p := filepath.Join(t.TempDir(), "abs.caps")
		os.WriteFile(p, []byte(strings.Replace(string(orig), "(example (abs_i64 0) 0)", fmt.Sprintf("(example (abs_i64 0) 0)\n    (example (abs_i64 %d) %d)", n, n), 1)), 0o644)
		return p
	}
	id := func(r runResult) string {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("setup: exit %d %s", r.code, r.stderr)
		}
		var v struct {
			ID      string
			EventID string `json:"event_id"`
		}
		decode(t, r.stdout, &v)
		return v.ID + v.EventID
	}
	p1 := id(runCaps(t, "", "propose", ws, "--target", abs, "--candidate", cand(3), "--by", "alice", "--json"))
	e1 := id(runCaps(t, "", "commit", ws, p1, "--json"))
	p2 := id(runCaps(t, "", "propose", ws, "--target", abs, "--candidate", cand(4), "--by", "bob", "--json"))
	if p1 == "" || e1 == "" || p2 == "" {
		t.Fatalf("setup: %q %q %q", p1, e1, p2)
	}
	lp := filepath.Join(root, ".caps", "ledger", "evolution.jsonl")
	intact, _ := os.ReadFile(lp)
	lines := strings.SplitAfter(string(intact), "\n")
	// Records: 1 propose p1, 2 assess p1, 3 commit p1, 4 improvement record, 5 propose p2.
	if len(lines) != 6 {
		t.Fatalf("%d ledger lines, want 5:\n%s", len(lines)-1, intact)
	}
	offset := func(line int, in string) int {
		start := len(strings.Join(lines[:line-1], ""))
		i := strings.Index(lines[line-1], in)
		if i < 0 {
			t.Fatalf("no %q in record %d", in, line)
		}
		return start + i
	}
	flips := []struct {
		name string
		at   int // the byte flipped (XOR 1)
		line int // the broken record
	}{
		{"a name in record 1", offset(1, `"by":"alice"`) + 7, 1},
		{"the prev hash of record 5", offset(5, `"prev":"sha256:`) + 20, 5},
		{"the opening brace of record 2", offset(2, "{"), 2},
	}
	for _, fl := range flips {
		t.Run(fl.name, func(t *testing.T) {
			broken := []byte(string(intact))
			broken[fl.at] ^= 1
			os.WriteFile(lp, broken, 0o644)
			defer os.WriteFile(lp, intact, 0o644)

			r := runCaps(t, "", "ledger", "verify", ws, "--json")
			var v struct {
				OK      bool
				Problem struct {
					Line   int
					Reason string
				}
			}
			decode(t, r.stdout, &v)
			if r.code != 1 || v.OK || v.Problem.Line != fl.line {
				t.Fatalf("ledger verify: exit %d %s", r.code, r.stdout)
			}
			what := strings.TrimPrefix(v.Problem.Reason, fmt.Sprintf("record %d: ", fl.line))
			refusal := fmt.Sprintf("caps: refused: the evolution ledger %s is broken at record %d: %s; nothing was changed. "+
				"Run 'caps ledger verify' to see it, then restore the ledger from a backup or version control\n", lp, fl.line, what)

			before := treeBytes(t, root)
			for _, args := range [][]string{
				{"propose", ws, "--target", abs, "--candidate", cand(5)},
				{"assess", ws, p2},
				{"commit", ws, p2},
				{"rollback", ws, e1},
			} {
				r := runCaps(t, "", args...)
				if r.code != 1 || r.stdout != "" || r.stderr != refusal {
					t.Errorf("caps %s: exit %d\nstdout %q\nstderr %q\nwant   %q", args[0], r.code, r.stdout, r.stderr, refusal)
				}
			}
			r = runCaps(t, "", "commit", ws, p2, "--json")
			if want := `{"error":` + jsonString(strings.TrimSuffix(strings.TrimPrefix(refusal, "caps: "), "\n")) + `,"reasons":[],"unmet":[]}` + "\n"; r.code != 1 || r.stdout != want || r.stderr != refusal {
				t.Errorf("caps commit --json: exit %d\nstdout %q\nwant   %q", r.code, r.stdout, want)
			}
			if diff := cmp.Diff(before, treeBytes(t, root)); diff != "" {
				t.Errorf("a refused command changed the workspace: (-before +after)\n%s", diff)
			}

			warning := fmt.Sprintf("caps: the evolution ledger %s is broken at record %d: %s; the events from record %d on are marked UNVERIFIED. "+
				"Run 'caps ledger verify' to see it\n", lp, fl.line, what, fl.line)
			r = runCaps(t, "", "history", ws, "--json")
			var h struct {
				Ledger struct {
					OK      bool
					Problem struct{ Line int }
				}
				Files []struct {
					Events []struct {
						Seq      int
						Verified bool
					}
				}
			}
			decode(t, r.stdout, &h)
			if r.code != 1 || r.stderr != warning || h.Ledger.OK || h.Ledger.Problem.Line != fl.line || len(h.Files) != 1 {
				t.Fatalf("history --json: exit %d %s\nstderr %q\nwant   %q", r.code, r.stdout, r.stderr, warning)
			}
			for _, e := range h.Files[0].Events {
				if e.Verified != (e.Seq < fl.line) {
					t.Errorf("history --json: record %d verified=%v with the chain broken at %d", e.Seq, e.Verified, fl.line)
				}
			}
			r = runCaps(t, "", "history", ws)
			marked := strings.Count(r.stdout, "\n    UNVERIFIED evt-") + strings.Count(r.stdout, "\n  UNVERIFIED evt-")
			if r.code != 1 || r.stderr != warning || marked != map[int]int{1: 1, 2: 1, 5: 0}[fl.line] {
				t.Errorf("history: exit %d, %d lineage lines marked\n%s%s", r.code, marked, r.stdout, r.stderr)
			}
			if diff := cmp.Diff(before, treeBytes(t, root)); diff != "" {
				t.Errorf("history changed the workspace: (-before +after)\n%s", diff)
			}
		})
	}
	// The intact ledger still works.
	if r := runCaps(t, "", "commit", ws, p2); r.code != 0 {
		t.Fatalf("commit on the restored ledger: %d %s", r.code, r.stderr)
	}
}

// TestProposeQuiet checks that --quiet (-q) prints the id alone, the id
// that --json reports and that assess accepts, and that it cannot be
// combined with --json.
func TestProposeQuiet(t *testing.T) {
	root := proposeWorkspace(t)
	ws := "--workspace=" + root
	abs := filepath.Join(root, "examples", "abs.caps")
	orig, _ := os.ReadFile(abs)
	cand := filepath.Join(t.TempDir(), "abs.caps")
	os.WriteFile(cand, []byte(strings.Replace(string(orig), "(example (abs_i64 0) 0)", "(example (abs_i64 0) 0)\n    (example (abs_i64 3) 3)", 1)), 0o644)
	for _, flag := range []string{"--quiet", "-q"} {
		r := runCaps(t, "", "propose", ws, "--target", abs, "--candidate", cand, flag)
		id := strings.TrimSuffix(r.stdout, "\n")
		if r.code != 0 || r.stderr != "" || !strings.HasPrefix(id, "p-") || len(id) != len("p-")+16 || strings.Contains(id, "\n") {
			t.Fatalf("propose %s: exit %d, stdout %q, stderr %q", flag, r.code, r.stdout, r.stderr)
		}
		if r := runCaps(t, "", "assess", ws, id); r.code != 0 || !strings.HasPrefix(r.stdout, id+": pass") {
			t.Errorf("assess %s: exit %d %q %q", id, r.code, r.stdout, r.stderr)
		}
	}
	r := runCaps(t, "", "propose", ws, "--target", abs, "--candidate", cand, "--quiet", "--json")
	if r.code != 2 || !strings.HasPrefix(r.stderr, "caps propose: --json and --quiet cannot be combined\n") || r.stdout != "" {
		t.Errorf("--quiet --json: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
