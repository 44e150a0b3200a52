package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/patterns"
	"github.com/google/go-cmp/cmp"
)

// TestNewEveryPattern writes every pattern with caps new and runs caps
// check and caps test (with the pattern's scenario) on the copy.
func TestNewEveryPattern(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, p := range patterns.All() {
		out := strings.ReplaceAll(p.Name, "-", "_") + "_copy.caps"
		got := runCaps(t, "", "new", p.Name, "--out", out, "--scenario", "--json")
		var res struct {
			OK                                   bool
			Pattern, Path, Module, Machine, Hash string
			Scenario                             string
			Bytes                                int
			Next                                 []string
		}
		if err := json.Unmarshal([]byte(got.stdout), &res); err != nil || got.code != 0 || got.stderr != "" {
			t.Fatalf("caps new %s: %v %+v", p.Name, err, got)
		}
		if !res.OK || res.Module != strings.TrimSuffix(out, ".caps") || res.Machine != p.Machine || len(res.Next) != 6 {
			t.Errorf("caps new %s: %+v", p.Name, res)
		}
		b, _ := os.ReadFile(out)
		if len(b) != res.Bytes || !strings.Contains(string(b), "(module "+res.Module+"\n") {
			t.Errorf("%s: %d bytes, want %d, module line for %s", out, len(b), res.Bytes, res.Module)
		}
		scen := "scenarios/" + strings.TrimSuffix(out, ".caps") + "." + p.Machine + ".json"
		if b, err := os.ReadFile(scen); err != nil || string(b) != string(p.Scenario) || res.Scenario != scen {
			t.Errorf("scenario %s (reported %q): %v", scen, res.Scenario, err)
		}
		if got := runCaps(t, "", "check", out); got.code != 0 || got.stderr != "" {
			t.Errorf("caps check %s: %+v", out, got)
		}
		if got := runCaps(t, "", "fmt", "--check", out); got.code != 0 {
			t.Errorf("caps fmt --check %s: not in the canonical layout: %+v", out, got)
		}
		got = runCaps(t, "", "test", "--scenario", scen, out)
		if got.code != 0 || !strings.Contains(got.stdout, "PASS "+scen+": "+p.Machine) || !strings.HasSuffix(got.stdout, " passed, 0 failed\n") {
			t.Errorf("caps test %s: %+v", out, got)
		}
		// The dry run from the start event, without a payload.
		got = runCaps(t, "", "machine-run", out, p.Machine, p.StartEvent, "--mode", "dry-run")
		if got.code != 0 {
			t.Errorf("dry run of %s: %+v", out, got)
		}
	}
}

