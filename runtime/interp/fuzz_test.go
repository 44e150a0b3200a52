package interp_test

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

var (
	fuzzKinds = []value.IntKind{value.IntI32, value.IntI64, value.IntU32, value.IntU64, value.IntWei}
	fuzzOps   = []string{"+", "-", "*", "/", "%", "<", "min"}
	opNames   = map[string]string{"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem", "<": "lt", "min": "min"}
)

// arithModule declares one function per integer type and operation:
// (function add_I32 (input (a I32) (b I32)) (output I32) (body (+ a b))).
func arithModule() string {
	var b strings.Builder
	for _, k := range fuzzKinds {
		for _, op := range fuzzOps {
			out := k.String()
			if op == "<" {
				out = "Bool"
			}
			fmt.Fprintf(&b, "  (function %s_%s (input (a %s) (b %s)) (output %s) (body (%s a b)))\n", opNames[op], k, k, k, out, op)
		}
	}
	return b.String()
}

// reference computes a op b for integer kind k with math/big: the exact
// result reduced modulo 2^width into the type's range; "trap" for a zero
// divisor.
func reference(op string, k value.IntKind, a, b value.Value) string {
	x, y := a.Big(), b.Big()
	r := new(big.Int)
	switch op {
	case "+":
		r.Add(x, y)
	case "-":
		r.Sub(x, y)
	case "*":
		r.Mul(x, y)
	case "/", "%":
		if y.Sign() == 0 {
			return "trap"
		}
		if op == "/" {
			r.Quo(x, y) // truncated toward zero
		} else {
			r.Rem(x, y) // sign of the dividend
		}
	case "<":
		return fmt.Sprint(x.Cmp(y) < 0)
	case "min":
		if y.Cmp(x) < 0 {
			return y.String()
		}
		return x.String()
	}
	bits := uint(k.Bits())
	mod := new(big.Int).Lsh(big.NewInt(1), bits)
	r.Mod(r, mod)
	if k.Signed() && r.Cmp(new(big.Int).Rsh(mod, 1)) >= 0 {
		r.Sub(r, mod)
	}
	return r.String()
}

// FuzzEval compares interpreted integer arithmetic, comparison and min at
// every width with a math/big reference.
func FuzzEval(f *testing.F) {
	in := interp.New(checked(f, arithModule()))
	edges := []uint64{0, 1, 2, 3, 7, 10, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, 1<<64 - 1, 1<<64 - 2, 0xdeadbeefcafebabe}
	for i, a := range edges {
		for j, b := range edges {
			f.Add(uint8(i+j), uint8(i*j), a, b)
		}
	}
	f.Fuzz(func(t *testing.T, opSel, kindSel uint8, ra, rb uint64) {
		op := fuzzOps[int(opSel)%len(fuzzOps)]
		k := fuzzKinds[int(kindSel)%len(fuzzKinds)]
		a, b := value.Int(k, ra), value.Int(k, rb)
		name := opNames[op] + "_" + k.String()
		v, _, err := in.Call(name, []value.Value{a, b})
		want := reference(op, k, a, b)
		got := outcome(v, err)
		if want == "trap" {
			var re *interp.Error
			if !errors.As(err, &re) || re.Kind != interp.DivisionByZero {
				t.Fatalf("%s(%s, %s) = %s, want a division-by-zero error", name, a, b, got)
			}
			return
		}
		if got != want {
			t.Fatalf("%s(%s, %s) = %s, want %s", name, a, b, got, want)
		}
		if k != value.IntWei && op != "<" {
			// The exported Arith agrees with the interpreter.
			if r, ok := interp.Arith(op[0], k, a.Bits(), b.Bits()); op != "min" && (!ok || value.Int(k, r).String() != want) {
				t.Fatalf("Arith %s %s %s = %d, %v", a, op, b, r, ok)
			}
		}
	})
}
