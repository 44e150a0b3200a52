// Package lean writes the pure scalar subset of Capsule Core (package
// codegen/core) as Lean 4 definitions that state the interpreter's
// semantics.
//
// Encoding (docs/codegen.md):
//
//   - every integer is a Lean Int kept in its type's range; after + - *
//     the result is brought back into range by an explicit wrap function
//     of its width (capsWrapI32, capsWrapI64, capsWrapU32, capsWrapU64),
//     which is the interpreter's wrap-around; Bool is Bool;
//   - division and remainder truncate toward zero (capsTDiv, capsTMod,
//     defined from Nat division so that they do not depend on the names
//     of Int's division variants), and MIN / -1 wraps to MIN;
//   - a function returns Except String T: a zero divisor, a failed
//     requires or ensures and a match without a matching arm are errors
//     naming the interpreter's error kind and the site; the depth and step
//     budgets are not modelled;
//   - a function that calls itself, directly or through others, is a
//     partial def (in a mutual block when several call each other); the
//     others are plain defs, so that Lean can unfold them in proofs.
//
// No Lean toolchain is needed to write the file; whether it was checked is
// reported separately (Check), never assumed.
package lean

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/capsulang/caps/codegen/core"
)

// UncheckedMarker starts the header line of a file no Lean checked.
const UncheckedMarker = "-- caps: UNCHECKED"

var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`abbrev at attribute axiom by calc class deriving do else end example export fun have if import in inductive infix instance let local match mutual namespace noncomputable open opaque partial private protected def return section set_option show structure syntax then theorem universe variable where with from for unless mut break continue true false Type Prop Sort fun λ Int Nat Bool String Except pure bind`) {
		reserved[w] = true
	}
}

// Name returns the Lean name of a Capsulang name: itself when it is a
// plain identifier Lean does not reserve, else written with «».
func Name(s string) string {
	ok := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '\'')) {
			ok = false
		}
	}
	if ok && !reserved[s] && !strings.HasPrefix(s, "caps") {
		return s
	}
	return "«" + s + "»"
}

func typeName(k core.Kind) string {
	if k == core.Bool {
		return "Bool"
	}
	return "Int"
}

func wrapFn(k core.Kind) string {
	return map[core.Kind]string{core.I32: "capsWrapI32", core.I64: "capsWrapI64", core.U32: "capsWrapU32", core.U64: "capsWrapU64"}[k]
}

// constant writes a constant in canonical bits as a Lean term.
func constant(k core.Kind, bits uint64) string {
	switch k {
	case core.Bool:
		if bits != 0 {
			return "true"
		}
		return "false"
	case core.I32, core.I64:
		return "(" + strconv.FormatInt(int64(bits), 10) + " : Int)"
	}
	return "(" + strconv.FormatUint(bits, 10) + " : Int)"
}

const prelude = `/-- Wrap-around: x brought into [lo, lo + m) (Int's % is the Euclidean
remainder, never negative for m > 0). -/
def capsWrap (m lo x : Int) : Int := (x - lo) % m + lo

def capsWrapI32 (x : Int) : Int := capsWrap 4294967296 (-2147483648) x
def capsWrapI64 (x : Int) : Int := capsWrap 18446744073709551616 (-9223372036854775808) x
def capsWrapU32 (x : Int) : Int := capsWrap 4294967296 0 x
def capsWrapU64 (x : Int) : Int := capsWrap 18446744073709551616 0 x

/-- Division truncating toward zero, from Nat division. -/
def capsTDiv (a b : Int) : Int :=
  let q : Int := ((a.natAbs / b.natAbs : Nat) : Int)
  if decide (a < 0) == decide (b < 0) then q else -q

/-- The remainder of capsTDiv: it takes the dividend's sign. -/
def capsTMod (a b : Int) : Int := a - b * capsTDiv a b
`

// Options tune the output.
type Options struct {
	// Header is added as comment lines after the marker line.
	Header []string
}

