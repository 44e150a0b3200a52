package adapters_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/replay"
)

func compile(t *testing.T, path, name string) *machine.Machine {
	t.Helper()
	p, err := (&load.Loader{}).Load(path)
	if err != nil || p.Result.HasErrors() {
		t.Fatalf("load %s: %v %v", path, err, p.Result.Diagnostics)
	}
	m, err := machine.Compile(p.Result, name, machine.Options{Hash: p.Hash})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func step(inst *machine.Instance, name, payload string) machine.StepResult {
	return inst.Step(machine.Event{Name: name, Raw: json.RawMessage(payload)})
}

func TestMocks(t *testing.T) {
	m := compile(t, "../machine/testdata/vent.caps", "VentController")
	f, err := adapters.ParseMocks([]byte(`{"mocks": [
		{"effect": "mcp.call", "state": "idle", "event": "SetVent", "latency": "45s",
		 "outcomes": [{"ok": false, "code": "E_JAM"}, {"latency": 10}]},
		{"effect": "db.write", "target": "climate.commands", "deny": true, "event": "Storm"},
		{"effect": "mcp.call", "event": "Storm", "outcomes": [{"ok": true, "result": {"sealed": true}}]}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := m.NewInstance(machine.InstanceOptions{Executor: adapters.NewMock(f)})
	r := step(inst, "SetVent", `{"percent": 3}`)
	vent := r.Effects[1]
	if vent.Status != machine.Executed || len(vent.Attempts) != 2 || vent.Attempts[0].Code != "E_JAM" ||
		vent.Attempts[0].Error != "mock failure" || vent.Attempts[0].DurationMs != 45_000 || vent.Attempts[1].DurationMs != 10 || vent.Decision != "mock 1" {
		t.Errorf("%+v", vent)
	}
	r = step(inst, "Storm", ``)
	if fx := r.Effects[0]; fx.Status != machine.Executed || string(fx.Result()) != `{"sealed": true}` || fx.Decision != "mock 3" {
		t.Errorf("%+v %s", fx, fx.Result())
	}
	for _, bad := range []string{`{"mocks": [{"effect": "x", "colour": 1}]}`, `{"mocks": [{}]}`, `{"mocks": [{"effect": "x", "latency": "soon"}]}`, `[`} {
		if _, err := adapters.ParseMocks([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestPolicyDecide(t *testing.T) {
	p := &adapters.Policy{
		Allow: []adapters.Rule{{Effect: "mcp.call", Target: "everything.*"}, {Effect: "http.call"}},
		Deny:  []adapters.Rule{{Effect: "*", Target: "everything.get-env"}},
	}
	for _, tt := range []struct{ effect, target, want string }{
		{"mcp.call", "everything.echo", "true allow mcp.call everything.*"},
		{"mcp.call", "everything.get-env", "false deny * everything.get-env"},
		{"http.call", "weather.forecast", "true allow http.call"},
		{"db.write", "claims.x", "false default deny"},
	} {
		d := p.Decide(tt.effect, tt.target)
		if got := fmt.Sprintf("%v %s", d.Allowed, d.Rule); got != tt.want {
			t.Errorf("%s %s: %s, want %s", tt.effect, tt.target, got, tt.want)
		}
	}
	var nilPolicy *adapters.Policy
	if d := nilPolicy.Decide("mcp.call", "x.y"); d.Allowed || d.Rule != "default deny (no policy)" {
		t.Errorf("no policy: %+v", d)
	}
}

func TestHTTPAdapter(t *testing.T) {
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		calls = append(calls, r.Method+" "+r.URL.Path+" "+string(body)+" "+r.Header.Get("Authorization"))
		if len(calls) == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"city": "Lisbon", "high_c": 24}`)
	}))
	defer srv.Close()
	t.Setenv("CAPS_TEST_TOKEN", "tok")
	p := loadArtifact(t, "testdata/live.caps", `{"allow": [{"effect": "http.call", "target": "weather.forecast"}],
		"http": {"weather": {"url": "`+srv.URL+`/v1", "headers": {"Authorization": "Bearer ${CAPS_TEST_TOKEN}"}}}}`)
	live := adapters.NewLive(p)
	defer live.Close()
	m := compile(t, "testdata/live.caps", "Relay")
	inst, _ := m.NewInstance(machine.InstanceOptions{Executor: live})
	r := step(inst, "Ask", `{"city": "Lisbon"}`)
	fx := r.Effects[0]
	if r.To != "sent" || fx.Status != machine.Executed || len(fx.Attempts) != 2 || fx.Attempts[0].Code != "R_HTTP_503" || string(fx.Result()) != `{"city": "Lisbon", "high_c": 24}` {
		t.Fatalf("%s %+v", r.To, fx)
	}
	want := `POST /v1/forecast {"city":"Lisbon"} Bearer tok`
	if len(calls) != 2 || calls[1] != want {
		t.Errorf("calls %q", calls)
	}
	// denied by default
	inst, _ = m.NewInstance(machine.InstanceOptions{Executor: adapters.NewLive(nil)})
	r = step(inst, "Ask", `{"city": "Porto"}`)
	if r.To != "failed" || r.Effects[0].Status != machine.Denied || r.Effects[0].Decision != "default deny (no policy)" {
		t.Errorf("%s %+v", r.To, r.Effects[0])
	}
}

