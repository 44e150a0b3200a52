package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

func init() {
	requests["textDocument/signatureHelp"] = positional(signatureHelp)
	extraFeatures = append(extraFeatures, func(c *protocol.ServerCapabilities) {
		c.SignatureHelpProvider = &protocol.SignatureHelpOptions{TriggerCharacters: []string{" ", "("}, RetriggerCharacters: []string{" "}}
	})
}

// builtinSignatures documents the built-in operations' parameters.
var builtinSignatures = map[string][]string{
	"+": {"a", "b"}, "-": {"a", "b"}, "*": {"a", "b"}, "/": {"dividend", "divisor"}, "%": {"dividend", "divisor"},
	"==": {"a", "b"}, "!=": {"a", "b"}, "<": {"a", "b"}, "<=": {"a", "b"}, ">": {"a", "b"}, ">=": {"a", "b"},
	"not": {"condition Bool"}, "some": {"value"}, "ok": {"value"}, "err": {"error"},
	"concat": {"text Text", "more Text..."}, "len": {"text-or-collection"}, "upper": {"text Text"}, "lower": {"text Text"}, "trim": {"text Text"},
	"contains": {"haystack", "needle"}, "starts-with": {"text Text", "prefix Text"}, "ends-with": {"text Text", "suffix Text"},
	"to-text": {"value"}, "get": {"collection", "index-or-key"}, "append": {"list", "item"},
	"is-some": {"option"}, "is-none": {"option"}, "unwrap-or": {"option", "fallback"}, "is-ok": {"result"}, "is-err": {"result"},
	"abs": {"x"}, "min": {"a", "b"}, "max": {"a", "b"},
	"if": {"condition Bool", "then", "else"}, "let": {"((name value)...)", "body"}, "match": {"value", "(pattern result)..."},
}

func signatureHelp(_ context.Context, sn *snapshot, off int) (any, error) {
	v := sn.view()
	path := v.path(off)
	for i := len(path) - 1; i >= 0; i-- {
		f := path[i]
		if f.Kind != syntax.FormList || len(f.Items()) == 0 || f.Items()[0].Kind != syntax.FormSymbol {
			continue
		}
		if off <= f.Items()[0].Span().End {
			continue // still typing the head
		}
		name := f.Items()[0].Text()
		active := itemIndex(f, off) - 1
		if sig := functionSignature(v.decls(), name); sig != nil {
			return help(sig, active), nil
		}
		if ps, ok := builtinSignatures[name]; ok {
			return help(&signature{label: name, params: ps}, active), nil
		}
		if e := catalog.LookupEffect(name); e != nil {
			return help(&signature{label: name, params: []string{"target " + e.Target, "args..."}, doc: e.Description}, active), nil
		}
	}
	return nil, nil
}

type signature struct {
	label  string
	params []string
	result string
	doc    string
}

func functionSignature(decls []ast.Decl, name string) *signature {
	for _, d := range decls {
		fn, ok := d.(*ast.Function)
		if !ok || fn.Name.Name != name {
			continue
		}
		s := &signature{label: name, doc: fn.Doc}
		for _, in := range fn.Inputs {
			t := "?"
			if in.Type != nil {
				t = typeText(in.Type)
			}
			s.params = append(s.params, in.Name.Name+" "+t)
		}
		if fn.Output != nil {
			s.result = typeText(fn.Output)
		}
		return s
	}
	return nil
}

func typeText(t *ast.TypeRef) string {
	if len(t.Args) == 0 {
		return t.Name.Name
	}
	parts := []string{t.Name.Name}
	for _, a := range t.Args {
		parts = append(parts, typeText(a))
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func help(s *signature, active int) *protocol.SignatureHelp {
	label := "(" + s.label
	var params []protocol.ParameterInformation
	for _, p := range s.params {
		label += " "
		params = append(params, protocol.ParameterInformation{Label: p})
		label += p
	}
	label += ")"
	if s.result != "" {
		label += " -> " + s.result
	}
	if active < 0 {
		active = 0
	}
	if active >= len(params) && len(params) > 0 {
		active = len(params) - 1
	}
	info := protocol.SignatureInformation{Label: label, Parameters: params}
	if s.doc != "" {
		info.Documentation = s.doc
	}
	return &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{info}, ActiveSignature: 0, ActiveParameter: uint32(active)}
}
