package syntax

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// FormKind says what a Form is.
type FormKind uint8

const (
	FormList FormKind = iota + 1
	FormSymbol
	FormNumber
	FormString
)

func (k FormKind) String() string {
	switch k {
	case FormList:
		return "list"
	case FormSymbol:
		return "symbol"
	case FormNumber:
		return "number"
	case FormString:
		return "string"
	}
	return "form"
}

// A Form is one S-expression: a list, a symbol, a number or a string.
//
// A Form is 24 bytes: a large file has one per token, so the reader keeps
// them small (issue 19). Its span is kept in 32 bits (sources are at most
// a few MB) and read through Span; a list's items and an atom's text share
// one pointer and one length, read through Items and Text. NewList and
// NewAtom make forms. Forms are immutable once made.
type Form struct {
	start, end uint32
	Kind       FormKind
	// Closed reports whether a list has its closing parenthesis.
	Closed bool
	// n is the number of a list's items or the length of an atom's text,
	// and p points to the first item or the first byte of the text (nil
	// when there is none).
	n uint32
	p unsafe.Pointer
}

// NewList returns a list form with the given items. The form keeps items,
// which the caller must not modify afterwards.
func NewList(sp Span, items []*Form, closed bool) *Form {
	f := &Form{}
	*f = ListForm(sp, items, closed)
	return f
}

// ListForm is NewList returning the form itself, for callers that lay out
// forms in arrays.
func ListForm(sp Span, items []*Form, closed bool) Form {
	return Form{start: uint32(sp.Start), end: uint32(sp.End), Kind: FormList, Closed: closed, n: uint32(len(items)), p: unsafe.Pointer(unsafe.SliceData(items))}
}

// NewAtom returns a symbol, number or string form with the given text (the
// source text of a symbol or number, the decoded value of a string).
func NewAtom(kind FormKind, sp Span, text string) *Form {
	f := &Form{}
	*f = AtomForm(kind, sp, text)
	return f
}

// AtomForm is NewAtom returning the form itself.
func AtomForm(kind FormKind, sp Span, text string) Form {
	return Form{start: uint32(sp.Start), end: uint32(sp.End), Kind: kind, n: uint32(len(text)), p: unsafe.Pointer(unsafe.StringData(text))}
}

// Span covers the whole form. An unclosed list ends after its last item.
func (f *Form) Span() Span { return Span{int(f.start), int(f.end)} }

// Text is the source text of a symbol or number, and the decoded value of
// a string; "" for a list.
func (f *Form) Text() string {
	if f.Kind == FormList || f.n == 0 {
		return ""
	}
	return unsafe.String((*byte)(f.p), f.n)
}

// Items are the elements of a list; nil for an atom. The slice is shared:
// callers must not modify it (appending to it copies, as its capacity is
// its length).
func (f *Form) Items() []*Form {
	if f.Kind != FormList || f.n == 0 {
		return nil
	}
	return unsafe.Slice((**Form)(f.p), f.n)
}

// Head returns the text of a list's first item when it is a symbol, else "".
func (f *Form) Head() string {
	if f.Kind == FormList && f.n > 0 {
		if h := *(**Form)(f.p); h.Kind == FormSymbol {
			return h.Text()
		}
	}
	return ""
}

// IsList reports whether f is a list.
func (f *Form) IsList() bool { return f != nil && f.Kind == FormList }

// IsSymbol reports whether f is a symbol.
func (f *Form) IsSymbol() bool { return f != nil && f.Kind == FormSymbol }

// MaxDepth bounds list nesting. Deeper lists are reported and their contents
// ignored, so that no later stage recurses without bound.
const MaxDepth = 256

// Source is a parsed file: its CST, its top-level forms, its comments and
// its syntax diagnostics.
type Source struct {
	CST         *CST
	Forms       []*Form
	Comments    []Span
	Diagnostics []Diagnostic
	// TooDeep reports that a list nests deeper than MaxDepth (reported
	// once, at the first such list).
	TooDeep bool
	// depth is how many lists enclose the forms read (ReadNode).
	depth int
	// resume, when set, is a read from between two items of a list that
	// stays open (ReadFrom).
	resume *resumeRead
	// reuse, when set, is the memory the forms are made in (ReadSpanIn).
	reuse *FormArena
}

