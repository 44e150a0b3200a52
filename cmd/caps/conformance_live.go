package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/scenario"
	"github.com/capsulang/caps/syntax/ast"
)

// conformanceLiveHook, when set (by tests), is called with the loopback
// peers once they are started and before any live run: a test stops one
// to show that the level is then unmet.
var conformanceLiveHook func(*conformancePeers)

// liveServed are the effects whose live adapters the loopback peers (and
// the file-backed stores) serve. MCP needs a server process (stdio), and
// a2ui.await-action a person's action: scenarios whose machine has them
// are not run live here.
var liveServed = map[string]bool{
	"a2a.task": true, "a2a.message": true, "a2a.receive-artifact": true,
	"a2ui.emit": true, "a2ui.update-data": true,
	"db.write": true, "db.project": true, "typedb.write": true, "typedb.query": true,
	"http.call": true,
}

// liveRun is one scenario to run live.
type liveRun struct {
	path   string
	sc     *scenario.Scenario
	mod    *conformanceModule
	mach   *ast.Machine
	inputs []string
	// want is the state the scenario expects last.
	want string
}

// liveTally is what the ledgers say was sent, by peer.
type liveTally struct {
	steps, effects, a2aMessages, uiPosts, httpCalls, storeWrites int
}

// conformanceLive runs in live mode, against loopback peers started
// here, every scenario of DIR/scenarios whose machine uses only effects
// those peers serve and whose outcomes do not come from mocks. Each run
// has a ledger, which must replay (trace included); what the peers
// received must be what the ledgers say was sent; the instance must end
// in the state the scenario expects. Then, with the peers stopped, the
// first of those scenarios runs again: its first intent to a peer must
// fail with R_PEER_DOWN, the rest of that transition be skipped, and that
// ledger must replay too.
func conformanceLive(dir string, checked []*conformanceModule, req func(string, bool, string, ...any) requirementJSON) []requirementJSON {
	const what, whatDown = "machines run in live mode", "a peer that is down fails the intent, and the ledger replays"
	fail := func(format string, args ...any) []requirementJSON {
		why := fmt.Sprintf(format, args...)
		return []requirementJSON{req(what, false, "%s", why), req(whatDown, false, "%s", "not run: the live runs did not succeed")}
	}
	runs, skipped := liveScenarios(dir, checked)
	if len(runs) == 0 {
		return fail("no scenario of %s can run live against the loopback peers%s", filepath.Join(dir, "scenarios"), listed(" (%s)", skipped))
	}
	skills := map[string]bool{}
	for _, m := range checked {
		for _, d := range m.pkg.File.Module.Decls {
			if a, ok := d.(*ast.Agent); ok {
				for _, s := range a.Skills {
					skills[s.Name.Name] = true
				}
			}
		}
	}
	var names []string
	for s := range skills {
		names = append(names, s)
	}
	sort.Strings(names)
	peers, err := startConformancePeers(names)
	if err != nil {
		return fail("%v", err)
	}
	defer peers.close()
	if conformanceLiveHook != nil {
		conformanceLiveHook(peers)
	}
	tmp, err := os.MkdirTemp("", "caps-conformance-live-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(tmp)

	var total liveTally
	var scNames []string
	for i, r := range runs {
		work := filepath.Join(tmp, fmt.Sprintf("run%d", i+1))
		t, err := runLive(r, peers, work)
		if err != nil {
			return fail("%s: %v", filepath.Base(r.path), err)
		}
		total.steps += t.steps
		total.effects += t.effects
		total.a2aMessages += t.a2aMessages
		total.uiPosts += t.uiPosts
		total.httpCalls += t.httpCalls
		total.storeWrites += t.storeWrites
		scNames = append(scNames, filepath.Base(r.path))
	}
	cards, messages, uiPosts, uiMessages, httpCalls := peers.counts()
	if messages != total.a2aMessages || uiPosts != total.uiPosts || httpCalls != total.httpCalls {
		return fail("the peers received %d A2A messages, %d A2UI posts and %d HTTP requests; the runs report %d, %d and %d", messages, uiPosts, httpCalls, total.a2aMessages, total.uiPosts, total.httpCalls)
	}
	live := req(what, true, "%d scenario%s (%s) run with caps machine-run --mode live against loopback peers started by this command (an A2A agent, an A2UI renderer and an HTTP service, in Go on 127.0.0.1) and file-backed stores: %s, %s executed; the peers received %s, %s, %s (%s) and %s, as the runs report; %s written; each run ends in the state its scenario expects; caps replay --trace verifies every ledger byte for byte%s",
		len(runs), plural(len(runs)), strings.Join(scNames, ", "), countOf(total.steps, "step"), countOf(total.effects, "intent"), countOf(cards, "agent card read"), countOf(messages, "A2A message"), countOf(uiPosts, "A2UI post"), countOf(uiMessages, "message"), countOf(httpCalls, "HTTP request"), countOf(total.storeWrites, "store record"), listed(". Not run live: %s; MCP needs a server process (go test ./cmd/caps -run TestLiveChangeApproval runs one)", skipped))

	// The peers stopped: the first intent to a peer fails.
	peers.close()
	down, err := runLiveDown(runs[0], filepath.Join(tmp, "down"))
	if err != nil {
		return []requirementJSON{live, req(whatDown, false, "%s: %v", filepath.Base(runs[0].path), err)}
	}
	return []requirementJSON{live, req(whatDown, true, "%s", down)}
}

// liveScenarios picks the scenarios to run live and says why the others
// are not.
func liveScenarios(dir string, checked []*conformanceModule) (runs []*liveRun, skipped []string) {
	files, _ := filepath.Glob(filepath.Join(dir, "scenarios", "*.json"))
	sort.Strings(files)
	for _, f := range files {
		base := filepath.Base(f)
		data, err := os.ReadFile(f)
		if err != nil {
			skipped = append(skipped, base+" ("+err.Error()+")")
			continue
		}
		sc, err := scenario.Parse(data)
		if err != nil {
			skipped = append(skipped, base+" ("+err.Error()+")")
			continue
		}
		if sc.Mocks != nil {
			skipped = append(skipped, base+" (mock outcomes)")
			continue
		}
		r := &liveRun{path: f, sc: sc}
		r.mod, r.mach = scenarioMachine(sc, checked)
		if r.mach == nil {
			skipped = append(skipped, base+" (no checked module declares machine "+sc.Machine+")")
			continue
		}
		unserved := map[string]bool{}
		for _, st := range r.mach.States {
			for _, tr := range st.Transitions {
				for _, e := range tr.Effects {
					if !liveServed[e.Name.Name] {
						unserved[e.Name.Name] = true
					}
				}
			}
		}
		if len(unserved) > 0 {
			why := "effects without a live adapter"
			for e := range unserved {
				if strings.HasPrefix(e, "mcp.") {
					why = "MCP"
				}
			}
			for e := range unserved {
				if e == "a2ui.await-action" && why != "MCP" {
					why = "a2ui.await-action"
				}
			}
			skipped = append(skipped, base+" ("+why+")")
			continue
		}
		r.inputs, r.want = scenarioInputs(sc)
		runs = append(runs, r)
	}
	return runs, skipped
}

// scenarioMachine finds the checked module that declares the machine of
// a scenario (the first one, in file order).
func scenarioMachine(sc *scenario.Scenario, checked []*conformanceModule) (*conformanceModule, *ast.Machine) {
	for _, m := range checked {
		for _, d := range m.pkg.File.Module.Decls {
			if mach, ok := d.(*ast.Machine); ok && mach.Name.Name == sc.Machine {
				return m, mach
			}
		}
	}
	return nil, nil
}

// scenarioInputs spells a scenario's steps as caps machine-run inputs, and
// returns the state the scenario expects last.
func scenarioInputs(sc *scenario.Scenario) (inputs []string, want string) {
	for _, s := range sc.Events {
		switch {
		case s.Cancel != nil:
			inputs = append(inputs, "!cancel="+s.Cancel.Reason)
		case s.Advance != nil:
			inputs = append(inputs, fmt.Sprintf("+%dms", s.Advance.Millis))
		case len(bytes.TrimSpace(s.Payload)) > 0 && !bytes.Equal(bytes.TrimSpace(s.Payload), []byte("{}")):
			var b bytes.Buffer
			json.Compact(&b, s.Payload)
			inputs = append(inputs, s.Event+"="+b.String())
		default:
			inputs = append(inputs, s.Event)
		}
		if s.Expect != nil && s.Expect.State != "" {
			want = s.Expect.State
		}
	}
	return inputs, want
}

// livePolicy writes the host-policy artifact of r's module with its host
// section bound to the peers and to stores under work, and returns its
// path.
func livePolicy(r *liveRun, peers *conformancePeers, work string) (string, error) {
	var out, errb bytes.Buffer
	if code := run([]string{"host-policy", "--json", r.mod.path}, strings.NewReader(""), &out, &errb); code != 0 {
		return "", fmt.Errorf("caps host-policy exits %d: %s", code, strings.TrimSpace(errb.String()))
	}
	var art map[string]any
	if err := json.Unmarshal(out.Bytes(), &art); err != nil {
		return "", fmt.Errorf("caps host-policy: %v", err)
	}
	host, _ := art["host"].(map[string]any)
	if host == nil {
		return "", fmt.Errorf("the host-policy artifact has no host section")
	}
	a2a, ui, web, stores := map[string]any{}, map[string]any{}, map[string]any{}, map[string]any{}
	for _, d := range r.mod.pkg.File.Module.Decls {
		if s, ok := d.(*ast.Store); ok {
			stores[s.Name.Name] = map[string]any{"dir": filepath.Join(work, "stores", s.Name.Name)}
		}
	}
	for _, st := range r.mach.States {
		for _, tr := range st.Transitions {
			for _, e := range tr.Effects {
				if len(e.Targets) == 0 {
					continue
				}
				owner, _, _ := strings.Cut(e.Targets[0].Name, ".")
				switch {
				case strings.HasPrefix(e.Name.Name, "a2a."):
					a2a[owner] = map[string]any{"url": peers.a2a.url}
				case strings.HasPrefix(e.Name.Name, "a2ui."):
					ui[owner] = map[string]any{"url": peers.renderer.url + "/a2ui"}
				case e.Name.Name == "http.call":
					web[owner] = map[string]any{"url": peers.http.url + "/" + owner}
				}
			}
		}
	}
	host["a2a"], host["a2ui"], host["http"], host["stores"] = a2a, ui, web, stores
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", err
	}
	hostFile, policy := filepath.Join(work, "host.json"), filepath.Join(work, "policy.json")
	data, _ := json.MarshalIndent(art, "", "  ")
	if err := os.WriteFile(hostFile, data, 0o644); err != nil {
		return "", err
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"host-policy", "--host", hostFile, "--json", r.mod.path}, strings.NewReader(""), &out, &errb); code != 0 {
		return "", fmt.Errorf("caps host-policy --host exits %d: %s", code, strings.TrimSpace(errb.String()))
	}
	return policy, os.WriteFile(policy, out.Bytes(), 0o644)
}

