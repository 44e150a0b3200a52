package webui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/editors/hosttest"
	"github.com/capsulang/caps/runtime/evolution"
	"github.com/capsulang/caps/runtime/session/bridge/bridgetest"
)

// TestBrowser walks the page in Debian's Chromium (testdata/browser/walk.mjs,
// playwright-core) against a server started with Listen and Serve on a
// fresh workspace, whose model is the recorded-response server: from a
// description to a committed module. Screenshots of a failure are kept in
// $CAPS_HOSTTEST_ARTIFACTS/authoring-ui, or else in a temporary folder
// whose path the test logs. Under CI=true a missing node, chromium or
// node_modules fails the test; elsewhere it is skipped (install with
// npm ci in testdata/browser).
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test is not short")
	}
	node := hosttest.Tool(t, "NODE", "Debian package nodejs", "node")
	chromium := hosttest.Tool(t, "CHROMIUM", "Debian package chromium", "/usr/lib/chromium/chromium", "chromium")
	here, err := filepath.Abs(filepath.Join("testdata", "browser"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(here, "node_modules", "playwright-core", "package.json")); err != nil {
		hosttest.Missing(t, "playwright-core is not installed: run npm ci in runtime/session/webui/testdata/browser")
	}

	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".caps"), 0o755); err != nil {
		t.Fatal(err)
	}
	fake := bridgetest.Start(t, filepath.Join("testdata", "llm"))
	env := map[string]string{"OPENAI_BASE_URL": fake.Base("refund"), "OPENAI_MODEL": "recorded-model"}
	srv, err := New(Config{Root: dir, Evolution: evolution.Options{}, Getenv: func(k string) string { return env[k] }, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen("127.0.0.1", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, l, srv) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})

	artifacts := os.Getenv("CAPS_HOSTTEST_ARTIFACTS")
	if artifacts != "" {
		artifacts = filepath.Join(artifacts, "authoring-ui")
		os.RemoveAll(artifacts)
	} else {
		if artifacts, err = os.MkdirTemp("", "caps-authoring-ui-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if !t.Failed() {
				os.RemoveAll(artifacts)
			}
		})
	}

	rctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(rctx, node, filepath.Join(here, "walk.mjs"))
	cmd.Dir = here
	cmd.Env = append(os.Environ(), "CAPS_UI_URL=http://"+l.Addr().String()+"/", "CAPS_UI_ARTIFACTS="+artifacts, "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	t.Logf("walk.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("walk.mjs: %v; screenshots in %s", err, artifacts)
	}
	if !strings.Contains(string(out), "9 passed, 0 failed") {
		t.Fatalf("walk.mjs did not pass its 9 steps; screenshots in %s", artifacts)
	}

	// The page committed the session's source through the workflow.
	got, err := os.ReadFile(filepath.Join(srv.Root(), "refund.caps"))
	if err != nil {
		t.Fatalf("the commit wrote no refund.caps: %v", err)
	}
	ss, err := srv.store.Open("demo")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(ss.Source()), string(got)); diff != "" {
		t.Errorf("refund.caps is not the session's source (-want +got):\n%s", diff)
	}
	ledger, err := os.ReadFile(srv.w.LedgerPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ledger), `"approvals":["alice"]`) {
		t.Errorf("the ledger records no commit approved by alice:\n%s", ledger)
	}
}