// resumeRead is what assemble needs to read from between two items of an
// open list, and what it found.
type resumeRead struct {
	open  frame // the list, opened before the tokens read
	after int   // stop at the first token of a line that starts after this
	// between reports whether the other version had only the list open at
	// an offset of this one
	between func(off int) bool
	// stop is the offset where the read stopped: a line's first token
	// after `after` at which only the list was open; -1 when the tokens
	// ran out first.
	stop int
	// closed reports that the list was closed before a stop (the read
	// then goes on to the end of the text, where list is the list's form
	// and the forms after it follow it in Forms).
	closed bool
	// toEnd reports that the tokens read run to the end of the text:
	// when the list is still open there, Read closes it and the lists
	// open in it as it closes them at the end of the whole text, and
	// the list's form is Forms' only element.
	toEnd bool
}

// A token is what the reader reads as one token: a '(' or ')', or an atom
// (a symbol, number or string, whose CST children it skips), with its kind
// and span. Offsets fit in 32 bits: sources are at most a few MB.
type token struct {
	start, end uint32
	kind       Kind
}

// tok returns node i as a token.
func (c *CST) tok(i int32) token {
	sp := c.Span(i)
	return token{start: uint32(sp.Start), end: uint32(sp.End), kind: c.Kind(i)}
}

// Read turns a CST into forms. Parentheses are matched as written; when they
// do not balance, Read uses indentation to decide where a list was meant to
// end (a list that starts a line at or left of an open list's column closes
// it; a ')' followed by a line indented deeper than the list it would close
// is stray), so that one missing or extra ')' damages only the form it is in.
func Read(c *CST) *Source {
	s := &Source{CST: c}
	toks := s.tokens()
	n := len(s.Diagnostics)
	if !s.assemble(toks, false) {
		s.Forms = nil
		s.Diagnostics = s.Diagnostics[:n]
		s.assemble(toks, true)
	}
	return s
}

// ReadText parses and reads src, as Read(Parse(src)) would, for callers
// that need only the forms, the comments, the diagnostics, the text and
// its line index (batch tools). Text without syntax errors is read
// straight from the scanner's tokens, without building a CST node array:
// the returned Source's CST then has Src and Lines but no Nodes. Other
// text is parsed by tree-sitter and its CST keeps its nodes.
func ReadText(src []byte) (*Source, error) {
	if toks, comments, ok := scanTokens(src); ok {
		s := &Source{CST: &CST{Src: src, Lines: NewLines(src)}, Comments: comments}
		s.assemble(toks, false) // the scanner saw the parentheses balance
		return s, nil
	}
	c, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return Read(c), nil
}

// ReadNode reads the subtree of node i alone, as Read would read it as part
// of the whole file, provided the file has no syntax error (HasError(0) is
// false; otherwise Read's paren recovery may regroup tokens across forms).
// depth is the number of lists that enclose node i, for MaxDepth. The
// result holds the node's form (Forms has one element for a list or atom),
// the comments inside it and its lexical diagnostics.
func ReadNode(c *CST, i int32, depth int) *Source {
	s := &Source{CST: c, depth: depth}
	toks := s.tokensIn(i, c.skip(i))
	s.assemble(toks, false)
	return s
}

// skip returns the index of the first node after node i's subtree.
func (c *CST) skip(i int32) int32 {
	for k := i; k >= 0; k = c.Parent(k) {
		if n := c.Next(k); n >= 0 {
			return n
		}
	}
	return int32(c.Len())
}

func (s *Source) errorf(code string, sp Span, format string, args ...any) *Diagnostic {
	s.Diagnostics = append(s.Diagnostics, NewDiagnostic(code, Error, sp, format, args...))
	return &s.Diagnostics[len(s.Diagnostics)-1]
}

// tokens lists the file's tokens in order and records comments and lexical
// errors.
func (s *Source) tokens() []token {
	return s.tokensIn(0, int32(s.CST.Len()))
}

