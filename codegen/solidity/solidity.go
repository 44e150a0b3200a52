// Package solidity compiles the pure scalar subset of Capsule Core
// (package codegen/core) to one Solidity contract.
//
// ABI (docs/codegen.md):
//
//   - every compiled function is an external pure function of the
//     contract under its Capsulang name (a name Solidity reserves gets the
//     prefix caps_); Bool is bool, I32 int32, I64 and Int int64, U32
//     uint32, U64 uint64;
//   - the external function calls an internal one that takes one more
//     parameter, the remaining depth budget, as the interpreter counts
//     nested calls (DefaultMaxDepth, 10000, unless the contract is
//     generated with another budget);
//   - every body runs inside unchecked { }: integer operations wrap at
//     their type's width exactly as the interpreter's do, signed division
//     truncates toward zero, MIN / -1 is MIN and MIN % -1 is 0;
//   - a trap (division or remainder by zero, a failed requires or
//     ensures, a match without a matching arm, the depth budget) reverts
//     with the custom error CapsTrap(uint32 site); the generated source
//     lists every site with its kind and source line, and Module.Sites
//     maps the number back to the place the interpreter reports;
//   - the EVM, not the interpreter, bounds how deep recursion can go: an
//     internal call takes stack slots, and the EVM stack holds 1024, so
//     recursion some hundreds of calls deep (about 1000 for a function of
//     one parameter compiled with solc --via-ir) halts with a stack
//     overflow, which fails the call without CapsTrap data, before the
//     default depth budget is reached.
//
// Evaluation order is the interpreter's, left to right: every operation
// that can trap or call is hoisted into a statement, in order, and only
// side-effect-free expressions are left to Solidity, whose own operand
// order is unspecified.
package solidity

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/runtime/interp"
)

// Pragma is the Solidity version range the contract declares; the tests
// compile it with the solc pinned in testdata/solc.
const Pragma = "^0.8.4"

// ErrorSignature is the custom error every trap reverts with.
const ErrorSignature = "CapsTrap(uint32)"

// Options tune the generated contract.
type Options struct {
	// MaxDepth is the depth budget (0: the interpreter's default).
	MaxDepth int
	// Contract names the contract (default: the module name, with every
	// character Solidity does not allow in a name replaced by _).
	Contract string
}

// Contract is a compiled module.
type Contract struct {
	Name   string
	Source string
	Core   *core.Module
	// Exports maps each compiled function to its Solidity name.
	Exports map[string]string
}

var ident = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved lists the Solidity keywords and built-in names a Capsulang
// function or parameter could be named.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`abstract after alias anonymous apply as assembly auto bool break byte bytes calldata case catch constant constructor continue contract copyof default define delete do else emit enum error event external fallback false final fixed for from function global hex if immutable implements import in indexed inline interface internal is let library macro mapping match memory modifier mutable new null of override partial payable pragma private promise public pure receive reference relocatable return returns revert sealed sizeof static storage string struct super supports switch this throw true try type typedef typeof ufixed unchecked unicode using var view virtual while wei gwei ether seconds minutes hours days weeks years abi block blockhash gasleft msg tx now selfdestruct addmod mulmod keccak256 sha256 ripemd160 ecrecover assert require int uint address`) {
		reserved[w] = true
	}
	for _, n := range []int{8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256} {
		reserved["int"+strconv.Itoa(n)] = true
		reserved["uint"+strconv.Itoa(n)] = true
	}
	for n := 1; n <= 32; n++ {
		reserved["bytes"+strconv.Itoa(n)] = true
	}
}