// liveResult is the part of caps machine-run --json the evidence reads.
type liveResult struct {
	State string `json:"state"`
	Steps []struct {
		OK      bool `json:"ok"`
		Effects []struct {
			Effect string `json:"effect"`
			Target string `json:"target"`
			Status string `json:"status"`
			Code   string `json:"code"`
			Error  string `json:"error"`
		} `json:"effects"`
	} `json:"steps"`
}

// machineRunLive runs r's inputs in live mode under policy with a ledger
// in ledger.
func machineRunLive(r *liveRun, policy, ledger string, inputs []string) (*liveResult, error) {
	var out, errb bytes.Buffer
	args := append([]string{"machine-run", "--mode", "live", "--policy", policy, "--ledger", ledger, "--json", r.mod.path, r.mach.Name.Name}, inputs...)
	// Exit 1 is a step that failed (a guard, as scenarios expect): still a
	// run, recorded in the ledger.
	if code := run(args, strings.NewReader(""), &out, &errb); code > 1 {
		return nil, fmt.Errorf("caps machine-run --mode live exits %d: %s", code, strings.TrimSpace(errb.String()))
	}
	var res liveResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("caps machine-run --json: %v", err)
	}
	return &res, nil
}

// replayLedger runs caps replay --trace --json on a ledger and checks
// that it verifies every record.
func replayLedger(r *liveRun, ledger string) (int, error) {
	var out, errb bytes.Buffer
	code := run([]string{"replay", "--trace", "--json", "--module", r.mod.path, ledger}, strings.NewReader(""), &out, &errb)
	var rep struct {
		OK       bool   `json:"ok"`
		Records  int    `json:"records"`
		Verified int    `json:"verified"`
		Error    string `json:"error"`
	}
	json.Unmarshal(out.Bytes(), &rep)
	if code != 0 || !rep.OK || rep.Records == 0 || rep.Verified != rep.Records {
		return 0, fmt.Errorf("caps replay exits %d: %d of %d records verified %s%s", code, rep.Verified, rep.Records, rep.Error, strings.TrimSpace(errb.String()))
	}
	return rep.Records, nil
}