// tokensIn lists the tokens of nodes [from, to), a run of whole subtrees.
func (s *Source) tokensIn(from, to int32) []token {
	c := s.CST
	toks := make([]token, 0, to-from) // at most one token a node
	for i := from; i < to; {
		switch c.Kind(i) {
		case KindLParen, KindRParen:
			if !c.Missing(i) {
				toks = append(toks, c.tok(i))
			}
		case KindSymbol, KindNumber, KindString:
			if sp := c.Span(i); !(c.Missing(i) && sp.Start == sp.End) {
				toks = append(toks, c.tok(i))
			}
			i = c.skip(i)
			continue
		case KindComment:
			s.Comments = append(s.Comments, c.Span(i))
		case KindError:
			if p := c.Parent(i); p < 0 || c.Kind(p) != KindError {
				s.errorGaps(i)
			}
		case KindSource, KindList:
		}
		i++
	}
	return toks
}

// errorGaps reports the text of an ERROR node that no child token covers.
func (s *Source) errorGaps(i int32) {
	c := s.CST
	pos := c.Span(i).Start
	report := func(a, b int) {
		text := strings.TrimSpace(string(c.Src[a:b]))
		if text == "" {
			return
		}
		off := a + strings.Index(string(c.Src[a:b]), text)
		r, _ := utf8.DecodeRuneInString(text)
		sp := Span{off, off + len(text)}
		if r == '[' || r == ']' || r == '{' || r == '}' {
			s.errorf(CodeParse, Span{off, off + 1}, "unexpected %q; Capsulang uses only ( ) for lists", r)
			return
		}
		s.errorf(CodeParse, sp, "unexpected %s", quoteText(text))
	}
	for k := c.FirstChild(i); k >= 0; k = c.Next(k) {
		switch c.Kind(k) {
		case KindOther:
			continue // covered by the gap scan
		case KindError:
			s.errorGaps(k)
		}
		report(pos, c.Span(k).Start)
		pos = c.Span(k).End
	}
	report(pos, c.Span(i).End)
}

// quoteText quotes stray source text in a message, clipped.
func quoteText(t string) string { return Quote(t) }

// formChunk and itemChunk are how many forms (32 KiB) and item pointers
// (32 KiB) the reader allocates at a time.
const (
	formChunk = 1024
	itemChunk = 4096
)

type frame struct {
	open  token
	items int // index in pending where this list's items start
	line  int
	col   int
}

