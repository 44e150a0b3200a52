package syntax

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax/edittest"
)

// checkNodes checks every accessor of c against want, the nodes of a
// full parse of the same text.
func checkNodes(t *testing.T, c *CST, want []Node) {
	t.Helper()
	if c.Len() != len(want) {
		t.Fatalf("%d nodes, a full parse has %d", c.Len(), len(want))
	}
	if got := c.Nodes(); !slices.Equal(want, got) {
		t.Fatalf("the nodes differ from a full parse (-want +got):\n%s", cmp.Diff(want, got))
	}
	for i := range want {
		id, w := int32(i), want[i]
		first := int32(-1)
		if w.Last >= 0 {
			first = id + 1
		}
		if c.Node(id) != w || c.Span(id) != (Span{int(w.Start), int(w.End)}) || c.Next(id) != w.Next || c.Parent(id) != w.Parent || c.FirstChild(id) != first {
			t.Fatalf("node %d: accessors give %+v, span %v, next %d, parent %d, first child %d; a full parse %+v", i, c.Node(id), c.Span(id), c.Next(id), c.Parent(id), c.FirstChild(id), w)
		}
	}
}

// TestEditMatchesParse edits documents at random and checks after every
// edit that the document's CST, pieced or not, equals a full parse of the
// same text node for node, through every accessor; edits between
// error-free texts must mostly be answered by rescanning one list.
func TestEditMatchesParse(t *testing.T) {
	srcs := map[string][]byte{"gen": gen.Module(400)}
	files, _ := filepath.Glob("../examples/*.caps")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[filepath.Base(f)] = b
	}
	rescanned, clean, edits := 0, 0, 0
	for name, src := range srcs {
		r := rand.New(rand.NewSource(int64(len(src))))
		d, err := NewDocument(src)
		if err != nil {
			t.Fatal(err)
		}
		good := src // the last error-free text
		for i := 0; i < 150; i++ {
			cur := d.Text()
			start, end, text := edittest.Random(r, cur)
			if d.CST().HasError(0) && r.Intn(3) > 0 {
				start, end, text = edittest.Undo(cur, good)
			}
			before := d.CST()
			if err := d.Edit(start, end, []byte(text)); err != nil {
				t.Fatal(err)
			}
			edits++
			t.Run("", func(t *testing.T) {
				checkNodes(t, d.CST(), treeSitterNodes(t, d.Text()))
				checkLines(t, d.CST().Lines, d.Text())
			})
			if t.Failed() {
				t.Fatalf("%s: edit %d [%d,%d)->%q", name, i, start, end, text)
			}
			if !before.HasError(0) && !d.CST().HasError(0) {
				clean++
				if rescan(before, d.Text(), start, end, start+len(text), d.CST().Lines) != nil {
					rescanned++
				} else if testing.Verbose() {
					t.Logf("%s: not rescanned: [%d,%d)->%q in %q", name, start, end, text, before.Src[max(start-20, 0):min(end+20, len(before.Src))])
				}
			}
			if !d.CST().HasError(0) {
				good = d.Text()
			}
		}
		d.Close()
	}
	if rescanned < clean*9/10 || clean < edits/3 {
		t.Fatalf("%d of %d edits between error-free texts were rescanned (%d edits in all); the test does not exercise rescanning", rescanned, clean, edits)
	}
	t.Logf("%d edits, %d between error-free texts, %d of them rescanned", edits, clean, rescanned)
}

