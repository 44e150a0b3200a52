package wasmrun_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/codegen/wasmrun"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

func TestCompareExamples(t *testing.T) {
	tests := []struct {
		file string
		want wasmrun.Comparison
	}{
		{"../../examples/01_abs_i64.caps", wasmrun.Comparison{Total: 4, Agreed: 4, Status: "passed"}},
		// halve's examples: one agrees, one expects the wrong value and
		// one traps (division by zero); greet (Text) is not compiled.
		{"../../testdata/pipeline/failing_examples.caps", wasmrun.Comparison{Total: 3, Agreed: 1, Status: "failed", Detail: "halve: wasm gave 25, expected 26"}},
		{"text.caps", wasmrun.Comparison{Status: "not-applicable", Detail: "no function is in the compiled subset"}},
	}
	// text.caps has only a function outside the subset.
	sources := map[string]string{"text.caps": `(module t (capsule "1") (function f (input (s Text)) (output Text) (body s) (example (f "a") "a")))`}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var l load.Loader
			pkg, err := l.Load(tt.file)
			if src, ok := sources[tt.file]; ok {
				pkg, err = l.LoadSource(tt.file, []byte(src)), nil
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *wasmrun.CompareExamples(pkg.Result)); diff != "" {
				t.Errorf("comparison (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCallChecked(t *testing.T) {
	var l load.Loader
	pkg, err := l.Load("../../testdata/pipeline/failing_examples.caps")
	if err != nil {
		t.Fatal(err)
	}
	v, err := wasmrun.CallChecked(pkg.Result, "halve", []value.Value{value.I64(4)}, wasmrun.Budgets{})
	if err != nil || v.String() != "25" {
		t.Errorf("halve 4 = %v, %v; want 25", v, err)
	}
	_, err = wasmrun.CallChecked(pkg.Result, "halve", []value.Value{value.I64(0)}, wasmrun.Budgets{})
	var re *interp.Error
	if !errors.As(err, &re) || re.Kind != interp.DivisionByZero {
		t.Errorf("halve 0: error %v, want the interpreter's division-by-zero", err)
	}
	_, err = wasmrun.CallChecked(pkg.Result, "greet", []value.Value{value.Text("x")}, wasmrun.Budgets{})
	var nc *wasmrun.NotCompiledError
	if !errors.As(err, &nc) {
		t.Fatalf("greet: error %v, want a *NotCompiledError", err)
	}
	if want := "function greet is not in the wasm subset"; len(nc.Msg) < len(want) || nc.Msg[:len(want)] != want {
		t.Errorf("greet: %q", nc.Msg)
	}
}
