package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// needZ3 skips a test when z3 is not installed, and fails it under
// CI=true.
func needZ3(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("z3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and z3 is not installed (Debian package z3)")
		}
		t.Skip("z3 is not installed (Debian package z3)")
	}
}

const verifyFixture = "../../testdata/verify/contracts.caps"

func TestVerifyReportJSON(t *testing.T) {
	needZ3(t)
	for _, args := range [][]string{{"--format", "json"}, {"--json"}} {
		r := runCaps(t, "", append([]string{"verify-report"}, append(args, verifyFixture)...)...)
		if r.code != 1 || r.stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q; want 1 (obligations failed) and no stderr", args, r.code, r.stderr)
		}
		var doc struct {
			OK    bool `json:"ok"`
			Files []struct {
				Path    string `json:"path"`
				Module  string `json:"module"`
				Solver  string `json:"solver"`
				Summary struct {
					Obligations, Discharged, Open, Failed int
				} `json:"summary"`
				Obligations []struct {
					ID             string `json:"id"`
					Kind           string `json:"kind"`
					Status         string `json:"status"`
					Claim          string `json:"claim"`
					Counterexample []struct{ Name, Value string }
					Confirmation   *struct {
						Confirmed bool `json:"confirmed"`
					} `json:"confirmation"`
					Range struct {
						Start struct{ Line, Character int }
					} `json:"range"`
				} `json:"obligations"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, r.stdout)
		}
		if doc.OK || len(doc.Files) != 1 {
			t.Fatalf("ok=%t with %d files", doc.OK, len(doc.Files))
		}
		f := doc.Files[0]
		if f.Module != "verify.contracts" || !strings.HasPrefix(f.Solver, "Z3 version ") {
			t.Errorf("module %q solver %q", f.Module, f.Solver)
		}
		if s := f.Summary; s.Obligations != 26 || s.Discharged != 19 || s.Open != 0 || s.Failed != 7 {
			t.Errorf("summary %+v, want 26 obligations: 19 discharged, 0 open, 7 failed", s)
		}
		o := f.Obligations[0]
		if o.ID != "verify.contracts/abs_wrong/ensures/0" || o.Kind != "ensures" || o.Status != "failed" || o.Claim != "(>= result 0)" ||
			o.Range.Start.Line != 13 || o.Range.Start.Character != 13 || o.Confirmation == nil || !o.Confirmation.Confirmed {
			t.Errorf("first obligation %+v", o)
		}
		want := []struct{ Name, Value string }{{"x", "-9223372036854775808"}, {"result", "-9223372036854775808"}}
		if diff := cmp.Diff(want, o.Counterexample); diff != "" {
			t.Errorf("counterexample (-want +got)\n%s", diff)
		}
	}
}

func TestVerifyReportExitCodes(t *testing.T) {
	needZ3(t)
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string // a prefix
		stderr string // a substring
	}{
		{[]string{"verify-report", "../../examples/contracts.caps"}, 0, "../../examples/contracts.caps: module examples.contracts: 19 obligations: 19 discharged, 0 open, 0 failed (Z3 version", ""},
		{[]string{"refinement-report", "--require-closed", "../../examples/contracts.caps"}, 0, "../../examples/contracts.caps: module examples.contracts\n", ""},
		{[]string{"refinement-report", "--require-closed", verifyFixture}, 1, verifyFixture + ": module verify.contracts\n", ""},
		{[]string{"refinement-report", verifyFixture}, 1, verifyFixture + ": module verify.contracts\n", ""}, // obligations failed
		{[]string{"verify-report", "--format", "yaml", verifyFixture}, 2, "", "--format must be text or json"},
		{[]string{"verify-report", "--timeout", "0s", verifyFixture}, 2, "", "--timeout must be positive"},
		{[]string{"verify-report", "--rlimit", "0", verifyFixture}, 2, "", "--rlimit must be positive"},
		{[]string{"refinement-report", "--jobs", "-1", verifyFixture}, 2, "", "--jobs must be 0 (one per CPU) or more"},
		{[]string{"verify-report", "../../testdata/check/e_zk_proof.caps"}, 1, "", "error E_UNKNOWN_PROOF_BACKEND"},
		{[]string{"verify-report", "no-such-file.caps"}, 2, "", "no-such-file.caps"},
	} {
		r := runCaps(t, "", tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("caps %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(tc.args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// TestVerifyMissingZ3: without z3 on PATH both commands stop with exit 2
// and name the package to install.
func TestVerifyMissingZ3(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, cmd := range []string{"verify-report", "refinement-report"} {
		r := runCaps(t, "", cmd, verifyFixture)
		if r.code != 2 || !strings.Contains(r.stderr, "install the Debian package `z3`") {
			t.Errorf("%s without z3: exit %d, stderr %q", cmd, r.code, r.stderr)
		}
	}
}

// TestVerifyReportRlimit: an obligation that needs more of Z3's steps
// than --rlimit allows is "open (timeout)", in every run alike (the
// budget is a count of steps, not time), and the others are unchanged.
func TestVerifyReportRlimit(t *testing.T) {
	needZ3(t)
	// One worker: how many steps an attempt takes depends on the queries
	// its z3 process saw before, and so on how the obligations are shared.
	args := []string{"verify-report", "--no-cache", "--jobs", "1", "--rlimit", "2000", "../../examples/abs.caps"}
	first := runCaps(t, "", args...)
	if first.code != 0 || first.stderr != "" {
		t.Fatalf("exit %d, stderr %q", first.code, first.stderr)
	}
	for _, line := range []string{
		"../../examples/abs.caps:112:14: open (timeout) examples.abs/percent_of/ensures/0 (<= result 100)\n",
		"../../examples/abs.caps:33:14: discharged examples.abs/distance/ensures/0 (>= result 0)\n",
	} {
		if !strings.Contains(first.stdout, line) {
			t.Errorf("no line %q in\n%s", line, first.stdout)
		}
	}
	if again := runCaps(t, "", args...); again.stdout != first.stdout {
		t.Errorf("a second run differs:\n%s", cmp.Diff(first.stdout, again.stdout))
	}
}

// TestVerifyReportCache: verdicts go to caps/verify under the user's
// cache folder; a second run answers from there with the same report
// (counterexamples and the interpreter's verdicts included); --no-cache
// neither reads nor writes it.
func TestVerifyReportCache(t *testing.T) {
	needZ3(t)
	cacheHome := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	dir := filepath.Join(cacheHome, "caps", "verify")
	entries := func() []string {
		var files []string
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, path)
			}
			return nil
		})
		return files
	}
	cold := runCaps(t, "", "verify-report", verifyFixture)
	if cold.code != 1 || !strings.Contains(cold.stdout, "counterexample: n = 4294967295, result = 0") {
		t.Fatalf("exit %d\n%s%s", cold.code, cold.stdout, cold.stderr)
	}
	files := entries()
	// 26 obligations, of which 8 are settled without the solver (nothing
	// can fail in them).
	if len(files) != 18 {
		t.Fatalf("%d cache entries, want 18: %v", len(files), files)
	}
	if warm := runCaps(t, "", "verify-report", verifyFixture); warm.stdout != cold.stdout || warm.code != cold.code {
		t.Errorf("the run from the cache differs (-cold +warm):\n%s", cmp.Diff(cold.stdout, warm.stdout))
	}
	// The entries are read: rewritten, they change the report...
	for _, f := range files {
		if err := os.WriteFile(f, []byte(`{"status":"open","reason":"from the cache"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := runCaps(t, "", "verify-report", verifyFixture); strings.Count(r.stdout, "    from the cache\n") != 18 || r.code != 0 {
		t.Errorf("exit %d, want the 18 rewritten verdicts:\n%s", r.code, r.stdout)
	}
	// ...unless --no-cache, which writes nothing either.
	if r := runCaps(t, "", "verify-report", "--no-cache", verifyFixture); r.stdout != cold.stdout {
		t.Errorf("--no-cache read the cache:\n%s", cmp.Diff(cold.stdout, r.stdout))
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	runCaps(t, "", "refinement-report", "--no-cache", verifyFixture)
	if files := entries(); len(files) != 0 {
		t.Errorf("--no-cache wrote %v", files)
	}
}