// TestEditTopLevel edits outside every list: between, before and after
// top-level forms and comments, adding and removing whole forms; each
// result must equal a full parse, and those that keep the forms apart
// must be rescanned.
func TestEditTopLevel(t *testing.T) {
	const src = "; head\n(a 1) b  (c \"s\")\n; tail"
	cases := []struct {
		src        string
		start, end int
		text       string
		rescanned  bool
	}{
		{src, 0, 0, " ", true},                 // before everything
		{src, 6, 6, " more", true},             // at the end of the first comment
		{src, 12, 12, " x", true},              // a new form between two
		{src, 13, 14, "", true},                // the symbol b removed
		{src, 14, 14, "; c", false},            // a comment running into (c "s")
		{src, 14, 14, ";\n", true},             // a comment on its own line
		{src, 7, 12, "", true},                 // the first list removed
		{src, 24, 30, "", true},                // the last comment removed
		{src, 30, 30, "\n(d)", true},           // a form at the end
		{src, 0, 30, "", true},                 // everything removed
		{src, 14, 14, "b", true},               // b grows into bb
		{src, 19, 19, "(z)", true},             // inside a list
		{"x(a)", 0, 0, "y", false},             // the list after is next to the edit
		{"\ufeff(a) b", 7, 7, " (c)", true},    // after a byte order mark
		{"(a)\r\n;c\r\n(b)", 3, 3, " x", true}, // CRLF lines
	}
	for _, tc := range cases {
		d, err := NewDocument([]byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		before := d.CST()
		if err := d.Edit(tc.start, tc.end, []byte(tc.text)); err != nil {
			t.Fatal(err)
		}
		after := d.Text()
		c := rescan(before, after, tc.start, tc.end, tc.start+len(tc.text), before.Lines.edit(after, tc.start, tc.end, len(tc.text)))
		if (c != nil) != tc.rescanned {
			t.Errorf("[%d,%d)->%q in %q: rescanned %v, want %v", tc.start, tc.end, tc.text, tc.src, c != nil, tc.rescanned)
		}
		checkNodes(t, d.CST(), treeSitterNodes(t, after))
		d.Close()
	}
}

// TestEditPieces edits a large module at many places in turn, so that the
// CST is made of many pieces shared with earlier versions, and checks it
// against a full parse after each edit; the earlier versions must stay
// as they were.
func TestEditPieces(t *testing.T) {
	src := gen.Module(2000)
	d, err := NewDocument(src)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r := rand.New(rand.NewSource(7))
	type version struct {
		c     *CST
		nodes []Node
	}
	var versions []version
	pieced := 0
	for i := 0; i < 300; i++ {
		// the end of a random symbol followed by a space
		c, cur := d.CST(), d.Text()
		id := int32(r.Intn(c.Len()))
		for c.Kind(id) != KindSymbol || cur[c.Span(id).End] != ' ' {
			id = (id + 1) % int32(c.Len())
		}
		at := c.Span(id).End
		var err error
		switch i % 3 {
		case 0:
			err = d.Edit(at, at, []byte(" (f x)"))
		case 1:
			err = d.Edit(at, at+1, []byte("\n  "))
		default:
			err = d.Edit(at, at, []byte("abc"))
		}
		if err != nil {
			t.Fatal(err)
		}
		c = d.CST()
		if c.flat == nil {
			pieced++
		}
		want := treeSitterNodes(t, d.Text())
		if c.HasError(0) {
			continue
		}
		checkNodes(t, c, want)
		checkLines(t, c.Lines, d.Text())
		if i%25 == 0 {
			versions = append(versions, version{c, want})
		}
	}
	for _, v := range versions {
		checkNodes(t, v.c, v.nodes)
	}
	if pieced < 200 {
		t.Fatalf("only %d of 300 versions were pieced", pieced)
	}
}

// TestEditDeepNesting edits the middle of 50,000 nested lists: the nodes
// still equal a full parse.
func TestEditDeepNesting(t *testing.T) {
	const depth = 50_000
	src := []byte(strings.Repeat("(a ", depth) + strings.Repeat(")", depth))
	d, err := NewDocument(src)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	mid := 3 * depth / 2 // inside the nesting, on an "a"
	for i := 0; i < 4; i++ {
		if err := d.Edit(mid, mid, []byte("b")); err != nil {
			t.Fatal(err)
		}
		if err := d.Edit(mid, mid+1, nil); err != nil {
			t.Fatal(err)
		}
	}
	checkNodes(t, d.CST(), treeSitterNodes(t, d.Text()))
}

// TestEditPageBoundary edits a tree whose node count is a multiple of the
// page size of the piece index (its last page once ran past the pieces).
func TestEditPageBoundary(t *testing.T) {
	n := 2 << pageBits
	// root, the list, "(", "m" and ")" around n-5 symbols
	src := []byte("(m" + strings.Repeat(" a", n-5) + ")")
	d, err := NewDocument(src)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Edit(4, 4, []byte("b")); err != nil {
		t.Fatal(err)
	}
	if d.CST().Len() != n || d.CST().flat != nil {
		t.Fatalf("%d nodes, flat %v; want %d in pieces", d.CST().Len(), d.CST().flat != nil, n)
	}
	checkNodes(t, d.CST(), treeSitterNodes(t, d.Text()))
}

// lineStarts lists a mapper's line starts.
func lineStarts(m *Mapper) []int {
	var out []int
	for i := 0; i < m.Count(); i++ {
		out = append(out, m.LineStart(i))
	}
	return out
}

// checkLines checks a mapper derived by edits against one made afresh:
// the same line starts, and the same line and position for offsets all
// over the text.
func checkLines(t *testing.T, m *Mapper, text []byte) {
	t.Helper()
	want := NewMapper(text)
	if got, w := lineStarts(m), lineStarts(want); !slices.Equal(got, w) {
		t.Fatalf("line starts %v, want %v", got, w)
	}
	for off := 0; off <= len(text); off += 1 + off%13 {
		if m.Line(off) != want.Line(off) || m.Position(off, UTF16) != want.Position(off, UTF16) {
			t.Fatalf("offset %d: line %d, position %v; want %d, %v", off, m.Line(off), m.Position(off, UTF16), want.Line(off), want.Position(off, UTF16))
		}
	}
}

// FuzzEdit applies a few edits to a document and checks every edit that
// rescan answers against a full parse of the new text, node for node
// and line for line, so that CSTs in pieces derived from CSTs in pieces
// are covered. edits holds three bytes an edit: where (a fraction of the
// text), how many bytes it replaces, and what it inserts.
func FuzzEdit(f *testing.F) {
	f.Add([]byte("(module m\n  (function f (x I64) (returns I64) x)\n  (store s (backend memory)))\n"), []byte{100, 0, 1, 40, 2, 0, 200, 1, 3})
	f.Add(gen.Module(40), []byte{10, 0, 2, 128, 3, 5, 250, 0, 1, 60, 1, 0})
	f.Add([]byte("; c\n(a (b \"s\\n\" 7) ; d\n (c))\r\n(e)"), []byte{30, 0, 4, 90, 1, 6, 5, 0, 7})
	inserts := []string{" ", "x", "(f a)", "\n", ")", "(", "\"", "; c\n", "\r\n", "7m", "é", ""}
	f.Fuzz(func(t *testing.T, src, edits []byte) {
		if len(src) > 1<<16 || len(edits) > 30 {
			return
		}
		d, err := NewDocument(src)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		for i := 0; i+2 < len(edits); i += 3 {
			cur := d.Text()
			start := int(edits[i]) * len(cur) / 255
			end := min(start+int(edits[i+1]%8), len(cur))
			text := inserts[int(edits[i+2])%len(inserts)]
			before := d.CST()
			lines := before.Lines
			if err := d.Edit(start, end, []byte(text)); err != nil {
				t.Fatal(err)
			}
			checkLines(t, d.CST().Lines, d.Text())
			if e, ok := d.CST().Rescanned(); ok {
				checkListEdit(t, before, d.CST(), e)
			}
			c := rescan(before, d.Text(), start, end, start+len(text), lines.edit(d.Text(), start, end, len(text)))
			if c == nil {
				continue
			}
			if c.HasError(0) {
				t.Fatalf("rescan made a tree with an error")
			}
			checkNodes(t, c, treeSitterNodes(t, d.Text()))
		}
	})
}

// checkListEdit checks what Rescanned says of after, edited from before:
// the nodes before the list are before's, the nodes after its subtree
// before's moved.
func checkListEdit(t *testing.T, before, after *CST, e ListEdit) {
	t.Helper()
	if e.From != before.ID() || before.Span(e.List) != e.Span || before.Kind(e.List) != KindList || after.Kind(e.List) != KindList {
		t.Fatalf("Rescanned %+v: not list %d of tree %d (%v)", e, e.List, before.ID(), before.Span(e.List))
	}
	if got, want := after.Len()-before.Len(), int(e.NodeDelta); got != want {
		t.Fatalf("Rescanned: node delta %d, want %d", want, got)
	}
	if got, want := len(after.Src)-len(before.Src), e.ByteDelta; got != want {
		t.Fatalf("Rescanned: byte delta %d, want %d", want, got)
	}
	isAncestor := func(i int32) bool {
		for x := e.List; x >= 0; x = before.Parent(x) {
			if x == i {
				return true
			}
		}
		return false
	}
	for i := int32(0); i < e.List; i++ {
		if isAncestor(i) {
			if after.Kind(i) != before.Kind(i) || after.Span(i).Start != before.Span(i).Start {
				t.Fatalf("ancestor %d: %v %v, was %v %v", i, after.Kind(i), after.Span(i), before.Kind(i), before.Span(i))
			}
			continue
		}
		if after.Kind(i) != before.Kind(i) || after.Span(i) != before.Span(i) {
			t.Fatalf("node %d before the list: %v %v, was %v %v", i, after.Kind(i), after.Span(i), before.Kind(i), before.Span(i))
		}
	}
	for i := before.skip(e.List); i < int32(before.Len()); i++ {
		j := i + e.NodeDelta
		sp := before.Span(i)
		want := Span{Start: sp.Start + e.ByteDelta, End: sp.End + e.ByteDelta}
		if after.Kind(j) != before.Kind(i) || after.Span(j) != want {
			t.Fatalf("node %d after the list (now %d): %v %v, want %v %v", i, j, after.Kind(j), after.Span(j), before.Kind(i), want)
		}
	}
}

// TestRescanned checks when a document's tree says it was rescanned
// from the tree before, and what it says.
func TestRescanned(t *testing.T) {
	src := []byte("; c\n(module m\n  (function f (x I64) (returns I64) x)\n  (store s (backend memory)))\n(b)\n")
	d, err := NewDocument(src)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, ok := d.CST().Rescanned(); ok {
		t.Fatalf("a new document's tree says it was rescanned")
	}
	for _, tc := range []struct {
		from, to string
		ok       bool
		list     string // the list rescanned, before the edit
	}{
		{"memory", "postgres", true, "(backend memory)"},
		{"(returns I64) x", "(returns I64) (+ x 1)", true, "(function f (x I64) (returns I64) x)"},
		{"(b)", "(b) (c)", false, ""}, // between top-level forms
		{"(store s", "(store t", true, "(module m\n  (function f (x I64) (returns I64) (+ x 1))\n  (store s (backend postgres)))"},
		{"function f", "function g", true, "(function f (x I64) (returns I64) (+ x 1))"},
	} {
		before := d.CST()
		at := bytes.Index(d.Text(), []byte(tc.from))
		if err := d.Edit(at, at+len(tc.from), []byte(tc.to)); err != nil {
			t.Fatal(err)
		}
		e, ok := d.CST().Rescanned()
		if ok != tc.ok {
			t.Fatalf("%q -> %q: Rescanned ok %v, want %v", tc.from, tc.to, ok, tc.ok)
		}
		if !ok {
			continue
		}
		if got := string(before.Src[e.Span.Start:e.Span.End]); got != tc.list {
			t.Errorf("%q -> %q: rescanned %q, want %q", tc.from, tc.to, got, tc.list)
		}
		checkListEdit(t, before, d.CST(), e)
	}
}

// TestCommonEnds types into a document and checks, after every edit, the
// ends its tree says it shares with each earlier tree: they are shared,
// known for the last maxSince trees, unknown before them and after
// Replace.
func TestCommonEnds(t *testing.T) {
	d, err := NewDocument(gen.Module(30))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r := rand.New(rand.NewSource(5))
	inserts := []string{"", " ", "x", "(f a)", "\n", ")", "(", "\"", "; c\n"}
	var trees []*CST
	for k := 0; k < maxSince+40; k++ {
		trees = append(trees, d.CST())
		cur := d.Text()
		start := r.Intn(len(cur) + 1)
		end := min(start+r.Intn(6), len(cur))
		if err := d.Edit(start, end, []byte(inserts[r.Intn(len(inserts))])); err != nil {
			t.Fatal(err)
		}
		c := d.CST()
		for i, b := range trees {
			pre, suf, ok := c.CommonEnds(b)
			if want := len(trees)-i <= maxSince; ok != want {
				t.Fatalf("edit %d: CommonEnds with the tree %d edits before: ok %v, want %v", k, len(trees)-i, ok, want)
			}
			if !ok {
				continue
			}
			a, n := b.Src, c.Src
			if pre+suf > min(len(a), len(n)) || !bytes.Equal(a[:pre], n[:pre]) || !bytes.Equal(a[len(a)-suf:], n[len(n)-suf:]) {
				t.Fatalf("edit %d: CommonEnds with the tree %d edits before: %d, %d: not shared", k, len(trees)-i, pre, suf)
			}
		}
	}
	if err := d.Replace(d.Text()); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := d.CST().CommonEnds(trees[len(trees)-1]); ok {
		t.Fatalf("a replaced text says it shares ends with the tree before")
	}
}
