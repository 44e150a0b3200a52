package adapters_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/machine"
)

// TestMain lets the test binary serve as an MCP server that prints its
// environment (the "print-env" tool), for the trust-boundary tests: with
// CAPS_TEST_ENV_SERVER=1 in its environment it serves stdin and exits.
func TestMain(m *testing.M) {
	if os.Getenv("CAPS_TEST_ENV_SERVER") == "1" {
		serveEnv()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveEnv answers MCP JSON-RPC requests on stdin: initialize, and any
// tools/call with the process's environment, one VAR=value a line, sorted.
func serveEnv() {
	sc := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": adapters.MCPProtocolVersion, "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "env", "version": "1"}}
		default:
			env := os.Environ()
			sort.Strings(env)
			result = map[string]any{"content": []map[string]any{{"type": "text", "text": strings.Join(env, "\n")}}}
		}
		out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
}

// hostModule loads a checked module for the host-policy tests.
func hostModule(t *testing.T, path string) adapters.HostModule {
	t.Helper()
	p, err := (&load.Loader{}).Load(path)
	if err != nil || p.Result.HasErrors() {
		t.Fatalf("load %s: %v %v", path, err, p.Result.Diagnostics)
	}
	return adapters.HostModule{Path: path, Module: p.File.Module, Hash: p.Hash}
}