// Compile writes the Lean file of m. checked is the status line (see
// Check); the file starts with UncheckedMarker unless checked is true.
func Compile(m *core.Module, place func(*core.Site) string) (string, error) {
	if len(m.Funcs) == 0 {
		return "", fmt.Errorf("no function to compile")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: written by caps compile --target lean from module %s; no Lean\n", UncheckedMarker, m.Name)
	b.WriteString("-- toolchain has checked this file unless caps compile reports \"checked\".\n")
	b.WriteString("-- Integers are Int kept in their type's range; every function returns\n")
	b.WriteString("-- Except String T, an error naming the interpreter's error kind and site.\n\n")
	ns := writeDefs(&b, m, place)
	fmt.Fprintf(&b, "\nend %s\n", ns)
	return b.String(), nil
}

// Namespace returns the Lean namespace of module m's definitions.
func Namespace(m *core.Module) string { return Name(strings.ReplaceAll(m.Name, ".", "_")) }

// writeDefs opens m's namespace and writes the prelude and every
// function's definition; it returns the namespace, left open.
func writeDefs(b *strings.Builder, m *core.Module, place func(*core.Site) string) string {
	ns := Namespace(m)
	fmt.Fprintf(b, "namespace %s\n\n", ns)
	b.WriteString(prelude)
	if len(m.Sites) > 0 {
		b.WriteString("\n/- Sites:\n")
		for _, s := range m.Sites {
			if s.Kind == core.SiteCall {
				continue
			}
			where := ""
			if place != nil {
				where = " at " + place(s)
			}
			fmt.Fprintf(b, "  %d: %s in %s%s\n", s.ID, s.Kind, s.Func, where)
		}
		b.WriteString("-/\n")
	}
	if len(m.Skipped) > 0 {
		b.WriteString("\n/- Not compiled (outside the subset; caps compile-plan says why):\n")
		for _, u := range m.Unsupported {
			fmt.Fprintf(b, "  %s: %s\n", u.Func, u.Feature)
		}
		b.WriteString("-/\n")
	}
	for _, scc := range sccs(m) {
		recursive := len(scc) > 1 || callsItself(m, scc[0])
		if len(scc) > 1 {
			b.WriteString("\nmutual\n")
		}
		for _, fi := range scc {
			b.WriteString("\n")
			g := &funcGen{m: m, f: m.Funcs[fi], ns: ns}
			kw := "def"
			if recursive {
				kw = "partial def"
			}
			b.WriteString(g.gen(kw))
		}
		if len(scc) > 1 {
			b.WriteString("\nend\n")
		}
	}
	return ns
}

// calls lists the functions f calls.
func calls(e core.Expr, out map[int]bool) {
	switch e := e.(type) {
	case *core.Bin:
		calls(e.A, out)
		calls(e.B, out)
	case *core.Not:
		calls(e.X, out)
	case *core.And:
		calls(e.A, out)
		calls(e.B, out)
	case *core.Or:
		calls(e.A, out)
		calls(e.B, out)
	case *core.If:
		calls(e.Cond, out)
		calls(e.Then, out)
		calls(e.Else, out)
	case *core.Let:
		calls(e.Value, out)
		calls(e.Body, out)
	case *core.Seq:
		for _, x := range e.Exprs {
			calls(x, out)
		}
	case *core.Call:
		out[e.Func] = true
		for _, a := range e.Args {
			calls(a, out)
		}
	case *core.Trap:
		calls(e.Value, out)
	}
}

func callees(f *core.Func) map[int]bool {
	out := map[int]bool{}
	calls(f.Body, out)
	for _, c := range f.Requires {
		calls(c.Cond, out)
	}
	for _, c := range f.Ensures {
		calls(c.Cond, out)
	}
	return out
}

func callsItself(m *core.Module, fi int) bool { return callees(m.Funcs[fi])[fi] }

// sccs returns the call graph's strongly connected components, callees
// before callers (Tarjan's algorithm), each in source order.
func sccs(m *core.Module) [][]int {
	n := len(m.Funcs)
	edges := make([][]int, n)
	for i, f := range m.Funcs {
		for c := range callees(f) {
			edges[i] = append(edges[i], c)
		}
		sort.Ints(edges[i])
	}
	index, low := make([]int, n), make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range edges[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			sort.Ints(comp)
			out = append(out, comp)
		}
	}
	for v := 0; v < n; v++ {
		if index[v] < 0 {
			visit(v)
		}
	}
	return out
}

type funcGen struct {
	m     *core.Module
	f     *core.Func
	tmp   int
	ns    string         // the namespace
	names map[int]string // slots named after their parameter
}

var generated = regexp.MustCompile(`^[lt][0-9]+$`)

// paramNames names each parameter's slot after the parameter when that
// is a plain Lean identifier that no generated name can take.
func (g *funcGen) paramNames() {
	g.names = map[int]string{}
	used := map[string]bool{}
	for i, p := range g.f.Params {
		n := Name(p.Name)
		if n != p.Name || generated.MatchString(n) || used[n] || n == "result" {
			continue
		}
		used[n] = true
		g.names[i] = n
	}
}

