package format

import (
	"cmp"
	"slices"
	"unicode/utf8"

	"github.com/capsulang/caps/syntax"
)

// maxWidth is the line length that lists are fitted into.
const maxWidth = 100

// shape is how a list is laid out.
type shape uint8

const (
	// shapeExpr: one line if it fits and holds no comment; else head and
	// first argument on the first line, the rest aligned under the first
	// argument.
	shapeExpr shape = iota
	// shapeBlock: always broken; a header of h items on the first line,
	// then one item per line indented 2.
	shapeBlock
	// shapeCompact: one line if it fits and holds no comment; else as
	// shapeBlock.
	shapeCompact
)

// declarations are the (KIND NAME clause...) forms laid out as blocks.
var declarations = map[string]bool{
	"function": true, "machine": true, "store": true, "surface": true,
	"port": true, "agent": true, "action": true, "tool": true, "skill": true,
	// governance (improvement) forms
	"contract": true, "lineage": true, "objective": true, "eval-suite": true,
	"successor-contract": true, "budget": true, "gate": true,
	"deployment-policy": true, "improvement-record": true,
	"verification-hook": true,
	// authority IR forms
	"principal": true, "mandate": true, "delegation": true, "capability": true,
	"authority-policy": true, "trust-boundary": true,
	"telemetry-obligation": true, "memory-policy": true, "zk-proof": true,
	// claims before facts
	"acceptance": true,
}

// clauseLists are the clauses that list one item per line.
var clauseLists = map[string]bool{
	"context": true, "assign": true, "effects": true, "persistence": true,
	"public": true, "private": true,
}

// classify returns the shape of list n, whose parent list has head parent
// ("" at top level), and its header length for shapeBlock and shapeCompact.
func classify(n *syntax.Form, parent string) (shape, int) {
	items := n.Items()
	head := n.Head()
	if head == "" {
		return shapeExpr, 0
	}
	named := len(items) >= 2 && isAtom(items[1])
	switch {
	case head == "module":
		if named && len(items) > 2 {
			return shapeBlock, 2
		}
		if !named && len(items) > 1 {
			return shapeBlock, 1
		}
	case declarations[head]:
		if named && anyList(items[2:]) {
			return shapeBlock, 2
		}
	case head == "state":
		if len(items) >= 2 && !named {
			if anyList(items[1:]) { // (state (field T)...) of a surface
				return shapeBlock, 1
			}
			break
		}
		switch {
		case len(items) <= 2:
		case len(items) == 3 && !(!isAtom(items[2]) && items[2].Head() == "on"):
			return shapeCompact, 2
		default:
			return shapeBlock, 2
		}
	case head == "on":
		if parent == "state" && named && anyList(items[2:]) {
			return shapeBlock, 2
		}
	case head == "event":
		if named && anyList(items[2:]) {
			return shapeBlock, 2
		}
		if len(items) >= 2 && !named { // payload type (event (field T)...)
			return fields(items[1:])
		}
	case clauseLists[head]:
		if anyList(items[1:]) {
			return shapeBlock, 1
		}
	case head == "input":
		return fields(items[1:])
	case head == "record" || head == "variant" || head == "error":
		if parent == "type" && len(items) >= 2 && !named {
			return fields(items[1:])
		}
	case head == "type":
		if named && len(items) >= 3 {
			if len(items) == 3 && !isAtom(items[2]) {
				if s, _ := classify(items[2], "type"); s == shapeBlock {
					return shapeBlock, 2
				}
			}
			return shapeCompact, 2
		}
	}
	return shapeExpr, 0
}

// fields classifies a field list whose members are ms.
func fields(ms []*syntax.Form) (shape, int) {
	lists := 0
	for _, m := range ms {
		if !isAtom(m) {
			lists++
		}
	}
	switch {
	case lists >= 2:
		return shapeBlock, 1
	case lists == 1:
		return shapeCompact, 1
	}
	return shapeExpr, 0
}

func anyList(ns []*syntax.Form) bool {
	for _, n := range ns {
		if !isAtom(n) {
			return true
		}
	}
	return false
}

func allLists(ns []*syntax.Form) bool {
	for _, n := range ns {
		if isAtom(n) {
			return false
		}
	}
	return true
}

// printer writes the formatted text.
type printer struct {
	f   *file
	src []byte // the source, for the text of atoms
	out []byte
	col int // column of the next byte, in code points

	// top is the top-level form being printed, and topItems where its
	// items printed one per line are in the output (nil until one is).
	top      *syntax.Form
	topItems []outSpan
}

// outSpan is where an item, with its attached comments, is in the output
// (zero when it was not printed on a line of its own).
type outSpan struct{ start, end int32 }

func (s outSpan) printed() bool { return s.end > 0 }

var spaces = []byte("                                                                ")

// atom returns the source text of the atom n.
func (p *printer) atom(n *syntax.Form) []byte { return p.src[n.Span().Start:n.Span().End] }