// artifact returns the canonical artifact of the module at path with the
// host section host (JSON; "" generates it).
func artifact(t *testing.T, path, host string) []byte {
	t.Helper()
	var p *adapters.Policy
	if host != "" {
		p = &adapters.Policy{}
		if err := json.Unmarshal([]byte(host), p); err != nil {
			t.Fatal(err)
		}
	}
	h, err := adapters.NewHostPolicy(hostModule(t, path), p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadArtifact makes the artifact of the module with the host section and
// loads it as live mode does.
func loadArtifact(t *testing.T, path, host string) *adapters.Policy {
	t.Helper()
	p, err := adapters.ParseHostPolicy(artifact(t, path, host), "policy.json", hostModule(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGeneratedHostPolicy: the generated artifact allows exactly the
// module's effects and targets, binds nothing, is canonical and stable,
// and loads.
func TestGeneratedHostPolicy(t *testing.T) {
	a := artifact(t, "testdata/live.caps", "")
	if b := artifact(t, "testdata/live.caps", ""); !bytes.Equal(a, b) {
		t.Error("two exports differ")
	}
	var h adapters.HostPolicy
	if err := json.Unmarshal(a, &h); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(h.Host)
	want := `{"allow":[{"effect":"mcp.call","target":"everything.echo"},{"effect":"mcp.call","target":"everything.get-sum"},` +
		`{"effect":"mcp.call","target":"everything.get-env"},{"effect":"http.call","target":"weather.forecast"}],"deny":[],"mcp":{},"http":{},"timeout":"30s"}`
	if string(got) != want {
		t.Errorf("host section\n got %s\nwant %s", got, want)
	}
	if !bytes.HasPrefix(a, []byte("{\n  \"authority\": {\n    \"capabilities\": [],\n")) || !bytes.HasSuffix(a, []byte("\n  \"version\": 1\n}\n")) {
		t.Errorf("not canonical:\n%s", a)
	}
	if h.Format != "capsulang.host-policy" || h.Version != 1 || h.Module != "test.live" || h.SemanticHash != hostModule(t, "testdata/live.caps").Hash {
		t.Errorf("header %q %d %q %q", h.Format, h.Version, h.Module, h.SemanticHash)
	}
	if _, err := adapters.ParseHostPolicy(a, "policy.json", hostModule(t, "testdata/live.caps")); err != nil {
		t.Error(err)
	}
}

// TestParseHostPolicyErrors: every way an artifact can be unusable gets a
// message with the place and what to do.
func TestParseHostPolicyErrors(t *testing.T) {
	enclosed := hostModule(t, "testdata/enclosed.caps")
	base := string(artifact(t, "testdata/enclosed.caps", `{"allow": [{"effect": "mcp.call", "target": "envsrv.print-env"}],
		"mcp": {"envsrv": {"command": ["envsrv"]}}}`))
	// edit replaces the first old in the artifact, or, with host set, in
	// its host section.
	edit := func(old, new string, host ...bool) string {
		from := 0
		if len(host) > 0 {
			from = strings.Index(base, `"host": {`)
		}
		i := strings.Index(base[from:], old)
		if i < 0 {
			t.Fatalf("the artifact has no %q", old)
		}
		return base[:from+i] + new + base[from+i+len(old):]
	}
	const regen = "caps host-policy testdata/enclosed.caps --host policy.json --json > NEW.json"
	tests := []struct {
		name, doc, err string
	}{
		{"truncated", base[:200], `10:12: not valid JSON: unexpected end of JSON input`},
		{"not JSON", edit(`"deny": [],`, `"deny": [,`), `53:14: not valid JSON: invalid character ',' looking for beginning of value`},
		{"not an object", `[1]`, `1:1: $: a host-policy artifact is a JSON object, not an array`},
		{"legacy", `{"allow": [{"effect": "mcp.call"}], "timeout": "5s"}`,
			`this is a host policy in the old format (top-level allow, deny, mcp, http, timeout); live mode now takes the host-policy artifact of the module. Convert it: caps host-policy testdata/enclosed.caps --host policy.json --json > NEW.json, then pass NEW.json to --policy`},
		{"no format", `{"colour": 1}`, `1:1: $: no "format": this is not a host-policy artifact; generate one with caps host-policy MODULE --json`},
		{"other format", edit(`"capsulang.host-policy"`, `"capsulang.ir"`), `45:13: $.format: the format is "capsulang.ir", expected "capsulang.host-policy"`},
		{"version 2", edit(`"version": 1`, `"version": 2`),
			`66:14: $.version: version 2 is not supported: this caps reads version 1; regenerate the artifact with this caps: caps host-policy MODULE --host FILE --json`},
		{"changed module", edit(enclosed.Hash, "sha256:"+strings.Repeat("0", 64)),
			`65:20: $.semantic_hash: the artifact was made for semantic hash sha256:0000000000000000000000000000000000000000000000000000000000000000 of module test.enclosed, but testdata/enclosed.caps now has semantic hash ` + enclosed.Hash + `: the module changed since. Regenerate the artifact, keeping its host section: ` + regen},
		{"other module", string(artifact(t, "testdata/live.caps", "")),
			`68:20: $.semantic_hash: the artifact is for module test.live (semantic hash ` + hostModule(t, "testdata/live.caps").Hash + `), not for testdata/enclosed.caps (module test.enclosed, semantic hash ` + enclosed.Hash + `): pass the artifact of this module, or make one from this one's host section: ` + regen},
		{"unknown field", edit(`"timeout": "30s"`, `"timeout": "30s", "colour": 1`),
			`62:23: $.host.colour: unknown field "colour"; the fields here are allow, deny, mcp, http, a2a, a2ui, stores, timeout`},
		{"unknown nested field", edit(`"command": [`, `"cmd": [], "command": [`),
			`57:9: $.host.mcp.envsrv.cmd: unknown field "cmd"; the fields here are command, env, dir, resources`},
		{"missing field", edit(`"deny": [],`, ``), `46:11: $.host: missing field "deny"`},
		{"repeated field", edit(`"deny": [],`, `"deny": [], "deny": [],`), `53:17: $.host.deny: given twice`},
		{"wrong type", edit(`"effect": "mcp.call",`, `"effect": 3,`, true), `49:19: $.host.allow[0].effect: expected a string, found a number`},
		{"bad duration", edit(`"timeout": "30s"`, `"timeout": true`),
			`62:16: $.host.timeout: a duration is a string such as "30s" or a number of milliseconds, not true`},
		{"authority edited", edit(`"secrets": "ambient-deny"`, `"secrets": "ambient-allow"`),
			`authority.trust_boundaries[Enclave].secrets is "ambient-allow" in the artifact but "ambient-deny" in the module: the authority and effects sections are generated from module test.enclosed and must not be edited; change the module instead and regenerate the artifact, keeping its host section: ` + regen},
		{"module edited", edit(`"module": "test.enclosed"`, `"module": "test.other"`),
			`$.module: the module is "test.other", but testdata/enclosed.caps declares module test.enclosed; the field is generated and must not be edited`},
		{"bad pattern", edit(`"target": "envsrv.print-env"`, `"target": "envsrv.[print"`, true), `$.host.allow[0].target: bad pattern "envsrv.[print"`},
		{"empty effect", edit(`"effect": "mcp.call",`, `"effect": "",`, true), `$.host.allow[0].effect: a rule needs an effect (a name or a pattern such as mcp.call or *)`},
		{"wildcard binding", edit(`"envsrv": {`, `"env*": {`), `$.host.mcp["env*"]: a binding names one port exactly, as the module declares it; "env*" is not a port name`},
		{"no command", edit(`"command": [
          "envsrv"
        ]`, `"command": []`), `$.host.mcp.envsrv.command: the MCP server of port envsrv has no command; give the program and its arguments, e.g. ["node", "server.js", "stdio"]`},
		{"file URL", edit(`"http": {}`, `"http": {"envsrv": {"url": "file:///etc/passwd"}}`), `$.host.http.envsrv.url: "file:///etc/passwd" is not an http:// or https:// URL with a host`},
		{"egress", edit(`"http": {}`, `"http": {"weather": {"url": "https://api.weather.test/v1"}}`),
			`$.host.http.weather: trust boundary Enclave allows egress only through envsrv, not port weather: remove this binding, or list the port in the boundary's (egress-only ...) clause`},
		{"network deny-by-default", edit(`"http": {}`, `"http": {"envsrv": {"url": "https://api.weather.test/v1"}}`),
			`$.host.http.envsrv: trust boundary Enclave has (network deny-by-default): an HTTP binding must name a port that module test.enclosed declares with (protocol http), and it declares no such port envsrv`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := adapters.ParseHostPolicy([]byte(tt.doc), "policy.json", enclosed)
			got := "<nil>"
			if err != nil {
				got = err.Error()
			}
			if got != tt.err {
				t.Errorf("got  %s\nwant %s", got, tt.err)
			}
		})
	}
}

// TestReadHostSection: --host takes the host section of an artifact (of
// any module) or converts a legacy policy file, keeping ${NAME} as written.
func TestReadHostSection(t *testing.T) {
	dir := t.TempDir()
	legacy := `{"allow": [{"effect": "http.call", "target": "weather.*"}],
		"http": {"weather": {"url": "http://127.0.0.1:9/v1", "headers": {"Authorization": "Bearer ${WEATHER_TOKEN}"}}}}`
	want := `{"allow":[{"effect":"http.call","target":"weather.*"}],"deny":[],"mcp":{},` +
		`"http":{"weather":{"url":"http://127.0.0.1:9/v1","headers":{"Authorization":"Bearer ${WEATHER_TOKEN}"}}},"timeout":"30s"}`
	tests := []struct{ name, doc, want, err string }{
		{"legacy", legacy, want, ""},
		{"artifact", string(artifact(t, "testdata/live.caps", legacy)), want, ""},
		{"legacy with an unknown field", `{"allow": [], "colour": 1}`, "", `host.json:1:15: $.colour: unknown field "colour"; the fields here are allow, deny, mcp, http, timeout`},
		{"neither", `{"colour": 1}`, "", `host.json:1:1: $: no "format": this is not a host-policy artifact; generate one with caps host-policy MODULE --json`},
		{"legacy with a bad binding", `{"mcp": {"x": {"command": []}}}`, "",
			`host.json: $.host.mcp.x.command: the MCP server of port x has no command; give the program and its arguments, e.g. ["node", "server.js", "stdio"]`},
		{"legacy with a wrong type", `{"allow": {}}`, "", `host.json:1:11: $.allow: expected an array, found an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := dir + "/host.json"
			os.WriteFile(file, []byte(tt.doc), 0o644)
			t.Chdir(dir)
			p, err := adapters.ReadHostSection("host.json")
			got, msg := "", ""
			if err != nil {
				msg = err.Error()
			} else {
				b, _ := json.Marshal(p)
				got = string(b)
			}
			if diff := cmp.Diff([]string{tt.want, tt.err}, []string{got, msg}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTrustBoundaryEnvironment runs a real MCP server process that prints
// its environment: under an enforced (secrets ambient-deny) it gets only
// the env of its binding (with ${NAME} resolved) and the PATH resolved at
// load; without a trust boundary it inherits the host's environment,
// ambient secret included.
func TestTrustBoundaryEnvironment(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CAPS_TEST_AMBIENT_SECRET", "must-not-leak")
	t.Setenv("CAPS_TEST_GIVEN_SECRET", "given")
	binding := func(port string) string {
		b, _ := json.Marshal(map[string]any{"command": []string{exe}, "env": map[string]string{"CAPS_TEST_ENV_SERVER": "1", "TOKEN": "${CAPS_TEST_GIVEN_SECRET}"}})
		return `"mcp": {"` + port + `": ` + string(b) + `}`
	}
	tests := []struct {
		name, module, machine, event, host string
		want                               func(env []string) string
	}{
		{"ambient-deny", "testdata/enclosed.caps", "Probe", "Env", `{"allow": [{"effect": "mcp.call"}], ` + binding("envsrv") + `}`,
			func(env []string) string {
				return cmp.Diff([]string{"CAPS_TEST_ENV_SERVER=1", "PATH=" + os.Getenv("PATH"), "TOKEN=given"}, env)
			}},
		{"no trust boundary", "testdata/live.caps", "Relay", "Env", `{"allow": [{"effect": "mcp.call"}], ` + binding("everything") + `}`,
			func(env []string) string {
				for _, want := range []string{"CAPS_TEST_AMBIENT_SECRET=must-not-leak", "TOKEN=given", "CAPS_TEST_ENV_SERVER=1"} {
					if !contains(env, want) {
						return "no " + want + " in " + strings.Join(env, " ")
					}
				}
				return ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := adapters.NewLive(loadArtifact(t, tt.module, tt.host))
			defer live.Close()
			inst, _ := compile(t, tt.module, tt.machine).NewInstance(machine.InstanceOptions{Executor: live})
			r := step(inst, tt.event, ``)
			fx := r.Effects[0]
			if fx.Status != machine.Executed {
				t.Fatalf("%+v", fx)
			}
			var res struct{ Content []struct{ Type, Text string } }
			if err := json.Unmarshal(fx.Result(), &res); err != nil || len(res.Content) != 1 {
				t.Fatalf("result %s", fx.Result())
			}
			if msg := tt.want(strings.Split(res.Content[0].Text, "\n")); msg != "" {
				t.Errorf("the server's environment: %s", msg)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestEgressAtAdapterStart: the adapters themselves refuse a port outside
// the boundary's egress, even under a policy that binds it.
func TestEgressAtAdapterStart(t *testing.T) {
	p := &adapters.Policy{
		Allow:    []adapters.Rule{{Effect: "*"}},
		MCP:      map[string]*adapters.MCPServer{"weather": {Command: []string{"false"}}},
		HTTP:     map[string]*adapters.HTTPService{"weather": {URL: "http://127.0.0.1:9"}},
		Boundary: &adapters.Boundary{Names: []string{"Enclave"}, EgressOnly: []string{"envsrv"}},
	}
	live := adapters.NewLive(p)
	defer live.Close()
	inst, _ := compile(t, "testdata/enclosed.caps", "Probe").NewInstance(machine.InstanceOptions{Executor: live})
	fx := step(inst, "Ask", `{"city": "Oslo"}`).Effects[0]
	got := []string{string(fx.Status), fx.Code, fx.Error}
	want := []string{"failed", "R_NO_ADAPTER", "trust boundary Enclave allows egress only through envsrv, not port weather"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
