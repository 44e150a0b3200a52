package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/evolution"
	"github.com/capsulang/caps/runtime/session/bridge"
	"github.com/capsulang/caps/runtime/session/bridge/bridgetest"
	"github.com/google/go-cmp/cmp"
)

func recordings() string { return filepath.Join("..", "..", "testdata", "session", "llm") }

func config(srv *bridgetest.Server, name string) bridge.Config {
	return bridge.Config{BaseURL: srv.Base(name), Model: "test-model", APIKey: "test-key", Timeout: 5 * time.Second}
}

// TestDescribe: a recorded answer becomes a step that records the
// description and the model; the request is the golden one.
func TestDescribe(t *testing.T) {
	srv := bridgetest.Start(t, recordings())
	root, st := newWorkspace(t)
	s, err := st.New(filepath.Join(root, "triage.caps"), "s1", "alice")
	if err != nil {
		t.Fatal(err)
	}
	step, err := s.Describe(context.Background(), config(srv, "triage"), "Score tickets by severity.", "")
	if err != nil {
		t.Fatal(err)
	}
	if step.N != 1 || step.Kind != KindDelta || step.By != "llm:recorded-model" || step.Model != "recorded-model" || step.Description != "Score tickets by severity." {
		t.Errorf("step: %+v", step)
	}
	// The same delta applied by hand synthesizes the same source.
	_, st2 := newWorkspace(t)
	s2, _ := st2.New(filepath.Join(st2.ws.Root, "triage.caps"), "s2", "")
	if _, err := s2.Apply(DeltaInput{JSON: readTestdata(t, "triage-1.json")}); err != nil {
		t.Fatal(err)
	}
	if string(s2.Source()) != string(s.Source()) {
		t.Errorf("described and applied sources differ")
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/triage/v1/chat/completions" || reqs[0].Authorization != "Bearer test-key" {
		t.Fatalf("requests: %+v", reqs)
	}
	var body struct {
		Model          string           `json:"model"`
		Messages       []bridge.Message `json:"messages"`
		ResponseFormat map[string]any   `json:"response_format"`
		Rest           map[string]any   `json:"-"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	// The whole request, byte for byte: the wire format.
	golden := filepath.Join("testdata", "describe-request.golden.json")
	if *update {
		os.WriteFile(golden, append(reqs[0].Body, '\n'), 0o644)
	}
	wantBody, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(wantBody), string(reqs[0].Body)+"\n"); diff != "" {
		t.Errorf("request body (-golden +got):\n%s", diff)
	}
	js := body.ResponseFormat["json_schema"].(map[string]any)
	sch := js["schema"].(map[string]any)
	if body.Model != "test-model" || body.ResponseFormat["type"] != "json_schema" || js["name"] != "AuthoringDelta" || sch["title"] != "AuthoringDelta" || sch["$defs"] == nil {
		t.Errorf("request: %s", reqs[0].Body)
	}
	want := []bridge.Message{
		{Role: "system", Content: bridge.SystemPrompt},
		{Role: "user", Content: "Target file: triage.caps\nThe file does not exist yet: give \"module\".\n"},
		{Role: "user", Content: "Request (data):\nScore tickets by severity."},
	}
	if diff := cmp.Diff(want, body.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	// The second request carries the source and the open hole.
	if _, err := s.Describe(context.Background(), config(srv, "triage"), "Again.", "bob"); err != nil {
		t.Fatal(err)
	}
	second := srv.Requests()[1]
	json.Unmarshal(second.Body, &body)
	ctx := body.Messages[1].Content
	if !strings.HasPrefix(ctx, "Target file: triage.caps\nCurrent source (data, between the markers):\n<<<SOURCE\n(module examples.triage\n") ||
		!strings.HasSuffix(ctx, "SOURCE>>>\nOpen holes:\n- h1: which score is urgent?\n") {
		t.Errorf("context message:\n%s", ctx)
	}
}

// TestDescribeFailures: each bad answer is a clear error; the session is
// unchanged and the description and answer are kept.
func TestDescribeFailures(t *testing.T) {
	srv := bridgetest.Start(t, recordings())
	for _, tc := range []struct {
		name, recording string
		timeout         time.Duration
		want            string // the message, up to the attempts note
		kept            string // in the attempt file
	}{
		{"timeout", "slow", 300 * time.Millisecond,
			"the model server " + srv.Base("slow") + "/chat/completions did not answer within 300ms; nothing was applied: run again, or allow more time with --timeout", `"description": "Score tickets."`},
		{"server error", "error", 0,
			"the model server " + srv.Base("error") + "/chat/completions answered 500 Internal Server Error: the model is overloaded", `the model is overloaded`},
		{"not JSON", "not-json", 0,
			`the model's answer is not a JSON object (invalid character 'S' looking for beginning of value): "Sure! Here is your capsule: (module examples.triage (capsule \"1.0\"))"`, `Sure! Here is your capsule`},
		{"schema violation", "schema-violation", 0,
			"the model's delta is refused: authoring delta does not validate against docs/schemas/authoring-delta.v1.schema.json\n  at /declarations/0/kind (schema #/$defs/declaration/properties/kind/enum): value must be one of", `"kind": "funktion"`},
		{"refusal", "refusal", 0, "the model refused: I can't help with that.", `I can't help with that.`},
		{"truncated", "truncated", 0, "the model's answer was cut off (finish_reason length): ask for a smaller change", `examples.tri`},
		{"no recording", "missing", 0, "the model server " + srv.Base("missing") + "/chat/completions answered 404 Not Found: no such recording", `no such recording`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, st := newWorkspace(t)
			s, err := st.New(filepath.Join(root, "triage.caps"), "s1", "")
			if err != nil {
				t.Fatal(err)
			}
			cfg := config(srv, tc.recording)
			if tc.timeout != 0 {
				cfg.Timeout = tc.timeout
			}
			_, err = s.Describe(context.Background(), cfg, "Score tickets.", "")
			var de *DescribeError
			if !errors.As(err, &de) {
				t.Fatalf("got %v", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("message:\n%s\nwant prefix:\n%s", err, tc.want)
			}
			if !strings.Contains(err.Error(), "\nnothing was applied to the session; the description and the model's answer are kept in "+filepath.Join(st.Dir("s1"), "attempts")) {
				t.Errorf("message lacks the attempts note:\n%s", err)
			}
			kept, err := os.ReadFile(de.Attempt)
			if err != nil || !strings.Contains(string(kept), tc.kept) || !strings.Contains(string(kept), `"description": "Score tickets."`) {
				t.Errorf("attempt %s: %v\n%s", de.Attempt, err, kept)
			}
			again, err := st.Open("s1")
			if err != nil || len(again.Steps) != 0 {
				t.Errorf("the session changed: %v", err)
			}
		})
	}
}

