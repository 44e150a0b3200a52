package verify

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/value"
)

// valueText writes a solver model value of type t as Capsulang source
// text, the way `caps call` reads arguments (value.Parse).
func valueText(x sexp, t types.Type) (string, error) {
	switch t := t.(type) {
	case *types.Basic:
		if t.Kind == types.Text {
			if !x.str {
				return "", fmt.Errorf("expected a string, found %s", x)
			}
			text, err := smtUnescape(x.atom)
			if err != nil {
				return "", err
			}
			return value.Text(text).String(), nil
		}
		if t.Kind == types.Unit {
			return "unit", nil
		}
		if t.Kind == types.Bool {
			if x.atom == "true" || x.atom == "false" {
				return x.atom, nil
			}
			return "", fmt.Errorf("expected a Bool, found %s", x)
		}
		bits, signed, ok := intInfo(t)
		if !ok {
			return "", fmt.Errorf("%s values are not read from models", t)
		}
		n, err := bvValue(x)
		if err != nil {
			return "", err
		}
		if signed && n.Sign() >= 0 && n.Bit(bits-1) == 1 {
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
		}
		return n.String(), nil
	case *types.Enum:
		if x.list == nil && strings.HasPrefix(x.atom, t.Name+".") {
			return x.atom, nil
		}
	case *types.Record:
		if len(x.list) == len(t.Fields)+1 {
			parts := []string{"(record " + t.Name}
			for i, f := range t.Fields {
				v, err := valueText(x.list[i+1], f.Type)
				if err != nil {
					return "", err
				}
				parts = append(parts, "("+f.Name+" "+v+")")
			}
			return strings.Join(parts, " ") + ")", nil
		}
		if len(t.Fields) == 0 && x.list == nil {
			return "(record " + t.Name + ")", nil
		}
	case *types.Variant:
		head, args := x.atom, []sexp(nil)
		if x.list != nil && len(x.list) > 0 {
			head, args = x.list[0].atom, x.list[1:]
		}
		name := strings.TrimPrefix(head, t.Name+".")
		c := t.Case(name)
		if c == nil || len(c.Fields) != len(args) {
			break
		}
		if len(args) == 0 {
			return t.Name + "." + name, nil
		}
		parts := []string{"(" + t.Name + "." + name}
		for i, a := range args {
			v, err := valueText(a, c.Fields[i].Type)
			if err != nil {
				return "", err
			}
			parts = append(parts, v)
		}
		return strings.Join(parts, " ") + ")", nil
	case *types.Result:
		if len(x.list) == 2 && (x.list[0].atom == "ok" || x.list[0].atom == "err") {
			et := t.Ok
			if x.list[0].atom == "err" {
				et = t.Err
			}
			v, err := valueText(x.list[1], et)
			if err != nil {
				return "", err
			}
			return "(" + x.list[0].atom + " " + v + ")", nil
		}
	case *types.List:
		elems, ok := seqElems(x)
		if !ok {
			break
		}
		parts := []string{"(list"}
		for _, el := range elems {
			v, err := valueText(el, t.Elem)
			if err != nil {
				return "", err
			}
			parts = append(parts, v)
		}
		return strings.Join(parts, " ") + ")", nil
	case *types.Option:
		if x.atom == "none" || len(x.list) == 3 && x.list[0].atom == "as" && x.list[1].atom == "none" {
			return "none", nil
		}
		if len(x.list) == 2 && x.list[0].atom == "some" {
			v, err := valueText(x.list[1], t.Elem)
			if err != nil {
				return "", err
			}
			return "(some " + v + ")", nil
		}
	}
	return "", fmt.Errorf("cannot read %s as %s", x, types.Describe(t))
}

// seqElems reads a Z3 sequence value: (as seq.empty S), (seq.unit X) or
// (seq.++ A B ...).
func seqElems(x sexp) ([]sexp, bool) {
	switch {
	case len(x.list) == 3 && x.list[0].atom == "as" && x.list[1].atom == "seq.empty":
		return nil, true
	case len(x.list) == 2 && x.list[0].atom == "seq.unit":
		return []sexp{x.list[1]}, true
	case len(x.list) >= 1 && x.list[0].atom == "seq.++":
		var out []sexp
		for _, y := range x.list[1:] {
			ys, ok := seqElems(y)
			if !ok {
				return nil, false
			}
			out = append(out, ys...)
		}
		return out, true
	}
	return nil, false
}

// unsurrogate replaces a surrogate code point, which a Z3 string may hold
// (U+D800 to U+DFFF) but no Text value does (Text is valid UTF-8), by a
// private-use character (U+E000 to U+E7FF), one for one. The encoded
// operations (concatenation, length, containment, prefixes, suffixes,
// equality) treat every character alike apart from the ones literals
// name, so the renamed values break an obligation as the solver's did;
// the interpreter's confirmation checks it.
func unsurrogate(r rune) rune {
	if r >= 0xD800 && r <= 0xDFFF {
		return 0xE000 + (r - 0xD800)
	}
	return r
}

// smtUnescape decodes the \u{HEX} (and \uHHHH) escapes of a Z3 string
// (surrogates renamed by unsurrogate).
func smtUnescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) || s[i+1] != 'u' {
			b.WriteByte(s[i])
			continue
		}
		rest := s[i+2:]
		var hex string
		switch {
		case strings.HasPrefix(rest, "{"):
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return "", fmt.Errorf("bad escape in solver string %q", s)
			}
			hex, i = rest[1:end], i+2+end
		case len(rest) >= 4:
			hex, i = rest[:4], i+5
		default:
			return "", fmt.Errorf("bad escape in solver string %q", s)
		}
		n, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return "", fmt.Errorf("bad escape in solver string %q", s)
		}
		b.WriteRune(unsurrogate(rune(n)))
	}
	return b.String(), nil
}

// bvValue reads a bit-vector literal (#x..., #b... or (_ bvN W)) or, in
// integer mode, a numeral or (- N).
func bvValue(x sexp) (*big.Int, error) {
	n := new(big.Int)
	switch {
	case x.list == nil && x.atom != "" && x.atom[0] >= '0' && x.atom[0] <= '9':
		if _, ok := n.SetString(x.atom, 10); ok {
			return n, nil
		}
	case len(x.list) == 2 && x.list[0].atom == "-":
		if m, err := bvValue(x.list[1]); err == nil {
			return m.Neg(m), nil
		}
	case strings.HasPrefix(x.atom, "#x"):
		if _, ok := n.SetString(x.atom[2:], 16); ok {
			return n, nil
		}
	case strings.HasPrefix(x.atom, "#b"):
		if _, ok := n.SetString(x.atom[2:], 2); ok {
			return n, nil
		}
	case len(x.list) == 3 && x.list[0].atom == "_" && strings.HasPrefix(x.list[1].atom, "bv"):
		if _, ok := n.SetString(x.list[1].atom[2:], 10); ok {
			return n, nil
		}
	}
	return nil, fmt.Errorf("expected a bit-vector, found %s", x)
}
