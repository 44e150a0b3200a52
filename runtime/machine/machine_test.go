package machine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/internal/testutil"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/runtime/value"
	"github.com/google/go-cmp/cmp"
)

func compile(t testing.TB, path, name string) *machine.Machine {
	t.Helper()
	p := testutil.Load(t, path)
	m, err := machine.Compile(p.Result, name, machine.Options{Hash: p.Hash})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// scripted is a test executor: outcomes by effect label, one per attempt
// (the last repeats); everything else succeeds.
type scripted struct {
	outcomes map[string][]machine.Outcome
	deny     map[string]bool
	calls    []string
}

func (s *scripted) Mode() machine.Mode { return machine.Mock }

func (s *scripted) Approve(c *machine.Call) machine.Decision {
	if s.deny[c.Spec.Label()] {
		return machine.Decision{Rule: "test deny"}
	}
	return machine.Decision{Allowed: true, Rule: "test allow"}
}

func (s *scripted) Execute(ctx context.Context, c *machine.Call) machine.Outcome {
	s.calls = append(s.calls, fmt.Sprintf("%s#%d", c.Spec.Label(), c.Attempt))
	outs := s.outcomes[c.Spec.Label()]
	if len(outs) == 0 {
		return machine.Outcome{OK: true, Adapter: "test"}
	}
	o := outs[min(c.Attempt, len(outs))-1]
	o.Adapter = "test"
	return o
}

// step is one input of a table test and what to expect after it.
type step struct {
	event   string
	payload string // raw JSON
	advance int64  // when event is "": advance the clock by this
	cancel  bool
	// expectations
	state   string
	ok      bool
	code    string
	context string // the whole context as JSON
	effects string // effect summaries: "label:status:attempts" joined by ", "
	steps   int    // for advances: the number of timeouts fired
}

func summary(effs []machine.Effect) string {
	var parts []string
	for _, e := range effs {
		s := e.Spec.Label() + ":" + string(e.Status)
		if len(e.Attempts) > 0 {
			s += fmt.Sprintf(":%d", len(e.Attempts))
		}
		if e.Code != "" {
			s += ":" + e.Code
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func run(t *testing.T, inst *machine.Instance, steps []step) {
	t.Helper()
	m := inst.Machine()
	for n, s := range steps {
		var r machine.StepResult
		switch {
		case s.cancel:
			r = inst.Cancel("test")
		case s.event == "":
			rs, err := inst.Advance(s.advance)
			if err != nil {
				t.Fatalf("step %d: %v", n+1, err)
			}
			if len(rs) != s.steps {
				t.Fatalf("step %d: advance fired %d timeouts, want %d", n+1, len(rs), s.steps)
			}
			if len(rs) == 0 {
				if inst.State() != s.state {
					t.Errorf("step %d: state %s, want %s", n+1, inst.State(), s.state)
				}
				continue
			}
			r = rs[len(rs)-1]
		default:
			var raw json.RawMessage
			if s.payload != "" {
				raw = json.RawMessage(s.payload)
			}
			r = inst.Step(machine.Event{Name: s.event, Raw: raw})
		}
		code := ""
		if r.Failure != nil {
			code = r.Failure.Code
		}
		got := fmt.Sprintf("state=%s ok=%v code=%s", r.To, r.OK, code)
		want := fmt.Sprintf("state=%s ok=%v code=%s", s.state, s.ok, s.code)
		if got != want {
			msg := ""
			if r.Failure != nil {
				msg = r.Failure.Message
			}
			t.Errorf("step %d (%s): got %s, want %s (%s)", n+1, s.event, got, want, msg)
		}
		if inst.State() != s.state {
			t.Errorf("step %d: instance state %s, want %s", n+1, inst.State(), s.state)
		}
		if s.context != "" {
			if got := string(m.ContextJSON(r.Context)); got != s.context {
				t.Errorf("step %d: context\n got %s\nwant %s", n+1, got, s.context)
			}
		}
		if got := summary(r.Effects); got != s.effects {
			t.Errorf("step %d: effects\n got %s\nwant %s", n+1, got, s.effects)
		}
	}
}

const ventPath = "testdata/vent.caps"

func TestDryRun(t *testing.T) {
	m := compile(t, ventPath, "VentController")
	inst, err := m.NewInstance(machine.InstanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	planned := "db.write climate.commands:planned, mcp.call climate_port.set_vent:planned"
	run(t, inst, []step{
		{event: "SetVent", payload: `{"percent": 40}`, state: "idle", ok: true,
			context: `{"percent":40,"previous":0,"moves":1,"label":""}`, effects: planned},
		// assignments read the old context: previous gets 40, not 70
		{event: "SetVent", payload: `{"percent": "70"}`, state: "idle", ok: true,
			context: `{"percent":70,"previous":40,"moves":2,"label":""}`, effects: planned},
		{event: "SetVent", payload: `{"percent": 140}`, state: "idle", code: "R_GUARD_FALSE",
			context: `{"percent":70,"previous":40,"moves":2,"label":""}`},
		{event: "SetVent", payload: `{"percent": -1}`, state: "idle", code: "R_BAD_PAYLOAD"},
		{event: "SetVent", payload: `{}`, state: "idle", code: "R_BAD_PAYLOAD"},
		{event: "SetVent", payload: `{"percent": 1, "speed": 2}`, state: "idle", code: "R_BAD_PAYLOAD"},
		{event: "SetVent", payload: `[1]`, state: "idle", code: "R_BAD_PAYLOAD"},
		{event: "SetVnt", state: "idle", code: "R_UNKNOWN_EVENT"},
		{event: "AllClear", state: "idle", code: "R_NO_TRANSITION"},
		{event: "Rename", payload: `{"label": "north \"wing\""}`, state: "idle", ok: true,
			context: `{"percent":70,"previous":40,"moves":2,"label":"north \"wing\""}`},
		{event: "Storm", state: "sealed", ok: true,
			context: `{"percent":0,"previous":40,"moves":2,"label":"north \"wing\""}`,
			effects: "mcp.call climate_port.set_vent:planned"},
		{advance: 5 * 3600_000, state: "sealed"},
		{advance: 3600_000, state: "idle", ok: true, steps: 1},
		{advance: 24 * 3600_000, state: "idle"},
		// the timeout event may be sent explicitly
		{event: "Storm", state: "sealed", ok: true, effects: "mcp.call climate_port.set_vent:planned"},
		{event: "AllClear", state: "idle", ok: true},
		{cancel: true, state: "idle", ok: true},
		{event: "Storm", state: "idle", code: "R_CANCELLED"},
		{cancel: true, state: "idle", code: "R_CANCELLED"},
	})
	if inst.Clock() != 30*3600_000 {
		t.Errorf("clock %d", inst.Clock())
	}
	if inst.Status() != machine.Cancelled {
		t.Errorf("status %s", inst.Status())
	}
}

func TestFailureMessages(t *testing.T) {
	m := compile(t, ventPath, "VentController")
	inst, _ := m.NewInstance(machine.InstanceOptions{})
	for _, tt := range []struct {
		event, payload, msg string
	}{
		{"SetVent", `{"percent": 140}`, "guard (<= event.percent 100) is false in state idle"},
		{"SetVnt", ``, `machine VentController declares no event "SetVnt"; did you mean "SetVent"?`},
		{"AllClear", ``, "state idle has no transition for AllClear"},
		{"SetVent", `{"percent": 1, "speed": 2, "angle": 3}`, `bad payload: event SetVent has no field "angle"`},
		{"SetVent", `{}`, `bad payload: event SetVent needs field "percent"`},
	} {
		r := inst.Step(machine.Event{Name: tt.event, Raw: json.RawMessage(tt.payload)})
		if r.Failure == nil || !strings.HasPrefix(r.Failure.Message, tt.msg) {
			t.Errorf("%s %s: failure %+v, want message %q", tt.event, tt.payload, r.Failure, tt.msg)
		}
	}
}

func TestTypedPayload(t *testing.T) {
	m := compile(t, ventPath, "VentController")
	inst, _ := m.NewInstance(machine.InstanceOptions{})
	r := inst.Step(machine.Event{Name: "SetVent", Payload: map[string]value.Value{"percent": value.U32(5)}})
	if !r.OK || r.To != "idle" {
		t.Fatalf("%+v", r.Failure)
	}
	r = inst.Step(machine.Event{Name: "SetVent", Payload: map[string]value.Value{"percent": value.U64(5)}})
	if r.OK || r.Failure.Code != "R_BAD_PAYLOAD" {
		t.Fatalf("U64 for U32: %+v", r.Failure)
	}
	r = inst.Step(machine.Event{Name: "SetVent", Payload: map[string]value.Value{}})
	if r.OK || r.Failure.Message != "bad payload: event SetVent: missing field percent" {
		t.Fatalf("missing: %+v", r.Failure)
	}
}

func TestRetryTimeoutOnError(t *testing.T) {
	m := compile(t, ventPath, "VentController")
	fail := machine.Outcome{Error: "vent jammed"}
	slow := machine.Outcome{OK: true, DurationMs: 31_000}
	tests := []struct {
		name     string
		outcomes []machine.Outcome
		deny     bool
		want     step
		calls    int
	}{
		{name: "first attempt", want: step{state: "idle", ok: true,
			effects: "db.write climate.commands:executed:1, mcp.call climate_port.set_vent:executed:1"}, calls: 2},
		{name: "two failures then success", outcomes: []machine.Outcome{fail, fail, {OK: true}},
			want: step{state: "idle", ok: true, effects: "db.write climate.commands:executed:1, mcp.call climate_port.set_vent:executed:3"}, calls: 4},
		{name: "three failures route to fault", outcomes: []machine.Outcome{fail},
			want: step{state: "fault", ok: true, context: `{"percent":40,"previous":0,"moves":1,"label":""}`,
				effects: "db.write climate.commands:executed:1, mcp.call climate_port.set_vent:failed:3:R_EFFECT_FAILED"}, calls: 4},
		{name: "slower than the timeout", outcomes: []machine.Outcome{slow, slow, {OK: true, DurationMs: 30_000}},
			want: step{state: "idle", ok: true, effects: "db.write climate.commands:executed:1, mcp.call climate_port.set_vent:executed:3"}, calls: 4},
		{name: "always too slow", outcomes: []machine.Outcome{slow},
			want: step{state: "fault", ok: true, effects: "db.write climate.commands:executed:1, mcp.call climate_port.set_vent:failed:3:R_EFFECT_TIMEOUT"}, calls: 4},
		{name: "denied", deny: true,
			want: step{state: "fault", ok: true, effects: "db.write climate.commands:executed:1, mcp.call climate_port.set_vent:denied:R_EFFECT_DENIED"}, calls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &scripted{outcomes: map[string][]machine.Outcome{"mcp.call climate_port.set_vent": tt.outcomes},
				deny: map[string]bool{"mcp.call climate_port.set_vent": tt.deny}}
			inst, _ := m.NewInstance(machine.InstanceOptions{Executor: ex})
			s := tt.want
			s.event, s.payload = "SetVent", `{"percent": 40}`
			run(t, inst, []step{s})
			if len(ex.calls) != tt.calls {
				t.Errorf("calls %v, want %d", ex.calls, tt.calls)
			}
		})
	}
}

func TestFailureSkipsLaterIntents(t *testing.T) {
	m := compile(t, ventPath, "VentController")
	ex := &scripted{outcomes: map[string][]machine.Outcome{"db.write climate.commands": {{Error: "disk full", Code: "E_DISK"}}}}
	inst, _ := m.NewInstance(machine.InstanceOptions{Executor: ex})
	run(t, inst, []step{
		// db.write has no retry and no on-error: the instance stays in the target
		{event: "SetVent", payload: `{"percent": 1}`, state: "idle", ok: true,
			effects: "db.write climate.commands:failed:1:E_DISK, mcp.call climate_port.set_vent:skipped"},
	})
}

func TestFinalState(t *testing.T) {
	m := compile(t, ventPath, "VentController")
	ex := &scripted{outcomes: map[string][]machine.Outcome{"mcp.call climate_port.set_vent": {{Error: "x"}}}}
	inst, _ := m.NewInstance(machine.InstanceOptions{Executor: ex})
	run(t, inst, []step{
		{event: "SetVent", payload: `{"percent": 1}`, state: "fault", ok: true,
			effects: "db.write climate.commands:executed:1, mcp.call climate_port.set_vent:failed:3:R_EFFECT_FAILED"},
		{event: "Drifted", state: "retired", ok: true},
		{event: "Drifted", state: "retired", code: "R_FINAL_STATE"},
		{cancel: true, state: "retired", code: "R_FINAL_STATE"},
	})
	if inst.Status() != machine.Final {
		t.Errorf("status %s", inst.Status())
	}
}

func TestCancelledContext(t *testing.T) {
	m := compile(t, ventPath, "VentController")
	ex := &scripted{}
	inst, _ := m.NewInstance(machine.InstanceOptions{Executor: ex})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := inst.StepContext(ctx, machine.Event{Name: "SetVent", Raw: json.RawMessage(`{"percent": 1}`)})
	// cancellation is not a failure of the effect: no retry, no on-error route
	if got := summary(r.Effects); got != "db.write climate.commands:failed:1:R_EFFECT_CANCELLED, mcp.call climate_port.set_vent:skipped" || r.To != "idle" {
		t.Errorf("%s -> %s", got, r.To)
	}
	if len(ex.calls) != 0 {
		t.Errorf("calls %v", ex.calls)
	}
}

func TestTrace(t *testing.T) {
	m := compile(t, ventPath, "VentController")
	ex := &scripted{outcomes: map[string][]machine.Outcome{"mcp.call climate_port.set_vent": {{Error: "jammed", DurationMs: 5}}}}
	inst, _ := m.NewInstance(machine.InstanceOptions{Executor: ex, Trace: true, ID: "vent-1"})
	r := inst.Step(machine.Event{Name: "SetVent", Raw: json.RawMessage(`{"percent": 1}`)})
	var events []string
	for _, rec := range r.Trace {
		events = append(events, rec.Event)
	}
	want := []string{
		trace.TransitionStart, trace.TransitionEnd, trace.EffectIntent, trace.EffectIntent,
		trace.EffectApproved, trace.AdapterStart, trace.AdapterEnd, trace.EffectExecuted,
		trace.EffectApproved,
		trace.AdapterStart, trace.AdapterFail, trace.AdapterStart, trace.AdapterFail, trace.AdapterStart, trace.AdapterFail,
		trace.EffectFailed, trace.TransitionEnd, trace.Snapshot,
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Fatalf("trace events (-want +got)\n%s", diff)
	}
	failed := r.Trace[15]
	if failed.Severity != trace.Error || failed.ErrorCode != "R_EFFECT_FAILED" || failed.DurationMs != 15 ||
		failed.EffectIntentID != r.Effects[1].ID || failed.Reason != "on-error fault" || len(failed.TraceHistory) != 15 {
		t.Errorf("effect.failed record %+v", failed)
	}
	for _, rec := range r.Trace {
		if rec.TraceID != r.Trace[0].TraceID || rec.MachineInstanceID != "vent-1" || rec.CapsuleHash != m.Hash || rec.Service != "test.vent" {
			t.Errorf("common fields %+v", rec)
		}
	}
	// a failed event: transition.fail with reason/expected/actual and breadcrumbs
	r = inst.Step(machine.Event{Name: "Drifted"})
	r = inst.Step(machine.Event{Name: "Drifted"})
	last := r.Trace[len(r.Trace)-1]
	if last.Event != trace.TransitionFail || last.ErrorCode != "R_FINAL_STATE" || len(last.TraceHistory) != trace.MaxBreadcrumbs {
		t.Errorf("fail record %+v", last)
	}
	b := last.AppendJSON(nil)
	var back trace.Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(last, back); diff != "" {
		t.Errorf("JSON round trip (-want +got)\n%s", diff)
	}
	std, _ := json.Marshal(struct {
		trace.Record
	}{last})
	_ = std
}

func TestDeterministicIDs(t *testing.T) {
	m := compile(t, ventPath, "VentController")
	a, _ := m.NewInstance(machine.InstanceOptions{Trace: true})
	b, _ := m.NewInstance(machine.InstanceOptions{Trace: true})
	if a.ID() != b.ID() || !strings.HasPrefix(a.ID(), "VentController-") {
		t.Fatalf("ids %s %s", a.ID(), b.ID())
	}
	ra := a.Step(machine.Event{Name: "Storm"})
	rb := b.Step(machine.Event{Name: "Storm"})
	if diff := cmp.Diff(ra.Trace, rb.Trace); diff != "" {
		t.Errorf("trace differs\n%s", diff)
	}
	if ra.Effects[0].ID == "" || ra.Effects[0].ID != rb.Effects[0].ID {
		t.Errorf("intent ids %q %q", ra.Effects[0].ID, rb.Effects[0].ID)
	}
}

func TestCompileErrors(t *testing.T) {
	p, err := (&load.Loader{}).Load(ventPath)
	if err != nil {
		t.Fatal(err)
	}
	_, err = machine.Compile(p.Result, "VentControler", machine.Options{})
	if err == nil || err.Error() != `module test.vent has no machine "VentControler"; did you mean "VentController"?` {
		t.Errorf("%v", err)
	}
}

// TestContractTrace: a requires or an ensures that fails inside a guard or
// an assignment is traced as precondition.fail or postcondition.fail, just
// before the transition's failure, with the function, the clause and the
// inputs.
func TestContractTrace(t *testing.T) {
	m := compile(t, "testdata/contracts.caps", "Batch")
	inst, _ := m.NewInstance(machine.InstanceOptions{Trace: true, ID: "batch-1"})
	type rec struct{ Event, Component, Operation, Reason, ErrorCode, Body, Parent string }
	pick := func(r machine.StepResult) []rec {
		var out []rec
		for _, x := range r.Trace {
			out = append(out, rec{x.Event, x.Component, x.Operation, x.Reason, x.ErrorCode, x.Body, x.ParentSpanID})
		}
		return out
	}
	r := inst.Step(machine.Event{Name: "Progress", Raw: json.RawMessage(`{"done": 1, "total": 0}`)})
	root := r.Trace[0].SpanID
	want := []rec{
		{trace.TransitionStart, "machine", "Batch.Progress", "", "", "Progress in running", ""},
		{trace.PreconditionFail, "contract", "share", "requires (> whole 0)", "requires-failed", "share: requires (> whole 0) does not hold for part = 1, whole = 0", root},
		{trace.TransitionFail, "machine", "Batch.Progress", "guard (< (share event.done event.total) 100)", "R_EVAL_ERROR", "guard (< (share event.done event.total) 100): share: requires (> whole 0) does not hold for part = 1, whole = 0", ""},
	}
	if diff := cmp.Diff(want, pick(r)); diff != "" {
		t.Fatalf("precondition trace (-want +got)\n%s", diff)
	}
	r = inst.Step(machine.Event{Name: "Scale", Raw: json.RawMessage(`{"n": 2147483648}`)})
	root = r.Trace[0].SpanID
	want = []rec{
		{trace.TransitionStart, "machine", "Batch.Scale", "", "", "Scale in running", ""},
		{trace.PostconditionFail, "contract", "doubled", "ensures (>= result n)", "ensures-failed", "doubled: ensures (>= result n) does not hold for result = 0 (n = 2147483648)", root},
		{trace.TransitionFail, "machine", "Batch.Scale", "assignment to total", "R_EVAL_ERROR", "assignment to total: doubled: ensures (>= result n) does not hold for result = 0 (n = 2147483648)", ""},
	}
	if diff := cmp.Diff(want, pick(r)); diff != "" {
		t.Fatalf("postcondition trace (-want +got)\n%s", diff)
	}
	if ts := r.Trace[1].TraceHistory; len(ts) == 0 || ts[len(ts)-1].Event != trace.TransitionStart {
		t.Errorf("postcondition.fail carries no breadcrumbs: %v", ts)
	}
	// A step that succeeds has no contract records.
	r = inst.Step(machine.Event{Name: "Progress", Raw: json.RawMessage(`{"done": 1, "total": 4}`)})
	for _, x := range r.Trace {
		if x.Component == trace.ComponentContract {
			t.Errorf("unexpected %s in a successful step", x.Event)
		}
	}
}
