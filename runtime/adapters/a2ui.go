package adapters

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/capsulang/caps/codegen/protocol"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/syntax/ast"
)

// A2UIRenderer binds a module's surface to a renderer endpoint: the A2UI
// v0.9 messages of a2ui.emit and a2ui.update-data are POSTed to URL (JSON
// Lines, one message a line), and a2ui.await-action long-polls URL/actions
// for the user's action. Headers go with every request (${NAME} is the
// host's environment variable).
type A2UIRenderer struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

// A2UIVersion is the A2UI protocol version of the messages.
const A2UIVersion = protocol.A2UIVersion

// DefaultA2UICatalog is the catalog of a surface that declares none: the
// A2UI v0.9 basic catalog, whose components (Card, Column, Row, Text,
// TextField, CheckBox, Button) the component trees use. The messages come
// from protocol.Builder, the builder of `caps a2ui-envelope`.
const DefaultA2UICatalog = protocol.BasicCatalog

// A2UI failure codes.
const (
	// CodeA2UIRenderer: the renderer refused the messages or answered
	// something that is not an A2UI client message.
	CodeA2UIRenderer = "R_A2UI_RENDERER"
	// CodeA2UIAction: the user action is not one the surface declares,
	// not the one the intent awaits, or its context does not fit the
	// action's declared inputs. It is refused (A2UI action spoofing).
	CodeA2UIAction = "R_A2UI_ACTION"
	// CodeA2UIClientError: the renderer reported an error message.
	CodeA2UIClientError = "R_A2UI_CLIENT_ERROR"
	// CodeA2UIData: a value of the machine's context does not have the
	// type of the surface's data model field of the same name.
	CodeA2UIData = "R_A2UI_DATA"
)

// surfaceDecl finds a surface declaration of the module the policy was
// loaded against.
func (p *Policy) surfaceDecl(name string) *ast.Surface {
	if p == nil || p.Module == nil {
		return nil
	}
	for _, d := range p.Module.Decls {
		if s, ok := d.(*ast.Surface); ok && s != nil && s.Name.Name == name {
			return s
		}
	}
	return nil
}

// a2uiCall carries out a2ui.emit, a2ui.update-data and a2ui.await-action
// SURFACE[.ACTION] against the renderer the host section binds SURFACE to.
func (x *LiveExecutor) a2uiCall(ctx context.Context, surface, action string, c *machine.Call) machine.Outcome {
	out := machine.Outcome{Adapter: "a2ui"}
	if ok, why := x.Policy.egress(surface); !ok {
		out.Code, out.Error = CodeNoAdapter, why
		return out
	}
	var r *A2UIRenderer
	if x.Policy != nil {
		r = x.Policy.A2UI[surface]
	}
	if r == nil {
		out.Code, out.Error = CodeNoAdapter, fmt.Sprintf("the host policy binds no renderer to surface %s; add it under \"a2ui\" in the host section: {\"%s\": {\"url\": \"http://HOST:PORT/a2ui\"}}", surface, surface)
		return out
	}
	decl := x.Policy.surfaceDecl(surface)
	if decl == nil {
		out.Code, out.Error = CodeNoAdapter, fmt.Sprintf("surface %s: the A2UI adapter needs the module's declaration of the surface; load the host policy against the module (adapters.LoadHostPolicy)", surface)
		return out
	}
	headers := withHeader(r.Headers, "Idempotency-Key", c.IntentID)
	headers["Caps-Instance"] = c.InstanceID
	switch c.Spec.Name {
	case "a2ui.await-action":
		x.awaitAction(ctx, r, decl, action, headers, c, &out)
		return out
	case "a2ui.emit":
		key := c.InstanceID + "\x00" + surface
		x.mu.Lock()
		created := x.surfaces[key]
		x.mu.Unlock()
		msgs, ok := x.surfaceMessages(c, surface, !created, &out)
		if ok && x.postEnvelopes(ctx, r, surface, msgs, headers, &out) && !created {
			x.mu.Lock()
			x.surfaces[key] = true
			x.mu.Unlock()
		}
	case "a2ui.update-data":
		if msgs, ok := x.surfaceMessages(c, surface, false, &out); ok {
			x.postEnvelopes(ctx, r, surface, msgs[len(msgs)-1:], headers, &out)
		}
	}
	return out
}

