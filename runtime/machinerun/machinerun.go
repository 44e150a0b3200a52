// Package machinerun runs a machine of a checked module on a list of
// inputs: it wires the executor of the mode (dry-run plans intents, mock
// runs deterministic handlers from a mocks file, live sends them to host
// adapters behind a host-policy artifact), records the instance in a new
// ledger when asked, delivers the inputs in order (events, advances of
// the logical clock, cancellation, approvals of held intents, verdicts on
// claims) and shapes the outcome as caps machine-run prints it, in text
// (Result.Text) or JSON (Result.Report).
//
// caps machine-run parses its flags and inputs (ParseInputs) and calls
// Execute; the language server's and the session web UI's dry runs start
// a Run on a machine they compiled and Apply events to it, so the three
// step, default payloads and report alike.
package machinerun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/capsulang/caps/analysis/capsule"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
)

// Options say how a machine runs.
type Options struct {
	// Mode is machine.DryRun (also the zero value), machine.Mock or
	// machine.Live.
	Mode machine.Mode
	// Mocks is the mocks file of mock mode; "" makes every intent succeed.
	Mocks string
	// Policy is the host-policy artifact of live mode (caps host-policy
	// --json); "" denies every intent.
	Policy string
	// Ledger is the folder of a new file ledger to record the instance
	// in; "" records nothing. Sync is its fsync policy.
	Ledger string
	Sync   ledger.Sync
	// ID is the instance's id; "" derives one from the machine and the
	// module hash.
	ID string
	// Name is the module's file as messages show it ("" shows the path).
	Name string
	// StrictPayloads keeps dry-run payloads strict. Without it, a dry run
	// gives the declared payload fields an event leaves out their zero
	// values (machine.FillMissing) and lists them in Step.Defaulted; mock
	// and live mode are always strict.
	StrictPayloads bool
}

func (o *Options) name(path string) string {
	if o.Name != "" {
		return o.Name
	}
	return path
}

// Step is one step of a run: the machine's result, and the payload
// fields a dry run gave zero values.
type Step struct {
	machine.StepResult
	Defaulted []string
}

// Run is a running instance with its executor and ledger. It is not safe
// for concurrent use.
type Run struct {
	m    *machine.Machine
	inst *machine.Instance
	fill bool // dry-run fills left-out payload fields in (not strict)
	rec  *ledger.Recorder
	live *adapters.LiveExecutor
	dir  string
}

// LedgerError is a failure to record the instance in its ledger.
type LedgerError struct {
	Dir string
	Err error
}

func (e *LedgerError) Error() string { return fmt.Sprintf("ledger %s: %v", e.Dir, e.Err) }
func (e *LedgerError) Unwrap() error { return e.Err }

// Start starts an instance of m, a machine of pkg (the module of the file
// at path): it makes the executor of o.Mode (mock: the mocks file; live:
// the module must be allowed to run live (capsule.LiveCheck) and the
// host policy must be the module's), creates the ledger and starts the
// instance. An error says what to fix; nothing stays open.
func Start(pkg *load.Package, path string, m *machine.Machine, o Options) (*Run, error) {
	r := &Run{m: m, dir: o.Ledger}
	var exec machine.Executor
	switch o.Mode {
	case machine.DryRun, "":
		r.fill = !o.StrictPayloads
	case machine.Mock:
		var mf *adapters.MockFile
		if o.Mocks != "" {
			var err error
			if mf, err = adapters.LoadMocks(o.Mocks); err != nil {
				return nil, err
			}
		}
		exec = adapters.NewMock(mf)
	case machine.Live:
		if err := capsule.LiveCheck(path, pkg.Src, pkg.Hash); err != nil {
			return nil, err
		}
		var pol *adapters.Policy
		if o.Policy != "" {
			var err error
			if pol, err = LoadPolicy(pkg, o.name(path), o.Policy); err != nil {
				return nil, err
			}
		}
		r.live = adapters.NewLive(pol)
		exec = r.live
	default:
		return nil, fmt.Errorf("mode %q: a machine runs in dry-run, mock or live mode", o.Mode)
	}
	opts := machine.InstanceOptions{ID: o.ID, Executor: exec}
	if o.Ledger != "" {
		f, err := ledger.CreateDir(o.Ledger, o.Sync)
		if err != nil {
			r.closeLive()
			return nil, err
		}
		r.rec = ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: filepath.ToSlash(path), Sync: o.Sync})
		opts.Observer = r.rec
	}
	inst, err := m.NewInstance(opts)
	if err != nil {
		if r.rec != nil {
			r.rec.Close()
		}
		r.closeLive()
		return nil, err
	}
	r.inst = inst
	return r, nil
}

// Machine returns the run's machine.
func (r *Run) Machine() *machine.Machine { return r.m }

// Instance returns the run's instance.
func (r *Run) Instance() *machine.Instance { return r.inst }

