package check

import (
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// ZKBackends lists the proof systems a zk-proof may name in its (backend
// NAME) clause. The v0.7 reference defines one, Noir (docs/language.md
// section 12).
var ZKBackends = []string{"noir"}

// ZKProof is a checked zk-proof declaration: its typed inputs and its
// claim, built from the (proves EXPR) clause and typed by the checker
// (Result.Types holds the type of every sub-expression).
type ZKProof struct {
	Decl    *ast.ClauseDecl
	Backend string
	// Public and Private are the declared inputs in source order; each
	// name appears once across both (a repeated name is reported and
	// left out).
	Public, Private []*Symbol
	// Proves is the claim; nil when the clause is missing or malformed.
	Proves ast.Expr
}

// zkProof checks what the construct table cannot: the backend is a known
// proof system, the input names are distinct, and the claim is a pure Bool
// expression over the declared inputs only, type-checked like a function
// body. It runs after clauseDecl, which has checked the clause shapes and
// resolved the input types.
func (c *checker) zkProof(d *ast.ClauseDecl) {
	parent := c.declSym(d)
	zk := &ZKProof{Decl: d}
	inputs := c.newScope("zk-proof input")
	var proves *ast.Clause
	for _, cl := range d.Clauses {
		switch cl.Key.Name {
		case "backend":
			if len(cl.Args) != 1 || cl.Args[0].Kind != syntax.FormSymbol {
				continue // reported by clauseDecl
			}
			name := cl.Args[0].Text()
			zk.Backend = name
			known := false
			for _, b := range ZKBackends {
				known = known || b == name
			}
			if !known {
				c.errorf(UnknownProofBackend, cl.Args[0].Span(), "unknown zk-proof backend `%s`; the supported backend%s %s%s",
					name, pluralIs(len(ZKBackends)), quotedList(ZKBackends), didYouMean(name, ZKBackends))
			}
		case "public", "private":
			for _, a := range cl.Args {
				if a.Kind != syntax.FormList || len(a.Items()) != 2 || a.Items()[0].Kind != syntax.FormSymbol {
					continue // reported by clauseDecl
				}
				t, ok := c.fieldTypes[a]
				if !ok {
					t = types.TInvalid
				}
				s := &Symbol{Kind: SymProofInput, Name: a.Items()[0].Text(), Span: a.Items()[0].Span(), Full: a.Span(), Parent: parent, Type: t,
					Detail: cl.Key.Name + " " + a.Items()[0].Text() + " " + t.String()}
				if !inputs.add(s) {
					continue
				}
				if cl.Key.Name == "public" {
					zk.Public = append(zk.Public, s)
				} else {
					zk.Private = append(zk.Private, s)
				}
			}
		case "proves":
			proves = cl
		}
	}
	if proves != nil && len(proves.Args) == 1 {
		e, diags := ast.BuildExpr(proves.Args[0])
		c.res.Diagnostics = append(c.res.Diagnostics, diags...)
		env := &env{syms: append(append([]*Symbol(nil), zk.Public...), zk.Private...)}
		x := ectx{env: env, pureWhat: "the claim of zk-proof " + d.Name.Name}
		t := c.expr(x, e, nil)
		if !types.IsInvalid(t) && !types.AssignableTo(t, types.TBool) {
			c.errorf(TypeMismatch, e.ExprSpan(), "(proves ...) in zk-proof %s must be Bool, found %s", d.Name.Name, types.Describe(t))
		}
		zk.Proves = e
	}
	if c.res.ZKProofs == nil {
		c.res.ZKProofs = map[*ast.ClauseDecl]*ZKProof{}
	}
	c.res.ZKProofs[d] = zk
}

func pluralIs(n int) string {
	if n == 1 {
		return " is"
	}
	return "s are"
}

func quotedList(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += "`" + s + "`"
	}
	return out
}
