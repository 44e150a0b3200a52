package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/release"
	"github.com/google/go-cmp/cmp"
)

// TestEmitLeanObligations writes the obligations of the verify fixture
// and compares both files with the goldens of analysis/verify (the same
// generator; the command adds the manifest's header fields).
func TestEmitLeanObligations(t *testing.T) {
	out := filepath.Join(t.TempDir(), "lean")
	r := runCaps(t, "", "emit-lean-obligations", "--out", out, verifyFixture)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	wantOut := "../../testdata/verify/contracts.caps: module verify.contracts: 26 obligations: 13 stated in " + filepath.ToSlash(filepath.Join(out, "Obligations.lean")) + " (each ends in sorry: an obligation, not a proof), 13 not stated\n"
	if first, _, _ := strings.Cut(r.stdout, "\n"); first+"\n" != wantOut {
		t.Errorf("first line\n got %q\nwant %q", first+"\n", wantOut)
	}
	if !strings.Contains(r.stdout, "../../testdata/verify/contracts.caps:87:37: not stated verify.contracts/Meter/open.Add/assign: the Lean target covers pure functions only; machine obligations are not stated in Lean\n") {
		t.Errorf("the machine obligation is not listed as not stated:\n%s", r.stdout)
	}
	got, err := os.ReadFile(filepath.Join(out, "Obligations.lean"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../testdata/verify/lean/contracts.lean")
	if err != nil {
		t.Fatal(err)
	}
	// The golden names the source relative to the repository.
	wantText := strings.ReplaceAll(string(want), "testdata/verify/contracts.caps", "../../testdata/verify/contracts.caps")
	if diff := cmp.Diff(wantText, string(got)); diff != "" {
		t.Errorf("Obligations.lean (-want +got):\n%s", diff)
	}
	var man struct {
		Module      string `json:"module"`
		Source      string `json:"source"`
		LeanFile    string `json:"lean_file"`
		Stated      int    `json:"stated"`
		NotStated   int    `json:"not_stated"`
		Obligations []struct {
			ID      string `json:"id"`
			Theorem string `json:"theorem"`
			Reason  string `json:"reason"`
		} `json:"obligations"`
	}
	data, err := os.ReadFile(filepath.Join(out, "obligations.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	if man.Module != "verify.contracts" || man.LeanFile != "Obligations.lean" || man.Stated != 13 || man.NotStated != 13 || len(man.Obligations) != 26 {
		t.Errorf("manifest %+v", man)
	}
	if o := man.Obligations[0]; o.ID != "verify.contracts/abs_wrong/ensures/0" || o.Theorem != "verify_contracts.abs_wrong.ensures_0" || o.Reason != "" {
		t.Errorf("first entry %+v", o)
	}

	// Again into the same folder: replaced whole.
	if r := runCaps(t, "", "emit-lean-obligations", "--out", out, "../../examples/01_abs_i64.caps"); r.code != 0 {
		t.Fatalf("second run: exit %d %s", r.code, r.stderr)
	}
	got, _ = os.ReadFile(filepath.Join(out, "Obligations.lean"))
	if !strings.Contains(string(got), "from module examples.abs_i64.") {
		t.Errorf("the folder was not replaced:\n%.300s", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("temporary folders left beside --out: %v", entries)
	}
}

// TestEmitLeanObligationsErrors: bad input gets a clear error and writes
// nothing.
func TestEmitLeanObligationsErrors(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "mine")
	os.Mkdir(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("keep"), 0o644)
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{verifyFixture}, 2, "--out DIR is required"},
		{[]string{"--out", filepath.Join(dir, "x")}, 2, "expected one FILE"},
		{[]string{"--out", foreign, verifyFixture}, 2, "holds notes.txt, which caps did not write; choose another --out or remove the folder"},
		{[]string{"--out", filepath.Join(dir, "bad"), "../../examples/04_bad_missing_effect.caps"}, 1, "E_EFFECT_NOT_DECLARED"},
	} {
		r := runCaps(t, "", append([]string{"emit-lean-obligations"}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, tc.code, tc.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
		t.Error("a folder was written for a module with errors")
	}
	if data, _ := os.ReadFile(filepath.Join(foreign, "notes.txt")); string(data) != "keep" {
		t.Error("the foreign folder was touched")
	}
}

// TestVerifyLeanWithoutToolchain: with no lean anywhere, nothing is
// checked, the report says so and the exit code is 2, never 0.
func TestVerifyLeanWithoutToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("LEAN", "")
	out := filepath.Join(t.TempDir(), "lean")
	if r := runCaps(t, "", "emit-lean-obligations", "--out", out, "../../examples/01_abs_i64.caps"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := runCaps(t, "", "verify-lean", out)
	want := out + ": unchecked: no Lean toolchain was found (lean is not on PATH and LEAN is not set): nothing was checked\n" +
		"Lean toolchain: none\n" +
		"  " + filepath.Join(out, "Obligations.lean") + ": unchecked, 6 proof markers (sorry at line 66, sorry at line 74, sorry at line 80, sorry at line 86, sorry at line 92, ...)\n" +
		"install Lean 4 (https://lean-lang.org, elan) or set LEAN to the lean program, then run caps verify-lean again\n"
	if r.code != 2 || r.stdout != want {
		t.Errorf("exit %d\n got %q\nwant %q", r.code, r.stdout, want)
	}
	r = runCaps(t, "", "verify-lean", "--json", "../../examples/01_abs_i64.caps")
	var doc struct {
		OK    bool `json:"ok"`
		Files []struct {
			Verdict   string `json:"verdict"`
			Toolchain string `json:"toolchain"`
			LeanFiles []struct {
				Status  string `json:"status"`
				Markers []struct {
					Marker string `json:"marker"`
				} `json:"markers"`
			} `json:"lean_files"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if r.code != 2 || doc.OK || doc.Files[0].Verdict != "unchecked" || doc.Files[0].Toolchain != "" || doc.Files[0].LeanFiles[0].Status != "unchecked" || len(doc.Files[0].LeanFiles[0].Markers) != 6 {
		t.Errorf("exit %d: %s", r.code, r.stdout)
	}
}

// TestVerifyLeanVerdicts runs verify-lean with a stand-in for lean (a
// shell script named by LEAN that accepts or rejects every file), to
// check the verdicts: markers keep a file open even when Lean accepts it.
func TestVerifyLeanVerdicts(t *testing.T) {
	bin := t.TempDir()
	accept := filepath.Join(bin, "lean-accept")
	reject := filepath.Join(bin, "lean-reject")
	os.WriteFile(accept, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	os.WriteFile(reject, []byte("#!/bin/sh\necho \"$1:1:0: error: unknown identifier 'x'\"\nexit 1\n"), 0o755)
	dir := t.TempDir()
	proved := filepath.Join(dir, "Proved.lean")
	os.WriteFile(proved, []byte("-- no sorry here, an admit in a comment\n/- axiom in /- a nested -/ block -/\ntheorem t : 1 + 1 = 2 := by decide\ndef s := \"sorry\"\n"), 0o644)
	stub := filepath.Join(dir, "Stub.lean")
	os.WriteFile(stub, []byte("theorem t : 1 + 1 = 2 := by\n  sorry\naxiom a : False\n"), 0o644)
	for _, tc := range []struct {
		lean, target, verdict string
		code                  int
	}{
		{accept, proved, "verified", 0},
		{accept, stub, "open", 1},
		{accept, dir, "open", 1},
		{reject, proved, "rejected", 1},
	} {
		t.Setenv("LEAN", tc.lean)
		r := runCaps(t, "", "verify-lean", tc.target)
		first, _, _ := strings.Cut(r.stdout, "\n")
		if r.code != tc.code || !strings.HasPrefix(first, tc.target+": "+tc.verdict+": ") {
			t.Errorf("%s %s: exit %d, %q; want %d and verdict %s", filepath.Base(tc.lean), tc.target, r.code, r.stdout, tc.code, tc.verdict)
		}
	}
	t.Setenv("LEAN", accept)
	r := runCaps(t, "", "verify-lean", stub)
	if !strings.Contains(r.stdout, "Stub.lean: accepted, 2 proof markers (sorry at line 2, axiom at line 3)\n") {
		t.Errorf("markers:\n%s", r.stdout)
	}
	if r := runCaps(t, "", "verify-lean", t.TempDir()); r.code != 2 || !strings.Contains(r.stderr, "holds no .lean file") {
		t.Errorf("empty folder: exit %d %q", r.code, r.stderr)
	}
}

// TestReleasePreviewProofLevels: release-preview reports V3 from Z3 and
// V4 from the Lean statements, and V5 as not implemented; without z3, V3
// is not run and says why.
func TestReleasePreviewProofLevels(t *testing.T) {
	needZ3(t)
	t.Setenv("LEAN", "")
	ladder := func(args ...string) (string, []release.Rung) {
		t.Helper()
		r := runCaps(t, "", append([]string{"release-preview", "--json"}, args...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var doc struct {
			Files []struct {
				Preview struct {
					Verification struct {
						Level  string         `json:"level"`
						Ladder []release.Rung `json:"ladder"`
					} `json:"verification"`
				} `json:"preview"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		v := doc.Files[0].Preview.Verification
		return v.Level, v.Ladder[3:]
	}
	z3, _ := lookZ3()
	version := z3Version(t)
	t.Setenv("PATH", t.TempDir()) // neither lean nor anything else
	t.Setenv("Z3", z3)
	level, got := ladder("../../examples/01_abs_i64.caps")
	want := []release.Rung{
		{Level: "V3", Name: "proof obligations", Status: "passed", Detail: "caps verify-report: 6 obligations: 6 discharged, 0 open, 0 failed (" + version + ")"},
		{Level: "V4", Name: "kernel-checked proof", Status: "open", Detail: "caps emit-lean-obligations states 6 of 6 obligations as Lean theorems, each ending in sorry until proved; caps verify-lean checks completed proofs; no Lean toolchain was found"},
		{Level: "V5", Name: "backend refinement", Status: "not-implemented", Detail: "caps refinement-report covers V0 to V3; backend artifacts (Wasm, RISC-V) are not related to the source by proof yet"},
	}
	if diff := cmp.Diff(want, got); diff != "" || level != "V3" {
		t.Errorf("level %s (want V3); ladder (-want +got):\n%s", level, diff)
	}
	t.Setenv("Z3", "")
	level, got = ladder("../../examples/01_abs_i64.caps")
	if got[0].Status != "not-run" || !strings.HasPrefix(got[0].Detail, "the Z3 SMT solver is not installed") || level != "V2" {
		t.Errorf("without z3: level %s, %+v", level, got[0])
	}
}

// lookZ3 is the z3 program's path.
func lookZ3() (string, error) { return exec.LookPath("z3") }

// z3Version is z3's version line, as the reports name it.
func z3Version(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("z3", "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestVerifyLeanModuleWithErrors: a Capsulang FILE with errors is reported
// like caps check reports it, exit 1, also as JSON.
func TestVerifyLeanModuleWithErrors(t *testing.T) {
	r := runCaps(t, "", "verify-lean", "--json", "../../examples/04_bad_missing_effect.caps")
	if r.code != 1 || !strings.HasPrefix(r.stdout, `{"ok":false,"files":[{"path":"../../examples/04_bad_missing_effect.caps","diagnostics":[{"code":"E_EFFECT_NOT_DECLARED"`) {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
