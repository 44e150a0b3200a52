package capsule

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
	yast "github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/capsulang/caps/syntax"
)

// kind is the shape of a YAML node.
type kind int

const (
	kindNull kind = iota
	kindString
	kindInt
	kindFloat
	kindBool
	kindMap
	kindSeq
)

func (k kind) String() string {
	return [...]string{"null", "a string", "an integer", "a number", "a Boolean", "a mapping", "a list"}[k]
}

// node is a YAML value with its place in the source (byte offsets).
type node struct {
	kind    kind
	text    string // a scalar's value
	span    syntax.Span
	entries []*entry // a mapping's, in source order
	items   []*node  // a list's
}

// entry is one key: value of a mapping.
type entry struct {
	key     string
	keySpan syntax.Span
	val     *node
}

// reader turns goccy's YAML AST into nodes with byte spans.
type reader struct {
	text  []byte
	lines *syntax.Mapper
	diags []syntax.Diagnostic
}

// readYAML parses text into one node (nil when the text is empty or has
// no document) and the diagnostics of what cannot be read.
func readYAML(text []byte) (*node, []syntax.Diagnostic) {
	r := &reader{text: text, lines: syntax.NewMapper(text)}
	f, err := parser.ParseBytes(text, 0)
	if err != nil {
		r.syntaxError(err)
		return nil, r.diags
	}
	var docs []*yast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		return nil, nil
	}
	if len(docs) > 1 {
		start := docs[1].Start
		if start == nil {
			start = docs[1].GetToken()
		}
		r.errorf(CodeYAML, r.tokenSpan(start), "a contract is one YAML document; this file has %d: remove the `---` separators and the extra documents", len(docs))
		return nil, r.diags
	}
	return r.node(docs[0].Body), r.diags
}

func (r *reader) errorf(code string, span syntax.Span, format string, args ...any) {
	r.diags = append(r.diags, syntax.Diagnostic{Code: code, Severity: syntax.Error, Span: span, Message: fmt.Sprintf(format, args...)})
}

func (r *reader) syntaxError(err error) {
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil {
		msg := ye.GetMessage()
		r.errorf(CodeYAML, r.tokenSpan(ye.GetToken()), "not valid YAML: %s", msg)
		return
	}
	r.errorf(CodeYAML, syntax.Span{}, "not valid YAML: %v", err)
}

// offset is the byte offset of a 1-based line and 1-based column counted
// in characters, as goccy reports them.
func (r *reader) offset(line, col int) int {
	return r.lines.PointOffset(syntax.Point{Line: line, Column: col})
}

// tokenSpan is the span of a token's text.
func (r *reader) tokenSpan(t *token.Token) syntax.Span {
	if t == nil {
		return syntax.Span{}
	}
	start := r.offset(t.Position.Line, t.Position.Column)
	return syntax.Span{Start: start, End: r.scalarEnd(start, t.Value)}
}

// scalarEnd finds where the scalar that starts at start ends: after its
// closing quote, or after its plain text.
func (r *reader) scalarEnd(start int, value string) int {
	t := r.text
	if start >= len(t) {
		return len(t)
	}
	switch q := t[start]; q {
	case '"', '\'':
		for i := start + 1; i < len(t); i++ {
			switch {
			case q == '"' && t[i] == '\\':
				i++
			case t[i] == q && q == '\'' && i+1 < len(t) && t[i+1] == '\'':
				i++
			case t[i] == q:
				return i + 1
			}
		}
		return len(t)
	}
	if strings.HasPrefix(string(t[start:]), value) && value != "" {
		return start + len(value)
	}
	end := start
	for end < len(t) && t[end] != '\n' && t[end] != '\r' {
		end++
	}
	return end
}

func (r *reader) node(n yast.Node) *node {
	switch v := n.(type) {
	case nil:
		return &node{kind: kindNull}
	case *yast.NullNode:
		return &node{kind: kindNull, span: r.tokenSpan(v.GetToken())}
	case *yast.StringNode:
		return &node{kind: kindString, text: v.Value, span: r.tokenSpan(v.GetToken())}
	case *yast.LiteralNode:
		return &node{kind: kindString, text: v.Value.Value, span: r.tokenSpan(v.Start)}
	case *yast.IntegerNode:
		return &node{kind: kindInt, text: v.GetToken().Value, span: r.tokenSpan(v.GetToken())}
	case *yast.FloatNode:
		return &node{kind: kindFloat, text: v.GetToken().Value, span: r.tokenSpan(v.GetToken())}
	case *yast.BoolNode:
		return &node{kind: kindBool, text: v.GetToken().Value, span: r.tokenSpan(v.GetToken())}
	case *yast.InfinityNode, *yast.NanNode:
		return &node{kind: kindFloat, text: n.GetToken().Value, span: r.tokenSpan(n.GetToken())}
	case *yast.TagNode:
		r.errorf(CodeYAML, r.tokenSpan(v.Start), "YAML tags (%s) are not part of a contract: remove the tag", v.Start.Value)
		return r.node(v.Value)
	case *yast.AnchorNode:
		r.errorf(CodeYAML, r.tokenSpan(v.Start), "YAML anchors are not part of a contract: write the value out where it is used")
		return r.node(v.Value)
	case *yast.AliasNode:
		r.errorf(CodeYAML, r.tokenSpan(v.Start), "YAML aliases are not part of a contract: write the value out instead of *%s", v.Value)
		return &node{kind: kindNull, span: r.tokenSpan(v.Start)}
	case *yast.MappingNode:
		m := &node{kind: kindMap}
		for _, kv := range v.Values {
			r.entry(m, kv)
		}
		m.span = mapSpan(m)
		return m
	case *yast.MappingValueNode:
		m := &node{kind: kindMap}
		r.entry(m, v)
		m.span = mapSpan(m)
		return m
	case *yast.SequenceNode:
		s := &node{kind: kindSeq, span: r.tokenSpan(v.Start)}
		s.span.End = s.span.Start + 1
		for _, it := range v.Values {
			s.items = append(s.items, r.node(it))
		}
		return s
	case *yast.CommentGroupNode, *yast.CommentNode:
		return &node{kind: kindNull}
	}
	r.errorf(CodeYAML, r.tokenSpan(n.GetToken()), "a %s is not part of a contract", n.Type())
	return &node{kind: kindNull, span: r.tokenSpan(n.GetToken())}
}

func mapSpan(m *node) syntax.Span {
	if len(m.entries) == 0 {
		return syntax.Span{}
	}
	return m.entries[0].keySpan
}

func (r *reader) entry(m *node, kv *yast.MappingValueNode) {
	if kv.Key == nil {
		return
	}
	var key yast.Node = kv.Key
	if mk, ok := key.(*yast.MappingKeyNode); ok {
		key = mk.Value
	}
	e := &entry{keySpan: r.tokenSpan(key.GetToken())}
	switch k := key.(type) {
	case *yast.StringNode:
		e.key = k.Value
	case *yast.MergeKeyNode:
		r.errorf(CodeYAML, e.keySpan, "YAML merge keys (<<) are not part of a contract: write the keys out")
		return
	default:
		e.key = key.GetToken().Value
	}
	e.val = r.node(kv.Value)
	if e.val.kind == kindNull && e.val.span == (syntax.Span{}) {
		e.val.span = e.keySpan
	}
	m.entries = append(m.entries, e)
}
