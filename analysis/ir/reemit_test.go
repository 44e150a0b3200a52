package ir

// A re-emitter for property tests: it turns the forms of a parsed file into
// a tree of nodes whose atoms keep their exact source bytes, lets the tests
// reorder or mutate that tree, and prints it back with random whitespace,
// line breaks, indentation and comments between tokens.

import (
	"math/rand"
	"strconv"
	"strings"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// node is a form with its source text: raw holds an atom's exact bytes.
type node struct {
	kind syntax.FormKind
	raw  string // atoms: the token as written
	text string // atoms: symbol or number text, or a string's decoded value
	kids []*node
}

func fromForm(c *syntax.CST, f *syntax.Form) *node {
	n := &node{kind: f.Kind}
	if f.Kind == syntax.FormList {
		n.kids = make([]*node, len(f.Items()))
		for i, it := range f.Items() {
			n.kids[i] = fromForm(c, it)
		}
		return n
	}
	n.raw = string(c.Src[f.Span().Start:f.Span().End])
	n.text = f.Text()
	return n
}

// readNodes parses src into nodes; ok is false when the source has syntax
// diagnostics (the re-emitter only handles well-formed token streams).
func readNodes(src []byte) ([]*node, bool) {
	c, err := syntax.Parse(src)
	if err != nil {
		return nil, false
	}
	s := syntax.Read(c)
	if len(s.Diagnostics) > 0 {
		return nil, false
	}
	out := make([]*node, len(s.Forms))
	for i, f := range s.Forms {
		out[i] = fromForm(c, f)
	}
	return out, true
}

func (n *node) isList() bool { return n != nil && n.kind == syntax.FormList }

func (n *node) head() string {
	if n.isList() && len(n.kids) > 0 && n.kids[0].kind == syntax.FormSymbol {
		return n.kids[0].raw
	}
	return ""
}

// arg returns the raw text of kid i, or "".
func (n *node) arg(i int) string {
	if n.isList() && i < len(n.kids) && !n.kids[i].isList() {
		return n.kids[i].raw
	}
	return ""
}

func (n *node) clone() *node {
	c := *n
	if n.kids != nil {
		c.kids = make([]*node, len(n.kids))
		for i, k := range n.kids {
			c.kids[i] = k.clone()
		}
	}
	return &c
}

func sym(s string) *node { return &node{kind: syntax.FormSymbol, raw: s, text: s} }

func list(kids ...*node) *node { return &node{kind: syntax.FormList, kids: kids} }

// parseNode reads one form from text (for mutations that add clauses).
func parseNode(text string) *node {
	ns, ok := readNodes([]byte(text))
	if !ok || len(ns) != 1 {
		panic("parseNode: bad form " + text)
	}
	return ns[0]
}

// norm renders a node with literals normalized (numbers by value, strings
// by decoded value), to decide whether two nodes mean the same thing.
func (n *node) norm() string {
	switch n.kind {
	case syntax.FormList:
		parts := make([]string, len(n.kids))
		for i, k := range n.kids {
			parts[i] = k.norm()
		}
		return "(" + strings.Join(parts, " ") + ")"
	case syntax.FormString:
		return strconv.Quote(n.text)
	case syntax.FormNumber:
		switch v := ast.ParseNumber(n.raw, syntax.Span{}).(type) {
		case *ast.IntLit:
			return "i" + intText(v)
		case *ast.Duration:
			return "d" + strconv.FormatInt(v.Millis, 10)
		case *ast.DecimalLit:
			return "f" + decimalText(v.Text)
		}
	}
	return n.raw
}

// ---- printing

// printer writes nodes with random layout.
type printer struct {
	rng *rand.Rand
	b   strings.Builder
	// prev is the last token written: '(' , ')' , 'a' (atom) or 0 at the
	// start of the file.
	prev byte
}

var commentChars = []rune("abcxyz ()\";;'\\{}[]#é🚢\t")

func (p *printer) comment() string {
	n := p.rng.Intn(12)
	var b strings.Builder
	b.WriteByte(';')
	if p.rng.Intn(3) == 0 {
		b.WriteByte(';') // looks like a doc comment; must not change the hash
	}
	for i := 0; i < n; i++ {
		b.WriteRune(commentChars[p.rng.Intn(len(commentChars))])
	}
	return b.String()
}

func (p *printer) indent() string {
	switch p.rng.Intn(4) {
	case 0:
		return ""
	case 1:
		return strings.Repeat(" ", p.rng.Intn(12))
	case 2:
		return strings.Repeat("\t", p.rng.Intn(4))
	}
	return strings.Repeat(" ", p.rng.Intn(3)) + "\t" + strings.Repeat(" ", p.rng.Intn(3))
}

func (p *printer) newline() string {
	if p.rng.Intn(4) == 0 {
		return "\r\n"
	}
	return "\n"
}

// sep returns the text between two tokens; need says whether the tokens
// must be separated.
func (p *printer) sep(need bool) string {
	switch r := p.rng.Intn(20); {
	case r < 6:
		if !need {
			return ""
		}
		return " "
	case r < 9:
		return " "
	case r < 11:
		return strings.Repeat(" ", 1+p.rng.Intn(4)) + strings.Repeat("\t", p.rng.Intn(2))
	case r < 15:
		return p.newline() + p.indent()
	case r < 17:
		return " " + p.comment() + p.newline() + p.indent()
	case r < 19:
		return p.newline() + p.indent() + p.comment() + p.newline() + p.indent()
	default:
		return p.newline() + p.newline() + p.indent()
	}
}

func (p *printer) token(kind byte, text string) {
	need := p.prev != 0 && p.prev != '(' && kind != ')'
	if p.prev == 0 {
		if p.rng.Intn(3) == 0 {
			p.b.WriteString(p.comment() + p.newline())
		}
	} else {
		p.b.WriteString(p.sep(need))
	}
	p.b.WriteString(text)
	p.prev = kind
}

func (p *printer) node(n *node) {
	if !n.isList() {
		p.token('a', n.raw)
		return
	}
	p.token('(', "(")
	for _, k := range n.kids {
		p.node(k)
	}
	p.token(')', ")")
}

// emit prints forms with a random layout.
func emit(rng *rand.Rand, forms []*node) []byte {
	p := &printer{rng: rng}
	for _, f := range forms {
		p.node(f)
	}
	if rng.Intn(2) == 0 {
		p.b.WriteString(" " + p.comment())
	}
	p.b.WriteString(p.newline())
	return []byte(p.b.String())
}

// ---- meaning-preserving reordering

// interleave returns a uniformly random interleaving of items in which
// items with the same key keep their relative order.
func interleave(rng *rand.Rand, items []*node, key func(i int, n *node) string) []*node {
	var order []string
	groups := map[string][]*node{}
	for i, it := range items {
		k := key(i, it)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], it)
	}
	out := make([]*node, 0, len(items))
	for left := len(items); left > 0; left-- {
		r := rng.Intn(left)
		for _, k := range order {
			if r < len(groups[k]) {
				out = append(out, groups[k][0])
				groups[k] = groups[k][1:]
				break
			}
			r -= len(groups[k])
		}
	}
	return out
}

