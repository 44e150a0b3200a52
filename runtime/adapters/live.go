package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/codegen/protocol"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax/ast"
)

// Policy is the host-owned part of the host-policy artifact of live mode
// (its "host" section; see HostPolicy and docs/authority.md). It decides
// which intents may run (deny by default) and binds the module's ports to
// real endpoints, with the credentials the host provides:
//
//	{
//	  "allow": [{"effect": "mcp.call", "target": "everything.echo"},
//	            {"effect": "http.call", "target": "weather.*"}],
//	  "deny":  [{"effect": "*", "target": "payments.*"}],
//	  "mcp":  {"everything": {"command": ["node", "server.js", "stdio"],
//	                          "env": {"API_KEY": "${EVERYTHING_KEY}"}}},
//	  "http": {"weather": {"url": "http://127.0.0.1:8080/v1",
//	                       "headers": {"Authorization": "Bearer ${WEATHER_TOKEN}"}}},
//	  "timeout": "30s"
//	}
//
// A rule matches an intent when its effect and its target match (path.Match
// patterns: "*" matches anything but "/"; an empty target matches every
// target). Deny rules win over allow rules; an intent no allow rule
// matches is denied. "${NAME}" in env and header values is replaced by the
// host's environment variable NAME when the artifact is loaded:
// credentials come from the host, never from the capsule, whose intents
// only name a port and an operation.
type Policy struct {
	Allow []Rule                  `json:"allow"`
	Deny  []Rule                  `json:"deny"`
	MCP   map[string]*MCPServer   `json:"mcp"`
	HTTP  map[string]*HTTPService `json:"http"`
	// A2A binds agents to A2A servers (a2a.go); A2UI binds surfaces to
	// renderer endpoints (a2ui.go); Stores binds stores to local
	// file-backed stores (store.go). All three are optional in the
	// artifact: absent means no binding.
	A2A    map[string]*A2AAgent     `json:"a2a,omitempty"`
	A2UI   map[string]*A2UIRenderer `json:"a2ui,omitempty"`
	Stores map[string]*StoreBinding `json:"stores,omitempty"`
	// Timeout bounds an attempt whose effect declares no (timeout D);
	// default 30s.
	Timeout *Duration `json:"timeout"`
	// Boundary is what the module's enforced trust boundaries allow the
	// adapters, set when the artifact is loaded; nil: no restriction.
	Boundary *Boundary `json:"-"`
	// Module is the module the artifact was loaded against (set by
	// ParseHostPolicy): the A2UI adapter reads its surface declarations.
	Module *ast.Module `json:"-"`
}

// Rule is one allow or deny rule.
type Rule struct {
	Effect string `json:"effect"`
	Target string `json:"target,omitempty"`
}

// MCPServer is how to start an MCP server speaking JSON-RPC over stdio.
type MCPServer struct {
	Command []string          `json:"command"`
	Env     map[string]string `json:"env,omitempty"`
	Dir     string            `json:"dir,omitempty"`
	// Resources maps the port's declared resource names to the server's
	// resource URIs, for mcp.read-resource and mcp.subscribe-resource; a
	// resource not mapped is looked up by name in resources/list.
	Resources map[string]string `json:"resources,omitempty"`
	// Isolated starts the server with Env alone (which then holds the
	// PATH resolved at load) instead of the host's environment plus Env.
	// Loading an artifact sets it under (secrets ambient-deny).
	Isolated bool `json:"-"`
}