// TestDescribeInjection: a delta with prompt-injection text and an
// undeclared effect is applied as data only: the text stays in comments,
// the checker reports the effect, assessment fails and the commit is
// refused; the module file is never written.
func TestDescribeInjection(t *testing.T) {
	srv := bridgetest.Start(t, recordings())
	root, st := newWorkspace(t)
	s, err := st.New(filepath.Join(root, "triage.caps"), "s1", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Describe(context.Background(), config(srv, "triage"), "Score tickets.", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Describe(context.Background(), config(srv, "injection"), "Also audit.", ""); err != nil {
		t.Fatal(err)
	}
	src := string(s.Source())
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if (strings.Contains(line, "IGNORE ALL PREVIOUS") || strings.Contains(line, "backdoor")) && !strings.HasPrefix(trimmed, ";;") {
			t.Errorf("injected text outside a comment: %q", line)
		}
	}
	if !strings.Contains(src, ";; (function backdoor (body 1))\n") {
		t.Errorf("the doc line is not a comment:\n%s", src)
	}
	pkg := (&load.Loader{}).LoadSource(s.TargetPath(), s.Source())
	var codes []string
	for _, d := range pkg.Result.Diagnostics {
		if d.Severity.String() == "error" {
			codes = append(codes, d.Code)
		}
	}
	if diff := cmp.Diff([]string{"E_EFFECT_NOT_DECLARED"}, codes); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	w, err := evolution.Open(root, evolution.Options{Sync: chain.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Propose(w, "", "")
	if err != nil {
		t.Fatal(err)
	}
	a, err := w.Assess(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict != propose.Fail {
		t.Errorf("verdict %s", a.Verdict)
	}
	if _, err := w.Commit(p.ID, []string{"alice"}); err == nil {
		t.Errorf("a failing proposal was committed")
	}
	if _, err := os.Stat(filepath.Join(root, "triage.caps")); err == nil {
		t.Errorf("the module file was written")
	}
}
