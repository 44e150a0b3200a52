package riscv64_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/internal/gen"
	"github.com/capsulang/caps/codegen/internal/testutil"
	"github.com/capsulang/caps/codegen/riscv64"
	"github.com/capsulang/caps/codegen/wasmrun"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

// tools finds the cross assembler, linker and qemu (required under CI).
type tools struct{ as, ld, qemu string }

func findTools(t *testing.T) tools {
	return tools{
		as:   testutil.Tool(t, "RISCV_AS", "binutils-riscv64-linux-gnu", "riscv64-linux-gnu-as"),
		ld:   testutil.Tool(t, "RISCV_LD", "binutils-riscv64-linux-gnu", "riscv64-linux-gnu-ld"),
		qemu: testutil.Tool(t, "QEMU_RISCV64", "qemu-user", "qemu-riscv64"),
	}
}

// call is one call to run: a function and raw arguments.
type call struct {
	fn   *core.Func
	args []uint64
}

// harness returns a _start that calls each case in turn and prints
// "v HEX" for a result or "t HEX" for a trap (the site number); caps_trap
// restores the stack pointer saved before the call and goes on.
func harness(calls []call) string {
	var b strings.Builder
	b.WriteString("\t.option nopic\n\t.text\n\t.globl _start\n_start:\n")
	// The linker relaxes la into gp-relative addressing; set gp as crt0 would.
	b.WriteString("\t.option push\n\t.option norelax\n\tla gp, __global_pointer$\n\t.option pop\n")
	for i, c := range calls {
		fmt.Fprintf(&b, "\tla t0, saved_sp\n\tsd sp, 0(t0)\n\tla t0, resume\n\tla t1, .Lnext%d\n\tsd t1, 0(t0)\n", i)
		b.WriteString("\tla t0, caps_depth\n\tli t1, 1\n\tsw t1, 0(t0)\n")
		for j, a := range c.args {
			fmt.Fprintf(&b, "\tli a%d, %d\n", j, int64(a))
		}
		fmt.Fprintf(&b, "\tcall %s\n\tli a1, 'v'\n\tcall print\n.Lnext%d:\n", riscv64.Symbol(c.fn.Name), i)
	}
	b.WriteString(`	li a0, 0
	li a7, 93
	ecall

	.globl caps_trap
caps_trap:
	la t0, saved_sp
	ld sp, 0(t0)
	li a1, 't'
	call print
	la t0, resume
	ld t0, 0(t0)
	jr t0

# print: writes "<a1> <a0 as 16 hex digits>\n" to stdout.
print:
	la t0, buf
	sb a1, 0(t0)
	li t1, ' '
	sb t1, 1(t0)
	li t2, 60
	addi t3, t0, 2
1:	srl t4, a0, t2
	andi t4, t4, 15
	li t5, 10
	blt t4, t5, 2f
	addi t4, t4, 'a'-10
	j 3f
2:	addi t4, t4, '0'
3:	sb t4, 0(t3)
	addi t3, t3, 1
	addi t2, t2, -4
	bgez t2, 1b
	li t1, '\n'
	sb t1, 0(t3)
	li a0, 1
	mv a1, t0
	li a2, 19
	li a7, 64
	ecall
	ret

	.bss
	.align 3
saved_sp: .space 8
resume: .space 8
buf: .space 32
`)
	return b.String()
}

