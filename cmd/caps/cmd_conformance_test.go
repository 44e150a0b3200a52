package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type conformanceDoc struct {
	OK    bool `json:"ok"`
	Files []struct {
		Dir         string   `json:"dir"`
		SpecModules []string `json:"spec_modules"`
		Levels      []struct {
			ID           string `json:"id"`
			Met          bool   `json:"met"`
			OwnMet       bool   `json:"own_met"`
			Requirements []struct {
				Requirement string `json:"requirement"`
				Met         bool   `json:"met"`
				Evidence    string `json:"evidence"`
			} `json:"requirements"`
			Modules []string `json:"modules"`
		} `json:"levels"`
		Highest string `json:"highest_met"`
	} `json:"files"`
}

func runConformanceJSON(t *testing.T, dir string) conformanceDoc {
	t.Helper()
	r := runCaps(t, "", "conformance", "--json", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc conformanceDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	return doc
}

// TestConformanceExamples: the ladder on the shipped examples. Levels
// 0-2 are shown; CPS-3 is not, because live mode is never shown here;
// CPS-7 is shown for exactly the modules whose obligations Z3 discharges.
func TestConformanceExamples(t *testing.T) {
	needZ3(t)
	doc := runConformanceJSON(t, "../../examples")
	f := doc.Files[0]
	if len(f.Levels) != 11 || f.Highest != "CPS-2" {
		t.Fatalf("%d levels, highest %q", len(f.Levels), f.Highest)
	}
	var met []string
	for _, l := range f.Levels {
		if l.Met {
			met = append(met, l.ID)
		}
	}
	if diff := cmp.Diff([]string{"CPS-0", "CPS-1", "CPS-2"}, met); diff != "" {
		t.Errorf("met levels (-want +got):\n%s", diff)
	}
	live := f.Levels[3].Requirements[len(f.Levels[3].Requirements)-1]
	if live.Requirement != "machines run in live mode" || live.Met {
		t.Errorf("CPS-3 live mode: %+v", live)
	}
	for _, i := range []int{4, 5} {
		if l := f.Levels[i]; !l.OwnMet || l.Met || len(l.Requirements) != 2 {
			t.Errorf("%s: own_met %t, met %t, %d requirements; want its own requirements met above unmet CPS-3", l.ID, l.OwnMet, l.Met, len(l.Requirements))
		}
	}
	if ev := f.Levels[4].Requirements[1].Evidence; !strings.HasPrefix(ev, "with one record changed, caps replay rejects ") {
		t.Errorf("CPS-4 tamper evidence: %s", ev)
	}
	v := f.Levels[7]
	if v.ID != "CPS-7" || v.Met || v.OwnMet {
		t.Errorf("CPS-7: %+v", v)
	}
	shown := strings.Join(v.Modules, " ")
	if !strings.Contains(shown, "examples/01_abs_i64.caps") || !strings.Contains(shown, "examples/contracts.caps") || strings.Contains(shown, "11_text_ops") || strings.Contains(shown, "text_and_records") {
		t.Errorf("CPS-7 modules: %v", v.Modules)
	}
	if ev := v.Requirements[0].Evidence; !strings.Contains(ev, "not of: 11_text_ops.caps (9 open, 0 failed)") || !strings.Contains(ev, "their Lean statements (caps emit-lean-obligations) still end in sorry") {
		t.Errorf("CPS-7 evidence: %s", ev)
	}
	if len(f.SpecModules) == 0 || !strings.HasSuffix(f.SpecModules[0], "01_abs_i64.caps") {
		t.Errorf("spec modules: %v", f.SpecModules)
	}
}

// TestConformanceHonest: a failing example stops the ladder at CPS-1, and
// a failed obligation keeps its module out of CPS-7.
func TestConformanceHonest(t *testing.T) {
	needZ3(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.caps"), []byte(`(module c.good
  (capsule "0")
  (function inc (input (x U32)) (output U32)
    (requires (< x 100))
    (ensures (> result x))
    (body (+ x 1))
    (example (inc 1) 2)))
`), 0o644)
	os.WriteFile(filepath.Join(dir, "wrong.caps"), []byte(`(module c.wrong
  (capsule "0")
  (function bump (input (x U32)) (output U32)
    (ensures (> result x))
    (body (+ x 1))
    (example (bump 1) 3)))
`), 0o644)
	f := runConformanceJSON(t, dir).Files[0]
	if f.Highest != "CPS-1" || f.Levels[2].Met || f.Levels[2].Requirements[0].Evidence != "1 of 2 function examples pass in the interpreter (failing in: wrong.caps)" {
		t.Errorf("highest %s; CPS-2 %+v", f.Highest, f.Levels[2])
	}
	if diff := cmp.Diff([]string{filepath.ToSlash(filepath.Join(dir, "good.caps"))}, f.Levels[7].Modules); diff != "" {
		t.Errorf("CPS-7 modules (-want +got):\n%s", diff)
	}
	if r := runCaps(t, "", "conformance", t.TempDir()); r.code != 2 || !strings.Contains(r.stderr, "holds no .caps module") {
		t.Errorf("empty folder: exit %d %q", r.code, r.stderr)
	}
}
