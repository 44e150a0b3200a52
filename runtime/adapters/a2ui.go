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
const A2UIVersion = "v0.9"

// DefaultA2UICatalog is the catalog of a surface that declares none: the
// catalog id of the spec's A2UI mock stream, whose components (Card,
// Column, Row, Text, and Button with a text) the adapter emits.
const DefaultA2UICatalog = "capsulang.basic"

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
		var msgs [][]byte
		if !created {
			msgs = append(msgs, createSurface(decl))
		}
		msgs = append(msgs, updateComponents(decl), updateDataModel(decl, c))
		if x.postEnvelopes(ctx, r, surface, msgs, headers, &out) && !created {
			x.mu.Lock()
			x.surfaces[key] = true
			x.mu.Unlock()
		}
	case "a2ui.update-data":
		x.postEnvelopes(ctx, r, surface, [][]byte{updateDataModel(decl, c)}, headers, &out)
	}
	return out
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

func strList(names []string) []byte {
	b := []byte{'['}
	for k, n := range names {
		if k > 0 {
			b = append(b, ',')
		}
		b = trace.AppendString(b, n)
	}
	return append(b, ']')
}

func envelope(kind string, body []byte) []byte {
	return (&obj{}).str("version", A2UIVersion).raw(kind, body).done()
}

// createSurface is the surface's createSurface message: its catalog (the
// capsulang.basic catalog unless it declares one), the data model sent back
// with actions.
func createSurface(s *ast.Surface) []byte {
	catalog := DefaultA2UICatalog
	if s.Catalog != nil {
		catalog = s.Catalog.Value
	}
	return envelope("createSurface", (&obj{}).str("surfaceId", s.Name.Name).str("catalogId", catalog).raw("sendDataModel", []byte("true")).done())
}

// dataFields are the data model's fields besides "state": the surface's
// declared state, or, when it declares none, the machine's context.
func dataFields(s *ast.Surface, m *machine.Machine) []string {
	var names []string
	if len(s.State) > 0 {
		for _, f := range s.State {
			names = append(names, f.Name.Name)
		}
		return names
	}
	for _, f := range m.Context {
		names = append(names, f.Name)
	}
	return names
}

// updateComponents is the surface's component tree in the components of
// the spec's mock stream:
// a card with the title, the machine's state, one text per data field
// (bound to /FIELD) and a button per event and action the surface
// declares (an action's button sends its inputs from /FIELD).
func updateComponents(s *ast.Surface) []byte {
	title := s.Name.Name
	if s.Title != nil {
		title = s.Title.Value
	}
	var comps [][]byte
	children := []string{"title", "state"}
	comps = append(comps,
		(&obj{}).str("id", "root").str("component", "Card").str("child", "body").done(),
		nil, // body, below
		(&obj{}).str("id", "title").str("component", "Text").str("text", title).str("variant", "h2").done(),
		(&obj{}).str("id", "state").str("component", "Text").raw("text", (&obj{}).str("path", "/state").done()).done())
	for _, f := range s.State {
		id := "field_" + f.Name.Name
		children = append(children, id)
		comps = append(comps, (&obj{}).str("id", id).str("component", "Text").raw("text", (&obj{}).str("path", "/"+f.Name.Name).done()).done())
	}
	var buttons []string
	for _, e := range s.Events {
		id := "event_" + e.Name
		buttons = append(buttons, id)
		comps = append(comps, (&obj{}).str("id", id).str("component", "Button").str("text", e.Name).
			raw("action", (&obj{}).raw("event", (&obj{}).str("name", e.Name).done()).done()).done())
	}
	for _, a := range s.Actions {
		id := "action_" + a.Name.Name
		buttons = append(buttons, id)
		ctx := &obj{}
		for _, in := range a.Inputs {
			ctx.raw(in.Name.Name, (&obj{}).str("path", "/"+in.Name.Name).done())
		}
		comps = append(comps, (&obj{}).str("id", id).str("component", "Button").str("text", a.Name.Name).
			raw("action", (&obj{}).raw("event", (&obj{}).str("name", a.Name.Name).raw("context", ctx.done()).done()).done()).done())
	}
	if len(buttons) > 0 {
		children = append(children, "actions")
		comps = append(comps, (&obj{}).str("id", "actions").str("component", "Row").raw("children", strList(buttons)).done())
	}
	comps[1] = (&obj{}).str("id", "body").str("component", "Column").raw("children", strList(children)).done()
	list := []byte{'['}
	for k, c := range comps {
		if k > 0 {
			list = append(list, ',')
		}
		list = append(list, c...)
	}
	list = append(list, ']')
	return envelope("updateComponents", (&obj{}).str("surfaceId", s.Name.Name).raw("components", list).done())
}

// updateDataModel replaces the surface's data model: "state" (the state
// the transition enters) and each data field from the context field of
// the same name after the transition's assignments (fields the context
// does not have are left out). Integers are JSON numbers.
func updateDataModel(s *ast.Surface, c *machine.Call) []byte {
	data := (&obj{}).str("state", c.State)
	for _, name := range dataFields(s, c.Machine) {
		if fi, ok := c.Machine.FieldIndex(name); ok && fi < len(c.Context) {
			data.raw(name, appendArg(nil, c.Context[fi]))
		}
	}
	return envelope("updateDataModel", (&obj{}).str("surfaceId", s.Name.Name).str("path", "/").raw("value", data.done()).done())
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
		n, ok := x.(json.Number)
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
