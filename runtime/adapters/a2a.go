package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/runtime/value"
)

// A2AAgent binds a module's agent to an A2A server: URL is where its agent
// card is published (the base URL, the card then being at
// /.well-known/agent-card.json under it, or the card's own URL ending in
// .json); Headers go with every request (${NAME} is the host's environment
// variable, as for HTTP).
type A2AAgent struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

// A2A failure codes.
const (
	// CodeA2ACard: the agent card cannot be read or offers no JSON-RPC
	// interface of a protocol version the adapter speaks.
	CodeA2ACard = "R_A2A_CARD"
	// CodeA2ASkill: the agent card does not list the skill the intent names.
	CodeA2ASkill = "R_A2A_SKILL"
	// CodeA2AError: the agent answered with a JSON-RPC error, or with
	// something that is not an A2A answer.
	CodeA2AError = "R_A2A_ERROR"
	// CodeA2ATaskFailed: the task ended failed, rejected or canceled.
	CodeA2ATaskFailed = "R_A2A_TASK_FAILED"
	// CodeA2AInputRequired: the task stopped for input or authentication
	// the intent cannot give.
	CodeA2AInputRequired = "R_A2A_INPUT_REQUIRED"
	// CodeA2ANoTask: a2a.receive-artifact has no task to read, or the
	// completed task has no artifact.
	CodeA2ANoTask = "R_A2A_NO_TASK"
)

// AgentCardPath is where an A2A server publishes its agent card.
const AgentCardPath = "/.well-known/agent-card.json"

// a2aPeer is a discovered agent: its JSON-RPC endpoint and protocol.
type a2aPeer struct {
	endpoint string
	version  string // "1.0" or "0.3"
	tenant   string
	skills   []string // the card's skill ids, sorted
}

// agentCard is the part of an agent card (v1.0 or v0.3) the adapter reads.
type agentCard struct {
	Name                string `json:"name"`
	SupportedInterfaces []struct {
		URL             string `json:"url"`
		ProtocolBinding string `json:"protocolBinding"`
		ProtocolVersion string `json:"protocolVersion"`
		Tenant          string `json:"tenant"`
	} `json:"supportedInterfaces"`
	// v0.3
	URL                  string `json:"url"`
	PreferredTransport   string `json:"preferredTransport"`
	ProtocolVersion      string `json:"protocolVersion"`
	AdditionalInterfaces []struct {
		URL       string `json:"url"`
		Transport string `json:"transport"`
	} `json:"additionalInterfaces"`
	Skills []struct {
		ID string `json:"id"`
	} `json:"skills"`
}

func (a *A2AAgent) cardURL() string {
	u := strings.TrimSuffix(a.URL, "/")
	if strings.HasSuffix(u, ".json") {
		return u
	}
	return u + AgentCardPath
}

