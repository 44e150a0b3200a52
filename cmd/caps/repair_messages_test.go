package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
)

// repairSources have diagnostics with repairs of every kind the planner
// builds from a diagnostic's data (its Suggestion and Fix).
var repairSources = map[string]string{
	"bad.caps": checkBad,
	"effects.caps": `(module t
  (capsule "1")
  (profile pure)
  (store ops (backend memory) (collection items))
  (function save
    (input (x I46))
    (output I64)
    (body (do (db.write ops.items 1) 1)))
  (machine M
    (context (n U32))
    (event Go (k U32))
    (initial idle)
    (state idle (on Go (target done) (assign (n event.k) (seen true))))
    (state done (type final))))
`,
	"paren.caps": "(module t\n  (capsule \"1\")\n  (machine M (event Go) (initial idle)\n    (state idle (on Go (target done))\n    (state done (type final))))\n",
	"extra.caps": "(module t\n  (capsule \"1\")\n  (machine M (event Go) (initial idle)\n    (state idle (on Go (target done))))\n    (state done (type final))))\n",
}

// repairPlans runs caps repair-plan --json on each of repairSources and
// returns its plans with the diagnostics' messages left out, and the
// messages apart.
func repairPlans(t *testing.T) (plans map[string]string, messages []string) {
	t.Helper()
	dir := t.TempDir()
	plans = map[string]string{}
	for name, src := range repairSources {
		r := runCaps(t, "", "repair-plan", "--json", writeFile(t, dir, name, src))
		var out struct {
			Files []struct {
				Plans []struct {
					Diagnostic map[string]any    `json:"diagnostic"`
					Options    []json.RawMessage `json:"options"`
				} `json:"plans"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Files) != 1 || len(out.Files[0].Plans) == 0 {
			t.Fatalf("%s: repair-plan gave no plans (%v): %s%s", name, err, r.stdout, r.stderr)
		}
		for _, p := range out.Files[0].Plans {
			messages = append(messages, p.Diagnostic["message"].(string))
			delete(p.Diagnostic, "message")
		}
		b, _ := json.MarshalIndent(out.Files[0].Plans, "", " ")
		plans[name] = strings.ReplaceAll(string(b), dir, "DIR")
	}
	return plans, messages
}

// TestRepairCommandsIgnoreMessages (issue 21, item 2): with every
// diagnostic message rewritten to the same nonsense, caps repair-plan
// offers the same options with the same edits, and caps propose --repair
// still applies a repair by code and option id.
func TestRepairCommandsIgnoreMessages(t *testing.T) {
	want, _ := repairPlans(t)
	all := strings.Join([]string{want["bad.caps"], want["effects.caps"], want["paren.caps"], want["extra.caps"]}, "\n")
	for _, id := range []string{"rename", "declare-state", "declare-effect", "add-profile", "declare-field", "insert-paren", "delete-paren"} {
		if !strings.Contains(all, `"id": "`+id+`"`) {
			t.Errorf("no %s option among the plans:\n%s", id, all)
		}
	}
	const garbled = "zq rewritten by the test"
	restore := check.RewriteMessages(func(string) string { return garbled })
	defer restore()
	got, messages := repairPlans(t)
	for _, m := range messages {
		if m != garbled {
			t.Fatalf("message not rewritten: %q", m)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plans with rewritten messages (-plain +rewritten):\n%s", diff)
	}
	t.Run("ProposeRepairAndApproval", TestProposeRepairAndApproval)
}