// Name returns the Solidity name of a Capsulang name: itself when it is a
// valid Solidity identifier that Solidity does not reserve, else caps_
// followed by the name with every other character replaced by _.
func Name(s string) string {
	if ident.MatchString(s) && !reserved[s] && !strings.HasPrefix(s, "caps_") && !strings.HasPrefix(s, "_") {
		return s
	}
	var b strings.Builder
	b.WriteString("caps_")
	for _, r := range s {
		if r < 128 && (r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// TypeName is the Solidity type of a kind.
func TypeName(k core.Kind) string {
	switch k {
	case core.Bool:
		return "bool"
	case core.I32:
		return "int32"
	case core.I64:
		return "int64"
	case core.U32:
		return "uint32"
	case core.U64:
		return "uint64"
	}
	panic("solidity: no type for " + k.String())
}

// Const writes a constant of kind k in its canonical bits (core.Wrap).
func Const(k core.Kind, bits uint64) string {
	switch k {
	case core.Bool:
		if bits != 0 {
			return "true"
		}
		return "false"
	case core.I32, core.I64:
		return TypeName(k) + "(" + strconv.FormatInt(int64(bits), 10) + ")"
	}
	return TypeName(k) + "(" + strconv.FormatUint(bits, 10) + ")"
}

// Compile writes the contract for m. Lines is a function that turns a
// site into "line N" text for the comments (nil: no places).
func Compile(m *core.Module, opts Options, place func(*core.Site) string) (*Contract, error) {
	if len(m.Funcs) == 0 {
		return nil, fmt.Errorf("no function to compile")
	}
	maxDepth := opts.MaxDepth
	if maxDepth <= 0 {
		maxDepth = interp.DefaultMaxDepth
	}
	name := opts.Contract
	if name == "" {
		name = Name(strings.ReplaceAll(m.Name, ".", "_"))
		if name == "" || name == "caps_" {
			name = "Capsule"
		}
	}
	c := &Contract{Name: name, Core: m, Exports: map[string]string{}}
	var b strings.Builder
	fmt.Fprintf(&b, "// SPDX-License-Identifier: UNLICENSED\n")
	fmt.Fprintf(&b, "// Generated by caps compile --target solidity from module %s.\n", m.Name)
	fmt.Fprintf(&b, "// Integer operations wrap at their width (unchecked), as the interpreter's do;\n")
	fmt.Fprintf(&b, "// every trap reverts with CapsTrap(site). Depth budget: %d nested calls.\n", maxDepth)
	fmt.Fprintf(&b, "pragma solidity %s;\n\n", Pragma)
	fmt.Fprintf(&b, "contract %s {\n", name)
	fmt.Fprintf(&b, "    /// A trap: the site numbers are listed below.\n")
	fmt.Fprintf(&b, "    error CapsTrap(uint32 site);\n")
	if len(m.Sites) > 0 {
		b.WriteString("\n    // Sites:\n")
		for _, s := range m.Sites {
			where := ""
			if place != nil {
				where = " at " + place(s)
			}
			what := string(s.Kind)
			if s.Kind == core.SiteCall {
				what = "depth-budget (call of " + s.Callee + ")"
			}
			fmt.Fprintf(&b, "    //   %d: %s in %s%s\n", s.ID, what, s.Func, where)
		}
	}
	// The contract's own name and its error are taken: a function may
	// not share them.
	if len(m.Skipped) > 0 {
		b.WriteString("\n    // Not compiled (outside the subset; caps compile-plan says why):\n")
		for _, u := range m.Unsupported {
			fmt.Fprintf(&b, "    //   %s: %s\n", u.Func, u.Feature)
		}
	}
	used := map[string]bool{name: true, "CapsTrap": true}
	for _, f := range m.Funcs {
		n := Name(f.Name)
		for used[n] {
			n += "_"
		}
		used[n] = true
		c.Exports[f.Name] = n
	}
	for fi, f := range m.Funcs {
		b.WriteString("\n")
		// External wrapper.
		var params, args []string
		for i, p := range f.Params {
			pn := Name(p.Name)
			if pn != p.Name || pn == "depth" {
				pn = fmt.Sprintf("arg%d", i)
			}
			params = append(params, TypeName(p.K)+" "+pn)
			args = append(args, pn)
		}
		args = append(args, strconv.Itoa(maxDepth-1))
		fmt.Fprintf(&b, "    function %s(%s) external pure returns (%s) {\n", c.Exports[f.Name], strings.Join(params, ", "), TypeName(f.Result))
		fmt.Fprintf(&b, "        return %s(%s);\n    }\n\n", internalName(fi), strings.Join(args, ", "))
		if err := (&funcGen{m: m, f: f, b: &b}).gen(fi); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	b.WriteString("}\n")
	c.Source = b.String()
	return c, nil
}

func internalName(fi int) string { return fmt.Sprintf("caps_f%d", fi) }

type funcGen struct {
	m    *core.Module
	f    *core.Func
	b    *strings.Builder
	tmp  int
	decl map[int]bool // slots declared so far
}

func (g *funcGen) gen(fi int) error {
	f := g.f
	g.decl = map[int]bool{}
	var params []string
	for i, p := range f.Params {
		params = append(params, TypeName(p.K)+" "+slot(i))
		g.decl[i] = true
	}
	params = append(params, "uint256 depth")
	fmt.Fprintf(g.b, "    // %s\n", f.Name)
	fmt.Fprintf(g.b, "    function %s(%s) internal pure returns (%s) {\n", internalName(fi), strings.Join(params, ", "), TypeName(f.Result))
	fmt.Fprintf(g.b, "        unchecked {\n")
	var out []string
	for _, r := range f.Requires {
		st, x := g.expr(r.Cond)
		out = append(out, st...)
		out = append(out, fmt.Sprintf("if (!(%s)) revert CapsTrap(%d);", x, r.Site))
	}
	st, x := g.expr(f.Body)
	out = append(out, st...)
	if len(f.Ensures) > 0 {
		out = append(out, fmt.Sprintf("%s %s = %s;", TypeName(f.Result), slot(f.ResultSlot), x))
		g.decl[f.ResultSlot] = true
		for _, e := range f.Ensures {
			st, c := g.expr(e.Cond)
			out = append(out, st...)
			out = append(out, fmt.Sprintf("if (!(%s)) revert CapsTrap(%d);", c, e.Site))
		}
		x = slot(f.ResultSlot)
	}
	out = append(out, "return "+x+";")
	writeBlock(g.b, out, 3)
	g.b.WriteString("        }\n    }\n")
	return nil
}

// writeBlock indents statements; nested blocks are single strings with
// newlines, indented as a unit.
func writeBlock(b *strings.Builder, stmts []string, level int) {
	ind := strings.Repeat("    ", level)
	for _, s := range stmts {
		for _, line := range strings.Split(s, "\n") {
			b.WriteString(ind + line + "\n")
		}
	}
}

func block(stmts []string) string {
	var b strings.Builder
	writeBlock(&b, stmts, 1)
	return strings.TrimRight(b.String(), "\n")
}

func slot(i int) string { return "l" + strconv.Itoa(i) }

func (g *funcGen) newTemp() string {
	g.tmp++
	return "t" + strconv.Itoa(g.tmp)
}

// simple reports whether x is a name or a literal, cheap to repeat.
func simple(x string) bool {
	return ident.MatchString(x) || strings.HasSuffix(x, ")") && strings.Count(x, "(") == 1 && !strings.ContainsAny(x, " ,")
}

var opText = map[core.Op]string{core.Add: "+", core.Sub: "-", core.Mul: "*", core.Div: "/", core.Rem: "%",
	core.Eq: "==", core.Ne: "!=", core.Lt: "<", core.Le: "<=", core.Gt: ">", core.Ge: ">="}

// expr compiles e into statements to run first, in order, and a
// side-effect-free Solidity expression for its value.
func (g *funcGen) expr(e core.Expr) ([]string, string) {
	switch e := e.(type) {
	case *core.Const:
		return nil, Const(e.K, e.Bits)
	case *core.Local:
		return nil, slot(e.Index)
	case *core.Not:
		st, x := g.expr(e.X)
		return st, "!(" + x + ")"
	case *core.And, *core.Or:
		var a, bb core.Expr
		op := "&&"
		if x, ok := e.(*core.And); ok {
			a, bb = x.A, x.B
		} else {
			x := e.(*core.Or)
			a, bb, op = x.A, x.B, "||"
		}
		sa, xa := g.expr(a)
		sb, xb := g.expr(bb)
		if len(sb) == 0 {
			return sa, "(" + xa + " " + op + " " + xb + ")"
		}
		t := g.newTemp()
		st := append(sa, fmt.Sprintf("bool %s = %s;", t, xa))
		cond := t
		if op == "||" {
			cond = "!" + t
		}
		inner := append(sb, fmt.Sprintf("%s = %s;", t, xb))
		st = append(st, fmt.Sprintf("if (%s) {\n%s\n}", cond, block(inner)))
		return st, t
	case *core.Bin:
		sa, xa := g.expr(e.A)
		sb, xb := g.expr(e.B)
		st := append(sa, sb...)
		if len(sb) > 0 && !simple(xa) {
			// B's statements run after A's value is known; A's
			// expression reads only slots B does not assign, but keep
			// it in a temporary so that the text stays small.
			t := g.newTemp()
			st = append(sa, fmt.Sprintf("%s %s = %s;", TypeName(core.KindOfExpr(e.A)), t, xa))
			st = append(st, sb...)
			xa = t
		}
		if e.Op == core.Div || e.Op == core.Rem {
			if !simple(xb) {
				t := g.newTemp()
				st = append(st, fmt.Sprintf("%s %s = %s;", TypeName(e.K), t, xb))
				xb = t
			}
			if c, ok := e.B.(*core.Const); !ok || c.Bits == 0 {
				st = append(st, fmt.Sprintf("if (%s == %s) revert CapsTrap(%d);", xb, Const(e.K, 0), e.Site))
			}
		}
		x := "(" + xa + " " + opText[e.Op] + " " + xb + ")"
		if !e.Op.IsCompare() {
			// Keep the operation in its type: Solidity types the
			// result of two int32 operands as int32 already; the
			// conversion only documents it and stops literal folding.
			x = TypeName(e.K) + x
		}
		return st, x
	case *core.If:
		sc, xc := g.expr(e.Cond)
		st, xt := g.expr(e.Then)
		se, xe := g.expr(e.Else)
		if len(st) == 0 && len(se) == 0 {
			return sc, "(" + xc + " ? " + xt + " : " + xe + ")"
		}
		t := g.newTemp()
		out := append(sc, fmt.Sprintf("%s %s;", TypeName(e.K), t))
		then := append(st, fmt.Sprintf("%s = %s;", t, xt))
		els := append(se, fmt.Sprintf("%s = %s;", t, xe))
		out = append(out, fmt.Sprintf("if (%s) {\n%s\n} else {\n%s\n}", xc, block(then), block(els)))
		return out, t
	case *core.Let:
		sv, xv := g.expr(e.Value)
		k := core.KindOfExpr(e.Value)
		var st []string
		st = append(st, sv...)
		if g.decl[e.Index] {
			st = append(st, fmt.Sprintf("%s = %s;", slot(e.Index), xv))
		} else {
			g.decl[e.Index] = true
			st = append(st, fmt.Sprintf("%s %s = %s;", TypeName(k), slot(e.Index), xv))
		}
		sb, xb := g.expr(e.Body)
		return append(st, sb...), xb
	case *core.Seq:
		var st []string
		var x string
		for _, s := range e.Exprs {
			ss, xs := g.expr(s)
			st = append(st, ss...)
			x = xs
		}
		return st, x
	case *core.Call:
		var st, args []string
		for _, a := range e.Args {
			sa, xa := g.expr(a)
			if len(sa) > 0 && len(args) > 0 {
				// Fix the earlier arguments before a later one's
				// statements run (they may call or trap).
				for i, p := range args {
					if !simple(p) {
						t := g.newTemp()
						st = append(st, fmt.Sprintf("%s %s = %s;", TypeName(core.KindOfExpr(e.Args[i])), t, p))
						args[i] = t
					}
				}
			}
			st = append(st, sa...)
			args = append(args, xa)
		}
		t := g.newTemp()
		st = append(st, fmt.Sprintf("if (depth == 0) revert CapsTrap(%d);", e.Site))
		args = append(args, "depth - 1")
		st = append(st, fmt.Sprintf("%s %s = %s(%s);", TypeName(e.K), t, internalName(e.Func), strings.Join(args, ", ")))
		return st, t
	case *core.Trap:
		sv, _ := g.expr(e.Value)
		st := append(sv, fmt.Sprintf("revert CapsTrap(%d);", e.Site))
		return st, Const(e.K, 0)
	}
	panic(fmt.Sprintf("solidity: unexpected expression %T", e))
}