// maxAtomBytes is the longest prefix of an atom whose code points width
// counts: it holds more than maxWidth code points when the atom is longer.
const maxAtomBytes = (maxWidth + 1) * utf8.UTFMax

// atomWidth returns the width of atom n, or a number above maxWidth when
// it is wider than maxWidth.
func (p *printer) atomWidth(n *syntax.Form) int {
	t := p.atom(n)
	if len(t) > maxAtomBytes {
		t = t[:maxAtomBytes]
	}
	return utf8.RuneCount(t)
}

// width returns the width of n on one line when it is at most limit, or a
// number above limit. It reads at most about limit forms, since every
// form takes at least one column: a layout decision never walks a whole
// large list.
func (p *printer) width(n *syntax.Form, limit int) int {
	if isAtom(n) {
		return p.atomWidth(n)
	}
	w := 2
	for i, it := range n.Items() {
		if w > limit {
			return w
		}
		if i > 0 {
			w++
		}
		w += p.width(it, limit-w)
	}
	return w
}

// rec returns where to record the output spans of the items of n from
// item i on: n's items when n is the top-level form being printed, else
// nil.
func (p *printer) rec(n *syntax.Form, i int) []outSpan {
	if n != p.top {
		return nil
	}
	if p.topItems == nil {
		p.topItems = make([]outSpan, len(n.Items()))
	}
	return p.topItems[i:]
}

func (p *printer) write(b []byte) {
	p.out = append(p.out, b...)
	p.col += utf8.RuneCount(b)
}

func (p *printer) char(c byte) {
	p.out = append(p.out, c)
	p.col++
}

// lineStart starts a new line at column indent, after a blank line if
// blank. At the very start of the output it only indents.
func (p *printer) lineStart(indent int, blank bool) {
	if len(p.out) > 0 {
		p.out = append(p.out, '\n')
		if blank {
			p.out = append(p.out, '\n')
		}
	}
	for n := indent; n > 0; {
		k := min(n, len(spaces))
		p.out = append(p.out, spaces[:k]...)
		n -= k
	}
	p.col = indent
}

func (p *printer) comment(c *comment) {
	t := trimComment(p.src[c.start:c.end])
	p.out = append(p.out, t...)
	p.col += utf8.RuneCount(t)
}

// inner reports whether a comment is attached inside list n: then it must
// break. It is asked only of lists that fit on a line, so it reads at most
// about a line's worth of forms.
func (p *printer) inner(n *syntax.Form) bool {
	if len(p.f.notes) == 0 {
		return false
	}
	// Most lists hold no comment at all: no need to look at their forms.
	cs := p.f.read.Comments
	sp := n.Span()
	k, _ := slices.BinarySearchFunc(cs, sp.Start, func(c syntax.Span, off int) int { return cmp.Compare(c.Start, off) })
	if k == len(cs) || cs[k].Start >= sp.End {
		return false
	}
	if c := p.f.c(n); c.open != nil || len(c.after) > 0 {
		return true
	}
	for _, it := range n.Items() {
		if c := p.f.c(it); c.trailing != nil || len(c.leading) > 0 {
			return true
		}
		if !isAtom(it) && p.inner(it) {
			return true
		}
	}
	return false
}

// print formats the whole file, and records in f where the top-level forms
// and the items of each are in the output.
func (f *file) print() []byte {
	p := &printer{f: f, src: f.src, out: make([]byte, 0, len(f.src)+len(f.src)/8+16)}
	forms := f.read.Forms
	f.top = make([]outSpan, len(forms))
	f.body = make([][]outSpan, len(forms))
	p.stack(forms, nil, 0, true, f.after, -1, "", f.top)
	if len(p.out) > 0 {
		p.out = append(p.out, '\n')
	}
	return p.out
}

// node prints n at the current position. trail is the number of closing
// parentheses that will follow n on its line.
func (p *printer) node(n *syntax.Form, trail int, parent string) {
	if isAtom(n) {
		p.write(p.atom(n))
		return
	}
	s, h := classify(n, parent)
	if s != shapeBlock {
		if room := maxWidth - p.col - trail; p.width(n, room) <= room && !p.inner(n) {
			p.flat(n)
			return
		}
	}
	if s == shapeExpr {
		p.broken(n, trail)
	} else {
		p.block(n, h, trail)
	}
}

// flat prints n, which holds no comments, on one line.
func (p *printer) flat(n *syntax.Form) {
	if isAtom(n) {
		p.write(p.atom(n))
		return
	}
	p.char('(')
	for i, it := range n.Items() {
		if i > 0 {
			p.char(' ')
		}
		p.flat(it)
	}
	p.char(')')
}

