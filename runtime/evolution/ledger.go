package evolution

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/runtime/chain"
)

// Schema is the version of the ledger's record payloads.
const Schema = 1

// Record types of the evolution ledger.
const (
	TypeEvent       = "evolution-event"
	TypeImprovement = "improvement-record"
	TypeSolution    = "solution"
)

// Event is one step of the workflow: kind propose, assess, commit or
// rollback. Its ID is "evt-" and the first 16 hex digits of the SHA-256 of
// the event's canonical JSON with an empty id.
type Event struct {
	Type   string `json:"type"`
	Schema int    `json:"schema"`
	ID     string `json:"id"`
	// Seq is the ledger record's sequence number (not stored; filled in
	// when reading).
	Seq  uint64 `json:"seq,omitempty"`
	Kind string `json:"kind"`
	Time string `json:"time"`
	// Proposal is the proposal's id.
	Proposal string `json:"proposal,omitempty"`
	By       string `json:"by,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Parent is the event this one follows in a file's lineage: for a
	// commit, the commit or rollback that produced its base; for a
	// rollback, the commit it undoes.
	Parent string      `json:"parent,omitempty"`
	Files  []EventFile `json:"files"`
	// Signals, Source and Repair come from the proposal.
	Signals       []string              `json:"signals"`
	Source        string                `json:"source,omitempty"`
	Repair        *propose.RepairSource `json:"repair,omitempty"`
	BlastRadius   *propose.BlastRadius  `json:"blast_radius,omitempty"`
	Outcome       Outcome               `json:"outcome"`
	Approvals     []string              `json:"approvals,omitempty"`
	ParentHash    string                `json:"parent_hash,omitempty"`
	CandidateHash string                `json:"candidate_hash,omitempty"`
	DiffHash      string                `json:"diff_hash,omitempty"`
	// RollbackPointer is, for a commit, the parent's semantic hash: what a
	// rollback returns to (its bytes are kept under .caps/objects).
	RollbackPointer string `json:"rollback_pointer,omitempty"`
	// RollsBack is, for a rollback, the commit it undoes.
	RollsBack string `json:"rolls_back,omitempty"`
	// Txn is the commit's journal id.
	Txn string `json:"txn,omitempty"`
}

// EventFile is one file of an event, before and after.
type EventFile struct {
	Path          string `json:"path"`
	ParentHash    string `json:"parent_hash,omitempty"`
	CandidateHash string `json:"candidate_hash,omitempty"`
	BeforeExists  bool   `json:"before_exists"`
	BeforeSHA256  string `json:"before_sha256"`
	AfterExists   bool   `json:"after_exists"`
	AfterSHA256   string `json:"after_sha256"`
}

// Outcome is an event's result.
type Outcome struct {
	// Status is proposed, assessed, committed or rolled-back.
	Status     string   `json:"status"`
	Verdict    string   `json:"verdict,omitempty"`
	Confidence float64  `json:"confidence,omitempty"`
	Reasons    []string `json:"reasons,omitempty"`
}

// ImprovementRecord is the ledger's evidence for one commit, in the shape
// of the language's (improvement-record ...) declaration.
type ImprovementRecord struct {
	Type              string            `json:"type"`
	Schema            int               `json:"schema"`
	Event             string            `json:"event"`
	Proposal          string            `json:"proposal"`
	ParentHash        string            `json:"parent_hash"`
	CandidateHash     string            `json:"candidate_hash"`
	DiffHash          string            `json:"diff_hash"`
	Objective         []string          `json:"objective,omitempty"`
	EvalResults       []NamedOutcome    `json:"eval_results"`
	ProofResults      []NamedOutcome    `json:"proof_results"`
	PolicyDecisions   []NamedOutcome    `json:"policy_decisions"`
	Approvals         []ApprovalRecord  `json:"approvals"`
	DeploymentOutcome DeploymentOutcome `json:"deployment_outcome"`
	RollbackPointer   string            `json:"rollback_pointer"`
}

// NamedOutcome is (eval-result SUITE OUTCOME) and its kin.
type NamedOutcome struct {
	Name    string `json:"name"`
	Outcome string `json:"outcome"`
}

// ApprovalRecord is (approval NAME DECISION BY).
type ApprovalRecord struct {
	Name     string `json:"name"`
	Decision string `json:"decision"`
	By       string `json:"by"`
}

// DeploymentOutcome is (deployment-outcome STAGE RESULT).
type DeploymentOutcome struct {
	Stage  string `json:"stage"`
	Result string `json:"result"`
}

// SolutionRecord records a repair that was committed: a reusable solution
// whose AssetID is the SHA-256 of the canonical JSON of Asset, so the same
// repair for the same signal always has the same id.
type SolutionRecord struct {
	Type        string              `json:"type"`
	Schema      int                 `json:"schema"`
	AssetID     string              `json:"asset_id"`
	Asset       Solution            `json:"asset"`
	Event       string              `json:"event"`
	Confidence  float64             `json:"confidence"`
	BlastRadius propose.BlastRadius `json:"blast_radius"`
	Outcome     string              `json:"outcome"`
}

// Solution is the content-addressed part of a SolutionRecord.
type Solution struct {
	Type     string   `json:"type"` // "Solution"
	Schema   int      `json:"schema"`
	Trigger  []string `json:"trigger"` // the diagnostic code and error signature
	Strategy Strategy `json:"strategy"`
	Summary  string   `json:"summary"`
}

// Strategy is how a solution changes a file.
type Strategy struct {
	Kind   string `json:"kind"` // "repair"
	Code   string `json:"code"`
	Option string `json:"option"`
	Safety string `json:"safety"`
}

// assetID computes a solution's id.
func assetID(s Solution) string {
	b, err := chain.CanonicalValue(s)
	if err != nil {
		panic(err)
	}
	return propose.SHA256(b)
}

// eventID computes an event's id from its content.
func eventID(ev Event) string {
	ev.ID, ev.Seq = "", 0
	b, err := chain.CanonicalValue(ev)
	if err != nil {
		panic(err)
	}
	return "evt-" + propose.SHA256(b)[7:23]
}

func (w *Workspace) event(kind string, p *propose.Proposal) Event {
	ev := Event{Type: TypeEvent, Schema: Schema, Kind: kind, Time: w.now(), Proposal: p.ID, By: p.By, Reason: p.Reason,
		Signals: p.Signals, Source: p.Source.Kind, Repair: p.Source.Repair}
	if ev.Signals == nil {
		ev.Signals = []string{}
	}
	for _, f := range p.Files {
		ev.Files = append(ev.Files, EventFile{Path: f.Path, BeforeExists: f.BaseExists, BeforeSHA256: f.BaseSHA256, AfterExists: true, AfterSHA256: f.CandidateSHA256})
	}
	return ev
}

// appendEvents fills in the ids of events and appends every record in
// one batch.
func appendEvents(l chain.Log, recs []any) ([]chain.Record, error) {
	var ps [][]byte
	for i, r := range recs {
		if ev, ok := r.(Event); ok {
			ev.ID = eventID(ev)
			recs[i] = ev
		}
		b, err := json.Marshal(recs[i])
		if err != nil {
			return nil, err
		}
		ps = append(ps, b)
	}
	return l.AppendBatch(ps)
}

// Events returns every event of the ledger, in order. It reads without
// locking.
func (w *Workspace) Events() ([]Event, error) {
	recs, err := chain.ReadFile(w.LedgerPath())
	if err != nil {
		return nil, err
	}
	return decodeEvents(recs)
}

func decodeEvents(recs []chain.Record) ([]Event, error) {
	var out []Event
	for _, r := range recs {
		ev, ok, err := decodeEvent(r)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, ev)
		}
	}
	return out, nil
}

// decodeEvent decodes a record's event; ok is false for the other record
// types.
func decodeEvent(r chain.Record) (ev Event, ok bool, err error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(r.Payload, &head); err != nil {
		return ev, false, fmt.Errorf("ledger record %d: %v", r.Seq, err)
	}
	if head.Type != TypeEvent {
		return ev, false, nil
	}
	if err := json.Unmarshal(r.Payload, &ev); err != nil {
		return ev, false, fmt.Errorf("ledger record %d: %v", r.Seq, err)
	}
	ev.Seq = r.Seq
	return ev, true, nil
}

// HistoryEvent is an event as History shows it.
type HistoryEvent struct {
	Event
	// Verified is false for an event recorded at or after the first
	// record that does not verify: the chain vouches for nothing from
	// there on.
	Verified bool `json:"verified"`
}

// historyEvents reads the ledger's events for History, whether or not its
// chain verifies, and the verification report. When the chain is broken,
// every event at or after the first bad record has Verified false, and a
// line that holds no readable event is skipped.
func (w *Workspace) historyEvents() ([]HistoryEvent, *chain.Report, error) {
	rep, err := w.VerifyLedger()
	if err != nil {
		return nil, nil, err
	}
	var recs []chain.Record
	if rep.OK {
		recs, err = chain.ReadFile(w.LedgerPath())
	} else {
		recs, err = readRecordsLoosely(w.LedgerPath())
	}
	if err != nil {
		return nil, nil, err
	}
	var out []HistoryEvent
	for i, r := range recs {
		ev, ok, err := decodeEvent(r)
		if err != nil && rep.OK {
			return nil, nil, err
		}
		if ok {
			out = append(out, HistoryEvent{Event: ev, Verified: rep.OK || i+1 < rep.Problem.Line})
		}
	}
	return out, rep, nil
}

// readRecordsLoosely reads every complete line of a ledger that does not
// verify as a record, without checking it: a line that is not even a
// record gets an empty payload, so that record i is still line i+1.
func readRecordsLoosely(path string) ([]chain.Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var out []chain.Record
	for _, ln := range lines {
		if !bytes.HasSuffix(ln, []byte("\n")) {
			break // an incomplete last line
		}
		var r struct {
			Seq     uint64          `json:"seq"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(ln, &r) != nil {
			r.Payload = nil
		}
		out = append(out, chain.Record{Seq: r.Seq, Payload: r.Payload})
	}
	return out, nil
}

