package main

import (
	"bytes"
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

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/runtime/adapters/peertest"
)

// livePeers are the real peers of the end-to-end live test, on the
// loopback interface: the A2A agent (runtime/adapters/testdata/a2a, built
// with @a2a-js/sdk), the CI MCP server (runtime/adapters/testdata/mcp,
// built with the official MCP SDK) and an A2UI renderer endpoint.
type livePeers struct {
	node, ciServer, a2aBase string
	renderer                *httptest.Server
	mu                      sync.Mutex
	surfaces                []string // "surface kind", in order
}

// needNodeFolder returns node and the absolute path of an npm test folder
// of runtime/adapters, or skips (fails under CI=true) when either is
// missing.
func needNodeFolder(t *testing.T, folder string) (string, string) {
	t.Helper()
	node, err := exec.LookPath("node")
	abs, _ := filepath.Abs(filepath.Join("../../runtime/adapters/testdata", folder))
	_, merr := os.Stat(filepath.Join(abs, "node_modules"))
	if err != nil || merr != nil {
		msg := "this test needs node and `npm ci` in runtime/adapters/testdata/" + folder
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, abs
}

func startPeers(t *testing.T) *livePeers {
	t.Helper()
	node, mcpDir := needNodeFolder(t, "mcp")
	_, a2aDir := needNodeFolder(t, "a2a")
	p := &livePeers{node: node, ciServer: filepath.Join(mcpDir, "ci-server.mjs")}

	p.a2aBase = peertest.StartA2A(t, node, filepath.Join(a2aDir, "server.mjs"))

	p.renderer = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.Header.Get("Content-Type") != "application/jsonl" {
			http.Error(w, "POST A2UI messages as JSON Lines", http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(r.Body)
		for _, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
			var m map[string]map[string]any
			var v struct{ Version string }
			json.Unmarshal([]byte(l), &v)
			json.Unmarshal([]byte(l), &m)
			for kind, body := range m {
				if kind != "version" && v.Version == "v0.9" {
					p.mu.Lock()
					p.surfaces = append(p.surfaces, fmt.Sprint(body["surfaceId"], " ", kind))
					p.mu.Unlock()
				}
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(p.renderer.Close)
	return p
}

// hostFile writes a host file (an artifact of the module whose host
// section binds the peers) made from the generated artifact.
func (p *livePeers) hostFile(t *testing.T, module, file, a2aURL, storeDir, ciLog string) {
	t.Helper()
	gen := runCaps(t, "", "host-policy", "--json", module)
	if gen.code != 0 {
		t.Fatalf("host-policy: %+v", gen)
	}
	var art map[string]any
	if err := json.Unmarshal([]byte(gen.stdout), &art); err != nil {
		t.Fatal(err)
	}
	host := art["host"].(map[string]any)
	host["mcp"] = map[string]any{"ci": map[string]any{"command": []string{p.node, p.ciServer}, "env": map[string]string{"CI_SERVER_LOG": ciLog}}}
	host["a2a"] = map[string]any{"security_reviewer": map[string]any{"url": a2aURL}}
	ui := map[string]any{}
	for _, s := range []string{"change_status", "change_approval", "change_deployment"} {
		ui[s] = map[string]any{"url": p.renderer.URL + "/a2ui"}
	}
	host["a2ui"] = ui
	host["stores"] = map[string]any{"operational": map[string]any{"dir": storeDir}}
	data, _ := json.MarshalIndent(art, "", "  ")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

type liveStep struct {
	Event, From, To string
	Effects         []string
}

func liveSteps(t *testing.T, out string) (state, status string, steps []liveStep) {
	t.Helper()
	var r struct {
		State, Status string
		Steps         []struct {
			Event, From, To string
			Effects         []struct {
				Effect, Target, Status, Code string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, s := range r.Steps {
		ls := liveStep{Event: s.Event, From: s.From, To: s.To}
		for _, e := range s.Effects {
			ls.Effects = append(ls.Effects, strings.TrimSpace(fmt.Sprintf("%s %s %s %s", e.Effect, e.Target, e.Status, e.Code)))
		}
		steps = append(steps, ls)
	}
	return r.State, r.Status, steps
}

// TestLiveChangeApproval runs the spec's ChangeApproval (our adaptation,
// testdata/live/change_approval.caps) in live mode end to end
// with caps machine-run --mode live --policy ARTIFACT, the artifact made
// by caps host-policy --host HOSTFILE: the store writes go to a
// file-backed store, the security review to a real A2A agent, the
// surfaces to a renderer endpoint and ci.deploy / ci.rollback to a real
// MCP server. The instance reaches its final state; caps replay then
// reproduces the ledger byte for byte. With the A2A agent down, the first
// step fails with R_PEER_DOWN and the rest of the transition is skipped.
func TestLiveChangeApproval(t *testing.T) {
	peers := startPeers(t)
	src, err := os.ReadFile("../../testdata/live/change_approval.caps")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	os.WriteFile("change_approval.caps", src, 0o644)
	ciLog, _ := filepath.Abs("ci.log")
	peers.hostFile(t, "change_approval.caps", "host.json", peers.a2aBase, "store/operational", ciLog)
	got := runCaps(t, "", "host-policy", "--host", "host.json", "--json", "change_approval.caps")
	if got.code != 0 || got.stderr != "" {
		t.Fatalf("host-policy --host: %+v", got)
	}
	os.WriteFile("policy.json", []byte(got.stdout), 0o644)
	summary := runCaps(t, "", "host-policy", "--host", "host.json", "change_approval.caps")
	if !strings.Contains(summary.stdout, "host: 10 allow rules, 0 deny rules, 1 MCP binding, 0 HTTP bindings, 1 A2A binding, 3 A2UI bindings, 1 store binding, timeout 30s\n") {
		t.Errorf("summary: %s", summary.stdout)
	}

	events := []string{`SubmitChange={"change_id": 1001}`, `RiskReviewed={"risk_score": 25}`, "SecurityApprove", "ManagerApprove", "Deploy", "Rollback"}
	run := runCaps(t, "", append([]string{"machine-run", "--mode", "live", "--policy", "policy.json", "--ledger", "ledger", "--json", "change_approval.caps", "ChangeApproval"}, events...)...)
	if run.code != 0 || run.stderr != "" {
		t.Fatalf("machine-run: %+v", run)
	}
	state, status, steps := liveSteps(t, run.stdout)
	want := []liveStep{
		{"SubmitChange", "idle", "awaiting_risk_review", []string{"db.write operational.change_requests executed", "a2a.task security_reviewer.review_change executed", "a2ui.emit change_status executed"}},
		{"RiskReviewed", "awaiting_risk_review", "awaiting_approvals", []string{"db.write operational.change_reviews executed", "a2ui.emit change_approval executed"}},
		{"SecurityApprove", "awaiting_approvals", "awaiting_approvals", []string{"db.write operational.approvals executed", "a2ui.emit change_approval executed"}},
		{"ManagerApprove", "awaiting_approvals", "ready_to_deploy", []string{"db.write operational.approvals executed", "a2ui.emit change_deployment executed"}},
		{"Deploy", "ready_to_deploy", "deployed", []string{"db.write operational.deployments executed", "mcp.call ci.deploy executed", "a2ui.emit change_deployment executed"}},
		{"Rollback", "deployed", "rolled_back", []string{"db.write operational.deployments executed", "mcp.call ci.rollback executed", "a2ui.emit change_deployment executed"}},
	}
	if diff := cmp.Diff(want, steps); diff != "" || state != "rolled_back" || status != "final" {
		t.Log(run.stdout)
		t.Fatalf("state %s (%s), steps (-want +got):\n%s", state, status, diff)
	}

	// What the peers saw.
	ci, _ := os.ReadFile(ciLog)
	if string(ci) != `{"tool":"deploy","arguments":{"change_id":1001}}`+"\n"+`{"tool":"rollback","arguments":{"change_id":1001}}`+"\n" {
		t.Errorf("the CI server got:\n%s", ci)
	}
	wantUI := []string{
		"change_status createSurface", "change_status updateComponents", "change_status updateDataModel",
		"change_approval createSurface", "change_approval updateComponents", "change_approval updateDataModel",
		"change_approval updateComponents", "change_approval updateDataModel",
		"change_deployment createSurface", "change_deployment updateComponents", "change_deployment updateDataModel",
		"change_deployment updateComponents", "change_deployment updateDataModel",
		"change_deployment updateComponents", "change_deployment updateDataModel",
	}
	if diff := cmp.Diff(wantUI, peers.surfaces); diff != "" {
		t.Errorf("renderer (-want +got):\n%s", diff)
	}
	for file, n := range map[string]int{"change_requests.jsonl": 1, "change_reviews.jsonl": 1, "approvals.jsonl": 2, "deployments.jsonl": 2} {
		data, _ := os.ReadFile(filepath.Join("store", "operational", file))
		if c := bytes.Count(data, []byte("\n")); c != n || !bytes.Contains(data, []byte(`"change_id":1001`)) {
			t.Errorf("%s: %d lines, want %d:\n%s", file, c, n, data)
		}
	}

	// The ledger replays byte for byte, trace included: the replay feeds
	// back the recorded outcomes and contacts no peer.
	rep := runCaps(t, "", "replay", "--trace", "--json", "ledger")
	var r struct {
		OK                bool
		Records, Verified int
		State             string
	}
	if err := json.Unmarshal([]byte(rep.stdout), &r); err != nil || rep.code != 0 || !r.OK || r.Records == 0 || r.Verified != r.Records || r.State != "rolled_back" {
		t.Errorf("replay: %+v %s", r, rep.stdout+rep.stderr)
	}
	ledgerBytes, _ := os.ReadFile(filepath.Join("ledger", "ledger.jsonl"))
	for _, evidence := range []string{`"verdict":"approved"`, `deployed change 1001`, `rolled back change 1001`, `"adapter":"a2a"`, `"adapter":"a2ui"`, `"adapter":"store"`} {
		if !bytes.Contains(ledgerBytes, []byte(evidence)) {
			t.Errorf("the ledger records no %s", evidence)
		}
	}

	// The A2A agent down: the first step's intent fails with R_PEER_DOWN,
	// naming the agent and the binding to fix; the rest is skipped.
	srv := httptest.NewServer(http.NotFoundHandler())
	down := srv.URL
	srv.Close()
	peers.hostFile(t, "change_approval.caps", "host-down.json", down, "store2", ciLog)
	got = runCaps(t, "", "host-policy", "--host", "host-down.json", "--json", "change_approval.caps")
	os.WriteFile("policy-down.json", []byte(got.stdout), 0o644)
	run = runCaps(t, "", "machine-run", "--mode", "live", "--policy", "policy-down.json", "change_approval.caps", "ChangeApproval", `SubmitChange={"change_id": 1002}`)
	lines := strings.Split(run.stdout, "\n")
	if run.code != 0 || len(lines) < 5 || lines[1] != "#1 SubmitChange: idle -> awaiting_risk_review" ||
		!strings.HasPrefix(lines[2], "    db.write operational.change_requests: executed (1 attempt, ") ||
		!strings.HasPrefix(lines[3], "    a2a.task security_reviewer.review_change: failed (1 attempt, ") ||
		!strings.Contains(lines[3], "): R_PEER_DOWN: agent security_reviewer at "+down+"/.well-known/agent-card.json is down (") ||
		!strings.HasSuffix(lines[3], "): start it, or fix $.host.a2a.security_reviewer.url in the host section of the host-policy artifact") ||
		lines[4] != "    a2ui.emit change_status: skipped" {
		t.Errorf("agent down: %+v", run)
	}
}
