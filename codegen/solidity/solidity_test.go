package solidity_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/internal/gen"
	"github.com/capsulang/caps/codegen/internal/testutil"
	"github.com/capsulang/caps/codegen/solidity"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

// module is a checked module with its contract.
type module struct {
	name string
	pkg  *load.Package
	mod  *core.Module
	ct   *solidity.Contract
	in   *interp.Interp
}

func newModule(t testing.TB, name string, pkg *load.Package, opts solidity.Options) *module {
	t.Helper()
	m := core.Lower(pkg.Result)
	if len(m.Funcs) == 0 {
		return nil
	}
	ct, err := solidity.Compile(m, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := interp.New(pkg.Result)
	in.MaxDepth = opts.MaxDepth
	return &module{name: name, pkg: pkg, mod: m, ct: ct, in: in}
}

// compare runs f on args (source literals) in the interpreter and in the
// EVM; it returns the interpreter's outcome, or "" when the case was not
// compared (budgets the EVM does not model).
func compare(t testing.TB, m *module, e *evm, f *core.Func, argv []string) string {
	t.Helper()
	info, _ := m.in.Function(f.Name)
	args := make([]value.Value, len(argv))
	for i, a := range argv {
		v, err := value.Parse(a, info.Params[i].Type)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		args[i] = v
	}
	iv, _, ierr := m.in.Call(f.Name, args)
	want := outcome(iv, ierr)
	if re, ok := ierr.(*interp.Error); ok && (re.Kind == interp.StepBudget || re.Kind == interp.DepthBudget && strings.Contains(re.Message, "nested too deeply")) {
		return ""
	}
	got := e.call(f.Name, args)
	if got != want {
		t.Fatalf("%s: (%s %s):\nEVM:         %s\ninterpreter: %s\n\n%s", m.name, f.Name, strings.Join(argv, " "), got, want, m.ct.Source)
	}
	return want
}

// TestExamplesEVM compiles every example's functions to one contract per
// example, runs them in the EVM on their examples' arguments and on every
// combination of edge values, and compares with the interpreter.
func TestExamplesEVM(t *testing.T) {
	var mods []*module
	srcs := map[string]string{}
	for _, path := range testutil.Examples(t) {
		m := newModule(t, filepath.Base(path), testutil.Load(t, path), solidity.Options{})
		if m == nil {
			continue
		}
		mods = append(mods, m)
		srcs[m.name] = m.ct.Source
	}
	bins := solc(t, srcs, true)
	c := counts{}
	for _, m := range mods {
		e := deploy(t, bins[m.name], m.ct)
		for _, f := range m.mod.Funcs {
			var inputs [][]string
			for _, ex := range f.Decl.Examples {
				var argv []string
				for _, a := range ex.Args {
					argv = append(argv, string(m.pkg.Src[a.ExprSpan().Start:a.ExprSpan().End]))
				}
				inputs = append(inputs, argv)
			}
			inputs = append(inputs, edgeInputs(f, 200)...)
			for _, argv := range inputs {
				if o := compare(t, m, e, f, argv); o != "" {
					c.add(o)
				}
			}
		}
	}
	total := 0
	for _, n := range c {
		total += n
	}
	if total == 0 {
		t.Fatal("no case ran")
	}
	t.Logf("%d calls compared (EVM vs interpreter, solc %s) over %d example modules; outcomes: %v", total, solcVersion, len(mods), c)
}

// TestDifferentialEVM compares the interpreter with the EVM on random
// modules of the compiled subset, on random and boundary inputs.
func TestDifferentialEVM(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	var mods []*module
	var gms []*gen.Module
	// Even seeds go through solc's legacy pipeline, odd ones through
	// the IR pipeline (--via-ir).
	srcs := [2]map[string]string{{}, {}}
	for s := 0; s < seeds; s++ {
		gm := gen.Generate(uint64(s), 6)
		pkg := testutil.LoadSource(t, gm.Source)
		name := fmt.Sprintf("seed%d.sol", s)
		opts := solidity.Options{}
		if s%4 == 3 {
			opts.MaxDepth = 5 // exercise the depth budget
		}
		m := newModule(t, name, pkg, opts)
		if m == nil {
			continue
		}
		for _, u := range m.mod.Unsupported {
			if !strings.Contains(u.Feature, "the checker typed") && !strings.Contains(u.Feature, "which is not compiled") {
				t.Fatalf("seed %d: generated function outside the subset: %v\n%s", s, u, gm.Source)
			}
		}
		mods = append(mods, m)
		gms = append(gms, gm)
		srcs[s%2][name] = m.ct.Source
	}
	start := time.Now()
	bins := solc(t, srcs[0], false)
	for k, v := range solc(t, srcs[1], true) {
		bins[k] = v
	}
	t.Logf("solc compiled %d contracts in %v", len(bins), time.Since(start).Round(time.Millisecond))
	start = time.Now()
	c := counts{}
	total := 0
	for i, m := range mods {
		e := deploy(t, bins[m.name], m.ct)
		for fi, gf := range gms[i].Funcs {
			f := m.mod.Func(gf.Name)
			if f == nil {
				continue
			}
			inputs := gen.Inputs(uint64(i*100+fi), gf, 12)
			inputs = append(inputs, edgeInputs(f, 12)...)
			for _, argv := range inputs {
				if o := compare(t, m, e, f, argv); o != "" {
					c.add(o)
					total++
				}
			}
		}
	}
	if total == 0 {
		t.Fatal("no case ran")
	}
	if c["division-by-zero"] == 0 || c["value"] == 0 {
		t.Errorf("the random cases never reached a value or a division by zero: %v", c)
	}
	t.Logf("%d calls compared (EVM vs interpreter) over %d random modules in %v; outcomes: %v", total, len(mods), time.Since(start).Round(time.Millisecond), c)
}

// TestRecursionDepthEVM measures how deep recursion goes in the EVM
// before its stack overflows, and checks that the depth budget reverts
// with the call's site.
func TestRecursionDepthEVM(t *testing.T) {
	pkg := testutil.LoadSource(t, `(module rec
  (capsule "1")
  (function down (input (n U64)) (output U64)
    (body (if (== n 0) 0 (+ 1 (down (- n 1)))))))
`)
	m := newModule(t, "rec.sol", pkg, solidity.Options{MaxDepth: 50})
	bins := solc(t, map[string]string{"rec.sol": m.ct.Source}, true)
	e := deploy(t, bins["rec.sol"], m.ct)
	f := m.mod.Func("down")
	for _, n := range []string{"0", "1", "48", "49", "50", "51", "1000"} {
		compare(t, m, e, f, []string{n})
	}
	// Without a small budget the EVM's own stack is the limit.
	m2 := newModule(t, "rec.sol", pkg, solidity.Options{})
	bins = solc(t, map[string]string{"rec.sol": m2.ct.Source}, true)
	e2 := deploy(t, bins["rec.sol"], m2.ct)
	lo, hi := 1, 10000
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if strings.HasPrefix(e2.call("down", []value.Value{value.Int(value.IntU64, uint64(mid))}), "value") {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo >= 10000 || lo < 50 {
		t.Errorf("deepest recursion in the EVM: %d calls", lo)
	}
	t.Logf("the EVM runs down(n) up to n = %d before its 1024-slot stack overflows", lo)
}

// TestNames checks the Solidity names of Capsulang names and that no
// function takes the contract's name or the error's.
func TestNames(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"abs_i64", "abs_i64"}, {"return", "caps_return"}, {"int64", "caps_int64"}, {"risk-ok", "caps_risk_ok"},
		{"_x", "caps__x"}, {"caps_f0", "caps_caps_f0"}, {"émoi", "caps__moi"},
	} {
		if got := solidity.Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	pkg := testutil.LoadSource(t, `(module m
  (capsule "1")
  (function m (input (x U32)) (output U32) (body x))
  (function CapsTrap (input (x U32)) (output U32) (body x)))
`)
	ct, err := solidity.Compile(core.Lower(pkg.Result), solidity.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ct.Name != "m" || ct.Exports["m"] != "m_" || ct.Exports["CapsTrap"] != "CapsTrap_" {
		t.Errorf("contract %s exports %v", ct.Name, ct.Exports)
	}
	c := solc(t, map[string]string{"names.sol": ct.Source}, false)["names.sol"]
	if _, ok := c.ABI.Methods["m_"]; !ok {
		t.Errorf("ABI methods %v", c.ABI.Methods)
	}
	if _, ok := c.ABI.Methods["CapsTrap_"]; !ok {
		t.Errorf("ABI methods %v", c.ABI.Methods)
	}
}
