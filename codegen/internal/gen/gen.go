// Package gen generates random modules in the compiled scalar subset and
// random inputs for them, for the differential tests of the compiled
// backends against the interpreter.
package gen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Types of the subset, as written in source.
var Types = []string{"Bool", "I32", "I64", "Int", "U32", "U64"}

// Func describes a generated function.
type Func struct {
	Name   string
	Params []string // types
	Result string
}

// Module is a generated module.
type Module struct {
	Source string
	Funcs  []Func
}

type generator struct {
	r     *rand.Rand
	funcs []Func
	b     strings.Builder
	// per function
	vars  []variable
	depth int
	self  *Func
	fuel  int
}

type variable struct{ name, typ string }

// Generate builds a module of n functions from seed. Functions call only
// earlier functions, or themselves with a decreasing U64/U32 counter
// guarded by a base case, so every call terminates quickly.
func Generate(seed uint64, n int) *Module {
	g := &generator{r: rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))}
	g.b.WriteString("(module gen.m\n  (capsule \"1\")\n")
	for i := 0; i < n; i++ {
		g.function(i)
	}
	g.b.WriteString(")\n")
	return &Module{Source: g.b.String(), Funcs: g.funcs}
}

func (g *generator) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *generator) function(i int) {
	f := Func{Name: fmt.Sprintf("f%d", i), Result: g.pick(Types)}
	np := 1 + g.r.IntN(3)
	g.vars = nil
	for j := 0; j < np; j++ {
		t := g.pick(Types)
		f.Params = append(f.Params, t)
		g.vars = append(g.vars, variable{fmt.Sprintf("p%d", j), t})
	}
	recursive := g.r.IntN(4) == 0
	if recursive {
		// The first parameter is the counter.
		f.Params[0] = g.pick([]string{"U32", "U64"})
		g.vars[0].typ = f.Params[0]
	}
	g.self = &f
	fmt.Fprintf(&g.b, "  (function %s\n    (input", f.Name)
	for j, t := range f.Params {
		fmt.Fprintf(&g.b, " (p%d %s)", j, t)
	}
	fmt.Fprintf(&g.b, ")\n    (output %s)\n", f.Result)
	g.fuel = 12
	if g.r.IntN(5) == 0 {
		fmt.Fprintf(&g.b, "    (requires %s)\n", g.expr("Bool", 2))
	}
	if g.r.IntN(6) == 0 {
		g.vars = append(g.vars, variable{"result", f.Result})
		fmt.Fprintf(&g.b, "    (ensures %s)\n", g.expr("Bool", 2))
		g.vars = g.vars[:len(g.vars)-1]
	}
	g.fuel = 30
	var body string
	if recursive {
		// (if (< p0 LIMIT) (if (== p0 0) BASE (... (f (- p0 1) ...) ...)) BASE2)
		base := g.expr(f.Result, 2)
		args := []string{"(- p0 1)"}
		for j := 1; j < len(f.Params); j++ {
			args = append(args, g.expr(f.Params[j], 1))
		}
		rec := fmt.Sprintf("(%s %s)", f.Name, strings.Join(args, " "))
		step := g.combine(f.Result, rec)
		body = fmt.Sprintf("(if (> p0 40) %s (if (== p0 0) %s %s))", g.expr(f.Result, 1), base, step)
	} else {
		body = g.expr(f.Result, 4)
	}
	fmt.Fprintf(&g.b, "    (body %s))\n", body)
	g.funcs = append(g.funcs, f)
}

// combine uses the value of rec (of type t) in a larger expression.
func (g *generator) combine(t, rec string) string {
	switch t {
	case "Bool":
		return fmt.Sprintf(g.pick([]string{"(not %s)", "(and %s true)", "(or %s false)"}), rec)
	}
	ops := []string{"+", "-", "*", "max", "min"}
	return fmt.Sprintf("(%s %s %s)", g.pick(ops), rec, g.expr(t, 1))
}

func (g *generator) leaf(t string) string {
	var cands []string
	for _, v := range g.vars {
		if same(v.typ, t) {
			cands = append(cands, v.name)
		}
	}
	if len(cands) > 0 && g.r.IntN(3) != 0 {
		return g.pick(cands)
	}
	return g.literal(t)
}

func same(a, b string) bool {
	canon := func(s string) string {
		if s == "Int" {
			return "I64"
		}
		return s
	}
	return canon(a) == canon(b)
}

// literal returns an interesting literal of type t.
func (g *generator) literal(t string) string {
	switch t {
	case "Bool":
		return g.pick([]string{"true", "false"})
	case "I32":
		return g.pick([]string{"0", "1", "-1", "2", "7", "-7", "100", "2147483647", "-2147483648", "65536", "-3"})
	case "U32":
		return g.pick([]string{"0", "1", "2", "3", "10", "255", "4294967295", "2147483648", "65536"})
	case "U64":
		return g.pick([]string{"0", "1", "2", "5", "1000", "18446744073709551615", "9223372036854775808", "4294967296"})
	}
	return g.pick([]string{"0", "1", "-1", "2", "-2", "13", "9223372036854775807", "-9223372036854775808", "4294967296", "-1000"})
}