// HTTPService is the base URL and headers of an HTTP port.
type HTTPService struct {
	URL     string            `json:"url"`
	Method  string            `json:"method,omitempty"` // default POST
	Headers map[string]string `json:"headers,omitempty"`
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func expandEnv(s string) string {
	return envRef.ReplaceAllStringFunc(s, func(m string) string { return os.Getenv(m[2 : len(m)-1]) })
}

func (r Rule) matches(effect, target string) bool {
	if ok, _ := path.Match(r.Effect, effect); !ok {
		return false
	}
	if r.Target == "" {
		return true
	}
	ok, _ := path.Match(r.Target, target)
	return ok
}

func (r Rule) String() string {
	if r.Target == "" {
		return r.Effect
	}
	return r.Effect + " " + r.Target
}

// Decide applies the policy to an effect and target.
func (p *Policy) Decide(effect, target string) machine.Decision {
	if p == nil {
		return machine.Decision{Rule: "default deny (no policy)"}
	}
	for _, r := range p.Deny {
		if r.matches(effect, target) {
			return machine.Decision{Rule: "deny " + r.String()}
		}
	}
	for _, r := range p.Allow {
		if r.matches(effect, target) {
			return machine.Decision{Allowed: true, Rule: "allow " + r.String()}
		}
	}
	return machine.Decision{Rule: "default deny"}
}

// LiveExecutor is the executor of live mode: intents the policy allows go
// to the adapter their effect names (MCP, HTTP, A2A, A2UI, the store);
// everything else fails with R_NO_ADAPTER. Close it to stop the MCP
// servers it started.
type LiveExecutor struct {
	Policy *Policy
	// HTTPClient carries the HTTP, A2A and A2UI requests; nil:
	// http.DefaultClient.
	HTTPClient *http.Client

	mu      sync.Mutex
	clients map[string]*MCPClient
	agents  map[string]*a2aPeer
	// surfaces records the surfaces (by instance and surface) a2ui.emit
	// has created, so that later emits only update them.
	surfaces map[string]bool
	// builders holds the A2UI message builder of each checked module.
	builders map[*check.Result]*protocol.Builder
	// tasks records, by instance and agent, the last A2A task a2a.task
	// started, for a2a.receive-artifact.
	tasks map[string]string
	// contexts records, by instance and agent, the A2A context the agent
	// gave its first answer, so that later messages continue it.
	contexts map[string]string
	stores   map[string]*fileStore
}

// NewLive returns a live executor under policy p.
func NewLive(p *Policy) *LiveExecutor {
	return &LiveExecutor{Policy: p, clients: map[string]*MCPClient{}, agents: map[string]*a2aPeer{},
		surfaces: map[string]bool{}, builders: map[*check.Result]*protocol.Builder{}, tasks: map[string]string{}, contexts: map[string]string{}, stores: map[string]*fileStore{}}
}

func (x *LiveExecutor) httpClient() *http.Client {
	if x.HTTPClient != nil {
		return x.HTTPClient
	}
	return http.DefaultClient
}

// Mode implements machine.Executor.
func (x *LiveExecutor) Mode() machine.Mode { return machine.Live }

// Approve implements machine.Executor.
func (x *LiveExecutor) Approve(c *machine.Call) machine.Decision {
	return x.Policy.Decide(c.Spec.Name, c.Spec.Target)
}

// CodeNoAdapter is the failure code of an intent no live adapter serves:
// an effect without a live adapter, or a target the host section does not
// bind.
const CodeNoAdapter = "R_NO_ADAPTER"

// CodePeerDown is the failure code of an attempt whose peer (an A2A
// agent, an A2UI renderer, an HTTP service) cannot be reached: refused,
// reset or unresolvable. The message names the peer, its address and what
// to do.
const CodePeerDown = "R_PEER_DOWN"

// LiveEffects are the effects live mode has adapters for.
var LiveEffects = []string{"mcp.call", "mcp.read-resource", "mcp.subscribe-resource", "http.call",
	"a2a.task", "a2a.message", "a2a.receive-artifact", "a2ui.emit", "a2ui.update-data", "a2ui.await-action",
	"db.write", "db.project", "typedb.write", "typedb.query"}

// Execute implements machine.Executor.
func (x *LiveExecutor) Execute(ctx context.Context, c *machine.Call) machine.Outcome {
	timeout := 30 * time.Second
	if x.Policy != nil && x.Policy.Timeout != nil {
		timeout = time.Duration(x.Policy.Timeout.Millis) * time.Millisecond
	}
	if c.Spec.Timeout > 0 {
		timeout = time.Duration(c.Spec.Timeout) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	owner, op, _ := strings.Cut(c.Spec.Target, ".")
	start := time.Now()
	var out machine.Outcome
	switch c.Spec.Name {
	case "mcp.call":
		out = x.mcpCall(ctx, owner, op, c)
	case "mcp.read-resource", "mcp.subscribe-resource":
		out = x.mcpResource(ctx, owner, op, c)
	case "http.call":
		out = x.httpCall(ctx, owner, op, c)
	case "a2a.task", "a2a.message", "a2a.receive-artifact":
		out = x.a2aCall(ctx, owner, op, c)
	case "a2ui.emit", "a2ui.update-data", "a2ui.await-action":
		out = x.a2uiCall(ctx, owner, op, c)
	case "db.write", "db.project", "typedb.write", "typedb.query":
		out = x.storeCall(ctx, owner, op, c)
	default:
		out = machine.Outcome{Code: CodeNoAdapter, Error: fmt.Sprintf("no live adapter carries out %s (live mode has adapters for %s)", c.Spec.Name, strings.Join(LiveEffects, ", "))}
	}
	out.DurationMs = time.Since(start).Milliseconds()
	if !out.OK && out.Code == "" {
		switch {
		case ctx.Err() == context.DeadlineExceeded:
			out.Code = machine.CodeEffectTimeout
		case ctx.Err() != nil:
			out.Code = machine.CodeEffectCancelled
		}
	}
	return out
}

func (x *LiveExecutor) mcpCall(ctx context.Context, port, tool string, c *machine.Call) machine.Outcome {
	out := machine.Outcome{Adapter: "mcp", Operation: "tools/call " + tool}
	cl := x.mcpClient(port, &out)
	if cl == nil {
		return out
	}
	res, err := cl.CallTool(ctx, tool, Arguments(c))
	if err != nil {
		mcpFailure(&out, port, err)
		return out
	}
	out.Result = res
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(res, &r) == nil && r.IsError {
		out.Error = "the tool reported an error"
		for _, c := range r.Content {
			if c.Type == "text" {
				out.Error += ": " + c.Text
				break
			}
		}
		return out
	}
	out.OK = true
	return out
}

// egress reports whether the adapters may reach a port under the trust
// boundaries the policy was loaded with; when not, it says why.
func (p *Policy) egress(port string) (bool, string) {
	if p == nil {
		return true, ""
	}
	return p.Boundary.allowsEgress(port)
}

// Close stops the MCP servers.
func (x *LiveExecutor) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	var first error
	names := make([]string, 0, len(x.clients))
	for n := range x.clients {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := x.clients[n].Close(); err != nil && first == nil {
			first = err
		}
	}
	x.clients = map[string]*MCPClient{}
	return first
}

// Arguments builds the JSON object of an intent's arguments for an
// adapter. When the target names a declared operation (a port's tool, an
// agent's skill), each declared input is, in order of preference, the
// intent's argument at its position, the context field of the same name
// (after the transition's assignments), or the event payload field of the
// same name; inputs with none of these are left out. Without a declared
// operation the arguments are the event's payload. Integers are JSON
// numbers.
func Arguments(c *machine.Call) json.RawMessage {
	b := []byte{'{'}
	n := 0
	add := func(name string, v value.Value) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = trace.AppendString(b, name)
		b = append(b, ':')
		b = appendArg(b, v)
	}
	if op := c.Spec.Operation; op != nil {
		for k, in := range op.Inputs {
			name := in.Name.Name
			switch {
			case k < len(c.Args):
				add(name, c.Args[k])
			default:
				if fi, ok := c.Machine.FieldIndex(name); ok && fi < len(c.Context) {
					add(name, c.Context[fi])
				} else if v, ok := c.Payload[name]; ok {
					add(name, v)
				}
			}
		}
	} else {
		names := make([]string, 0, len(c.Payload))
		for k := range c.Payload {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			add(k, c.Payload[k])
		}
	}
	return append(b, '}')
}

func appendArg(b []byte, v value.Value) []byte {
	if v.Kind() == value.KindInt {
		if v.IntKind() == value.IntWei {
			return append(b, v.Big().String()...)
		}
		if v.IntKind().Signed() {
			return strconv.AppendInt(b, v.Int64(), 10)
		}
		return strconv.AppendUint(b, v.Uint64(), 10)
	}
	return machine.AppendValue(b, v)
}