// block prints n with its first h items on the first line and the others
// one per line, indented 2.
func (p *printer) block(n *syntax.Form, h int, trail int) {
	col := p.col
	head := n.Head()
	items := n.Items()
	c := p.f.c(n)
	p.char('(')
	i := 0
	if c.open != nil {
		p.char(' ')
		p.comment(c.open)
	} else {
		for ; i < h; i++ {
			it := items[i]
			ic := p.f.c(it)
			if len(ic.leading) > 0 {
				break
			}
			if i > 0 {
				p.char(' ')
			}
			p.node(it, 0, head)
			if ic.trailing != nil {
				p.char(' ')
				p.comment(ic.trailing)
				i++
				break
			}
		}
	}
	p.stack(items[i:], n, col+2, true, c.after, trail, head, p.rec(n, i))
}

// broken prints the expression list n across lines.
func (p *printer) broken(n *syntax.Form, trail int) {
	col := p.col
	head := n.Head()
	items := n.Items()
	c := p.f.c(n)
	p.char('(')
	indent := col + 2
	if len(items) > 0 && !isAtom(items[0]) && allLists(items) {
		indent = col + 1
	}
	if c.open != nil || len(items) == 0 || len(p.f.c(items[0]).leading) > 0 {
		if c.open != nil {
			p.char(' ')
			p.comment(c.open)
		}
		p.stack(items, n, indent, false, c.after, trail, head, p.rec(n, 0))
		return
	}
	first, rest := items[0], items[1:]
	p.node(first, p.lastTrail(n, 0, trail), head)
	if t := p.f.c(first).trailing; t != nil {
		p.char(' ')
		p.comment(t)
		p.stack(rest, n, indent, false, c.after, trail, head, p.rec(n, 1))
		return
	}
	// The first argument goes after the head unless its first token would
	// pass the line limit there but not on a line of its own.
	if isAtom(first) && len(rest) > 0 && len(p.f.c(rest[0]).leading) == 0 {
		if l := p.lead(rest[0]); p.col+1+l <= maxWidth || indent+l > maxWidth {
			p.char(' ')
			argCol := p.col
			arg := rest[0]
			p.node(arg, p.lastTrail(n, 1, trail), head)
			if t := p.f.c(arg).trailing; t != nil {
				p.char(' ')
				p.comment(t)
			}
			p.stack(rest[1:], n, argCol, false, c.after, trail, head, p.rec(n, 2))
			return
		}
	}
	p.stack(rest, n, indent, false, c.after, trail, head, p.rec(n, 1))
}

// lead returns the width of n's first token: an atom, or the "(" of a list
// followed by the first token of its head (a number above maxWidth when
// that is wider).
func (p *printer) lead(n *syntax.Form) int {
	w := 0
	for !isAtom(n) {
		w++
		items := n.Items()
		if len(items) == 0 || len(p.f.c(items[0]).leading) > 0 || p.f.c(n).open != nil {
			return w + 1
		}
		n = items[0]
	}
	return w + p.atomWidth(n)
}

// lastTrail returns the closing parentheses that follow item i of n on its
// line: n's own and trail when i is n's last item and no comment follows.
func (p *printer) lastTrail(n *syntax.Form, i int, trail int) int {
	if i == len(n.Items())-1 && len(p.f.c(n).after) == 0 {
		return trail + 1
	}
	return 0
}

// stack prints items one per line at column indent, with their comments,
// then the after comments, then, when l is not nil, l's ")". blanks keeps
// the authors' blank lines between lines (but not before the first).
// trail is the number of parentheses that follow l's ")". When rec is not
// nil, it receives where each item is in the output.
func (p *printer) stack(items []*syntax.Form, l *syntax.Form, indent int, blanks bool, after []comment, trail int, head string, rec []outSpan) {
	first := true
	for i, it := range items {
		ic := p.f.c(it)
		start := -1
		for j := range ic.leading {
			c := &ic.leading[j]
			p.lineStart(indent, blanks && !first && c.blank)
			if j == 0 {
				start = len(p.out)
			}
			first = false
			p.comment(c)
		}
		p.lineStart(indent, blanks && !first && ic.blank)
		if start < 0 {
			start = len(p.out)
		}
		first = false
		t := 0
		if i == len(items)-1 && len(after) == 0 && l != nil {
			t = trail + 1
		}
		if l == nil {
			p.top, p.topItems = it, nil
		}
		p.node(it, t, head)
		if ic.trailing != nil {
			p.char(' ')
			p.comment(ic.trailing)
		}
		if rec != nil {
			rec[i] = outSpan{int32(start), int32(len(p.out))}
		}
		if l == nil {
			p.f.body[i], p.top, p.topItems = p.topItems, nil, nil
		}
	}
	for j := range after {
		c := &after[j]
		p.lineStart(indent, blanks && !first && c.blank)
		first = false
		p.comment(c)
	}
	if l == nil {
		return
	}
	if len(after) > 0 {
		p.lineStart(indent, false)
	}
	p.char(')')
}
