package verify

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

var update = flag.Bool("update", false, "rewrite testdata/verify/*.golden")

const testdata = "../../testdata/verify"

// requireSolver returns the z3 solver, or skips the test when z3 is not
// installed; under CI=true a missing solver fails the test instead.
func requireSolver(t testing.TB) *Solver {
	t.Helper()
	s, err := FindSolver()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	return s
}

func loadFile(t testing.TB, path string) *load.Package {
	t.Helper()
	p, err := (&load.Loader{}).Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Result.HasErrors() {
		t.Fatalf("%s has errors: %v", path, p.Result.Diagnostics)
	}
	return p
}

func verifyFile(t testing.TB, path string, s *Solver) *Report {
	t.Helper()
	r, err := Verify(context.Background(), loadFile(t, path).Result, Options{Solver: s})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// render writes a report one obligation per line, with its position,
// status, reason, counterexample and the interpreter's verdict.
func render(r *Report) string {
	var b strings.Builder
	for _, o := range r.Obligations {
		fmt.Fprintf(&b, "%d:%d-%d:%d %s %s: %s\n", o.Range.Start.Line+1, o.Range.Start.Character+1, o.Range.End.Line+1, o.Range.End.Character+1, o.ID, o.Status, o.Reason)
		for _, c := range o.Counterexample {
			fmt.Fprintf(&b, "\t%s = %s\n", c.Name, c.Value)
		}
		if o.Confirmation != nil {
			fmt.Fprintf(&b, "\tconfirmed=%t: %s\n", o.Confirmation.Confirmed, o.Confirmation.Detail)
		}
	}
	return b.String()
}

// TestGolden verifies every module under testdata/verify and compares the
// obligations, statuses, counterexamples and confirmations with its
// .golden file (go test ./analysis/verify -run TestGolden -update).
func TestGolden(t *testing.T) {
	s := requireSolver(t)
	paths, _ := filepath.Glob(filepath.Join(testdata, "*.caps"))
	if len(paths) == 0 {
		t.Fatal("no testdata")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			got := render(verifyFile(t, path, s))
			golden := strings.TrimSuffix(path, ".caps") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v; run go test ./analysis/verify -run TestGolden -update", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestSeededWrongEnsures: a wrong ensures fails with the counterexample
// the interpreter confirms, and running the interpreter independently on
// it fails the same ensures.
func TestSeededWrongEnsures(t *testing.T) {
	s := requireSolver(t)
	p := loadFile(t, filepath.Join(testdata, "contracts.caps"))
	r, err := Verify(context.Background(), p.Result, Options{Solver: s})
	if err != nil {
		t.Fatal(err)
	}
	var o *Obligation
	for _, x := range r.Obligations {
		if x.ID == "verify.contracts/abs_wrong/ensures/0" {
			o = x
		}
	}
	if o == nil {
		t.Fatal("no obligation verify.contracts/abs_wrong/ensures/0")
	}
	want := []Binding{{"x", "-9223372036854775808"}, {"result", "-9223372036854775808"}}
	if o.Status != Failed || !cmp.Equal(o.Counterexample, want) {
		t.Fatalf("status %s, counterexample %v; want failed with %v", o.Status, o.Counterexample, want)
	}
	if o.Confirmation == nil || !o.Confirmation.Confirmed {
		t.Fatalf("confirmation %+v, want confirmed", o.Confirmation)
	}
	if got, want := o.Message(), "x = -9223372036854775808 breaks ensures (>= result 0)"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	// Independently of Confirm: the interpreter fails on the input.
	_, _, err = interp.New(p.Result).Call("abs_wrong", []value.Value{value.I64(-9223372036854775808)})
	var ie *interp.Error
	if !errors.As(err, &ie) || ie.Kind != interp.EnsuresFailed {
		t.Fatalf("interpreter on the counterexample: %v, want an ensures failure", err)
	}
	// And the corrected function is proved.
	for _, x := range r.Obligations {
		if x.ID == "verify.contracts/abs_right/ensures/0" && x.Status != Discharged {
			t.Errorf("abs_right/ensures/0 is %s (%s), want discharged", x.Status, x.Reason)
		}
	}
}

// TestTimeout: a query the solver cannot settle within its budget is
// open with the reason "timeout", not failed and not an error, whether
// the budget is Z3's resource count (Rlimit: the same obligations every
// run, whatever the load) or the wall-clock cap (Timeout).
func TestTimeout(t *testing.T) {
	base := requireSolver(t)
	const hard = "examples.abs/percent_of/ensures/0" // about 5,000 units over the integers, millions over bit-vectors
	p := loadFile(t, filepath.Join("..", "..", "examples", "abs.caps"))
	for _, tc := range []struct {
		name   string
		solver *Solver
		easy   string // an obligation still discharged, or ""
	}{
		{"rlimit", &Solver{Path: base.Path, Rlimit: 2000}, "examples.abs/distance/ensures/0"},
		// Without the quick attempts: the integer encoding settles this
		// query in a few milliseconds.
		{"wall clock", &Solver{Path: base.Path, Timeout: time.Millisecond, NoQuick: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One worker: how many steps an attempt takes depends on the
			// queries its z3 process saw before.
			r, err := Verify(context.Background(), p.Result, Options{Solver: tc.solver, Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, o := range r.Obligations {
				got[o.ID] = string(o.Status) + " " + o.Reason
			}
			if got[hard] != "open timeout" {
				t.Errorf("%s: %q, want open (timeout)", hard, got[hard])
			}
			if tc.easy != "" && got[tc.easy] != "discharged proved by the solver" {
				t.Errorf("%s: %q, want discharged", tc.easy, got[tc.easy])
			}
			if tc.solver.Rlimit == 0 {
				return
			}
			// A resource budget decides the same way every time.
			again, err := Verify(context.Background(), p.Result, Options{Solver: &Solver{Path: base.Path, Rlimit: tc.solver.Rlimit}, Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(render(r), render(again)); diff != "" {
				t.Errorf("two runs on the same budget differ (-first +second):\n%s", diff)
			}
		})
	}
}

// TestMissingSolver: without z3 on PATH the error names the package.
func TestMissingSolver(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("Z3", "")
	_, err := FindSolver()
	if !errors.Is(err, ErrNoSolver) || !strings.Contains(err.Error(), "Debian package `z3`") {
		t.Fatalf("FindSolver() = %v, want ErrNoSolver naming the z3 package", err)
	}
	p := loadFile(t, filepath.Join(testdata, "contracts.caps"))
	if _, err := Verify(context.Background(), p.Result, Options{}); !errors.Is(err, ErrNoSolver) {
		t.Fatalf("Verify without a solver: %v, want ErrNoSolver", err)
	}
}

// TestSolverFromEnvironment: Z3 names the solver, as caps doctor reads
// it, whatever PATH holds.
func TestSolverFromEnvironment(t *testing.T) {
	real := requireSolver(t).Path
	t.Setenv("PATH", t.TempDir())
	t.Setenv("Z3", real)
	s, err := FindSolver()
	if err != nil || s.Path != real {
		t.Fatalf("FindSolver() = %v, %v; want %s", s, err, real)
	}
	t.Setenv("Z3", filepath.Join(t.TempDir(), "no-z3"))
	if _, err := FindSolver(); !errors.Is(err, ErrNoSolver) {
		t.Fatalf("Z3 naming a missing program: %v, want ErrNoSolver", err)
	}
}

// TestExamplesNeverFail: every obligation of the modules under examples/
// is discharged or open with a reason; none fails.
func TestExamplesNeverFail(t *testing.T) {
	s := requireSolver(t)
	s.Timeout = 3 * time.Second // a timeout leaves an obligation open, which passes
	paths, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.caps"))
	for _, path := range paths {
		if strings.Contains(filepath.Base(path), "_bad_") {
			continue // a negative example: it must fail to check (examples/README)
		}
		r := verifyFile(t, path, s)
		for _, o := range r.Obligations {
			switch {
			case o.Status == Failed:
				t.Errorf("%s: %s failed: %s %v", path, o.ID, o.Reason, o.Counterexample)
			case o.Status == Open && o.Reason == "":
				t.Errorf("%s: %s is open without a reason", path, o.ID)
			}
		}
	}
}

// TestEncodingMatchesInterpreter is a differential test of both encodings
// (bit-vectors and wrapped integers): for every non-recursive integer
// function of examples/abs.caps, random and edge inputs are run through
// the interpreter, and Z3 must agree with each outcome (the value
// returned, or that the call fails).
func TestEncodingMatchesInterpreter(t *testing.T) {
	s := requireSolver(t)
	p := loadFile(t, filepath.Join("..", "..", "examples", "abs.caps"))
	sh, err := prepare(p.Result)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	edges := map[int][]uint64{
		32: {0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 10, 100},
		64: {0, 1, 2, 1 << 63, 1<<63 - 1, ^uint64(0), ^uint64(0) - 1, 10, 100, 1000000000000},
	}
	ss, err := s.start()
	if err != nil {
		t.Fatal(err)
	}
	defer ss.close()
	cases, funcs := 0, 0
	for _, ints := range []bool{false, true} {
		for _, fn := range sh.in.Functions() {
			decl := fn.Decl
			if sh.recursive[decl] {
				continue
			}
			e := sh.encoder()
			e.ints = ints
			if err := e.need(decl, "body"); err != nil {
				continue
			}
			if e.need(decl, "pre") != nil || e.need(decl, "post") != nil {
				continue
			}
			rs, err := e.sort(fn.Result)
			if err != nil {
				continue
			}
			_, _, intResult := intInfo(fn.Result)
			if rs != "Bool" && !intResult {
				continue
			}
			var facts []string
			for i := 0; i < 40; i++ {
				var args []value.Value
				var terms []string
				ok := true
				for _, prm := range fn.Params {
					bits, _, isInt := intInfo(prm.Type)
					if !isInt || bits > 64 {
						ok = false
						break
					}
					var n uint64
					if i < len(edges[bits]) {
						n = edges[bits][i]
					} else {
						n = rng.Uint64()
					}
					if bits == 32 {
						n &= 0xffffffff
					}
					args = append(args, value.Int(value.IntKindOf(prm.Type), n))
					terms = append(terms, e.lit(new(big.Int).SetUint64(n), prm.Type))
				}
				if !ok {
					break
				}
				name := decl.Name.Name
				got, _, err := sh.in.CallDecl(decl, args)
				val := apply(quote(name+".val"), terms)
				withRes := append(append([]string(nil), terms...), val)
				holds := and(apply(quote(name+".pre"), terms), apply(quote(name+".ok"), terms), apply(quote(name+".post"), withRes))
				switch {
				case err != nil:
					facts = append(facts, "(not "+holds+")")
				case rs == "Bool":
					facts = append(facts, and(holds, "(= "+val+" "+fmt.Sprint(got.AsBool())+")"))
				default:
					facts = append(facts, and(holds, "(= "+val+" "+e.lit(new(big.Int).SetUint64(got.Bits()), fn.Result)+")"))
				}
				cases++
			}
			if len(facts) == 0 {
				continue
			}
			funcs++
			a, err := ss.check(context.Background(), e.out.String()+"(assert (not "+and(facts...)+"))\n", nil, s.rlimit())
			if err != nil {
				t.Fatal(err)
			}
			if a.status != "unsat" {
				t.Errorf("%s (integers: %t): the encoding disagrees with the interpreter on some of its inputs (%s)", decl.Name.Name, ints, a.status)
			}
		}
	}
	if funcs < 20 || cases < 800 {
		t.Fatalf("only %d functions and %d cases compared", funcs, cases)
	}
	t.Logf("compared %d cases over %d functions", cases, funcs)
}

// TestIntegerEncodingOnExamples puts every obligation of examples/abs.caps
// and testdata/verify/contracts.caps to the solver over the integers
// alone: the queries must be well-formed (lemmas included) and reach the
// same verdicts as over bit-vectors wherever either settles them.
func TestIntegerEncodingOnExamples(t *testing.T) {
	s := requireSolver(t)
	s.Timeout = 3 * time.Second
	ints := &Solver{Path: s.Path, Timeout: s.Timeout, intsOnly: true}
	for _, path := range []string{filepath.Join("..", "..", "examples", "abs.caps"), filepath.Join(testdata, "contracts.caps")} {
		bvr := verifyFile(t, path, s)
		inr := verifyFile(t, path, ints)
		for i, o := range inr.Obligations {
			b := bvr.Obligations[i]
			if o.Status != Open && b.Status != Open && o.Status != b.Status {
				t.Errorf("%s: %s over the integers, %s over bit-vectors", o.ID, o.Status, b.Status)
			}
			if o.Status == Failed && o.Confirmation != nil && !o.Confirmation.Confirmed {
				t.Errorf("%s: the interpreter does not confirm the integer counterexample: %s", o.ID, o.Confirmation.Detail)
			}
		}
	}
}

// benchRuns is how many times each verification benchmark verifies
// examples/ (one benchmark op is the series): make bench reports the
// fastest, median and slowest run against the 2 s target, so that a slow
// run under load shows.
const benchRuns = 5

// BenchmarkVerifyExamples verifies every checked module under examples/
// (the negative examples, examples/*_bad_*.caps, have errors on purpose
// and are left out) benchRuns times, each run cold: new solver processes,
// kept from one module to the next as caps conformance does, and no
// cache. bench/summary reads its metrics.
func BenchmarkVerifyExamples(b *testing.B) {
	base := requireSolver(b)
	pkgs := examplePackages(b)
	benchSeries(b, pkgs, func() *Solver { return &Solver{Path: base.Path, Reuse: true} })
}

// BenchmarkVerifyExamplesCached is BenchmarkVerifyExamples with a warm
// cache (Solver.Cache, filled by a run before the timed ones): what a
// repeated caps verify-report costs.
func BenchmarkVerifyExamplesCached(b *testing.B) {
	base := requireSolver(b)
	pkgs := examplePackages(b)
	dir := b.TempDir()
	fill := &Solver{Path: base.Path, Reuse: true, Cache: &Cache{Dir: dir}}
	verifyAll(b, fill, pkgs)
	fill.Close()
	cache := &Cache{Dir: dir}
	benchSeries(b, pkgs, func() *Solver { return &Solver{Path: base.Path, Reuse: true, Cache: cache} })
	if hits, misses := cache.Stats(); misses > 0 {
		b.Errorf("the warm cache missed %d obligations (%d hits)", misses, hits)
	}
}

func verifyAll(t testing.TB, s *Solver, pkgs []*load.Package) int {
	n := 0
	for _, p := range pkgs {
		r, err := Verify(context.Background(), p.Result, Options{Solver: s})
		if err != nil {
			t.Fatal(err)
		}
		n += len(r.Obligations)
	}
	return n
}

// benchSeries times benchRuns runs per op and reports the fastest, median
// and slowest wall time (min-s, median-s, max-s), the median CPU time of
// caps and every z3 it ran (which the machine's load does not inflate as
// it does wall time), and the load average.
func benchSeries(b *testing.B, pkgs []*load.Package, solver func() *Solver) {
	var walls, cpus []float64
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for range benchRuns {
			s := solver()
			self := processCPU()
			start := time.Now()
			n = verifyAll(b, s, pkgs)
			s.Close()
			walls = append(walls, time.Since(start).Seconds())
			if self >= 0 {
				cpus = append(cpus, (processCPU() - self + s.CPU()).Seconds())
			}
		}
	}
	b.StopTimer()
	sort.Float64s(walls)
	sort.Float64s(cpus)
	b.ReportMetric(walls[0], "min-s")
	b.ReportMetric(walls[len(walls)/2], "median-s")
	b.ReportMetric(walls[len(walls)-1], "max-s")
	b.ReportMetric(float64(len(walls)), "runs")
	b.ReportMetric(float64(n), "obligations")
	if len(cpus) > 0 {
		b.ReportMetric(cpus[len(cpus)/2], "cpu-s")
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(data)); len(f) > 0 {
			if l, err := strconv.ParseFloat(f[0], 64); err == nil {
				b.ReportMetric(l, "load1")
			}
		}
	}
}

// examplePackages loads the modules under examples/ that check without
// errors.
func examplePackages(t testing.TB) []*load.Package {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.caps"))
	var pkgs []*load.Package
	for _, p := range paths {
		if strings.Contains(filepath.Base(p), "_bad_") {
			continue
		}
		pkgs = append(pkgs, loadFile(t, p))
	}
	if len(pkgs) == 0 {
		t.Fatal("no examples")
	}
	return pkgs
}

// TestMessages: the one-line account of each kind of failure, as the
// language server shows it.
func TestMessages(t *testing.T) {
	s := requireSolver(t)
	r := verifyFile(t, filepath.Join(testdata, "contracts.caps"), s)
	got := map[string]string{}
	for _, o := range r.Obligations {
		if o.Status == Failed {
			got[strings.TrimPrefix(o.ID, "verify.contracts/")] = o.Message()
		}
	}
	want := map[string]string{
		"abs_wrong/ensures/0":      "x = -9223372036854775808 breaks ensures (>= result 0)",
		"ratio/no-failure":         "a = 0, b = 0 makes the body of ratio fail",
		"twice_abs/no-failure":     "x = -9223372036854775808 makes the body of twice_abs fail",
		"bump/ensures/0":           "n = 4294967295 breaks ensures (> result n)",
		"half/example/0":           "(example (half 7) 4) does not return the expected value",
		"Meter/open.Average/guard": "total = 0, count = 0 makes the guard (> (/ total count) 10) fail",
		"Impossible/satisfiable":   "no inputs satisfy the claim (and (< score limit) (> score limit)) of zk-proof Impossible",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got)\n%s", diff)
	}
}

// TestQuickAttemptsKeepResults: the incremental first attempts (NoQuick),
// with solver processes reused from one module to the next (Reuse, so
// that datatypes of the same name are declared differently in one
// session), give exactly the report of fresh queries alone.
func TestQuickAttemptsKeepResults(t *testing.T) {
	base := requireSolver(t)
	fresh := &Solver{Path: base.Path, Timeout: base.Timeout, NoQuick: true}
	quick := &Solver{Path: base.Path, Timeout: base.Timeout, Reuse: true}
	defer quick.Close()
	paths, _ := filepath.Glob(filepath.Join(testdata, "*.caps"))
	paths = append(paths, filepath.Join("..", "..", "examples", "contracts.caps"), filepath.Join("..", "..", "examples", "text_and_records.caps"))
	for _, path := range paths {
		want := render(verifyFile(t, path, fresh))
		got := render(verifyFile(t, path, quick))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: quick attempts change the report (-fresh +quick):\n%s", path, diff)
		}
	}
	quick.poolMu.Lock()
	idle := 0
	for _, p := range quick.pool {
		idle += len(p[0]) + len(p[1])
	}
	quick.poolMu.Unlock()
	if idle == 0 {
		t.Error("Reuse kept no solver process")
	}
}

// TestCacheKey: the cache key changes with anything that decides a
// verdict (the query, the budget, the types a counterexample is read
// into) and with nothing else; an entry that cannot be read is a miss.
func TestCacheKey(t *testing.T) {
	s := requireSolver(t)
	p := loadFile(t, filepath.Join(testdata, "contracts.caps"))
	sh, err := prepare(p.Result)
	if err != nil {
		t.Fatal(err)
	}
	var o *Obligation
	for _, x := range sh.obligations() {
		if x.ID == "verify.contracts/bump/ensures/0" {
			o = x
		}
	}
	if o == nil {
		t.Fatal("no obligation verify.contracts/bump/ensures/0")
	}
	bv, _ := sh.encode(o, false, false)
	in, _ := sh.encode(o, true, false)
	key := s.cacheKey(o, bv, in)
	if again := (&Solver{Path: s.Path}).cacheKey(o, bv, in); again != key {
		t.Errorf("the same queries give two keys: %s, %s", key, again)
	}
	retyped := *bv
	retyped.vars = append([]freeVar(nil), bv.vars...)
	retyped.vars[0].t = types.TBool
	for name, other := range map[string]string{
		"another budget":   (&Solver{Path: s.Path, Rlimit: 1000}).cacheKey(o, bv, in),
		"another query":    s.cacheKey(o, &query{script: bv.script + "(assert true)\n", vars: bv.vars, terms: bv.terms}, in),
		"no integers":      s.cacheKey(o, bv, nil),
		"another var type": s.cacheKey(o, &retyped, in),
	} {
		if other == key {
			t.Errorf("%s: the same key", name)
		}
	}
	c := &Cache{Dir: t.TempDir()}
	want := &verdict{Status: Failed, Reason: "r", Counterexample: []Binding{{"n", "4294967295"}}}
	c.put(key, want)
	if got, ok := c.get(key); !ok || !cmp.Equal(got, want) {
		t.Errorf("get after put: %+v, %t", got, ok)
	}
	if err := os.WriteFile(c.path(key), []byte(`{"status":"maybe"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(key); ok {
		t.Error("an entry with an unknown status was read")
	}
	if hits, misses := c.Stats(); hits != 1 || misses != 1 {
		t.Errorf("stats %d hits, %d misses; want 1, 1", hits, misses)
	}
}