// run assembles the module and a harness for calls, runs them under qemu
// and returns one output line per call.
func run(t *testing.T, tl tools, asm string, calls []call) []string {
	t.Helper()
	dir := t.TempDir()
	if d := os.Getenv("RISCV_KEEP"); d != "" {
		dir = d
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mod, h := write("m.s", asm), write("h.s", harness(calls))
	for _, src := range []string{mod, h} {
		if out, err := exec.Command(tl.as, "-march=rv64im", "-o", src+".o", src).CombinedOutput(); err != nil {
			t.Fatalf("as %s: %v\n%s", filepath.Base(src), err, out)
		}
	}
	prog := filepath.Join(dir, "prog")
	if out, err := exec.Command(tl.ld, "-o", prog, mod+".o", h+".o").CombinedOutput(); err != nil {
		t.Fatalf("ld: %v\n%s", err, out)
	}
	out, err := exec.Command(tl.qemu, prog).Output()
	if err != nil {
		t.Fatalf("qemu: %v\n%s", err, out)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != len(calls) {
		t.Fatalf("qemu printed %d lines for %d calls:\n%s", len(lines), len(calls), out)
	}
	return lines
}

// interpOutcome is what the native line should be for the interpreter's
// result: "value V" or the error kind.
func interpOutcome(v value.Value, err error) string {
	if err == nil {
		return "value " + v.String()
	}
	var re *interp.Error
	if errors.As(err, &re) {
		return "error " + string(re.Kind)
	}
	return "error " + err.Error()
}

func nativeOutcome(m *core.Module, f *core.Func, line string) string {
	kind, hex, _ := strings.Cut(line, " ")
	raw, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return "bad line " + line
	}
	if kind == "v" {
		return "value " + wasmrun.ToValue(f.Result, raw).String()
	}
	if int(raw) >= len(m.Sites) {
		return "bad trap " + line
	}
	switch s := m.Sites[raw]; s.Kind {
	case core.SiteCall:
		return "error " + string(interp.DepthBudget)
	default:
		return "error " + string(s.Kind)
	}
}

func TestToolsRequired(t *testing.T) { findTools(t) }

// TestExamples runs every example of every compiled example function
// natively under qemu.
func TestExamples(t *testing.T) {
	tl := findTools(t)
	for _, path := range testutil.Examples(t) {
		pkg := testutil.Load(t, path)
		m := core.Lower(pkg.Result)
		if len(m.Funcs) == 0 {
			continue
		}
		asm, err := riscv64.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		in := interp.New(pkg.Result)
		var calls []call
		var want []string
		for _, f := range m.Funcs {
			for _, ex := range f.Decl.Examples {
				var args []value.Value
				var raw []uint64
				for i, a := range ex.Args {
					v, err := in.EvalExpr(a, interp.Env{})
					if err != nil {
						t.Fatal(err)
					}
					r, _ := wasmrun.FromValue(f.Params[i].K, v)
					args, raw = append(args, v), append(raw, r)
				}
				exp, _ := in.EvalExpr(ex.Expected, interp.Env{})
				calls = append(calls, call{f, raw})
				want = append(want, "value "+exp.String())
			}
		}
		lines := run(t, tl, asm, calls)
		for i, c := range calls {
			if got := nativeOutcome(m, c.fn, lines[i]); got != want[i] {
				t.Errorf("%s %s%v: native %s, expected %s", filepath.Base(path), c.fn.Name, c.args, got, want[i])
			}
		}
	}
}

// TestDifferential compares the interpreter with native RV64 code on
// random modules and random inputs.
func TestDifferential(t *testing.T) {
	tl := findTools(t)
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	total := 0
	for s := uint64(0); s < uint64(seeds); s++ {
		gm := gen.Generate(s, 6)
		pkg := testutil.LoadSource(t, gm.Source)
		m := core.Lower(pkg.Result)
		if len(m.Funcs) == 0 {
			continue
		}
		asm, err := riscv64.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		in := interp.New(pkg.Result)
		var calls []call
		var want []string
		for fi, gf := range gm.Funcs {
			f := m.Func(gf.Name)
			if f == nil {
				continue
			}
			info, _ := in.Function(gf.Name)
			for _, argv := range gen.Inputs(s+uint64(fi), gf, 10) {
				var args []value.Value
				var raw []uint64
				for i, a := range argv {
					v, err := value.Parse(a, info.Params[i].Type)
					if err != nil {
						t.Fatal(err)
					}
					r, _ := wasmrun.FromValue(f.Params[i].K, v)
					args, raw = append(args, v), append(raw, r)
				}
				v, _, err := in.Call(gf.Name, args)
				var re *interp.Error
				if errors.As(err, &re) && re.Kind == interp.StepBudget {
					continue
				}
				calls = append(calls, call{f, raw})
				want = append(want, interpOutcome(v, err))
			}
		}
		lines := run(t, tl, asm, calls)
		for i, c := range calls {
			if got := nativeOutcome(m, c.fn, lines[i]); got != want[i] {
				t.Fatalf("seed %d: %s%v: native %s, interpreter %s\n%s", s, c.fn.Name, c.args, got, want[i], gm.Source)
			}
		}
		total += len(calls)
	}
	t.Logf("%d calls compared natively under qemu", total)
}
