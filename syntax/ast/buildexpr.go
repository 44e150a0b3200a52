package ast

import "github.com/capsulang/caps/syntax"

// BuildExprForm builds the expression tree of one form of s, as Build
// builds function bodies, and returns it with the diagnostics building it
// reported. Clause declarations keep their clauses as forms; tools that
// give one of them expression meaning (a zk-proof's proves clause) build
// it with this.
func BuildExprForm(s *syntax.Source, f *syntax.Form) (Expr, []syntax.Diagnostic) {
	b := &builder{src: s, file: &File{Source: s}}
	e := b.expr(f)
	return e, b.file.Diagnostics
}
