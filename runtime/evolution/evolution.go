// Package evolution runs the propose → assess → commit → rollback workflow
// on a workspace and keeps its evolution ledger. Package analysis/propose
// decides (it builds proposals and assesses them without writing
// anything); this package stores proposals, writes files atomically,
// records every step in an append-only hash-chained ledger (runtime/chain)
// and undoes commits.
//
// A server (the language server, an agent host) uses it like the CLI:
//
//	w, err := evolution.Open(root, evolution.Options{})
//	p, err := w.Propose(propose.Request{Kind: propose.FromRepair, Targets: []string{file},
//		Repair: &propose.RepairRef{Code: "E_UNKNOWN_NAME", Line: 12}, By: "agent:Fixer"})
//	a, err := w.Assess(p.ID)              // verdict pass | needs-approval | incomplete | fail
//	ev, err := w.Commit(p.ID, []string{"SecurityOwner:alice"}) // *RefusedError when refused
//	back, err := w.Rollback(ev.ID, "alice")
//	h, err := w.History("examples/abs.caps")
//	rep, err := w.VerifyLedger()
//	plans = w.Rerank(plans)               // learned repair preferences
//
// Layout of the workspace's .caps folder (docs/propose.md):
//
//	.caps/policy.json                 workspace policy (optional, hand-written)
//	.caps/ledger/evolution.jsonl      the evolution ledger (runtime/chain format)
//	.caps/proposals/ID/proposal.json  a proposal; base/ and candidate/ hold its files
//	.caps/proposals/ID/assessment.json the latest assessment
//	.caps/proposals/ID/change.diff    the unified diff
//	.caps/objects/sha256/HEX          file contents by hash, for rollback
//	.caps/txn/ID.json                 the journal of a commit in progress
//
// Every method that writes first verifies the ledger's whole chain and
// refuses to run when it is broken (a *RefusedError naming the record), so
// nothing is appended after a broken record. It takes the ledger's lock
// for its whole run, so commits and rollbacks of one workspace are
// serialized across processes, and first finishes any commit a crash
// interrupted (see Commit).
package evolution

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/analysis/repair"
	"github.com/capsulang/caps/internal/durable"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax"
)

// Options configure a workspace.
type Options struct {
	// ImportRoots are extra import folders (CAPS_PATH).
	ImportRoots []string
	// Hooks override the interpreter and command hooks. Nil hooks get the
	// defaults: examples run with runtime/interp, validation commands run
	// in a staged copy of the workspace, scenarios run with the machine
	// runtime and golden ledgers replay with runtime/replay, all against
	// the candidate.
	Hooks propose.Hooks
	// AllowedPrograms is the validation allow-list; nil means
	// propose.DefaultAllowedPrograms.
	AllowedPrograms []string
	// CapsPath is the program that runs for a validation command "caps";
	// "" means the caps found on PATH.
	CapsPath string
	// Now returns the time for time stamps; nil means time.Now.
	Now func() time.Time
	// LockTimeout is how long to wait for another process that holds the
	// ledger; 0 means 60 seconds.
	LockTimeout time.Duration
	// Sync is the ledger's fsync policy (chain.SyncAlways by default).
	Sync chain.SyncPolicy
}

// Workspace is an open workspace.
type Workspace struct {
	ws   *propose.Workspace
	opts Options
	meta string
}

// Open opens the workspace rooted at root (see propose.FindRoot).
func Open(root string, opts Options) (*Workspace, error) {
	ws, err := propose.OpenWorkspace(root, opts.ImportRoots)
	if err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 60 * time.Second
	}
	if opts.AllowedPrograms == nil {
		opts.AllowedPrograms = propose.DefaultAllowedPrograms
	}
	w := &Workspace{ws: ws, opts: opts, meta: filepath.Join(ws.Root, propose.MetaDir)}
	if w.opts.Hooks.Examples == nil {
		w.opts.Hooks.Examples = func(pkg *load.Package) []syntax.Diagnostic {
			return examples.Diagnostics(examples.Evaluate(pkg.Result))
		}
	}
	if w.opts.Hooks.Evaluated == nil {
		w.opts.Hooks.Evaluated = func(pkg *load.Package) map[syntax.Span]string {
			out := map[syntax.Span]string{}
			for _, o := range examples.Evaluate(pkg.Result) {
				if !o.Passed && o.Err == nil && o.Got.IsValid() {
					out[o.Example.Example.Expected.ExprSpan()] = o.Got.String()
				}
			}
			return out
		}
	}
	if w.opts.Hooks.Validate == nil {
		w.opts.Hooks.Validate = w.validate
	}
	if w.opts.Hooks.Scenarios == nil {
		w.opts.Hooks.Scenarios = runScenarios
	}
	if w.opts.Hooks.Replay == nil {
		w.opts.Hooks.Replay = replayLedgers
	}
	return w, nil
}

