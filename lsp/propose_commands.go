package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/runtime/evolution"
)

// The propose workflow in the editor. Proposals are made against the saved
// file (a dirty buffer is refused), committed through runtime/evolution
// (atomic write + ledger), and the committed text is then applied to the
// open buffer with workspace/applyEdit so that the editor's undo stack and
// the ledger agree. Rollback does the same in reverse.
func init() {
	commands["capsulang.propose"] = proposeCommand
	commands["capsulang.assess"] = assessCommand
	commands["capsulang.commit"] = commitCommand
	commands["capsulang.rollback"] = rollbackCommand
}

// workspaceFor opens the evolution workspace holding a file: the nearest
// folder with .caps/ or .git/, else the first workspace folder.
func (s *Server) workspaceFor(path string) (*evolution.Workspace, error) {
	root, err := propose.FindRoot(filepath.Dir(path))
	if err != nil {
		s.mu.Lock()
		folders := s.folders
		s.mu.Unlock()
		if len(folders) == 0 {
			return nil, rpcError(errRequestFailed, "no workspace: the file is not under a folder with .caps/ or .git/ and no workspace folder is open")
		}
		root = folders[0]
	}
	return evolution.Open(root, evolution.Options{})
}

func failed(err error) error {
	var re *evolution.RefusedError
	if errors.As(err, &re) {
		return rpcWrap(errRequestFailed, fmt.Errorf("refused: %w", err))
	}
	return rpcWrap(errRequestFailed, err)
}

type proposeArgs struct {
	URI protocol.DocumentURI `json:"uri"`
	// With Code and Line: propose a repair option of that diagnostic
	// (against the saved file). Without: propose the buffer's current text
	// as the successor of the saved file.
	Code   string `json:"code,omitempty"`
	Line   int    `json:"line,omitempty"` // 1-based, as propose.RepairRef
	Option string `json:"option,omitempty"`
	By     string `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func proposeCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a proposeArgs
	sn, err := s.commandSnapshot(raw, &a, &a.URI)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) {
		w, err := s.workspaceFor(sn.path)
		if err != nil {
			return nil, err
		}
		by := a.By
		if by == "" {
			by = "editor"
		}
		req := propose.Request{Targets: []string{sn.path}, By: by, Reason: a.Reason}
		if a.Code != "" {
			disk, err := os.ReadFile(sn.path)
			if err != nil || !bytes.Equal(disk, sn.cst.Src) {
				return nil, rpcError(errRequestFailed, "save the file first: a repair is proposed against the saved file")
			}
			req.Kind, req.Repair = propose.FromRepair, &propose.RepairRef{Code: a.Code, Line: a.Line, Option: a.Option}
		} else {
			req.Kind, req.Candidate = propose.FromCandidate, append([]byte(nil), sn.cst.Src...)
		}
		done := s.progress("Proposing and assessing")
		defer done()
		p, err := w.Propose(req)
		if err != nil {
			return nil, failed(err)
		}
		as, err := w.Assess(p.ID)
		if err != nil {
			return nil, failed(err)
		}
		view := assessmentView(w, as)
		view["id"], view["assessment"] = p.ID, as
		view["parentHash"], view["candidateHash"] = as.ParentHash, as.CandidateHash
		return view, nil
	}, nil
}

// assessmentView is an assessment as `caps assess --json` prints it plus
// the fields editor clients render: proposal, findings, authority, diff,
// summary.
func assessmentView(w *evolution.Workspace, as *propose.Assessment) map[string]any {
	b, _ := json.Marshal(as)
	var view map[string]any
	json.Unmarshal(b, &view)
	findings := []map[string]any{}
	for _, r := range as.Reasons {
		sev := map[string]string{propose.Fail: "error", propose.Incomplete: "error", propose.NeedsApproval: "warning"}[r.Level]
		if sev == "" {
			sev = "info"
		}
		findings = append(findings, map[string]any{"severity": sev, "message": r.Message, "code": r.Rule})
	}
	item := func(it propose.AuthorityItem) string {
		s := it.Kind + " " + it.Name
		if it.In != "" && it.In != "module" {
			s += " in " + it.In
		}
		return s
	}
	added, removed := []string{}, []string{}
	for _, it := range as.AuthorityDelta.Added {
		added = append(added, item(it))
	}
	for _, it := range as.AuthorityDelta.Removed {
		removed = append(removed, item(it))
	}
	diff, _ := os.ReadFile(filepath.Join(w.Root(), ".caps", "proposals", as.ID, "change.diff"))
	summary := "verdict " + as.Verdict
	if len(as.Reasons) > 0 {
		summary += ": " + as.Reasons[0].Message
	}
	view["proposal"], view["findings"] = as.ID, findings
	view["authority"] = map[string]any{"added": added, "removed": removed}
	view["diff"], view["summary"] = string(diff), summary
	return view
}

// proposalRef reads a proposal id given as "id" or "proposal".
type proposalRef struct {
	URI      protocol.DocumentURI `json:"uri"`
	ID       string               `json:"id"`
	Proposal string               `json:"proposal"`
	Approve  []string             `json:"approve,omitempty"`
}

func (r proposalRef) id() string {
	if r.ID != "" {
		return r.ID
	}
	return r.Proposal
}

func assessCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a proposalRef
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) {
		w, err := s.workspaceFor(uriPath(a.URI))
		if err != nil {
			return nil, err
		}
		done := s.progress("Assessing proposal " + a.id())
		defer done()
		as, err := w.Assess(a.id())
		if err != nil {
			return nil, failed(err)
		}
		return assessmentView(w, as), nil
	}, nil
}

func commitCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a proposalRef
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) {
		w, err := s.workspaceFor(uriPath(a.URI))
		if err != nil {
			return nil, err
		}
		ev, err := w.Commit(a.id(), a.Approve)
		if err != nil {
			return nil, failed(err)
		}
		applied := s.syncBuffers(ctx, w.Root(), ev, "Commit "+a.id())
		return map[string]any{"event_id": ev.ID, "commit": ev.ID, "proposal": a.id(), "applied": applied,
			"message": fmt.Sprintf("recorded in %s", filepath.Base(w.LedgerPath()))}, nil
	}, nil
}

func rollbackCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a struct {
		URI     protocol.DocumentURI `json:"uri"`
		EventID string               `json:"event_id"`
		To      string               `json:"to"`
		By      string               `json:"by,omitempty"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) {
		path := uriPath(a.URI)
		w, err := s.workspaceFor(path)
		if err != nil {
			return nil, err
		}
		id := a.EventID
		if id == "" {
			id = a.To
		}
		if id == "" {
			// the file's last commit that has not been rolled back
			id, err = lastCommit(w, path)
			if err != nil {
				return nil, err
			}
		}
		by := a.By
		if by == "" {
			by = "editor"
		}
		ev, err := w.Rollback(id, by)
		if err != nil {
			return nil, failed(err)
		}
		applied := s.syncBuffers(ctx, w.Root(), ev, "Roll back "+id)
		return map[string]any{"event_id": ev.ID, "commit": ev.ID, "applied": applied, "message": "rolled back " + id}, nil
	}, nil
}

