package webui

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/evolution"
	"github.com/capsulang/caps/runtime/session/bridge/bridgetest"
	"github.com/capsulang/caps/syntax/ast"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/api")

// fixedNow is the clock of the tests: every time stamp is this one.
func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// testServer starts a server on a new workspace whose model is the
// recording named model of testdata/llm.
type testServer struct {
	t    *testing.T
	srv  *Server
	http *httptest.Server
	root string
}

func newTestServer(t *testing.T, model string) *testServer {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".caps"), 0o755); err != nil {
		t.Fatal(err)
	}
	fake := bridgetest.Start(t, filepath.Join("testdata", "llm"))
	env := map[string]string{"OPENAI_BASE_URL": fake.Base(model), "OPENAI_MODEL": "recorded-model"}
	srv, err := New(Config{
		Root:      dir,
		Evolution: evolution.Options{Now: fixedNow},
		Getenv:    func(k string) string { return env[k] },
		Timeout:   5 * time.Second,
		By:        "tester",
		Now:       fixedNow,
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &testServer{t: t, srv: srv, http: hs, root: srv.Root()}
}

var (
	attemptRE  = regexp.MustCompile(`attempts/\d{8}T\d{6}Z-[0-9a-f]{8}\.json`)
	proposalRE = regexp.MustCompile(`p-[0-9a-f]{16}`)
	eventRE    = regexp.MustCompile(`evt-[0-9a-f]{16}`)
)

// call sends a request and returns "STATUS\nBODY" with the parts that
// differ between runs replaced: the workspace root, proposal and event
// ids, attempt file names.
func (s *testServer) call(method, path, body string, header ...string) string {
	s.t.Helper()
	req, err := http.NewRequest(method, s.http.URL+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(path, "/api/") && ct != "application/json" {
		s.t.Errorf("%s %s: Content-Type %q, want application/json", method, path, ct)
	}
	out := strings.ReplaceAll(string(b), s.root, "$ROOT")
	out = attemptRE.ReplaceAllString(out, "attempts/TIME-RANDOM.json")
	out = proposalRE.ReplaceAllString(out, "p-ID")
	out = eventRE.ReplaceAllString(out, "evt-ID")
	return resp.Status + "\n" + out
}

func (s *testServer) proposalID() string {
	s.t.Helper()
	ents, err := os.ReadDir(filepath.Join(s.root, ".caps", "proposals"))
	if err != nil || len(ents) == 0 {
		s.t.Fatalf("no proposal: %v", err)
	}
	return strings.TrimSuffix(ents[0].Name(), ".json")
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "api", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

const brokenSource = `(module examples.refund
  (function needs_review
    (input (amount U32))
    (output Bool)
    (body (>= amount "100"))))
`

// TestWalk walks the whole flow through the API, as the page does, and
// compares every answer with its golden file byte for byte.
func TestWalk(t *testing.T) {
	s := newTestServer(t, "refund")
	steps := []struct {
		name, method, path, body string
	}{
		{"01-workspace", "GET", "/api/workspace", ""},
		{"02-new-session", "POST", "/api/sessions", `{"target": "refund.caps", "id": "demo", "by": "alice"}`},
		{"03-describe", "POST", "/api/sessions/demo/describe", `{"text": "Refunds of 100 or more need a person's review on a screen."}`},
		{"04-resolve", "POST", "/api/sessions/demo/resolve", `{"hole": "h1", "answer": "the finance team", "by": "alice"}`},
		{"05-check-broken", "POST", "/api/check", `{"path": "refund.caps", "source": ` + jsonString(brokenSource) + `}`},
		{"06-dryrun", "POST", "/api/sessions/demo/dryrun", `{"machine": "Refund", "events": [{"event": "Requested", "payload": {"amount": 150}}]}`},
		{"07-dryrun-refused", "POST", "/api/sessions/demo/dryrun", `{"machine": "Refund", "events": [{"event": "Requested"}, {"event": "Requested"}, {"event": "Approved"}]}`},
		{"08-surface", "POST", "/api/sessions/demo/surface", `{"surface": "refund_review", "context": {"amount": 150, "approved": false}}`},
		{"09-propose", "POST", "/api/sessions/demo/propose", `{"by": "alice"}`},
		{"10-assess", "POST", "/api/proposals/PID/assess", `{}`},
		{"11-commit-unapproved", "POST", "/api/proposals/PID/commit", `{"approvals": []}`},
		{"12-commit", "POST", "/api/proposals/PID/commit", `{"approvals": ["alice"]}`},
		{"13-commit-again", "POST", "/api/proposals/PID/commit", `{"approvals": ["alice"]}`},
		{"14-session-after", "GET", "/api/sessions/demo", ""},
	}
	for _, st := range steps {
		path := st.path
		if strings.Contains(path, "PID") {
			path = strings.Replace(path, "PID", s.proposalID(), 1)
		}
		golden(t, st.name, s.call(st.method, path, st.body))
	}
	// The commit wrote the session's source, and only through the workflow.
	got, err := os.ReadFile(filepath.Join(s.root, "refund.caps"))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := s.srv.store.Open("demo")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(ss.Source()), string(got)); diff != "" {
		t.Errorf("refund.caps is not the session's source (-want +got):\n%s", diff)
	}
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

// TestBadInput sends input the API must refuse: each answer is exact, and
// the session is unchanged after every one of them.
func TestBadInput(t *testing.T) {
	s := newTestServer(t, "not-json")
	s.call("POST", "/api/sessions", `{"target": "refund.caps", "id": "demo", "by": "alice"}`)
	before := s.call("GET", "/api/sessions/demo", "")
	tests := []struct {
		name, method, path, body string
		header                   []string
		want                     string
	}{
		{"malformed JSON", "POST", "/api/sessions/demo/resolve", `{"hole": `, nil,
			`400 Bad Request
{
  "error": "the request body is not the JSON object this API takes: unexpected EOF",
  "kind": "bad-request"
}
`},
		{"unknown field", "POST", "/api/sessions/demo/apply", `{"delta": {}, "author": "x"}`, nil,
			`400 Bad Request
{
  "error": "the request body is not the JSON object this API takes: json: unknown field \"author\"",
  "kind": "bad-request"
}
`},
		{"two values", "POST", "/api/check", `{} {}`, nil,
			`400 Bad Request
{
  "error": "the request body holds more than one JSON value",
  "kind": "bad-request"
}
`},
		{"not JSON content", "POST", "/api/check", `{}`, []string{"Content-Type", "text/plain"},
			`400 Bad Request
{
  "error": "the request body must be JSON (Content-Type: application/json), not text/plain",
  "kind": "bad-request"
}
`},
		{"no target", "POST", "/api/sessions", `{"id": "x"}`, nil,
			`400 Bad Request
{
  "error": "\"target\" is required: the module file the session writes, relative to the workspace (e.g. \"triage.caps\")",
  "kind": "bad-request"
}
`},
		{"target outside", "POST", "/api/sessions", `{"target": "../elsewhere.caps", "id": "x"}`, nil,
			`400 Bad Request
{
  "error": "\"../elsewhere.caps\" is not inside the workspace: give a path relative to $ROOT, such as refund.caps",
  "kind": "bad-request"
}
`},
		{"session exists", "POST", "/api/sessions", `{"target": "refund.caps", "id": "demo"}`, nil,
			`422 Unprocessable Entity
{
  "error": "session demo already exists: pick another --id",
  "kind": "refused"
}
`},
		{"unknown session", "GET", "/api/sessions/nope", "", nil,
			`404 Not Found
{
  "error": "no session nope in $ROOT (caps session list shows the sessions)",
  "kind": "not-found"
}
`},
		{"bad session id", "GET", "/api/sessions/..%2Fx", "", nil,
			`400 Bad Request
{
  "error": "bad session id \"../x\": use lower-case letters, digits, '.', '-' and '_' (at most 64, starting with a letter or digit)",
  "kind": "bad-request"
}
`},
		{"delta that does not validate", "POST", "/api/sessions/demo/apply", `{"delta": {"declarations": [{"kind": "funktion", "name": "f", "source": "(funktion f)"}]}}`, nil,
			"SCHEMA"},
		{"model answers no JSON", "POST", "/api/sessions/demo/describe", `{"text": "a refund workflow"}`, nil,
			`422 Unprocessable Entity
{
  "attempt": "$ROOT/.caps/sessions/demo/attempts/TIME-RANDOM.json",
  "error": "the model's answer is not a JSON object (invalid character 'S' looking for beginning of value): \"Sure! Here is your capsule: (module examples.triage (capsule \\\"1.0\\\"))\"\nnothing was applied to the session; the description and the model's answer are kept in $ROOT/.caps/sessions/demo/attempts/TIME-RANDOM.json",
  "kind": "model",
  "model_error": "not-a-delta"
}
`},
		{"empty description", "POST", "/api/sessions/demo/describe", `{"text": "  "}`, nil,
			`400 Bad Request
{
  "error": "\"text\" is empty: describe what the module should do",
  "kind": "bad-request"
}
`},
		{"unknown hole", "POST", "/api/sessions/demo/resolve", `{"hole": "h9", "answer": "x"}`, nil,
			`422 Unprocessable Entity
{
  "error": "no hole \"h9\": the session has no holes",
  "kind": "refused"
}
`},
		{"dry run before a module", "POST", "/api/sessions/demo/dryrun", `{}`, nil,
			`409 Conflict
{
  "error": "session demo has no module yet: describe it or apply a delta first",
  "kind": "not-checked"
}
`},
		{"propose without delta", "POST", "/api/sessions/demo/propose", `{}`, nil,
			`422 Unprocessable Entity
{
  "error": "the session has no delta yet: apply one first (caps session apply DELTA.json)",
  "kind": "refused"
}
`},
		{"check a non-caps path", "POST", "/api/check", `{"path": "x.txt", "source": ""}`, nil,
			`400 Bad Request
{
  "error": "\"path\" must name a .caps file, not \"x.txt\"",
  "kind": "bad-request"
}
`},
		{"unknown proposal", "POST", "/api/proposals/p-0123456789abcdef/assess", `{}`, nil,
			"NOPROPOSAL"},
		{"bad proposal id", "POST", "/api/proposals/x/commit", `{}`, nil,
			"BADPROPOSAL"},
		{"another origin", "POST", "/api/sessions/demo/resolve", `{"hole": "h1", "answer": "x"}`, []string{"Origin", "http://evil.example"},
			"ORIGIN"},
		{"unknown API", "GET", "/api/nothing", "", nil,
			`404 Not Found
{
  "error": "no API GET /api/nothing: the API is described in docs/authoring.md",
  "kind": "not-found"
}
`},
		{"wrong method", "GET", "/api/sessions/demo/resolve", "", nil,
			`405 Method Not Allowed
{
  "error": "GET /api/sessions/demo/resolve: this API takes POST",
  "kind": "method"
}
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := s.call(tc.method, tc.path, tc.body, tc.header...)
			want := tc.want
			switch want {
			case "SCHEMA":
				want = `422 Unprocessable Entity
{
  "error": "authoring delta does not validate against docs/schemas/authoring-delta.v1.schema.json\n  at /declarations/0/kind (schema #/$defs/declaration/properties/kind/enum): value must be one of ` + kindsList + `",
  "kind": "schema",
  "problems": [
    {
      "instance": "/declarations/0/kind",
      "schema": "/$defs/declaration/properties/kind/enum",
      "message": "value must be one of ` + kindsList + `"
    }
  ]
}
`
			case "NOPROPOSAL":
				want = "404 Not Found\n" + `{
  "error": "no proposal p-ID in this workspace: propose the session first",
  "kind": "not-found"
}
`
			case "BADPROPOSAL":
				want = "400 Bad Request\n" + `{
  "error": "\"x\" is not a proposal id: p- and 16 hexadecimal digits, as propose answers",
  "kind": "bad-request"
}
`
			case "ORIGIN":
				want = "403 Forbidden\n" + `{
  "error": "requests from http://evil.example are refused: open the UI at http://` + strings.TrimPrefix(s.http.URL, "http://") + `/",
  "kind": "origin"
}
`
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if after := s.call("GET", "/api/sessions/demo", ""); after != before {
				t.Errorf("the session changed:\n%s", cmp.Diff(before, after))
			}
		})
	}
	// The refused model answer is kept with the description.
	ents, _ := os.ReadDir(filepath.Join(s.root, ".caps", "sessions", "demo", "attempts"))
	if len(ents) != 1 {
		t.Fatalf("attempts: %d files, want 1", len(ents))
	}
	b, _ := os.ReadFile(filepath.Join(s.root, ".caps", "sessions", "demo", "attempts", ents[0].Name()))
	if !strings.Contains(string(b), `"description": "a refund workflow"`) || !strings.Contains(string(b), "Sure! Here is your capsule") {
		t.Errorf("the attempt does not keep the description and the answer:\n%s", b)
	}
}

const kindsList = `'type', 'function', 'machine', 'store', 'surface', 'port', 'agent', 'contract', 'lineage', 'objective', 'eval-suite', 'successor-contract', 'budget', 'gate', 'deployment-policy', 'improvement-record', 'verification-hook', 'principal', 'mandate', 'delegation', 'capability', 'authority-policy', 'trust-boundary', 'telemetry-obligation', 'memory-policy', 'zk-proof', 'acceptance'`

// TestStatic serves the embedded page.
func TestStatic(t *testing.T) {
	s := newTestServer(t, "refund")
	for _, tc := range []struct{ path, want string }{
		{"/", "<title>Capsulang authoring</title>"},
		{"/app.js", `"use strict";`},
		{"/style.css", ".diagram .state.current rect"},
	} {
		got := s.call("GET", tc.path, "")
		if !strings.HasPrefix(got, "200 OK\n") || !strings.Contains(got, tc.want) {
			t.Errorf("GET %s: %.200q does not hold %q", tc.path, got, tc.want)
		}
	}
}

func TestListen(t *testing.T) {
	l, err := Listen("127.0.0.1", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	tests := []struct {
		host        string
		port        int
		allowRemote bool
		want        string
	}{
		{"0.0.0.0", 0, false, "refusing to serve on 0.0.0.0: it is not a loopback address, and the authoring UI has no authentication and writes to the workspace; use --host 127.0.0.1 (the default), or pass --allow-remote if you really mean it"},
		{"192.0.2.1", 0, false, "refusing to serve on 192.0.2.1: it is not a loopback address, and the authoring UI has no authentication and writes to the workspace; use --host 127.0.0.1 (the default), or pass --allow-remote if you really mean it"},
		{"127.0.0.1", port, false, fmt.Sprintf("cannot listen on 127.0.0.1:%d: the port is already in use; stop the program that holds it or pick another with --port N (--port 0 picks a free one)", port)},
		{"127.0.0.1", 70000, false, "--port 70000 is not a TCP port (0 to 65535; 0 picks a free one)"},
		{"", 0, false, "the host is empty: use --host 127.0.0.1"},
	}
	for _, tc := range tests {
		_, err := Listen(tc.host, tc.port, tc.allowRemote)
		if err == nil {
			t.Errorf("Listen(%q, %d): no error", tc.host, tc.port)
			continue
		}
		if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
			t.Errorf("Listen(%q, %d) (-want +got):\n%s", tc.host, tc.port, diff)
		}
	}
	remote, err := Listen("0.0.0.0", 0, true)
	if err != nil {
		t.Errorf("Listen(0.0.0.0) with allowRemote: %v", err)
	} else {
		remote.Close()
	}
	for host, want := range map[string]bool{"localhost": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true, "0.0.0.0": false, "example.com": false, "": false} {
		if got := Loopback(host); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestRefusedSetups covers a server without a model, a model whose delta
// does not validate, and a session folder edited by hand.
func TestRefusedSetups(t *testing.T) {
	s := newTestServer(t, "schema-violation")
	s.call("POST", "/api/sessions", `{"target": "refund.caps", "id": "demo"}`)
	got := s.call("POST", "/api/sessions/demo/describe", `{"text": "score tickets"}`)
	want := `422 Unprocessable Entity
{
  "attempt": "$ROOT/.caps/sessions/demo/attempts/TIME-RANDOM.json",
  "error": "the model's delta is refused: authoring delta does not validate against docs/schemas/authoring-delta.v1.schema.json\n  at /declarations/0/kind (schema #/$defs/declaration/properties/kind/enum): value must be one of ` + kindsList + `\nnothing was applied to the session; the description and the model's answer are kept in $ROOT/.caps/sessions/demo/attempts/TIME-RANDOM.json",
  "kind": "model",
  "problems": [
    {
      "instance": "/declarations/0/kind",
      "schema": "/$defs/declaration/properties/kind/enum",
      "message": "value must be one of ` + kindsList + `"
    }
  ]
}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema-violating model answer (-want +got):\n%s", diff)
	}

	s.srv.cfg.Getenv = func(string) string { return "" }
	got = s.call("POST", "/api/sessions/demo/describe", `{"text": "score tickets"}`)
	want = `503 Service Unavailable
{
  "error": "OPENAI_MODEL is not set: set it to the model to ask (and OPENAI_BASE_URL for a server other than OpenAI's, OPENAI_API_KEY when it needs a key); or paste an AuthoringDelta instead",
  "kind": "no-model"
}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("no model (-want +got):\n%s", diff)
	}

	meta := filepath.Join(s.root, ".caps", "sessions", "demo", "session.json")
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(meta, []byte(strings.Replace(string(b), `"refund.caps"`, `"other.caps"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	got = s.call("GET", "/api/sessions/demo", "")
	want = `409 Conflict
{
  "error": "session demo does not verify: session.json: its hash does not match its content (it was edited); nothing was changed. Restore .caps/sessions/demo from a backup, or start a new session (caps session new --target FILE) and apply its deltas again",
  "kind": "tampered"
}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tampered session (-want +got):\n%s", diff)
	}
}

// TestDiagram draws machines with a back edge, a guard and several
// transitions between the same states; the SVG is compared byte for byte.
func TestDiagram(t *testing.T) {
	for _, tc := range []struct{ file, machine string }{
		{"../../../examples/protocol_surface.caps", "ArticleLocalization"},
		{"../../../examples/03_claim_review_machine.caps", ""},
	} {
		src, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		pkg := (&load.Loader{}).LoadSource(tc.file, src)
		if pkg.Result.HasErrors() {
			t.Fatalf("%s has errors", tc.file)
		}
		for _, d := range pkg.File.Module.Decls {
			m, ok := d.(*ast.Machine)
			if !ok || (tc.machine != "" && m.Name.Name != tc.machine) {
				continue
			}
			golden(t, "diagram-"+m.Name.Name+".svg", machineView(m, src).SVG+"\n")
		}
	}
}