func (g *generator) expr(t string, depth int) string {
	g.fuel--
	if depth <= 0 || g.fuel <= 0 {
		return g.leaf(t)
	}
	if t != "Bool" && !g.hasVar(t) {
		// Without a variable of type t an expression would be made of
		// literals only, whose type the checker leaves at Int.
		return g.literal(t)
	}
	if t == "Bool" {
		switch g.r.IntN(7) {
		case 0:
			return g.leaf(t)
		case 1:
			it := g.pick(Types[1:])
			a, it := g.typed(it, depth-1)
			op := g.pick([]string{"<", "<=", ">", ">=", "==", "!="})
			return fmt.Sprintf("(%s %s %s)", op, a, g.expr(it, depth-1))
		case 2:
			return fmt.Sprintf("(%s %s %s)", g.pick([]string{"and", "or"}), g.expr("Bool", depth-1), g.expr("Bool", depth-1))
		case 3:
			return fmt.Sprintf("(not %s)", g.expr("Bool", depth-1))
		case 4:
			return fmt.Sprintf("(%s %s %s)", g.pick([]string{"==", "!="}), g.expr("Bool", depth-1), g.expr("Bool", depth-1))
		}
	}
	switch g.r.IntN(10) {
	case 0, 1:
		return g.leaf(t)
	case 2:
		return fmt.Sprintf("(if %s %s %s)", g.expr("Bool", depth-1), g.expr(t, depth-1), g.expr(t, depth-1))
	case 3:
		name := fmt.Sprintf("v%d", len(g.vars))
		val, vt := g.typed(g.pick(Types), depth-1)
		g.vars = append(g.vars, variable{name, vt})
		body := g.expr(t, depth-1)
		g.vars = g.vars[:len(g.vars)-1]
		return fmt.Sprintf("(let ((%s %s)) %s)", name, val, body)
	case 4:
		// A call of an earlier function whose result has type t.
		var cands []Func
		for _, f := range g.funcs {
			if same(f.Result, t) {
				cands = append(cands, f)
			}
		}
		if len(cands) > 0 {
			f := cands[g.r.IntN(len(cands))]
			var args []string
			for _, p := range f.Params {
				args = append(args, g.expr(p, depth-2))
			}
			return fmt.Sprintf("(%s %s)", f.Name, strings.Join(args, " "))
		}
		return g.leaf(t)
	case 5:
		if t == "Bool" {
			return g.leaf(t)
		}
		// match over an integer or Bool subject
		subj, st := g.typed(g.pick(Types), depth-1)
		var arms []string
		for i := 0; i < 1+g.r.IntN(3); i++ {
			arms = append(arms, fmt.Sprintf("(%s %s)", g.literal(st), g.expr(t, depth-1)))
		}
		switch g.r.IntN(3) {
		case 0:
			arms = append(arms, fmt.Sprintf("(_ %s)", g.expr(t, depth-1)))
		case 1:
			name := fmt.Sprintf("m%d", len(g.vars))
			g.vars = append(g.vars, variable{name, st})
			arms = append(arms, fmt.Sprintf("(%s %s)", name, g.expr(t, depth-1)))
			g.vars = g.vars[:len(g.vars)-1]
		}
		return fmt.Sprintf("(match %s %s)", subj, strings.Join(arms, " "))
	case 6:
		if t == "Bool" {
			return g.leaf(t)
		}
		a, _ := g.typed(t, depth-1)
		if strings.HasPrefix(t, "I") {
			return fmt.Sprintf("(abs %s)", a)
		}
		return fmt.Sprintf("(%s %s %s)", g.pick([]string{"min", "max"}), a, g.expr(t, depth-1))
	}
	if t == "Bool" {
		return g.leaf(t)
	}
	op := g.pick([]string{"+", "-", "*", "/", "%", "+", "-", "*"})
	a, _ := g.typed(t, depth-1)
	if g.r.IntN(2) == 0 {
		return fmt.Sprintf("(%s %s %s)", op, a, g.expr(t, depth-1))
	}
	return fmt.Sprintf("(%s %s %s)", op, g.expr(t, depth-1), a)
}

func (g *generator) hasVar(t string) bool {
	for _, v := range g.vars {
		if same(v.typ, t) {
			return true
		}
	}
	return false
}

// typed returns an expression whose checked type is t even without
// context: it starts from a variable of type t. Without one it falls back
// to Int, the type of an unconstrained literal.
func (g *generator) typed(t string, depth int) (string, string) {
	if t == "Bool" {
		return g.expr(t, depth), t
	}
	var cands []string
	for _, v := range g.vars {
		if same(v.typ, t) {
			cands = append(cands, v.name)
		}
	}
	if len(cands) == 0 {
		return g.expr("Int", depth), "Int"
	}
	v := g.pick(cands)
	if depth <= 0 || g.r.IntN(2) == 0 {
		return v, t
	}
	return fmt.Sprintf("(%s %s %s)", g.pick([]string{"+", "-", "*", "max"}), v, g.expr(t, depth-1)), t
}

// Inputs returns n random argument lists for f, written as source
// literals, biased toward boundary values.
func Inputs(seed uint64, f Func, n int) [][]string {
	r := rand.New(rand.NewPCG(seed, 7))
	g := &generator{r: r}
	var out [][]string
	for i := 0; i < n; i++ {
		var args []string
		for j, t := range f.Params {
			if j == 0 && (t == "U32" || t == "U64") && r.IntN(2) == 0 {
				args = append(args, fmt.Sprint(r.IntN(45)))
				continue
			}
			if r.IntN(2) == 0 {
				args = append(args, g.literal(t))
				continue
			}
			args = append(args, randomValue(r, t))
		}
		out = append(out, args)
	}
	return out
}

func randomValue(r *rand.Rand, t string) string {
	switch t {
	case "Bool":
		return fmt.Sprint(r.IntN(2) == 0)
	case "I32":
		return fmt.Sprint(int32(r.Uint32()))
	case "U32":
		return fmt.Sprint(r.Uint32())
	case "U64":
		return fmt.Sprint(r.Uint64())
	}
	return fmt.Sprint(int64(r.Uint64()))
}
