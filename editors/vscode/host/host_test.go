// Package host tests the packaged VS Code extension in a real VS Code:
// code-server 4.100.3 (VS Code 1.100.3) with the .vsix that `make vscode`
// builds, driven through Debian's Chromium by host.mjs (playwright-core).
// install.sh installs code-server and playwright-core into node_modules.
package host

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/capsulang/caps/editors/hosttest"
)

// TestVSCodeHost installs the .vsix into a fresh code-server, opens the
// fixture and runs host.mjs, whose checks are: the diagnostic in the
// Problems panel, hover, the quick fix clearing the diagnostic, a code
// lens running the examples, dry-run decorations, the diagram webview and
// the surface preview webview (before and after a dry run).
// On failure the screenshots stay in build/hosttest/vscode (or
// $CAPS_HOSTTEST_ARTIFACTS), beside the server's message log
// (caps lsp --log caps-lsp.log).
func TestVSCodeHost(t *testing.T) {
	root := hosttest.Root()
	here := filepath.Join(root, "editors", "vscode", "host")
	node := hosttest.Tool(t, "NODE", "Debian package nodejs", "node")
	chromium := hosttest.Tool(t, "CHROMIUM", "Debian package chromium", "/usr/lib/chromium/chromium", "chromium")
	codeServer := filepath.Join(here, "node_modules", ".bin", "code-server")
	if _, err := os.Stat(filepath.Join(here, "node_modules", ".capsulang-installed")); err != nil {
		hosttest.Missing(t, "code-server is not installed: run editors/vscode/host/install.sh")
	}
	vsix := os.Getenv("CAPS_VSIX")
	if vsix == "" {
		var pkg struct{ Version string }
		b, err := os.ReadFile(filepath.Join(root, "editors", "vscode", "package.json"))
		if err != nil || json.Unmarshal(b, &pkg) != nil {
			t.Fatalf("reading the extension's version: %v", err)
		}
		vsix = filepath.Join(root, "build", "capsulang-"+pkg.Version+".vsix")
	}
	if _, err := os.Stat(vsix); err != nil {
		hosttest.Missing(t, "%s is missing: run make vscode (make test does)", vsix)
	}
	server := hosttest.Server(t)
	ws, _ := hosttest.Workspace(t)
	if err := os.WriteFile(filepath.Join(ws, "lamp.caps"), []byte(lampFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	ext, user := filepath.Join(state, "ext"), filepath.Join(state, "user")
	artifacts := os.Getenv("CAPS_HOSTTEST_ARTIFACTS")
	if artifacts == "" {
		artifacts = filepath.Join(root, "build", "hosttest", "vscode")
	}
	os.RemoveAll(artifacts)
	os.MkdirAll(artifacts, 0o755)

	install := exec.Command(codeServer, "--extensions-dir", ext, "--user-data-dir", user, "--install-extension", vsix)
	install.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(state, "config"), "XDG_DATA_HOME="+filepath.Join(state, "data"))
	if out, err := install.CombinedOutput(); err != nil || !strings.Contains(string(out), "was successfully installed") {
		t.Fatalf("installing %s: %v\n%s", vsix, err, out)
	}
	settings := map[string]any{
		"capsulang.server.path":            server,
		"capsulang.server.args":            []string{"--log", filepath.Join(artifacts, "caps-lsp.log")},
		"security.workspace.trust.enabled": false,
		"workbench.startupEditor":          "none",
		"workbench.tips.enabled":           false,
		"telemetry.telemetryLevel":         "off",
		"extensions.autoCheckUpdates":      false,
		"update.mode":                      "none",
		"editor.codeLens":                  true,
		"files.autoSave":                   "off",
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	os.MkdirAll(filepath.Join(user, "User"), 0o755)
	if err := os.WriteFile(filepath.Join(user, "User", "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}

	port := freePort(t)
	cs := exec.Command(codeServer, "--auth", "none", "--bind-addr", fmt.Sprintf("127.0.0.1:%d", port),
		"--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
		"--extensions-dir", ext, "--user-data-dir", user, ws)
	cs.Env = append(os.Environ(), "CAPS="+os.Getenv("CAPS"),
		"XDG_CONFIG_HOME="+filepath.Join(state, "config"), "XDG_DATA_HOME="+filepath.Join(state, "data"))
	// (code-server writes its log while a failure reads it)
	var csLog lockedLog
	cs.Stdout, cs.Stderr = &csLog, &csLog
	// code-server's launcher forks the server it runs: killing the
	// launcher alone left that child running (at full CPU) after the test
	// ended, so the cleanup kills the whole process group
	cs.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cs.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cs.Process.Pid, syscall.SIGKILL)
		cs.Wait()
	})
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("code-server did not answer on %s in 60 s: %v\n%s", base, err, csLog.String())
		}
		time.Sleep(250 * time.Millisecond)
	}

	drive := exec.Command(node, filepath.Join(here, "host.mjs"))
	drive.Dir = here
	drive.Env = append(os.Environ(),
		"CAPS_HOST_URL="+base+"?folder="+ws,
		"CAPS_HOST_FILE=claims.caps",
		"CAPS_HOST_SURFACE_FILE=lamp.caps",
		"CAPS_HOST_ARTIFACTS="+artifacts,
		"CHROMIUM="+chromium,
	)
	out, err := drive.CombinedOutput()
	t.Logf("host.mjs:\n%s", out)
	if err != nil || !strings.Contains(string(out), " passed, 0 failed") {
		t.Fatalf("the VS Code host checks failed (%v); screenshots in %s; code-server's log:\n%s", err, artifacts, csLog.String())
	}
}

// lampFixture has an A2UI surface bound to a machine whose dry run (the
// path to its final state) ends in state done with level 9: the surface
// preview's check.
const lampFixture = `(module demo.lamp
  (capsule "1")
  (profile ui.a2ui)
  (surface lamp_ui
    (title "Lamp")
    (bind Lamp)
    (event Toggle))
  (machine Lamp
    (context (on Bool) (level U32))
    (event Toggle)
    (event Off)
    (initial off)
    (state off
      (on Toggle (target lit) (assign (on true) (level 3))))
    (state lit
      (on Off (target done) (assign (level 9))))
    (state done (type final))))
`

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// lockedLog collects a process's output, safe to read while it writes.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