// Root returns the workspace root.
func (w *Workspace) Root() string { return w.ws.Root }

// Analysis returns the analysis workspace (paths, policy).
func (w *Workspace) Analysis() *propose.Workspace { return w.ws }

// LedgerPath returns the evolution ledger's file.
func (w *Workspace) LedgerPath() string { return filepath.Join(w.meta, "ledger", "evolution.jsonl") }

func (w *Workspace) now() string { return w.opts.Now().UTC().Format(time.RFC3339Nano) }

// RefusedError is returned when a commit or rollback is refused, or when
// any method that writes finds the ledger broken; the workspace is
// unchanged.
type RefusedError struct {
	Reason string
	// Assessment is the assessment that refused a commit, if any.
	Assessment *propose.Assessment
	// Unmet lists the governance requirements that refused a commit: the
	// assessment's unmet requirements less the approval ones the commit's
	// approvals meet.
	Unmet []propose.Requirement
	// Broken is the first record that does not verify, when the refusal
	// is for a broken ledger.
	Broken *chain.Problem
}

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

var idRE = regexp.MustCompile(`^(p|evt)-[0-9a-f]{16}$`)

func checkID(id, prefix string) error {
	if !idRE.MatchString(id) || !strings.HasPrefix(id, prefix+"-") {
		return fmt.Errorf("bad id %q: expected %s- and 16 hex digits", id, prefix)
	}
	return nil
}

// requireIntactLedger refuses (a *RefusedError) when the ledger's chain
// does not verify. Every method that writes calls it before anything
// else, so that a broken ledger changes no file and gets nothing appended
// after its broken record.
func (w *Workspace) requireIntactLedger() error {
	rep, err := w.VerifyLedger()
	if err != nil {
		return err
	}
	if !rep.OK {
		return w.brokenLedger(rep.Problem)
	}
	return nil
}

// brokenLedger is the refusal for a ledger whose chain breaks at p: it
// names the record and says what to do.
func (w *Workspace) brokenLedger(p *chain.Problem) *RefusedError {
	return &RefusedError{Broken: p, Reason: fmt.Sprintf(
		"the evolution ledger %s is broken at %s; nothing was changed. "+
			"Run 'caps ledger verify' to see it, then restore the ledger from a backup or version control",
		w.LedgerPath(), DescribeBreak(p))}
}

// DescribeBreak says where a ledger's chain breaks and why, as
// "record N: what is wrong" (a record's number is its line).
func DescribeBreak(p *chain.Problem) string {
	return fmt.Sprintf("record %d: %s", p.Line, strings.TrimPrefix(p.Reason, fmt.Sprintf("record %d: ", p.Line)))
}

// withLedger runs fn with the ledger open and locked, after verifying its
// whole chain (a broken ledger is refused) and finishing any interrupted
// commit.
func (w *Workspace) withLedger(fn func(l *chain.File) error) error {
	if err := w.requireIntactLedger(); err != nil {
		return err
	}
	// Verified again under the lock, against a change since.
	l, err := chain.Open(w.LedgerPath(), chain.Options{Sync: w.opts.Sync, LockTimeout: w.opts.LockTimeout, VerifyOnOpen: true})
	var ce *chain.CorruptError
	if errors.As(err, &ce) {
		return w.brokenLedger(ce.Problem)
	}
	if err != nil {
		return err
	}
	defer l.Close()
	if err := w.recoverTxns(l); err != nil {
		return fmt.Errorf("finishing an interrupted commit: %w", err)
	}
	return fn(l)
}

