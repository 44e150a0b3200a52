package evolution

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/internal/durable"
	"github.com/capsulang/caps/runtime/chain"
)

// crashHook, set by tests, is called at the named points of a commit so
// that a test can kill the process there.
var crashHook func(point string)

func crashPoint(p string) {
	if crashHook != nil {
		crashHook(p)
	}
}

// Commit writes a proposal's candidate files into the workspace and
// records the commit. It refuses (a *RefusedError) a proposal whose
// verdict is fail or incomplete, or needs-approval without the approvals
// required: each approval is NAME or ROLE:NAME, and a required role R is
// met by an approval R or R:NAME (a role-less requirement by any
// approval). Approvals meet approval requirements only, never missing
// evidence.
//
// When a target changed since the proposal was made, the proposal's diff
// is applied to the current file (strict context, see
// propose.FilePatch.Apply); if it does not apply the commit is refused as
// stale. A proposal is re-assessed when it was not assessed, or its files,
// the workspace policy or the evidence files (propose.EvidenceHash)
// changed since. A refused commit changes nothing: not the workspace, not
// the proposal's store, not the ledger.
//
// Writing is crash-safe: every new file is first written beside its target
// and synced, then a journal in .caps/txn/ marks the commit as decided,
// then the files are renamed over their targets and the ledger records
// appended. A crash before the journal leaves the old files; after it, the
// next command that opens the ledger finishes the commit. Each file is
// therefore always either its old or its new bytes, and the ledger always
// verifies.
func (w *Workspace) Commit(id string, approvals []string) (*Event, error) {
	if err := checkID(id, "p"); err != nil {
		return nil, err
	}
	var out *Event
	err := w.withLedger(func(l *chain.File) error {
		p, err := w.readProposal(id)
		if err != nil {
			return err
		}
		evs, err := decodeLog(l)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if ev.Kind == "commit" && ev.Proposal == id {
				return &RefusedError{Reason: fmt.Sprintf("proposal %s is already committed (%s)", id, ev.ID)}
			}
		}
		for _, f := range p.Files {
			if _, err := w.ws.TargetRel(f.Path); err != nil {
				return &RefusedError{Reason: err.Error()}
			}
		}
		rebased, err := w.rebase(p)
		if err != nil {
			return err
		}
		a, err := w.Assessment(id)
		if err != nil {
			return err
		}
		fresh := rebased || stale(a, p, w.ws)
		if fresh {
			a = w.assess(p, evs)
		}
		// A refused commit writes nothing: not the rebased proposal, not
		// the new assessment, not a ledger record.
		if err := checkVerdict(a, approvals); err != nil {
			return err
		}
		if rebased {
			if err := w.rewriteProposal(p); err != nil {
				return err
			}
		}
		if fresh {
			if err := w.recordAssessment(l, p, a); err != nil {
				return err
			}
			if evs, err = decodeLog(l); err != nil {
				return err
			}
		}
		ev, err := w.commit(l, p, a, approvals, evs)
		out = ev
		return err
	})
	return out, err
}

func decodeLog(l chain.Log) ([]Event, error) {
	recs, err := l.Records()
	if err != nil {
		return nil, err
	}
	return decodeEvents(recs)
}

// stale reports whether an assessment no longer describes the proposal:
// its files, the workspace policy or the evidence files changed since.
func stale(a *propose.Assessment, p *propose.Proposal, ws *propose.Workspace) bool {
	if a == nil || a.PolicyHash != ws.PolicyHash || len(a.Files) != len(p.Files) || a.EvidenceHash != propose.EvidenceHash(ws, p) {
		return true
	}
	for i, f := range p.Files {
		if a.Files[i].Path != f.Path || a.Files[i].BaseSHA256 != f.BaseSHA256 || a.Files[i].CandidateSHA256 != f.CandidateSHA256 {
			return true
		}
	}
	return false
}