// assemble builds forms from tokens. Without recover it reports whether the
// parentheses balance; with recover it always succeeds.
func (s *Source) assemble(toks []token, recover bool) bool {
	c := s.CST
	nforms := 0
	for _, t := range toks {
		if t.kind != KindRParen {
			nforms++
		}
	}
	// Forms and item lists are allocated in chunks rather than in one
	// array each, so that a large file's forms need no single huge
	// allocation and reuse the memory earlier stages freed.
	left := nforms // forms not yet allocated, for sizing the chunks
	var arena []Form
	itemsLeft := nforms // items not yet allocated (at most one per form)
	var itemArena []*Form
	pending := make([]*Form, 0, min(64, nforms+1))
	if a := s.reuse; a != nil {
		// (room for every form and item: the chunks are never replaced)
		if cap(a.forms) < nforms {
			a.forms = make([]Form, 0, 2*nforms)
			a.items = make([]*Form, 0, 2*nforms)
		}
		arena, itemArena, pending = a.forms[:0], a.items[:0], a.pending[:0]
		defer func() { a.forms, a.items, a.pending = arena, itemArena, pending[:0] }()
	}
	newForm := func(f Form) *Form {
		if len(arena) == cap(arena) {
			arena = make([]Form, 0, max(1, min(formChunk, left)))
		}
		left--
		arena = append(arena, f)
		return &arena[len(arena)-1]
	}
	stack := make([]frame, 0, 8)
	tooDeep := false
	lastLine := -1
	r := s.resume
	if r != nil {
		stack = append(stack, r.open)
		r.stop = -1
	}

	closeList := func(end int, closed bool) {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		items := pending[f.items:]
		if itemArena == nil || len(items) > cap(itemArena)-len(itemArena) {
			itemArena = make([]*Form, 0, max(len(items), min(itemChunk, itemsLeft)))
		}
		itemsLeft -= len(items)
		start := len(itemArena)
		itemArena = append(itemArena, items...)
		pending = pending[:f.items]
		if !closed && len(items) > 0 {
			end = items[len(items)-1].Span().End
		}
		if !closed && len(items) == 0 {
			end = int(f.open.end)
		}
		list := newForm(ListForm(Span{int(f.open.start), end}, itemArena[start:len(itemArena):len(itemArena)], closed))
		if s.depth+len(stack) < MaxDepth {
			pending = append(pending, list)
		}
		if !closed {
			s.Diagnostics = append(s.Diagnostics, Diagnostic{
				Code: CodeParse, Severity: Error, Span: Span{end, end},
				Message: "missing `)` to close the list opened here",
				Related: []Related{{Span: Span{int(f.open.start), int(f.open.end)}, Message: "the unclosed `(`"}},
				Fix:     &Fix{Kind: FixInsertParen},
			})
		}
	}
	lineCol := func(off int) (int, int) {
		l := c.Lines.Line(off)
		return l, off - c.Lines.LineStart(l)
	}

	for ti, t := range toks {
		var line, col int
		first := false
		start, end := int(t.start), int(t.end)
		if recover {
			line, col = lineCol(start)
			first = line != lastLine
			lastLine = line
			if r != nil && !r.closed && first && ti > 0 && len(stack) == 1 && c.Lines.LineStart(line) > r.after && r.between(start) {
				r.stop = start
				break
			}
		}
		switch kind := t.kind; kind {
		case KindLParen:
			if recover && first {
				for len(stack) > 0 && stack[len(stack)-1].col >= col && stack[len(stack)-1].line < line {
					closeList(0, false)
				}
				if r != nil && len(stack) == 0 {
					r.closed = true
				}
			}
			if s.depth+len(stack) >= MaxDepth {
				if !tooDeep {
					s.errorf(CodeParse, Span{start, end}, "lists nest deeper than %d levels; the rest of this form is ignored", MaxDepth)
					tooDeep = true
					s.TooDeep = true
				}
			}
			stack = append(stack, frame{open: t, items: len(pending), line: line, col: col})
		case KindRParen:
			if len(stack) == 0 {
				if !recover {
					return false
				}
				s.errorf(CodeParse, Span{start, end}, "unexpected `)` with no list open; delete it").Fix = &Fix{Kind: FixDeleteParen}
				continue
			}
			if recover && s.strayClose(toks, ti, stack[len(stack)-1], lineCol) {
				s.errorf(CodeParse, Span{start, end}, "unexpected `)`: the next line is indented inside this list, so this `)` closes it too early; delete it").Fix = &Fix{Kind: FixDeleteParen}
				continue
			}
			closeList(end, true)
			if r != nil && len(stack) == 0 {
				r.closed = true
			}
		default:
			if s.depth+len(stack) > MaxDepth {
				continue
			}
			var f Form
			switch sp := (Span{start, end}); kind {
			case KindSymbol:
				f = AtomForm(FormSymbol, sp, c.str(start, end))
			case KindNumber:
				f = AtomForm(FormNumber, sp, c.str(start, end))
			case KindString:
				f = AtomForm(FormString, sp, s.decodeString(start, end))
			}
			pending = append(pending, newForm(f))
		}
	}
	if r != nil && !r.closed && (r.stop >= 0 || !r.toEnd) {
		s.Forms = append(s.Forms[:0], pending...)
		return true
	}
	if len(stack) > 0 {
		if !recover {
			return false
		}
		for len(stack) > 0 {
			closeList(0, false)
		}
	}
	s.Forms = append(s.Forms[:0], pending...)
	return true
}

