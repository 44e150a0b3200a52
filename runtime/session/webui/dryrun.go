package webui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/capsulang/caps/codegen/protocol"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/machinerun"
)

// MaxDryRunEvents bounds the events of one dry run.
const MaxDryRunEvents = 1000

type dryRunReq struct {
	Machine string `json:"machine"`
	Events  []struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	} `json:"events"`
}

// DryRunView answers POST /api/sessions/ID/dryrun: a fresh dry-run
// instance of the machine stepped through the events by
// runtime/machinerun, as caps machine-run --mode dry-run steps them
// (effects are planned, never executed; payload fields left out get zero
// values and are listed as defaulted).
type DryRunView struct {
	Machine string `json:"machine"`
	Initial string `json:"initial"`
	// State and Status are where the instance is after the last step.
	State   string          `json:"state"`
	Status  string          `json:"status"`
	Context json.RawMessage `json:"context"`
	Steps   []DryStep       `json:"steps"`
	// Blocked is set when an event failed; later events were not sent.
	Blocked bool `json:"blocked"`
	// Next lists the events the state has transitions for.
	Next []string `json:"next"`
}

// DryStep is one step of a dry run.
type DryStep struct {
	Event      string          `json:"event"`
	From       string          `json:"from"`
	To         string          `json:"to"`
	Transition string          `json:"transition,omitempty"`
	Accepted   bool            `json:"accepted"`
	Defaulted  []string        `json:"defaulted"`
	Effects    []DryEffect     `json:"effects"`
	Context    json.RawMessage `json:"context"`
	Error      string          `json:"error,omitempty"`
	Code       string          `json:"code,omitempty"`
}

// DryEffect is an effect intent of a step and its dry-run status.
type DryEffect struct {
	Effect string `json:"effect"`
	Target string `json:"target,omitempty"`
	Status string `json:"status"`
}

func (s *Server) dryRun(r *http.Request) (any, error) {
	var req dryRunReq
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if len(req.Events) > MaxDryRunEvents {
		return nil, badRequest("%d events: a dry run takes at most %d", len(req.Events), MaxDryRunEvents)
	}
	_, c, err := s.sourceOf(r, "a dry run")
	if err != nil {
		return nil, err
	}
	res := c.pkg.Result
	names := machine.Names(res)
	if req.Machine == "" {
		if len(names) == 0 {
			return nil, &apiError{Status: http.StatusConflict, Kind: "not-found", Msg: "the module declares no machine"}
		}
		req.Machine = names[0]
	}
	found := false
	for _, n := range names {
		found = found || n == req.Machine
	}
	if !found {
		msg := fmt.Sprintf("the module has no machine %q", req.Machine)
		if len(names) > 0 {
			msg += "; its machines are " + strings.Join(names, ", ")
		}
		return nil, &apiError{Status: http.StatusNotFound, Kind: "not-found", Msg: msg}
	}
	m, err := machine.Compile(res, req.Machine, machine.Options{Hash: c.pkg.Hash})
	if err != nil {
		return nil, err
	}
	run, err := machinerun.Start(c.pkg, c.pkg.Path, m, machinerun.Options{Mode: machine.DryRun})
	if err != nil {
		return nil, err
	}
	defer run.Close()
	inst, ctx := run.Instance(), r.Context()
	mv := machineView(findMachineDecl(res.File.Module.Decls, req.Machine), c.pkg.Src)
	v := &DryRunView{Machine: req.Machine, Initial: mv.Initial, Steps: []DryStep{}}
	for i, e := range req.Events {
		if e.Event == "" {
			return nil, badRequest("events[%d]: \"event\" is required", i)
		}
		steps, _ := run.Apply(ctx, machinerun.EventInput(e.Event, e.Payload)) // an event: one step, no error
		r := &steps[0]
		st := DryStep{Event: r.Event, From: r.From, To: r.To, Accepted: r.OK, Defaulted: orEmpty(r.Defaulted), Effects: []DryEffect{}, Context: m.ContextJSON(r.Context)}
		if r.OK {
			st.Transition = transitionID(r.From, r.Event, r.Target)
		}
		for _, ef := range r.Effects {
			st.Effects = append(st.Effects, DryEffect{Effect: ef.Spec.Name, Target: ef.Spec.Target, Status: string(ef.Status)})
		}
		if r.Failure != nil {
			st.Error, st.Code = r.Failure.Message, r.Failure.Code
			v.Blocked = true
		}
		v.Steps = append(v.Steps, st)
		if r.Failure != nil {
			break
		}
	}
	v.State, v.Status = inst.State(), string(inst.Status())
	v.Context = m.ContextJSON(inst.Context())
	v.Next = []string{}
	for _, t := range mv.Transitions {
		if t.From == v.State && !contains(v.Next, t.Event) {
			v.Next = append(v.Next, t.Event)
		}
	}
	return v, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

type surfaceReq struct {
	Surface string `json:"surface"`
	// Context is a machine context (a dry run's): the fields the surface's
	// data model also has become its data.
	Context json.RawMessage `json:"context"`
}

// SurfaceView answers POST /api/sessions/ID/surface: the A2UI messages
// that create the surface, send its components and its data model (the
// messages of caps a2ui-envelope --kind stream, with the data taken from
// the context when one is given).
type SurfaceView struct {
	Surface  string             `json:"surface"`
	Messages []protocol.Message `json:"messages"`
}

func (s *Server) surface(r *http.Request) (any, error) {
	var req surfaceReq
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	_, c, err := s.sourceOf(r, "rendering a surface")
	if err != nil {
		return nil, err
	}
	res := c.pkg.Result
	if req.Surface == "" {
		names := protocol.SurfaceNames(res)
		if len(names) == 0 {
			return nil, &apiError{Status: http.StatusConflict, Kind: "not-found", Msg: "the module declares no surface"}
		}
		req.Surface = names[0]
	}
	msgs, err := protocol.Envelope(res, req.Surface, "stream", nil)
	if err != nil {
		if pe, ok := err.(*protocol.Error); ok {
			return nil, &apiError{Status: http.StatusNotFound, Kind: "not-found", Msg: pe.Message, Extra: map[string]any{"code": pe.Code}}
		}
		return nil, err
	}
	if t := bytes.TrimSpace(req.Context); len(t) > 0 && string(t) != "null" {
		var ctx map[string]json.RawMessage
		if err := json.Unmarshal(t, &ctx); err != nil {
			return nil, badRequest(`"context" must be a JSON object (a dry run's context): %v`, err)
		}
		last := msgs[len(msgs)-1].UpdateDataModel
		var def map[string]json.RawMessage
		if err := json.Unmarshal(last.Value, &def); err != nil {
			return nil, err
		}
		data := map[string]json.RawMessage{}
		for k, v := range ctx {
			if _, ok := def[k]; ok {
				data[k] = v
			}
		}
		b, _ := json.Marshal(data)
		dm, err := protocol.Envelope(res, req.Surface, "data", b)
		if err != nil {
			return nil, &apiError{Status: http.StatusUnprocessableEntity, Kind: "refused", Msg: err.Error()}
		}
		msgs[len(msgs)-1] = dm[0]
	}
	return SurfaceView{Surface: req.Surface, Messages: msgs}, nil
}