// rebase moves a proposal onto the current files when they changed since
// it was made, in memory (the caller stores it). It reports whether it
// did.
func (w *Workspace) rebase(p *propose.Proposal) (bool, error) {
	changed := false
	type cur struct {
		b      []byte
		exists bool
	}
	live := make([]cur, len(p.Files))
	for i, f := range p.Files {
		b, exists, err := w.ws.ReadLive(f.Path)
		if err != nil {
			return false, err
		}
		live[i] = cur{b, exists}
		if exists != f.BaseExists || propose.SHA256(b) != f.BaseSHA256 {
			changed = true
		}
	}
	if !changed {
		return false, nil
	}
	var old []string
	for i := range p.Files {
		f := &p.Files[i]
		old = append(old, f.Path+"@"+f.BaseSHA256)
		l := live[i]
		if !l.exists || !f.BaseExists {
			return false, &RefusedError{Reason: fmt.Sprintf("stale: %s was created or deleted since proposal %s was made; propose again", f.Path, p.ID)}
		}
		if l.exists == f.BaseExists && bytes.Equal(l.b, f.Base) {
			continue
		}
		if bytes.Equal(l.b, f.Candidate) {
			return false, &RefusedError{Reason: fmt.Sprintf("stale: %s already holds the candidate of %s", f.Path, p.ID)}
		}
		fps, err := propose.ParsePatch([]byte(propose.UnifiedDiff(f.Path, f.Base, true, f.Candidate)))
		if err == nil && len(fps) == 1 {
			var out []byte
			if out, err = fps[0].Apply(l.b); err == nil {
				f.Base, f.Candidate = l.b, out
				f.BaseSHA256, f.CandidateSHA256 = propose.SHA256(l.b), propose.SHA256(out)
				continue
			}
		}
		return false, &RefusedError{Reason: fmt.Sprintf("stale: %s changed since proposal %s was made and its change no longer applies (%v); propose again", f.Path, p.ID, err)}
	}
	p.Rebased = append(p.Rebased, old...)
	return true, nil
}

// checkVerdict refuses a commit the assessment does not allow: a fail; an
// incomplete, whatever the approvals (an approval meets only an approval
// requirement, never missing evidence); and a needs-approval without every
// approval it needs. The refusal names each reason and each unmet
// requirement, one per line.
func checkVerdict(a *propose.Assessment, approvals []string) error {
	if a.Verdict == propose.Pass {
		return nil
	}
	var lines []string
	for _, r := range a.Reasons {
		// Governance failures are named by their unmet requirements.
		if r.Level == propose.Fail && r.Rule != "gate" && r.Rule != "successor-contract" {
			lines = append(lines, r.Message)
		}
	}
	unmet := unmetRequirements(a, approvals)
	for _, req := range unmet {
		line := req.String()
		if req.Status == propose.RuleApproval {
			line += "; approve with " + approveFlags(req.Roles)
		}
		lines = append(lines, line)
	}
	lines = append(lines, missingApprovals(a, approvals, unmet)...)
	if len(lines) == 0 {
		return nil
	}
	head := map[string]string{
		propose.Fail:          "the assessment failed",
		propose.Incomplete:    "evidence the module's governance requires is missing, and approvals cannot stand in for it",
		propose.NeedsApproval: "needs approval",
	}[a.Verdict]
	return &RefusedError{Reason: head + ":\n  " + strings.Join(lines, "\n  "), Assessment: a, Unmet: unmet}
}

// unmetRequirements returns the assessment's unmet governance requirements
// that the approvals do not meet: all but the approval requirements whose
// roles are all approved.
func unmetRequirements(a *propose.Assessment, approvals []string) []propose.Requirement {
	out := []propose.Requirement{}
	for _, req := range a.Unmet {
		if req.Status == propose.RuleApproval && approvedAll(req.Roles, approvals) {
			continue
		}
		out = append(out, req)
	}
	return out
}

// missingApprovals names the required approvals not given that no unmet
// requirement names already: role-less ones (an authority expansion, open
// holes) and any role not tied to a requirement.
func missingApprovals(a *propose.Assessment, approvals []string, unmet []propose.Requirement) []string {
	named := map[string]bool{}
	for _, req := range unmet {
		for _, r := range req.Roles {
			named[r] = true
		}
	}
	var out []string
	for _, need := range a.Approvals {
		if approved(need.Role, approvals) || named[need.Role] {
			continue
		}
		who := "a named approver (--approve NAME)"
		if need.Role != "" {
			who = "approval " + need.Role + " (" + approveFlags([]string{need.Role}) + ")"
		}
		out = append(out, fmt.Sprintf("%s: %s", who, need.Reason))
	}
	if a.Verdict == propose.NeedsApproval && len(a.Approvals) == 0 && len(approvals) == 0 {
		out = append(out, "a named approver (--approve NAME): the verdict is needs-approval")
	}
	return out
}