// runLive runs one scenario live and returns what its ledger says was
// sent.
func runLive(r *liveRun, peers *conformancePeers, work string) (liveTally, error) {
	var t liveTally
	policy, err := livePolicy(r, peers, work)
	if err != nil {
		return t, err
	}
	ledger := filepath.Join(work, "ledger")
	res, err := machineRunLive(r, policy, ledger, r.inputs)
	if err != nil {
		return t, err
	}
	for _, s := range res.Steps {
		t.steps++
		for _, e := range s.Effects {
			if e.Status != "executed" {
				return t, fmt.Errorf("%s %s: %s %s %s", e.Effect, e.Target, e.Status, e.Code, e.Error)
			}
			t.effects++
			switch {
			case e.Effect == "a2a.task" || e.Effect == "a2a.message":
				t.a2aMessages++
			case strings.HasPrefix(e.Effect, "a2ui."):
				t.uiPosts++
			case e.Effect == "http.call":
				t.httpCalls++
			case e.Effect == "db.write" || e.Effect == "typedb.write":
				t.storeWrites++
			}
		}
	}
	if r.want != "" && res.State != r.want {
		return t, fmt.Errorf("the instance ends in %s; the scenario expects %s", res.State, r.want)
	}
	if _, err := replayLedger(r, ledger); err != nil {
		return t, err
	}
	lines := 0
	files, _ := filepath.Glob(filepath.Join(work, "stores", "*", "*.jsonl"))
	for _, f := range files {
		lines += countLines(f)
	}
	if lines != t.storeWrites {
		return t, fmt.Errorf("the stores hold %d records; the ledger records %d writes", lines, t.storeWrites)
	}
	return t, nil
}

