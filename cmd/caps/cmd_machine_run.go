package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/capsulang/caps/analysis/authority"
	"path/filepath"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/value"
)

func init() {
	cli.Register(&cli.Command{
		Name:  "machine-run",
		Args:  "[--mode dry-run|mock|live] [--mocks FILE] [--policy FILE] [--ledger DIR] [--json] FILE MACHINE [EVENT...]",
		Short: "run a machine of a module on a list of events",
		Long: `Machine-run checks FILE, starts an instance of its machine MACHINE and
delivers the inputs in order. Each EVENT is an event's name, with its
payload as JSON after "=" when it has fields:

    caps machine-run claims.caps ClaimReview 'SubmitClaim={"claim_id": 42}' \
        'ReviewCompleted={"review_score": 12}' Approve

Two other inputs drive the instance: +DURATION moves its logical clock
forward (+30m, +48h), firing the state timeouts that fall due as events;
!cancel (or !cancel=REASON) cancels it. !approve=N=PRINCIPAL:NAME and
!reject=N=PRINCIPAL:NAME resolve the intent the module's authority held
(escalated or deferred) at step #N, for a principal allowed to approve it
(docs/authority.md, "Resolving a held intent").

An event that does not fit (an unknown event, a payload of the wrong
shape, no transition in the current state, a false guard, an expression
that traps) is a failed step: the state and context are unchanged, no
intents are emitted, and the run goes on.

--mode says what happens to the effect intents of each transition:
dry-run (the default) plans them without executing anything; mock runs
deterministic mock handlers, from the --mocks file or succeeding by
default; live sends them to host adapters (MCP over stdio, HTTP) behind
the host-policy artifact of --policy (made by caps host-policy FILE --json
and bound to the module's semantic hash), which denies everything it does
not allow.
Retries, effect timeouts and on-error routes apply in mock and live mode.

--ledger DIR records the instance in a new file ledger in DIR (see
docs/ledger.md); caps replay DIR verifies it and caps trace DIR prints its
semantic trace. --sync sets the ledger's fsync policy: group (default:
steps are written in batches with one fsync each, all durable when the
command exits), step (every step durable before the next), none.

It prints each step (the event, the states, the intents and their
outcomes) and the final state and context; exit 1 when a step failed.
With --json it prints {"machine", "mode", "instance", "state", "status",
"clock", "context", "steps": [{"seq", "event", "cause", "payload", "from",
"to", "ok", "error", "context", "effects": [{"effect", "target", "status",
"authority", ...}], "route", "clock"}], "ledger"}. In a module that
declares an authority-policy, every intent is first decided by it, in
every mode (docs/authority.md).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			mode := fs.String("mode", "dry-run", "dry-run, mock or live")
			mocks := fs.String("mocks", "", "the mocks file of mock mode")
			policy := fs.String("policy", "", "the host-policy artifact of live mode (caps host-policy)")
			dir := fs.String("ledger", "", "record the instance in a new ledger in `DIR`")
			syncFlag := fs.String("sync", "group", "the ledger's fsync policy: group, step or none")
			id := fs.String("instance", "", "the instance id (default: derived from the machine and the module hash)")
			return func(c *cli.Context, args []string) int {
				if len(args) < 2 {
					return c.UsageErrorf("expected FILE and MACHINE, got %d arguments", len(args))
				}
				o := runOptions{jsonOut: *jsonOut, mocks: *mocks, policy: *policy, ledger: *dir, id: *id}
				m, ok := machine.ParseMode(*mode)
				if !ok {
					return c.UsageErrorf("--mode is dry-run, mock or live, not %q", *mode)
				}
				o.mode = m
				if o.mocks != "" && m != machine.Mock {
					return c.UsageErrorf("--mocks needs --mode mock")
				}
				if o.policy != "" && m != machine.Live {
					return c.UsageErrorf("--policy needs --mode live")
				}
				switch *syncFlag {
				case "group":
					o.sync = ledger.SyncGroup
				case "step":
					o.sync = ledger.SyncStep
				case "none":
					o.sync = ledger.SyncNone
				default:
					return c.UsageErrorf("--sync is group, step or none, not %q", *syncFlag)
				}
				if o.ledger != "" && args[0] == cli.StdinPath {
					return c.UsageErrorf("--ledger needs a FILE: a replay must be able to load the module again")
				}
				inputs, err := parseInputs(args[2:])
				if err != nil {
					return c.UsageErrorf("%v", err)
				}
				return runMachine(c, args[0], args[1], inputs, o)
			}
		},
	})
}

type runOptions struct {
	jsonOut bool
	mode    machine.Mode
	mocks   string
	policy  string
	ledger  string
	sync    ledger.Sync
	id      string
}

// runInput is one input of the command line.
type runInput struct {
	text    string // as written
	event   machine.Event
	advance int64 // ms, for +DURATION
	isAdv   bool
	cancel  *string
	resolve *machine.Resolution
}

func parseInputs(args []string) ([]runInput, error) {
	var out []runInput
	for _, a := range args {
		in := runInput{text: a}
		switch {
		case strings.HasPrefix(a, "+"):
			d, err := value.ParseDuration(a[1:])
			if err != nil {
				return nil, fmt.Errorf("input %q: +DURATION moves the clock, e.g. +30m: %v", a, err)
			}
			in.isAdv, in.advance = true, d.Millis()
		case a == "!cancel" || strings.HasPrefix(a, "!cancel="):
			reason := strings.TrimPrefix(strings.TrimPrefix(a, "!cancel"), "=")
			if reason == "" {
				reason = "cancelled from the command line"
			}
			in.cancel = &reason
		case strings.HasPrefix(a, "!approve=") || strings.HasPrefix(a, "!reject="):
			verdict, rest, _ := strings.Cut(a[1:], "=")
			ref, by, ok := strings.Cut(rest, "=")
			if !ok || ref == "" {
				return nil, fmt.Errorf("input %q: write !%s=STEP=PRINCIPAL:NAME (!%s=5=HumanClaimsLead:alice), STEP the #number of the step that holds the intent, or the intent's id", a, verdict, verdict)
			}
			principal, name, err := authority.ParseApprover(by)
			if err != nil {
				return nil, fmt.Errorf("input %q: %v", a, err)
			}
			in.resolve = &machine.Resolution{Ref: ref, Verdict: verdict, Principal: principal, Name: name}
		case strings.HasPrefix(a, "!"):
			return nil, fmt.Errorf("input %q: the ! inputs are !cancel, !approve=STEP=PRINCIPAL:NAME and !reject=STEP=PRINCIPAL:NAME", a)
		default:
			name, payload, has := strings.Cut(a, "=")
			if name == "" {
				return nil, fmt.Errorf("input %q: write an event as NAME or NAME={json payload}", a)
			}
			in.event.Name = name
			if has {
				if !json.Valid([]byte(payload)) {
					var v any
					err := json.Unmarshal([]byte(payload), &v)
					return nil, fmt.Errorf("event %s: the payload is not JSON: %v", name, err)
				}
				in.event.Raw = json.RawMessage(payload)
			}
		}
		out = append(out, in)
	}
	return out, nil
}

// JSON output of machine-run.
type runJSON struct {
	Machine  string          `json:"machine"`
	Mode     string          `json:"mode"`
	Instance string          `json:"instance"`
	State    string          `json:"state"`
	Status   string          `json:"status"`
	Clock    string          `json:"clock"`
	Context  json.RawMessage `json:"context"`
	Steps    []stepJSON      `json:"steps"`
	Ledger   string          `json:"ledger,omitempty"`
}

type stepJSON struct {
	Seq     uint64          `json:"seq"`
	Event   string          `json:"event"`
	Cause   string          `json:"cause"`
	Payload json.RawMessage `json:"payload,omitempty"`
	From    string          `json:"from"`
	To      string          `json:"to"`
	OK      bool            `json:"ok"`
	Error   *stepErrorJSON  `json:"error"`
	Context json.RawMessage `json:"context"`
	Effects []effectJSON    `json:"effects"`
	Route   *machine.Route  `json:"route,omitempty"`
	Clock   string          `json:"clock"`
	// Approval and Resolves are an approval step's verdict and the step
	// whose held intent it resolved.
	Approval *approvalJSON `json:"approval,omitempty"`
	Resolves uint64        `json:"resolves,omitempty"`
}

type approvalJSON struct {
	Ref       string `json:"ref"`
	Verdict   string `json:"verdict"`
	Principal string `json:"principal"`
	Name      string `json:"name"`
}

type stepErrorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type effectJSON struct {
	Effect   string        `json:"effect"`
	Target   string        `json:"target,omitempty"`
	Extra    []string      `json:"extra_targets,omitempty"`
	Args     []value.Value `json:"args,omitempty"`
	ID       string        `json:"id,omitempty"`
	Status   string        `json:"status"`
	Retry    int           `json:"retry,omitempty"`
	Timeout  string        `json:"timeout,omitempty"`
	OnError  string        `json:"on_error,omitempty"`
	Decision string        `json:"decision,omitempty"`
	// Authority is the module's authority decision (docs/authority.md);
	// absent for an intent skipped before it was decided.
	Authority *authority.Decision `json:"authority,omitempty"`
	Attempts  []machine.Outcome   `json:"attempts,omitempty"`
	Result    json.RawMessage     `json:"result,omitempty"`
	Code      string              `json:"code,omitempty"`
	Error     string              `json:"error,omitempty"`
}

func effectsJSON(effs []machine.Effect, governed bool) []effectJSON {
	out := []effectJSON{}
	for k := range effs {
		e := &effs[k]
		ej := effectJSON{Effect: e.Spec.Name, Target: e.Spec.Target, Extra: e.Spec.Extra, Args: e.Args, ID: e.ID,
			Status: string(e.Status), Retry: e.Spec.Retry, Timeout: e.Spec.TimeoutText, Decision: e.Decision,
			Authority: e.Authority, Attempts: e.Attempts, Result: e.Result(), Code: e.Code, Error: e.Error}
		if !governed && e.Status != machine.Skipped {
			ej.Authority = authority.Ungoverned
		}
		if e.Spec.OnError != nil {
			ej.OnError = e.Spec.OnError.Name
		}
		out = append(out, ej)
	}
	return out
}

func runMachine(c *cli.Context, path, name string, inputs []runInput, o runOptions) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, o.jsonOut)
	pkg, err := newLoader(c).Load(path)
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	if pkg.File.Module == nil || pkg.Result.HasErrors() {
		p.Add(packageSource(path, pkg), pkg.Result.Diagnostics)
		if pkg.File.Module == nil {
			p.SetFailed()
			c.Errorf("%s: the file holds no module", cli.DisplayPath(path))
		}
		return p.Finish()
	}
	m, err := machine.Compile(pkg.Result, name, machine.Options{Hash: pkg.Hash})
	if err != nil {
		c.Errorf("%s: %v", cli.DisplayPath(path), err)
		return cli.ExitUsage
	}
	var exec machine.Executor
	switch o.mode {
	case machine.Mock:
		var mf *adapters.MockFile
		if o.mocks != "" {
			if mf, err = adapters.LoadMocks(o.mocks); err != nil {
				c.Errorf("%v", err)
				return cli.ExitUsage
			}
		}
		exec = adapters.NewMock(mf)
	case machine.Live:
		var pol *adapters.Policy
		if o.policy != "" {
			if pol, err = loadHostPolicy(path, pkg, o.policy); err != nil {
				c.Errorf("%v", err)
				return cli.ExitUsage
			}
		}
		live := adapters.NewLive(pol)
		defer live.Close()
		exec = live
	}
	opts := machine.InstanceOptions{ID: o.id, Executor: exec}
	var rec *ledger.Recorder
	if o.ledger != "" {
		f, err := ledger.CreateDir(o.ledger, o.sync)
		if err != nil {
			c.Errorf("%v", err)
			return cli.ExitUsage
		}
		rec = ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: filepath.ToSlash(path), Sync: o.sync})
		opts.Observer = rec
	}
	inst, err := m.NewInstance(opts)
	if err != nil {
		if rec != nil {
			rec.Close()
		}
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	ctx := context.Background()
	var steps []machine.StepResult
	failed := false
	for _, in := range inputs {
		var rs []machine.StepResult
		switch {
		case in.isAdv:
			var err error
			rs, err = inst.AdvanceContext(ctx, in.advance)
			if err != nil {
				c.Errorf("%s: %v", in.text, err)
				failed = true
			}
		case in.cancel != nil:
			rs = []machine.StepResult{inst.Cancel(*in.cancel)}
		case in.resolve != nil:
			rs = []machine.StepResult{inst.Resolve(ctx, *in.resolve)}
		default:
			rs = []machine.StepResult{inst.StepContext(ctx, in.event)}
		}
		for _, r := range rs {
			r.Trace = nil // reused by the instance; not printed
			steps = append(steps, r)
			if !r.OK {
				failed = true
			}
		}
	}
	code := cli.ExitOK
	if failed {
		code = cli.ExitFail
	}
	if rec != nil {
		if err := inst.Err(); err != nil {
			c.Errorf("ledger %s: %v", o.ledger, err)
			code = cli.ExitUsage
		}
		if err := rec.Close(); err != nil {
			c.Errorf("ledger %s: %v", o.ledger, err)
			code = cli.ExitUsage
		}
	}
	if o.jsonOut {
		out := runJSON{Machine: m.Name, Mode: string(inst.Mode()), Instance: inst.ID(), State: inst.State(), Status: string(inst.Status()),
			Clock: value.FormatDuration(inst.Clock()), Context: m.ContextJSON(inst.Context()), Steps: []stepJSON{}, Ledger: o.ledger}
		for k := range steps {
			r := &steps[k]
			sj := stepJSON{Seq: r.Seq, Event: r.Event, Cause: string(r.Cause), From: r.From, To: r.To, OK: r.OK,
				Context: m.ContextJSON(r.Context), Effects: effectsJSON(r.Effects, m.Governed()), Route: r.Route, Clock: value.FormatDuration(r.Clock)}
			if r.Payload != nil {
				sj.Payload = m.AppendPayloadOf(nil, r.Event, r.Payload)
			}
			if r.Failure != nil {
				sj.Error = &stepErrorJSON{Code: r.Failure.Code, Message: r.Failure.Message}
			}
			if res := r.Resolution; res != nil {
				sj.Approval = &approvalJSON{Ref: res.Ref, Verdict: res.Verdict, Principal: res.Principal, Name: res.Name}
				sj.Resolves = r.Resolves
			}
			out.Steps = append(out.Steps, sj)
		}
		writeJSON(c, out)
		return code
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s), instance %s\n", m.Name, inst.Mode(), inst.ID())
	for k := range steps {
		writeStep(&b, &steps[k])
	}
	fmt.Fprintf(&b, "state %s (%s), clock %s\n", inst.State(), inst.Status(), value.FormatDuration(inst.Clock()))
	fmt.Fprintf(&b, "context %s\n", m.ContextJSON(inst.Context()))
	if o.ledger != "" {
		fmt.Fprintf(&b, "ledger %s\n", o.ledger)
	}
	c.Stdout.Write([]byte(b.String()))
	return code
}

// writeStep prints one step for people:
//
//	#1 SubmitClaim: idle -> awaiting_review
//	    db.write operational.claims: planned
func writeStep(b *strings.Builder, r *machine.StepResult) {
	label := r.Event
	switch r.Cause {
	case machine.CauseTimeout:
		label += " (timeout at " + value.FormatDuration(r.Clock) + ")"
	case machine.CauseCancel:
		label = "!cancel"
	case machine.CauseApproval:
		res := r.Resolution
		label = fmt.Sprintf("!%s %s by %s:%s", res.Verdict, res.Ref, res.Principal, res.Name)
	}
	if r.Failure != nil {
		fmt.Fprintf(b, "#%d %s: FAILED %s: %s\n", r.Seq, label, r.Failure.Code, r.Failure.Message)
		return
	}
	if r.Cause == machine.CauseCancel {
		fmt.Fprintf(b, "#%d %s: cancelled in %s\n", r.Seq, label, r.From)
		return
	}
	if r.Cause == machine.CauseApproval {
		fmt.Fprintf(b, "#%d %s: resolves #%d, in %s\n", r.Seq, label, r.Resolves, r.From)
	} else {
		fmt.Fprintf(b, "#%d %s: %s -> %s\n", r.Seq, label, r.From, r.Target)
	}
	for k := range r.Effects {
		e := &r.Effects[k]
		line := string(e.Status)
		switch e.Status {
		case machine.Executed, machine.Failed:
			var total int64
			for _, a := range e.Attempts {
				total += a.DurationMs
			}
			line += fmt.Sprintf(" (%d %s, %s)", len(e.Attempts), pluralWord(len(e.Attempts), "attempt", "attempts"), value.FormatDuration(total))
		}
		if e.Code != "" {
			line += ": " + e.Code + ": " + e.Error
		}
		fmt.Fprintf(b, "    %s: %s\n", e.Spec.Label(), line)
	}
	if rt := r.Route; rt != nil {
		fmt.Fprintf(b, "    on-error: %s -> %s\n", rt.From, rt.To)
	}
}
