// Package nvim holds the Neovim plugin; this test drives it headless.
package nvim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const fixture = `(module demo.claims
  (capsule "1")
  (machine Claim
    (context (score U32))
    (event Submit (score U32))
    (event Close)
    (initial open)
    (state open
      (on Submit (target scord) (assign (score event.score))))
    (state scored
      (on Close (target closed)))
    (state closed (type final))))
`

// contractFixture is a Capsule contract with one error: a default-allow
// network in enforce mode (line 14, 0-based 13).
const contractFixture = `capsule: 0.1
module: shop.returns_agent
version: 1.0.0
purpose: "Decide returns."
identity:
  id: agent:ReturnsAgent
  owner: human:StoreManager
effects:
  - read: Orders.returns
telemetry:
  required: true
runtime:
  mode: enforce
  network: allow
  image: registry.example.test/returns@sha256:0000000000000000000000000000000000000000000000000000000000000000
  doorkeeper_endpoint: https://doorkeeper.example.test/mcp
`

// protocolFixture has an MCP port, an A2UI surface and a machine that
// emits protocol effects, for :CapsProtocolPlan.
const protocolFixture = `(module demo.releases
  (capsule "1")
  (profile external.mcp ui.a2ui)
  (port ci
    (protocol mcp "2025-06-18")
    (tool deploy
      (input (change_id U64))
      (output Text)))
  (surface release_ui
    (bind Release)
    (event Go)
    (action approve
      (input (note Text))
      (requires-user-confirmation true)))
  (machine Release
    (context (change_id U64))
    (event Go)
    (initial idle)
    (state idle
      (on Go
        (target done)
        (effects
          (mcp.call ci.deploy)
          (a2ui.emit release_ui))))
    (state done (type final))))
`

// findNvim locates Neovim: $NVIM, then nvim on PATH, then the shared tool.
func findNvim(t *testing.T) string {
	if p := os.Getenv("NVIM"); p != "" {
		return p
	}
	if p, err := exec.LookPath("nvim"); err == nil {
		return p
	}
	if p, err := filepath.Abs("../../../shared/tools/nvim"); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("Neovim not found: set NVIM or put nvim on PATH (required in CI)")
	}
	t.Skip("Neovim not found (set NVIM); skipping the end-to-end test")
	return ""
}

func TestNeovimEndToEnd(t *testing.T) {
	nvim := findNvim(t)
	dir := t.TempDir()
	caps := filepath.Join(dir, "caps")
	if out, err := exec.Command("go", "build", "-o", caps, "../../cmd/caps").CombinedOutput(); err != nil {
		t.Fatalf("building caps: %v\n%s", err, out)
	}
	file := filepath.Join(dir, "claims.caps")
	if err := os.WriteFile(file, []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	contract := filepath.Join(dir, "returns.capsule.yaml")
	if err := os.WriteFile(contract, []byte(contractFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	protocolFile := filepath.Join(dir, "releases.caps")
	if err := os.WriteFile(protocolFile, []byte(protocolFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	plugin, _ := filepath.Abs(".")
	cmd := exec.Command(nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "luafile test/e2e.lua")
	cmd.Env = append(os.Environ(), "CAPS="+caps, "CAPS_E2E_FILE="+file, "CAPS_E2E_CAPSULE="+contract, "CAPS_E2E_PROTOCOL="+protocolFile, "CAPS_PLUGIN="+plugin, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir)
	out, err := cmd.CombinedOutput()
	text := string(out)
	t.Log(text)
	if err != nil || !strings.Contains(text, " passed, 0 failed") {
		t.Fatalf("neovim e2e failed: %v\n%s", err, text)
	}
}
