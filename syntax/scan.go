package syntax

import (
	"bytes"
	"unicode/utf8"
)

// This file is a scanner that builds, for source text without syntax
// errors, exactly the flattened CST tree-sitter would (same nodes, order,
// spans, symbols and links), in one pass over the bytes and with no tree
// of its own. A batch parse of a large file then costs neither
// tree-sitter's time nor its memory (tree-sitter keeps a heap node for
// every list and repetition, about 30 bytes per source byte). Text it
// cannot handle exactly as tree-sitter does, which is any text with a
// syntax error, yields nil and is parsed by tree-sitter, whose error
// recovery decides the tree there.
//
// The token rules are those of the generated lexer
// (tree-sitter-capsulang/src/parser.c, function ts_lex): lex state 11
// between forms, lex state 1 inside a string. TestScanMatchesTreeSitter and
// FuzzScan check the equivalence.

// kindSymbol is the tree-sitter symbol the scanner gives each node kind:
// the first symbol of that kind, which is the one ts_node_symbol reports
// (the closing quote's own symbol maps to the opening one's).
var kindSymbol = func() [KindError + 1]uint16 {
	var out [KindError + 1]uint16
	for s := len(symKinds) - 1; s >= 0; s-- {
		out[symKinds[s]] = uint16(s)
	}
	return out
}()

// symbolByte reports which ASCII bytes may continue a symbol (the lexer's
// sym_symbol_character_set_2): all but NUL, the whitespace \t..\r and
// space, and " ( ) ; [ ] { }. Every code point from 0x80 on continues one.
var symbolByte = func() [utf8.RuneSelf]bool {
	var t [utf8.RuneSelf]bool
	for b := 1; b < utf8.RuneSelf; b++ {
		t[b] = !isSpace(byte(b)) && !bytes.ContainsRune([]byte(`"();[]{}`), rune(b))
	}
	return t
}()

// isSpace reports the ASCII whitespace the grammar skips: \t..\r and space.
func isSpace(b byte) bool { return b == ' ' || '\t' <= b && b <= '\r' }

// isNumberByte reports the bytes that continue a number: [.0-9A-Za-z_].
func isNumberByte(b byte) bool {
	return b == '.' || b == '_' || '0' <= b && b <= '9' || 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z'
}

// isHex reports whether b is a hexadecimal digit.
func isHex(b byte) bool { return '0' <= b && b <= '9' || 'A' <= b && b <= 'F' || 'a' <= b && b <= 'f' }

// bom is U+FEFF in UTF-8, which the grammar skips like whitespace between
// tokens.
const bom = "\uFEFF"

// scanner holds the state of one scan. With nodes nil it only counts the
// nodes and the tokens (the first pass); otherwise it fills nodes, or, in
// token mode (toks non-nil), the reader's tokens and the comments.
type scanner struct {
	src   []byte
	nodes []Node
	n     int32   // nodes emitted so far
	open  []int32 // the root, then each list not yet closed

	ntok     int     // tokens emitted so far
	toks     []token // token mode: the tokens, as Read would list them
	comments []Span  // token mode, and counting with items: the comments

	// items, when not nil, counts and records (scanItems) the spans of
	// the forms at the top level (tops) and inside the first top-level
	// list (items).
	items     *[]Span
	tops      []Span
	itemStart int
}

// scan returns the CST nodes of src as tree-sitter would flatten them, or
// nil when src has a syntax error (or a NUL byte or invalid UTF-8, which
// tree-sitter decodes in its own way). It makes two passes, one to count
// the nodes and one to fill an array of exactly that size.
func scan(src []byte) []Node {
	if bytes.IndexByte(src, 0) >= 0 || !utf8.Valid(src) {
		return nil
	}
	count := &scanner{src: src}
	if !count.run() {
		return nil
	}
	fill := &scanner{src: src, nodes: make([]Node, count.n), open: make([]int32, 0, cap(count.open))}
	fill.run()
	return fill.nodes
}

