package machine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/analysis/cond"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/runtime/value"
)

// Status is an instance's life-cycle status.
type Status string

// Statuses.
const (
	Running   Status = "running"
	Final     Status = "final"     // in a final state: no more events
	Cancelled Status = "cancelled" // cancelled: no more events
)

// Cause says why a step happened.
type Cause string

// Causes.
const (
	CauseEvent   Cause = "event"   // an event arrived
	CauseTimeout Cause = "timeout" // a state timeout fired during an advance
	CauseCancel  Cause = "cancel"  // the instance was cancelled
	// CauseApproval: an approver resolved an intent the authority held
	// (docs/authority.md, "Resolving a held intent").
	CauseApproval Cause = "approval"
)

// InputKind is the kind of an input.
type InputKind string

// Input kinds.
const (
	InputEvent   InputKind = "event"
	InputAdvance InputKind = "advance"
	InputCancel  InputKind = "cancel"
	// InputApproval approves or rejects an intent the authority held.
	InputApproval InputKind = "approval"
)

// Event is an event delivered to an instance.
type Event struct {
	Name string
	// Payload holds the payload's fields by name.
	Payload map[string]value.Value
	// Raw, used when Payload is nil, is the payload as JSON (the value
	// encoding of docs/runtime.md), decoded against the event's
	// declaration when the event is handled. Nil and {} are an empty
	// payload.
	Raw json.RawMessage
}

// Input is what an instance received, in arrival order: an event, an
// advance of the logical clock, or a cancellation.
type Input struct {
	Seq   uint64
	Kind  InputKind
	Event Event
	// By is the advance, in milliseconds.
	By int64
	// Reason is the cancellation's reason.
	Reason string
	// Resolution is the approval's verdict.
	Resolution *Resolution
	// Claim is an acceptance input's verdict (InputClaim).
	Claim *ClaimVerdict
	// Clock is the logical clock when the input arrived.
	Clock int64
}

// Failure is why an event failed, or why an effect failed for good.
type Failure struct {
	Code    string
	Message string
	// Reason, Expected and Actual detail the failure for the trace.
	Reason   string
	Expected string
	Actual   string
	// Err is the interpreter's error for R_EVAL_ERROR.
	Err error
}

// Route is an on-error route taken after an effect failed for good.
type Route struct {
	Effect int    `json:"effect"` // the failed intent's index
	From   string `json:"from"`
	To     string `json:"to"`
}

// StepResult is the outcome of one step: an event (or a fired timeout, or
// a cancellation) handled by an instance. Its slices are shared with the
// instance and must not be modified.
type StepResult struct {
	Seq   uint64 // the input's sequence number, from 1
	Step  uint64 // the step's number, from 1
	Cause Cause
	Event string
	// Payload is the decoded payload (nil when it could not be decoded).
	Payload map[string]value.Value
	// From is the state the event arrived in, Target the transition's
	// target, To the state after the step (the target, an on-error
	// state, or From when the event failed).
	From, Target, To string
	OK               bool
	Failure          *Failure
	// Context is the context after the step.
	Context []value.Value
	// Effects are the transition's intents in order, with their
	// outcomes; nil for a failed event.
	Effects []Effect
	Route   *Route
	Clock   int64
	Status  Status
	// Resolution is the verdict of an approval step (CauseApproval), and
	// Resolves the input (its Seq) whose step held the intent it resolved
	// (0 when it failed).
	Resolution *Resolution
	Resolves   uint64
	// Verdict is the acceptance input of a claim step (CauseClaim).
	Verdict *ClaimVerdict
	// Claims lists the claims the step changed, in order: observed (and
	// superseded) by its effects, or decided by an acceptance input.
	Claims []Claim
	// Trace holds the step's semantic trace records when the instance
	// traces. The slice is reused: it is valid until the next input.
	Trace []trace.Record
}

// Observer is told about an instance's inputs and steps, in order; the
// ledger recorder is one. An error stops the instance: every later input
// fails with R_LEDGER.
type Observer interface {
	// Start is called once, after the instance entered its initial state.
	Start(i *Instance) error
	// Input is called when an input arrives, before it is handled.
	Input(i *Instance, in *Input) error
	// Committed is called when a step is decided (the transition taken,
	// its intents known, or the event failed), before any effect
	// executes: a ledger makes it durable first in live mode.
	Committed(i *Instance, r *StepResult) error
	// Finished is called when the step is complete: effects executed,
	// routes taken, snapshot taken.
	Finished(i *Instance, r *StepResult) error
}

