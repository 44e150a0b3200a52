package value

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Parse reads a value of type t from text written in Capsulang literal
// syntax, the form String prints: -7, true, "x", 30m, none, (some 3),
// (ok 1), (err "x"), Size.small, (delivered "sig"), Outcome.lost,
// (list 1 2), (record Claim (id 1) (amount 2)), (map ("a" 1)), unit.
//
// For convenience on a command line:
//   - a Text (or Address) argument that does not start with a double quote
//     is taken verbatim, so name=Ada works as well as name='"Ada"';
//   - enum members and bare variant cases may omit the type: small;
//   - Timestamp, Json and Bytes32 values may be written bare or quoted;
//   - text starting with { or [ is read as the JSON encoding (FromJSON).
func Parse(text string, t types.Type) (Value, error) {
	if !utf8.ValidString(text) {
		return Value{}, fmt.Errorf("the argument is not valid UTF-8 text")
	}
	trimmed := strings.TrimSpace(text)
	if b, ok := t.(*types.Basic); ok {
		switch b.Kind {
		case types.Text, types.Address:
			s := text
			if strings.HasPrefix(trimmed, `"`) {
				var err error
				if s, err = parseString(trimmed); err != nil {
					return Value{}, err
				}
			}
			if b.Kind == types.Address {
				return Address(s), nil
			}
			return Text(s), nil
		case types.Json, types.Timestamp, types.Bytes32:
			s := trimmed
			if strings.HasPrefix(trimmed, `"`) && (b.Kind != types.Json || !jsonString(trimmed)) {
				var err error
				if s, err = parseString(trimmed); err != nil {
					return Value{}, err
				}
			}
			switch b.Kind {
			case types.Json:
				return JSON([]byte(s))
			case types.Timestamp:
				return ParseTimestamp(s)
			}
			return ParseBytes32(s)
		}
	}
	if strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[") {
		return FromJSON([]byte(trimmed), t)
	}
	if trimmed == "" {
		return Value{}, fmt.Errorf("expected %s, found nothing", types.Describe(t))
	}
	f, err := readOne(trimmed)
	if err != nil {
		return Value{}, err
	}
	p := &parser{src: trimmed}
	return p.value(f, t)
}

// jsonString reports whether s is a JSON document that is a string, as
// opposed to a Capsulang string literal holding a JSON document. A JSON
// string literal is also a valid Capsulang string literal in most cases;
// we read `"..."` for a Json as a Capsulang string whose content is JSON,
// unless that content is not JSON while s itself is.
func jsonString(s string) bool {
	inner, err := parseString(s)
	if err != nil {
		return true
	}
	if _, err := decodeAny([]byte(inner)); err == nil {
		return false
	}
	_, err = decodeAny([]byte(s))
	return err == nil
}

func readOne(text string) (*syntax.Form, error) {
	cst, err := syntax.Parse([]byte(text))
	if err != nil {
		return nil, err
	}
	src := syntax.Read(cst)
	if len(src.Diagnostics) > 0 {
		return nil, fmt.Errorf("%s", src.Diagnostics[0].Message)
	}
	if len(src.Forms) != 1 {
		if len(src.Forms) == 0 {
			return nil, fmt.Errorf("expected a value, found only a comment")
		}
		return nil, fmt.Errorf("expected one value, found %d; wrap a structured value in parentheses", len(src.Forms))
	}
	return src.Forms[0], nil
}

func parseString(text string) (string, error) {
	f, err := readOne(text)
	if err != nil {
		return "", err
	}
	if f.Kind != syntax.FormString {
		return "", fmt.Errorf("expected one string literal, found %s", text)
	}
	return f.Text(), nil
}

// ParseDuration reads a duration literal: 500ms, 30s, 15m, 24h, 7d.
func ParseDuration(s string) (Value, error) {
	if d, ok := ast.ParseNumber(s, ast.Span{}).(*ast.Duration); ok {
		return Duration(d.Millis), nil
	}
	return Value{}, fmt.Errorf("expected a Duration such as 500ms, 30s, 15m, 24h or 7d, found %q", s)
}

type parser struct{ src string }

func (p *parser) text(f *syntax.Form) string {
	if f.Span().Start >= 0 && f.Span().End <= len(p.src) && f.Span().Start <= f.Span().End {
		return p.src[f.Span().Start:f.Span().End]
	}
	return f.Text()
}

