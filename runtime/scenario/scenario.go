// Package scenario runs machine scenarios: a JSON file that sends one
// machine a list of inputs (events with payloads, advances of the logical
// clock, a cancellation) and states what to expect after each: the state,
// some context values, the effect intents, whether the step succeeded.
// `caps test --scenario S.json` runs them (docs/cli.md).
//
//	{
//	  "machine": "SchemaMigration",
//	  "description": "optional",
//	  "mode": "mock", "mocks": {"mocks": [...]},      // optional; default dry-run
//	  "events": [
//	    {"event": "Apply", "payload": {},
//	     "expect": {"state": "awaiting_signoff", "ok": false,
//	                "context": {"approvals": 1},
//	                "effects": [{"effect": "db.write", "target": "ops.runs", "status": "executed"}]}},
//	    {"advance": "7d", "expect": {"state": "closed"}},
//	    {"cancel": "operator request", "expect": {"state": "closed"}}
//	  ]
//	}
//
// Expectations are partial: a missing key is not checked; "context" lists
// only the fields to check; "effects", when present, must list every
// intent of the step in order (after an advance, the intents of every
// timeout that fired). An event that fails (no transition, a bad payload, a
// false guard) leaves the state unchanged and emits no intents.
package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/value"
)

// Scenario is a decoded scenario file.
type Scenario struct {
	Machine     string             `json:"machine"`
	Description string             `json:"description,omitempty"`
	Mode        string             `json:"mode,omitempty"`
	Mocks       *adapters.MockFile `json:"mocks,omitempty"`
	Events      []Step             `json:"events"`
}

// Step is one input and its expectations.
type Step struct {
	Event   string             `json:"event,omitempty"`
	Payload json.RawMessage    `json:"payload,omitempty"`
	Advance *adapters.Duration `json:"advance,omitempty"`
	Cancel  *Cancel            `json:"cancel,omitempty"`
	Expect  *Expect            `json:"expect,omitempty"`
}

// Cancel is a cancellation: true, or a reason.
type Cancel struct{ Reason string }

// UnmarshalJSON accepts true or a string.
func (c *Cancel) UnmarshalJSON(b []byte) error {
	var yes bool
	if json.Unmarshal(b, &yes) == nil {
		if !yes {
			return fmt.Errorf(`"cancel" is true or a reason`)
		}
		c.Reason = "scenario"
		return nil
	}
	return json.Unmarshal(b, &c.Reason)
}

// Expect is what to check after a step.
type Expect struct {
	State string `json:"state,omitempty"`
	OK    *bool  `json:"ok,omitempty"`
	// Code is the code of the step's failure (R_NO_TRANSITION, ...).
	Code    string                     `json:"code,omitempty"`
	Context map[string]json.RawMessage `json:"context,omitempty"`
	Effects *[]EffectExpect            `json:"effects,omitempty"`
}

// EffectExpect is one expected intent.
type EffectExpect struct {
	Effect string `json:"effect"`
	Target string `json:"target,omitempty"`
	Status string `json:"status,omitempty"`
	// Code is the code of a denied, escalated, deferred or failed intent
	// (R_AUTHORITY_DENIED, ...).
	Code string `json:"code,omitempty"`
}

// Parse decodes a scenario; unknown fields are errors.
func Parse(data []byte) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if s.Machine == "" {
		return nil, fmt.Errorf(`no "machine"`)
	}
	switch s.Mode {
	case "", string(machine.DryRun), string(machine.Mock):
	default:
		return nil, fmt.Errorf(`"mode" is "dry-run" or "mock", not %q`, s.Mode)
	}
	if s.Mocks != nil && s.Mode != string(machine.Mock) {
		return nil, fmt.Errorf(`"mocks" needs "mode": "mock"`)
	}
	for k, st := range s.Events {
		n := 0
		if st.Event != "" {
			n++
		}
		if st.Advance != nil {
			n++
		}
		if st.Cancel != nil {
			n++
		}
		if n != 1 {
			return nil, fmt.Errorf(`step %d: give exactly one of "event", "advance" and "cancel"`, k+1)
		}
		if st.Payload != nil && st.Event == "" {
			return nil, fmt.Errorf(`step %d: "payload" goes with "event"`, k+1)
		}
	}
	return &s, nil
}

