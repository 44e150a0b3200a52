package noir_test

import (
	"errors"
	"flag"
	"fmt"
	capsload "github.com/capsulang/caps/analysis/load"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/codegen/internal/testutil"
	"github.com/capsulang/caps/codegen/noir"
	"github.com/capsulang/caps/runtime/interp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// proofs is a module whose zk-proofs cover the circuit subset: wrapping
// arithmetic of every width, signed and unsigned division and remainder,
// short-circuit and/or over a division, if, Bool and Bytes32 inputs.
const proofs = `(module zk.fixture
  (capsule "1")
  (profile zk.noir)

  (zk-proof RiskBelowThreshold
    (backend noir)
    (public
      (change_id U64)
      (threshold U32)
      (model_hash Bytes32))
    (private
      (risk_score U32)
      (bonus U32))
    (proves (and (<= (+ risk_score bonus) threshold) (> change_id 0))))

  (zk-proof SignedMix
    (backend noir)
    (public (q I64) (limit I32))
    (private (a I64) (b I64) (c I32) (d I32))
    (proves (or (== b 0)
                (and (!= d 0)
                     (>= (- (* a b) (/ a b)) q)
                     (< (% c d) limit)
                     (!= (/ c d) (- 0 7))))))

  (zk-proof UnsignedMix
    (backend noir)
    (public (target U64) (flag Bool))
    (private (x U64) (y U64) (z U64))
    (proves (if flag
                (== (% (* x y) 1000) (% target 1000))
                (> (- (/ x (+ y 1)) (* z 3)) target))))

  (zk-proof NotLowered
    (backend noir)
    (public (t Text))
    (private (s U32))
    (proves (> s 1))))
`

func load(t testing.TB) ([]*noir.Proof, string) {
	t.Helper()
	pkg := testutil.LoadSource(t, proofs)
	return noir.Plan(pkg.Result), pkg.Hash
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./codegen/noir -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (go test ./codegen/noir -update):\n%s", name, diff)
	}
}