func (p *parser) mismatch(f *syntax.Form, t types.Type) error {
	if b, ok := t.(*types.Basic); ok && f.Kind == syntax.FormSymbol {
		switch b.Kind {
		case types.Text, types.Address, types.Timestamp, types.Json, types.Bytes32:
			return fmt.Errorf("expected %s, found %s; inside a structured value write it as a string: %s", t, f.Text(), Quote(f.Text()))
		}
	}
	return fmt.Errorf("expected %s, found %s", types.Describe(t), p.text(f))
}

func (p *parser) value(f *syntax.Form, t types.Type) (Value, error) {
	switch tt := t.(type) {
	case *types.Basic:
		return p.basic(f, tt)
	case *types.Enum:
		if f.Kind == syntax.FormSymbol {
			name := strings.TrimPrefix(f.Text(), tt.Name+".")
			for i, m := range tt.Members {
				if m == name {
					return Enum(tt, i), nil
				}
			}
			return Value{}, fmt.Errorf("enum %s has no member `%s` (members: %s)", tt.Name, name, strings.Join(tt.Members, ", "))
		}
	case *types.Variant:
		head, args := "", []*syntax.Form(nil)
		switch f.Kind {
		case syntax.FormSymbol:
			head = f.Text()
		case syntax.FormList:
			if h := f.Head(); h != "" {
				head, args = h, f.Items()[1:]
			}
		}
		if head == "" {
			break
		}
		name := strings.TrimPrefix(head, tt.Name+".")
		ci := caseIndex(tt, name)
		if ci < 0 {
			return Value{}, fmt.Errorf("variant %s has no case `%s` (cases: %s)", tt.Name, name, caseNames(tt))
		}
		c := tt.Cases[ci]
		if len(args) != len(c.Fields) {
			if len(c.Fields) == 0 {
				return Value{}, fmt.Errorf("case %s of %s has no fields; write %s.%s", name, tt.Name, tt.Name, name)
			}
			return Value{}, fmt.Errorf("case %s of %s takes %d value%s, found %d", name, tt.Name, len(c.Fields), plural(len(c.Fields)), len(args))
		}
		fields := make([]Value, len(args))
		for i, a := range args {
			v, err := p.value(a, c.Fields[i].Type)
			if err != nil {
				return Value{}, err
			}
			fields[i] = v
		}
		return Variant(tt, ci, fields), nil
	case *types.Record:
		if f.Head() != "record" || len(f.Items()) < 2 || f.Items()[1].Kind != syntax.FormSymbol {
			return Value{}, fmt.Errorf("expected %s written as (record %s (field value)...), found %s", types.Describe(tt), tt.Name, p.text(f))
		}
		if n := f.Items()[1].Text(); n != tt.Name && !strings.HasSuffix(n, "."+tt.Name) {
			return Value{}, fmt.Errorf("expected a %s, found a record of type %s", types.Describe(tt), n)
		}
		fields := make([]Value, len(tt.Fields))
		seen := make([]bool, len(tt.Fields))
		for _, fi := range f.Items()[2:] {
			if fi.Kind != syntax.FormList || len(fi.Items()) != 2 || fi.Items()[0].Kind != syntax.FormSymbol {
				return Value{}, fmt.Errorf("a record field is written (field value), found %s", p.text(fi))
			}
			name := fi.Items()[0].Text()
			idx := -1
			for i, rf := range tt.Fields {
				if rf.Name == name {
					idx = i
				}
			}
			if idx < 0 {
				return Value{}, fmt.Errorf("%s has no field `%s`", types.Describe(tt), name)
			}
			if seen[idx] {
				return Value{}, fmt.Errorf("field `%s` is given twice", name)
			}
			v, err := p.value(fi.Items()[1], tt.Fields[idx].Type)
			if err != nil {
				return Value{}, err
			}
			fields[idx], seen[idx] = v, true
		}
		var missing []string
		for i, ok := range seen {
			if !ok {
				missing = append(missing, tt.Fields[i].Name)
			}
		}
		if len(missing) > 0 {
			return Value{}, fmt.Errorf("%s is missing field%s %s", types.Describe(tt), plural(len(missing)), strings.Join(missing, ", "))
		}
		return Record(tt, fields), nil
	case *types.Option:
		if f.Kind == syntax.FormSymbol && f.Text() == "none" {
			return None(), nil
		}
		if f.Head() == "some" {
			if len(f.Items()) != 2 {
				return Value{}, fmt.Errorf("write (some VALUE)")
			}
			v, err := p.value(f.Items()[1], tt.Elem)
			if err != nil {
				return Value{}, err
			}
			return Some(v), nil
		}
	case *types.Result:
		if h := f.Head(); h == "ok" || h == "err" {
			if len(f.Items()) != 2 {
				return Value{}, fmt.Errorf("write (%s VALUE)", h)
			}
			et := tt.Ok
			if h == "err" {
				et = tt.Err
			}
			v, err := p.value(f.Items()[1], et)
			if err != nil {
				return Value{}, err
			}
			if h == "ok" {
				return Ok(v), nil
			}
			return Err(v), nil
		}
	case *types.List, *types.Array:
		if f.Head() == "list" {
			elem, n := elemOf(t)
			items := f.Items()[1:]
			if n >= 0 && len(items) != n {
				return Value{}, fmt.Errorf("%s needs exactly %d elements, found %d", t, n, len(items))
			}
			elems := make([]Value, len(items))
			for i, it := range items {
				v, err := p.value(it, elem)
				if err != nil {
					return Value{}, err
				}
				elems[i] = v
			}
			return List(elems), nil
		}
	case *types.Map:
		if f.Head() == "map" {
			var keys, vals []Value
			for _, it := range f.Items()[1:] {
				if it.Kind != syntax.FormList || len(it.Items()) != 2 {
					return Value{}, fmt.Errorf("a map entry is written (KEY VALUE), found %s", p.text(it))
				}
				k, err := p.value(it.Items()[0], tt.Key)
				if err != nil {
					return Value{}, err
				}
				v, err := p.value(it.Items()[1], tt.Value)
				if err != nil {
					return Value{}, err
				}
				keys, vals = append(keys, k), append(vals, v)
			}
			return Map(tt, keys, vals), nil
		}
	}
	return Value{}, p.mismatch(f, t)
}

