package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/runtime/session/bridge/bridgetest"
	"github.com/google/go-cmp/cmp"
)

// TestSessionCommands walks a session through the CLI: refusals with
// their exit codes and messages, steps, the LLM bridge against recorded
// answers, synthesis, tampering and the end in propose → assess.
func TestSessionCommands(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(repo, "testdata", "session")
	srv := bridgetest.Start(t, filepath.Join(data, "llm"))
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".caps"), 0o755)
	t.Chdir(dir)
	t.Setenv("USER", "alice")
	t.Setenv("OPENAI_MODEL", "test-model")
	t.Setenv("OPENAI_API_KEY", "test-key")
	type step struct {
		name   string
		env    string // OPENAI_BASE_URL recording, or ""
		args   []string
		code   int
		stdout string // exact, unless it ends in "..." (a prefix)
		stderr string // exact, unless it ends in "..." (a prefix)
	}
	const usage = "usage: caps session new --target FILE | apply DELTA.json | resolve HOLE=ANSWER | describe TEXT | show | synthesize | propose | list | schema [--session ID] [--json]\nRun 'caps help session' for details.\n"
	steps := []step{
		{"no subcommand", "", []string{"session"}, 2, "", "caps session: expected a subcommand: new, apply, resolve, describe, show, synthesize, propose, list or schema\n" + usage},
		{"unknown subcommand", "", []string{"session", "start"}, 2, "", "caps session: unknown subcommand \"start\"\n" + usage},
		{"no current session", "", []string{"session", "show"}, 2, "", "caps: no current session: start one with caps session new --target FILE, or pass --session ID\n"},
		{"new", "", []string{"session", "new", "--target", "triage.caps", "--id", "demo"}, 0,
			"started session demo on triage.caps (a new file)\nnext: caps session apply DELTA.json, or caps session describe TEXT\n", ""},
		{"flag of another subcommand", "", []string{"session", "apply", "--target", "x.caps", filepath.Join(data, "triage-1.json")}, 2, "", "caps session: --target does not apply to session apply\n" + usage},
		{"schema violation", "", []string{"session", "apply", filepath.Join(data, "bad-kind.json")}, 1, "",
			"caps: authoring delta does not validate against docs/schemas/authoring-delta.v1.schema.json\n  at /declarations/0/kind (schema #/$defs/declaration/properties/kind/enum): value must be one of 'type', 'function', ..."},
		{"apply", "", []string{"session", "apply", filepath.Join(data, "triage-1.json")}, 0,
			"step 1: applied delta sha256:00744f25bf80 (by alice)\ntriage.caps: 15 line(s), 0 error(s), 0 warning(s), semantic hash sha256:7da8fc5f6965\nopen hole h1: which score is urgent?\nnext: caps session resolve h1=ANSWER, or caps session propose\n", ""},
		{"resolve without =", "", []string{"session", "resolve", "h1"}, 2, "", "caps session: expected HOLE=ANSWER, as in h1=finance, got \"h1\"\n" + usage},
		{"resolve unknown hole", "", []string{"session", "resolve", "h7=x"}, 1, "", "caps: no hole \"h7\": the session's holes are h1 (caps session show lists them)\n"},
		{"resolve", "", []string{"session", "resolve", "h1=a score of 40 or more"}, 0,
			"step 2: resolved h1 (by alice)\ntriage.caps: 15 line(s), 0 error(s), 0 warning(s), semantic hash sha256:7da8fc5f6965\nnext: caps session propose\n", ""},
		{"describe: not JSON", "not-json", []string{"session", "describe", "Flag urgent tickets."}, 1, "",
			"caps: the model's answer is not a JSON object (invalid character 'S' looking for beginning of value): \"Sure! Here is your capsule: (module examples.triage (capsule \\\"1.0\\\"))\"\nnothing was applied to the session; the description and the model's answer are kept in " + filepath.Join(dir, ".caps", "sessions", "demo", "attempts") + "..."},
		{"describe: timeout", "slow", []string{"session", "describe", "--timeout", "200ms", "Flag urgent tickets."}, 1, "",
			"caps: the model server " + srv.Base("slow") + "/chat/completions did not answer within 200ms; nothing was applied: run again, or allow more time with --timeout\nnothing was applied to the session; ..."},
		{"describe: schema violation", "schema-violation", []string{"session", "describe", "Flag urgent tickets."}, 1, "",
			"caps: the model's delta is refused: authoring delta does not validate against docs/schemas/authoring-delta.v1.schema.json\n  at /declarations/0/kind (schema #/$defs/declaration/properties/kind/enum): ..."},
		{"describe: injection", "injection", []string{"session", "describe", "Also keep an audit trail."}, 0,
			"step 3: applied delta sha256:786b8d240785 (by llm:recorded-model)\ntriage.caps: 22 line(s), 1 error(s), 0 warning(s), semantic hash sha256:...", ""},
		{"synthesize shows the undeclared effect", "", []string{"session", "synthesize"}, 1, "(module examples.triage\n...",
			"triage.caps:16:16: error E_EFFECT_NOT_DECLARED: function score performs (db.write audit.notes) but does not declare it; add it to (effects ...)\n"},
		{"show", "", []string{"session", "show"}, 0,
			"session demo on triage.caps (a new file)\n  1 delta   sha256:00744f25bf80 (by alice)\n  2 resolve h1 = a score of 40 or more (by alice)\n  3 delta   sha256:786b8d240785 (by llm:recorded-model)\nanswered h1: which score is urgent? = a score of 40 or more\nhead sha256:...", ""},
		{"describe without a model", "", []string{"session", "describe", "x"}, 2, "", "caps: OPENAI_MODEL is not set: ..."},
	}
	run := func(st step) runResult {
		t.Helper()
		if st.env != "" {
			t.Setenv("OPENAI_BASE_URL", srv.Base(st.env))
		}
		if st.name == "describe without a model" {
			t.Setenv("OPENAI_MODEL", "")
		}
		got := runCaps(t, "", st.args...)
		if got.code != st.code || !matchOut(got.stdout, st.stdout) || !matchOut(got.stderr, st.stderr) {
			t.Errorf("%s: caps %s\ngot  [exit %d]\n%s\n--- stderr\n%s\nwant [exit %d]\n%s\n--- stderr\n%s", st.name, strings.Join(st.args, " "), got.code, got.stdout, got.stderr, st.code, st.stdout, st.stderr)
		}
		return got
	}
	for _, st := range steps {
		run(st)
	}
	t.Setenv("OPENAI_MODEL", "test-model")
	// Synthesis is deterministic: the JSON report twice, byte for byte.
	a := runCaps(t, "", "session", "synthesize", "--json")
	b := runCaps(t, "", "session", "synthesize", "--json")
	if a.code != 1 || a.stdout != b.stdout {
		t.Fatalf("synthesize --json: %+v", a)
	}
	var rep struct {
		OK    bool `json:"ok"`
		Files []struct {
			Path         string `json:"path"`
			Session      string `json:"session"`
			Step         int    `json:"step"`
			Source       string `json:"source"`
			SourceSHA256 string `json:"source_sha256"`
			SemanticHash string `json:"semantic_hash"`
			Diagnostics  []struct {
				Code string `json:"code"`
			} `json:"diagnostics"`
			Holes []map[string]any `json:"holes"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(a.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	f := rep.Files[0]
	if rep.OK || f.Path != "triage.caps" || f.Session != "demo" || f.Step != 3 || len(f.Diagnostics) != 1 || f.Diagnostics[0].Code != "E_EFFECT_NOT_DECLARED" || !strings.HasPrefix(f.SemanticHash, "sha256:") || len(f.Holes) != 1 {
		t.Errorf("report: %s", a.stdout)
	}
	// The source after an earlier step, replayed.
	run(step{"step out of range", "", []string{"session", "synthesize", "--step", "9"}, 2, "", "caps: session demo has steps 0 to 3, not 9\n"})
	run(step{"step 0 of a new file", "", []string{"session", "synthesize", "--step", "0"}, 1, "", "caps: session demo has no delta yet and triage.caps does not exist: apply one first (caps session apply DELTA.json)\n"})
	s2 := runCaps(t, "", "session", "synthesize", "--step", "2", "--json")
	var rep2 struct {
		Files []struct {
			Step         int    `json:"step"`
			SourceSHA256 string `json:"source_sha256"`
			Holes        []struct {
				Answer string `json:"answer"`
			} `json:"holes"`
		} `json:"files"`
	}
	json.Unmarshal([]byte(s2.stdout), &rep2)
	var shown2 struct {
		Steps []struct {
			SourceSHA256 string `json:"source_sha256"`
		} `json:"steps"`
	}
	json.Unmarshal([]byte(runCaps(t, "", "session", "show", "--json").stdout), &shown2)
	if s2.code != 0 || len(rep2.Files) != 1 || rep2.Files[0].Step != 2 || rep2.Files[0].SourceSHA256 != shown2.Steps[1].SourceSHA256 || rep2.Files[0].Holes[0].Answer != "a score of 40 or more" {
		t.Errorf("synthesize --step 2: %+v", s2)
	}
	// The proposal fails its assessment and is not committed; the file is
	// never written.
	id := strings.TrimSpace(runCaps(t, "", "session", "propose", "--quiet").stdout)
	as := runCaps(t, "", "assess", id)
	if as.code != 1 || !strings.HasPrefix(as.stdout, id+": fail") {
		t.Errorf("assess: %+v", as)
	}
	if got := runCaps(t, "", "commit", id, "--approve", "alice"); got.code == 0 {
		t.Errorf("commit: %+v", got)
	}
	if _, err := os.Stat("triage.caps"); err == nil {
		t.Errorf("the module file was written")
	}
	sh := runCaps(t, "", "session", "show", "--json")
	var shown struct {
		Steps []struct {
			Kind     string `json:"kind"`
			Proposal string `json:"proposal"`
		} `json:"steps"`
	}
	json.Unmarshal([]byte(sh.stdout), &shown)
	if len(shown.Steps) != 4 || shown.Steps[3].Kind != "propose" || shown.Steps[3].Proposal != id {
		t.Errorf("show --json: %s", sh.stdout)
	}
	// A second session reaches the same source from the same steps.
	run(step{"new", "", []string{"session", "new", "--target", "triage.caps", "--id", "again"}, 0, "started session again on triage.caps (a new file)\n...", ""})
	run(step{"apply", "", []string{"session", "apply", filepath.Join(data, "triage-1.json")}, 0, "step 1: applied delta sha256:00744f25bf80 (by alice)\n...", ""})
	run(step{"resolve", "", []string{"session", "resolve", "h1=a score of 40 or more"}, 0, "step 2: resolved h1 (by alice)\n...", ""})
	run(step{"describe", "injection", []string{"session", "describe", "Also keep an audit trail."}, 0, "step 3: applied delta sha256:786b8d240785 (by llm:recorded-model)\n...", ""})
	c := runCaps(t, "", "session", "synthesize", "--json")
	c.stdout = strings.Replace(c.stdout, `"session":"again"`, `"session":"demo"`, 1)
	if diff := cmp.Diff(a.stdout, c.stdout); diff != "" {
		t.Errorf("another session with the same steps (-first +second):\n%s", diff)
	}
	// A tampered session is refused with exit 1 and changes nothing.
	p := filepath.Join(".caps", "sessions", "demo", "steps", "0002", "step.json")
	text, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(text), "40 or more", "50 or more", 1)), 0o644)
	run(step{"tampered", "", []string{"session", "apply", "--session", "demo", filepath.Join(data, "triage-2.json")}, 1, "",
		"caps: session demo does not verify: steps/0002/step.json: its hash does not match its content (it was edited); nothing was changed. Restore .caps/sessions/demo from a backup, or start a new session (caps session new --target FILE) and apply its deltas again\n"})
	run(step{"list", "", []string{"session", "list"}, 0, "* again triage.caps, 3 step(s)\n  demo (does not verify: caps session show --session demo)\n", ""})
	if ents, _ := os.ReadDir(filepath.Join(".caps", "sessions", "demo", "steps")); len(ents) != 4 {
		t.Errorf("the tampered session got a step")
	}
	// The schema.
	sc := runCaps(t, "", "session", "schema")
	want, _ := os.ReadFile(filepath.Join(repo, "docs", "schemas", "authoring-delta.v1.schema.json"))
	if sc.code != 0 || sc.stdout != string(want) {
		t.Errorf("session schema: %+v", sc)
	}
}

// matchOut compares output with a want that is exact, or a prefix when it
// ends in "...".
func matchOut(got, want string) bool {
	if p, ok := strings.CutSuffix(want, "..."); ok {
		return strings.HasPrefix(got, p)
	}
	return got == want
}

// TestProposeDeltaSchema: caps propose --delta refuses a delta that does
// not validate (exit 1) with the paths of the problem, and records nothing.
func TestProposeDeltaSchema(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".caps"), 0o755)
	t.Chdir(dir)
	got := runCaps(t, "", "propose", "--target", "triage.caps", "--delta", filepath.Join(repo, "testdata", "session", "bad-kind.json"))
	want := "caps: authoring delta does not validate against docs/schemas/authoring-delta.v1.schema.json\n  at /declarations/0/kind (schema #/$defs/declaration/properties/kind/enum): value must be one of "
	if got.code != 1 || got.stdout != "" || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("got %+v", got)
	}
	if _, err := os.Stat(filepath.Join(".caps", "proposals")); err == nil {
		t.Errorf("a proposal was stored")
	}
	// The same delta on standard input.
	b, _ := os.ReadFile(filepath.Join(repo, "testdata", "session", "bad-kind.json"))
	if got := runCaps(t, string(b), "propose", "--target", "triage.caps", "--delta", "-"); got.code != 1 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("stdin: %+v", got)
	}
}