func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		n++
	}
	return n
}

// runLiveDown runs r again with its peers stopped: its first intent to a
// peer must fail with R_PEER_DOWN, the rest of that transition be
// skipped, and the ledger replay.
func runLiveDown(r *liveRun, work string) (string, error) {
	// Addresses that refuse connections: listened on, then closed.
	stopped := &conformancePeers{}
	for _, p := range []**conformancePeer{&stopped.a2a, &stopped.renderer, &stopped.http} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		*p = &conformancePeer{url: "http://" + ln.Addr().String()}
		ln.Close()
	}
	policy, err := livePolicy(r, stopped, work)
	if err != nil {
		return "", err
	}
	ledger := filepath.Join(work, "ledger")
	res, err := machineRunLive(r, policy, ledger, r.inputs)
	if err != nil {
		return "", err
	}
	for i, s := range res.Steps {
		for k, e := range s.Effects {
			if strings.HasPrefix(e.Effect, "db.") || strings.HasPrefix(e.Effect, "typedb.") {
				continue
			}
			if e.Status != "failed" || e.Code != adapters.CodePeerDown {
				return "", fmt.Errorf("with its peer stopped, %s %s is %s %s, not failed with %s", e.Effect, e.Target, e.Status, e.Code, adapters.CodePeerDown)
			}
			for _, rest := range s.Effects[k+1:] {
				if rest.Status != "skipped" {
					return "", fmt.Errorf("after %s %s failed, %s %s is %s, not skipped", e.Effect, e.Target, rest.Effect, rest.Target, rest.Status)
				}
			}
			records, err := replayLedger(r, ledger)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("with the peers stopped, %s runs live again: its first intent to a peer, %s %s (step %d), fails with %s and the rest of that transition is skipped; caps replay --trace verifies its %s", filepath.Base(r.path), e.Effect, e.Target, i+1, e.Code, countOf(records, "ledger record")), nil
		}
	}
	return "", fmt.Errorf("%s sends no intent to a peer", filepath.Base(r.path))
}