func (g *funcGen) slot(i int) string {
	if n, ok := g.names[i]; ok {
		return n
	}
	return slot(i)
}

// step is one element of a monadic sequence.
type step struct {
	kind byte // 'b' bind (name ← term), 'l' let (name := term), 'g' guard (if cond then error), 'f' false (if cond then pure false)
	name string
	term string
	err  string
}

func (g *funcGen) gen(kw string) string {
	f := g.f
	g.paramNames()
	var params []string
	for i, p := range f.Params {
		params = append(params, fmt.Sprintf("(%s : %s)", g.slot(i), typeName(p.K)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "/-- %s, compiled from Capsulang. -/\n", f.Name)
	fmt.Fprintf(&b, "%s %s %s : Except String %s :=\n", kw, Name(f.Name), strings.Join(params, " "), typeName(f.Result))
	var steps []step
	for _, r := range f.Requires {
		st, x := g.expr(r.Cond)
		steps = append(steps, st...)
		steps = append(steps, step{kind: 'g', term: "!(" + x + ")", err: g.errText(r.Site)})
	}
	st, x := g.expr(f.Body)
	steps = append(steps, st...)
	if len(f.Ensures) > 0 {
		steps = append(steps, step{kind: 'l', name: g.slot(f.ResultSlot), term: x})
		for _, e := range f.Ensures {
			st, c := g.expr(e.Cond)
			steps = append(steps, st...)
			steps = append(steps, step{kind: 'g', term: "!(" + c + ")", err: g.errText(e.Site)})
		}
		x = g.slot(f.ResultSlot)
	}
	b.WriteString("  " + assemble(steps, "pure "+paren(x), "  ") + "\n")
	return b.String()
}

func (g *funcGen) errText(site int) string {
	s := g.m.Sites[site]
	return fmt.Sprintf("%s at site %d in %s", s.Kind, s.ID, s.Func)
}

// assemble nests steps around final, one step a line.
func assemble(steps []step, final, indent string) string {
	if len(steps) == 0 {
		return final
	}
	s := steps[0]
	rest := assemble(steps[1:], final, indent)
	switch s.kind {
	case 'b':
		return fmt.Sprintf("%s >>= fun %s =>\n%s%s", paren(s.term), s.name, indent, rest)
	case 'l':
		return fmt.Sprintf("let %s := %s\n%s%s", s.name, s.term, indent, rest)
	case 'f':
		return fmt.Sprintf("if %s then pure false else\n%s%s", s.term, indent, rest)
	}
	return fmt.Sprintf("if %s then Except.error %q else\n%s%s", s.term, s.err, indent, rest)
}

func paren(s string) string {
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && balanced(s[1:len(s)-1]) {
		return s
	}
	if !strings.ContainsAny(s, " \n") {
		return s
	}
	return "(" + s + ")"
}

func balanced(s string) bool {
	d := 0
	for _, r := range s {
		switch r {
		case '(':
			d++
		case ')':
			d--
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

func slot(i int) string { return "l" + strconv.Itoa(i) }

func (g *funcGen) newTemp() string {
	g.tmp++
	return "t" + strconv.Itoa(g.tmp)
}

// expr compiles e into steps and a pure Lean term of its value.
func (g *funcGen) expr(e core.Expr) ([]step, string) {
	switch e := e.(type) {
	case *core.Const:
		return nil, constant(e.K, e.Bits)
	case *core.Local:
		return nil, g.slot(e.Index)
	case *core.Not:
		st, x := g.expr(e.X)
		return st, "!" + paren(x)
	case *core.And, *core.Or:
		var a, bb core.Expr
		op, short := "&&", "false"
		if x, ok := e.(*core.And); ok {
			a, bb = x.A, x.B
		} else {
			x := e.(*core.Or)
			a, bb, op, short = x.A, x.B, "||", "true"
		}
		sa, xa := g.expr(a)
		sb, xb := g.expr(bb)
		if len(sb) == 0 {
			return sa, "(" + paren(xa) + " " + op + " " + paren(xb) + ")"
		}
		t := g.newTemp()
		inner := "(" + assemble(sb, "pure "+paren(xb), "    ") + ")"
		term := fmt.Sprintf("if %s then %s else pure %s", paren(xa), inner, short)
		if op == "||" {
			term = fmt.Sprintf("if %s then pure %s else %s", paren(xa), short, inner)
		}
		return append(sa, step{kind: 'b', name: t, term: term}), t
	case *core.Bin:
		sa, xa := g.expr(e.A)
		sb, xb := g.expr(e.B)
		st := append(append([]step{}, sa...), sb...)
		a, b := paren(xa), paren(xb)
		switch e.Op {
		case core.Add, core.Sub, core.Mul:
			return st, fmt.Sprintf("(%s (%s %s %s))", wrapFn(e.K), a, map[core.Op]string{core.Add: "+", core.Sub: "-", core.Mul: "*"}[e.Op], b)
		case core.Div, core.Rem:
			if !simple(xb) {
				t := g.newTemp()
				st = append(st, step{kind: 'l', name: t, term: xb})
				b = t
			}
			if c, ok := e.B.(*core.Const); !ok || c.Bits == 0 {
				st = append(st, step{kind: 'g', term: fmt.Sprintf("%s == 0", b), err: g.errText(e.Site)})
			}
			fn := "capsTDiv"
			if e.Op == core.Rem {
				fn = "capsTMod"
			}
			return st, fmt.Sprintf("(%s (%s %s %s))", wrapFn(e.K), fn, a, b)
		case core.Eq:
			return st, fmt.Sprintf("(%s == %s)", a, b)
		case core.Ne:
			return st, fmt.Sprintf("(%s != %s)", a, b)
		}
		op := map[core.Op]string{core.Lt: "<", core.Le: "≤", core.Gt: ">", core.Ge: "≥"}[e.Op]
		return st, fmt.Sprintf("(decide (%s %s %s))", a, op, b)
	case *core.If:
		sc, xc := g.expr(e.Cond)
		st, xt := g.expr(e.Then)
		se, xe := g.expr(e.Else)
		if len(st) == 0 && len(se) == 0 {
			return sc, fmt.Sprintf("(if %s then %s else %s)", xc, xt, xe)
		}
		t := g.newTemp()
		term := fmt.Sprintf("if %s then (%s) else (%s)", xc, assemble(st, "pure "+paren(xt), "    "), assemble(se, "pure "+paren(xe), "    "))
		return append(sc, step{kind: 'b', name: t, term: term}), t
	case *core.Let:
		sv, xv := g.expr(e.Value)
		st := append(append([]step{}, sv...), step{kind: 'l', name: g.slot(e.Index), term: xv})
		sb, xb := g.expr(e.Body)
		return append(st, sb...), xb
	case *core.Seq:
		var st []step
		var x string
		for _, s := range e.Exprs {
			ss, xs := g.expr(s)
			st = append(st, ss...)
			x = xs
		}
		return st, x
	case *core.Call:
		var st []step
		var args []string
		for _, a := range e.Args {
			sa, xa := g.expr(a)
			st = append(st, sa...)
			args = append(args, paren(xa))
		}
		t := g.newTemp()
		// Qualified, so that a function named like a Lean built-in
		// (max, min, gcd) is never ambiguous.
		return append(st, step{kind: 'b', name: t, term: g.ns + "." + Name(g.m.Funcs[e.Func].Name) + " " + strings.Join(args, " ")}), t
	case *core.Trap:
		sv, _ := g.expr(e.Value)
		t := g.newTemp()
		return append(sv, step{kind: 'b', name: t, term: fmt.Sprintf("(Except.error %q : Except String %s)", g.errText(e.Site), typeName(e.K))}), t
	}
	panic(fmt.Sprintf("lean: unexpected expression %T", e))
}

func simple(x string) bool {
	return !strings.ContainsAny(x, " ") || strings.HasSuffix(x, ": Int)") && strings.Count(x, " ") == 2
}

// Status says whether a Lean toolchain checked a file.
type Status struct {
	Checked bool   `json:"checked"`
	Tool    string `json:"tool,omitempty"`
	Detail  string `json:"detail"`
}

// Check runs `lean FILE` on the source when a Lean toolchain (LEAN, else
// lean on PATH) is present. Without one it says so: the file is unchecked.
func Check(src string) Status {
	tool := os.Getenv("LEAN")
	if tool == "" {
		tool = "lean"
	}
	path, err := exec.LookPath(tool)
	if err != nil {
		return Status{Detail: "unchecked: no Lean toolchain was found (lean is not on PATH and LEAN is not set); nothing was checked"}
	}
	dir, err := os.MkdirTemp("", "caps-lean-")
	if err != nil {
		return Status{Tool: path, Detail: "unchecked: " + err.Error()}
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "Capsule.lean")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		return Status{Tool: path, Detail: "unchecked: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, file)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return Status{Tool: path, Detail: fmt.Sprintf("failed: lean rejected the file (%v): %s", err, strings.TrimSpace(out.String()))}
	}
	return Status{Checked: true, Tool: path, Detail: "checked: lean accepted the file"}
}
