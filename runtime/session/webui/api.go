package webui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/codegen/mermaid"
	"github.com/capsulang/caps/codegen/protocol"
	"github.com/capsulang/caps/runtime/session"
	"github.com/capsulang/caps/runtime/session/bridge"
	"github.com/capsulang/caps/syntax/ast"
)

// SessionInfo is one session of the workspace in /api/workspace.
type SessionInfo struct {
	ID      string `json:"id"`
	Target  string `json:"target,omitempty"`
	Steps   int    `json:"steps"`
	Current bool   `json:"current"`
	Problem string `json:"problem,omitempty"`
}

// WorkspaceView answers GET /api/workspace.
type WorkspaceView struct {
	Root     string        `json:"root"`
	Sessions []SessionInfo `json:"sessions"`
	Current  string        `json:"current"`
	// Model is OPENAI_MODEL; Bridge is "" when describe can reach a
	// model, or what is missing.
	Model  string `json:"model"`
	Bridge string `json:"bridge"`
}

func (s *Server) workspace(r *http.Request) (any, error) {
	v := WorkspaceView{Root: s.w.Root(), Sessions: []SessionInfo{}}
	list, cur, err := s.store.Sessions()
	if err != nil {
		return nil, err
	}
	v.Current = cur
	for _, e := range list {
		v.Sessions = append(v.Sessions, SessionInfo{ID: e.ID, Current: e.Current, Target: e.Target, Steps: e.Steps, Problem: e.Problem})
	}
	cfg, err := bridge.FromEnv(s.cfg.Getenv)
	v.Model = cfg.Model
	if err != nil {
		v.Bridge = err.Error()
	}
	return v, nil
}

// MachineView is a machine of the session's source: its graph (drawn as
// an SVG whose elements carry data-state and data-transition attributes
// for highlighting), its events, and the Mermaid text of caps visualize.
type MachineView struct {
	Name        string           `json:"name"`
	Initial     string           `json:"initial"`
	States      []StateView      `json:"states"`
	Transitions []TransitionView `json:"transitions"`
	Events      []EventView      `json:"events"`
	Mermaid     string           `json:"mermaid"`
	SVG         string           `json:"svg"`
}

// StateView is a state of a machine.
type StateView struct {
	Name  string `json:"name"`
	Final bool   `json:"final"`
}

// TransitionView is a transition: FROM --EVENT--> TO.
type TransitionView struct {
	ID      string `json:"id"` // FROM/EVENT/TO, the diagram's data-transition
	From    string `json:"from"`
	Event   string `json:"event"`
	To      string `json:"to"`
	Guarded bool   `json:"guarded"`
	Effects int    `json:"effects"`
}

// EventView is an event and its payload fields.
type EventView struct {
	Name   string      `json:"name"`
	Fields []FieldView `json:"fields"`
}

// FieldView is a typed field.
type FieldView struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// SessionView answers the session calls: the session, its merged delta,
// its holes, the synthesized source checked as the target file, and the
// machines and surfaces of that source.
type SessionView struct {
	Session      string          `json:"session"`
	Target       string          `json:"target"`
	BaseExists   bool            `json:"base_exists"`
	Step         int             `json:"step"`
	Steps        []session.Step  `json:"steps"`
	Head         string          `json:"head"`
	Delta        json.RawMessage `json:"delta"`
	Holes        []session.Hole  `json:"holes"`
	Source       string          `json:"source"`
	SourceSHA256 string          `json:"source_sha256"`
	*checked
	Machines []MachineView `json:"machines"`
	Surfaces []string      `json:"surfaces"`
	// Proposal is the proposal the session ended in, if any.
	Proposal string `json:"proposal,omitempty"`
	// Applied is the step the call added, if any.
	Applied *session.Step `json:"applied,omitempty"`
}

func (s *Server) open(r *http.Request) (*session.Session, error) {
	return s.store.Open(r.PathValue("id"))
}

func (s *Server) view(ss *session.Session, applied *session.Step) *SessionView {
	src := ss.Source()
	v := &SessionView{
		Session: ss.ID(), Target: ss.Meta.Target, BaseExists: ss.Meta.BaseExists, Step: len(ss.Steps),
		Steps: orEmpty(ss.Steps), Head: ss.Head(), Delta: ss.DeltaJSON(), Holes: orEmpty(ss.Holes()),
		Source: string(src), SourceSHA256: propose.SHA256(src), Machines: []MachineView{}, Surfaces: []string{}, Applied: applied,
	}
	for _, st := range ss.Steps {
		if st.Kind == session.KindPropose {
			v.Proposal = st.Proposal
		}
	}
	v.checked = s.checkSource(ss.TargetPath(), src)
	res := v.pkg.Result
	if res != nil && res.File != nil && res.File.Module != nil {
		for _, d := range res.File.Module.Decls {
			if m, ok := d.(*ast.Machine); ok {
				v.Machines = append(v.Machines, machineView(m, src))
			}
		}
		v.Surfaces = orEmpty(protocol.SurfaceNames(res))
	}
	return v
}