// mcpServer returns the command that starts the MCP test server, or skips
// (fails under CI=true) when node or the npm package is missing.
func mcpServer(t *testing.T) []string {
	t.Helper()
	script, _ := filepath.Abs("testdata/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	node, err := exec.LookPath("node")
	_, serr := os.Stat(script)
	if err != nil || serr != nil {
		msg := "the MCP test server needs node and `npm ci` in runtime/adapters/testdata/mcp"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return []string{node, script, "stdio"}
}

// TestLiveMCP runs the machine in live mode against a real MCP server
// (@modelcontextprotocol/server-everything over stdio), records a ledger
// and replays it.
func TestLiveMCP(t *testing.T) {
	cmd := mcpServer(t)
	t.Setenv("CAPS_TEST_HOST_SECRET", "from-the-host")
	pol := map[string]any{
		"allow": []map[string]string{{"effect": "mcp.call", "target": "everything.echo"}, {"effect": "mcp.call", "target": "everything.get-sum"}, {"effect": "mcp.call", "target": "everything.get-env"}},
		"mcp":   map[string]any{"everything": map[string]any{"command": cmd, "env": map[string]string{"CAPS_SECRET": "${CAPS_TEST_HOST_SECRET}"}}},
	}
	data, _ := json.Marshal(pol)
	p := loadArtifact(t, "testdata/live.caps", string(data))
	live := adapters.NewLive(p)
	defer live.Close()
	m := compile(t, "testdata/live.caps", "Relay")
	dir := t.TempDir()
	f, err := ledger.CreateDir(dir, ledger.SyncGroup)
	if err != nil {
		t.Fatal(err)
	}
	rec := ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: "testdata/live.caps"})
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: live, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	r := step(inst, "Send", `{"message": "hello from caps"}`)
	fx := r.Effects[0]
	if r.To != "sent" || fx.Status != machine.Executed {
		t.Fatalf("echo: %s %+v", r.To, fx)
	}
	var res struct {
		Content []struct{ Type, Text string }
	}
	if err := json.Unmarshal(fx.Result(), &res); err != nil || len(res.Content) == 0 || res.Content[0].Text != "Echo: hello from caps" {
		t.Errorf("echo result %s", fx.Result())
	}
	if a := fx.Attempts[0]; a.Adapter != "mcp" || a.Operation != "tools/call echo" {
		t.Errorf("attempt %+v", a)
	}
	step(inst, "Reset", ``)
	r = step(inst, "Add", `{"a": 2, "b": 40}`)
	if err := json.Unmarshal(r.Effects[0].Result(), &res); err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "42") {
		t.Errorf("get-sum result %s", r.Effects[0].Result())
	}
	step(inst, "Reset", ``)
	r = step(inst, "Env", ``)
	if !strings.Contains(string(r.Effects[0].Result()), "from-the-host") {
		t.Errorf("the host's credential did not reach the server: %.300s", r.Effects[0].Result())
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	// The live ledger replays: the recorded outcomes are fed back, nothing
	// is executed again.
	rep := replay.Dir(dir, replay.Options{})
	if !rep.OK {
		t.Fatalf("replay: %s", rep.Text())
	}
}

