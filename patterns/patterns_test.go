package patterns_test

import (
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/ir"
	"github.com/capsulang/caps/patterns"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/scenario"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/google/go-cmp/cmp"
)

func checked(t *testing.T, name string, src []byte) *check.Result {
	t.Helper()
	f, err := ast.Parse(src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	res := check.Check(f, check.Options{Path: name})
	if len(res.Diagnostics) > 0 {
		t.Fatalf("%s: want no diagnostics at all, got %v", name, res.Diagnostics)
	}
	return res
}

// TestLibrary: the eight workflows the spec names, each checking without
// a diagnostic, with passing examples and a passing scenario that starts
// with its start event and reaches a final state.
func TestLibrary(t *testing.T) {
	want := []string{"access-change-approval", "claim-review", "content-moderation", "data-access-request",
		"exception-handling", "incident-response", "refund-review", "regulated-deployment-approval"}
	if diff := cmp.Diff(want, patterns.Names()); diff != "" {
		t.Fatalf("names (-want +got)\n%s", diff)
	}
	for _, p := range patterns.All() {
		t.Run(p.Name, func(t *testing.T) {
			res := checked(t, p.File, p.Source)
			if got := res.File.Module.Name.Name; got != p.ModuleName() {
				t.Errorf("module %s, want %s", got, p.ModuleName())
			}
			outs := examples.Evaluate(res)
			if len(outs) < 2 {
				t.Errorf("%d examples", len(outs))
			}
			for _, o := range outs {
				if !o.Passed {
					t.Errorf("%s", o.Message())
				}
			}
			m, err := machine.Compile(res, p.Machine, machine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := m.Event(p.StartEvent); !ok {
				t.Errorf("no start event %s", p.StartEvent)
			}
			s, err := scenario.Parse(p.Scenario)
			if err != nil {
				t.Fatal(err)
			}
			if s.Machine != p.Machine || len(s.Events) < 3 || s.Events[0].Event != p.StartEvent {
				t.Errorf("scenario %s: machine %s, %d inputs", p.ScenarioFile, s.Machine, len(s.Events))
			}
			r := scenario.Run(m, s)
			if !r.Passed {
				t.Errorf("%s", r.Text(p.ScenarioFile))
			}
			if p.Title == "" || len(p.Summary) < 40 || len(p.Tags) == 0 {
				t.Errorf("catalog entry incomplete: %+v", p)
			}
		})
	}
}

// TestTemplate: a renamed template checks clean, differs from the library
// copy only in its module line, and has its own semantic hash.
func TestTemplate(t *testing.T) {
	p := patterns.Lookup("access-change-approval")
	tmpl := p.Template("access_change")
	res := checked(t, "access_change.caps", tmpl)
	if res.File.Module.Name.Name != "access_change" {
		t.Fatalf("module %s", res.File.Module.Name.Name)
	}
	if got := strings.Replace(string(tmpl), "(module access_change", "(module patterns.access_change_approval", 1); got != string(p.Source) {
		t.Errorf("the template differs beyond its module name")
	}
	orig := checked(t, p.File, p.Source)
	h1, err1 := ir.Hash(res.File.Module)
	h2, err2 := ir.Hash(orig.File.Module)
	if err1 != nil || err2 != nil || h1 == h2 {
		t.Errorf("hashes %s %s (%v %v): want two different ones", h1, h2, err1, err2)
	}
}

func TestModuleFor(t *testing.T) {
	for in, want := range map[string]string{
		"access_change.caps": "access_change", "dir/Refund-Flow.caps": "refund_flow", "2fa.caps": "m_2fa", ".caps": "workflow",
		`C:\x\My Flow.caps`: "my_flow",
	} {
		if got := patterns.ModuleFor(in); got != want {
			t.Errorf("ModuleFor(%q) = %q, want %q", in, got, want)
		}
		if err := patterns.ValidModule(patterns.ModuleFor(in)); err != nil {
			t.Error(err)
		}
	}
	for _, bad := range []string{"", "A", "a..b", "1a", "a-b"} {
		if patterns.ValidModule(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
