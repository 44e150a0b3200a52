package lean

import (
	"fmt"
	"strings"

	"github.com/capsulang/caps/codegen/core"
)

// Goal is one proof obligation of a function to state in Lean (the
// obligations of package analysis/verify).
type Goal struct {
	// ID is the obligation's stable id; Where its source range and Claim
	// its source text, both written in the theorem's comment.
	ID    string
	Where string
	Claim string
	// Kind is "ensures", "no-failure" or "example"; Func the function;
	// Index the clause or example number.
	Kind  string
	Func  string
	Index int
	// Args and Expected are an example's arguments and value as Lean
	// terms.
	Args     []string
	Expected string
	// Skip, when set, is why the goal is not stated (it is listed with
	// this reason at the end of the file).
	Skip string
}

// Stated is what Obligations did with one goal.
type Stated struct {
	ID string
	// Theorem is the theorem's full Lean name; empty when the goal is not
	// stated, and Reason says why.
	Theorem string
	Reason  string
}

// ProofMarker is the proof every stated theorem gets: an obligation, not
// a proof, until someone replaces it and Lean accepts the file.
const ProofMarker = "sorry"

// Obligations writes one Lean file holding the definitions caps compile
// --target lean writes for m, then, for each function goal, the
// definitions of its parts and a theorem that states it, proved by
// sorry. Goals of functions outside the Lean subset are not stated; the
// result says so, goal by goal, in goals' order.
//
// The statements:
//
//   - ensures N: for all inputs in their types' ranges whose requires hold
//     (f.pre = ok true) and for which the body returns r (f.body = ok r),
//     the clause holds (f.post_N inputs r = ok true);
//   - no-failure: for those inputs the body returns some value;
//   - example N: f applied to the arguments returns ok of the value.
//
// f.pre, f.body and f.post_N are compiled like f itself, from the same
// Capsule Core, so that a call inside them is a call of the definition
// caps compile writes.
func Obligations(m *core.Module, place func(*core.Site) string, header []string, goals []Goal) (string, []Stated) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: written by caps emit-lean-obligations from module %s.\n", UncheckedMarker, m.Name)
	b.WriteString("-- Every theorem below is an obligation, not a proof: it ends in sorry\n")
	b.WriteString("-- until someone proves it, and caps verify-lean reports it open until\n")
	b.WriteString("-- Lean accepts the file with no sorry, admit or axiom left in it.\n")
	for _, h := range header {
		b.WriteString("-- " + h + "\n")
	}
	b.WriteString("\n")
	stated := make([]Stated, len(goals))
	byFunc := map[string][]int{}
	var order []string
	for i, g := range goals {
		stated[i].ID = g.ID
		if g.Skip != "" {
			stated[i].Reason = g.Skip
			continue
		}
		fi := m.FuncIndex(g.Func)
		if fi < 0 {
			stated[i].Reason = "function " + g.Func + " is outside the Lean target's subset (caps compile-plan says why)"
			continue
		}
		if _, ok := byFunc[g.Func]; !ok {
			order = append(order, g.Func)
		}
		byFunc[g.Func] = append(byFunc[g.Func], i)
	}
	var ns string
	if len(m.Funcs) > 0 {
		ns = writeDefs(&b, m, place)
	} else {
		ns = Namespace(m)
		fmt.Fprintf(&b, "namespace %s\n", ns)
	}
	b.WriteString(rangesPrelude)
	for _, fname := range order {
		fi := m.FuncIndex(fname)
		f := m.Funcs[fi]
		g := &funcGen{m: m, f: f, ns: ns}
		g.paramNames()
		fmt.Fprintf(&b, "\n/-! Obligations of %s -/\n", f.Name)
		if callsItself(m, fi) || inCycle(m, fi) {
			fmt.Fprintf(&b, "-- %s is recursive, a partial def: Lean cannot unfold it, so these\n-- statements about it need a total definition before they can be proved.\n", f.Name)
		}
		b.WriteString("\n" + g.parts())
		for _, i := range byFunc[fname] {
			goal := goals[i]
			name, text := g.theorem(goal)
			if name == "" {
				stated[i].Reason = "obligations of kind " + goal.Kind + " are not stated in Lean"
				continue
			}
			stated[i].Theorem = ns + "." + name
			fmt.Fprintf(&b, "\n/-- %s\n    at %s: %s -/\n%s", comment(goal.ID), comment(goal.Where), comment(goal.Claim), text)
		}
	}
	var open []string
	for i, s := range stated {
		if s.Theorem == "" {
			open = append(open, fmt.Sprintf("  %s: %s", comment(goals[i].ID), comment(s.Reason)))
		}
	}
	if len(open) > 0 {
		b.WriteString("\n/- Not stated here:\n" + strings.Join(open, "\n") + "\n-/\n")
	}
	fmt.Fprintf(&b, "\nend %s\n", ns)
	return b.String(), stated
}

// rangesPrelude defines the range of each integer type, the hypotheses
// of the statements.
const rangesPrelude = `
/-- The ranges of the integer types: a value of the type is an Int in it. -/
def capsInI32 (x : Int) : Prop := -2147483648 ≤ x ∧ x < 2147483648
def capsInI64 (x : Int) : Prop := -9223372036854775808 ≤ x ∧ x < 9223372036854775808
def capsInU32 (x : Int) : Prop := 0 ≤ x ∧ x < 4294967296
def capsInU64 (x : Int) : Prop := 0 ≤ x ∧ x < 18446744073709551616
`