// discover reads the agent card and picks its JSON-RPC interface: the
// first of protocol version 1.x, else the first of 0.3 (a v0.3 card's url
// when its preferred transport is JSON-RPC).
func (x *LiveExecutor) discover(ctx context.Context, name string, a *A2AAgent, out *machine.Outcome) *a2aPeer {
	x.mu.Lock()
	p := x.agents[name]
	x.mu.Unlock()
	if p != nil {
		return p
	}
	card := a.cardURL()
	status, body, err := postJSON(ctx, x.httpClient(), "GET", card, "", nil, withHeader(a.Headers, "A2A-Version", "1.0"))
	if err != nil {
		peerFailure(out, "agent "+name, childPath("$.host.a2a", name)+".url", card, err)
		return nil
	}
	if status != 200 {
		out.Code, out.Error = CodeA2ACard, fmt.Sprintf("agent %s: GET %s answered HTTP %d; is %s the base URL of an A2A server?", name, card, status, a.URL)
		return nil
	}
	var c agentCard
	if err := json.Unmarshal(body, &c); err != nil {
		out.Code, out.Error = CodeA2ACard, fmt.Sprintf("agent %s: %s is not an agent card: %v", name, card, err)
		return nil
	}
	p = &a2aPeer{}
	var offered []string
	for _, v := range []string{"1.", "0.3"} {
		for _, i := range c.SupportedInterfaces {
			if p.endpoint == "" && strings.EqualFold(i.ProtocolBinding, "JSONRPC") && strings.HasPrefix(i.ProtocolVersion, v) {
				p.endpoint, p.version, p.tenant = i.URL, strings.TrimSuffix(v, "."), i.Tenant
			}
		}
	}
	if p.version == "1" {
		p.version = "1.0"
	}
	if p.endpoint == "" && len(c.SupportedInterfaces) == 0 && c.URL != "" && strings.HasPrefix(c.ProtocolVersion, "0.3") &&
		(c.PreferredTransport == "" || strings.EqualFold(c.PreferredTransport, "JSONRPC")) {
		p.endpoint, p.version = c.URL, "0.3"
	}
	for _, i := range c.SupportedInterfaces {
		offered = append(offered, i.ProtocolBinding+" "+i.ProtocolVersion)
	}
	if p.endpoint == "" {
		if c.URL != "" {
			offered = append(offered, c.PreferredTransport+" "+c.ProtocolVersion)
		}
		out.Code, out.Error = CodeA2ACard, fmt.Sprintf("agent %s: the agent card at %s offers no JSON-RPC interface of A2A 1.x or 0.3 (it offers: %s)", name, card, listOrNone(offered))
		return nil
	}
	if base, err := url.Parse(card); err == nil {
		if u, err := base.Parse(p.endpoint); err == nil {
			p.endpoint = u.String()
		}
	}
	for _, s := range c.Skills {
		p.skills = append(p.skills, s.ID)
	}
	sort.Strings(p.skills)
	x.mu.Lock()
	x.agents[name] = p
	x.mu.Unlock()
	return p
}

func withHeader(h map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range h {
		out[a] = b
	}
	return out
}

// a2aCall carries out a2a.task, a2a.message and a2a.receive-artifact
// AGENT[.SKILL] against the A2A server the host section binds AGENT to.
func (x *LiveExecutor) a2aCall(ctx context.Context, agent, skill string, c *machine.Call) machine.Outcome {
	out := machine.Outcome{Adapter: "a2a"}
	if ok, why := x.Policy.egress(agent); !ok {
		out.Code, out.Error = CodeNoAdapter, why
		return out
	}
	var a *A2AAgent
	if x.Policy != nil {
		a = x.Policy.A2A[agent]
	}
	if a == nil {
		out.Code, out.Error = CodeNoAdapter, fmt.Sprintf("the host policy binds no A2A server to agent %s; add it under \"a2a\" in the host section: {\"%s\": {\"url\": \"http://HOST:PORT\"}}", agent, agent)
		return out
	}
	p := x.discover(ctx, agent, a, &out)
	if p == nil {
		return out
	}
	if skill != "" && c.Spec.Name != "a2a.receive-artifact" && len(p.skills) > 0 {
		i := sort.SearchStrings(p.skills, skill)
		if i == len(p.skills) || p.skills[i] != skill {
			out.Code, out.Error = CodeA2ASkill, fmt.Sprintf("agent %s: its agent card lists the skills %s, not %s", agent, strings.Join(p.skills, ", "), skill)
			return out
		}
	}
	rpc := &a2aRPC{x: x, agent: agent, a: a, p: p, out: &out}
	switch c.Spec.Name {
	case "a2a.receive-artifact":
		x.receiveArtifact(ctx, rpc, c)
	default:
		x.sendMessage(ctx, rpc, skill, c)
	}
	return out
}

// a2aRPC makes JSON-RPC requests to one agent.
type a2aRPC struct {
	x     *LiveExecutor
	agent string
	a     *A2AAgent
	p     *a2aPeer
	out   *machine.Outcome
	id    int
}

// method maps a v1.0 method name to the peer's protocol version.
func (r *a2aRPC) method(v1 string) string {
	if r.p.version == "1.0" {
		return v1
	}
	return map[string]string{"SendMessage": "message/send", "GetTask": "tasks/get"}[v1]
}