// strayClose reports whether the ')' at toks[ti], which would close the list
// of frame f, is stray: the next line that starts with '(' is indented
// deeper than f's own '(' (so it was meant to be inside f).
func (s *Source) strayClose(toks []token, ti int, f frame, lineCol func(int) (int, int)) bool {
	line, _ := lineCol(int(toks[ti].start))
	for j := ti + 1; j < len(toks); j++ {
		l, col := lineCol(int(toks[j].start))
		if l == line {
			if toks[j].kind == KindRParen {
				return false // more closers on this line: judge the last one
			}
			continue
		}
		if toks[j].kind != KindLParen {
			return false
		}
		return col > f.col && f.line < l && f.col >= 0
	}
	return false
}

// decodeString returns the value of the string token [start, end),
// reporting bad escapes and a missing closing quote.
func (s *Source) decodeString(start, end int) string {
	c := s.CST
	raw := c.str(start, end)
	var body string
	if closedString(raw) {
		body = raw[1 : len(raw)-1]
	} else {
		body = raw[1:]
		s.errorf(CodeParse, Span{end, end}, "unterminated string: add `\"` before the end of the line")
	}
	if !strings.Contains(body, "\\") {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		ch := body[i]
		if ch != '\\' {
			b.WriteByte(ch)
			continue
		}
		escStart := start + 1 + i
		if i+1 >= len(body) {
			s.errorf(CodeBadLiteral, Span{escStart, escStart + 1}, "a string cannot end with a lone `\\`")
			break
		}
		i++
		switch body[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '0':
			b.WriteByte(0)
		case '\\':
			b.WriteByte('\\')
		case '"':
			b.WriteByte('"')
		case 'u':
			end := strings.IndexByte(body[i:], '}')
			if i+1 < len(body) && body[i+1] == '{' && end > 2 {
				v, err := strconv.ParseUint(body[i+2:i+end], 16, 32)
				if err == nil && utf8.ValidRune(rune(v)) {
					b.WriteRune(rune(v))
					i += end
					continue
				}
				s.errorf(CodeBadLiteral, Span{escStart, escStart + end + 2}, "`\\u{%s}` is not a valid Unicode scalar value", body[i+2:i+end])
				i += end
				continue
			}
			s.errorf(CodeBadLiteral, Span{escStart, escStart + 2}, "write Unicode escapes as \\u{1F600}")
		default:
			r, size := utf8.DecodeRuneInString(body[i:])
			s.errorf(CodeBadLiteral, Span{escStart, escStart + 1 + size}, "unknown escape `\\%c`; use \\\\ \\\" \\n \\r \\t \\0 or \\u{...}", r)
			i += size - 1
		}
	}
	return b.String()
}

// str returns the source text [a, b) without copying it. The source of a
// CST is never modified after parsing (a Document makes a new buffer for
// every edit), so the string stays valid and immutable.
func (c *CST) str(a, b int) string {
	if a >= b {
		return ""
	}
	return unsafe.String(&c.Src[a], b-a)
}

// closedString reports whether raw (a string token's text) ends with an
// unescaped quote.
func closedString(raw string) bool {
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return false
	}
	bs := 0
	for i := len(raw) - 2; i >= 1 && raw[i] == '\\'; i-- {
		bs++
	}
	return bs%2 == 0
}

// StringOffsets maps each byte offset of a string literal's decoded value
// (and the offset just past it) to an offset in raw, the literal's source
// text with its quotes, following the escapes decodeString reads. It
// returns nil for a literal that is not closed or has a bad escape.
func StringOffsets(raw string) []int {
	if !closedString(raw) {
		return nil
	}
	offs := make([]int, 0, len(raw))
	end := len(raw) - 1
	for i := 1; i < end; {
		if raw[i] != '\\' {
			_, n := utf8.DecodeRuneInString(raw[i:])
			for k := 0; k < n; k++ {
				offs = append(offs, i+k)
			}
			i += n
			continue
		}
		if i+1 >= end {
			return nil
		}
		switch raw[i+1] {
		case 'n', 'r', 't', '0', '\\', '"':
			offs = append(offs, i)
			i += 2
		case 'u':
			close := strings.IndexByte(raw[i:end], '}')
			if i+2 >= end || raw[i+2] != '{' || close < 4 {
				return nil
			}
			v, err := strconv.ParseUint(raw[i+3:i+close], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return nil
			}
			for k := 0; k < utf8.RuneLen(rune(v)); k++ {
				offs = append(offs, i)
			}
			i += close + 1
		default:
			return nil
		}
	}
	return append(offs, end)
}

