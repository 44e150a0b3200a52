package capsulang

import (
	"context"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

func TestLanguageParses(t *testing.T) {
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(Language())
	src := []byte("(module m (capsule \"0\")) ; done\n")
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	got := tree.RootNode().String()
	want := "(source_file (list (symbol) (symbol) (list (symbol) (string (string_content)))) (comment))"
	if got != want {
		t.Fatalf("tree:\n got %s\nwant %s", got, want)
	}
}

// TestFlattenMatchesNodeAPI walks a tree with go-tree-sitter's own API and
// checks that Flatten yields the same nodes in the same order.
func TestFlattenMatchesNodeAPI(t *testing.T) {
	srcs := []string{
		"(module m (capsule \"0\")) ; done\n",
		"(a (b c) d",                 // missing )
		"(a b)) (c \"x\\n\" -7 30m)", // extra )
		"",
		"; only a comment",
		"(((((x)))))",
	}
	lang := Language()
	for _, src := range srcs {
		p := sitter.NewParser()
		p.SetLanguage(lang)
		tree, err := p.ParseCtx(context.Background(), nil, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var want []RawNode
		var walk func(n *sitter.Node, parent int32)
		walk = func(n *sitter.Node, parent int32) {
			idx := int32(len(want))
			var f uint16
			if n.IsMissing() {
				f |= FlagMissing
			}
			if n.IsError() {
				f |= FlagError
			}
			if parent < 0 && n.HasError() {
				f |= FlagHasError
			}
			want = append(want, RawNode{Start: n.StartByte(), End: n.EndByte(), Parent: parent, Next: -1, Last: -1, Symbol: uint16(n.Symbol()), Flags: f})
			prev := int32(-1)
			for i := 0; i < int(n.ChildCount()); i++ {
				c := int32(len(want))
				walk(n.Child(i), idx)
				if prev >= 0 {
					want[prev].Next = c
				}
				want[idx].Last = c
				prev = c
			}
		}
		walk(tree.RootNode(), -1)
		got := Flatten(tree, nil)
		if len(got) != len(want) {
			t.Fatalf("%q: %d nodes, want %d", src, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q: node %d = %+v, want %+v", src, i, got[i], want[i])
			}
		}
		tree.Close()
		p.Close()
	}
}
