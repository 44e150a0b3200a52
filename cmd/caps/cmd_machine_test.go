package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// doorSrc is the machine of the command tests: a door with a guard, an
// effect with retry and on-error, and a state timeout.
const doorSrc = `(module door
  (capsule "1.0")
  (profile persistence.file)
  (store log (backend memory) (authority runtime-state) (collection opened alarms))
  (machine Door
    (context (code U32) (opens U32) (who Text))
    (event Open (code U32) (who Text))
    (event Close)
    (event Alarm)
    (initial closed)
    (state closed
      (on Open
        (guard (== event.code 1234))
        (target open)
        (assign (opens (+ opens 1)) (who event.who))
        (effects (db.write log.opened (retry 1) (on-error jammed)))))
    (state open
      (timeout 30s Close)
      (on Close (target closed)))
    (state jammed
      (on Alarm (target alarmed) (effects (db.write log.alarms))))
    (state alarmed (type final))))
`

func machineFiles(t *testing.T) {
	t.Helper()
	t.Chdir(t.TempDir())
	files := map[string]string{
		"door.caps": doorSrc,
		"jam.json":  `{"mocks": [{"effect": "db.write", "target": "log.opened", "outcomes": [{"ok": false, "error": "hinge stuck", "latency": "2s"}]}]}`,
	}
	for name, src := range files {
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMachineRun(t *testing.T) {
	machineFiles(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "dry-run", args: []string{"machine-run", "door.caps", "Door", `Open={"code": 1234, "who": "ada"}`, "+10s", "+20s", "Close", `Open={"code": 1}`},
			code: 1, stdout: `Door (dry-run), instance Door-a65d9de4f806
#1 Open: closed -> open
    db.write log.opened: planned
#3 Close (timeout at 30s): open -> closed
#4 Close: FAILED R_NO_TRANSITION: state closed has no transition for Close
#5 Open: FAILED R_GUARD_FALSE: guard (== event.code 1234) is false in state closed
state closed (running), clock 30s
context {"code":0,"opens":1,"who":"ada"}
`},
		// Dry-run mode fills the fields an input leaves out with zero
		// values and says so; a field given with the wrong type still fails.
		{name: "dry-run defaults missing fields", args: []string{"machine-run", "door.caps", "Door", `Open={"code": 1234}`, "Close", "Open", `Open={"code": "x"}`},
			code: 1, stdout: `Door (dry-run), instance Door-a65d9de4f806
#1 Open: closed -> open
    defaulted (zero values): who
    db.write log.opened: planned
#2 Close: open -> closed
#3 Open: FAILED R_GUARD_FALSE: guard (== event.code 1234) is false in state closed
#4 Open: FAILED R_BAD_PAYLOAD: bad payload: code: expected U32, found "x"
state closed (running), clock 0ms
context {"code":0,"opens":1,"who":""}
`},
		{name: "mock stays strict", args: []string{"machine-run", "--mode", "mock", "door.caps", "Door", `Open={"code": 1234}`},
			code: 1, stdout: `Door (mock), instance Door-a65d9de4f806
#1 Open: FAILED R_BAD_PAYLOAD: bad payload: event Open needs field "who"
state closed (running), clock 0ms
context {"code":0,"opens":0,"who":""}
`},
		{name: "live stays strict", args: []string{"machine-run", "--mode", "live", "door.caps", "Door", "Open"},
			code: 1, stdout: `Door (live), instance Door-a65d9de4f806
#1 Open: FAILED R_BAD_PAYLOAD: bad payload: event Open needs field "code"
state closed (running), clock 0ms
context {"code":0,"opens":0,"who":""}
`},
		{name: "mock with on-error", args: []string{"machine-run", "--mode", "mock", "--mocks", "jam.json", "door.caps", "Door", `Open={"code": 1234, "who": "bo"}`, "Alarm", "!cancel"},
			code: 1, stdout: `Door (mock), instance Door-a65d9de4f806
#1 Open: closed -> open
    db.write log.opened: failed (2 attempts, 4s): R_EFFECT_FAILED: hinge stuck
    on-error: open -> jammed
#2 Alarm: jammed -> alarmed
    db.write log.alarms: executed (1 attempt, 0ms)
#3 !cancel: FAILED R_FINAL_STATE: the instance is in final state alarmed; there is nothing to cancel
state alarmed (final), clock 0ms
context {"code":0,"opens":1,"who":"bo"}
`},
		{name: "bad mode", args: []string{"machine-run", "--mode", "wet", "door.caps", "Door"}, code: 2,
			stderr: "caps machine-run: --mode is dry-run, mock or live, not \"wet\"\nusage: caps machine-run [--mode dry-run|mock|live] [--mocks FILE] [--policy FILE] [--ledger DIR] [--json] FILE MACHINE [EVENT...]\nRun 'caps help machine-run' for details.\n"},
		{name: "bad payload", args: []string{"machine-run", "door.caps", "Door", "Open={code"}, code: 2,
			stderr: "caps machine-run: event Open: the payload is not JSON: invalid character 'c' looking for beginning of object key string\nusage: caps machine-run [--mode dry-run|mock|live] [--mocks FILE] [--policy FILE] [--ledger DIR] [--json] FILE MACHINE [EVENT...]\nRun 'caps help machine-run' for details.\n"},
		{name: "unknown machine", args: []string{"machine-run", "door.caps", "Dor"}, code: 2,
			stderr: "caps: door.caps: module door has no machine \"Dor\"; did you mean \"Door\"?\n"},
		{name: "mocks without mock", args: []string{"machine-run", "--mocks", "jam.json", "door.caps", "Door"}, code: 2,
			stderr: "caps machine-run: --mocks needs --mode mock\nusage: caps machine-run [--mode dry-run|mock|live] [--mocks FILE] [--policy FILE] [--ledger DIR] [--json] FILE MACHINE [EVENT...]\nRun 'caps help machine-run' for details.\n"},
		{name: "live denies by default", args: []string{"machine-run", "--mode", "live", "door.caps", "Door", `Open={"code": 1234, "who": "cy"}`},
			stdout: `Door (live), instance Door-a65d9de4f806
#1 Open: closed -> open
    db.write log.opened: denied: R_EFFECT_DENIED: the host policy denies db.write log.opened (default deny (no policy))
    on-error: open -> jammed
state jammed (running), clock 0ms
context {"code":0,"opens":1,"who":"cy"}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCaps(t, "", tt.args...)
			want := runResult{tt.code, tt.stdout, tt.stderr}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("caps %s: (-want +got)\n%s", strings.Join(tt.args, " "), diff)
			}
		})
	}
}

func TestMachineRunJSON(t *testing.T) {
	machineFiles(t)
	got := runCaps(t, "", "machine-run", "--json", "--mode", "mock", "--mocks", "jam.json", "door.caps", "Door", `Open={"code": 1234, "who": "ada"}`, "Open")
	if got.code != 1 || got.stderr != "" {
		t.Fatalf("%+v", got)
	}
	var out struct {
		Machine, Mode, Instance, State, Status, Clock string
		Context                                       map[string]any
		Steps                                         []struct {
			Seq                    int
			Event, Cause, From, To string
			OK                     bool
			Error                  *struct{ Code, Message string }
			Payload                map[string]any
			Context                map[string]any
			Effects                []map[string]any
			Route                  *struct {
				Effect   int
				From, To string
			}
		}
	}
	if err := json.Unmarshal([]byte(got.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Machine != "Door" || out.Mode != "mock" || out.State != "jammed" || out.Status != "running" || len(out.Steps) != 2 {
		t.Fatalf("%+v", out)
	}
	s := out.Steps[0]
	if s.Event != "Open" || s.From != "closed" || s.To != "jammed" || !s.OK || s.Error != nil || s.Route == nil || s.Route.To != "jammed" ||
		s.Payload["who"] != "ada" || s.Context["opens"] != float64(1) {
		t.Errorf("step 1 %+v", s)
	}
	e := s.Effects[0]
	if e["effect"] != "db.write" || e["target"] != "log.opened" || e["status"] != "failed" || e["on_error"] != "jammed" || e["retry"] != float64(1) || len(e["attempts"].([]any)) != 2 {
		t.Errorf("effect %+v", e)
	}
	if s := out.Steps[1]; s.OK || s.Error == nil || s.Error.Code != "R_BAD_PAYLOAD" || s.Effects == nil || len(s.Effects) != 0 {
		t.Errorf("step 2 %+v", s)
	}
}

func TestLedgerReplayTrace(t *testing.T) {
	machineFiles(t)
	events := []string{`Open={"code": 9, "who": "x"}`, `Open={"code": 1234, "who": "ada"}`, "+45s", "Nope", "Alarm", "Alarm"}
	run := func(dir string) {
		t.Helper()
		args := append([]string{"machine-run", "--mode", "mock", "--mocks", "jam.json", "--ledger", dir, "door.caps", "Door"}, events...)
		if got := runCaps(t, "", args...); got.code != 1 || got.stderr != "" || !strings.HasSuffix(got.stdout, "ledger "+dir+"\n") {
			t.Fatalf("%+v", got)
		}
	}
	run("l1")
	run("l2")
	a, _ := os.ReadFile(filepath.Join("l1", "ledger.jsonl"))
	b, _ := os.ReadFile(filepath.Join("l2", "ledger.jsonl"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatal("the same inputs gave different ledger bytes")
	}
	if got := runCaps(t, "", "machine-run", "--ledger", "l1", "door.caps", "Door"); got.code != 2 || !strings.Contains(got.stderr, "a ledger already exists there") {
		t.Errorf("reuse: %+v", got)
	}

	got := runCaps(t, "", "replay", "l1")
	if got.code != 0 || got.stdout != "ok: Door Door-a65d9de4f806 (mock): 22 records, 6 inputs, 5 steps replayed; state alarmed\n" || got.stderr != "" {
		t.Errorf("replay: %+v", got)
	}
	// --module - replays against the module on standard input.
	if stdin := runCaps(t, doorSrc, "replay", "--module", "-", "l1"); stdin != got {
		t.Errorf("replay --module -: %+v, want %+v", stdin, got)
	}
	got = runCaps(t, "", "replay", "--json", "l1")
	var rep struct {
		OK       bool
		Records  int
		Verified int
		State    string
	}
	if err := json.Unmarshal([]byte(got.stdout), &rep); err != nil || !rep.OK || rep.Records != 22 || rep.Verified != 22 || rep.State != "alarmed" {
		t.Errorf("replay --json: %v %+v", err, rep)
	}

	got = runCaps(t, "", "trace", "--errors", "l1")
	for _, want := range []string{
		"Door instance Door-a65d9de4f806 (sha256:",
		"\nt=0ms #1 ERROR machine.transition.fail Door.Open: guard (== event.code 1234) is false in state closed [R_GUARD_FALSE]\n    reason: guard (== event.code 1234); expected true; actual false\n    history:\n      t=0ms machine.transition.start Door.Open\nt=0ms #2 ERROR adapter.call.fail db.write log.opened: hinge stuck [R_EFFECT_FAILED] (2000ms)\n",
		"\nt=0ms #2 ERROR effect.failed db.write log.opened: failed after 2 attempts: hinge stuck [R_EFFECT_FAILED] (4000ms)\n    reason: on-error jammed; expected success; actual failure; intent ",
		"\nt=45000ms #4 ERROR machine.transition.fail Door.Nope: machine Door declares no event \"Nope\"; did you mean \"Open\"? [R_UNKNOWN_EVENT]\n",
		"\nt=45000ms #6 ERROR machine.transition.fail Door.Alarm: the instance is in final state alarmed and accepts no more events [R_FINAL_STATE]\n    reason: final state; expected running; actual final state alarmed\n",
	} {
		if got.code != 0 || !strings.Contains(got.stdout, want) {
			t.Errorf("trace --errors: no %q in\n%s", want, got.stdout)
		}
	}
	got = runCaps(t, "", "trace", "--json", "l1")
	var tr struct {
		Machine    string
		InstanceID string `json:"instance_id"`
		Records    []map[string]any
	}
	if err := json.Unmarshal([]byte(got.stdout), &tr); err != nil || len(tr.Records) < 20 {
		t.Fatalf("trace --json: %v %s", err, got.stdout)
	}
	for _, k := range []string{"trace_id", "span_id", "event", "severity_text", "body", "component", "operation", "service", "capsule_hash", "machine_instance_id", "duration_ms"} {
		if _, ok := tr.Records[0][k]; !ok {
			t.Errorf("record without %s: %v", k, tr.Records[0])
		}
	}

	// tampering: one byte of the first snapshot's context
	data, _ := os.ReadFile(filepath.Join("l2", "ledger.jsonl"))
	data = bytes.Replace(data, []byte(`"opens":1`), []byte(`"opens":7`), 1)
	os.WriteFile(filepath.Join("l2", "ledger.jsonl"), data, 0o644)
	got = runCaps(t, "", "replay", "l2")
	if got.code != 1 || !strings.HasPrefix(got.stderr, "caps: l2: tampered: line ") || !strings.Contains(got.stderr, "(hash)") {
		t.Errorf("tampered: %+v", got)
	}
	if got := runCaps(t, "", "trace", "l2"); got.code != 1 || !strings.Contains(got.stderr, "tampered") {
		t.Errorf("trace of a tampered ledger: %+v", got)
	}

	// a changed module: the hash difference comes first
	os.WriteFile("door.caps", []byte(strings.Replace(doorSrc, "(== event.code 1234)", "(== event.code 4321)", 1)), 0o644)
	got = runCaps(t, "", "replay", "l1")
	lines := strings.Split(got.stderr, "\n")
	if got.code != 1 || !strings.HasPrefix(lines[0], "caps: l1: semantic hash differs: the ledger was recorded with sha256:") ||
		!strings.Contains(lines[0], ", the module door.caps is now sha256:") ||
		lines[1] != "mismatch at record 4 (failed), replaying input 1 (Open): message is \"guard (== event.code 1234) is false in state closed\" in the ledger, \"guard (== event.code 4321) is false in state closed\" on replay" {
		t.Errorf("changed module: %+v", got)
	}
	if got := runCaps(t, "", "replay", "nowhere"); got.code != 2 || got.stderr != "caps: nowhere: error: nowhere: no ledger here (no ledger.jsonl)\n" {
		t.Errorf("no ledger: %+v", got)
	}
}

// TestShippedScenarios runs every shipped scenario through caps test.
func TestShippedScenarios(t *testing.T) {
	files, _ := filepath.Glob("../../examples/scenarios/*.json")
	if len(files) < 5 {
		t.Fatalf("scenarios: %v", files)
	}
	args := []string{"test"}
	for _, f := range files {
		args = append(args, "--scenario", f)
	}
	got := runCaps(t, "", append(args, shippedModules(t, "../..")...)...)
	if got.code != 0 || got.stderr != "" {
		t.Fatalf("%+v", got)
	}
	for _, f := range files {
		if !strings.Contains(got.stdout, "PASS "+f+": ") {
			t.Errorf("%s did not pass:\n%s", f, got.stdout)
		}
	}
}

func TestScenarioFailure(t *testing.T) {
	machineFiles(t)
	os.WriteFile("door.json", []byte(`{"machine": "Door", "events": [
		{"event": "Open", "payload": {"code": 1234, "who": "x"}, "expect": {"state": "open", "context": {"opens": 1},
		 "effects": [{"effect": "db.write", "target": "log.opened"}]}},
		{"advance": "30s", "expect": {"state": "closed", "ok": true}},
		{"event": "Open", "payload": {"code": 1, "who": "y"}, "expect": {"state": "open", "ok": true, "context": {"opens": 2, "who": "y"}, "effects": []}}
	]}`), 0o644)
	got := runCaps(t, "", "test", "--scenario", "door.json", "door.caps")
	want := `FAIL door.json: Door
    step 3 (Open):
        state: expected open, got closed (R_GUARD_FALSE: guard (== event.code 1234) is false in state closed)
        ok: expected the step to succeed, but it failed: R_GUARD_FALSE: guard (== event.code 1234) is false in state closed
        context.opens: expected 2, got 1
        context.who: expected "y", got "x"
0 passed, 1 failed
`
	if got.code != 1 || got.stdout != want || got.stderr != "" {
		t.Errorf("got %d\n%s\n%s", got.code, got.stdout, got.stderr)
	}
	got = runCaps(t, "", "test", "--json", "--scenario", "door.json", "door.caps")
	var out struct {
		OK    bool
		Files []struct {
			Path      string
			Scenarios []struct {
				Path, Machine string
				Passed        bool
				Steps         []struct {
					Index  int
					Passed bool
					State  string
					Diffs  []string
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(got.stdout), &out); err != nil || out.OK || len(out.Files) != 1 || len(out.Files[0].Scenarios) != 1 {
		t.Fatalf("%v %s", err, got.stdout)
	}
	sc := out.Files[0].Scenarios[0]
	if sc.Path != "door.json" || sc.Machine != "Door" || sc.Passed || len(sc.Steps) != 3 || !sc.Steps[0].Passed || sc.Steps[2].Passed || len(sc.Steps[2].Diffs) != 4 {
		t.Errorf("%+v", sc)
	}
}