func TestMCPServerFailure(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	p := &adapters.Policy{
		Allow: []adapters.Rule{{Effect: "mcp.call"}},
		MCP:   map[string]*adapters.MCPServer{"everything": {Command: []string{"sh", "-c", "echo started >> " + starts + "; echo starting >&2; exit 3"}}},
	}
	live := adapters.NewLive(p)
	defer live.Close()
	m := compile(t, "testdata/live.caps", "Relay")
	inst, _ := m.NewInstance(machine.InstanceOptions{Executor: live})
	for i := 0; i < 2; i++ {
		r := step(inst, "Send", `{"message": "x"}`)
		fx := r.Effects[0]
		const want = "the MCP server of port everything is down (MCP initialize: the MCP server closed the connection (EOF); its stderr ends: starting): " +
			"check its command in $.host.mcp.everything of the host section of the host-policy artifact; the next attempt starts it again"
		if r.To != "failed" || fx.Status != machine.Failed || fx.Code != "R_PEER_DOWN" || fx.Error != want {
			t.Errorf("%s %+v", r.To, fx)
		}
		step(inst, "Reset", ``)
	}
	// Each attempt started the server anew.
	if data, _ := os.ReadFile(starts); string(data) != "started\nstarted\n" {
		t.Errorf("starts: %q", data)
	}
}

// TestLiveClaims runs claims before facts against the real MCP test
// server: the sum it returns is observed as a claim; the guard that
// reads it cannot run (R_CLAIM_NOT_ACCEPTED) until the human the policy
// names accepts it, and then reads the fact. The live ledger replays,
// trace records included, byte for byte.
func TestLiveClaims(t *testing.T) {
	cmd := mcpServer(t)
	pol := map[string]any{
		"allow": []map[string]string{{"effect": "mcp.call", "target": "everything.get-sum"}},
		"mcp":   map[string]any{"everything": map[string]any{"command": cmd}},
	}
	data, _ := json.Marshal(pol)
	const path = "testdata/claims_live.caps"
	live := adapters.NewLive(loadArtifact(t, path, string(data)))
	defer live.Close()
	m := compile(t, path, "Adder")
	dir := t.TempDir()
	f, err := ledger.CreateDir(dir, ledger.SyncGroup)
	if err != nil {
		t.Fatal(err)
	}
	rec := ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: path})
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: live, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	r := step(inst, "Add", `{"a": 2, "b": 40}`)
	if r.To != "summing" || r.Effects[0].Status != machine.Executed || len(r.Claims) != 1 || r.Claims[0].Status != machine.ClaimPending {
		t.Fatalf("Add: %s %+v %+v", r.To, r.Effects, r.Claims)
	}
	total := r.Claims[0].Value.AsText()
	if !strings.Contains(total, "42") {
		t.Fatalf("the observed sum %q does not say 42 (result %s)", total, r.Effects[0].Result())
	}
	// pending: the guard cannot read it, and the context holds no fact
	r = step(inst, "TotalAccepted", ``)
	if r.Failure == nil || r.Failure.Code != machine.CodeClaimNotAccepted || r.To != "summing" {
		t.Fatalf("TotalAccepted before acceptance: %+v", r.Failure)
	}
	if got := string(m.ContextJSON(inst.Context())); got != `{"a":2,"b":40,"total":"","ok":false}` {
		t.Fatalf("context before acceptance %s", got)
	}
	ctx := context.Background()
	if d := inst.Decide(ctx, machine.ClaimVerdict{Claim: "total", Verdict: machine.VerdictAccept, Principal: "mallory"}); d.Failure == nil || d.Failure.Code != machine.CodeClaimRefused {
		t.Fatalf("mallory's acceptance: %+v", d.Failure)
	}
	if d := inst.Decide(ctx, machine.ClaimVerdict{Claim: "total", Verdict: machine.VerdictAccept, Principal: "risk_officer"}); !d.OK || d.Claims[0].Status != machine.ClaimAccepted {
		t.Fatalf("risk_officer's acceptance: %+v", d)
	}
	r = step(inst, "TotalAccepted", ``)
	if !r.OK || r.To != "done" {
		t.Fatalf("TotalAccepted after acceptance: %+v", r.Failure)
	}
	quoted, _ := json.Marshal(total)
	if got, want := string(m.ContextJSON(inst.Context())), `{"a":2,"b":40,"total":`+string(quoted)+`,"ok":true}`; got != want {
		t.Errorf("context after acceptance %s, want %s", got, want)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := replay.Dir(dir, replay.Options{Trace: true}); !rep.OK || rep.Verified != rep.Records || rep.State != "done" {
		t.Fatalf("replay: %s", rep.Text())
	}
}