// emit adds a node with the given kind and span as the last child of the
// innermost open node and returns its index.
func (s *scanner) emit(k Kind, start, end int) int32 {
	i := s.n
	s.n++
	isTok := k == KindLParen || k == KindRParen || k == KindSymbol || k == KindNumber || k == KindString
	if isTok {
		s.ntok++
	}
	if s.toks != nil {
		// Token mode: a token's index in toks stands for its node (setEnd
		// sets a string's end); lists and the root have none, and a
		// string's parts are not tokens.
		switch {
		case isTok:
			s.toks = append(s.toks, token{start: uint32(start), end: uint32(end), kind: k})
			return int32(len(s.toks) - 1)
		case k == KindComment:
			s.comments = append(s.comments, Span{start, end})
		}
		return -1
	}
	if s.nodes == nil {
		if s.items != nil && k != KindString { // (str records a string)
			s.record(k, start, end)
		}
		return i
	}
	parent := int32(-1)
	if len(s.open) > 0 {
		parent = s.open[len(s.open)-1]
		p := &s.nodes[parent]
		if p.Last >= 0 {
			s.nodes[p.Last].Next = i
		}
		p.Last = i
	}
	s.nodes[i] = Node{Start: uint32(start), End: uint32(end), Parent: parent, Next: -1, Last: -1, Symbol: kindSymbol[k]}
	return i
}

// record notes, for scanItems, the forms at the top level and those
// inside the first top-level list, and the comments; the lists open when
// a token is emitted are s.open (the root first).
func (s *scanner) record(k Kind, start, end int) {
	depth := len(s.open) - 1 // lists open around the token
	switch k {
	case KindComment:
		s.comments = append(s.comments, Span{start, end})
	case KindLParen:
		if depth == 1 { // (the list itself is open already)
			s.tops = append(s.tops, Span{start, start})
		}
		if depth == 2 && len(s.tops) == 1 {
			s.itemStart = start
		}
	case KindRParen:
		if depth == 1 {
			s.tops[len(s.tops)-1].End = end
		}
		if depth == 2 && len(s.tops) == 1 {
			*s.items = append(*s.items, Span{s.itemStart, end})
		}
	case KindSymbol, KindNumber, KindString:
		if depth == 0 {
			s.tops = append(s.tops, Span{start, end})
		}
		if depth == 1 && len(s.tops) == 1 {
			*s.items = append(*s.items, Span{start, end})
		}
	}
}

// setEnd sets the end offset of node i (a list or string whose last token
// was just read).
func (s *scanner) setEnd(i int32, end int) {
	switch {
	case s.toks != nil:
		if i >= 0 {
			s.toks[i].end = uint32(end)
		}
	case s.nodes != nil:
		s.nodes[i].End = uint32(end)
	}
}

// run scans the whole text and reports whether it parsed without error.
// The root spans from its first token (the end of the text when there is
// none) to the end of the text.
func (s *scanner) run() bool {
	src := s.src
	root := s.emit(KindSource, len(src), len(src))
	s.open = append(s.open[:0], root)
	first := true
	for i := s.skipSpace(0); i < len(src); i = s.skipSpace(i) {
		if first {
			if s.nodes != nil && s.toks == nil {
				s.nodes[root].Start = uint32(i)
			}
			first = false
		}
		end, ok := s.token(i)
		if !ok {
			return false
		}
		i = end
	}
	return len(s.open) == 1
}

// skipSpace returns the offset of the first byte at or after i that is not
// whitespace or a byte order mark.
func (s *scanner) skipSpace(i int) int {
	src := s.src
	for i < len(src) {
		switch {
		case isSpace(src[i]):
			i++
		case src[i] == bom[0] && bytes.HasPrefix(src[i:], []byte(bom)):
			i += len(bom)
		default:
			return i
		}
	}
	return i
}