func TestPlan(t *testing.T) {
	ps, _ := load(t)
	var got []string
	for _, p := range ps {
		line := fmt.Sprintf("%s backend=%s lowers=%v public=%d private=%d claim=%s", p.Name, p.Backend, p.Lowers, len(p.Public), len(p.Private), p.ClaimText)
		for _, r := range p.Reasons {
			line += "\n  " + r.Message
		}
		got = append(got, line)
	}
	want := []string{
		"RiskBelowThreshold backend=noir lowers=true public=3 private=2 claim=(and (<= (+ risk_score bonus) threshold) (> change_id 0))",
		"SignedMix backend=noir lowers=true public=2 private=4 claim=(or (== b 0) (and (!= d 0) (>= (- (* a b) (/ a b)) q) (< (% c d) limit) (!= (/ c d) (- 0 7))))",
		"UnsignedMix backend=noir lowers=true public=2 private=3 claim=(if flag (== (% (* x y) 1000) (% target 1000)) (> (- (/ x (+ y 1)) (* z 3)) target))",
		"NotLowered backend=noir lowers=false public=1 private=1 claim=(> s 1)\n" +
			"  the input t has type Text, which has no circuit encoding here (Bool, I32, I64, Int, U32, U64 and Bytes32 do)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}

// TestPlanReasons checks the claims the planner refuses, with the reason.
// Ill-typed claims (not Bool, an unknown name, a literal out of range,
// mismatched or unordered operands) never reach it: the checker rejects
// them first (analysis/check, E_TYPE_MISMATCH, E_UNKNOWN_NAME,
// E_BAD_LITERAL), which TestIllTypedClaimsAreTheCheckers shows.
func TestPlanReasons(t *testing.T) {
	for _, c := range []struct{ claim, want string }{
		{"(> (max s t) 3)", "(max ...) does not lower to Noir (the circuit subset is literals, inputs, if, and, or, not, + - * / % and comparisons)"},
	} {
		src := fmt.Sprintf("(module m (capsule \"1\") (zk-proof P (backend noir) (public (t U32) (b Bool)) (private (s U32)) (proves %s)))", c.claim)
		pkg := testutil.LoadSource(t, src)
		ps := noir.Plan(pkg.Result)
		if len(ps) != 1 || ps[0].Lowers || len(ps[0].Reasons) != 1 || ps[0].Reasons[0].Message != c.want {
			var got []string
			for _, r := range ps[0].Reasons {
				got = append(got, r.Message)
			}
			t.Errorf("%s: lowers=%v reasons %q, want %q", c.claim, ps[0].Lowers, got, c.want)
		}
	}
}

// TestIllTypedClaimsAreTheCheckers: the claims the planner once refused
// itself are the checker's errors now.
func TestIllTypedClaimsAreTheCheckers(t *testing.T) {
	for claim, code := range map[string]string{
		"(+ s t)":           "E_TYPE_MISMATCH",
		"(<= q t)":          "E_UNKNOWN_NAME",
		"(<= s 4294967296)": "E_BAD_LITERAL",
		"(== s b)":          "E_TYPE_MISMATCH",
		"(< b true)":        "E_TYPE_MISMATCH",
	} {
		src := fmt.Sprintf("(module m (capsule \"1\") (zk-proof P (backend noir) (public (t U32) (b Bool)) (private (s U32)) (proves %s)))", claim)
		pkg := (&capsload.Loader{}).LoadSource("m.caps", []byte(src))
		if ds := pkg.Result.Diagnostics; len(ds) != 1 || ds[0].Code != code {
			t.Errorf("%s: %v, want one %s", claim, ds, code)
		}
	}
}

func TestEmitGolden(t *testing.T) {
	ps, hash := load(t)
	for _, p := range ps {
		if !p.Lowers {
			if _, err := noir.Emit(p, "zk.fixture", hash, nil); err == nil || !strings.Contains(err.Error(), "does not lower to Noir") {
				t.Errorf("%s: Emit error %v", p.Name, err)
			}
			continue
		}
		pr, err := noir.Emit(p, "zk.fixture", "HASH", nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, n := range pr.FileNames() {
			fmt.Fprintf(&b, "==> %s <==\n%s", n, pr.Files[n])
		}
		golden(t, p.Name+".golden", []byte(b.String()))
	}
}

func TestProverTOMLRoundTrip(t *testing.T) {
	ps, hash := load(t)
	p := noir.Find(ps, "RiskBelowThreshold")
	vals, err := p.ParseInputs([]byte(`{"change_id": 7, "threshold": "100", "model_hash": "0x` + strings.Repeat("ab", 32) + `", "risk_score": 40, "bonus": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := noir.Emit(p, "zk.fixture", hash, vals)
	if err != nil {
		t.Fatal(err)
	}
	got, err := noir.ReadProverTOML(pr.Files["Prover.toml"])
	if err != nil {
		t.Fatal(err)
	}
	want, _ := p.NoirInputs(vals)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Prover.toml round trip (-want +got):\n%s\n%s", diff, pr.Files["Prover.toml"])
	}
	for _, c := range []struct{ in, want string }{
		{`{"change_id": 7}`, "missing inputs: threshold, model_hash, risk_score, bonus (the proof takes change_id, threshold, model_hash, risk_score, bonus)"},
		{`{"change_id": 7, "threshold": 1, "model_hash": "0x00", "risk_score": 1, "bonus": 1, "extra": 1}`, "input model_hash"},
		{`{"change_id": -1, "threshold": 1, "model_hash": "0x` + strings.Repeat("00", 32) + `", "risk_score": 1, "bonus": 1}`, "input change_id"},
		{`[1]`, "the inputs must be a JSON object of input names to values"},
	} {
		if _, err := p.ParseInputs([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestWriteRefusesForeignFolder(t *testing.T) {
	ps, hash := load(t)
	pr, err := noir.Emit(ps[0], "zk.fixture", hash, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o644)
	if err := pr.Write(dir); err == nil || !strings.Contains(err.Error(), "was not written by caps emit-noir") {
		t.Fatalf("Write over a foreign folder: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(b) != "mine" {
		t.Fatal("the foreign folder was touched")
	}
	os.RemoveAll(dir)
	if err := pr.Write(dir); err != nil {
		t.Fatal(err)
	}
	// A second emit replaces the first.
	if err := pr.Write(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func toolchain(t testing.TB) *noir.Toolchain {
	t.Helper()
	os.Setenv("CAPS_NOIR_TOOLS", filepath.Join(testutil.Root(), "tools", "noir"))
	tc, err := noir.FindToolchain()
	if err != nil {
		if testutil.InCI() {
			t.Fatalf("CI=true and the Noir toolchain is missing: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	return tc
}

// edge values of each input type, as JSON.
var edges = map[string][]string{
	"Bool": {"true", "false"},
	"I32":  {`"-2147483648"`, `"2147483647"`, "0", "-1", "1", "-7", "7"},
	"I64":  {`"-9223372036854775808"`, `"9223372036854775807"`, "0", "-1", "1", "3"},
	"U32":  {"0", `"4294967295"`, "1", "100"},
	"U64":  {"0", `"18446744073709551615"`, "1", "1000"},
}

func randomJSON(r *rand.Rand, typ string) string {
	if r.IntN(3) == 0 {
		e := edges[typ]
		if typ == "Bytes32" {
			return `"0x` + strings.Repeat("00", 32) + `"`
		}
		return e[r.IntN(len(e))]
	}
	switch typ {
	case "Bool":
		return fmt.Sprint(r.IntN(2) == 0)
	case "I32":
		if r.IntN(2) == 0 {
			return fmt.Sprint(r.IntN(41) - 20)
		}
		return fmt.Sprintf(`"%d"`, int32(r.Uint32()))
	case "I64":
		if r.IntN(2) == 0 {
			return fmt.Sprint(r.IntN(41) - 20)
		}
		return fmt.Sprintf(`"%d"`, int64(r.Uint64()))
	case "U32":
		if r.IntN(2) == 0 {
			return fmt.Sprint(r.IntN(200))
		}
		return fmt.Sprint(r.Uint32())
	case "U64":
		if r.IntN(2) == 0 {
			return fmt.Sprint(r.IntN(2000))
		}
		return fmt.Sprintf(`"%d"`, r.Uint64())
	case "Bytes32":
		var b strings.Builder
		for i := 0; i < 32; i++ {
			fmt.Fprintf(&b, "%02x", r.IntN(256))
		}
		return `"0x` + b.String() + `"`
	}
	panic(typ)
}

// TestDifferentialNoir compiles each lowered proof with the real Noir
// compiler and runs its circuit with the real ACVM on random and boundary
// inputs: the circuit is satisfied exactly when the interpreter evaluates
// the claim to true (a claim that traps, e.g. on a zero divisor, is not
// satisfied).
func TestDifferentialNoir(t *testing.T) {
	tc := toolchain(t)
	ps, hash := load(t)
	n := 300
	if testing.Short() {
		n = 60
	}
	total, sat, traps := 0, 0, 0
	for pi, p := range ps {
		if !p.Lowers {
			continue
		}
		pr, err := noir.Emit(p, "zk.fixture", hash, nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), p.Name)
		if err := pr.Write(dir); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		cr, err := tc.Compile(dir)
		if err != nil || !cr.OK {
			t.Fatalf("%s: compile: %v %+v\n%s", p.Name, err, cr, p.Main)
		}
		t.Logf("%s: compiled with noir_wasm %s in %v", p.Name, cr.NoirWasm, time.Since(start).Round(time.Millisecond))
		r := rand.New(rand.NewPCG(uint64(pi), 99))
		var inputs []map[string]any
		var wants []string
		var cases []string
		for i := 0; i < n; i++ {
			var parts []string
			for _, in := range p.Inputs() {
				parts = append(parts, fmt.Sprintf("%q: %s", in.Name, randomJSON(r, in.Source)))
			}
			js := "{" + strings.Join(parts, ", ") + "}"
			vals, err := p.ParseInputs([]byte(js))
			if err != nil {
				t.Fatalf("%s: %v", js, err)
			}
			ok, err := p.Eval(vals)
			want := fmt.Sprint(ok)
			var re *interp.Error
			if errors.As(err, &re) {
				want = "trap " + string(re.Kind)
			} else if err != nil {
				t.Fatalf("%s %s: %v", p.Name, js, err)
			}
			m, err := p.NoirInputs(vals)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, m)
			wants = append(wants, want)
			cases = append(cases, js)
		}
		start = time.Now()
		res, err := tc.Execute(dir, inputs)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			total++
			if r.Satisfied != (wants[i] == "true") {
				t.Errorf("%s on %s: circuit satisfied=%v (%s), interpreter %s\n%s", p.Name, cases[i], r.Satisfied, r.Error, wants[i], p.Main)
			}
			if r.Satisfied {
				sat++
			}
			if strings.HasPrefix(wants[i], "trap") {
				traps++
			}
		}
		t.Logf("%s: %d executions in %v", p.Name, len(res), time.Since(start).Round(time.Millisecond))
	}
	if total == 0 || sat == 0 || sat == total || traps == 0 {
		t.Errorf("the cases do not cover satisfied, unsatisfied and trapping claims: %d cases, %d satisfied, %d traps", total, sat, traps)
	}
	t.Logf("%d executions compared (Noir ACVM vs interpreter): %d satisfied, %d not (%d of them traps in the interpreter)", total, sat, total-sat, traps)
}
