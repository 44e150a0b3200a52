package check

import (
	"strings"
	"testing"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// BenchmarkRecheckImportEdit measures Recheck after an edit of the
// module's own imports on the 10,000-line generated module (importing
// two libraries, one function calling into one of them): an unused
// import removed, and the used alias pointed at another module. Each
// kind runs in three modes, interleaved: "every-body" reads and builds
// the whole text and checks every body again (the engine before it
// recorded which aliases each check read, everyBodyOnImportEdit),
// "whole" reads and builds the whole text and checks again only the
// readers of a changed alias (the engine before import edits took the
// fast path, wholeRecheck), "fast" is Recheck as it is: the header read
// alone, the readers of a changed alias read and checked again. Run
// with -count N for ranges.
func BenchmarkRecheckImportEdit(b *testing.B) {
	lib := checkAs("lib", []byte(`(module lib
  (capsule "1")
  (function twice (input (x I64)) (output I64) (body (* x 2))))
`), nil)
	lib2 := checkAs("lib2", []byte(`(module lib2
  (capsule "1")
  (function twice (input (x I64)) (output I64) (body x)))
`), nil)
	imp := mapImporter{"lib": lib, "lib2": lib2}
	src := strings.Replace(string(gen.Module(10000)), "(module bench.generated\n  (capsule \"1.0\")",
		"(module bench.generated\n  (capsule \"1.0\")\n  (import lib (as l))\n  (import lib2)", 1)
	src = strings.Replace(src, "  (store ops\n", "  (function use_lib (input (x I64)) (output I64) (body (l.twice x)))\n  (store ops\n", 1)
	c, err := syntax.Parse([]byte(src))
	if err != nil {
		b.Fatal(err)
	}
	base := Check(ast.Build(syntax.Read(c)), Options{Path: "/virtual/gen.caps", Importer: imp})
	base.Recheck(c) // the engine's view of the base is built once
	edits := []struct{ name, from, to string }{
		{"UnusedImportRemoved", "\n  (import lib2)", ""},
		{"AliasRetargeted", "(import lib (as l))", "(import lib2 (as l))"},
	}
	for _, e := range edits {
		nc, err := syntax.Parse([]byte(strings.Replace(src, e.from, e.to, 1)))
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []string{"every-body", "whole", "fast"} {
			b.Run(e.name+"/"+mode, func(b *testing.B) {
				everyBodyOnImportEdit, wholeRecheck = mode == "every-body", mode != "fast"
				defer func() { everyBodyOnImportEdit, wholeRecheck = false, false }()
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, ok := base.Recheck(nc); !ok {
						b.Fatal("Recheck declined")
					}
				}
			})
		}
	}
}