// surfaceMessages builds the messages of a2ui.emit (createSurface when
// create, updateComponents and updateDataModel) with protocol.Builder,
// the builder of `caps a2ui-envelope`: the data model's fields come from
// the machine's context after the transition's assignments, and its
// "state" (for a surface that declares no state and is bound to this
// machine) is the state the transition enters. a2ui.update-data sends the
// last message alone. A context value of the wrong type fails with
// R_A2UI_DATA.
func (x *LiveExecutor) surfaceMessages(c *machine.Call, surface string, create bool, out *machine.Outcome) ([][]byte, bool) {
	res := c.Machine.Checked()
	x.mu.Lock()
	b := x.builders[res]
	if b == nil {
		b = protocol.NewBuilder(res)
		x.builders[res] = b
	}
	x.mu.Unlock()
	m := c.Machine
	data, err := b.UpdateDataModelFrom(surface, protocol.Values{Machine: m.Name, State: c.State, Field: func(name string) (json.RawMessage, bool) {
		fi, ok := m.FieldIndex(name)
		if !ok || fi >= len(c.Context) {
			return nil, false
		}
		j, err := c.Context[fi].MarshalJSON()
		return j, err == nil
	}})
	if err != nil {
		out.Code, out.Error = CodeA2UIData, fmt.Sprintf("surface %s: machine %s cannot fill the surface's data model: %v; give the context field and the data model field the same type", surface, m.Name, err)
		return nil, false
	}
	var msgs []protocol.Message
	if create {
		cs, err := b.CreateSurface(surface)
		if err != nil {
			out.Code, out.Error = CodeNoAdapter, err.Error()
			return nil, false
		}
		msgs = append(msgs, cs)
	}
	uc, err := b.UpdateComponents(surface)
	if err != nil {
		out.Code, out.Error = CodeNoAdapter, err.Error()
		return nil, false
	}
	msgs = append(msgs, uc, data)
	enc := make([][]byte, len(msgs))
	for i, msg := range msgs {
		enc[i] = msg.Encode()
	}
	return enc, true
}

// postEnvelopes POSTs A2UI messages to the renderer as JSON Lines. The
// result records the messages sent.
func (x *LiveExecutor) postEnvelopes(ctx context.Context, r *A2UIRenderer, surface string, msgs [][]byte, headers map[string]string, out *machine.Outcome) bool {
	var body, res []byte
	res = append(res, `{"messages":[`...)
	var kinds []string
	for k, m := range msgs {
		body = append(append(body, m...), '\n')
		if k > 0 {
			res = append(res, ',')
		}
		res = append(res, m...)
		kinds = append(kinds, envelopeKind(m))
	}
	res = append(res, `],"surface":`...)
	res = trace.AppendString(res, surface)
	res = append(res, '}')
	out.Operation = "POST " + strings.Join(kinds, "+")
	status, data, err := postJSON(ctx, x.httpClient(), "POST", r.URL, "application/jsonl", body, headers)
	if err != nil {
		peerFailure(out, "the renderer of surface "+surface, childPath("$.host.a2ui", surface)+".url", r.URL, err)
		return false
	}
	out.Result = res
	if status < 200 || status > 299 {
		out.Code = CodeA2UIRenderer
		out.Error = fmt.Sprintf("the renderer of surface %s at %s answered HTTP %d: %s", surface, r.URL, status, clip(data))
		return false
	}
	out.OK = true
	return true
}