// InstanceOptions configure a new instance.
type InstanceOptions struct {
	// ID is the instance's id; "" derives one from the machine and the
	// module hash (deterministic).
	ID string
	// Executor carries out intents; nil is dry-run.
	Executor Executor
	// Observer is told about every input and step (a ledger).
	Observer Observer
	// Trace collects semantic trace records in StepResult.Trace (on by
	// default with an Observer).
	Trace bool
	// NoTrace turns the trace records off even with an Observer (a
	// replay that verifies states and effects only). Effect intent ids
	// are still assigned.
	NoTrace bool
}

// MaxTimeoutsPerAdvance bounds the timeouts one Advance fires (a state
// whose zero timeout leads back to itself would fire forever).
const MaxTimeoutsPerAdvance = 100_000

// Instance is one running machine instance. It is not safe for concurrent
// use.
type Instance struct {
	m        *Machine
	id       string
	exec     Executor
	obs      Observer
	tracing  bool
	withIDs  bool // assign effect intent ids
	ids      trace.IDs
	crumbs   trace.Breadcrumbs
	state    *State
	ctx      []value.Value
	vars     map[string]value.Value
	clock    int64
	timer    *Timeout
	deadline int64
	seq      uint64
	step     uint64
	status   Status
	err      error
	span     int
	noEvent  map[string]value.Value
	res      StepResult // the step being taken (kept here so that it does not escape per step)
	traceID  string     // the trace id of the input being handled
	traceSeq uint64
	traceBuf []trace.Record
	auth     authority.State // capabilities issued to the instance
	held     []*held         // intents the authority holds for approval, oldest first
	condIn   []cond.Value    // the input vector of compiled policy conditions (reused)
	// memo holds the last decision of each intent site, so that an
	// intent decided on the same inputs shares that decision.
	memo []decisionMemo
	// scratch is where a transition's intents are decided before
	// decidedSlice gives them a slice; decidedFx holds that slice per
	// transition in dry-run.
	scratch   []Effect
	decidedFx map[*Transition][]Effect
	// claims holds the current claim of each of the machine's claims.
	claims []Claim
}

// DefaultID is the id of an instance created without one: the machine's
// name and a digest of the module hash.
func (m *Machine) DefaultID() string {
	ids := trace.NewIDs(m.Hash + "/" + m.Module + "/" + m.Name)
	return m.Name + "-" + ids.Trace(0)[:12]
}

// NewInstance starts an instance in the initial state with a zero context.
func (m *Machine) NewInstance(opts InstanceOptions) (*Instance, error) {
	i := &Instance{
		m:       m,
		id:      opts.ID,
		exec:    opts.Executor,
		obs:     opts.Observer,
		tracing: (opts.Trace || opts.Observer != nil) && !opts.NoTrace,
		withIDs: opts.Trace || opts.Observer != nil,
		ctx:     m.zero,
		vars:    make(map[string]value.Value, len(m.zero)),
		status:  Running,
		noEvent: map[string]value.Value{},
	}
	if i.id == "" {
		i.id = m.DefaultID()
	}
	i.ids = trace.NewIDs(i.id)
	if len(m.claims) > 0 {
		i.claims = make([]Claim, len(m.claims))
		for k, cs := range m.claims {
			i.claims[k] = Claim{Field: cs.Field, Policy: cs.Policy.Name}
		}
	}
	for k, v := range m.zeroVars {
		i.vars[k] = v
	}
	i.enter(m.Initial)
	if i.obs != nil {
		if err := i.obs.Start(i); err != nil {
			return nil, err
		}
	}
	return i, nil
}

// Machine returns the instance's machine.
func (i *Instance) Machine() *Machine { return i.m }

// ID returns the instance id.
func (i *Instance) ID() string { return i.id }

// Mode is the executor's mode (DryRun without one).
func (i *Instance) Mode() Mode {
	if i.exec == nil {
		return DryRun
	}
	return i.exec.Mode()
}

// State is the current state's name.
func (i *Instance) State() string { return i.state.Name }

// Context is the current context, one value per field. It must not be
// modified.
func (i *Instance) Context() []value.Value { return i.ctx }

// Clock is the logical clock, in milliseconds.
func (i *Instance) Clock() int64 { return i.clock }

// Status is the life-cycle status.
func (i *Instance) Status() Status { return i.status }

// Seq is the number of inputs received.
func (i *Instance) Seq() uint64 { return i.seq }

// Steps is the number of steps taken.
func (i *Instance) Steps() uint64 { return i.step }

// Timer returns the armed state timeout and its deadline, if any.
func (i *Instance) Timer() (*Timeout, int64, bool) {
	return i.timer, i.deadline, i.timer != nil
}

// Err is the observer error that stopped the instance, if any.
func (i *Instance) Err() error { return i.err }

// IntentID is the effect_intent_id of intent index of step step.
func (i *Instance) IntentID(step uint64, index int) string {
	return i.ids.Trace(step<<16 | uint64(index))
}