func shuffle(rng *rand.Rand, items []*node) {
	rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
}

func byHead(_ int, n *node) string { return n.head() }

// unique gives each item matching one of the heads its own key (so it moves
// freely) and groups the others by head.
func unique(heads ...string) func(int, *node) string {
	return func(i int, n *node) string {
		for _, h := range heads {
			if n.head() == h {
				return h + "#" + strconv.Itoa(i)
			}
		}
		return n.head()
	}
}

// reorder applies random reorderings that cannot change a module's meaning:
// declarations; machine states, events and context fields; transitions of
// different events; assignments; effect options; clauses of different keys;
// names in tool, resource, prompt, skill, collection, event and profile
// lists. mod is the (module ...) node.
func reorder(rng *rand.Rand, mod *node) {
	if !mod.isList() || len(mod.kids) < 2 {
		return
	}
	items := mod.kids[2:]
	shuffle(rng, items)
	for _, it := range items {
		switch it.head() {
		case "profile":
			shuffle(rng, it.kids[1:])
		case "type", "import", "capsule":
		case "function":
			reorderClauses(rng, it, 2, byHead)
			for _, c := range it.kids[2:] {
				if c.head() == "effects" {
					reorderEffects(rng, c)
				}
			}
		case "machine":
			reorderMachine(rng, it)
		case "store":
			reorderClauses(rng, it, 2, unique("collection"))
			shuffleNameLists(rng, it, "collection")
		case "surface":
			reorderClauses(rng, it, 2, unique("event", "action"))
			shuffleNameLists(rng, it, "event")
			reorderOperations(rng, it, "action")
		case "port":
			reorderClauses(rng, it, 2, unique("tool", "resource", "prompt"))
			reorderOperations(rng, it, "tool", "resource", "prompt")
		case "agent":
			reorderClauses(rng, it, 2, unique("skill"))
			reorderOperations(rng, it, "skill")
		default: // governance and Authority IR declarations
			reorderClauses(rng, it, 2, byHead)
		}
	}
}