// Recover finishes a commit or rollback that a crash interrupted (every
// writing method does this first).
func (w *Workspace) Recover() error {
	return w.withLedger(func(*chain.File) error { return nil })
}

// Propose builds a proposal from req, stores it under
// .caps/proposals/ID/ and records a propose event. No workspace file
// changes. Like every method that writes, it refuses a broken ledger.
func (w *Workspace) Propose(req propose.Request) (*propose.Proposal, error) {
	if err := w.requireIntactLedger(); err != nil {
		return nil, err
	}
	p, err := propose.Build(w.ws, req, w.opts.Hooks)
	if err != nil {
		return nil, err
	}
	p.CreatedAt = w.now()
	p.ID = propose.ProposalID(p)
	err = w.withLedger(func(l *chain.File) error {
		if err := w.writeProposal(p); err != nil {
			return err
		}
		ev := w.event("propose", p)
		ev.Outcome = Outcome{Status: "proposed"}
		_, err := appendEvents(l, []any{ev})
		return err
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Proposal reads a stored proposal.
func (w *Workspace) Proposal(id string) (*propose.Proposal, error) {
	if err := checkID(id, "p"); err != nil {
		return nil, err
	}
	return w.readProposal(id)
}

// Assess assesses a stored proposal against its candidate, stores the
// assessment and records an assess event.
func (w *Workspace) Assess(id string) (*propose.Assessment, error) {
	p, err := w.Proposal(id)
	if err != nil {
		return nil, err
	}
	if err := w.requireIntactLedger(); err != nil {
		return nil, err
	}
	evs, err := w.Events()
	if err != nil {
		return nil, err
	}
	a := w.assess(p, evs)
	err = w.withLedger(func(l *chain.File) error { return w.recordAssessment(l, p, a) })
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (w *Workspace) assess(p *propose.Proposal, evs []Event) *propose.Assessment {
	return propose.Assess(w.ws, propose.AssessInput{
		Proposal: p, Cycle: cycleCounts(evs, p), Now: w.now(), AllowedPrograms: w.opts.AllowedPrograms,
	}, w.opts.Hooks)
}

func (w *Workspace) recordAssessment(l *chain.File, p *propose.Proposal, a *propose.Assessment) error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	if err := durable.WriteFileAtomic(filepath.Join(w.proposalDir(p.ID), "assessment.json"), append(b, '\n')); err != nil {
		return err
	}
	ev := w.event("assess", p)
	ev.Outcome = outcomeOf(a, "assessed")
	ev.BlastRadius = &a.BlastRadius
	ev.ParentHash, ev.CandidateHash, ev.DiffHash = a.ParentHash, a.CandidateHash, a.DiffHash
	_, err = appendEvents(l, []any{ev})
	return err
}

func outcomeOf(a *propose.Assessment, status string) Outcome {
	o := Outcome{Status: status, Verdict: a.Verdict, Confidence: a.Confidence}
	for _, r := range a.Reasons {
		if r.Level != "info" {
			o.Reasons = append(o.Reasons, r.Message)
		}
	}
	return o
}

// Assessment returns the stored assessment of a proposal, or nil.
func (w *Workspace) Assessment(id string) (*propose.Assessment, error) {
	if err := checkID(id, "p"); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(w.proposalDir(id), "assessment.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	a := &propose.Assessment{}
	if err := json.Unmarshal(b, a); err != nil {
		return nil, fmt.Errorf("assessment of %s: %v", id, err)
	}
	return a, nil
}

// Rerank reorders repair options by the ledger's learned preferences (see
// propose.Rerank). A workspace without a ledger leaves plans as they are.
func (w *Workspace) Rerank(plans []repair.Plan) []repair.Plan {
	evs, err := w.Events()
	if err != nil || len(evs) == 0 {
		return plans
	}
	return propose.Rerank(plans, SolutionStats(evs))
}

// VerifyLedger verifies the evolution ledger's chain (without locking, so
// it can run beside a commit). A missing ledger is empty and valid.
func (w *Workspace) VerifyLedger() (*chain.Report, error) {
	rep, err := chain.VerifyFile(w.LedgerPath())
	if errors.Is(err, fs.ErrNotExist) {
		return &chain.Report{OK: true, Head: chain.Head{Hash: chain.Genesis}}, nil
	}
	return rep, err
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