func machineView(m *ast.Machine, src []byte) MachineView {
	mv := MachineView{Name: m.Name.Name, Initial: m.Initial.Name, States: []StateView{}, Transitions: []TransitionView{}, Events: []EventView{}, Mermaid: mermaid.StateDiagram(m)}
	for _, st := range m.States {
		mv.States = append(mv.States, StateView{Name: st.Name.Name, Final: st.Final})
		for _, t := range st.Transitions {
			mv.Transitions = append(mv.Transitions, TransitionView{
				ID:   transitionID(st.Name.Name, t.Event.Name, t.Target.Name),
				From: st.Name.Name, Event: t.Event.Name, To: t.Target.Name, Guarded: t.Guard != nil, Effects: len(t.Effects),
			})
		}
	}
	for _, e := range m.Events {
		ev := EventView{Name: e.Name.Name, Fields: []FieldView{}}
		for _, f := range e.Fields {
			typ := ""
			if f.Type != nil && f.Type.Span().End <= len(src) && f.Type.Span().Start <= f.Type.Span().End {
				typ = string(src[f.Type.Span().Start:f.Type.Span().End])
			}
			ev.Fields = append(ev.Fields, FieldView{Name: f.Name.Name, Type: typ})
		}
		mv.Events = append(mv.Events, ev)
	}
	mv.SVG = diagramSVG(mv)
	return mv
}

func transitionID(from, event, to string) string { return from + "/" + event + "/" + to }

type newSessionReq struct {
	Target string `json:"target"`
	ID     string `json:"id"`
	By     string `json:"by"`
}

func (s *Server) newSession(r *http.Request) (any, error) {
	var req newSessionReq
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Target) == "" {
		return nil, badRequest(`"target" is required: the module file the session writes, relative to the workspace (e.g. "triage.caps")`)
	}
	if rel := filepath.Clean(filepath.FromSlash(req.Target)); filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, badRequest("%q is not inside the workspace: give a path relative to %s, such as refund.caps", req.Target, s.w.Root())
	}
	ss, err := s.store.New(s.targetAbs(req.Target), req.ID, s.by(req.By))
	if err != nil {
		return nil, err
	}
	return s.view(ss, nil), nil
}

func (s *Server) getSession(r *http.Request) (any, error) {
	ss, err := s.open(r)
	if err != nil {
		return nil, err
	}
	return s.view(ss, nil), nil
}

type describeReq struct {
	Text string `json:"text"`
	By   string `json:"by"`
}

func (s *Server) describe(r *http.Request) (any, error) {
	var req describeReq
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Text) == "" {
		return nil, badRequest(`"text" is empty: describe what the module should do`)
	}
	cfg, err := bridge.FromEnv(s.cfg.Getenv)
	if err != nil {
		return nil, &apiError{Status: http.StatusServiceUnavailable, Kind: "no-model", Msg: err.Error() + "; or paste an AuthoringDelta instead"}
	}
	cfg.Timeout = s.cfg.Timeout
	ss, err := s.open(r)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout+5e9)
	defer cancel()
	st, err := ss.Describe(ctx, cfg, req.Text, req.By)
	if err != nil {
		return nil, err
	}
	return s.view(ss, st), nil
}

type applyReq struct {
	Delta json.RawMessage `json:"delta"`
	By    string          `json:"by"`
}

func (s *Server) apply(r *http.Request) (any, error) {
	var req applyReq
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if len(req.Delta) == 0 || string(req.Delta) == "null" {
		return nil, badRequest(`"delta" is required: an AuthoringDelta object (docs/schemas/authoring-delta.v1.schema.json)`)
	}
	ss, err := s.open(r)
	if err != nil {
		return nil, err
	}
	st, err := ss.Apply(session.DeltaInput{JSON: req.Delta, By: s.by(req.By)})
	if err != nil {
		return nil, err
	}
	return s.view(ss, st), nil
}

type resolveReq struct {
	Hole   string `json:"hole"`
	Answer string `json:"answer"`
	By     string `json:"by"`
}

func (s *Server) resolve(r *http.Request) (any, error) {
	var req resolveReq
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Hole) == "" {
		return nil, badRequest(`"hole" is required: a hole's id (h1) or its question`)
	}
	ss, err := s.open(r)
	if err != nil {
		return nil, err
	}
	st, err := ss.Resolve(req.Hole, req.Answer, s.by(req.By))
	if err != nil {
		return nil, err
	}
	return s.view(ss, st), nil
}

type checkReq struct {
	Path   string `json:"path"`
	Source string `json:"source"`
}