func reorderClauses(rng *rand.Rand, n *node, from int, key func(int, *node) string) {
	if len(n.kids) <= from {
		return
	}
	copy(n.kids[from:], interleave(rng, n.kids[from:], key))
}

func allAtoms(ns []*node) bool {
	for _, n := range ns {
		if n.isList() {
			return false
		}
	}
	return true
}

func shuffleNameLists(rng *rand.Rand, n *node, heads ...string) {
	for _, c := range n.kids {
		for _, h := range heads {
			if c.head() == h && allAtoms(c.kids[1:]) {
				shuffle(rng, c.kids[1:])
			}
		}
	}
}

// reorderOperations shuffles name lists such as (tool a b c) and the
// clauses of typed operations such as (tool t (input ...) (output T)).
func reorderOperations(rng *rand.Rand, n *node, heads ...string) {
	for _, c := range n.kids {
		for _, h := range heads {
			if c.head() != h || len(c.kids) < 2 {
				continue
			}
			if allAtoms(c.kids[1:]) {
				shuffle(rng, c.kids[1:])
			} else {
				reorderClauses(rng, c, 2, byHead)
			}
		}
	}
}

func reorderMachine(rng *rand.Rand, m *node) {
	reorderClauses(rng, m, 2, unique("state", "event", "context"))
	for _, c := range m.kids[2:] {
		switch c.head() {
		case "context":
			shuffle(rng, c.kids[1:])
		case "persistence":
			reorderClauses(rng, c, 1, byHead)
		case "state":
			// Transitions of the same event keep their order; everything else
			// moves.
			reorderClauses(rng, c, 2, func(_ int, n *node) string {
				if n.head() == "on" {
					return "on:" + n.arg(1)
				}
				return n.head()
			})
			for _, t := range c.kids[2:] {
				if t.head() == "on" {
					reorderTransition(rng, t)
				}
			}
		}
	}
}

func reorderTransition(rng *rand.Rand, t *node) {
	reorderClauses(rng, t, 2, byHead)
	for _, c := range t.kids[2:] {
		switch c.head() {
		case "assign":
			reorderClauses(rng, c, 1, func(_ int, n *node) string { return n.head() })
		case "effects":
			reorderEffects(rng, c)
		}
	}
}

// reorderEffects shuffles the options of each effect among the positions
// the options occupy.
func reorderEffects(rng *rand.Rand, effects *node) {
	for _, e := range effects.kids[1:] {
		if !e.isList() {
			continue
		}
		var pos []int
		for i, k := range e.kids {
			if i > 0 && (k.head() == "retry" || k.head() == "timeout" || k.head() == "on-error" || k.head() == "claim") && len(k.kids) == 2 {
				pos = append(pos, i)
			}
		}
		opts := make([]*node, len(pos))
		for i, p := range pos {
			opts[i] = e.kids[p]
		}
		shuffle(rng, opts)
		for i, p := range pos {
			e.kids[p] = opts[i]
		}
	}
}