// approveFlags spells the --approve flags that meet the roles.
func approveFlags(roles []string) string {
	var fs []string
	for _, r := range roles {
		fs = append(fs, "--approve "+r+"[:NAME]")
	}
	return strings.Join(fs, " ")
}

// approvedAll reports whether every role is approved.
func approvedAll(roles []string, approvals []string) bool {
	for _, r := range roles {
		if !approved(r, approvals) {
			return false
		}
	}
	return len(roles) > 0
}

func approved(role string, approvals []string) bool {
	for _, a := range approvals {
		if a == "" {
			continue
		}
		if role == "" || a == role || strings.HasPrefix(a, role+":") {
			return true
		}
	}
	return false
}

// txn is the journal of a commit or rollback in progress.
type txn struct {
	ID    string    `json:"id"`
	State string    `json:"state"` // prepared, committed
	Files []txnFile `json:"files"`
	// Records are the ledger payloads to append; Event is the main one's
	// id (to see whether the append already happened).
	Records []json.RawMessage `json:"records"`
	Event   string            `json:"event"`
}

type txnFile struct {
	Path   string `json:"path"` // workspace-relative
	Tmp    string `json:"tmp"`  // workspace-relative; "" with Remove
	Remove bool   `json:"remove,omitempty"`
	After  string `json:"after_sha256"`
}

func (w *Workspace) txnPath(id string) string { return filepath.Join(w.meta, "txn", id+".json") }

func (w *Workspace) writeTxn(t *txn) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return durable.WriteFileAtomic(w.txnPath(t.ID), b)
}

// commit writes the files and the ledger records of an accepted proposal.
func (w *Workspace) commit(l *chain.File, p *propose.Proposal, a *propose.Assessment, approvals []string, evs []Event) (*Event, error) {
	ev := w.event("commit", p)
	ev.Outcome = outcomeOf(a, "committed")
	ev.BlastRadius = &a.BlastRadius
	ev.Approvals = approvals
	ev.ParentHash, ev.CandidateHash, ev.DiffHash = a.ParentHash, a.CandidateHash, a.DiffHash
	ev.RollbackPointer = a.ParentHash
	for i := range ev.Files {
		ev.Files[i].ParentHash = a.Files[i].ParentHash
		ev.Files[i].CandidateHash = a.Files[i].CandidateHash
	}
	ev.Parent = lineageParent(evs, ev.Files)
	ev.Txn = "t-" + randomHex(8)
	ev.ID = eventID(ev)

	files := make([]fileWrite, len(p.Files))
	for i, f := range p.Files {
		if f.BaseExists {
			if _, err := w.storeObject(f.Base); err != nil {
				return nil, err
			}
		}
		if _, err := w.storeObject(f.Candidate); err != nil {
			return nil, err
		}
		files[i] = fileWrite{path: f.Path, content: f.Candidate}
	}
	recs := []any{ev, w.improvementRecord(ev, p, a, approvals)}
	if p.Source.Repair != nil {
		s := solutionOf(p.Source.Repair)
		recs = append(recs, SolutionRecord{Type: TypeSolution, Schema: Schema, AssetID: assetID(s), Asset: s, Event: ev.ID,
			Confidence: a.Confidence, BlastRadius: a.BlastRadius, Outcome: "success"})
	}
	if err := w.apply(l, ev.Txn, ev.ID, files, recs); err != nil {
		return nil, err
	}
	return &ev, nil
}

type fileWrite struct {
	path    string
	content []byte // nil with remove
	remove  bool
}

// apply runs the journaled write of files and ledger records.
func (w *Workspace) apply(l *chain.File, txID, eventID string, files []fileWrite, recs []any) error {
	t := &txn{ID: txID, State: "prepared", Event: eventID}
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		t.Records = append(t.Records, b)
	}
	for _, f := range files {
		tf := txnFile{Path: f.path, Remove: f.remove, After: propose.SHA256(f.content)}
		if !f.remove {
			dir, base := filepath.Split(f.path)
			tf.Tmp = dir + "." + base + "." + txID + ".tmp"
		}
		t.Files = append(t.Files, tf)
	}
	if err := w.writeTxn(t); err != nil {
		return err
	}
	crashPoint("prepared")
	for i, f := range files {
		if f.remove {
			continue
		}
		if err := durable.WriteFile(w.ws.Abs(t.Files[i].Tmp), f.content); err != nil {
			w.abort(t)
			return err
		}
		crashPoint("temp-written")
	}
	t.State = "committed"
	if err := w.writeTxn(t); err != nil {
		w.abort(t)
		return err
	}
	crashPoint("decided")
	return w.finish(l, t)
}