func (p *parser) basic(f *syntax.Form, t *types.Basic) (Value, error) {
	if IntKindOf(t) != IntNone && t.Kind != types.UntypedInt {
		if f.Kind != syntax.FormNumber {
			return Value{}, p.mismatch(f, t)
		}
		return ParseInt(f.Text(), t)
	}
	switch t.Kind {
	case types.Unit:
		if f.Kind == syntax.FormSymbol && f.Text() == "unit" {
			return Unit(), nil
		}
	case types.Bool:
		if f.Kind == syntax.FormSymbol && (f.Text() == "true" || f.Text() == "false") {
			return Bool(f.Text() == "true"), nil
		}
	case types.Text:
		if f.Kind == syntax.FormString {
			return Text(f.Text()), nil
		}
	case types.Address:
		if f.Kind == syntax.FormString {
			return Address(f.Text()), nil
		}
	case types.Duration:
		if f.Kind == syntax.FormNumber {
			return ParseDuration(f.Text())
		}
	case types.Timestamp, types.Json, types.Bytes32:
		if f.Kind == syntax.FormString {
			switch t.Kind {
			case types.Timestamp:
				return ParseTimestamp(f.Text())
			case types.Json:
				return JSON([]byte(f.Text()))
			}
			return ParseBytes32(f.Text())
		}
	}
	return Value{}, p.mismatch(f, t)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Zero returns the zero value of t (docs/language.md section 4.4): 0,
// false, "", 0ms, none, empty collections, records with zero fields and
// an enum's first member. Variants, Result, Json, Timestamp, Address, Wei
// and Bytes32 have no zero value; for them ok is false.
func Zero(t types.Type) (v Value, ok bool) {
	switch tt := t.(type) {
	case *types.Basic:
		if k := IntKindOf(tt); k != IntNone && k != IntWei {
			return Int(k, 0), true
		}
		switch tt.Kind {
		case types.Unit:
			return Unit(), true
		case types.Bool:
			return False, true
		case types.Text:
			return Text(""), true
		case types.Duration:
			return Duration(0), true
		}
	case *types.Option:
		return None(), true
	case *types.List:
		return List(nil), true
	case *types.Map:
		return Map(tt, nil, nil), true
	case *types.Array:
		elems := make([]Value, tt.Len)
		for i := range elems {
			if elems[i], ok = Zero(tt.Elem); !ok {
				return Value{}, false
			}
		}
		return List(elems), true
	case *types.Record:
		fields := make([]Value, len(tt.Fields))
		for i, f := range tt.Fields {
			if fields[i], ok = Zero(f.Type); !ok {
				return Value{}, false
			}
		}
		return Record(tt, fields), true
	case *types.Enum:
		if len(tt.Members) > 0 {
			return Enum(tt, 0), true
		}
	}
	return Value{}, false
}