// A Resumed read is what ReadFrom read.
type Resumed struct {
	// Source holds in Forms the list's items read, from from to Stop,
	// with the comments among them (and inside them) and the
	// diagnostics of the tokens read.
	*Source
	// Stop is where the read stopped, the length of the text when it
	// read to its end.
	Stop int
	// List is set when the list closed in the read, or stays open to
	// the end of the text (List.Closed false: Read closes it there, after
	// its last item, and Diagnostics hold the missing `)` it reports): its
	// form (with the items read only), and After the top-level forms
	// after it (none when it stays open).
	List  *Form
	After []*Form
}

// ReadFrom reads part of a text with a syntax error as Read reads the
// whole of it, from between two items of a list until Read is back
// between two of its items after an edit: it reads only the tokens it
// needs, instead of the whole text. The text is a new version of one
// that read without a syntax error, and as Read reads it with the
// recovery (the caller checks that once per version).
//
// open is the offset of the list's '(' and from the offset of an item's
// '(', which must start its line (only blanks before it), before which
// the two versions are the same. The read stops at the first token of a
// line that starts after offset after (where the versions' common suffix
// starts) at which only the list is open, as in the other version
// (between reports it): the two reads go on alike from there. When the
// list closes before such a stop, or stays open to the end of the text
// (a list left open that no later line closes by its indentation takes
// in the list's closing parenthesis), the read goes on to the end of the
// text. ok is false when the text's parentheses balance (Read does not
// recover then): a read of the whole text is then needed.
func ReadFrom(c *CST, open, from, after int, between func(off int) bool) (res Resumed, ok bool) {
	if c.Lines == nil || open < 0 || open >= from || from >= len(c.Src) {
		return res, false
	}
	// (the lines as the reader's recovery cuts them: a lone '\r' ends one)
	for p := c.Lines.LineStart(c.Lines.Line(from)); p < from; p++ {
		if c.Src[p] != ' ' && c.Src[p] != '\t' {
			return res, false
		}
	}
	i, ok := c.tokenNodeAt(from)
	if !ok {
		return res, false
	}
	ol := c.Lines.Line(open)
	op := frame{open: token{start: uint32(open), end: uint32(open + 1), kind: KindLParen}, line: ol, col: open - c.Lines.LineStart(ol)}
	// Read the tokens of the next n nodes, twice as many each time the
	// read runs out of tokens before a stop: the reader's decisions
	// before a stop look no further than the stop's token.
	for n := int32(1024); ; n *= 2 {
		to := int32(c.Len())
		if int64(i)+int64(n) < int64(to) {
			to = i + n
		}
		s := &Source{CST: c, resume: &resumeRead{open: op, after: after, between: between, toEnd: to == int32(c.Len())}}
		toks := s.tokensIn(i, to)
		s.assemble(toks, true)
		r := s.resume
		s.resume = nil
		if r.stop < 0 && to < int32(c.Len()) {
			continue // out of tokens (or the list closed): read further
		}
		// open: the list stays open to the end of the text, where the
		// read closed it as Read does
		openToEnd := r.stop < 0 && !r.closed
		stop := r.stop
		if r.closed || openToEnd {
			stop = len(c.Src)
		}
		// With the versions alike before from and from stop on, the
		// text's parentheses balance when they balance in [from, stop):
		// only the list open at both ends (or closed once, at the end of
		// the text), never closed otherwise.
		depth, low := 0, 0
		for _, t := range toks {
			if int(t.start) >= stop {
				break
			}
			switch t.kind {
			case KindLParen:
				depth++
			case KindRParen:
				depth--
				low = min(low, depth)
			}
		}
		if (r.closed || openToEnd) && depth == -1 && low == -1 || (!r.closed && !openToEnd && depth == 0 && low >= -1) {
			return res, false
		}
		if openToEnd && (len(s.Forms) != 1 || len(s.Forms[0].Items()) == 0) {
			return res, false
		}
		if r.closed || openToEnd {
			res.List, res.After = s.Forms[0], s.Forms[1:]
			s.Forms = res.List.Items()
		} else {
			// the comments and diagnostics of the tokens read
			k := len(s.Comments)
			for k > 0 && s.Comments[k-1].Start >= stop {
				k--
			}
			s.Comments = s.Comments[:k]
			d := s.Diagnostics[:0]
			for _, g := range s.Diagnostics {
				if g.Span.Start < stop {
					d = append(d, g)
				}
			}
			s.Diagnostics = d
		}
		res.Source, res.Stop = s, stop
		return res, true
	}
}