// lastCommit finds the newest commit of a file not yet rolled back.
func lastCommit(w *evolution.Workspace, path string) (string, error) {
	evs, err := w.Events()
	if err != nil {
		return "", failed(err)
	}
	rel, err := filepath.Rel(w.Root(), path)
	if err != nil {
		return "", failed(err)
	}
	rel = filepath.ToSlash(rel)
	undone := map[string]bool{}
	for _, e := range evs {
		if e.Kind == "rollback" {
			undone[e.RollsBack] = true
		}
	}
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		if e.Kind != "commit" || undone[e.ID] {
			continue
		}
		for _, f := range e.Files {
			if f.Path == rel {
				return e.ID, nil
			}
		}
	}
	return "", rpcError(errRequestFailed, "no commit of this file to roll back")
}

// syncBuffers applies the files an event wrote to the editor's open
// buffers through workspace/applyEdit. It reports whether the client
// applied every edit (true when no file was open).
func (s *Server) syncBuffers(ctx context.Context, root string, ev *evolution.Event, label string) bool {
	changes := map[protocol.DocumentURI][]protocol.TextEdit{}
	for _, f := range ev.Files {
		path := filepath.Join(root, filepath.FromSlash(f.Path))
		u := protocol.DocumentURI(uri.File(path))
		sn, err := s.snapshotOf(u)
		if err != nil {
			continue // not open
		}
		after, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if edits := minimalEdit(sn, sn.cst.Src, after); len(edits) > 0 {
			changes[u] = edits
		}
	}
	if len(changes) == 0 {
		return true
	}
	var res struct {
		Applied bool `json:"applied"`
	}
	_, err := s.conn.Call(ctx, "workspace/applyEdit", &protocol.ApplyWorkspaceEditParams{Label: label, Edit: protocol.WorkspaceEdit{Changes: changes}}, &res)
	if err != nil || !res.Applied {
		s.showMessage(protocol.MessageTypeWarning, fmt.Sprintf("Capsulang: %s was written to disk and recorded, but the editor did not apply it to the open buffer; reload the file", label))
		return false
	}
	return true
}
