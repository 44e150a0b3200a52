// Package cond is the condition language of authority-policy rules: the
// string in (on OUTCOME (if "CONDITION")). It parses a condition, checks
// it against the names a decision can see (an Env), and evaluates it
// against their values. docs/authority.md describes the language.
//
// The language is deliberately small:
//
//	cond    := or
//	or      := and ("or" and)*
//	and     := not ("and" not)*
//	not     := "not" not | compare
//	compare := operand (OP operand)?        OP: == != < <= > >=
//	operand := "(" cond ")" | path | STRING | INTEGER | true | false
//	path    := NAME ("." NAME)*
//
// Strings are double-quoted with the escapes \" and \\; integers are
// decimal with an optional minus sign. Offsets in positions and errors are
// byte offsets into the condition text (the decoded string).
package cond

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a condition value.
type Kind uint8

// Kinds.
const (
	Invalid Kind = iota
	Bool
	Int
	Text
)

func (k Kind) String() string {
	switch k {
	case Bool:
		return "Bool"
	case Int:
		return "integer"
	case Text:
		return "Text"
	}
	return "invalid"
}

// Expr is a parsed condition.
type Expr interface {
	// Pos is the expression's [start, end) in the condition text.
	Pos() (int, int)
}

// Binary is `X op Y` for a comparison, `and` or `or`.
type Binary struct {
	Op         string
	X, Y       Expr
	OpStart    int
	start, end int
}

// Not is `not X`.
type Not struct {
	X          Expr
	start, end int
}

// Path is a name or a dotted path: effect, context.amount_usd.
type Path struct {
	Name       string // the path as written, dots included
	start, end int
}

// Lit is a literal: a string, an integer or a Boolean.
type Lit struct {
	Val        Value
	start, end int
}

func (e *Binary) Pos() (int, int) { return e.start, e.end }
func (e *Not) Pos() (int, int)    { return e.start, e.end }
func (e *Path) Pos() (int, int)   { return e.start, e.end }
func (e *Lit) Pos() (int, int)    { return e.start, e.end }

// Error is a problem with a condition, at [Start, End) of its text.
type Error struct {
	Code       string
	Start, End int
	Msg        string
	// Suggest is a replacement for [Start, End), when one is likely
	// (a did-you-mean).
	Suggest string
}

func (e *Error) Error() string { return e.Msg }

// Error codes (analysis/codes.json documents them).
const (
	CodeSyntax  = "E_CONDITION_SYNTAX"  // the text is not a condition
	CodeUnknown = "E_CONDITION_UNKNOWN" // a name the decision cannot see
	CodeType    = "E_CONDITION_TYPE"    // operands of the wrong type
)

// MaxLen bounds a condition's length; MaxDepth its nesting.
const (
	MaxLen   = 4096
	MaxDepth = 64
)

// Parse parses a condition.
func Parse(src string) (Expr, *Error) {
	if len(src) > MaxLen {
		return nil, &Error{Code: CodeSyntax, Start: 0, End: len(src), Msg: fmt.Sprintf("the condition is %d bytes long; at most %d are allowed", len(src), MaxLen)}
	}
	p := &parser{src: src}
	p.next()
	e := p.or()
	if p.err == nil && p.tok.kind != tEOF {
		p.fail(p.tok.start, p.tok.end, "unexpected %s after a complete condition; join conditions with `and` or `or`", p.tok.describe())
	}
	if p.err != nil {
		return nil, p.err
	}
	return e, nil
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tName
	tString
	tInt
	tOp
	tLParen
	tRParen
	tBad
)

type token struct {
	kind       tokKind
	text       string // the name, operator or decoded string
	start, end int
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of condition"
	case tString:
		return "string " + strconv.Quote(t.text)
	case tLParen:
		return "`(`"
	case tRParen:
		return "`)`"
	}
	return "`" + t.text + "`"
}

type parser struct {
	src   string
	pos   int
	tok   token
	err   *Error
	depth int
}

