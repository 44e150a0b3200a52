package interp_test

import (
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/syntax/ast"
)

// TestCallOfADeferredFunction checks what the interpreter says when an
// example calls a function a lean tree did not build whole (which
// ast.UndeferReach prevents): a clear failure of that example, not an
// arity error or a panic.
func TestCallOfADeferredFunction(t *testing.T) {
	src := "(module m (capsule \"1\")\n  (function g (input (x I64)) (output I64) (body (* 2 x)))\n  (function h (output I64) (body (g 2)) (example (h) 4)))\n"
	f, ok := ast.BuildLean([]byte(src))
	if !ok {
		t.Fatal("not built lean")
	}
	res := check.Check(f, check.Options{Path: "/m.caps", Once: true})
	if res.HasErrors() {
		t.Fatalf("errors: %v", res.Diagnostics)
	}
	got := examples.Evaluate(res)
	if len(got) != 1 || got[0].Passed || got[0].Err == nil || !strings.Contains(got[0].Err.Error(), "g was not built whole") {
		t.Fatalf("outcome %+v", got)
	}
}