func TestPatternsCommands(t *testing.T) {
	t.Chdir(t.TempDir())
	usage := "usage: caps patterns list [--json] | show NAME [--template] [--json]\nRun 'caps help patterns' for details.\n"
	newUsage := "usage: caps new PATTERN --out FILE [--module NAME] [--scenario] [--force] [--json]\nRun 'caps help new' for details.\n"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // prefix when it ends in "..."
		stderr string
	}{
		{name: "list", args: []string{"patterns", "list"}, stdout: "access-change-approval         Granting a role: owner approval, security review for privileged roles, the grant through an identity port, automatic revocation when it expires.\nclaim-review ..."},
		{name: "show", args: []string{"patterns", "show", "claim-review"},
			stdout: "claim-review: Claim review\nAn agent scores a claim, a person accepts or rejects it or asks for a bounded number of re-reviews; only accepted claims become facts.\n\nmachine ClaimReview, initial idle\nstates: idle, reviewing, deciding, accepted (final), rejected (final)\nevents:\n  SubmitClaim (claim_id U64)\n  Scored (score U32)\n  Accept\n  Reject\n  RequestReview\neffects: db.write claims_db.claims, a2a.task reviewer.score_claim, db.write claims_db.reviews, a2ui.emit claim_desk, db.write claims_db.decisions, db.project claims_db.claims facts\nstores: claims_db, facts\nagents: reviewer\nsurfaces: claim_desk\nfirst commands:\n  caps new claim-review --out claim_review.caps\n  caps check claim_review.caps --json\n  caps test claim_review.caps --json\n  caps machine-run claim_review.caps ClaimReview SubmitClaim --mode dry-run\n  caps agent-graph --json claim_review.caps\n  caps cost --json claim_review.caps\n  caps release-preview --json claim_review.caps\n"},
		{name: "unknown pattern", args: []string{"patterns", "show", "claim-reveiw"}, code: 1,
			stderr: "caps: unknown pattern \"claim-reveiw\"; did you mean \"claim-review\"? (caps patterns list names them)\n"},
		{name: "no subcommand", args: []string{"patterns"}, code: 2, stderr: "caps patterns: expected list or show NAME\n" + usage},
		{name: "bad subcommand", args: []string{"patterns", "get", "x"}, code: 2, stderr: "caps patterns: unknown subcommand \"get\": use list or show NAME\n" + usage},
		{name: "template with list", args: []string{"patterns", "list", "--template"}, code: 2, stderr: "caps patterns: --template goes with show NAME\n" + usage},
		{name: "unknown flag", args: []string{"patterns", "list", "--jsn"}, code: 2, stderr: "caps patterns: unknown flag --jsn; did you mean --json?\n" + usage},
		{name: "new unknown", args: []string{"new", "refund-reviw", "--out", "r.caps"}, code: 1,
			stderr: "caps: unknown pattern \"refund-reviw\"; did you mean \"refund-review\"? (caps patterns list names them)\n"},
		{name: "new without out", args: []string{"new", "refund-review"}, code: 2,
			stderr: "caps new: --out FILE is required\n" + newUsage},
		{name: "new bad module", args: []string{"new", "refund-review", "--out", "r.caps", "--module", "Bad-Name"}, code: 2,
			stderr: "caps new: --module: \"Bad-Name\" is not a module name: use lower-case words of letters, digits and _, joined by dots\n" + newUsage},
		{name: "new", args: []string{"new", "refund-review", "--out", "flows/Refund Flow.caps"},
			stdout: "wrote flows/Refund Flow.caps: pattern refund-review as module refund_flow (machine RefundReview)\nnext:\n  caps check flows/Refund Flow.caps --json\n..."},
		{name: "new refuses to overwrite", args: []string{"new", "claim-review", "--out", "flows/Refund Flow.caps"}, code: 2,
			stderr: "caps: flows/Refund Flow.caps exists; pass --force to overwrite it, or choose another --out\n"},
		{name: "new --force", args: []string{"new", "claim-review", "--out", "flows/Refund Flow.caps", "--force", "--module", "acme.claims"},
			stdout: "wrote flows/Refund Flow.caps: pattern claim-review as module acme.claims (machine ClaimReview)\n..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCaps(t, "", tt.args...)
			okOut := got.stdout == tt.stdout
			if p, ok := strings.CutSuffix(tt.stdout, "..."); ok {
				okOut = strings.HasPrefix(got.stdout, p)
			}
			if got.code != tt.code || !okOut || got.stderr != tt.stderr {
				t.Errorf("caps %s: exit %d\nstdout %q\nstderr %q\nwant exit %d\nstdout %q\nstderr %q", strings.Join(tt.args, " "), got.code, got.stdout, got.stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
	b, _ := os.ReadFile(filepath.Join("flows", "Refund Flow.caps"))
	if !strings.Contains(string(b), "(module acme.claims\n") {
		t.Errorf("--force did not overwrite:\n%.200s", b)
	}
	if ents, _ := os.ReadDir("flows"); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	// show --template --json carries the source and the scenario.
	got := runCaps(t, "", "patterns", "show", "access-change-approval", "--template", "--json")
	var show struct {
		Name, Module, Machine, Initial, Template string
		States                                   []struct {
			Name  string
			Final bool
		}
		Events []struct {
			Name   string
			Fields []struct{ Name, Type string }
		}
		Declarations map[string][]string
		Scenario     struct{ Machine string }
	}
	if err := json.Unmarshal([]byte(got.stdout), &show); err != nil || got.code != 0 {
		t.Fatalf("%v %+v", err, got)
	}
	p := patterns.Lookup("access-change-approval")
	if show.Template != string(p.Source) || show.Scenario.Machine != "AccessChange" || show.Module != "patterns.access_change_approval" ||
		show.Initial != "draft" || len(show.States) != 7 || !cmp.Equal(show.Declarations["ports"], []string{"identity"}) ||
		show.Events[0].Name != "RequestAccess" || show.Events[0].Fields[1].Type != "U32" {
		t.Errorf("%+v", show)
	}
	got = runCaps(t, "", "patterns", "list", "--json")
	var list struct {
		Patterns []struct{ Name, Machine string }
	}
	if err := json.Unmarshal([]byte(got.stdout), &list); err != nil || len(list.Patterns) != 8 || list.Patterns[7].Name != "regulated-deployment-approval" {
		t.Errorf("%v %s", err, got.stdout)
	}
}
