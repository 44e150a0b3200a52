package ir

import (
	"strconv"
	"strings"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// ---- literals

// intText normalizes an integer literal: decimal digits without leading
// zeros, a leading '-' only for non-zero values. Overflowing literals keep
// all their digits, so that they too have exactly one spelling.
func intText(lit *ast.IntLit) string {
	t := lit.Text
	if t == "" {
		if lit.Neg && lit.Mag != 0 {
			return "-" + strconv.FormatUint(lit.Mag, 10)
		}
		return strconv.FormatUint(lit.Mag, 10)
	}
	return normInt(t)
}

// normInt normalizes the text of an integer: `-?[0-9]+`.
func normInt(t string) string {
	neg := strings.HasPrefix(t, "-")
	digits := strings.TrimLeft(strings.TrimPrefix(t, "-"), "0")
	if digits == "" {
		return "0"
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// decimalText normalizes a decimal literal `-?[0-9]+\.[0-9]+`: no leading
// zeros in the whole part (but at least one digit), no trailing zeros in
// the fraction (but at least one digit), and no sign on zero.
func decimalText(t string) string {
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	whole, frac, ok := strings.Cut(t, ".")
	if !ok {
		frac = "0"
	}
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		frac = "0"
	}
	s := whole + "." + frac
	if neg && s != "0.0" {
		s = "-" + s
	}
	return s
}

// tagged returns the object {key: v}.
func tagged(key string, v value) value { return jtag{key, v} }

var (
	badValue  = tagged("bad", jbool(true))
	noneValue = tagged("none", jbool(true))
)

func intValue(lit *ast.IntLit) value      { return tagged("int", jstr(intText(lit))) }
func durationValue(d *ast.Duration) value { return tagged("duration_ms", jstr(millis(d))) }

func millis(d *ast.Duration) string { return strconv.FormatInt(d.Millis, 10) }

// ---- expressions

// expr encodes an expression; a nil expression (a part missing from a
// broken file) is null.
func expr(e ast.Expr) value {
	switch e := e.(type) {
	case nil:
		return jnull{}
	case *ast.IntLit:
		if e == nil {
			return jnull{}
		}
		return intValue(e)
	case *ast.DecimalLit:
		if e == nil {
			return jnull{}
		}
		return tagged("dec", jstr(decimalText(e.Text)))
	case *ast.Duration:
		if e == nil {
			return jnull{}
		}
		return durationValue(e)
	case *ast.StringLit:
		if e == nil {
			return jnull{}
		}
		return tagged("str", jstr(e.Value))
	case *ast.BoolLit:
		if e == nil {
			return jnull{}
		}
		return tagged("bool", jbool(e.Value))
	case *ast.NoneLit:
		return noneValue
	case *ast.Name:
		if e == nil {
			return jnull{}
		}
		return tagged("name", jstr(e.Text()))
	case *ast.Call:
		if e == nil {
			return jnull{}
		}
		fn := ""
		if e.Func != nil {
			fn = e.Func.Text()
		}
		return pair("args", exprs(e.Args), "call", jstr(fn))
	case *ast.If:
		if e == nil {
			return jnull{}
		}
		return tagged("if", jarr{expr(e.Cond), expr(e.Then), expr(e.Else)})
	case *ast.Let:
		if e == nil {
			return jnull{}
		}
		bs := make(jarr, 0, len(e.Bindings))
		for _, b := range e.Bindings {
			if b == nil {
				bs = append(bs, jnull{})
				continue
			}
			bs = append(bs, pair("name", jstr(b.Name.Name), "value", expr(b.Value)))
		}
		return jobj{{"body", expr(e.Body)}, {"let", bs}}
	case *ast.Do:
		if e == nil {
			return jnull{}
		}
		return tagged("do", exprs(e.Exprs))
	case *ast.RecordLit:
		if e == nil {
			return jnull{}
		}
		fs := make(jarr, 0, len(e.Fields))
		for _, f := range e.Fields {
			if f == nil {
				fs = append(fs, jnull{})
				continue
			}
			fs = append(fs, pair("name", jstr(f.Name.Name), "value", expr(f.Value)))
		}
		return jobj{{"fields", fs}, {"record", jstr(e.Type.Name)}}
	case *ast.Match:
		if e == nil {
			return jnull{}
		}
		arms := make(jarr, 0, len(e.Arms))
		for _, a := range e.Arms {
			if a == nil {
				arms = append(arms, jnull{})
				continue
			}
			arms = append(arms, pair("body", expr(a.Body), "pattern", pattern(a.Pattern)))
		}
		return jobj{{"arms", arms}, {"match", expr(e.Subject)}}
	case *ast.BadExpr:
		return badValue
	}
	// An expression node this package does not know yet: mark it bad rather
	// than dropping it silently.
	return badValue
}

func exprs(es []ast.Expr) jarr {
	out := make(jarr, len(es))
	for i, e := range es {
		out[i] = expr(e)
	}
	return out
}

func pattern(p *ast.Pattern) value {
	if p == nil {
		return jnull{}
	}
	name := ""
	if p.Name != nil {
		name = p.Name.Text()
	}
	switch p.Kind {
	case ast.PatWildcard:
		return tagged("wildcard", jbool(true))
	case ast.PatBind:
		return tagged("bind", jstr(name))
	case ast.PatLiteral:
		return tagged("literal", expr(p.Lit))
	case ast.PatNone:
		return noneValue
	case ast.PatMember:
		return tagged("member", jstr(name))
	case ast.PatCtor:
		args := make(jarr, len(p.Args))
		for i, a := range p.Args {
			args[i] = pattern(a)
		}
		return jobj{{"args", args}, {"ctor", jstr(name)}}
	}
	return badValue
}

// ---- generic forms (clause arguments)

// form encodes a clause argument as written, with literals normalized:
// symbols as {"sym": ...}, strings, numbers and durations as in
// expressions, lists as {"list": [...]}.
func form(f *syntax.Form) value {
	if f == nil {
		return jnull{}
	}
	switch f.Kind {
	case syntax.FormSymbol:
		return tagged("sym", jstr(f.Text()))
	case syntax.FormString:
		return tagged("str", jstr(f.Text()))
	case syntax.FormNumber:
		switch n := ast.ParseNumber(f.Text(), f.Span()).(type) {
		case *ast.IntLit:
			return intValue(n)
		case *ast.DecimalLit:
			return tagged("dec", jstr(decimalText(n.Text)))
		case *ast.Duration:
			return durationValue(n)
		}
		return badValue
	case syntax.FormList:
		return tagged("list", forms(f.Items()))
	}
	return badValue
}

func forms(fs []*syntax.Form) jarr {
	out := make(jarr, len(fs))
	for i, f := range fs {
		out[i] = form(f)
	}
	return out
}
