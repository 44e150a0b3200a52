package adapters_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/machine"
)

// gate wraps the live executor: it is the last point before an adapter,
// and it records every intent that passes it.
type gate struct {
	live   *adapters.LiveExecutor
	passed []string
}

func (g *gate) Mode() machine.Mode                       { return g.live.Mode() }
func (g *gate) Approve(c *machine.Call) machine.Decision { return g.live.Approve(c) }
func (g *gate) Execute(ctx context.Context, c *machine.Call) machine.Outcome {
	g.passed = append(g.passed, c.Spec.Label())
	return g.live.Execute(ctx, c)
}

// TestLiveNoDeniedIntentReachesAPeer drives random event sequences
// through a governed machine in live mode, against the real MCP test
// server (@modelcontextprotocol/server-everything over stdio) and an HTTP
// peer on the loopback interface that counts what it receives. The
// policy's decisions depend on each event's amount; the test computes
// them on its own (the oracle below) and asserts that exactly the intents
// the policy allows reach the adapters and the peers, and that no denied
// or escalated intent ever does.
func TestLiveNoDeniedIntentReachesAPeer(t *testing.T) {
	cmd := mcpServer(t)
	var mu sync.Mutex
	var httpGot []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		httpGot = append(httpGot, string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"high_c": 21}`)
	}))
	defer srv.Close()
	host, _ := json.Marshal(map[string]any{
		"allow": []map[string]string{{"effect": "mcp.call", "target": "everything.echo"}, {"effect": "http.call", "target": "weather.forecast"}},
		"mcp":   map[string]any{"everything": map[string]any{"command": cmd}},
		"http":  map[string]any{"weather": map[string]any{"url": srv.URL + "/v1"}},
	})
	const path = "testdata/governed_relay.caps"
	live := adapters.NewLive(loadArtifact(t, path, string(host)))
	defer live.Close()
	m := compile(t, path, "Relay")
	if !m.Governed() {
		t.Fatal("the module is not governed")
	}

	// oracle is the policy of governed_live.caps, decided by hand.
	oracle := func(event string, amount int, blocked bool) string {
		switch event {
		case "Send":
			switch {
			case amount <= 50:
				return "allow"
			case amount <= 80:
				return "escalate"
			}
		case "Ask":
			if amount == 7 {
				return "deny" // the deny rule is stricter than the allow rule
			}
			if amount < 30 && !blocked {
				return "allow"
			}
		}
		return "deny"
	}

	rng := rand.New(rand.NewSource(19))
	const sequences, steps = 60, 10
	counts := map[string]int{}
	wantHTTP := 0
	for n := 0; n < sequences; n++ {
		g := &gate{live: live}
		inst, err := m.NewInstance(machine.InstanceOptions{Executor: g})
		if err != nil {
			t.Fatal(err)
		}
		blocked := false
		for k := 0; k < steps; k++ {
			if inst.State() != "ready" {
				before := len(g.passed)
				step(inst, "Reset", ``)
				if len(g.passed) != before {
					t.Fatal("Reset reached an adapter")
				}
			}
			before := len(g.passed)
			amount := rng.Intn(100)
			var ev, payload string
			switch rng.Intn(5) {
			case 0, 1:
				ev, payload = "Send", fmt.Sprintf(`{"message": "m%d-%d", "amount": %d}`, n, k, amount)
			case 2, 3:
				ev, payload = "Ask", fmt.Sprintf(`{"city": "c%d", "amount": %d}`, k, amount)
			default:
				blocked = rng.Intn(2) == 0
				ev, payload = "Block", fmt.Sprintf(`{"blocked": %t}`, blocked)
			}
			r := step(inst, ev, payload)
			if ev == "Block" {
				if len(g.passed) != before {
					t.Fatalf("Block: %d intents reached the adapters", len(g.passed)-before)
				}
				continue
			}
			want := oracle(ev, amount, blocked)
			counts[want]++
			if len(r.Effects) != 1 {
				t.Fatalf("%s: %d intents", ev, len(r.Effects))
			}
			fx := r.Effects[0]
			reached := len(g.passed) - before
			if fx.Authority == nil {
				t.Fatalf("%s amount %d: no authority decision", ev, amount)
			}
			if got := string(fx.Authority.Outcome); got != want {
				t.Fatalf("%s amount %d blocked %v: decision %s, want %s", ev, amount, blocked, got, want)
			}
			switch want {
			case "allow":
				if reached != 1 || fx.Status != machine.Executed {
					t.Fatalf("%s amount %d: allowed but reached %d adapters, status %s %s", ev, amount, reached, fx.Status, fx.Error)
				}
				if ev == "Ask" {
					wantHTTP++
				} else if !strings.Contains(string(fx.Result()), fmt.Sprintf("Echo: m%d-%d", n, k)) {
					t.Fatalf("the MCP peer's answer %.200s", fx.Result())
				}
			default:
				if reached != 0 {
					t.Fatalf("%s amount %d: %s by the policy, yet it reached the adapter", ev, amount, want)
				}
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(httpGot) != wantHTTP {
		t.Errorf("the HTTP peer received %d requests, the policy allowed %d", len(httpGot), wantHTTP)
	}
	t.Logf("%d live sequences of %d steps: %d intents allowed and executed by the real peers, %d escalated, %d denied; none held reached a peer (HTTP peer: %d requests)",
		sequences, steps, counts["allow"], counts["escalate"], counts["deny"], len(httpGot))
	if counts["allow"] == 0 || counts["escalate"] == 0 || counts["deny"] == 0 {
		t.Errorf("the sequences did not exercise every outcome: %v", counts)
	}
}
