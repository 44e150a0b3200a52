package cost_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/cost"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/cost")

// TestGolden pins the estimate of every shipped example.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.caps")
	n := 0
	for _, f := range files {
		if strings.Contains(filepath.Base(f), "_bad_") {
			continue
		}
		p, err := (&load.Loader{}).Load(f)
		if err != nil || p.Result.HasErrors() {
			t.Fatalf("%s: %v %v", f, err, p.Result.Diagnostics)
		}
		got, err := json.MarshalIndent(cost.Estimate(p.File.Module), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		golden := filepath.Join("../../testdata/cost", strings.TrimSuffix(filepath.Base(f), ".caps")+".json")
		if *update {
			os.WriteFile(golden, got, 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./analysis/cost -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s; run go test ./analysis/cost -update and review the diff\n%s", f, golden, got)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d examples", n)
	}
}

func estimate(t *testing.T, src string) *cost.Report {
	t.Helper()
	f, err := ast.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if res := check.Check(f, check.Options{Path: "m.caps"}); res.HasErrors() {
		t.Fatalf("%v", res.Diagnostics)
	}
	return cost.Estimate(f.Module)
}

// loopSrc has a loop, an on-error route, an unreachable final state, a
// function with effects and a budget that the worst case exceeds.
const loopSrc = `(module m
  (capsule "1.0")
  (profile persistence.surrealdb external.mcp improvement)
  (store s (backend surrealdb) (authority runtime-state) (collection log))
  (port p (protocol mcp) (tool act))
  (function note (input (x U32)) (output U32) (effects (db.write s.log)) (body (do (db.write s.log x) x)))
  (budget B
    (max-llm-calls 1)
    (max-ci-runs 1)
    (max-wall-clock-ms 1000)
    (max-files 3)
    (allow-effects llm.call db.write)
    (deny-effects mcp.call))
  (machine M
    (context (n U32))
    (event Go) (event Again) (event Done)
    (initial a)
    (state a
      (on Go (target b) (effects (llm.call (timeout 2s)) (mcp.call p.act (retry 2) (timeout 1s) (on-error failed)))))
    (state b
      (on Again (guard (< n 3)) (target a) (effects (llm.call)))
      (on Done (target done) (effects (db.write s.log) (ci.run (retry 1)))))
    (state done (type final))
    (state failed (type final))
    (state orphan (type final))))
`

func TestEstimate(t *testing.T) {
	r := estimate(t, loopSrc)
	if len(r.Functions) != 1 || r.Functions[0].Name != "note" || r.Functions[0].Effects[0].Determinism != "ledgered" {
		t.Errorf("functions %+v", r.Functions)
	}
	m := r.Machines[0]
	tr := m.Transitions[0]
	if tr.External != 2 || tr.MaxAttempts != 4 || !cmp.Equal(tr.ByClass, map[string]int{"external": 2}) {
		t.Errorf("Go: %+v", tr)
	}
	type wc struct {
		Final     string
		Reachable bool
		Steps     string
		Attempts  int
		Time      int64
		Repeats   bool
	}
	var got []wc
	for _, p := range m.WorstCase {
		var steps []string
		for _, s := range p.Steps {
			steps = append(steps, s.From+">"+s.Event+">"+s.To+"/"+s.OnError)
		}
		var tm int64 = -1
		if p.EffectTimeMs != nil {
			tm = *p.EffectTimeMs
		}
		got = append(got, wc{p.Final, p.Reachable, strings.Join(steps, " "), p.MaxAttempts, tm, p.Repeats})
	}
	want := []wc{
		// llm.call (1) + mcp.call (3 attempts) + ci.run (2 attempts); ci.run
		// has no timeout, so the time is unbounded.
		{"done", true, "a>Go>b/ b>Done>done/", 6, -1, true},
		// The on-error route: llm.call, then mcp.call with all 3 attempts
		// (2s + 3 x 1s).
		{"failed", true, "a>Go>failed/mcp.call", 4, 5000, true},
		{"orphan", false, "", 0, -1, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("worst cases (-want +got)\n%s", diff)
	}
	if len(m.Loops) != 1 || !cmp.Equal(m.Loops[0].States, []string{"a", "b"}) || len(m.Loops[0].Transitions) != 2 {
		t.Errorf("loops %+v", m.Loops)
	}
	b := r.Budgets[0]
	type lim struct {
		Limit string
		Used  int64
		Over  bool
	}
	var lims []lim
	for _, l := range b.Limits {
		u := int64(-1)
		if l.Used != nil {
			u = *l.Used
		}
		lims = append(lims, lim{l.Limit, u, l.Over})
	}
	wantLims := []lim{{"max-llm-calls", 1, false}, {"max-ci-runs", 2, true}, {"max-wall-clock-ms", -1, false}, {"max-files", -1, false}}
	if diff := cmp.Diff(wantLims, lims); diff != "" {
		t.Errorf("limits (-want +got)\n%s", diff)
	}
	if !cmp.Equal(b.OutsideAllow, []string{"ci.run", "mcp.call"}) || !cmp.Equal(b.Denied, []string{"mcp.call"}) {
		t.Errorf("allow/deny: %v %v", b.OutsideAllow, b.Denied)
	}
}
