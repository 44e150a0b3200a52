package adapters_test

import (
	"bytes"
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
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/adapters/peertest"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/replay"
)

// needNode returns the node binary and the absolute path of file, or
// skips (fails under CI=true) when node or the npm folder's packages are
// missing.
func needNode(t *testing.T, folder, file string) (string, string) {
	t.Helper()
	node, err := exec.LookPath("node")
	abs, _ := filepath.Abs(filepath.Join(folder, file))
	_, merr := os.Stat(filepath.Join(folder, "node_modules"))
	if err != nil || merr != nil {
		msg := fmt.Sprintf("this test needs node and `npm ci` in runtime/adapters/%s", folder)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, abs
}

// startA2A starts the A2A test agent (testdata/a2a/server.mjs, built with
// @a2a-js/sdk) on the loopback interface with the extra environment, and
// returns its base URL. It stops when the test ends.
func startA2A(t *testing.T, env ...string) string {
	t.Helper()
	node, script := needNode(t, "testdata/a2a", "server.mjs")
	return peertest.StartA2A(t, node, script, env...)
}

// renderer is a test A2UI renderer endpoint: it keeps the messages POSTed
// to it and answers GET /actions with the queued client messages (204
// after 200ms when none is queued). A2UI renderers are clients; a real one
// sits behind such an endpoint (a web app's backend relaying to browsers).
type renderer struct {
	*httptest.Server
	mu       sync.Mutex
	messages []string
	auth     []string
	actions  chan string
	fail     int // the next fail POSTs get 503
}

func newRenderer(t *testing.T) *renderer {
	r := &renderer{actions: make(chan string, 10)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.auth = append(r.auth, req.Header.Get("Authorization"))
		r.mu.Unlock()
		switch {
		case req.Method == "POST" && req.URL.Path == "/a2ui":
			r.mu.Lock()
			busy := r.fail > 0
			if busy {
				r.fail--
			}
			r.mu.Unlock()
			if busy {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			if ct := req.Header.Get("Content-Type"); ct != "application/jsonl" {
				http.Error(w, "content type "+ct, http.StatusUnsupportedMediaType)
				return
			}
			body, _ := io.ReadAll(req.Body)
			for _, l := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
				var m map[string]json.RawMessage
				if json.Unmarshal([]byte(l), &m) != nil || string(m["version"]) != `"v0.9"` || len(m) != 2 {
					http.Error(w, "not an A2UI v0.9 message: "+l, http.StatusBadRequest)
					return
				}
				r.mu.Lock()
				r.messages = append(r.messages, l)
				r.mu.Unlock()
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"ok": true}`)
		case req.Method == "GET" && req.URL.Path == "/a2ui/actions":
			select {
			case a := <-r.actions:
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, a)
			case <-time.After(200 * time.Millisecond):
				w.WriteHeader(http.StatusNoContent)
			}
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *renderer) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.messages
	r.messages = nil
	return m
}

// probe runs events on one instance of the Probe machine of
// testdata/protocol_live.caps under the host section, recording a ledger
// in dir.
type probe struct {
	t    *testing.T
	inst *machine.Instance
	rec  *ledger.Recorder
	live *adapters.LiveExecutor
}

func newProbe(t *testing.T, host string, dir string) *probe {
	t.Helper()
	p := loadArtifact(t, "testdata/protocol_live.caps", host)
	live := adapters.NewLive(p)
	t.Cleanup(func() { live.Close() })
	m := compile(t, "testdata/protocol_live.caps", "Probe")
	f, err := ledger.CreateDir(dir, ledger.SyncGroup)
	if err != nil {
		t.Fatal(err)
	}
	rec := ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: "testdata/protocol_live.caps"})
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: live, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	return &probe{t: t, inst: inst, rec: rec, live: live}
}

// fx is what a test checks of an effect: status, code, adapter and
// operation of the last attempt, and the error.
type fx struct {
	Status, Code, Adapter, Operation, Error string
}

func (p *probe) step(name, payload string) ([]fx, []machine.Effect) {
	p.t.Helper()
	r := step(p.inst, name, payload)
	if !r.OK {
		p.t.Fatalf("%s: %+v", name, r.Failure)
	}
	var got []fx
	for _, e := range r.Effects {
		f := fx{Status: string(e.Status), Code: e.Code, Error: e.Error}
		if n := len(e.Attempts); n > 0 {
			f.Adapter, f.Operation = e.Attempts[n-1].Adapter, e.Attempts[n-1].Operation
		}
		got = append(got, f)
	}
	return got, r.Effects
}

// replays closes the ledger and replays it.
func (p *probe) replays(dir string) {
	p.t.Helper()
	if err := p.rec.Close(); err != nil {
		p.t.Fatal(err)
	}
	if rep := replay.Dir(dir, replay.Options{Trace: true}); !rep.OK {
		p.t.Fatalf("replay: %s", rep.Text())
	}
}

// TestLiveA2A runs a2a.task, a2a.receive-artifact and a2a.message against
// a real A2A agent (@a2a-js/sdk, protocol 1.0 over JSON-RPC) with a bearer
// token from the host's environment, then against the same agent offering
// only protocol 0.3 (message/send, tasks/get), and replays the ledger.
func TestLiveA2A(t *testing.T) {
	base := startA2A(t, "A2A_TEST_TOKEN=sesame")
	t.Setenv("CAPS_TEST_A2A_TOKEN", "sesame")
	dir := t.TempDir()
	p := newProbe(t, `{"allow": [{"effect": "a2a.*"}],
		"a2a": {"security_reviewer": {"url": "`+base+`", "headers": {"Authorization": "Bearer ${CAPS_TEST_A2A_TOKEN}"}}}}`, dir)

	got, effects := p.step("Review", `{"change_id": 7}`)
	want := []fx{
		{Status: "executed", Adapter: "a2a", Operation: "SendMessage review_change"},
		{Status: "executed", Adapter: "a2a", Operation: "GetTask " + taskID(t, effects[0].Result())},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Review 7 (-want +got):\n%s", diff)
	}
	var task struct {
		Status  struct{ State string }
		History []struct {
			Parts    []struct{ Data json.RawMessage }
			Metadata map[string]string
		}
	}
	if err := json.Unmarshal(effects[0].Result(), &task); err != nil || task.Status.State != "TASK_STATE_COMPLETED" ||
		len(task.History) == 0 || string(task.History[0].Parts[0].Data) != `{"change_id":7}` || task.History[0].Metadata["skill"] != "review_change" {
		t.Errorf("a2a.task result %s", effects[0].Result())
	}
	var art struct {
		TaskID    string `json:"task_id"`
		Artifacts []struct {
			Name  string
			Parts []struct{ Data map[string]any }
		}
	}
	if err := json.Unmarshal(effects[1].Result(), &art); err != nil || art.TaskID != taskID(t, effects[0].Result()) || len(art.Artifacts) != 1 ||
		art.Artifacts[0].Name != "review" || art.Artifacts[0].Parts[0].Data["verdict"] != "approved" || art.Artifacts[0].Parts[0].Data["change_id"] != 7.0 {
		t.Errorf("a2a.receive-artifact result %s", effects[1].Result())
	}

	firstContext := contextID(t, effects[0].Result())
	got, effects = p.step("Review", `{"change_id": 13}`)
	failed := taskID(t, effects[0].Result())
	if c := contextID(t, effects[0].Result()); c != firstContext {
		t.Errorf("the second task is in context %s, not in the instance's context %s", c, firstContext)
	}
	want = []fx{
		{Status: "failed", Code: "R_A2A_TASK_FAILED", Adapter: "a2a", Operation: "SendMessage review_change",
			Error: "agent security_reviewer: task " + failed + " ended failed: change 13 touches the payment keys; review refused"},
		{Status: "skipped"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Review 13 (-want +got):\n%s", diff)
	}
	got, _ = p.step("Receive", `{"task_id": "`+failed+`"}`)
	want = []fx{{Status: "failed", Code: "R_A2A_TASK_FAILED", Adapter: "a2a", Operation: "GetTask " + failed,
		Error: "agent security_reviewer: task " + failed + " ended failed: change 13 touches the payment keys; review refused"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Receive failed task (-want +got):\n%s", diff)
	}
	got, _ = p.step("Receive", `{"task_id": "no-such-task"}`)
	want = []fx{{Status: "failed", Code: "R_A2A_ERROR", Adapter: "a2a", Operation: "GetTask no-such-task",
		Error: "agent security_reviewer: GetTask: error -32001: Task not found: no-such-task"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Receive unknown task (-want +got):\n%s", diff)
	}
	got, effects = p.step("Ping", ``)
	if diff := cmp.Diff([]fx{{Status: "executed", Adapter: "a2a", Operation: "SendMessage ping"}}, got); diff != "" {
		t.Errorf("Ping (-want +got):\n%s", diff)
	}
	if !bytes.Contains(effects[0].Result(), []byte(`"data":{"pong":true,"skill":"ping","input":{}}`)) {
		t.Errorf("a2a.message result %s", effects[0].Result())
	}
	got, _ = p.step("Translate", ``)
	want = []fx{{Status: "failed", Code: "R_A2A_SKILL", Adapter: "a2a", Error: "agent security_reviewer: its agent card lists the skills ping, review_change, not translate"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Translate (-want +got):\n%s", diff)
	}
	p.replays(dir)

	// A wrong token: the agent answers 401.
	t.Setenv("CAPS_TEST_A2A_TOKEN", "wrong")
	p = newProbe(t, `{"allow": [{"effect": "a2a.*"}],
		"a2a": {"security_reviewer": {"url": "`+base+`/", "headers": {"Authorization": "Bearer ${CAPS_TEST_A2A_TOKEN}"}}}}`, t.TempDir())
	got, _ = p.step("Ping", ``)
	want = []fx{{Status: "failed", Code: "R_HTTP_401", Adapter: "a2a", Operation: "SendMessage ping",
		Error: `agent security_reviewer: SendMessage ` + base + `/a2a/jsonrpc answered HTTP 401: {"error":"missing or wrong bearer token"}; check the credentials in $.host.a2a.security_reviewer.headers`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wrong token (-want +got):\n%s", diff)
	}

	// The same agent offering only A2A 0.3.
	base03 := startA2A(t, "A2A_TEST_VERSIONS=0.3")
	dir = t.TempDir()
	p = newProbe(t, `{"allow": [{"effect": "a2a.*"}], "a2a": {"security_reviewer": {"url": "`+base03+`/.well-known/agent-card.json"}}}`, dir)
	got, effects = p.step("Review", `{"change_id": 8}`)
	var t03 struct {
		Kind, ID string
		Status   struct{ State string }
	}
	json.Unmarshal(effects[0].Result(), &t03)
	want = []fx{
		{Status: "executed", Adapter: "a2a", Operation: "message/send review_change"},
		{Status: "executed", Adapter: "a2a", Operation: "tasks/get " + t03.ID},
	}
	if diff := cmp.Diff(want, got); diff != "" || t03.Kind != "task" || t03.Status.State != "completed" {
		t.Errorf("v0.3 Review (-want +got):\n%s\n%s", diff, effects[0].Result())
	}
	p.replays(dir)
}

func contextID(t *testing.T, res json.RawMessage) string {
	var r struct {
		ContextID string `json:"contextId"`
	}
	if json.Unmarshal(res, &r); r.ContextID == "" {
		t.Fatalf("no context id in %s", res)
	}
	return r.ContextID
}

func taskID(t *testing.T, res json.RawMessage) string {
	var r struct{ ID string }
	json.Unmarshal(res, &r)
	if r.ID == "" {
		t.Fatalf("no task id in %s", res)
	}
	return r.ID
}

// TestPeerDown: an agent, a renderer or an HTTP service that is not
// listening fails with R_PEER_DOWN, naming the peer, its address and the
// binding to fix; an unbound one with R_NO_ADAPTER.
func TestPeerDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	down := srv.URL
	srv.Close()
	p := newProbe(t, `{"allow": [{"effect": "*"}],
		"a2a": {"security_reviewer": {"url": "`+down+`"}},
		"a2ui": {"review": {"url": "`+down+`/a2ui"}}}`, t.TempDir())
	// Ping has (retry 1) and (on-error down): two attempts, then the route.
	got, effects := p.step("Ping", ``)
	for k := range got {
		got[k].Error = strings.Replace(got[k].Error, "dial tcp "+strings.TrimPrefix(down, "http://")+": connect: ", "", 1)
	}
	want := []fx{{Status: "failed", Code: "R_PEER_DOWN", Adapter: "a2a",
		Error: "agent security_reviewer at " + down + "/.well-known/agent-card.json is down (connection refused): start it, or fix $.host.a2a.security_reviewer.url in the host section of the host-policy artifact"}}
	if diff := cmp.Diff(want, got); diff != "" || len(effects[0].Attempts) != 2 || p.inst.State() != "down" {
		t.Errorf("agent down: %d attempts, state %s (-want +got):\n%s", len(effects[0].Attempts), p.inst.State(), diff)
	}
	p.step("Reset", ``)
	got, _ = p.step("Show", `{"note": "x"}`)
	for k := range got {
		got[k].Error = strings.Replace(got[k].Error, "dial tcp "+strings.TrimPrefix(down, "http://")+": connect: ", "", 1)
	}
	want = []fx{
		{Status: "failed", Code: "R_PEER_DOWN", Adapter: "a2ui", Operation: "POST createSurface+updateComponents+updateDataModel",
			Error: "the renderer of surface review at " + down + "/a2ui is down (connection refused): start it, or fix $.host.a2ui.review.url in the host section of the host-policy artifact"},
		{Status: "skipped"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("renderer down (-want +got):\n%s", diff)
	}
	got, _ = p.step("Write", `{"change_id": 1}`)
	want = []fx{{Status: "failed", Code: "R_NO_ADAPTER", Adapter: "store",
		Error: `the host policy binds no store ops; add it under "stores" in the host section: {"ops": {"dir": "FOLDER"}}`}, {Status: "skipped"}, {Status: "skipped"}, {Status: "skipped"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("store unbound (-want +got):\n%s", diff)
	}
}

// TestLiveA2UI: a2ui.emit and a2ui.update-data send A2UI v0.9 messages to
// the renderer endpoint; a2ui.await-action takes the user's action back,
// refusing actions the surface does not declare, the wrong action, and
// contexts that do not fit the action's inputs.
func TestLiveA2UI(t *testing.T) {
	r := newRenderer(t)
	t.Setenv("CAPS_TEST_UI_TOKEN", "ui-secret")
	dir := t.TempDir()
	p := newProbe(t, `{"allow": [{"effect": "a2ui.*"}],
		"a2ui": {"review": {"url": "`+r.URL+`/a2ui", "headers": {"Authorization": "Bearer ${CAPS_TEST_UI_TOKEN}"}}}}`, dir)
	got, effects := p.step("Show", `{"note": "looks fine"}`)
	want := []fx{
		{Status: "executed", Adapter: "a2ui", Operation: "POST createSurface+updateComponents+updateDataModel"},
		{Status: "executed", Adapter: "a2ui", Operation: "POST updateDataModel"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Show (-want +got):\n%s", diff)
	}
	// The messages are the ones caps a2ui-envelope prints for the surface
	// and the context's values (TestLiveA2UIMatchesEnvelope checks more).
	data := `{"version":"v0.9","updateDataModel":{"surfaceId":"review","path":"/","value":{"change_id":"0","note":"looks fine"}}}`
	wantMsgs := append(envelopeLines(t, "testdata/protocol_live.caps", "review", "create", ""),
		envelopeLines(t, "testdata/protocol_live.caps", "review", "components", "")...)
	wantMsgs = append(wantMsgs, data, data)
	if !strings.Contains(wantMsgs[0], `"catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"`) || wantMsgs[2] != envelopeLines(t, "testdata/protocol_live.caps", "review", "data", `{"note":"looks fine","change_id":0}`)[0] {
		t.Fatalf("envelopes: %q", wantMsgs)
	}
	if diff := cmp.Diff(wantMsgs, r.take()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if string(effects[1].Result()) != `{"messages":[`+data+`],"surface":"review"}` {
		t.Errorf("update-data result %s", effects[1].Result())
	}
	// The surface exists now: a second emit only updates it.
	p.step("Show", `{"note": "second look"}`)
	if msgs := r.take(); len(msgs) != 3 || !strings.Contains(msgs[0], `"updateComponents"`) || !strings.Contains(msgs[1], `"note":"second look"`) {
		t.Errorf("second emit: %q", msgs)
	}

	approve := `{"action":{"name":"approve","surfaceId":"review","sourceComponentId":"action_approve","timestamp":"2026-01-02T03:04:05Z","context":{"change_id":7,"note":"ok"}}}`
	for _, tt := range []struct {
		name, action string
		want         fx
	}{
		{"approve", approve, fx{Status: "executed", Adapter: "a2ui", Operation: "GET actions approve"}},
		{"integer as digits", strings.Replace(approve, `"change_id":7`, `"change_id":"7"`, 1), fx{Status: "executed", Adapter: "a2ui", Operation: "GET actions approve"}},
		{"digits out of range", strings.Replace(approve, `"change_id":7`, `"change_id":"18446744073709551616"`, 1),
			fx{Status: "failed", Code: "R_A2UI_ACTION", Adapter: "a2ui", Operation: "GET actions approve",
				Error: `surface review: action approve: change_id is not a U64: "18446744073709551616"`}},
		{"undeclared", strings.Replace(approve, `"name":"approve"`, `"name":"delete_everything"`, 1),
			fx{Status: "failed", Code: "R_A2UI_ACTION", Adapter: "a2ui", Operation: "GET actions approve",
				Error: `surface review declares no action or event "delete_everything" (it declares approve, comment, Approve); the action is refused`}},
		{"other surface", strings.Replace(approve, `"surfaceId":"review"`, `"surfaceId":"payments"`, 1),
			fx{Status: "failed", Code: "R_A2UI_ACTION", Adapter: "a2ui", Operation: "GET actions approve",
				Error: `surface review: the action "approve" came from surface "payments"; refused`}},
		{"wrong action", `{"action":{"name":"comment","surfaceId":"review","sourceComponentId":"action_comment","timestamp":"2026-01-02T03:04:05Z","context":{"note":"hm"}}}`,
			fx{Status: "failed", Code: "R_A2UI_ACTION", Adapter: "a2ui", Operation: "GET actions approve",
				Error: "surface review: the intent awaited action approve, the user chose comment"}},
		{"wrong type", strings.Replace(approve, `"change_id":7`, `"change_id":"seven"`, 1),
			fx{Status: "failed", Code: "R_A2UI_ACTION", Adapter: "a2ui", Operation: "GET actions approve",
				Error: `surface review: action approve: change_id is not a U64: "seven"`}},
		{"negative", strings.Replace(approve, `"change_id":7`, `"change_id":-7`, 1),
			fx{Status: "failed", Code: "R_A2UI_ACTION", Adapter: "a2ui", Operation: "GET actions approve",
				Error: `surface review: action approve: change_id is not a U64: -7`}},
		{"missing input", strings.Replace(approve, `"change_id":7,`, ``, 1),
			fx{Status: "failed", Code: "R_A2UI_ACTION", Adapter: "a2ui", Operation: "GET actions approve",
				Error: `surface review: action approve has no change_id in its context`}},
		{"extra input", strings.Replace(approve, `"note":"ok"`, `"note":"ok","amount":1`, 1),
			fx{Status: "failed", Code: "R_A2UI_ACTION", Adapter: "a2ui", Operation: "GET actions approve",
				Error: `surface review: action approve declares no input amount`}},
		{"client error", `{"error":{"code":"VALIDATION_FAILED","surfaceId":"review","path":"/components/3/text","message":"unknown path"}}`,
			fx{Status: "failed", Code: "R_A2UI_CLIENT_ERROR", Adapter: "a2ui", Operation: "GET actions approve",
				Error: `surface review: the renderer reported VALIDATION_FAILED: unknown path (at /components/3/text)`}},
		{"not a message", `{"hello":1}`,
			fx{Status: "failed", Code: "R_A2UI_RENDERER", Adapter: "a2ui", Operation: "GET actions approve",
				Error: `surface review: the renderer's answer is not an A2UI client message ({"action": ...} or {"error": ...}): {"hello":1}`}},
		{"no action in time", "",
			fx{Status: "failed", Code: "R_EFFECT_TIMEOUT", Adapter: "a2ui", Operation: "GET actions approve",
				Error: "surface review: no user action: context deadline exceeded"}},
	} {
		if tt.action != "" {
			r.actions <- tt.action
		}
		got, effects := p.step("Await", ``)
		if diff := cmp.Diff([]fx{tt.want}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if tt.action != "" && string(effects[0].Result()) != tt.action {
			t.Errorf("%s: result %s", tt.name, effects[0].Result())
		}
	}
	// Retries: the renderer is busy twice, the third attempt gets through.
	r.mu.Lock()
	r.fail = 2
	r.mu.Unlock()
	res := step(p.inst, "Notify", ``)
	var codes []string
	for _, a := range res.Effects[0].Attempts {
		codes = append(codes, fmt.Sprintf("%v %s %s", a.OK, a.Code, a.Error))
	}
	busy := fmt.Sprintf(`false R_A2UI_RENDERER the renderer of surface review at %s/a2ui answered HTTP 503: busy`, r.URL)
	if diff := cmp.Diff([]string{busy, busy, "true  "}, codes); diff != "" || res.Effects[0].Status != machine.Executed {
		t.Errorf("retries (-want +got):\n%s", diff)
	}
	if msgs := r.take(); len(msgs) != 1 || !strings.Contains(msgs[0], `"updateDataModel"`) {
		t.Errorf("after retries: %q", msgs)
	}

	r.mu.Lock()
	for _, a := range r.auth {
		if a != "Bearer ui-secret" {
			t.Errorf("a request without the host's credential: %q", a)
			break
		}
	}
	r.mu.Unlock()
	p.replays(dir)
}

// TestLiveMCPResources reads and subscribes to a resource of
// @modelcontextprotocol/server-everything through the binding's resource
// map, and fails for a resource the server does not have.
func TestLiveMCPResources(t *testing.T) {
	cmd := mcpServer(t)
	host, _ := json.Marshal(map[string]any{
		"allow": []map[string]string{{"effect": "mcp.*"}},
		"mcp": map[string]any{"everything": map[string]any{"command": cmd,
			"resources": map[string]string{"style_guide": "demo://resource/static/document/architecture.md"}}},
	})
	dir := t.TempDir()
	p := newProbe(t, string(host), dir)
	const uri = "demo://resource/static/document/architecture.md"
	for _, tt := range []struct {
		event string
		want  fx
	}{
		{"ReadStyle", fx{Status: "executed", Adapter: "mcp", Operation: "resources/read " + uri}},
		{"Subscribe", fx{Status: "executed", Adapter: "mcp", Operation: "resources/subscribe " + uri + " + resources/read"}},
		{"ReadGlossary", fx{Status: "failed", Code: "R_MCP_RESOURCE", Adapter: "mcp",
			Error: `port everything: the MCP server has no resource named glossary (it lists architecture.md, extension.md, features.md, how-it-works.md, instructions.md, startup.md, structure.md); map it to a URI in the binding: "resources": {"glossary": "URI"} under $.host.mcp.everything`}},
	} {
		got, effects := p.step(tt.event, ``)
		if diff := cmp.Diff([]fx{tt.want}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.event, diff)
			continue
		}
		if tt.want.Status == "executed" {
			var res struct {
				Contents []struct{ URI, Text string }
			}
			if err := json.Unmarshal(effects[0].Result(), &res); err != nil || len(res.Contents) != 1 || res.Contents[0].URI != uri || !strings.Contains(res.Contents[0].Text, "#") {
				t.Errorf("%s result %.300s", tt.event, effects[0].Result())
			}
		}
	}
	p.replays(dir)
}

// doubleExec runs every attempt twice against the live executor, as a
// retry after a lost answer would: the store must write the intent once.
type doubleExec struct{ *adapters.LiveExecutor }

func (d doubleExec) Execute(ctx context.Context, c *machine.Call) machine.Outcome {
	d.LiveExecutor.Execute(ctx, c)
	return d.LiveExecutor.Execute(ctx, c)
}

// TestLiveStore: db.write and typedb.write append whole JSON lines (once
// per intent), db.project rewrites the read model atomically, and
// typedb.query filters the facts by the event's payload. The declared
// backends (surrealdb, typedb) are not contacted.
func TestLiveStore(t *testing.T) {
	store := t.TempDir()
	t.Setenv("CAPS_TEST_STORE", store)
	// A torn last line, as a crash in the middle of a write leaves it.
	os.MkdirAll(filepath.Join(store, "ops"), 0o755)
	os.WriteFile(filepath.Join(store, "ops", "changes.jsonl"), []byte(`{"intent":"torn`), 0o644)
	pol := loadArtifact(t, "testdata/protocol_live.caps", `{"allow": [{"effect": "db.*"}, {"effect": "typedb.*"}],
		"stores": {"ops": {"dir": "${CAPS_TEST_STORE}/ops"}, "facts": {"dir": "${CAPS_TEST_STORE}/facts"}}}`)
	live := adapters.NewLive(pol)
	defer live.Close()
	m := compile(t, "testdata/protocol_live.caps", "Probe")
	dir := t.TempDir()
	f, err := ledger.CreateDir(dir, ledger.SyncGroup)
	if err != nil {
		t.Fatal(err)
	}
	rec := ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: "testdata/protocol_live.caps"})
	inst, err := m.NewInstance(machine.InstanceOptions{ID: "probe-1", Executor: doubleExec{live}, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	results := func(r machine.StepResult) []string {
		var out []string
		for _, e := range r.Effects {
			out = append(out, fmt.Sprintf("%s %s %s %s", e.Status, e.Attempts[0].Operation, e.Result(), e.Error))
		}
		return out
	}
	r1 := step(inst, "Write", `{"change_id": 7}`)
	r2 := step(inst, "Write", `{"change_id": 9}`)
	fact := func(r machine.StepResult, k int, id int) string {
		return fmt.Sprintf(`{"intent":"%s","instance":"probe-1","machine":"Probe","seq":%d,"event":"Write","state":"ready","context":{"change_id":%d,"note":"","task_id":""},"payload":{"change_id":%d},"args":[]}`,
			r.Effects[k].ID, r.Seq, id, id)
	}
	want := []string{
		`executed append changes.jsonl {"file":"changes.jsonl","line":1,"duplicate":true} `,
		`executed project changes_view.json {"file":"changes_view.json","key":"probe-1"} `,
		`executed append facts.jsonl {"file":"facts.jsonl","line":1,"duplicate":true} `,
		`executed query facts.jsonl {"facts":[` + fact(r1, 2, 7) + `]} `,
	}
	if diff := cmp.Diff(want, results(r1)); diff != "" {
		t.Errorf("first write (-want +got):\n%s", diff)
	}
	if got := results(r2)[3]; got != `executed query facts.jsonl {"facts":[`+fact(r2, 2, 9)+`]} ` {
		t.Errorf("query of change 9: %s", got)
	}
	changes, _ := os.ReadFile(filepath.Join(store, "ops", "changes.jsonl"))
	if want := fact(r1, 0, 7) + "\n" + fact(r2, 0, 9) + "\n"; string(changes) != want {
		t.Errorf("changes.jsonl\n%s\nwant\n%s", changes, want)
	}
	view, _ := os.ReadFile(filepath.Join(store, "ops", "changes_view.json"))
	if want := "{\n  \"probe-1\": " + fact(r2, 1, 9) + "\n}\n"; string(view) != want {
		t.Errorf("changes_view.json\n%s\nwant\n%s", view, want)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := replay.Dir(dir, replay.Options{Trace: true}); !rep.OK {
		t.Fatalf("replay: %s", rep.Text())
	}
}

// TestHostBindingsErrors: the new bindings are checked when the artifact
// loads.
func TestHostBindingsErrors(t *testing.T) {
	mod := hostModule(t, "testdata/protocol_live.caps")
	for _, tt := range []struct{ host, err string }{
		{`{"a2a": {"security_reviewer": {"url": "ftp://x"}}}`, `$.host.a2a.security_reviewer.url: "ftp://x" is not an http:// or https:// URL with a host; give the agent's endpoint`},
		{`{"a2a": {"security_reviewer": {}}}`, `$.host.a2a.security_reviewer.url: "" is not an http:// or https:// URL with a host; give the agent's endpoint`},
		{`{"a2ui": {"review": {"url": "http://*.example.test"}}}`, `$.host.a2ui.review.url: "http://*.example.test": the host of a binding is one host, not a pattern`},
		{`{"a2ui": {"rev*": {"url": "http://127.0.0.1:1"}}}`, `$.host.a2ui["rev*"]: a binding names one port exactly, as the module declares it; "rev*" is not a port name`},
		{`{"stores": {"ops": {"dir": " "}}}`, `$.host.stores.ops.dir: store ops has no dir; give the folder of its files, e.g. "var/ops"`},
	} {
		p := &adapters.Policy{}
		if err := json.Unmarshal([]byte(tt.host), p); err != nil {
			t.Fatal(err)
		}
		_, err := adapters.NewHostPolicy(mod, p)
		if err == nil || err.Error() != tt.err {
			t.Errorf("%s:\n got %v\nwant %s", tt.host, err, tt.err)
		}
	}
	// An enforced (egress-only envsrv) refuses an agent or a surface not
	// listed.
	enclosed := hostModule(t, "testdata/enclosed.caps")
	for _, host := range []string{`{"a2a": {"reviewer": {"url": "http://127.0.0.1:1"}}}`, `{"a2ui": {"review": {"url": "http://127.0.0.1:1"}}}`} {
		p := &adapters.Policy{}
		json.Unmarshal([]byte(host), p)
		_, err := adapters.NewHostPolicy(enclosed, p)
		if err == nil || !strings.Contains(err.Error(), "trust boundary Enclave allows egress only through envsrv, not port ") {
			t.Errorf("%s: %v", host, err)
		}
	}
	// An enforced (filesystem read-only) refuses a store binding.
	ro := filepath.Join(t.TempDir(), "ro.caps")
	os.WriteFile(ro, []byte(`(module test.read_only
  (capsule "0.1.0")
  (profile persistence.file)
  (store ops
    (backend file)
    (authority runtime-state))
  (trust-boundary Sealed
    (mode enforce)
    (filesystem read-only))
  (machine M
    (event Go)
    (initial a)
    (state a
      (on Go
        (target a)
        (effects (db.write ops.log))))))
`), 0o644)
	_, err := adapters.NewHostPolicy(hostModule(t, ro), &adapters.Policy{Stores: map[string]*adapters.StoreBinding{"ops": {Dir: "var/ops"}}})
	if want := `$.host.stores.ops: trust boundary Sealed has (filesystem read-only), and a store binding writes files on the host: remove this binding`; err == nil || err.Error() != want {
		t.Errorf("read-only: %v", err)
	}
	// unknown fields in a binding
	doc := strings.Replace(string(artifact(t, "testdata/protocol_live.caps", `{"a2a": {"security_reviewer": {"url": "http://127.0.0.1:1"}}}`)),
		`"url": "http://127.0.0.1:1"`, `"url": "http://127.0.0.1:1", "token": "x"`, 1)
	if _, err := adapters.ParseHostPolicy([]byte(doc), "p.json", mod); err == nil || !strings.HasSuffix(err.Error(), `$.host.a2a.security_reviewer.token: unknown field "token"; the fields here are url, headers`) {
		t.Errorf("unknown field: %v", err)
	}
}

// TestHostDenyReachesNoPeer: an intent the host section denies never
// reaches its peer.
func TestHostDenyReachesNoPeer(t *testing.T) {
	r := newRenderer(t)
	p := newProbe(t, `{"allow": [{"effect": "a2ui.*"}], "deny": [{"effect": "a2ui.emit", "target": "review"}],
		"a2ui": {"review": {"url": "`+r.URL+`/a2ui"}}}`, t.TempDir())
	got, _ := p.step("Show", `{"note": "x"}`)
	want := []fx{{Status: "denied", Code: "R_EFFECT_DENIED", Error: "the host policy denies a2ui.emit review (deny a2ui.emit review)"}, {Status: "skipped"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.auth) != 0 {
		t.Errorf("the renderer got %d requests", len(r.auth))
	}
}

// TestAuthorityGovernsLiveA2A: in a governed module the authority decides
// before the A2A adapter is asked: a denied intent is never attempted, an
// allowed one reaches the real agent.
func TestAuthorityGovernsLiveA2A(t *testing.T) {
	base := startA2A(t)
	p := loadArtifact(t, "testdata/governed_live.caps", `{"allow": [{"effect": "a2a.task"}], "a2a": {"security_reviewer": {"url": "`+base+`"}}}`)
	live := adapters.NewLive(p)
	defer live.Close()
	m := compile(t, "testdata/governed_live.caps", "Review")
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: live})
	if err != nil {
		t.Fatal(err)
	}
	r := step(inst, "Submit", `{"change_id": 500}`)
	if e := r.Effects[0]; e.Status != machine.Denied || e.Code != "R_AUTHORITY_DENIED" || len(e.Attempts) != 0 {
		t.Errorf("change 500: %s %s %d attempts", e.Status, e.Code, len(e.Attempts))
	}
	r = step(inst, "Submit", `{"change_id": 7}`)
	if e := r.Effects[0]; e.Status != machine.Executed || len(e.Attempts) != 1 || e.Attempts[0].Operation != "SendMessage review_change" ||
		!bytes.Contains(e.Result(), []byte(`"state":"TASK_STATE_COMPLETED"`)) {
		t.Errorf("change 7: %s %s %+v", e.Status, e.Code, e.Attempts)
	}
}
