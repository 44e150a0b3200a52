package capsulang

import (
	"context"
	"math/rand"
	"slices"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/capsulang/caps/bench/gen"
)

// TestFlattenParallelMatchesFlatten checks FlattenParallel against Flatten
// on large files, valid and damaged (missing and extra parentheses, stray
// brackets, an unterminated string, text after the module).
func TestFlattenParallelMatchesFlatten(t *testing.T) {
	big := string(gen.Module(4000))
	srcs := map[string]string{
		"valid":          big,
		"missing paren":  strings.Replace(big, "(body", "(body (", 7),
		"extra paren":    strings.Replace(big, "(output I64)", "(output I64))", 3),
		"brackets":       strings.Replace(big, "(effects pure)", "(effects [pure])", 5),
		"string":         strings.Replace(big, "\"0.1.0\"", "\"0.1.0", 2),
		"trailing forms": big + "\n(function after (body 1))\n; done\n",
		"two modules":    big + big,
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 5; i++ {
		at := r.Intn(len(big))
		srcs["cut "+big[at:at+1]] = big[:at] + big[at+1:]
	}
	lang := Language()
	for name, src := range srcs {
		p := sitter.NewParser()
		p.SetLanguage(lang)
		tree, err := p.ParseCtx(context.Background(), nil, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if n := Info(tree).Nodes; n < parallelMin {
			t.Fatalf("%s: %d nodes, below the parallel threshold", name, n)
		}
		want := Flatten(tree, nil)
		got := FlattenParallel(tree, nil)
		if !slices.Equal(want, got) {
			for i := range want {
				if i >= len(got) || want[i] != got[i] {
					t.Fatalf("%s: node %d differs: got %+v, want %+v (lengths %d, %d)", name, i, got[min(i, len(got)-1)], want[i], len(got), len(want))
				}
			}
			t.Fatalf("%s: lengths %d, %d", name, len(got), len(want))
		}
		tree.Close()
		p.Close()
	}
}