// enter moves the instance into s and arms s's timeout.
func (i *Instance) enter(s *State) {
	i.state = s
	i.timer = nil
	if s.Timeout != nil {
		i.timer, i.deadline = s.Timeout, i.clock+s.Timeout.Millis
	}
	if s.Final {
		i.status = Final
		i.timer = nil
	}
}

// Step delivers an event.
func (i *Instance) Step(ev Event) StepResult {
	return i.StepContext(context.Background(), ev)
}

// StepContext delivers an event; cancelling ctx cancels the effects still
// executing (they fail with R_EFFECT_CANCELLED).
func (i *Instance) StepContext(ctx context.Context, ev Event) StepResult {
	i.seq++
	if i.obs != nil && i.err == nil {
		in := Input{Seq: i.seq, Kind: InputEvent, Event: ev, Clock: i.clock}
		if err := i.obs.Input(i, &in); err != nil {
			i.err = err
		}
	}
	return i.deliver(ctx, ev, CauseEvent)
}

// Advance moves the logical clock forward by ms milliseconds, firing the
// state timeouts that fall due, in order, each as a step.
func (i *Instance) Advance(ms int64) ([]StepResult, error) {
	return i.AdvanceContext(context.Background(), ms)
}

// AdvanceContext is Advance with a context for the effects of the steps.
func (i *Instance) AdvanceContext(ctx context.Context, ms int64) ([]StepResult, error) {
	if ms < 0 {
		return nil, fmt.Errorf("cannot move the clock back (advance by %dms)", ms)
	}
	i.seq++
	if i.obs != nil && i.err == nil {
		in := Input{Seq: i.seq, Kind: InputAdvance, By: ms, Clock: i.clock}
		if err := i.obs.Input(i, &in); err != nil {
			i.err = err
		}
	}
	target := i.clock + ms
	var out []StepResult
	for n := 0; i.timer != nil && i.deadline <= target && i.status == Running && i.err == nil; n++ {
		if n >= MaxTimeoutsPerAdvance {
			return out, fmt.Errorf("more than %d timeouts fired in one advance; does a zero timeout lead back to its own state?", MaxTimeoutsPerAdvance)
		}
		i.clock = i.deadline
		to := i.timer
		i.timer = nil
		out = append(out, i.deliver(ctx, Event{Name: to.Event.Name, Payload: i.noEvent}, CauseTimeout))
	}
	i.clock = target
	return out, nil
}

// Cancel cancels the instance: its timer is disarmed and every later
// event fails with R_CANCELLED. Cancelling a final or cancelled instance
// is a failed step.
func (i *Instance) Cancel(reason string) StepResult {
	i.seq++
	if i.obs != nil && i.err == nil {
		in := Input{Seq: i.seq, Kind: InputCancel, Reason: reason, Clock: i.clock}
		if err := i.obs.Input(i, &in); err != nil {
			i.err = err
		}
	}
	i.step++
	i.span = 0
	r := StepResult{Seq: i.seq, Step: i.step, Cause: CauseCancel, From: i.state.Name, To: i.state.Name, Context: i.ctx, Clock: i.clock}
	if i.tracing {
		i.startTrace(&r)
	}
	var f *Failure
	switch {
	case i.err != nil:
		f = &Failure{Code: CodeLedger, Message: "the instance stopped: " + i.err.Error()}
	case i.status == Final:
		f = &Failure{Code: CodeFinalState, Message: fmt.Sprintf("the instance is in final state %s; there is nothing to cancel", i.state.Name)}
	case i.status == Cancelled:
		f = &Failure{Code: CodeCancelled, Message: "the instance is already cancelled"}
	}
	if f != nil {
		r.Failure, r.Status = f, i.status
		if i.tracing {
			rec := i.record(&r, trace.InstanceCancel, trace.ComponentMachine, i.m.Name+".cancel", i.nextSpan(), "")
			rec.Severity, rec.Body = trace.Error, f.Message
			rec.ErrorCode, rec.FromState, rec.Reason = f.Code, i.state.Name, reason
			i.emit(&r, rec)
		}
		i.notify(&r)
		return r
	}
	i.status, i.timer = Cancelled, nil
	r.OK, r.Status, r.Target = true, Cancelled, i.state.Name
	if i.tracing {
		rec := i.record(&r, trace.InstanceCancel, trace.ComponentMachine, i.m.Name+".cancel", i.nextSpan(), "")
		rec.Body = "instance cancelled in state " + i.state.Name
		rec.Reason, rec.FromState = reason, i.state.Name
		i.emit(&r, rec)
		i.snapshotRecord(&r)
	}
	i.notify(&r)
	return r
}

// notify tells the observer about a step that executes no effects.
func (i *Instance) notify(r *StepResult) {
	if i.obs == nil || i.err != nil {
		return
	}
	if err := i.obs.Committed(i, r); err != nil {
		i.err = err
		return
	}
	if err := i.obs.Finished(i, r); err != nil {
		i.err = err
	}
}