// finish completes a decided transaction: renames, ledger, journal.
func (w *Workspace) finish(l *chain.File, t *txn) error {
	dirs := map[string]bool{}
	for _, f := range t.Files {
		target := w.ws.Abs(f.Path)
		dirs[filepath.Dir(target)] = true
		if f.Remove {
			if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		tmp := w.ws.Abs(f.Tmp)
		if _, err := os.Stat(tmp); errors.Is(err, fs.ErrNotExist) {
			continue // renamed before a crash
		}
		if err := os.Rename(tmp, target); err != nil {
			return err
		}
		crashPoint("renamed")
	}
	for d := range dirs {
		if err := durable.SyncDir(d); err != nil {
			return err
		}
	}
	// Append the records unless a crash came after the append.
	recs, err := l.Records()
	if err != nil {
		return err
	}
	done := false
	for i := len(recs) - 1; i >= 0 && i >= len(recs)-8; i-- {
		var head struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(recs[i].Payload, &head) == nil && head.ID == t.Event {
			done = true
		}
	}
	if !done {
		var ps [][]byte
		for _, r := range t.Records {
			ps = append(ps, r)
		}
		if _, err := l.AppendBatch(ps); err != nil {
			return err
		}
	}
	crashPoint("appended")
	if err := os.Remove(w.txnPath(t.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return durable.SyncDir(filepath.Dir(w.txnPath(t.ID)))
}

// abort removes a prepared transaction's temporary files and journal.
func (w *Workspace) abort(t *txn) {
	for _, f := range t.Files {
		if f.Tmp != "" {
			os.Remove(w.ws.Abs(f.Tmp))
		}
	}
	os.Remove(w.txnPath(t.ID))
}

// recoverTxns finishes decided transactions and drops prepared ones. It
// runs with the ledger locked.
func (w *Workspace) recoverTxns(l *chain.File) error {
	ents, err := os.ReadDir(filepath.Join(w.meta, "txn"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var names []string
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name(), "."):
			// A journal write that a crash cut short: the journal it was
			// to replace (if any) is still there.
			os.Remove(filepath.Join(w.meta, "txn", e.Name()))
		case strings.HasSuffix(e.Name(), ".json"):
			names = append(names, e.Name())
		}
	}
	// Proposal folders a crash left half-written.
	if ps, err := os.ReadDir(filepath.Join(w.meta, "proposals")); err == nil {
		for _, e := range ps {
			if strings.HasPrefix(e.Name(), ".tmp-") {
				os.RemoveAll(filepath.Join(w.meta, "proposals", e.Name()))
			}
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(w.meta, "txn", n))
		if err != nil {
			return err
		}
		t := &txn{}
		if err := json.Unmarshal(b, t); err != nil {
			return fmt.Errorf("journal %s: %v", n, err)
		}
		for _, f := range t.Files {
			// The journal is ours, but check its paths like a proposal's.
			if err := w.ws.CheckRel(f.Path); err != nil {
				return fmt.Errorf("journal %s: %v", n, err)
			}
		}
		if t.State != "committed" {
			w.abort(t)
			continue
		}
		if err := w.finish(l, t); err != nil {
			return err
		}
	}
	return nil
}

// lineageParent finds the last commit or rollback whose result is the
// first file's current base.
func lineageParent(evs []Event, files []EventFile) string {
	if len(files) == 0 {
		return ""
	}
	f := files[0]
	for i := len(evs) - 1; i >= 0; i-- {
		ev := evs[i]
		if ev.Kind != "commit" && ev.Kind != "rollback" {
			continue
		}
		for _, ef := range ev.Files {
			if ef.Path == f.Path && ef.AfterSHA256 == f.BeforeSHA256 && ef.AfterExists == f.BeforeExists {
				return ev.ID
			}
		}
	}
	return ""
}

// improvementRecord builds the ledger's improvement record of a commit.
func (w *Workspace) improvementRecord(ev Event, p *propose.Proposal, a *propose.Assessment, approvals []string) ImprovementRecord {
	r := ImprovementRecord{Type: TypeImprovement, Schema: Schema, Event: ev.ID, Proposal: p.ID,
		ParentHash: a.ParentHash, CandidateHash: a.CandidateHash, DiffHash: a.DiffHash,
		EvalResults: []NamedOutcome{}, ProofResults: []NamedOutcome{}, PolicyDecisions: []NamedOutcome{}, Approvals: []ApprovalRecord{},
		DeploymentOutcome: DeploymentOutcome{Stage: "workspace", Result: "committed"}, RollbackPointer: a.ParentHash}
	for _, s := range a.Governance.EvalSuites {
		r.EvalResults = append(r.EvalResults, NamedOutcome{Name: s.Name, Outcome: s.Status})
	}
	if len(r.EvalResults) == 0 {
		r.EvalResults = append(r.EvalResults, NamedOutcome{Name: "examples", Outcome: a.Tests.Examples.Status})
	}
	for _, g := range a.Governance.Gates {
		out := g.Status
		if out == "incomplete" {
			out = "approved"
		}
		r.PolicyDecisions = append(r.PolicyDecisions, NamedOutcome{Name: g.Name, Outcome: out})
	}
	r.PolicyDecisions = append(r.PolicyDecisions, NamedOutcome{Name: "verdict", Outcome: a.Verdict})
	for _, ap := range approvals {
		role, who, ok := strings.Cut(ap, ":")
		if !ok {
			who = ap
		}
		r.Approvals = append(r.Approvals, ApprovalRecord{Name: role, Decision: "approved", By: who})
	}
	return r
}

// Rollback restores the files of a commit to their bytes before it and
// records a rollback event. It refuses when a file changed since the
// commit (roll back the later change first) or the commit was already
// rolled back.
func (w *Workspace) Rollback(evID, by string) (*Event, error) {
	if err := checkID(evID, "evt"); err != nil {
		return nil, err
	}
	var out *Event
	err := w.withLedger(func(l *chain.File) error {
		evs, err := decodeLog(l)
		if err != nil {
			return err
		}
		var target *Event
		for i := range evs {
			if evs[i].ID == evID {
				target = &evs[i]
			}
			if evs[i].Kind == "rollback" && evs[i].RollsBack == evID {
				return &RefusedError{Reason: fmt.Sprintf("%s was already rolled back by %s", evID, evs[i].ID)}
			}
		}
		if target == nil {
			return fmt.Errorf("no event %s in the ledger", evID)
		}
		if target.Kind != "commit" {
			return &RefusedError{Reason: fmt.Sprintf("%s is a %s event; only commits can be rolled back", evID, target.Kind)}
		}
		ev := Event{Type: TypeEvent, Schema: Schema, Kind: "rollback", Time: w.now(), Proposal: target.Proposal, By: by,
			Reason: "rollback of " + evID, Parent: evID, RollsBack: evID, Signals: target.Signals,
			Outcome: Outcome{Status: "rolled-back"}, ParentHash: target.CandidateHash, CandidateHash: target.ParentHash,
			RollbackPointer: target.CandidateHash, Source: target.Source}
		if ev.By == "" {
			ev.By = "anonymous"
		}
		var files []fileWrite
		for _, f := range target.Files {
			if _, err := w.ws.TargetRel(f.Path); err != nil {
				return &RefusedError{Reason: err.Error()}
			}
			live, exists, err := w.ws.ReadLive(f.Path)
			if err != nil {
				return err
			}
			if exists != f.AfterExists || propose.SHA256(live) != f.AfterSHA256 {
				later := ""
				for _, e := range evs {
					if e.Seq > target.Seq && (e.Kind == "commit" || e.Kind == "rollback") && touches(e, f.Path) {
						later = " (changed by " + e.ID + ")"
					}
				}
				return &RefusedError{Reason: fmt.Sprintf("%s changed since %s%s; roll back the later change first", f.Path, evID, later)}
			}
			fw := fileWrite{path: f.Path, remove: !f.BeforeExists}
			if f.BeforeExists {
				if fw.content, err = w.readObject(f.BeforeSHA256); err != nil {
					return err
				}
			}
			files = append(files, fw)
			ev.Files = append(ev.Files, EventFile{Path: f.Path, ParentHash: f.CandidateHash, CandidateHash: f.ParentHash,
				BeforeExists: f.AfterExists, BeforeSHA256: f.AfterSHA256, AfterExists: f.BeforeExists, AfterSHA256: f.BeforeSHA256})
		}
		ev.Txn = "t-" + randomHex(8)
		ev.ID = eventID(ev)
		if err := w.apply(l, ev.Txn, ev.ID, files, []any{ev}); err != nil {
			return err
		}
		out = &ev
		return nil
	})
	return out, err
}
