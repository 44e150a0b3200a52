// Package adapters carries out effect intents for the machine runtime:
// deterministic mock handlers (mock mode), and, in live mode, host
// adapters behind a deny-by-default host policy: an MCP client (JSON-RPC
// 2.0 over the stdio of a server process: tools and resources), an HTTP
// adapter, an A2A client (JSON-RPC over HTTP, protocol 1.x or 0.3, from
// the agent card), an A2UI adapter that posts v0.9 messages to a renderer
// endpoint and takes typed user actions back, and a file-backed store for
// db.* and typedb.* (the declared SurrealDB or TypeDB is not contacted).
// Credentials come only from the host (the host-policy artifact and the
// environment), never from the capsule.
package adapters

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/value"
)

// MockFile is the JSON mocks file of mock mode:
//
//	{"mocks": [
//	  {"effect": "mcp.call", "target": "migrator.apply",
//	   "outcomes": [{"ok": false, "error": "lock timeout"}, {"ok": true, "result": {"rows": 3}}]},
//	  {"effect": "a2a.task", "latency": "12m"}
//	]}
//
// An intent uses the first mock whose effect matches and whose target,
// event and state (the state the event arrived in), when given, match too.
// Attempt n of the intent gets outcomes[n-1] (the last one repeats). An
// intent no mock matches succeeds at once with no result.
type MockFile struct {
	Mocks []Mock `json:"mocks"`
}

// Mock is one mock handler.
type Mock struct {
	Effect string `json:"effect"`
	Target string `json:"target,omitempty"`
	Event  string `json:"event,omitempty"`
	State  string `json:"state,omitempty"`
	// Deny makes the mock policy deny the intent.
	Deny bool `json:"deny,omitempty"`
	// Latency is the default duration of every attempt, on the logical
	// clock: "5m", "1500ms" or a number of milliseconds.
	Latency  *Duration    `json:"latency,omitempty"`
	Outcomes []MockResult `json:"outcomes,omitempty"`
}

// MockResult is one attempt's outcome. OK defaults to true.
type MockResult struct {
	OK      *bool           `json:"ok,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   string          `json:"error,omitempty"`
	Code    string          `json:"code,omitempty"`
	Latency *Duration       `json:"latency,omitempty"`
}

// Duration is a duration in a JSON file: a Capsulang duration literal
// ("30s", "1500ms", "2h") or a number of milliseconds.
type Duration struct{ Millis int64 }

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var n int64
	if err := json.Unmarshal(b, &n); err == nil {
		if n < 0 {
			return fmt.Errorf("a duration cannot be negative: %d", n)
		}
		d.Millis = n
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"30s\" or a number of milliseconds, not %s", b)
	}
	v, err := value.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Millis = v.Millis()
	return nil
}

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(value.FormatDuration(d.Millis))
}

// ParseMocks decodes a mocks file; unknown fields are errors.
func ParseMocks(data []byte) (*MockFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f MockFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("mocks file: %v", err)
	}
	for k, m := range f.Mocks {
		if m.Effect == "" {
			return nil, fmt.Errorf("mocks file: mock %d has no effect", k+1)
		}
	}
	return &f, nil
}

// LoadMocks reads a mocks file.
func LoadMocks(path string) (*MockFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := ParseMocks(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, strings.TrimPrefix(err.Error(), "mocks file: "))
	}
	return f, nil
}

// MockExecutor is the executor of mock mode. It is deterministic: the
// outcome of an attempt depends only on the mocks file, the intent, the
// event, the state and the attempt number.
type MockExecutor struct {
	File *MockFile // nil: every intent succeeds
}

// NewMock returns a mock executor (f may be nil).
func NewMock(f *MockFile) *MockExecutor { return &MockExecutor{File: f} }

// Mode implements machine.Executor.
func (x *MockExecutor) Mode() machine.Mode { return machine.Mock }

func (x *MockExecutor) find(c *machine.Call) (int, *Mock) {
	if x.File == nil {
		return -1, nil
	}
	for k := range x.File.Mocks {
		m := &x.File.Mocks[k]
		if m.Effect != c.Spec.Name || m.Target != "" && m.Target != c.Spec.Target ||
			m.Event != "" && m.Event != c.Event || m.State != "" && m.State != c.From {
			continue
		}
		return k, m
	}
	return -1, nil
}

// Approve implements machine.Executor.
func (x *MockExecutor) Approve(c *machine.Call) machine.Decision {
	k, m := x.find(c)
	switch {
	case m == nil:
		return machine.Decision{Allowed: true, Rule: "mock default"}
	case m.Deny:
		return machine.Decision{Rule: fmt.Sprintf("mock %d denies", k+1)}
	}
	return machine.Decision{Allowed: true, Rule: fmt.Sprintf("mock %d", k+1)}
}

// Execute implements machine.Executor.
func (x *MockExecutor) Execute(ctx context.Context, c *machine.Call) machine.Outcome {
	_, m := x.find(c)
	out := machine.Outcome{OK: true, Adapter: "mock"}
	if m == nil {
		return out
	}
	if m.Latency != nil {
		out.DurationMs = m.Latency.Millis
	}
	if len(m.Outcomes) == 0 {
		return out
	}
	r := m.Outcomes[min(c.Attempt, len(m.Outcomes))-1]
	if r.OK != nil {
		out.OK = *r.OK
	}
	out.Result, out.Error, out.Code = r.Result, r.Error, r.Code
	if r.Latency != nil {
		out.DurationMs = r.Latency.Millis
	}
	if !out.OK && out.Error == "" {
		out.Error = "mock failure"
	}
	return out
}