// deliver handles one event (section 8.9).
func (i *Instance) deliver(ctx context.Context, ev Event, cause Cause) StepResult {
	i.step++
	i.span = 0
	m := i.m
	r := &i.res
	*r = StepResult{Seq: i.seq, Step: i.step, Cause: cause, Event: ev.Name, From: i.state.Name, To: i.state.Name, Context: i.ctx, Clock: i.clock, Status: i.status}
	root := ""
	op := ""
	if i.tracing {
		if et := m.events[ev.Name]; et != nil {
			op = et.op
		} else {
			op = m.Name + "." + ev.Name
		}
		i.startTrace(r)
		root = i.nextSpan()
		rec := i.record(r, trace.TransitionStart, trace.ComponentMachine, op, root, "")
		rec.Body = ev.Name + " in " + i.state.Name
		if cause == CauseTimeout {
			rec.Body += " (state timeout)"
		}
		rec.MachineEvent, rec.FromState = ev.Name, i.state.Name
		i.emit(r, rec)
	}
	tr, payload, f := i.decide(ev)
	r.Payload = payload
	if f != nil {
		r.Failure = f
		if i.tracing {
			i.contractFail(r, root, ev.Name, f)
			rec := i.record(r, trace.TransitionFail, trace.ComponentMachine, op, root, "")
			rec.Severity, rec.Body = trace.Error, f.Message
			rec.MachineEvent, rec.FromState = ev.Name, i.state.Name
			rec.Reason, rec.Expected, rec.Actual, rec.ErrorCode = f.Reason, f.Expected, f.Actual, f.Code
			i.emit(r, rec)
		}
		i.notify(r)
		return *r
	}
	// Assign: every right-hand side against the old context, then all at once.
	newCtx := i.ctx
	if len(tr.assigns) > 0 {
		newCtx = make([]value.Value, len(i.ctx))
		copy(newCtx, i.ctx)
		env := interp.Env{Vars: i.vars, Event: payload}
		for _, a := range tr.assigns {
			var v value.Value
			switch a.kind {
			case assignConst:
				v = a.c
			case assignField:
				v = i.ctx[a.src]
			case assignEvent:
				v = payload[a.name]
			default:
				var err error
				v, err = m.in.EvalExpr(a.expr, env)
				if err != nil {
					return i.evalFailed(r, root, ev.Name, fmt.Sprintf("assignment to %s", m.Context[a.field].Name), err)
				}
			}
			newCtx[a.field] = v
		}
	}
	// Effect arguments, against the new context.
	effects := tr.planned
	if tr.hasArgs {
		var err error
		if effects, err = i.evalArgs(tr, newCtx, payload); err != nil {
			return i.evalFailed(r, root, ev.Name, "effect arguments", err)
		}
	} else if i.withIDs && len(effects) > 0 {
		effects = append([]Effect(nil), effects...)
	}
	if i.withIDs {
		for k := range effects {
			effects[k].ID = i.IntentID(i.step, k)
		}
	}
	settled := false // dry-run intents that execute has nothing to do for
	if m.governed && len(effects) > 0 {
		shared := !tr.hasArgs && !i.withIDs
		if last, ok := i.redecided(tr, newCtx, shared); ok {
			effects = last // decided as last time: the same decisions, all allowed
			settled = !i.tracing
		} else {
			if shared { // decide into a scratch copy of the shared planned slice
				effects = append(i.scratch[:0], effects...)
				i.scratch = effects
			}
			if at, pol := i.authorize(effects, newCtx, nil, nil); at >= 0 {
				i.hold(&held{seq: i.seq, step: i.step, event: ev.Name, payload: payload, from: r.From, target: tr.Target.Name, ctx: newCtx, policy: pol}, effects[at:])
			}
			if shared {
				effects = i.decidedSlice(tr, effects)
			}
		}
	}
	// Commit: move, arm timers, emit.
	for _, a := range tr.assigns {
		i.vars[m.Context[a.field].Name] = newCtx[a.field]
	}
	i.ctx = newCtx
	i.enter(tr.Target)
	r.OK, r.Target, r.To, r.Context, r.Effects, r.Status = true, tr.Target.Name, tr.Target.Name, newCtx, effects, i.status
	if i.tracing {
		rec := i.record(r, trace.TransitionEnd, trace.ComponentMachine, op, root, "")
		rec.Body = r.From + " -> " + r.To
		rec.MachineEvent, rec.FromState, rec.ToState = ev.Name, r.From, r.To
		i.emit(r, rec)
		for k := range effects {
			e := &effects[k]
			rec := i.record(r, trace.EffectIntent, trace.ComponentEffect, e.Spec.Label(), i.effectSpan(k), root)
			rec.Body = intentText(e)
			rec.EffectIntentID, rec.Effect, rec.Target = e.ID, e.Spec.Name, e.Spec.Target
			i.emit(r, rec)
		}
	}
	if i.obs != nil && i.err == nil {
		if err := i.obs.Committed(i, r); err != nil {
			i.err = err
		}
	}
	if (i.exec != nil || m.governed && !settled) && len(effects) > 0 && i.err == nil {
		i.execute(ctx, r, root, nil)
	}
	if i.tracing {
		i.snapshotRecord(r)
	}
	if i.obs != nil && i.err == nil {
		if err := i.obs.Finished(i, r); err != nil {
			i.err = err
		}
	}
	return *r
}