// CheckView answers POST /api/check.
type CheckView struct {
	Path string `json:"path"`
	*checked
}

func (s *Server) check(r *http.Request) (any, error) {
	var req checkReq
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if req.Path == "" {
		req.Path = "scratch.caps"
	}
	if !strings.HasSuffix(req.Path, ".caps") {
		return nil, badRequest(`"path" must name a .caps file, not %q`, req.Path)
	}
	return CheckView{Path: req.Path, checked: s.checkSource(s.targetAbs(req.Path), []byte(req.Source))}, nil
}

type proposeReq struct {
	By     string `json:"by"`
	Reason string `json:"reason"`
}

// ProposalView answers POST /api/sessions/ID/propose.
type ProposalView struct {
	ID        string         `json:"id"`
	Session   string         `json:"session"`
	Files     []ProposalFile `json:"files"`
	OpenHoles []string       `json:"open_holes"`
}

// ProposalFile is one file of a proposal and its line counts.
type ProposalFile struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

func (s *Server) propose(r *http.Request) (any, error) {
	var req proposeReq
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	ss, err := s.open(r)
	if err != nil {
		return nil, err
	}
	p, err := ss.Propose(s.w, s.by(req.By), req.Reason)
	if err != nil {
		return nil, err
	}
	v := ProposalView{ID: p.ID, Session: ss.ID(), Files: []ProposalFile{}, OpenHoles: orEmpty(p.OpenHoles)}
	for _, f := range p.Files {
		add, rem := propose.LineStats(f.Base, f.Candidate)
		v.Files = append(v.Files, ProposalFile{Path: f.Path, Added: add, Removed: rem})
	}
	return v, nil
}

var proposalIDRE = regexp.MustCompile(`^p-[0-9a-f]{16}$`)

// proposalID checks the proposal id of the request: well formed, and a
// proposal of the workspace.
func (s *Server) proposalID(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if !proposalIDRE.MatchString(id) {
		return "", badRequest("%q is not a proposal id: p- and 16 hexadecimal digits, as propose answers", id)
	}
	if _, err := s.w.Proposal(id); err != nil {
		if _, serr := os.Stat(filepath.Join(s.w.Root(), propose.MetaDir, "proposals", id)); errors.Is(serr, fs.ErrNotExist) {
			return "", &apiError{Status: http.StatusNotFound, Kind: "not-found", Msg: fmt.Sprintf("no proposal %s in this workspace: propose the session first", id)}
		}
		return "", err
	}
	return id, nil
}

func (s *Server) assess(r *http.Request) (any, error) {
	if err := decode(r, &struct{}{}); err != nil {
		return nil, err
	}
	id, err := s.proposalID(r)
	if err != nil {
		return nil, err
	}
	return s.w.Assess(id)
}

type commitReq struct {
	Approvals []string `json:"approvals"`
}

// CommitView answers POST /api/proposals/ID/commit.
type CommitView struct {
	Event     string   `json:"event"`
	Proposal  string   `json:"proposal"`
	Files     []string `json:"files"`
	Approvals []string `json:"approvals"`
	Undo      string   `json:"undo"`
}

func (s *Server) commit(r *http.Request) (any, error) {
	var req commitReq
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	var approvals []string
	for _, a := range req.Approvals {
		if a = strings.TrimSpace(a); a != "" {
			approvals = append(approvals, a)
		}
	}
	id, err := s.proposalID(r)
	if err != nil {
		return nil, err
	}
	ev, err := s.w.Commit(id, approvals)
	if err != nil {
		return nil, err
	}
	v := CommitView{Event: ev.ID, Proposal: ev.Proposal, Files: []string{}, Approvals: orEmpty(ev.Approvals), Undo: "caps rollback " + ev.ID}
	for _, f := range ev.Files {
		v.Files = append(v.Files, f.Path)
	}
	sort.Strings(v.Files)
	return v, nil
}

// sourceOf opens the session of the request and checks its source; a
// source with errors cannot be run or rendered.
func (s *Server) sourceOf(r *http.Request, what string) (*session.Session, *checked, error) {
	ss, err := s.open(r)
	if err != nil {
		return nil, nil, err
	}
	c := s.checkSource(ss.TargetPath(), ss.Source())
	if c.pkg.File.Module == nil {
		return nil, nil, &apiError{Status: http.StatusConflict, Kind: "not-checked", Msg: fmt.Sprintf("session %s has no module yet: describe it or apply a delta first", ss.ID())}
	}
	if c.Errors > 0 {
		return nil, nil, &apiError{Status: http.StatusConflict, Kind: "not-checked", Msg: fmt.Sprintf("%s has %d error(s); fix them before %s", ss.Meta.Target, c.Errors, what)}
	}
	return ss, c, nil
}