// Records returns every ledger payload of the given type (events,
// improvement records or solutions) as raw JSON.
func (w *Workspace) Records(typ string) ([]json.RawMessage, error) {
	recs, err := chain.ReadFile(w.LedgerPath())
	if err != nil {
		return nil, err
	}
	var out []json.RawMessage
	for _, r := range recs {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(r.Payload, &head) == nil && head.Type == typ {
			out = append(out, r.Payload)
		}
	}
	return out, nil
}

func touches(ev Event, path string) bool {
	for _, f := range ev.Files {
		if f.Path == path {
			return true
		}
	}
	return false
}

// cycleCounts counts, per file of p, the proposals and assessed proposals
// since the file's last commit or rollback, p included.
func cycleCounts(evs []Event, p *propose.Proposal) map[string]propose.CycleCounts {
	out := map[string]propose.CycleCounts{}
	for _, f := range p.Files {
		start := 0
		for i, ev := range evs {
			if (ev.Kind == "commit" || ev.Kind == "rollback") && touches(ev, f.Path) {
				start = i + 1
			}
		}
		proposals := map[string]bool{p.ID: true}
		assessed := map[string]bool{p.ID: true}
		for _, ev := range evs[start:] {
			if !touches(ev, f.Path) {
				continue
			}
			switch ev.Kind {
			case "propose":
				proposals[ev.Proposal] = true
			case "assess":
				assessed[ev.Proposal] = true
			}
		}
		out[f.Path] = propose.CycleCounts{Proposals: len(proposals), Iterations: len(assessed)}
	}
	return out
}