// decidedSlice returns the intents of transition tr as decided in
// scratch, in a slice of their own: the one the transition got last
// time when every decision and status is the same (decisions are shared
// and never modified, so a dry-run step that decides as before allocates
// nothing), or else a new one, kept for next time. With an executor the
// intents are filled in by execute and always get a new slice.
func (i *Instance) decidedSlice(tr *Transition, scratch []Effect) []Effect {
	if i.exec == nil {
		if last, ok := i.decidedFx[tr]; ok && sameDecided(last, scratch) {
			return last
		}
	}
	out := append([]Effect(nil), scratch...)
	if i.exec == nil {
		if i.decidedFx == nil {
			i.decidedFx = map[*Transition][]Effect{}
		}
		i.decidedFx[tr] = out
	}
	return out
}

// sameDecided reports whether two decided copies of one transition's
// intents are the same.
func sameDecided(a, b []Effect) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		x, y := &a[k], &b[k]
		if x.Authority != y.Authority || x.Status != y.Status || x.Code != y.Code || x.Error != y.Error {
			return false
		}
	}
	return true
}

// decide validates the event and finds the transition to take.
func (i *Instance) decide(ev Event) (*Transition, map[string]value.Value, *Failure) {
	m := i.m
	if i.err != nil {
		return nil, nil, &Failure{Code: CodeLedger, Message: "the instance stopped: " + i.err.Error(), Reason: "recording failed"}
	}
	switch i.status {
	case Cancelled:
		return nil, nil, &Failure{Code: CodeCancelled, Message: fmt.Sprintf("the instance was cancelled; %s is not handled", ev.Name), Reason: "instance cancelled", Expected: "running", Actual: "cancelled"}
	case Final:
		return nil, nil, &Failure{Code: CodeFinalState, Message: fmt.Sprintf("the instance is in final state %s and accepts no more events", i.state.Name), Reason: "final state", Expected: "running", Actual: "final state " + i.state.Name}
	}
	et := m.events[ev.Name]
	if et == nil {
		msg := fmt.Sprintf("machine %s declares no event %q", m.Name, ev.Name)
		names := make([]string, len(m.Events))
		for k, e := range m.Events {
			names[k] = e.Name
		}
		msg += spell.DidYouMean(ev.Name, names, spell.Go)
		return nil, nil, &Failure{Code: CodeUnknownEvent, Message: msg, Reason: "unknown event", Expected: "one of " + strings.Join(names, ", "), Actual: ev.Name}
	}
	payload := ev.Payload
	if payload == nil {
		p, err := et.Decode(ev.Raw)
		if err != nil {
			return nil, nil, &Failure{Code: CodeBadPayload, Message: "bad payload: " + err.Error(), Reason: "payload does not fit the declaration", Expected: et.Signature(), Actual: canonicalText(ev.Raw)}
		}
		payload = p
	} else if f := et.check(payload); f != nil {
		return nil, nil, f
	}
	trs := i.state.on[et.Index]
	if len(trs) == 0 {
		handles := i.state.Handles()
		exp := "no events (final state)"
		if len(handles) > 0 {
			exp = "one of " + strings.Join(handles, ", ")
		}
		return nil, payload, &Failure{Code: CodeNoTransition, Message: fmt.Sprintf("state %s has no transition for %s", i.state.Name, et.Name), Reason: "no transition", Expected: exp, Actual: et.Name}
	}
	if len(i.m.acceptEv) > 0 {
		if f := i.claimGate(et); f != nil {
			return nil, payload, f
		}
	}
	env := interp.Env{Vars: i.vars, Event: payload}
	var last *Transition
	for _, t := range trs {
		if t.Guard == nil {
			return t, payload, nil
		}
		v, err := m.in.EvalExpr(t.Guard, env)
		if err != nil {
			return nil, payload, evalFailure("guard "+t.guardText, err)
		}
		if v.AsBool() {
			return t, payload, nil
		}
		last = t
	}
	msg := fmt.Sprintf("guard %s is false in state %s", last.guardText, i.state.Name)
	if len(trs) > 1 {
		msg = fmt.Sprintf("no guard of the %d transitions for %s holds in state %s (the last: %s)", len(trs), et.Name, i.state.Name, last.guardText)
	}
	return nil, payload, &Failure{Code: CodeGuardFalse, Message: msg, Reason: "guard " + last.guardText, Expected: "true", Actual: "false"}
}