// call makes one request and returns its result; on failure it fills
// r.out and returns nil.
func (r *a2aRPC) call(ctx context.Context, v1 string, params map[string]any) json.RawMessage {
	method := r.method(v1)
	r.id++
	if r.p.version == "1.0" && r.p.tenant != "" {
		params["tenant"] = r.p.tenant
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.id, "method": method, "params": params})
	if err != nil {
		r.out.Error = err.Error()
		return nil
	}
	headers := withHeader(r.a.Headers, "A2A-Version", r.p.version)
	status, data, err := postJSON(ctx, r.x.httpClient(), "POST", r.p.endpoint, "application/json", body, headers)
	if err != nil {
		peerFailure(r.out, "agent "+r.agent, childPath("$.host.a2a", r.agent)+".url", r.p.endpoint, err)
		return nil
	}
	if status < 200 || status > 299 {
		r.out.Code = fmt.Sprintf("R_HTTP_%d", status)
		r.out.Error = fmt.Sprintf("agent %s: %s %s answered HTTP %d: %s", r.agent, method, r.p.endpoint, status, clip(data))
		if status == 401 || status == 403 {
			r.out.Error += fmt.Sprintf("; check the credentials in %s.headers", childPath("$.host.a2a", r.agent))
		}
		return nil
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(data, &resp); err != nil || resp.Error == nil && len(resp.Result) == 0 {
		r.out.Code, r.out.Error = CodeA2AError, fmt.Sprintf("agent %s: %s answered with no JSON-RPC result: %s", r.agent, method, clip(data))
		return nil
	}
	if resp.Error != nil {
		r.out.Code, r.out.Error = CodeA2AError, fmt.Sprintf("agent %s: %s: error %d: %s", r.agent, method, resp.Error.Code, resp.Error.Message)
		return nil
	}
	return resp.Result
}

// clip shortens a peer's answer for a message.
func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// a2aTask is a task (or a message) as either protocol version spells it.
type a2aTask struct {
	Kind      string `json:"kind"` // v0.3: "task" or "message"
	ID        string `json:"id"`
	ContextID string `json:"contextId"`
	Status    struct {
		State   string          `json:"state"`
		Message json.RawMessage `json:"message"`
	} `json:"status"`
	Artifacts []json.RawMessage `json:"artifacts"`
	raw       json.RawMessage
}

// taskState normalizes a task state to the v0.3 spelling: "completed",
// "input-required", ... (v1.0 spells TASK_STATE_COMPLETED).
func taskState(s string) string {
	s = strings.TrimPrefix(s, "TASK_STATE_")
	return strings.ReplaceAll(strings.ToLower(s), "_", "-")
}

func terminal(state string) bool {
	switch state {
	case "completed", "failed", "rejected", "canceled", "cancelled":
		return true
	}
	return false
}

func interrupted(state string) bool { return state == "input-required" || state == "auth-required" }