// Load reads a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file", path)
		}
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a scenario: %s", path, strings.TrimPrefix(err.Error(), "json: "))
	}
	return s, nil
}

// Result is the outcome of a scenario.
type Result struct {
	Passed bool         `json:"passed"`
	Steps  []StepResult `json:"steps"`
	// Error stops the scenario before its steps (an unknown machine).
	Error string `json:"error,omitempty"`
}

// StepResult is the outcome of one step.
type StepResult struct {
	Index  int    `json:"index"` // 1-based
	Input  string `json:"input"` // the event's name, "+30m" or "cancel"
	Passed bool   `json:"passed"`
	State  string `json:"state"`
	OK     bool   `json:"ok"`
	// Error is the failed event's diagnostic, "" when it succeeded.
	Error   string          `json:"error,omitempty"`
	Context json.RawMessage `json:"context"`
	Effects []string        `json:"effects"`
	// Diffs lists the expectations that did not hold, one line each.
	Diffs []string `json:"diffs,omitempty"`
}

// Run runs a scenario against a compiled machine.
func Run(m *machine.Machine, s *Scenario) *Result {
	res := &Result{Passed: true, Steps: []StepResult{}}
	var exec machine.Executor
	if s.Mode == string(machine.Mock) {
		exec = adapters.NewMock(s.Mocks)
	}
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: exec})
	if err != nil {
		res.Passed, res.Error = false, err.Error()
		return res
	}
	ctx := context.Background()
	for k, st := range s.Events {
		sr := StepResult{Index: k + 1, OK: true}
		var effs []machine.Effect
		code := ""
		switch {
		case st.Event != "":
			sr.Input = st.Event
			r := inst.StepContext(ctx, machine.Event{Name: st.Event, Raw: st.Payload})
			sr.OK = r.OK
			if r.Failure != nil {
				sr.Error, code = r.Failure.Code+": "+r.Failure.Message, r.Failure.Code
			}
			effs = r.Effects
		case st.Advance != nil:
			sr.Input = "+" + value.FormatDuration(st.Advance.Millis)
			rs, err := inst.AdvanceContext(ctx, st.Advance.Millis)
			if err != nil {
				sr.OK, sr.Error = false, err.Error()
			}
			for _, r := range rs {
				if !r.OK {
					sr.OK = false
					if sr.Error == "" && r.Failure != nil {
						sr.Error, code = r.Failure.Code+": "+r.Failure.Message, r.Failure.Code
					}
				}
				effs = append(effs, r.Effects...)
			}
		default:
			sr.Input = "cancel"
			r := inst.Cancel(st.Cancel.Reason)
			sr.OK = r.OK
			if r.Failure != nil {
				sr.Error, code = r.Failure.Code+": "+r.Failure.Message, r.Failure.Code
			}
		}
		sr.State = inst.State()
		sr.Context = m.ContextJSON(inst.Context())
		sr.Effects = []string{}
		for _, e := range effs {
			sr.Effects = append(sr.Effects, effectText(&e))
		}
		if st.Expect != nil {
			sr.Diffs = check(m, inst, st.Expect, &sr, effs, code)
		}
		sr.Passed = len(sr.Diffs) == 0
		if !sr.Passed {
			res.Passed = false
		}
		res.Steps = append(res.Steps, sr)
	}
	return res
}

func effectText(e *machine.Effect) string {
	s := e.Spec.Label()
	if e.Status != machine.Planned {
		s += " [" + string(e.Status) + "]"
	}
	if e.Code != "" {
		s += " " + e.Code
	}
	return s
}