func (p *parser) fail(start, end int, format string, args ...any) {
	if p.err == nil {
		p.err = &Error{Code: CodeSyntax, Start: start, End: end, Msg: fmt.Sprintf(format, args...)}
	}
	p.tok = token{kind: tEOF, start: len(p.src), end: len(p.src)}
	p.pos = len(p.src)
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isNameChar(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' || c == '-' }

// next reads the next token into p.tok.
func (p *parser) next() {
	s := p.src
	for p.pos < len(s) && (s[p.pos] == ' ' || s[p.pos] == '\t' || s[p.pos] == '\n' || s[p.pos] == '\r') {
		p.pos++
	}
	start := p.pos
	if start >= len(s) {
		p.tok = token{kind: tEOF, start: start, end: start}
		return
	}
	c := s[start]
	switch {
	case c == '(':
		p.pos++
		p.tok = token{kind: tLParen, text: "(", start: start, end: p.pos}
	case c == ')':
		p.pos++
		p.tok = token{kind: tRParen, text: ")", start: start, end: p.pos}
	case c == '"':
		p.str(start)
	case c >= '0' && c <= '9' || c == '-' && start+1 < len(s) && s[start+1] >= '0' && s[start+1] <= '9':
		p.pos++
		for p.pos < len(s) && s[p.pos] >= '0' && s[p.pos] <= '9' {
			p.pos++
		}
		p.tok = token{kind: tInt, text: s[start:p.pos], start: start, end: p.pos}
	case isNameStart(c):
		for p.pos < len(s) && (isNameChar(s[p.pos]) || s[p.pos] == '.' && p.pos+1 < len(s) && isNameStart(s[p.pos+1])) {
			p.pos++
		}
		p.tok = token{kind: tName, text: s[start:p.pos], start: start, end: p.pos}
	default:
		p.op(start)
	}
}

// op reads a comparison operator, or reports what is there instead.
func (p *parser) op(start int) {
	s := p.src
	two := ""
	if start+2 <= len(s) {
		two = s[start : start+2]
	}
	switch two {
	case "==", "!=", "<=", ">=":
		p.pos += 2
		p.tok = token{kind: tOp, text: two, start: start, end: p.pos}
		return
	case "&&":
		p.fail(start, start+2, "`&&` is written `and` in a condition")
		return
	case "||":
		p.fail(start, start+2, "`||` is written `or` in a condition")
		return
	}
	switch s[start] {
	case '<', '>':
		p.pos++
		p.tok = token{kind: tOp, text: s[start:p.pos], start: start, end: p.pos}
	case '=':
		p.fail(start, start+1, "`=` is not an operator; compare with `==`")
	case '!':
		p.fail(start, start+1, "`!` is written `not` in a condition")
	default:
		r := []rune(s[start:])[0]
		p.fail(start, start+len(string(r)), "unexpected character %q in a condition", r)
	}
}

// str reads a string literal starting at the quote at start.
func (p *parser) str(start int) {
	s := p.src
	var b strings.Builder
	i := start + 1
	for i < len(s) {
		switch s[i] {
		case '"':
			p.pos = i + 1
			p.tok = token{kind: tString, text: b.String(), start: start, end: p.pos}
			return
		case '\\':
			if i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
				b.WriteByte(s[i+1])
				i += 2
				continue
			}
			p.fail(i, min(i+2, len(s)), "unknown escape in a string; only \\\" and \\\\ are allowed")
			return
		}
		b.WriteByte(s[i])
		i++
	}
	p.fail(start, len(s), "the string is not closed; add a `\"`")
}

func (p *parser) or() Expr {
	x := p.and()
	for p.err == nil && p.tok.kind == tName && p.tok.text == "or" {
		op := p.tok.start
		p.next()
		y := p.and()
		x = p.binary("or", op, x, y)
	}
	return x
}

func (p *parser) and() Expr {
	x := p.not()
	for p.err == nil && p.tok.kind == tName && p.tok.text == "and" {
		op := p.tok.start
		p.next()
		y := p.not()
		x = p.binary("and", op, x, y)
	}
	return x
}

func (p *parser) binary(op string, at int, x, y Expr) Expr {
	if p.err != nil {
		return x
	}
	s, _ := x.Pos()
	_, e := y.Pos()
	return &Binary{Op: op, X: x, Y: y, OpStart: at, start: s, end: e}
}

func (p *parser) not() Expr {
	if p.tok.kind == tName && p.tok.text == "not" {
		start := p.tok.start
		if !p.enter() {
			return &Lit{}
		}
		p.next()
		x := p.not()
		p.depth--
		if p.err != nil {
			return x
		}
		_, end := x.Pos()
		return &Not{X: x, start: start, end: end}
	}
	return p.compare()
}

func (p *parser) enter() bool {
	p.depth++
	if p.depth > MaxDepth {
		p.fail(p.tok.start, p.tok.end, "the condition nests deeper than %d levels", MaxDepth)
		return false
	}
	return true
}

func (p *parser) compare() Expr {
	x := p.operand()
	if p.err == nil && p.tok.kind == tOp {
		op, at := p.tok.text, p.tok.start
		p.next()
		y := p.operand()
		if p.err == nil && p.tok.kind == tOp {
			p.fail(p.tok.start, p.tok.end, "comparisons do not chain; write `a %s b and b %s c`", op, p.tok.text)
		}
		return p.binary(op, at, x, y)
	}
	return x
}

var keywords = map[string]bool{"and": true, "or": true, "not": true}

func (p *parser) operand() Expr {
	t := p.tok
	switch t.kind {
	case tLParen:
		if !p.enter() {
			return &Lit{}
		}
		p.next()
		x := p.or()
		p.depth--
		if p.err != nil {
			return x
		}
		if p.tok.kind != tRParen {
			p.fail(p.tok.start, p.tok.end, "expected `)` to close the `(` at offset %d, found %s", t.start, p.tok.describe())
			return x
		}
		p.next()
		return x
	case tString:
		p.next()
		return &Lit{Val: TextValue(t.text), start: t.start, end: t.end}
	case tInt:
		p.next()
		v, ok := parseInt(t.text)
		if !ok {
			p.fail(t.start, t.end, "the integer %s does not fit in 64 bits", t.text)
		}
		return &Lit{Val: v, start: t.start, end: t.end}
	case tName:
		if keywords[t.text] {
			p.fail(t.start, t.end, "expected a value before `%s`", t.text)
			return &Lit{}
		}
		p.next()
		switch t.text {
		case "true", "false":
			return &Lit{Val: BoolValue(t.text == "true"), start: t.start, end: t.end}
		}
		return &Path{Name: t.text, start: t.start, end: t.end}
	}
	if t.kind == tEOF {
		p.fail(t.start, t.end, "the condition ends where a value is expected")
	} else {
		p.fail(t.start, t.end, "expected a value, found %s", t.describe())
	}
	return &Lit{}
}

// parseInt reads a decimal integer of at most 64 bits (signed or unsigned).
func parseInt(s string) (Value, bool) {
	neg := strings.HasPrefix(s, "-")
	mag, err := strconv.ParseUint(strings.TrimPrefix(s, "-"), 10, 64)
	if err != nil || neg && mag > 1<<63 {
		return Value{}, false
	}
	if mag == 0 {
		neg = false
	}
	return Value{K: Int, Neg: neg, Mag: mag}, true
}

// Value is a condition value: a Bool, an integer (sign and magnitude, so
// that every I64 and U64 value is exact) or a Text.
type Value struct {
	K   Kind
	B   bool
	Neg bool
	Mag uint64
	S   string
}

// BoolValue, TextValue, IntValue and UintValue make values.
func BoolValue(b bool) Value   { return Value{K: Bool, B: b} }
func TextValue(s string) Value { return Value{K: Text, S: s} }
func UintValue(u uint64) Value { return Value{K: Int, Mag: u} }
func IntValue(i int64) Value {
	if i < 0 {
		if i == math.MinInt64 {
			return Value{K: Int, Neg: true, Mag: 1 << 63}
		}
		return Value{K: Int, Neg: true, Mag: uint64(-i)}
	}
	return Value{K: Int, Mag: uint64(i)}
}

func (v Value) String() string {
	switch v.K {
	case Bool:
		return strconv.FormatBool(v.B)
	case Int:
		if v.Neg {
			return "-" + strconv.FormatUint(v.Mag, 10)
		}
		return strconv.FormatUint(v.Mag, 10)
	case Text:
		return strconv.Quote(v.S)
	}
	return "invalid"
}

// cmpInt orders two integers: -1, 0 or 1.
func cmpInt(a, b Value) int {
	switch {
	case a.Neg && !b.Neg:
		return -1
	case !a.Neg && b.Neg:
		return 1
	}
	c := 0
	if a.Mag < b.Mag {
		c = -1
	} else if a.Mag > b.Mag {
		c = 1
	}
	if a.Neg {
		c = -c
	}
	return c
}