// token reads the token at i (lex state 11) and returns the offset after
// it; ok is false at a syntax error.
func (s *scanner) token(i int) (end int, ok bool) {
	src := s.src
	switch c := src[i]; {
	case c == '(':
		s.open = append(s.open, s.emit(KindList, i, i+1))
		s.emit(KindLParen, i, i+1)
		return i + 1, true
	case c == ')':
		if len(s.open) < 2 {
			return 0, false
		}
		s.emit(KindRParen, i, i+1)
		s.setEnd(s.open[len(s.open)-1], i+1)
		s.open = s.open[:len(s.open)-1]
		return i + 1, true
	case c == '"':
		return s.str(i)
	case c == ';':
		end = i + 1
		for end < len(src) && src[end] != '\n' && src[end] != '\r' {
			end++
		}
		s.emit(KindComment, i, end)
		return end, true
	case c == '[' || c == ']' || c == '{' || c == '}':
		return 0, false
	case '0' <= c && c <= '9' || c == '-' && i+1 < len(src) && '0' <= src[i+1] && src[i+1] <= '9':
		end = i + 1
		for end < len(src) && isNumberByte(src[end]) {
			end++
		}
		s.emit(KindNumber, i, end)
		return end, true
	}
	end = i + 1
	for end < len(src) && (src[end] >= utf8.RuneSelf || symbolByte[src[end]]) {
		end++
	}
	s.emit(KindSymbol, i, end)
	return end, true
}

// str reads the string that opens at i (lex state 1 inside it): the
// string node, its quotes, and a string_content node for each run of
// plain text or an escape_sequence node for each escape. A line break or
// the end of the text before the closing quote is a syntax error.
func (s *scanner) str(i int) (end int, ok bool) {
	src := s.src
	node := s.emit(KindString, i, i)
	s.open = append(s.open, node)
	s.emit(KindQuote, i, i+1)
	for j := i + 1; j < len(src); {
		switch src[j] {
		case '"':
			s.emit(KindQuote, j, j+1)
			s.setEnd(node, j+1)
			s.open = s.open[:len(s.open)-1]
			if s.items != nil && s.nodes == nil && s.toks == nil {
				s.record(KindString, i, j+1) // (emit saw no end)
			}
			return j + 1, true
		case '\n', '\r':
			return 0, false
		case '\\':
			n := escapeLen(src[j:])
			if n == 0 {
				return 0, false
			}
			s.emit(KindEscape, j, j+n)
			j += n
		default:
			k := j + 1
			for k < len(src) && src[k] != '"' && src[k] != '\\' && src[k] != '\n' && src[k] != '\r' {
				k++
			}
			s.emit(KindStringContent, j, k)
			j = k
		}
	}
	return 0, false
}

// escapeLen returns the length of the escape sequence at the start of b
// (which begins with a backslash), or 0 when it is a syntax error. An
// escape is \u{1 to 6 hex digits}, else \ and any one character but a line
// feed (\u alone included).
func escapeLen(b []byte) int {
	if len(b) < 2 || b[1] == '\n' {
		return 0
	}
	if b[1] == 'u' && len(b) > 3 && b[2] == '{' {
		k := 3
		for k < len(b) && k < 9 && isHex(b[k]) {
			k++
		}
		if k > 3 && k < len(b) && b[k] == '}' {
			return k + 1
		}
	}
	_, size := utf8.DecodeRune(b[1:])
	return 1 + size
}

// scanned returns the CST of src built by the scanner, or nil when src
// needs tree-sitter.
func scanned(src []byte) *CST {
	nodes := scan(src)
	if nodes == nil {
		return nil
	}
	return newFlat(src, nodes, NewMapper(src))
}

// scanItems returns the spans of the forms at the top level of src and of
// the items of its first top-level form when that is a list, and its
// comments, or ok false when src needs tree-sitter (as scanTokens). It
// keeps no token: its memory is the spans.
func scanItems(src []byte) (tops, items, comments []Span, ok bool) {
	if bytes.IndexByte(src, 0) >= 0 || !utf8.Valid(src) {
		return nil, nil, nil, false
	}
	s := &scanner{src: src, items: &items}
	if !s.run() {
		return nil, nil, nil, false
	}
	return s.tops, items, s.comments, true
}

// scanTokens returns the tokens and the comments of src, as Read lists them
// from the CST scan would build, or ok false when src needs tree-sitter.
// It builds no node array: its memory is the tokens alone, a third of the
// nodes'.
func scanTokens(src []byte) (toks []token, comments []Span, ok bool) {
	if bytes.IndexByte(src, 0) >= 0 || !utf8.Valid(src) {
		return nil, nil, false
	}
	count := &scanner{src: src}
	if !count.run() {
		return nil, nil, false
	}
	fill := &scanner{src: src, toks: make([]token, 0, count.ntok), open: make([]int32, 0, cap(count.open))}
	fill.run()
	return fill.toks, fill.comments, true
}