// SolutionStats computes, from the events, every repair option's record
// per signal: commits, rollbacks and the success streak (see
// propose.SolutionStat), keyed by propose.SolutionKey.
func SolutionStats(evs []Event) map[string]propose.SolutionStat {
	rolledBack := map[string]bool{}
	for _, ev := range evs {
		if ev.Kind == "rollback" {
			rolledBack[ev.RollsBack] = true
		}
	}
	type entry struct {
		ids  []string
		kept []bool
	}
	byKey := map[string]*entry{}
	stats := map[string]propose.SolutionStat{}
	for _, ev := range evs {
		if ev.Kind != "commit" || ev.Repair == nil {
			continue
		}
		key := propose.SolutionKey(ev.Repair.Signal, ev.Repair.Option)
		e := byKey[key]
		if e == nil {
			e = &entry{}
			byKey[key] = e
		}
		e.ids = append(e.ids, ev.ID)
		e.kept = append(e.kept, !rolledBack[ev.ID])
		st := stats[key]
		st.Signal, st.Option = ev.Repair.Signal, ev.Repair.Option
		st.AssetID = assetID(solutionOf(ev.Repair))
		st.Commits++
		if rolledBack[ev.ID] {
			st.Rollbacks++
		}
		st.LastEvent = ev.ID
		stats[key] = st
	}
	for key, e := range byKey {
		st := stats[key]
		st.Streak = 0
		for i := len(e.kept) - 1; i >= 0 && e.kept[i]; i-- {
			st.Streak++
		}
		stats[key] = st
	}
	return stats
}