func inRange(k core.Kind) string {
	return map[core.Kind]string{core.I32: "capsInI32", core.I64: "capsInI64", core.U32: "capsInU32", core.U64: "capsInU64"}[k]
}

// inCycle reports whether fi calls itself through other functions.
func inCycle(m *core.Module, fi int) bool {
	for _, scc := range sccs(m) {
		for _, x := range scc {
			if x == fi {
				return len(scc) > 1
			}
		}
	}
	return false
}

// partName is the Lean name of a part of f: f.pre, f.body, f.post_N.
func (g *funcGen) partName(part string) string { return Name(g.f.Name) + "." + part }

// params writes the parameter binders of f.
func (g *funcGen) params() []string {
	var ps []string
	for i, p := range g.f.Params {
		ps = append(ps, fmt.Sprintf("(%s : %s)", g.slot(i), typeName(p.K)))
	}
	return ps
}

// parts writes f.pre (every requires holds, in order), f.body (the body's
// value) and f.post_N (the N-th ensures, of the inputs and the result).
func (g *funcGen) parts() string {
	f := g.f
	ps := strings.Join(g.params(), " ")
	if ps != "" {
		ps = " " + ps
	}
	var b strings.Builder
	var steps []step
	for _, r := range f.Requires {
		st, x := g.expr(r.Cond)
		steps = append(steps, st...)
		steps = append(steps, step{kind: 'f', term: "!(" + x + ")"})
	}
	fmt.Fprintf(&b, "/-- The requires of %s: true when every clause holds. -/\n", f.Name)
	fmt.Fprintf(&b, "def %s%s : Except String Bool :=\n  %s\n", g.partName("pre"), ps, assemble(steps, "pure true", "  "))
	st, x := g.expr(f.Body)
	fmt.Fprintf(&b, "\n/-- The body of %s, without its contracts. -/\n", f.Name)
	fmt.Fprintf(&b, "def %s%s : Except String %s :=\n  %s\n", g.partName("body"), ps, typeName(f.Result), assemble(st, "pure "+paren(x), "  "))
	for i, e := range f.Ensures {
		st, c := g.expr(e.Cond)
		fmt.Fprintf(&b, "\n/-- The ensures %d of %s, of the inputs and the result. -/\n", i, f.Name)
		fmt.Fprintf(&b, "def %s%s (%s : %s) : Except String Bool :=\n  %s\n", g.partName(fmt.Sprintf("post_%d", i)), ps, g.slot(f.ResultSlot), typeName(f.Result), assemble(st, "pure "+paren(c), "  "))
	}
	return b.String()
}

// theorem states one goal; it returns its name in the namespace and its
// text, or "" for a kind it does not state.
func (g *funcGen) theorem(goal Goal) (string, string) {
	f := g.f
	var names, hyps []string
	for i, p := range f.Params {
		names = append(names, g.slot(i))
		if r := inRange(p.K); r != "" {
			hyps = append(hyps, r+" "+g.slot(i))
		}
	}
	args := strings.Join(names, " ")
	forall := ""
	if len(f.Params) > 0 {
		forall = "∀ " + strings.Join(g.params(), " ") + ",\n    "
		for _, h := range hyps {
			forall += h + " → "
		}
	}
	call := func(part string) string {
		if args == "" {
			return g.partName(part)
		}
		return g.partName(part) + " " + args
	}
	res := "result"
	if g.names != nil {
		for _, n := range g.names {
			if n == res {
				res = "result'"
			}
		}
	}
	switch goal.Kind {
	case "ensures":
		if goal.Index < 0 || goal.Index >= len(f.Ensures) {
			return "", ""
		}
		name := g.partName(fmt.Sprintf("ensures_%d", goal.Index))
		return name, fmt.Sprintf("theorem %s :\n    %s%s = Except.ok true →\n    ∀ (%s : %s), %s = Except.ok %s →\n    %s %s = Except.ok true := by\n  %s\n",
			name, forall, call("pre"), res, typeName(f.Result), call("body"), res, call(fmt.Sprintf("post_%d", goal.Index)), res, ProofMarker)
	case "no-failure":
		name := g.partName("no_failure")
		return name, fmt.Sprintf("theorem %s :\n    %s%s = Except.ok true →\n    ∃ (%s : %s), %s = Except.ok %s := by\n  %s\n",
			name, forall, call("pre"), res, typeName(f.Result), call("body"), res, ProofMarker)
	case "example":
		if len(goal.Args) != len(f.Params) || goal.Expected == "" {
			return "", ""
		}
		name := g.partName(fmt.Sprintf("example_%d", goal.Index))
		app := g.ns + "." + Name(f.Name)
		if len(goal.Args) > 0 {
			app += " " + strings.Join(goal.Args, " ")
		}
		return name, fmt.Sprintf("theorem %s :\n    %s = Except.ok %s := by\n  %s\n", name, app, goal.Expected, ProofMarker)
	}
	return "", ""
}

// comment makes text safe inside a Lean block comment.
func comment(s string) string {
	s = strings.ReplaceAll(s, "-/", "- /")
	return strings.ReplaceAll(s, "/-", "/ -")
}
