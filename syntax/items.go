package syntax

import "sync"

// ModuleItems reads a clean text that holds one top-level list (a module
// form) one item at a time, each item's forms in memory of their own, so
// that a caller which keeps little of each item (ast.BuildLean) never
// holds the forms of the whole text at once: on a large module the forms
// are about eight bytes a source byte (issue 19).
type ModuleItems struct {
	// Source has the text, its line index and its comments; its Forms
	// are nil (the items are read by Next) and it has no diagnostics.
	Source *Source
	// Span is the top-level list's.
	Span Span
	// Len is the number of the list's items.
	Len   int
	items []Span // the items' spans, nil once all are read
	next  int    // the index in items of the next one
}

// ReadModuleItems returns a reader of src's items, or ok false when src
// is not clean text (a syntax error, a NUL byte, invalid UTF-8) or does
// not hold exactly one top-level list, whose first item is the symbol
// head. The caller then reads src as a whole (ReadText). It keeps the
// items' spans, not their tokens: each item is scanned again when read.
func ReadModuleItems(src []byte, head string) (r *ModuleItems, ok bool) {
	tops, items, comments, ok := scanItems(src)
	if !ok || len(tops) != 1 || len(items) == 0 || src[tops[0].Start] != '(' {
		return nil, false
	}
	if first := items[0]; string(src[first.Start:first.End]) != head {
		return nil, false
	}
	return &ModuleItems{
		Source: &Source{CST: &CST{Src: src, Lines: NewLines(src)}, Comments: comments},
		Span:   tops[0],
		Len:    len(items),
		items:  items,
	}, true
}

// Spans returns the spans of the items Next has not read yet (all of them
// before the first Next), in order; the caller must not modify them.
func (r *ModuleItems) Spans() []Span { return r.items[min(r.next, len(r.items)):] }

// Next reads the next item, with its forms as Read would read them inside
// the list (one level deep), or returns nil, false after the last one or
// when the item's read reports a diagnostic (a list nesting deeper than
// MaxDepth, a bad escape in a string), which a whole read reports its own
// way: the caller then reads the text as a whole.
func (r *ModuleItems) Next() (*Form, bool) {
	if r.next >= len(r.items) {
		r.items = nil
		return nil, false
	}
	r.next++
	return ReadSpan(r.Source.CST, r.items[r.next-1])
}

// scanBuffer is the memory ReadSpan scans an item's tokens into, reused:
// a lean check reads each deferred function three times, and the tokens
// are garbage once its forms are made.
type scanBuffer struct {
	toks []token
	open []int32
}

var tokenBuffers = sync.Pool{New: func() any { return &scanBuffer{toks: make([]token, 0, 64), open: make([]int32, 0, 16)} }}

// ReadSpan reads again the form at sp of c's clean text (a form
// ModuleItems.Next read, one level deep), with its spans in the text:
// the tree is the one Next returned, in memory of its own. ok is false
// when sp does not hold exactly one form that reads without diagnostics.
func ReadSpan(c *CST, sp Span) (*Form, bool) { return ReadSpanIn(c, sp, nil) }

// A FormArena is memory that reads of small forms (ReadSpanIn) make their
// forms in, again and again: the forms a read makes are valid until the
// next read in the same arena, which overwrites them. A lean check reads
// each deferred function three times after its first read (its signature,
// its body, its IR), and their forms were a third of what it allocated
// (issue 19). The zero FormArena is ready to use.
type FormArena struct {
	forms   []Form
	items   []*Form
	pending []*Form
}

// ReadSpanIn is ReadSpan making the forms in a (nil: in memory of their
// own).
func ReadSpanIn(c *CST, sp Span, a *FormArena) (*Form, bool) {
	return readTokens(c, sp, sp.End, a)
}

// ReadPrefixIn reads the list form at sp of c's clean text (as ReadSpan)
// up to end only, where one of its items ends: the list read has the
// items before end, and is closed by an empty ")" at end (its span ends
// there).
func ReadPrefixIn(c *CST, sp Span, end int, a *FormArena) (*Form, bool) {
	if end <= sp.Start || end >= sp.End {
		return ReadSpanIn(c, sp, a)
	}
	return readTokens(c, sp, end, a)
}

// readTokens reads the tokens of c's text from sp.Start to end, closing
// one more list at end when end is before sp.End (ReadPrefixIn).
func readTokens(c *CST, sp Span, end int, a *FormArena) (*Form, bool) {
	if sp.Start < 0 || sp.End > len(c.Src) || sp.Start >= sp.End {
		return nil, false
	}
	// One pass, without checking the text again for NUL bytes and UTF-8:
	// it was read clean as a whole (ModuleItems).
	buf := tokenBuffers.Get().(*scanBuffer)
	defer tokenBuffers.Put(buf)
	sc := &scanner{src: c.Src[sp.Start:end], toks: buf.toks[:0], open: buf.open[:0]}
	ok := sc.run()
	if end < sp.End {
		// A prefix leaves the list open (the root and it), and its last
		// token is the ")" of the item that ends at end.
		n := len(sc.toks)
		ok = len(sc.open) == 2 && n > 0 && sc.toks[n-1].kind == KindRParen && int(sc.toks[n-1].end) == end-sp.Start
	}
	buf.toks, buf.open = sc.toks, sc.open // (grown, for the next read)
	if !ok {
		return nil, false
	}
	toks := sc.toks
	for i := range toks {
		toks[i].start += uint32(sp.Start)
		toks[i].end += uint32(sp.Start)
	}
	if end < sp.End {
		toks = append(toks, token{start: uint32(end), end: uint32(end), kind: KindRParen})
		buf.toks = toks
	}
	s := &Source{CST: c, depth: 1, reuse: a}
	if !s.assemble(toks, false) || len(s.Diagnostics) > 0 || len(s.Forms) != 1 {
		return nil, false
	}
	return s.Forms[0], true
}