// Apply delivers one input and returns its steps: one for an event, a
// cancellation, an approval or a claim verdict; one for each timeout an
// advance fired. The error is an advance that could not complete (its
// steps so far are returned with it), named by the input's text. A step's
// trace records are dropped: the instance reuses them.
func (r *Run) Apply(ctx context.Context, in Input) ([]Step, error) {
	var rs []machine.StepResult
	var filled []string
	var err error
	switch {
	case in.Advance:
		if rs, err = r.inst.AdvanceContext(ctx, in.AdvanceMs); err != nil {
			err = fmt.Errorf("%s: %w", in.Text, err)
		}
	case in.Cancel != nil:
		rs = []machine.StepResult{r.inst.Cancel(*in.Cancel)}
	case in.Resolve != nil:
		rs = []machine.StepResult{r.inst.Resolve(ctx, *in.Resolve)}
	case in.Claim != nil:
		rs = []machine.StepResult{r.inst.Decide(ctx, *in.Claim)}
	default:
		ev := in.Event
		if r.fill {
			ev.Raw, filled = r.m.FillMissing(ev.Name, ev.Raw)
		}
		rs = []machine.StepResult{r.inst.StepContext(ctx, ev)}
	}
	out := make([]Step, len(rs))
	for k, sr := range rs {
		sr.Trace = nil
		out[k] = Step{StepResult: sr, Defaulted: filled}
	}
	return out, err
}

// Close ends the run: it stops the live adapters and closes the ledger.
// The error joins the ledger's failures (*LedgerError each): a write the
// instance could not make, and the ledger's close.
func (r *Run) Close() error {
	return errors.Join(r.close()...)
}

func (r *Run) close() []error {
	r.closeLive()
	if r.rec == nil {
		return nil
	}
	var errs []error
	if err := r.inst.Err(); err != nil {
		errs = append(errs, &LedgerError{r.dir, err})
	}
	if err := r.rec.Close(); err != nil {
		errs = append(errs, &LedgerError{r.dir, err})
	}
	r.rec = nil
	return errs
}

func (r *Run) closeLive() {
	if r.live != nil {
		r.live.Close()
		r.live = nil
	}
}

// Result is a finished run.
type Result struct {
	Machine  *machine.Machine
	Instance *machine.Instance
	// Steps are the steps of every input, in order.
	Steps []Step
	// Ledger is the ledger's folder, "" without one.
	Ledger string
	// Failed reports that a step failed or an advance did not complete.
	Failed bool
	// Problems are the errors met after the instance started, in order:
	// advances that did not complete, then the ledger's failures.
	Problems []error
	// LedgerFailed reports that the ledger is not complete (a
	// *LedgerError is among Problems).
	LedgerFailed bool
}

// Execute compiles machine name of pkg (the module of the file at path),
// starts it (Start), delivers the inputs in order and closes the run. A
// failed step does not stop the run: the state and context stay as they
// were and the next input is delivered. The error is a run that could not
// start: an unknown machine, an unusable mocks file, host policy or
// ledger folder, a module not allowed to run live.
func Execute(ctx context.Context, pkg *load.Package, path, name string, inputs []Input, o Options) (*Result, error) {
	m, err := machine.Compile(pkg.Result, name, machine.Options{Hash: pkg.Hash})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.name(path), err)
	}
	run, err := Start(pkg, path, m, o)
	if err != nil {
		return nil, err
	}
	res := &Result{Machine: m, Instance: run.inst, Ledger: o.Ledger}
	for _, in := range inputs {
		steps, err := run.Apply(ctx, in)
		if err != nil {
			res.Problems = append(res.Problems, err)
			res.Failed = true
		}
		for k := range steps {
			if !steps[k].OK {
				res.Failed = true
			}
		}
		res.Steps = append(res.Steps, steps...)
	}
	if errs := run.close(); len(errs) > 0 {
		res.Problems = append(res.Problems, errs...)
		res.LedgerFailed = true
	}
	return res, nil
}

// HostModule is the module of a checked package as a host policy sees it:
// its semantic hash is the one caps hash prints (with the hashes of its
// imports); name is its file as messages show it.
func HostModule(pkg *load.Package, name string) (adapters.HostModule, error) {
	hash, err := load.IROptions(pkg.Result).Hash(pkg.File.Module)
	if err != nil {
		return adapters.HostModule{}, err
	}
	return adapters.HostModule{Path: name, Module: pkg.File.Module, Hash: hash}, nil
}

// LoadPolicy loads the host-policy artifact file for the module of pkg
// (name is its file as messages show it): an artifact made for another
// module, or for another version of it, is an error.
func LoadPolicy(pkg *load.Package, name, file string) (*adapters.Policy, error) {
	mod, err := HostModule(pkg, name)
	if err != nil {
		return nil, err
	}
	return adapters.LoadHostPolicy(file, mod)
}