func solutionOf(r *propose.RepairSource) Solution {
	return Solution{Type: "Solution", Schema: Schema, Trigger: []string{r.Code, r.Signal},
		Strategy: Strategy{Kind: "repair", Code: r.Code, Option: r.Option, Safety: r.Safety},
		Summary:  fmt.Sprintf("repair %s with option %s", r.Code, r.Option)}
}

// History is the lineage of the workspace's files.
type History struct {
	// Ledger is the verification of the ledger's chain. When it is not
	// OK, the events from Ledger.Problem.Line on have Verified false.
	Ledger LedgerState   `json:"ledger"`
	Files  []FileHistory `json:"files"`
}

// LedgerState says whether the ledger's chain verifies, and if not, where
// it breaks.
type LedgerState struct {
	OK      bool           `json:"ok"`
	Problem *chain.Problem `json:"problem"`
}

// FileHistory is one file's events and its lineage tree.
type FileHistory struct {
	Path string `json:"path"`
	// Events lists every event touching the file, in ledger order.
	Events []HistoryEvent `json:"events"`
	// Lineage is the tree of commits and rollbacks: each node's children
	// are the events whose Parent it is.
	Lineage []*LineageNode `json:"lineage"`
}

// LineageNode is a commit or rollback in a lineage tree.
type LineageNode struct {
	Event    HistoryEvent   `json:"event"`
	Children []*LineageNode `json:"children"`
}

// History returns the lineage of one file (a path relative to the
// workspace or the current folder), or of every file when file is "".
// A ledger that does not verify still has a history: History.Ledger says
// where it breaks and the events from there on are marked unverified.
func (w *Workspace) History(file string) (*History, error) {
	evs, rep, err := w.historyEvents()
	if err != nil {
		return nil, err
	}
	want := ""
	if file != "" {
		rel, err := w.ws.Target(file)
		if err != nil {
			// A file that no longer exists may still have history.
			if rel2, err2 := w.ws.TargetRel(file); err2 == nil {
				rel = rel2
			} else {
				return nil, err
			}
		}
		want = rel
	}
	paths := map[string]bool{}
	for _, ev := range evs {
		for _, f := range ev.Files {
			if want == "" || f.Path == want {
				paths[f.Path] = true
			}
		}
	}
	h := &History{Ledger: LedgerState{OK: rep.OK, Problem: rep.Problem}, Files: []FileHistory{}}
	var sorted []string
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	for _, p := range sorted {
		fh := FileHistory{Path: p, Events: []HistoryEvent{}, Lineage: []*LineageNode{}}
		nodes := map[string]*LineageNode{}
		for _, ev := range evs {
			if !touches(ev.Event, p) {
				continue
			}
			fh.Events = append(fh.Events, ev)
			if ev.Kind != "commit" && ev.Kind != "rollback" {
				continue
			}
			n := &LineageNode{Event: ev, Children: []*LineageNode{}}
			nodes[ev.ID] = n
			if parent := nodes[ev.Parent]; parent != nil {
				parent.Children = append(parent.Children, n)
			} else {
				fh.Lineage = append(fh.Lineage, n)
			}
		}
		h.Files = append(h.Files, fh)
	}
	return h, nil
}