// check compares a step with its expectations.
func check(m *machine.Machine, inst *machine.Instance, x *Expect, sr *StepResult, effs []machine.Effect, code string) []string {
	var diffs []string
	if x.State != "" && x.State != sr.State {
		d := fmt.Sprintf("state: expected %s, got %s", x.State, sr.State)
		if sr.Error != "" {
			d += " (" + sr.Error + ")"
		}
		diffs = append(diffs, d)
	}
	if x.OK != nil && *x.OK != sr.OK {
		if sr.OK {
			diffs = append(diffs, "ok: expected the step to fail, but it succeeded")
		} else {
			diffs = append(diffs, "ok: expected the step to succeed, but it failed: "+sr.Error)
		}
	}
	if x.Code != "" && x.Code != code {
		got := "no failure"
		if code != "" {
			got = sr.Error
		}
		diffs = append(diffs, fmt.Sprintf("code: expected %s, got %s", x.Code, got))
	}
	names := make([]string, 0, len(x.Context))
	for k := range x.Context {
		names = append(names, k)
	}
	sort.Strings(names)
	ctx := inst.Context()
	for _, name := range names {
		fi, ok := m.FieldIndex(name)
		if !ok {
			diffs = append(diffs, fmt.Sprintf("context: machine %s has no field %s", m.Name, name))
			continue
		}
		want, err := value.FromJSON(x.Context[name], m.Context[fi].Type)
		if err != nil {
			diffs = append(diffs, fmt.Sprintf("context.%s: bad expected value %s: %v", name, x.Context[name], err))
			continue
		}
		if got := ctx[fi]; !value.Equal(want, got) {
			diffs = append(diffs, fmt.Sprintf("context.%s: expected %s, got %s", name, want, got))
		}
	}
	if x.Effects != nil {
		want := *x.Effects
		var lines []string
		for k := 0; k < max(len(want), len(effs)); k++ {
			switch {
			case k >= len(effs):
				lines = append(lines, fmt.Sprintf("effects[%d]: expected %s, got nothing", k, expectText(want[k])))
			case k >= len(want):
				lines = append(lines, fmt.Sprintf("effects[%d]: expected nothing, got %s", k, effectText(&effs[k])))
			default:
				w, g := want[k], &effs[k]
				if w.Effect != g.Spec.Name || w.Target != "" && !targetMatches(w.Target, g) || w.Status != "" && w.Status != string(g.Status) || w.Code != "" && w.Code != g.Code {
					lines = append(lines, fmt.Sprintf("effects[%d]: expected %s, got %s", k, expectText(w), effectText(g)))
				}
			}
		}
		if len(lines) > 0 && len(want) != len(effs) {
			diffs = append(diffs, fmt.Sprintf("effects: expected %d, got %d", len(want), len(effs)))
		}
		diffs = append(diffs, lines...)
	}
	return diffs
}

// targetMatches reports whether an expected target names the intent's
// target: its first target alone, or all of them separated by spaces (as
// the intent is printed, and as the XState export lists db.project's
// projection: "operational.claims knowledge").
func targetMatches(want string, g *machine.Effect) bool {
	if want == g.Spec.Target {
		return true
	}
	return len(g.Spec.Extra) > 0 && want == g.Spec.Target+" "+strings.Join(g.Spec.Extra, " ")
}

func expectText(e EffectExpect) string {
	s := e.Effect
	if e.Target != "" {
		s += " " + e.Target
	}
	if e.Status != "" {
		s += " [" + e.Status + "]"
	}
	if e.Code != "" {
		s += " " + e.Code
	}
	return s
}

// Text prints a result for people: one PASS/FAIL line for the scenario,
// then, for each failed step, its diffs.
func (r *Result) Text(name string) string {
	var b strings.Builder
	if r.Passed {
		fmt.Fprintf(&b, "PASS %s (%d %s)\n", name, len(r.Steps), plural(len(r.Steps), "step", "steps"))
		return b.String()
	}
	fmt.Fprintf(&b, "FAIL %s\n", name)
	if r.Error != "" {
		fmt.Fprintf(&b, "    error: %s\n", r.Error)
	}
	for _, s := range r.Steps {
		if s.Passed {
			continue
		}
		fmt.Fprintf(&b, "    step %d (%s):\n", s.Index, s.Input)
		for _, d := range s.Diffs {
			fmt.Fprintf(&b, "        %s\n", d)
		}
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