func envelopeKind(m []byte) string {
	for _, k := range []string{"createSurface", "updateComponents", "updateDataModel", "deleteSurface"} {
		if bytes.Contains(m, []byte(`"`+k+`"`)) {
			return k
		}
	}
	return "message"
}

// awaitAction carries out a2ui.await-action SURFACE[.ACTION]: it long-polls
// GET URL/actions?surfaceId=SURFACE until the renderer answers 200 with an
// A2UI client message (204 means nothing yet: ask again), up to the
// attempt's timeout. An action must be one the surface declares (an
// action, or an event it lists), the awaited one when the target names
// it, with a context that fits the action's inputs; the result is the
// message as received.
func (x *LiveExecutor) awaitAction(ctx context.Context, r *A2UIRenderer, s *ast.Surface, want string, headers map[string]string, c *machine.Call, out *machine.Outcome) {
	surface := s.Name.Name
	u := strings.TrimSuffix(r.URL, "/") + "/actions?surfaceId=" + url.QueryEscape(surface)
	out.Operation = "GET actions"
	if want != "" {
		out.Operation += " " + want
	}
	for {
		status, data, err := postJSON(ctx, x.httpClient(), "GET", u, "", nil, headers)
		if err != nil {
			if ctx.Err() != nil {
				out.Error = fmt.Sprintf("surface %s: no user action: %v", surface, ctx.Err())
				return
			}
			peerFailure(out, "the renderer of surface "+surface, childPath("$.host.a2ui", surface)+".url", u, err)
			return
		}
		switch {
		case status == 204:
			select {
			case <-ctx.Done():
				out.Error = fmt.Sprintf("surface %s: no user action: %v", surface, ctx.Err())
				return
			case <-time.After(20 * time.Millisecond):
			}
			continue
		case status < 200 || status > 299:
			out.Code = CodeA2UIRenderer
			out.Error = fmt.Sprintf("the renderer of surface %s: GET %s answered HTTP %d: %s", surface, u, status, clip(data))
			return
		}
		data = bytes.TrimSpace(data)
		out.Result = json.RawMessage(data)
		checkAction(s, want, data, out)
		return
	}
}

// checkAction judges a client-to-server message against the surface.
func checkAction(s *ast.Surface, want string, data []byte, out *machine.Outcome) {
	surface := s.Name.Name
	var msg struct {
		Action *struct {
			Name      string                     `json:"name"`
			SurfaceID string                     `json:"surfaceId"`
			Context   map[string]json.RawMessage `json:"context"`
		} `json:"action"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Path    string `json:"path"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &msg); err != nil || msg.Action == nil && msg.Error == nil {
		out.Code, out.Error = CodeA2UIRenderer, fmt.Sprintf("surface %s: the renderer's answer is not an A2UI client message ({\"action\": ...} or {\"error\": ...}): %s", surface, clip(data))
		return
	}
	if e := msg.Error; e != nil {
		out.Code, out.Error = CodeA2UIClientError, fmt.Sprintf("surface %s: the renderer reported %s: %s", surface, e.Code, e.Message)
		if e.Path != "" {
			out.Error += " (at " + e.Path + ")"
		}
		return
	}
	a := msg.Action
	if a.SurfaceID != surface {
		out.Code, out.Error = CodeA2UIAction, fmt.Sprintf("surface %s: the action %q came from surface %q; refused", surface, a.Name, a.SurfaceID)
		return
	}
	var decl *ast.Operation
	for _, op := range s.Actions {
		if op.Name.Name == a.Name {
			decl = op
		}
	}
	isEvent := false
	for _, e := range s.Events {
		isEvent = isEvent || e.Name == a.Name
	}
	if decl == nil && !isEvent {
		out.Code, out.Error = CodeA2UIAction, fmt.Sprintf("surface %s declares no action or event %q (it declares %s); the action is refused", surface, a.Name, listOrNone(surfaceActions(s)))
		return
	}
	if want != "" && a.Name != want {
		out.Code, out.Error = CodeA2UIAction, fmt.Sprintf("surface %s: the intent awaited action %s, the user chose %s", surface, want, a.Name)
		return
	}
	if decl != nil {
		declared := map[string]bool{}
		for _, in := range decl.Inputs {
			declared[in.Name.Name] = true
			v, ok := a.Context[in.Name.Name]
			if !ok {
				out.Code, out.Error = CodeA2UIAction, fmt.Sprintf("surface %s: action %s has no %s in its context", surface, a.Name, in.Name.Name)
				return
			}
			if why := fitsType(in.Type, v); why != "" {
				out.Code, out.Error = CodeA2UIAction, fmt.Sprintf("surface %s: action %s: %s is %s", surface, a.Name, in.Name.Name, why)
				return
			}
		}
		for k := range a.Context {
			if !declared[k] {
				out.Code, out.Error = CodeA2UIAction, fmt.Sprintf("surface %s: action %s declares no input %s", surface, a.Name, k)
				return
			}
		}
	}
	out.OK = true
}

