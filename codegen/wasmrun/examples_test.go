package wasmrun_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/internal/testutil"
	cwasm "github.com/capsulang/caps/codegen/wasm"
	"github.com/capsulang/caps/codegen/wasmrun"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

// TestExamples compiles every example module, validates the binary with
// wasm-validate, and runs every example of every compiled function under
// wazero, comparing with the interpreter and the expected value.
func TestExamples(t *testing.T) {
	ctx := context.Background()
	rt := wasmrun.NewRuntime(ctx)
	defer rt.Close(ctx)
	validate := testutil.LookTool("WASM_VALIDATE", "wasm-validate")
	ran := 0
	for _, path := range testutil.Examples(t) {
		// An example none of whose functions is in the compiled subset has
		// nothing to run here; it is named in the log, not as a skip.
		if cm := core.Lower(testutil.Load(t, path).Result); len(cm.Funcs) == 0 {
			t.Logf("%s: no function is in the compiled subset (%d not compiled); nothing to run", path, len(cm.Skipped))
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			pkg := testutil.Load(t, path)
			cm := core.Lower(pkg.Result)
			m, err := cwasm.Compile(cm)
			if err != nil {
				t.Fatal(err)
			}
			if validate != "" {
				wasmValidate(t, validate, m.Binary)
			}
			inst, err := rt.Instantiate(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			in := interp.New(pkg.Result)
			for _, f := range cm.Funcs {
				for _, ex := range f.Decl.Examples {
					var args []value.Value
					for _, a := range ex.Args {
						v, err := in.EvalExpr(a, interp.Env{})
						if err != nil {
							t.Fatalf("%s: argument: %v", f.Name, err)
						}
						args = append(args, v)
					}
					want, err := in.EvalExpr(ex.Expected, interp.Env{})
					if err != nil {
						t.Fatal(err)
					}
					iv, _, ierr := in.Call(f.Name, args)
					wv, werr := inst.Call(ctx, f.Name, args, wasmrun.Budgets{})
					if ierr != nil || werr != nil {
						t.Errorf("%s%v: interpreter error %v, wasm error %v", f.Name, args, ierr, werr)
						continue
					}
					if wv.String() != want.String() || iv.String() != wv.String() {
						t.Errorf("%s%v: wasm %s, interpreter %s, expected %s", f.Name, args, wv, iv, want)
					}
					ran++
				}
			}
		})
	}
	if ran == 0 {
		t.Fatal("no example ran")
	}
	t.Logf("%d examples ran compiled", ran)
}

func wasmValidate(t *testing.T, tool string, bin []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.wasm")
	if err := os.WriteFile(p, bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tool, p).CombinedOutput(); err != nil {
		t.Fatalf("wasm-validate rejected the module: %v\n%s", err, out)
	}
}

// TestValidateRequired makes a missing wasm-validate fail under CI.
func TestValidateRequired(t *testing.T) {
	testutil.Tool(t, "WASM_VALIDATE", "wabt", "wasm-validate")
}
