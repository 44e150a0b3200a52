package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateHostPolicy = flag.Bool("update-host-policy", false, "rewrite testdata/authority/*.host-policy.json")

// repoRoot makes the repository root the current folder for the test.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	return root
}

const refundReviewer = "testdata/authority/refund_reviewer.caps"

// TestHostPolicyGolden: the artifact of the spec's refund reviewer is the
// committed one, byte for byte, and carries caps hash's hash.
func TestHostPolicyGolden(t *testing.T) {
	repoRoot(t)
	golden := strings.TrimSuffix(refundReviewer, ".caps") + ".host-policy.json"
	got := runCaps(t, "", "host-policy", "--json", refundReviewer)
	if got.code != 0 || got.stderr != "" {
		t.Fatalf("%+v", got)
	}
	if *updateHostPolicy {
		if err := os.WriteFile(golden, []byte(got.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got.stdout); diff != "" {
		t.Errorf("caps host-policy --json %s differs from %s (run go test ./cmd/caps -run TestHostPolicyGolden -update-host-policy if the change is intended):\n%s", refundReviewer, golden, diff)
	}
	var art struct {
		SemanticHash string `json:"semantic_hash"`
	}
	json.Unmarshal(want, &art)
	if h := runCaps(t, "", "hash", refundReviewer); h.stdout != art.SemanticHash+"\n" {
		t.Errorf("semantic_hash %s, caps hash %s", art.SemanticHash, h.stdout)
	}
}

// neverAllowed are the checker's warnings about the spec's refund
// reviewer: its policy names db.read and http.call effects while its
// machine emits mcp.call intents, so no rule can ever allow them.
const neverAllowed = `testdata/authority/refund_reviewer.caps:139:11: warning W_AUTHORITY_NEVER_ALLOWS: mcp.call.GateCapsule.db_read_customerdb_claims can never be allowed in machine EnclosedAgent: policy PolicyCapsule denies it by default and none of its allow, escalate or defer rules can hold for it; allow it with a rule (repairs that widen authority go through caps propose), or remove the intent
testdata/authority/refund_reviewer.caps:155:11: warning W_AUTHORITY_NEVER_ALLOWS: mcp.call.GateCapsule.http_call_refundapi_issue_refund can never be allowed in machine EnclosedAgent: policy PolicyCapsule denies it by default and none of its allow, escalate or defer rules can hold for it; allow it with a rule (repairs that widen authority go through caps propose), or remove the intent
`

// TestHostPolicyCommand: the summary, --host, and every failure with its
// exit code.
func TestHostPolicyCommand(t *testing.T) {
	repoRoot(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	legacy := write("legacy.json", `{"allow": [{"effect": "mcp.call", "target": "GateCapsule.*"}],
  "mcp": {"GateCapsule": {"command": ["doorkeeper", "--stdio"], "env": {"TOKEN": "${DOORKEEPER_TOKEN}"}}},
  "timeout": "10s"}`)
	outside := write("outside.json", `{"http": {"weather": {"url": "https://api.weather.test"}}}`)
	broken := write("broken.caps", "(module broken\n  (capsule \"1.0\")\n  (machine M (initial nowhere)))\n")
	unfit := write("unfit.caps", "(module unfit\n  (capsule \"1.0\")\n  (authority-policy Q (outcome allow deny) (default deny) (on allow always)))\n")
	usage := "usage: caps host-policy [--json] [--host FILE] FILE\nRun 'caps help host-policy' for details.\n"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "summary", args: []string{"host-policy", refundReviewer}, stdout: `host policy of module edl.claims_refund_reviewer
semantic hash sha256:37fb9d53b51984408e2f7b49b19bc19cfaace94527fba67b73dff85d847bdb93
authority: 2 principals, 1 mandate, 1 delegation, 2 capabilities, 1 authority-policy, 1 trust-boundary, 1 telemetry-obligation, 1 memory-policy
effects: 10 intents of 1 machine
trust boundary EncClaimsRefundReviewer (enforce): egress only through GateCapsule; HTTP bindings only for declared http ports; MCP servers get no ambient environment
host: 9 allow rules, 0 deny rules, 0 MCP bindings, 0 HTTP bindings, timeout 30s
print the artifact with: caps host-policy --json testdata/authority/refund_reviewer.caps
`, stderr: neverAllowed},
		{name: "legacy host section", args: []string{"host-policy", "--host", legacy, refundReviewer}, stdout: `host policy of module edl.claims_refund_reviewer
semantic hash sha256:37fb9d53b51984408e2f7b49b19bc19cfaace94527fba67b73dff85d847bdb93
authority: 2 principals, 1 mandate, 1 delegation, 2 capabilities, 1 authority-policy, 1 trust-boundary, 1 telemetry-obligation, 1 memory-policy
effects: 10 intents of 1 machine
trust boundary EncClaimsRefundReviewer (enforce): egress only through GateCapsule; HTTP bindings only for declared http ports; MCP servers get no ambient environment
host: 1 allow rule, 0 deny rules, 1 MCP binding, 0 HTTP bindings, timeout 10s
print the artifact with: caps host-policy --json testdata/authority/refund_reviewer.caps
`, stderr: neverAllowed + `caps: warning: the host section denies policy.evaluate PolicyCapsule (machine EnclosedAgent, state ready, event ProposeChange) by default deny; live mode will refuse the intent
caps: warning: the host section denies receipt.emit proposal_receipt (machine EnclosedAgent, state ready, event ProposeChange) by default deny; live mode will refuse the intent
caps: warning: the host section denies policy.evaluate PolicyCapsule (machine EnclosedAgent, state ready, event RequestPrivilegedAction) by default deny; live mode will refuse the intent
caps: warning: the host section denies approval.request HumanApprovalGate (machine EnclosedAgent, state ready, event RequestPrivilegedAction) by default deny; live mode will refuse the intent
caps: warning: the host section denies receipt.emit enclosure_completed (machine EnclosedAgent, state ready, event Complete) by default deny; live mode will refuse the intent
caps: warning: the host section denies capability.issue CapHttpCallRefundapiIssueRefund (machine EnclosedAgent, state waiting_for_approval, event HumanApproved) by default deny; live mode will refuse the intent
caps: warning: the host section denies receipt.emit privileged_action_executed (machine EnclosedAgent, state waiting_for_approval, event HumanApproved) by default deny; live mode will refuse the intent
caps: warning: the host section denies receipt.emit privileged_action_denied (machine EnclosedAgent, state waiting_for_approval, event HumanDenied) by default deny; live mode will refuse the intent
`},
		{name: "binding outside the trust boundary", args: []string{"host-policy", "--json", "--host", outside, refundReviewer}, code: 2,
			stderr: "caps: --host " + outside + ": $.host.http.weather: trust boundary EncClaimsRefundReviewer allows egress only through GateCapsule, not port weather: remove this binding, or list the port in the boundary's (egress-only ...) clause\n"},
		{name: "no host file", args: []string{"host-policy", "--host", filepath.Join(dir, "gone.json"), refundReviewer}, code: 2,
			stderr: "caps: --host open " + filepath.Join(dir, "gone.json") + ": no such file or directory\n"},
		{name: "module with errors", args: []string{"host-policy", "--json", broken}, code: 1,
			stdout: `{"ok":false,"files":[{"path":"` + broken + `","diagnostics":[` +
				`{"code":"E_MISSING_CLAUSE","severity":"error","message":"machine M has no states; add (state NAME ...)","range":{"start":{"line":2,"character":11},"end":{"line":2,"character":12}},"related":[]},` +
				`{"code":"E_UNKNOWN_STATE","severity":"error","message":"unknown state ` + "`nowhere`" + ` in machine M","range":{"start":{"line":2,"character":22},"end":{"line":2,"character":29}},"related":[]}]}]}` + "\n"},
		{name: "rule the artifact cannot carry", args: []string{"host-policy", "--json", unfit}, code: 1,
			stdout: `{"ok":false,"files":[{"path":"` + unfit + `","diagnostics":[{"code":"","severity":"error","message":"authority-policy Q: (on allow always) is not a rule of the form (on OUTCOME (if \"CONDITION\")); the host-policy artifact carries only rules of that form: rewrite it so","range":{"start":{"line":2,"character":58},"end":{"line":2,"character":75}},"related":[]}]}]}` + "\n"},
		{name: "rule the artifact cannot carry, text", args: []string{"host-policy", unfit}, code: 1,
			stderr: unfit + `:3:59: error: authority-policy Q: (on allow always) is not a rule of the form (on OUTCOME (if "CONDITION")); the host-policy artifact carries only rules of that form: rewrite it so` + "\n"},
		{name: "no module file", args: []string{"host-policy", "gone.caps"}, code: 2, stderr: "caps: gone.caps: no such file\n"},
		{name: "no argument", args: []string{"host-policy"}, code: 2, stderr: "caps host-policy: expected one FILE\n" + usage},
		{name: "two arguments", args: []string{"host-policy", "a.caps", "b.caps"}, code: 2, stderr: "caps host-policy: expected one FILE\n" + usage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCaps(t, "", tt.args...)
			want := runResult{tt.code, tt.stdout, tt.stderr}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("caps %s: (-want +got)\n%s", strings.Join(tt.args, " "), diff)
			}
		})
	}
}

