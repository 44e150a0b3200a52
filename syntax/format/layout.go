package format

import (
	"unicode/utf8"
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
func classify(n *node, parent string) (shape, int) {
	items := n.items
	head := n.head()
	if head == "" {
		return shapeExpr, 0
	}
	named := len(items) >= 2 && items[1].isAtom()
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
		case len(items) == 3 && !(!items[2].isAtom() && items[2].head() == "on"):
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
			if len(items) == 3 && !items[2].isAtom() {
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
func fields(ms []*node) (shape, int) {
	lists := 0
	for _, m := range ms {
		if !m.isAtom() {
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

func anyList(ns []*node) bool {
	for _, n := range ns {
		if !n.isAtom() {
			return true
		}
	}
	return false
}

func allLists(ns []*node) bool {
	for _, n := range ns {
		if n.isAtom() {
			return false
		}
	}
	return true
}

// printer writes the formatted text.
type printer struct {
	src []byte // the source, for the text of atoms
	out []byte
	col int // column of the next byte, in code points
}

var spaces = []byte("                                                                ")

// atom returns the source text of the atom n.
func (p *printer) atom(n *node) []byte { return p.src[n.form.Span().Start:n.form.Span().End] }

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
	p.out = append(p.out, c.text...)
	p.col += utf8.RuneCount(c.text)
}

// print formats the whole file.
func (f *file) print() []byte {
	p := &printer{src: f.src, out: make([]byte, 0, len(f.src)+len(f.src)/8+16)}
	p.stack(f.items, nil, 0, true, f.after, -1, "")
	if len(p.out) > 0 {
		p.out = append(p.out, '\n')
	}
	return p.out
}

// node prints n at the current position. trail is the number of closing
// parentheses that will follow n on its line.
func (p *printer) node(n *node, trail int, parent string) {
	if n.isAtom() {
		p.write(p.atom(n))
		return
	}
	s, h := classify(n, parent)
	if s != shapeBlock && !n.inner && p.col+int(n.width)+trail <= maxWidth {
		p.flat(n)
		return
	}
	if s == shapeExpr {
		p.broken(n, trail)
	} else {
		p.block(n, h, trail)
	}
}

// flat prints n, which holds no comments, on one line.
func (p *printer) flat(n *node) {
	if n.isAtom() {
		p.write(p.atom(n))
		return
	}
	p.char('(')
	for i, it := range n.items {
		if i > 0 {
			p.char(' ')
		}
		p.flat(it)
	}
	p.char(')')
}

// block prints n with its first h items on the first line and the others
// one per line, indented 2.
func (p *printer) block(n *node, h int, trail int) {
	col := p.col
	head := n.head()
	p.char('(')
	i := 0
	if n.c.open != nil {
		p.char(' ')
		p.comment(n.c.open)
	} else {
		for ; i < h; i++ {
			it := n.items[i]
			if len(it.c.leading) > 0 {
				break
			}
			if i > 0 {
				p.char(' ')
			}
			p.node(it, 0, head)
			if it.c.trailing != nil {
				p.char(' ')
				p.comment(it.c.trailing)
				i++
				break
			}
		}
	}
	p.stack(n.items[i:], n, col+2, true, n.c.after, trail, head)
}

// broken prints the expression list n across lines.
func (p *printer) broken(n *node, trail int) {
	col := p.col
	head := n.head()
	items := n.items
	p.char('(')
	indent := col + 2
	if len(items) > 0 && !items[0].isAtom() && allLists(items) {
		indent = col + 1
	}
	if n.c.open != nil || len(items) == 0 || len(items[0].c.leading) > 0 {
		if n.c.open != nil {
			p.char(' ')
			p.comment(n.c.open)
		}
		p.stack(items, n, indent, false, n.c.after, trail, head)
		return
	}
	first, rest := items[0], items[1:]
	p.node(first, lastTrail(n, 0, trail), head)
	if first.c.trailing != nil {
		p.char(' ')
		p.comment(first.c.trailing)
		p.stack(rest, n, indent, false, n.c.after, trail, head)
		return
	}
	// The first argument goes after the head unless its first token would
	// pass the line limit there but not on a line of its own.
	if first.isAtom() && len(rest) > 0 && len(rest[0].c.leading) == 0 &&
		(p.col+1+lead(rest[0]) <= maxWidth || indent+lead(rest[0]) > maxWidth) {
		p.char(' ')
		argCol := p.col
		arg := rest[0]
		p.node(arg, lastTrail(n, 1, trail), head)
		if arg.c.trailing != nil {
			p.char(' ')
			p.comment(arg.c.trailing)
		}
		p.stack(rest[1:], n, argCol, false, n.c.after, trail, head)
		return
	}
	p.stack(rest, n, indent, false, n.c.after, trail, head)
}

// lead returns the width of n's first token: an atom, or the "(" of a list
// followed by the first token of its head.
func lead(n *node) int {
	w := 0
	for !n.isAtom() {
		w++
		if len(n.items) == 0 || len(n.items[0].c.leading) > 0 || n.c.open != nil {
			return w + 1
		}
		n = n.items[0]
	}
	return w + int(n.width)
}

// lastTrail returns the closing parentheses that follow item i of n on its
// line: n's own and trail when i is n's last item and no comment follows.
func lastTrail(n *node, i int, trail int) int {
	if i == len(n.items)-1 && len(n.c.after) == 0 {
		return trail + 1
	}
	return 0
}

// stack prints items one per line at column indent, with their comments,
// then the after comments, then, when l is not nil, l's ")". blanks keeps
// the authors' blank lines between lines (but not before the first).
// trail is the number of parentheses that follow l's ")".
func (p *printer) stack(items []*node, l *node, indent int, blanks bool, after []comment, trail int, head string) {
	first := true
	for i, it := range items {
		for j := range it.c.leading {
			c := &it.c.leading[j]
			p.lineStart(indent, blanks && !first && c.blank)
			if j == 0 {
				it.outStart = int32(len(p.out))
			}
			first = false
			p.comment(c)
		}
		p.lineStart(indent, blanks && !first && it.blank)
		if len(it.c.leading) == 0 {
			it.outStart = int32(len(p.out))
		}
		first = false
		t := 0
		if i == len(items)-1 && len(after) == 0 && l != nil {
			t = trail + 1
		}
		p.node(it, t, head)
		if it.c.trailing != nil {
			p.char(' ')
			p.comment(it.c.trailing)
		}
		it.outEnd = int32(len(p.out))
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