// runtimeSemantics reads the steps of caps test --json (the scenarios'
// runs) for state timeouts that fire, intents that time out, failed steps
// and intents, and cancellations; and runs the mock scenarios again with
// caps machine-run --mode mock --json, whose intents list their attempts,
// for retries. It returns what the runs show and what they do not.
func runtimeSemantics(testJSON []byte, scenarios []string, checked []*conformanceModule) (covered, missing []string) {
	var doc struct {
		Files []struct {
			Scenarios []struct {
				Steps []struct {
					Input   string   `json:"input"`
					State   string   `json:"state"`
					OK      bool     `json:"ok"`
					Error   string   `json:"error"`
					Effects []string `json:"effects"`
				} `json:"steps"`
			} `json:"scenarios"`
		} `json:"files"`
	}
	json.Unmarshal(testJSON, &doc)
	stateTimeouts, effectTimeouts, failedSteps, failedIntents, cancels, refused := 0, 0, 0, 0, 0, 0
	for _, f := range doc.Files {
		for _, sc := range f.Scenarios {
			prev := ""
			for _, st := range sc.Steps {
				if strings.HasPrefix(st.Input, "+") && prev != "" && st.State != prev {
					stateTimeouts++
				}
				if st.Input == "cancel" && st.OK {
					cancels++
				}
				if !st.OK {
					failedSteps++
					if strings.HasPrefix(st.Error, machine.CodeCancelled+":") {
						refused++
					}
				}
				for _, e := range st.Effects {
					if strings.Contains(e, "[failed]") {
						failedIntents++
					}
					if strings.Contains(e, machine.CodeEffectTimeout) {
						effectTimeouts++
					}
				}
				prev = st.State
			}
		}
	}
	retried, attempts := 0, 0
	for _, path := range scenarios {
		sc, err := scenario.Load(path)
		if err != nil || sc.Mode != string(machine.Mock) {
			continue
		}
		m, mach := scenarioMachine(sc, checked)
		if mach == nil {
			continue
		}
		args := []string{"machine-run", "--mode", "mock", "--json"}
		if sc.Mocks != nil {
			f, err := os.CreateTemp("", "caps-conformance-mocks-*.json")
			if err != nil {
				continue
			}
			data, _ := json.Marshal(sc.Mocks)
			f.Write(data)
			f.Close()
			defer os.Remove(f.Name())
			args = append(args, "--mocks", f.Name())
		}
		inputs, _ := scenarioInputs(sc)
		args = append(append(args, m.path, mach.Name.Name), inputs...)
		var out, errb bytes.Buffer
		run(args, strings.NewReader(""), &out, &errb)
		var res struct {
			Steps []struct {
				Effects []struct {
					Attempts []json.RawMessage `json:"attempts"`
				} `json:"effects"`
			} `json:"steps"`
		}
		json.Unmarshal(out.Bytes(), &res)
		for _, s := range res.Steps {
			for _, e := range s.Effects {
				if len(e.Attempts) > 1 {
					retried++
					attempts += len(e.Attempts)
				}
			}
		}
	}
	for _, k := range []struct {
		what string
		ok   bool
		how  string
	}{
		{"timeouts", stateTimeouts > 0 && effectTimeouts > 0, fmt.Sprintf("timeouts (%d state timeout%s fired, %d intent%s timed out)", stateTimeouts, plural(stateTimeouts), effectTimeouts, plural(effectTimeouts))},
		{"retries", retried > 0, fmt.Sprintf("retries (%d intent%s retried, %d attempts in all)", retried, plural(retried), attempts)},
		{"failures", failedSteps > 0 && failedIntents > 0, fmt.Sprintf("failures (%d failed step%s, %d failed intent%s)", failedSteps, plural(failedSteps), failedIntents, plural(failedIntents))},
		{"cancellation", cancels > 0 && refused > 0, fmt.Sprintf("cancellation (%d instance%s cancelled, %d later event%s refused with %s)", cancels, plural(cancels), refused, plural(refused), machine.CodeCancelled)},
	} {
		if k.ok {
			covered = append(covered, k.how)
		} else {
			missing = append(missing, k.how)
		}
	}
	return covered, missing
}

// countOf spells n things: "1 step", "2 steps".
func countOf(n int, what string) string { return fmt.Sprintf("%d %s%s", n, what, plural(n)) }