// TestHostPolicyRegenerate: --host with an earlier artifact keeps its host
// section byte for byte.
func TestHostPolicyRegenerate(t *testing.T) {
	repoRoot(t)
	dir := t.TempDir()
	legacy := filepath.Join(dir, "legacy.json")
	os.WriteFile(legacy, []byte(`{"allow": [{"effect": "*"}], "deny": [{"effect": "receipt.emit"}],
		"mcp": {"GateCapsule": {"command": ["doorkeeper"], "env": {"TOKEN": "${DOORKEEPER_TOKEN}"}, "dir": "/srv"}}}`), 0o644)
	first := runCaps(t, "", "host-policy", "--json", "--host", legacy, refundReviewer)
	if first.code != 0 || !strings.HasPrefix(first.stderr, "caps: warning: the host section denies receipt.emit proposal_receipt") {
		t.Fatalf("%+v", first)
	}
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte(first.stdout), 0o644)
	again := runCaps(t, "", "host-policy", "--json", "--host", old, refundReviewer)
	if again != first {
		t.Errorf("regenerating changed the artifact:\n%s", cmp.Diff(first.stdout, again.stdout))
	}
	var art struct{ Host json.RawMessage }
	json.Unmarshal([]byte(first.stdout), &art)
	var host bytes.Buffer
	json.Compact(&host, art.Host)
	want := `{"allow":[{"effect":"*"}],"deny":[{"effect":"receipt.emit"}],"http":{},"mcp":{"GateCapsule":{"command":["doorkeeper"],"dir":"/srv","env":{"TOKEN":"${DOORKEEPER_TOKEN}"}}},"timeout":"30s"}`
	if host.String() != want {
		t.Errorf("host section\n got %s\nwant %s", host.String(), want)
	}
}