// parseSendResult splits a SendMessage result into a task or a message:
// v1.0 {"task": ...} / {"message": ...}; v0.3 a Task or Message with kind.
// The task's raw field and the message are the object alone.
func parseSendResult(raw json.RawMessage) (task *a2aTask, message json.RawMessage, ok bool) {
	var v1 struct {
		Task    json.RawMessage `json:"task"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(raw, &v1) == nil {
		if len(v1.Task) > 0 {
			var t a2aTask
			if json.Unmarshal(v1.Task, &t) == nil && t.ID != "" {
				t.raw = v1.Task
				return &t, nil, true
			}
		}
		if len(v1.Message) > 0 {
			return nil, v1.Message, true
		}
	}
	var t a2aTask
	if json.Unmarshal(raw, &t) != nil {
		return nil, nil, false
	}
	switch {
	case t.Kind == "message":
		return nil, raw, true
	case t.ID != "":
		t.raw = raw
		return &t, nil, true
	}
	return nil, nil, false
}

// statusText is the text of a task status message, for errors.
func statusText(raw json.RawMessage) string {
	var m struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var b []string
	for _, p := range m.Parts {
		if p.Text != "" {
			b = append(b, p.Text)
		}
	}
	return strings.Join(b, " ")
}

// sendMessage carries out a2a.task and a2a.message: a SendMessage with the
// intent's arguments as a data part and the skill in the message's
// metadata. a2a.task asks not to block (returnImmediately; blocking false
// in v0.3) and polls GetTask until the task is done; a2a.message takes the
// agent's first answer. The messages of one instance to one agent share
// the context the agent gave the first answer (contextId). The result is the task or the message object, as
// the agent spelled it.
func (x *LiveExecutor) sendMessage(ctx context.Context, r *a2aRPC, skill string, c *machine.Call) {
	isTask := c.Spec.Name == "a2a.task"
	r.out.Operation = r.method("SendMessage")
	if skill != "" {
		r.out.Operation += " " + skill
	}
	msgID := c.IntentID + "." + strconv.Itoa(c.Attempt)
	if c.IntentID == "" {
		msgID = fmt.Sprintf("%s.%d.%d.%d", c.InstanceID, c.Seq, c.Spec.Index, c.Attempt)
	}
	meta := map[string]any{"capsulang.intent": c.IntentID, "capsulang.instance": c.InstanceID}
	if skill != "" {
		meta["skill"] = skill
	}
	args := Arguments(c)
	var msg map[string]any
	var config map[string]any
	if r.p.version == "1.0" {
		msg = map[string]any{"messageId": msgID, "role": "ROLE_USER",
			"parts": []any{map[string]any{"data": args, "mediaType": "application/json"}}, "metadata": meta}
		if isTask {
			config = map[string]any{"returnImmediately": true}
		}
	} else {
		msg = map[string]any{"kind": "message", "messageId": msgID, "role": "user",
			"parts": []any{map[string]any{"kind": "data", "data": args}}, "metadata": meta}
		if isTask {
			config = map[string]any{"blocking": false}
		}
	}
	key := c.InstanceID + "\x00" + r.agent
	x.mu.Lock()
	if id := x.contexts[key]; id != "" {
		msg["contextId"] = id
	}
	x.mu.Unlock()
	params := map[string]any{"message": msg}
	if config != nil {
		params["configuration"] = config
	}
	res := r.call(ctx, "SendMessage", params)
	if res == nil {
		return
	}
	task, message, ok := parseSendResult(res)
	if !ok {
		r.out.Code, r.out.Error = CodeA2AError, fmt.Sprintf("agent %s: the SendMessage result is neither a task nor a message: %s", r.agent, clip(res))
		return
	}
	ctxID := ""
	if task != nil {
		ctxID = task.ContextID
	} else {
		var m struct {
			ContextID string `json:"contextId"`
		}
		json.Unmarshal(message, &m)
		ctxID = m.ContextID
	}
	if ctxID != "" {
		x.mu.Lock()
		x.contexts[key] = ctxID
		x.mu.Unlock()
	}
	if message != nil {
		r.out.Result, r.out.OK = message, true
		return
	}
	res = task.raw
	if isTask {
		x.mu.Lock()
		x.tasks[key] = task.ID
		x.mu.Unlock()
		var raw json.RawMessage
		if task, raw = x.pollTask(ctx, r, task, res); task == nil {
			return
		}
		res = raw
	}
	x.taskOutcome(r, task, res, isTask)
}

// pollTask polls GetTask until the task is terminal or interrupted, every
// 50ms at first and at most every second. It returns the task and its raw
// result, or nil when the attempt failed (r.out filled in).
func (x *LiveExecutor) pollTask(ctx context.Context, r *a2aRPC, t *a2aTask, raw json.RawMessage) (*a2aTask, json.RawMessage) {
	wait := 50 * time.Millisecond
	for !terminal(taskState(t.Status.State)) && !interrupted(taskState(t.Status.State)) {
		select {
		case <-ctx.Done():
			r.out.Error = fmt.Sprintf("agent %s: task %s still %s: %v", r.agent, t.ID, taskState(t.Status.State), ctx.Err())
			return nil, nil
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
		res := r.call(ctx, "GetTask", map[string]any{"id": t.ID})
		if res == nil {
			return nil, nil
		}
		var nt a2aTask
		if json.Unmarshal(res, &nt) != nil || nt.ID == "" {
			r.out.Code, r.out.Error = CodeA2AError, fmt.Sprintf("agent %s: the GetTask result is not a task: %s", r.agent, clip(res))
			return nil, nil
		}
		t, raw = &nt, res
	}
	return t, raw
}

// taskOutcome judges a task: completed is a success; failed, rejected or
// canceled fail with R_A2A_TASK_FAILED; input-required or auth-required
// fail with R_A2A_INPUT_REQUIRED when the intent waited for the task to
// finish (a2a.task), and are an answer for a2a.message.
func (x *LiveExecutor) taskOutcome(r *a2aRPC, t *a2aTask, raw json.RawMessage, waited bool) {
	r.out.Result = raw
	state := taskState(t.Status.State)
	switch {
	case state == "failed" || state == "rejected" || state == "canceled" || state == "cancelled":
		r.out.Code = CodeA2ATaskFailed
		r.out.Error = fmt.Sprintf("agent %s: task %s ended %s", r.agent, t.ID, state)
		if s := statusText(t.Status.Message); s != "" {
			r.out.Error += ": " + s
		}
	case interrupted(state) && waited:
		r.out.Code = CodeA2AInputRequired
		r.out.Error = fmt.Sprintf("agent %s: task %s stopped in state %s; an effect intent cannot give it more input", r.agent, t.ID, state)
		if s := statusText(t.Status.Message); s != "" {
			r.out.Error += ": " + s
		}
	default:
		r.out.OK = true
	}
}

// receiveArtifact carries out a2a.receive-artifact AGENT[.SKILL]: it reads
// a task with GetTask, waiting until it is done, and returns its
// artifacts. The task is the intent's first argument when it is text,
// else the context or payload field task_id, else the last task a2a.task
// started with the agent in this instance.
func (x *LiveExecutor) receiveArtifact(ctx context.Context, r *a2aRPC, c *machine.Call) {
	r.out.Operation = r.method("GetTask")
	id := ""
	if len(c.Args) > 0 && c.Args[0].Kind() == value.KindText {
		id = c.Args[0].AsText()
	} else if fi, ok := c.Machine.FieldIndex("task_id"); ok && fi < len(c.Context) && c.Context[fi].Kind() == value.KindText && c.Context[fi].AsText() != "" {
		id = c.Context[fi].AsText()
	} else if v, ok := c.Payload["task_id"]; ok && v.Kind() == value.KindText {
		id = v.AsText()
	} else {
		x.mu.Lock()
		id = x.tasks[c.InstanceID+"\x00"+r.agent]
		x.mu.Unlock()
	}
	if id == "" {
		r.out.Code, r.out.Error = CodeA2ANoTask, fmt.Sprintf("agent %s: no task to receive an artifact from: give its id as the intent's argument or in a task_id field, or start one with a2a.task first", r.agent)
		return
	}
	r.out.Operation += " " + id
	res := r.call(ctx, "GetTask", map[string]any{"id": id})
	if res == nil {
		return
	}
	var t a2aTask
	if json.Unmarshal(res, &t) != nil || t.ID == "" {
		r.out.Code, r.out.Error = CodeA2AError, fmt.Sprintf("agent %s: the GetTask result is not a task: %s", r.agent, clip(res))
		return
	}
	tp, raw := x.pollTask(ctx, r, &t, res)
	if tp == nil {
		return
	}
	x.taskOutcome(r, tp, raw, true)
	if !r.out.OK {
		return
	}
	if len(tp.Artifacts) == 0 {
		r.out.OK = false
		r.out.Code, r.out.Error = CodeA2ANoTask, fmt.Sprintf("agent %s: task %s completed with no artifact", r.agent, tp.ID)
		return
	}
	b := []byte(`{"task_id":`)
	b = trace.AppendString(b, tp.ID)
	b = append(b, `,"artifacts":[`...)
	for k, a := range tp.Artifacts {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, a...)
	}
	r.out.Result = append(b, "]}"...)
}
