package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/codegen/lean"
)

func runCG(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// TestCallEngineWasm checks that --engine wasm prints exactly what the
// interpreter prints, values and runtime errors alike.
func TestCallEngineWasm(t *testing.T) {
	abs := filepath.Join("..", "..", "examples", "abs.caps")
	for _, args := range [][]string{
		{"abs_i64", "x=-7"}, {"fib", "n=20"}, {"div_i64", "a=7", "b=0"},
		{"rem_i64", "a=-9223372036854775808", "b=-1"}, {"clamp", "x=1", "lo=5", "hi=2"},
		{"wrap_add_i32", "a=2147483647", "b=1"}, {"last_digit_u32", "x=4294967295"},
		{"exactly_one", "a=true", "b=true"}, {"--max-depth", "3", "fib", "n=10"},
		{"--json", "div_i64", "a=1", "b=0"},
	} {
		io, ie, ic := runCG(t, append([]string{"call", abs}, args...)...)
		wo, we, wc := runCG(t, append([]string{"call", "--engine", "wasm", abs}, args...)...)
		if io != wo || ie != we || ic != wc {
			t.Errorf("%v:\ninterp: %d %q %q\nwasm:   %d %q %q", args, ic, io, ie, wc, wo, we)
		}
	}
	_, e, code := runCG(t, "call", "--engine", "wasm", abs, "checked_div_u64", "a=1", "b=2")
	if code != cli.ExitUsage || !strings.Contains(e, "not in the wasm subset: unsupported Option values") {
		t.Errorf("unsupported function: %d %q", code, e)
	}
	_, e, code = runCG(t, "call", "--engine", "jit", abs, "fib", "n=1")
	if code != cli.ExitUsage || !strings.Contains(e, "--engine is one of interp, wasm") {
		t.Errorf("bad engine: %d %q", code, e)
	}
}

func TestCompileCommands(t *testing.T) {
	abs := filepath.Join("..", "..", "examples", "abs.caps")
	claim := filepath.Join("..", "..", "examples", "insurance_claim.caps")
	dir := t.TempDir()
	out, e, code := runCG(t, "compile", "--target", "wasm", abs, "--out", filepath.Join(dir, "abs.wasm"), "--json")
	if code != 0 || !strings.Contains(out, `"target":"wasm"`) || !strings.Contains(out, `"skipped":["checked_div_u64"]`) {
		t.Fatalf("compile: %d %s %s", code, out, e)
	}
	bin, err := os.ReadFile(filepath.Join(dir, "abs.wasm"))
	if err != nil || !bytes.HasPrefix(bin, []byte("\x00asm\x01\x00\x00\x00")) {
		t.Fatalf("not a wasm module: %v", err)
	}
	_, e, code = runCG(t, "compile", "--target", "xstate", abs, "--out", filepath.Join(dir, "x.mjs"))
	if code != cli.ExitFail || !strings.Contains(e, "nothing to compile for xstate: the module declares no machine") {
		t.Errorf("xstate on a module without machines: %d %q", code, e)
	}
	out, e, code = runCG(t, "compile", "--target", "solidity", abs, "--out", filepath.Join(dir, "x.sol"), "--json")
	if code != 0 || !strings.Contains(out, `"target":"solidity"`) || !strings.Contains(out, `"skipped":["checked_div_u64"]`) {
		t.Errorf("solidity: %d %s %q", code, out, e)
	}
	if sol, err := os.ReadFile(filepath.Join(dir, "x.sol")); err != nil || !strings.Contains(string(sol), "contract examples_abs {") || !strings.Contains(string(sol), "function fib(uint64 n) external pure returns (uint64) {") {
		t.Errorf("solidity output: %v\n%s", err, sol)
	}
	out, _, code = runCG(t, "compile-plan", abs, "--target", "all")
	if code != 0 || !strings.Contains(out, "wasm: partial (17 compiled, 1 skipped)") || !strings.Contains(out, "abs.caps:123:13: checked_div_u64: unsupported Option values") || !strings.Contains(out, "native-aarch64: not implemented") {
		t.Errorf("compile-plan:\n%s", out)
	}
	if lean.Check("").Checked {
		t.Log("a Lean toolchain is present: the unchecked marking is not exercised")
	} else {
		out, e, code = runCG(t, "compile", "--target", "lean", abs, "--out", filepath.Join(dir, "abs.lean"), "--json")
		if code != 0 || !strings.Contains(out, `"check":{"checked":false,"detail":"unchecked: no Lean toolchain was found`) {
			t.Errorf("lean: %d %s %q", code, out, e)
		}
		if src, err := os.ReadFile(filepath.Join(dir, "abs.lean")); err != nil || !strings.HasPrefix(string(src), lean.UncheckedMarker) {
			t.Errorf("lean output not marked unchecked: %v\n%.200s", err, src)
		}
	}
	out, _, code = runCG(t, "compile-backends", "--json")
	if code != 0 || !strings.Contains(out, `"name":"riscv64","status":"implemented"`) || !strings.Contains(out, `"name":"native-aarch64","status":"not-implemented"`) {
		t.Errorf("compile-backends: %s", out)
	}
	out, _, code = runCG(t, "release-preview", "--json", abs)
	if code != 0 || !strings.Contains(out, `"wasm_examples":{"total":52,"agreed":52,"status":"passed"}`) || !strings.Contains(out, `"level":"V2"`) {
		t.Errorf("release-preview: %s", out)
	}
	out, _, code = runCG(t, "visualize", claim, "--kind", "machine")
	if code != 0 || !strings.Contains(out, "stateDiagram-v2") || !strings.Contains(out, "[*] --> filed") {
		t.Errorf("visualize machine: %s", out)
	}
	out, _, code = runCG(t, "visualize", claim, "--kind", "effects")
	if code != 0 || !strings.Contains(out, "flowchart LR") || !strings.Contains(out, `x_claims_db_claims[("claims_db.claims")]`) {
		t.Errorf("visualize effects: %s", out)
	}
}