// TestMachineRunHostPolicy: live mode takes the artifact, and refuses one
// whose module changed, a legacy policy file and a hand-edited authority
// section.
func TestMachineRunHostPolicy(t *testing.T) {
	machineFiles(t)
	art := runCaps(t, "", "host-policy", "--json", "door.caps")
	if art.code != 0 {
		t.Fatalf("%+v", art)
	}
	os.WriteFile("door.policy.json", []byte(art.stdout), 0o644)
	os.WriteFile("legacy.json", []byte(`{"allow": [{"effect": "db.write"}]}`), 0o644)
	os.WriteFile("edited.json", []byte(strings.Replace(art.stdout, `"target": "log.alarms"`, `"target": "log.secrets"`, 1)), 0o644)
	os.WriteFile("door2.caps", []byte(strings.Replace(doorSrc, "(retry 1)", "(retry 2)", 1)), 0o644)
	oldHash, newHash := strings.TrimSpace(runCaps(t, "", "hash", "door.caps").stdout), strings.TrimSpace(runCaps(t, "", "hash", "door2.caps").stdout)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "accepted", args: []string{"machine-run", "--mode", "live", "--policy", "door.policy.json", "door.caps", "Door", `Open={"code": 1234, "who": "cy"}`},
			stdout: `Door (live), instance Door-a65d9de4f806
#1 Open: closed -> open
    db.write log.opened: failed (2 attempts, 0ms): R_NO_ADAPTER: the host policy binds no store log; add it under "stores" in the host section: {"log": {"dir": "FOLDER"}}
    on-error: open -> jammed
state jammed (running), clock 0ms
context {"code":0,"opens":1,"who":"cy"}
`},
		{name: "module changed", args: []string{"machine-run", "--mode", "live", "--policy", "door.policy.json", "door2.caps", "Door"}, code: 2,
			stderr: "caps: door.policy.json:46:20: $.semantic_hash: the artifact was made for semantic hash " + oldHash + " of module door, but door2.caps now has semantic hash " + newHash +
				": the module changed since. Regenerate the artifact, keeping its host section: caps host-policy door2.caps --host door.policy.json --json > NEW.json\n"},
		{name: "legacy", args: []string{"machine-run", "--mode", "live", "--policy", "legacy.json", "door.caps", "Door"}, code: 2,
			stderr: "caps: legacy.json: this is a host policy in the old format (top-level allow, deny, mcp, http, timeout); live mode now takes the host-policy artifact of the module. Convert it: caps host-policy door.caps --host legacy.json --json > NEW.json, then pass NEW.json to --policy\n"},
		{name: "edited", args: []string{"machine-run", "--mode", "live", "--policy", "edited.json", "door.caps", "Door"}, code: 2,
			stderr: "caps: edited.json: effects: the artifact lacks db.write log.alarms (machine Door, state jammed, event Alarm), which the module's machines emit: the authority and effects sections are generated from module door and must not be edited; change the module instead and regenerate the artifact, keeping its host section: caps host-policy door.caps --host edited.json --json > NEW.json\n"},
		{name: "no file", args: []string{"machine-run", "--mode", "live", "--policy", "gone.json", "door.caps", "Door"}, code: 2,
			stderr: "caps: open gone.json: no such file or directory\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCaps(t, "", tt.args...)
			want := runResult{tt.code, tt.stdout, tt.stderr}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("caps %s: (-want +got)\n%s", strings.Join(tt.args, " "), diff)
			}
		})
	}
}