// tokenNodeAt returns the node of the '(' at offset off.
func (c *CST) tokenNodeAt(off int) (int32, bool) {
	if c.Len() == 0 {
		return 0, false
	}
	for i := int32(0); i >= 0; {
		sp := c.Span(i)
		if sp.Start == off && c.Kind(i) == KindLParen {
			return i, true
		}
		k := c.FirstChild(i)
		for k >= 0 && c.Span(k).End <= off {
			k = c.Next(k)
		}
		if k < 0 || c.Span(k).Start > off {
			return 0, false
		}
		i = k
	}
	return 0, false
}

// RecoversAlike tells how much of s (read without a syntax error, its
// tree with its nodes) Read's recovery reads alike, for ReadFrom: ok
// reports that the recovery reads the top-level form list, the other
// top-level forms and list's span alike, and pre and suf how many of
// list's items it reads alike from its first and from its last (all
// of them, both, when it reads list alike).
func RecoversAlike(s *Source, list *Form) (pre, suf int, ok bool) {
	if s.CST == nil || s.CST.Len() == 0 || len(s.Diagnostics) > 0 {
		return 0, 0, false
	}
	r := &Source{CST: s.CST}
	r.assemble(r.tokens(), true)
	if len(r.Forms) != len(s.Forms) {
		return 0, 0, false
	}
	var rl *Form
	for i, f := range s.Forms {
		g := r.Forms[i]
		if f != list {
			if !sameShifted(f, g, 0) {
				return 0, 0, false
			}
			continue
		}
		if g.Kind != f.Kind || g.Closed != f.Closed || g.Span() != f.Span() {
			return 0, 0, false
		}
		rl = g
	}
	if rl == nil {
		return 0, 0, false
	}
	a, b := list.Items(), rl.Items()
	for pre < len(a) && pre < len(b) && sameShifted(a[pre], b[pre], 0) {
		pre++
	}
	for suf < len(a) && suf < len(b) && sameShifted(a[len(a)-1-suf], b[len(b)-1-suf], 0) {
		suf++
	}
	return pre, suf, true
}

// sameShifted reports whether form b is form a moved by shift bytes: the
// same kinds, spans, closing parentheses and texts, all the way down.
func sameShifted(a, b *Form, shift int) bool {
	if a.Kind != b.Kind || a.Closed != b.Closed || a.Span().Start+shift != b.Span().Start || a.Span().End+shift != b.Span().End || a.Text() != b.Text() {
		return false
	}
	ai, bi := a.Items(), b.Items()
	if len(ai) != len(bi) {
		return false
	}
	for i := range ai {
		if !sameShifted(ai[i], bi[i], shift) {
			return false
		}
	}
	return true
}

// Shifted returns a copy of form f moved by shift bytes, all the way down
// (its atoms' texts shared).
func Shifted(f *Form, shift int) *Form {
	g := *f
	g.start, g.end = uint32(int(f.start)+shift), uint32(int(f.end)+shift)
	if f.Kind == FormList && f.n > 0 {
		items := make([]*Form, f.n)
		for i, it := range f.Items() {
			items[i] = Shifted(it, shift)
		}
		g.p = unsafe.Pointer(unsafe.SliceData(items))
	}
	return &g
}
