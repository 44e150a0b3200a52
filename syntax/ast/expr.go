package ast

import (
	"strconv"
	"strings"

	"github.com/capsulang/caps/syntax"
)

var durationUnit = map[string]int64{"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}

// digits returns how many ASCII digits text starts with.
func digits(text string) int {
	n := 0
	for n < len(text) && text[n] >= '0' && text[n] <= '9' {
		n++
	}
	return n
}

// numberShape splits a number's text: an optional '-', an integer part, and
// what follows it (a fraction ".123", a unit "ms", or nothing).
func numberShape(text string) (neg bool, whole, rest string) {
	if strings.HasPrefix(text, "-") {
		neg, text = true, text[1:]
	}
	n := digits(text)
	return neg, text[:n], text[n:]
}

// ParseNumber classifies the text of a number token: *IntLit, *DecimalLit or
// *Duration; nil if the text is not a valid number.
func ParseNumber(text string, sp Span) Expr {
	neg, whole, rest := numberShape(text)
	switch {
	case whole == "":
		return nil
	case rest == "": // -?[0-9]+
		lit := &IntLit{Span: sp, Text: text, Neg: neg}
		v, err := strconv.ParseUint(whole, 10, 64)
		lit.Mag, lit.Overflow = v, err != nil
		if lit.Neg && lit.Mag == 0 {
			lit.Neg = false
		}
		return lit
	case rest[0] == '.' && len(rest) > 1 && digits(rest[1:]) == len(rest)-1: // -?[0-9]+\.[0-9]+
		return &DecimalLit{Span: sp, Text: text}
	}
	unit, ok := durationUnit[rest] // [0-9]+(ms|s|m|h|d)
	if neg || !ok {
		return nil
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || n > (1<<62)/unit {
		return nil
	}
	return &Duration{Span: sp, Text: text, Millis: n * unit}
}

// number reads a number form, reporting malformed ones.
func (b *builder) number(f *syntax.Form) Expr {
	if f.Kind != syntax.FormNumber {
		b.errorf(CodeBadLiteral, f.Span(), "expected a number, found %s", describe(f))
		return &BadExpr{Span: f.Span()}
	}
	if e := ParseNumber(f.Text(), f.Span()); e != nil {
		return e
	}
	b.errorf(CodeBadLiteral, f.Span(), "`%s` is not a number; write integers (42, -7), decimals (0.5) or durations (500ms, 30s, 5m, 24h, 7d)", f.Text())
	return &BadExpr{Span: f.Span()}
}

// nameExpr splits a symbol into a dotted name.
func nameExpr(f *syntax.Form) *Name {
	if strings.IndexByte(f.Text(), '.') < 0 {
		// Most names have one part: the Name and its part in one allocation.
		x := &struct {
			n    Name
			part [1]Ident
		}{}
		x.part[0] = Ident{f.Text(), Span{Start: f.Span().Start, End: f.Span().Start + len(f.Text())}}
		x.n = Name{Parts: x.part[:], n: uint32(f.Span().End - f.Span().Start)}
		return &x.n
	}
	n := &Name{Parts: make([]Ident, 0, strings.Count(f.Text(), ".")+1), n: uint32(f.Span().End - f.Span().Start)}
	off, text := f.Span().Start, f.Text()
	for {
		i := strings.IndexByte(text, '.')
		if i < 0 {
			n.Parts = append(n.Parts, Ident{text, Span{Start: off, End: off + len(text)}})
			return n
		}
		n.Parts = append(n.Parts, Ident{text[:i], Span{Start: off, End: off + i}})
		off, text = off+i+1, text[i+1:]
	}
}

// NameOf returns the dotted name of a symbol form.
func NameOf(f *syntax.Form) *Name { return nameExpr(f) }

// expr builds the expression f and numbers it (Expr.ExprID): an
// expression's ID is its place in build order, counted in File.Exprs.
func (b *builder) expr(f *syntax.Form) Expr {
	b.file.Exprs++
	id := ExprID(b.file.Exprs)
	e := b.expr1(f)
	setExprID(e, id)
	return e
}

func (b *builder) expr1(f *syntax.Form) Expr {
	switch f.Kind {
	case syntax.FormNumber:
		return b.number(f)
	case syntax.FormString:
		return &StringLit{Value: f.Text(), Span: f.Span()}
	case syntax.FormSymbol:
		switch f.Text() {
		case "true":
			return &BoolLit{Span: f.Span(), Value: true}
		case "false":
			return &BoolLit{Span: f.Span()}
		case "none":
			return &NoneLit{Span: f.Span()}
		}
		n := nameExpr(f)
		for _, p := range n.Parts {
			if p.Name == "" && len(n.Parts) > 1 {
				b.errorf(CodeParse, f.Span(), "`%s` has an empty segment; names are joined by single dots, e.g. event.claim_id", f.Text())
				return &BadExpr{Span: f.Span()}
			}
		}
		return n
	}
	// list
	if len(f.Items()) == 0 {
		b.errorf(CodeParse, f.Span(), "empty list `()` is not an expression; write (list) for an empty list")
		return &BadExpr{Span: f.Span()}
	}
	head := f.Items()[0]
	if head.Kind != syntax.FormSymbol {
		b.errorf(CodeParse, head.Span(), "the head of a call must be a name, found %s", describe(head))
		return &BadExpr{Span: f.Span()}
	}
	args := f.Items()[1:]
	switch head.Text() {
	case "if":
		if len(args) != 3 {
			b.errorf(CodeParse, f.Span(), "write (if CONDITION THEN ELSE); this if has %d parts", len(args))
			return &BadExpr{Span: f.Span()}
		}
		return &If{Form: f, Cond: b.expr(args[0]), Then: b.expr(args[1]), Else: b.expr(args[2])}
	case "let":
		if len(args) != 2 || args[0].Kind != syntax.FormList {
			b.errorf(CodeParse, f.Span(), "write (let ((name value)...) BODY)")
			return &BadExpr{Span: f.Span()}
		}
		l := &Let{Form: f}
		for _, bf := range args[0].Items() {
			if bf.Kind != syntax.FormList || len(bf.Items()) != 2 || bf.Items()[0].Kind != syntax.FormSymbol {
				b.errorf(CodeParse, bf.Span(), "a let binding is (name value)")
				continue
			}
			l.Bindings = append(l.Bindings, &Binding{Name: Ident{bf.Items()[0].Text(), bf.Items()[0].Span()}, Value: b.expr(bf.Items()[1])})
		}
		l.Body = b.expr(args[1])
		return l
	case "do":
		if len(args) == 0 {
			b.errorf(CodeParse, f.Span(), "(do ...) needs at least one expression")
			return &BadExpr{Span: f.Span()}
		}
		d := &Do{Form: f}
		for _, a := range args {
			d.Exprs = append(d.Exprs, b.expr(a))
		}
		return d
	case "record":
		if len(args) == 0 || args[0].Kind != syntax.FormSymbol {
			b.errorf(CodeParse, f.Span(), "write (record TYPE (field value)...)")
			return &BadExpr{Span: f.Span()}
		}
		r := &RecordLit{Form: f, Type: Ident{args[0].Text(), args[0].Span()}}
		for _, fi := range args[1:] {
			if fi.Kind != syntax.FormList || len(fi.Items()) != 2 || fi.Items()[0].Kind != syntax.FormSymbol {
				b.errorf(CodeParse, fi.Span(), "a record field is (field value)")
				continue
			}
			r.Fields = append(r.Fields, &FieldInit{Name: Ident{fi.Items()[0].Text(), fi.Items()[0].Span()}, Value: b.expr(fi.Items()[1])})
		}
		return r
	case "match":
		if len(args) < 2 {
			b.errorf(CodeParse, f.Span(), "write (match VALUE (PATTERN RESULT)...)")
			return &BadExpr{Span: f.Span()}
		}
		m := &Match{Form: f, Subject: b.expr(args[0])}
		for _, af := range args[1:] {
			if af.Kind != syntax.FormList || len(af.Items()) != 2 {
				b.errorf(CodeParse, af.Span(), "a match arm is (PATTERN RESULT)")
				continue
			}
			m.Arms = append(m.Arms, &Arm{Form: af, Pattern: b.pattern(af.Items()[0]), Body: b.expr(af.Items()[1])})
		}
		return m
	}
	c := &Call{Form: f, Func: nameExpr(head)}
	for _, a := range args {
		c.Args = append(c.Args, b.expr(a))
	}
	return c
}

func (b *builder) pattern(f *syntax.Form) *Pattern {
	p := &Pattern{Span: f.Span()}
	switch f.Kind {
	case syntax.FormNumber, syntax.FormString:
		p.Kind, p.Lit = PatLiteral, b.expr(f)
	case syntax.FormSymbol:
		switch {
		case f.Text() == "_":
			p.Kind = PatWildcard
		case f.Text() == "none":
			p.Kind = PatNone
		case f.Text() == "true" || f.Text() == "false":
			p.Kind, p.Lit = PatLiteral, b.expr(f)
		case strings.Contains(f.Text(), "."):
			p.Kind, p.Name = PatMember, nameExpr(f)
		default:
			p.Kind, p.Name = PatBind, nameExpr(f)
		}
	case syntax.FormList:
		if len(f.Items()) == 0 || f.Items()[0].Kind != syntax.FormSymbol {
			b.errorf(CodeParse, f.Span(), "a constructor pattern is (NAME pattern...), e.g. (some x)")
			p.Kind = PatWildcard
			return p
		}
		p.Kind, p.Name = PatCtor, nameExpr(f.Items()[0])
		for _, a := range f.Items()[1:] {
			p.Args = append(p.Args, b.pattern(a))
		}
	}
	return p
}
