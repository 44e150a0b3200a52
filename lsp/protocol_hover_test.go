package lsp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// protocolHoverSrc declares a port, an agent and a surface, and a machine
// whose transition targets each of them.
const protocolHoverSrc = `(module releases
  (capsule "1")
  (profile external.mcp external.a2a ui.a2ui)
  (port ci
    (protocol mcp "2025-06-18")
    (tool deploy
      (input (change_id U64))
      (output Text)))
  (agent reviewer
    (protocol a2a "0.3")
    (skill review_change
      (input (change_id U64) (diff Text))
      (output Bool)))
  (surface release_ui
    (protocol a2ui "v0.9")
    (state (change_id U64) (approved Bool))
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
          (a2a.task reviewer.review_change)
          (a2ui.update-data release_ui)
          (a2ui.await-action release_ui.approve)
          (a2a.message reviewer))))
    (state done (type final))))
`

// TestHoverProtocolEffect: hovering the name of a protocol effect intent
// shows the catalog entry and the contract its target declares, with the
// range of the effect's name.
func TestHoverProtocolEffect(t *testing.T) {
	c := start(t, nil)
	if p := open(t, c, protocolHoverSrc, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("the module does not check clean: %+v", p.Diagnostics)
	}
	lines := strings.Split(protocolHoverSrc, "\n")
	at := func(needle string) pos {
		for i, l := range lines {
			if j := strings.Index(l, needle); j >= 0 {
				return pos{i, j}
			}
		}
		t.Fatalf("%q not in the source", needle)
		return pos{}
	}
	for _, tc := range []struct {
		needle, effect string
		want           string // after the catalog entry
	}{
		{"(mcp.call ci.deploy", "mcp.call", "**targets** tool `ci.deploy` of port `ci` (mcp 2025-06-18)\n\n```capsulang\n(tool deploy (input (change_id U64)) (output Text))\n```"},
		{"(a2a.task reviewer", "a2a.task", "**targets** skill `reviewer.review_change` of agent `reviewer` (a2a 0.3)\n\n```capsulang\n(skill review_change (input (change_id U64) (diff Text)) (output Bool))\n```"},
		{"(a2ui.update-data", "a2ui.update-data", "**targets** surface `release_ui` (a2ui v0.9)\n\n```capsulang\n(state (change_id U64) (approved Bool))\n```"},
		{"(a2ui.await-action", "a2ui.await-action", "**targets** action `release_ui.approve` of surface `release_ui` (a2ui v0.9)\n\n```capsulang\n(action approve (input (note Text)))\n```\n\nrequires user confirmation"},
		{"(a2a.message reviewer", "a2a.message", "**targets** agent `reviewer` (a2a 0.3)\n\n```capsulang\n(agent reviewer)\n```"},
	} {
		p := at(tc.needle)
		start := pos{p.Line, p.Character + 1} // after the "("
		var h struct {
			Contents struct{ Value string } `json:"contents"`
			Range    rng                    `json:"range"`
		}
		// hover in the middle of the effect's name
		if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos{start.Line, start.Character + 3}}, &h); err != nil {
			t.Fatal(err)
		}
		wantRange := rng{start, pos{start.Line, start.Character + len(tc.effect)}}
		if h.Range != wantRange {
			t.Errorf("%s: range %+v, want %+v", tc.effect, h.Range, wantRange)
		}
		if !strings.HasPrefix(h.Contents.Value, "```capsulang\neffect "+tc.effect+"\n```") {
			t.Errorf("%s: hover does not start with the catalog entry:\n%s", tc.effect, h.Contents.Value)
		}
		_, got, found := strings.Cut(h.Contents.Value, "\n\n---\n\n")
		if !found {
			t.Errorf("%s: no contract in the hover:\n%s", tc.effect, h.Contents.Value)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: contract (-want +got):\n%s", tc.effect, diff)
		}
	}
}
