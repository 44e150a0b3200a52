package cond

import (
	"math/rand"
	"testing"
)

// TestProgramAgreesWithEval: a compiled condition gives the same answer
// (or fails) exactly when Eval does, over random inputs.
func TestProgramAgreesWithEval(t *testing.T) {
	env := NewEnv()
	env.Define("effect", Text)
	env.Define("context.amount", Int)
	env.Define("context.ok", Bool)
	env.Define("context.tier", Text)
	env.Alias("amount", "context.amount")
	env.Alias("ok", "context.ok")
	env.Alias("tier", "context.tier")
	slots := map[string]int{"effect": 0, "context.amount": 1, "context.ok": 2, "context.tier": 3}
	srcs := []string{
		`effect == "a" and amount > 5`,
		`effect != "a" or not (amount <= -3)`,
		`ok`,
		`not ok and tier == "gold"`,
		`(amount >= 0) == ok`,
		`amount < 10 and amount > 2 or tier != "x" and ok`,
		`true`,
		`1 > 2`,
		`ok == false`,
	}
	rng := rand.New(rand.NewSource(3))
	texts := []string{"a", "b", "gold", "x", ""}
	runs := 0
	for _, src := range srcs {
		x, perr := Parse(src)
		if perr != nil {
			t.Fatalf("%s: %v", src, perr)
		}
		if errs := Check(x, env, nil); len(errs) > 0 {
			t.Fatalf("%s: %v", src, errs[0])
		}
		prog, err := Compile(x, env, func(p string) (int, bool) { k, ok := slots[p]; return k, ok })
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		for n := 0; n < 300; n++ {
			in := []Value{TextValue(texts[rng.Intn(len(texts))]), IntValue(int64(rng.Intn(30) - 10)), BoolValue(rng.Intn(2) == 0), TextValue(texts[rng.Intn(len(texts))])}
			if rng.Intn(10) == 0 {
				in[rng.Intn(len(in))] = Value{} // a missing value
			}
			get := func(p string) (Value, bool) {
				k, ok := slots[p]
				if !ok || in[k].K == Invalid {
					return Value{}, false
				}
				return in[k], true
			}
			want, werr := Eval(x, env, get)
			got, gerr := prog.Run(in)
			if (werr != nil) != (gerr != nil) || werr == nil && got != want {
				t.Fatalf("%s on %v: Run %v (%v), Eval %v (%v)", src, in, got, gerr, want, werr)
			}
			runs++
		}
	}
	t.Logf("%d evaluations agree", runs)
}