func surfaceActions(s *ast.Surface) []string {
	var names []string
	for _, a := range s.Actions {
		names = append(names, a.Name.Name)
	}
	for _, e := range s.Events {
		names = append(names, e.Name)
	}
	return names
}

// fitsType says why a JSON value does not fit a declared scalar type ("" when
// it fits). Types other than Bool, Text, the integers and Json are not
// checked.
func fitsType(t *ast.TypeRef, v json.RawMessage) string {
	if t == nil || len(t.Args) > 0 {
		return ""
	}
	var x any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if d.Decode(&x) != nil {
		return "not JSON"
	}
	name := t.Name.Name
	switch name {
	case "Bool":
		if _, ok := x.(bool); !ok {
			return "not a Bool: " + string(v)
		}
	case "Text":
		if _, ok := x.(string); !ok {
			return "not a Text: " + string(v)
		}
	case "U8", "U16", "U32", "U64", "I8", "I16", "I32", "I64":
		// A number, or a string of digits: the runtime's JSON encoding of
		// the 64-bit integers, which the data model sends.
		n, ok := x.(json.Number)
		if s, isText := x.(string); isText && s != "" && s[0] != '+' && s[0] != ' ' {
			n, ok = json.Number(s), true
		}
		if !ok {
			return fmt.Sprintf("not a %s: %s", name, v)
		}
		bits := map[byte]int{'8': 8, '6': 16, '2': 32, '4': 64}[name[len(name)-1]]
		if name[0] == 'U' {
			u, err := parseUint(string(n))
			if err != nil || bits < 64 && u >= 1<<bits {
				return fmt.Sprintf("not a %s: %s", name, v)
			}
		} else {
			i, err := n.Int64()
			if err != nil || bits < 64 && (i < -(1<<(bits-1)) || i >= 1<<(bits-1)) {
				return fmt.Sprintf("not a %s: %s", name, v)
			}
		}
	}
	return ""
}

func parseUint(s string) (uint64, error) {
	var u uint64
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	for _, r := range s {
		if r < '0' || r > '9' || u > (math.MaxUint64-uint64(r-'0'))/10 {
			return 0, fmt.Errorf("not an unsigned integer")
		}
		u = u*10 + uint64(r-'0')
	}
	return u, nil
}

// obj builds a JSON object in the order of its members.
type obj struct{ b []byte }

func (o *obj) key(k string) *obj {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = trace.AppendString(o.b, k)
	o.b = append(o.b, ':')
	return o
}
func (o *obj) str(k, v string) *obj        { o.key(k); o.b = trace.AppendString(o.b, v); return o }
func (o *obj) raw(k string, v []byte) *obj { o.key(k); o.b = append(o.b, v...); return o }
func (o *obj) done() []byte {
	if len(o.b) == 0 {
		return []byte("{}")
	}
	return append(o.b, '}')
}