func evalFailure(what string, err error) *Failure {
	kind := "error"
	var ie *interp.Error
	if errors.As(err, &ie) {
		kind = string(ie.Kind)
	}
	return &Failure{Code: CodeEvalError, Message: fmt.Sprintf("%s: %v", what, err), Reason: what, Actual: kind, Err: err}
}

func (i *Instance) evalFailed(r *StepResult, root, event, what string, err error) StepResult {
	f := evalFailure(what, err)
	r.Failure = f
	if i.tracing {
		i.contractFail(r, root, event, f)
		rec := i.record(r, trace.TransitionFail, trace.ComponentMachine, i.m.Name+"."+event, root, "")
		rec.Severity, rec.Body = trace.Error, f.Message
		rec.MachineEvent, rec.FromState = event, i.state.Name
		rec.Reason, rec.Actual, rec.ErrorCode = f.Reason, f.Actual, f.Code
		i.emit(r, rec)
	}
	i.notify(r)
	return *r
}

// contractFail emits precondition.fail or postcondition.fail when f is a
// function contract that did not hold during the step: the record names
// the function (operation), the clause (reason) and the inputs (body, the
// interpreter's message), and says where the call came from.
func (i *Instance) contractFail(r *StepResult, root, event string, f *Failure) {
	var ie *interp.Error
	if f.Err == nil || !errors.As(f.Err, &ie) {
		return
	}
	kind := ""
	switch ie.Kind {
	case interp.RequiresFailed:
		kind = trace.PreconditionFail
	case interp.EnsuresFailed:
		kind = trace.PostconditionFail
	default:
		return
	}
	rec := i.record(r, kind, trace.ComponentContract, ie.Function, i.nextSpan(), root)
	rec.Severity, rec.Body = trace.Error, ie.Message
	rec.MachineEvent, rec.FromState = event, i.state.Name
	rec.Reason, rec.Expected, rec.Actual, rec.ErrorCode = contractClause(ie), "true", "false", string(ie.Kind)
	i.emit(r, rec)
}

// contractClause extracts "requires (...)" or "ensures (...)" from the
// interpreter's message "f: requires (...) does not hold for ...".
func contractClause(ie *interp.Error) string {
	msg := strings.TrimPrefix(ie.Message, ie.Function+": ")
	if k := strings.Index(msg, " does not hold"); k > 0 {
		return msg[:k]
	}
	return msg
}

// evalArgs evaluates the effects' arguments against the new context.
func (i *Instance) evalArgs(tr *Transition, newCtx []value.Value, payload map[string]value.Value) ([]Effect, error) {
	vars := make(map[string]value.Value, len(newCtx))
	for k, f := range i.m.Context {
		vars[f.Name] = newCtx[k]
	}
	env := interp.Env{Vars: vars, Event: payload}
	out := make([]Effect, len(tr.Effects))
	for k, spec := range tr.Effects {
		out[k] = Effect{Spec: spec, Index: k, Status: Planned}
		for _, a := range spec.Args {
			v, err := i.m.in.EvalExpr(a, env)
			if err != nil {
				return nil, err
			}
			out[k].Args = append(out[k].Args, v)
		}
	}
	return out, nil
}

