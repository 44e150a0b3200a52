package catalog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTablesLoad(t *testing.T) {
	if e := LookupEffect("db.write"); e == nil || e.Domain != "db" || e.Target != "store-collection" {
		t.Fatalf("db.write: %+v", e)
	}
	if p := LookupProfile("external.mcp"); p == nil || !p.Admits(LookupEffect("mcp.call")) || p.Admits(LookupEffect("db.write")) {
		t.Fatalf("external.mcp: %+v", p)
	}
	if c := LookupConstruct("gate"); c == nil || c.Clause("requires") == nil || len(c.Clause("requires").Patterns()) < 5 {
		t.Fatalf("gate: %+v", c)
	}
	got := AdmittingProfiles(LookupEffect("a2ui.emit"))
	if len(got) == 0 || got[0].Name != "ui.a2ui" {
		t.Fatalf("admitting a2ui.emit: %v", got)
	}
}

// Every effect's target kind is one the checker knows.
func TestEffectTargetsKnown(t *testing.T) {
	known := map[string]bool{"store": true, "store-collection": true, "port-tool": true, "port-resource": true,
		"agent-skill": true, "agent-skill-optional": true, "surface": true, "surface-action-optional": true,
		"eval-suite": true, "verification-hook": true, "deployment-policy": true, "gate": true,
		"authority-policy": true, "capability": true, "zk-proof": true, "free": true, "none": true}
	for _, e := range Effects() {
		if !known[e.Target] {
			t.Errorf("%s: unknown target kind %q", e.Name, e.Target)
		}
		if e.ExtraTargets != "" && !known[e.ExtraTargets] {
			t.Errorf("%s: unknown extra target kind %q", e.Name, e.ExtraTargets)
		}
	}
	for _, p := range Profiles() {
		for _, n := range p.Effects {
			if LookupEffect(n) == nil {
				t.Errorf("profile %s names unknown effect %s", p.Name, n)
			}
		}
	}
}

// TestBudgetOnlyEffects: exactly the names listed so that budgets can deny
// them are budget-only, they are not performable, and each Instead names a
// performable effect.
func TestBudgetOnlyEffects(t *testing.T) {
	var budgetOnly []string
	instead := map[string]string{}
	for _, e := range Effects() {
		if e.BudgetOnly {
			budgetOnly = append(budgetOnly, e.Name)
		}
		if e.Instead != "" {
			instead[e.Name] = e.Instead
			if !e.BudgetOnly {
				t.Errorf("%s: instead %s on an effect that is not budget-only", e.Name, e.Instead)
			}
			if x := LookupEffect(e.Instead); x == nil || x.BudgetOnly {
				t.Errorf("%s: instead %s is not a performable effect", e.Name, e.Instead)
			}
		}
	}
	if diff := cmp.Diff([]string{"model.train.frontier", "deploy.live", "secret.read"}, budgetOnly); diff != "" {
		t.Errorf("budget-only effects (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"deploy.live": "deploy.promote", "model.train.frontier": "model.finetune"}, instead); diff != "" {
		t.Errorf("instead (-want +got):\n%s", diff)
	}
	performable := PerformableEffectNames()
	if got, want := len(performable), len(Effects())-len(budgetOnly); got != want {
		t.Errorf("%d performable effects, want %d", got, want)
	}
	for _, n := range performable {
		if LookupEffect(n).BudgetOnly {
			t.Errorf("PerformableEffectNames lists budget-only %s", n)
		}
	}
}