// execute hands the intents to the executor, in order, with retries; the
// first intent that fails for good stops the others and takes its
// on-error route.
//
// In an approval step, h is the transition whose held intents resume:
// the executor sees them as intents of that transition.
func (i *Instance) execute(ctx context.Context, r *StepResult, root string, h *held) {
	effs := r.Effects
	if !i.withIDs && !i.m.governed { // the planned slice is shared: copy before filling in (authorize copied it already)
		effs = append([]Effect(nil), effs...)
		r.Effects = effs
	}
	failed := false
	for k := range effs {
		e := &effs[k]
		span := ""
		if i.tracing || i.exec != nil {
			span = i.effectSpan(k)
		}
		if i.tracing {
			i.authorityRecords(r, e, span, root)
		}
		if e.Authority != nil && !e.Authority.Allowed() {
			failed = true
			if e.Status == Denied {
				i.route(r, k, root)
			}
			continue
		}
		if failed || e.Status == Skipped {
			e.Status = Skipped
			if i.tracing {
				rec := i.record(r, trace.EffectSkipped, trace.ComponentEffect, e.Spec.Label(), span, root)
				rec.Body = "not carried out: an earlier intent of the step failed"
				rec.EffectIntentID, rec.Effect, rec.Target = e.ID, e.Spec.Name, e.Spec.Target
				i.emit(r, rec)
			}
			continue
		}
		if i.exec == nil { // dry-run: decided, planned, not executed
			continue
		}
		if e.Authority != nil && isControl(e.Spec) {
			i.control(r, e, span, root)
			continue
		}
		call := Call{Machine: i.m, InstanceID: i.id, IntentID: e.ID, Seq: r.Seq, Step: r.Step, Spec: e.Spec, Args: e.Args,
			Event: r.Event, Payload: r.Payload, From: r.From, State: r.Target, Context: r.Context, Clock: i.clock}
		if h != nil {
			call.Event, call.Payload, call.From, call.State, call.Context = h.event, h.payload, h.from, h.target, h.ctx
		}
		d := i.exec.Approve(&call)
		e.Decision = d.Rule
		if !d.Allowed {
			e.Status, e.Code = Denied, CodeEffectDenied
			e.Error = fmt.Sprintf("the host policy denies %s (%s)", e.Spec.Label(), d.Rule)
			if i.tracing {
				rec := i.record(r, trace.EffectDenied, trace.ComponentEffect, e.Spec.Label(), span, root)
				rec.Severity, rec.Body, rec.Reason, rec.ErrorCode = trace.Error, e.Error, d.Rule, e.Code
				rec.EffectIntentID, rec.Effect, rec.Target = e.ID, e.Spec.Name, e.Spec.Target
				rec.Expected, rec.Actual = "allowed", "denied"
				i.emit(r, rec)
			}
			failed = true
			i.route(r, k, root)
			continue
		}
		if i.tracing {
			rec := i.record(r, trace.EffectApproved, trace.ComponentEffect, e.Spec.Label(), span, root)
			rec.Body, rec.Reason = "approved", d.Rule
			rec.EffectIntentID, rec.Effect, rec.Target = e.ID, e.Spec.Name, e.Spec.Target
			i.emit(r, rec)
		}
		var total int64
		for attempt := 1; attempt <= 1+e.Spec.Retry; attempt++ {
			call.Attempt = attempt
			aspan := i.nextSpan()
			var out Outcome
			if ctx.Err() != nil {
				out = Outcome{Code: CodeEffectCancelled, Error: "cancelled before the attempt: " + ctx.Err().Error()}
			} else {
				if i.tracing {
					rec := i.record(r, trace.AdapterStart, trace.ComponentAdapter, e.Spec.Label(), aspan, span)
					rec.Body = fmt.Sprintf("attempt %d of %d", attempt, 1+e.Spec.Retry)
					rec.EffectIntentID, rec.Effect, rec.Target, rec.Attempt = e.ID, e.Spec.Name, e.Spec.Target, attempt
					rec.Adapter = string(i.exec.Mode())
					i.emit(r, rec)
				}
				out = i.exec.Execute(ctx, &call)
				if out.OK && e.Spec.Timeout > 0 && out.DurationMs > e.Spec.Timeout {
					out.OK = false
					out.Code = CodeEffectTimeout
					out.Error = fmt.Sprintf("the attempt took %s, longer than the timeout %s", value.FormatDuration(out.DurationMs), e.Spec.TimeoutText)
				}
			}
			if !out.OK && out.Code == "" {
				out.Code = CodeEffectFailed
			}
			total += out.DurationMs
			e.Attempts = append(e.Attempts, out)
			if i.tracing {
				ev, sev, body := trace.AdapterEnd, trace.Info, "ok"
				if !out.OK {
					ev, sev, body = trace.AdapterFail, trace.Error, out.Error
				}
				rec := i.record(r, ev, trace.ComponentAdapter, e.Spec.Label(), aspan, span)
				rec.Severity, rec.Body, rec.DurationMs = sev, body, out.DurationMs
				rec.EffectIntentID, rec.Effect, rec.Target, rec.Attempt = e.ID, e.Spec.Name, e.Spec.Target, attempt
				rec.Adapter = out.Adapter
				if out.Operation != "" {
					rec.Operation = out.Adapter + " " + out.Operation
				}
				if !out.OK {
					rec.ErrorCode, rec.Expected, rec.Actual = out.Code, "success", "failure"
				}
				i.emit(r, rec)
			}
			if out.OK || out.Code == CodeEffectCancelled {
				break
			}
		}
		last := e.Attempts[len(e.Attempts)-1]
		if last.OK {
			e.Status = Executed
			if i.tracing {
				rec := i.record(r, trace.EffectExecuted, trace.ComponentEffect, e.Spec.Label(), span, root)
				rec.Body = fmt.Sprintf("executed in %d %s", len(e.Attempts), plural(len(e.Attempts), "attempt", "attempts"))
				rec.EffectIntentID, rec.Effect, rec.Target, rec.DurationMs = e.ID, e.Spec.Name, e.Spec.Target, total
				i.emit(r, rec)
			}
			if e.Spec.Claim != nil {
				i.observe(r, e, span)
			}
			if i.tracing && len(i.claims) > 0 && isProjection(e.Spec.Name) {
				i.projected(r, e, span)
			}
			continue
		}
		e.Status, e.Code, e.Error = Failed, last.Code, last.Error
		if i.tracing {
			rec := i.record(r, trace.EffectFailed, trace.ComponentEffect, e.Spec.Label(), span, root)
			rec.Severity = trace.Error
			rec.Body = fmt.Sprintf("failed after %d %s: %s", len(e.Attempts), plural(len(e.Attempts), "attempt", "attempts"), last.Error)
			rec.EffectIntentID, rec.Effect, rec.Target, rec.DurationMs = e.ID, e.Spec.Name, e.Spec.Target, total
			rec.ErrorCode, rec.Expected, rec.Actual = last.Code, "success", "failure"
			if e.Spec.OnError != nil {
				rec.Reason = "on-error " + e.Spec.OnError.Name
			}
			i.emit(r, rec)
		}
		failed = true
		if last.Code != CodeEffectCancelled {
			i.route(r, k, root)
		}
	}
}

// route takes effect k's on-error route, if it has one.
//
// An approval step takes no route: the transition the intent belonged to
// is over, and a resolution never moves the instance.
func (i *Instance) route(r *StepResult, k int, root string) {
	to := r.Effects[k].Spec.OnError
	if to == nil || r.Cause == CauseApproval {
		return
	}
	from := i.state.Name
	i.enter(to)
	r.Route = &Route{Effect: k, From: from, To: to.Name}
	r.To, r.Status = to.Name, i.status
	if i.tracing {
		e := &r.Effects[k]
		rec := i.record(r, trace.TransitionEnd, trace.ComponentMachine, i.m.Name+"."+r.Event+".on-error", i.nextSpan(), root)
		rec.Body = from + " -> " + to.Name + " (on-error of " + e.Spec.Label() + ")"
		rec.MachineEvent, rec.FromState, rec.ToState = r.Event, from, to.Name
		rec.Reason, rec.EffectIntentID, rec.ErrorCode = "effect failed: "+e.Error, e.ID, e.Code
		i.emit(r, rec)
	}
}

func (i *Instance) snapshotRecord(r *StepResult) {
	rec := i.record(r, trace.Snapshot, trace.ComponentMachine, i.m.Name+".snapshot", i.nextSpan(), "")
	rec.Body = "state " + i.state.Name + ", " + string(i.status)
	rec.ToState = i.state.Name
	i.emit(r, rec)
}

// startTrace starts the trace records of a step, reusing the buffer.
func (i *Instance) startTrace(r *StepResult) {
	if i.traceID == "" || i.traceSeq != r.Seq {
		i.traceID, i.traceSeq = i.ids.Trace(r.Seq), r.Seq
	}
	r.Trace = i.traceBuf[:0]
}

func (i *Instance) nextSpan() string {
	i.span++
	return i.ids.Span(i.step, i.span)
}

// effectSpan is the span of intent k of the current step: spans 1000+k
// leave the low numbers to the transition and the attempts.
func (i *Instance) effectSpan(k int) string {
	return i.ids.Span(i.step, 1000+k)
}

// record starts a trace record with the fields every record has.
func (i *Instance) record(r *StepResult, event, component, op, span, parent string) trace.Record {
	return trace.Record{
		TraceID: i.traceID, SpanID: span, ParentSpanID: parent,
		Event: event, Severity: trace.Info, Component: component, Operation: op,
		Service: i.m.Module, ClockMs: i.clock, Seq: r.Seq, Step: r.Step,
		CapsuleHash: i.m.Hash, MachineInstanceID: i.id, Machine: i.m.Name,
	}
}

// emit appends rec to the step's trace; error-level records carry the
// breadcrumbs that led to them.
func (i *Instance) emit(r *StepResult, rec trace.Record) {
	if rec.Severity == trace.Error {
		rec.TraceHistory = i.crumbs.History()
	}
	i.crumbs.Add(&rec)
	r.Trace = append(r.Trace, rec)
	i.traceBuf = r.Trace
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// intentText prints an intent as Capsulang source: (db.write store.col 42).
func intentText(e *Effect) string {
	if len(e.Args) == 0 {
		return e.Spec.source
	}
	var b strings.Builder
	b.WriteString("(" + e.Spec.Name)
	if e.Spec.Target != "" {
		b.WriteString(" " + e.Spec.Target)
	}
	for _, x := range e.Spec.Extra {
		b.WriteString(" " + x)
	}
	for _, a := range e.Args {
		b.WriteString(" " + a.String())
	}
	b.WriteString(")")
	return b.String()
}
