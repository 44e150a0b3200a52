package check_test

import (
	"bytes"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// specEdits are the edit kinds on the spec-shaped module: each
// replaces the first occurrence of from, in the middle copy, by to.
var specEdits = []struct{ name, from, to string }{
	{"Transition", "(target accepted)", "(target rejected)"},
	{"SurfaceTitle", `(title "Claim status`, `(title "Claim state`},
	{"StoreBackend", "(backend typedb)", "(backend postgres)"},
	{"ModuleHeader", "(module bench.spec_shaped", "(module bench.spec_shape"},
	{"ProfileLine", "(profile agentic persistence.surrealdb external.a2a ui.a2ui)", "(profile agentic persistence.surrealdb external.a2a ui.a2ui persistence.memory)"},
	{"AddState", "    (state accepted (type final))", "    (state accepted (type final))\n    (state archived (type final))"},
	{"DeleteState", "\n    (state accepted (type final))", ""},
	{"Governance", `(on defer (if "context.amount_cents > 500000"))`, `(on defer (if "context.amount_cents > 400000"))`},
	{"AddDeclaration", "  ;; Accepted facts only.", "  (store extra (backend memory) (authority runtime-state))\n  ;; Accepted facts only."},
	{"RenameDeclaration", "(function approvable_", "(function approvable2_"},
	{"Comment", ";; Accepted facts only.", ";; Accepted facts, only."},
}

// middleEdit applies an edit kind at its first occurrence in the middle
// copy of src (the header edits at their only one).
func middleEdit(src []byte, from, to string) []byte {
	at := bytes.Index(src[len(src)/2:], []byte(from))
	if at >= 0 {
		at += len(src) / 2
	} else {
		at = bytes.Index(src, []byte(from))
	}
	if at < 0 {
		panic("no " + from)
	}
	return append(append(append([]byte(nil), src[:at]...), to...), src[at+len(from):]...)
}

// BenchmarkRecheck measures the engine's answer to each kind of edit of a
// 10,000-line spec-shaped module, from the edited text's parse to its
// diagnostics, against a full check of the text before the edit;
// BenchmarkRecheck/FullCheck is the full check it replaces (read, build
// and check of the same text).
func BenchmarkRecheck(b *testing.B) {
	src := gen.SpecModule(10000)
	c, err := syntax.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	base := check.Check(ast.Build(syntax.Read(c)), check.Options{Path: "/virtual/spec.caps"})
	base.Recheck(c) // the engine's view of the base is built once, on first use
	for _, e := range specEdits {
		next := middleEdit(src, e.from, e.to)
		nc, err := syntax.Parse(next)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(e.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, ok := base.Recheck(nc); !ok {
					b.Fatal("Recheck declined")
				}
			}
		})
	}
	// typing in a function body of the benchmark module (no policy)
	gsrc := gen.Module(10000)
	gc, err := syntax.Parse(gsrc)
	if err != nil {
		b.Fatal(err)
	}
	gbase := check.Check(ast.Build(syntax.Read(gc)), check.Options{Path: "/virtual/gen.caps"})
	gbase.Recheck(gc)
	gnext, err := syntax.Parse(middleEdit(gsrc, "(if (> x hi) hi x)", "(if (> x hi) lo x)"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("FunctionBody", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, ok := gbase.Recheck(gnext); !ok {
				b.Fatal("Recheck declined")
			}
		}
	})
	b.Run("FullCheck", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check.Check(ast.Build(syntax.Read(c)), check.Options{Path: "/virtual/spec.caps"})
		}
	})
}

// BenchmarkRecheck100k is BenchmarkRecheck's edit inside a transition on
// a 100,000-line spec-shaped module: what the engine adds to the parse
// when the module is ten times larger.
func BenchmarkRecheck100k(b *testing.B) {
	src := gen.SpecModule(100000)
	c, err := syntax.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	base := check.Check(ast.Build(syntax.Read(c)), check.Options{Path: "/virtual/spec.caps"})
	base.Recheck(c)
	for _, e := range specEdits[:1] {
		nc, err := syntax.Parse(middleEdit(src, e.from, e.to))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(e.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, ok := base.Recheck(nc); !ok {
					b.Fatal("Recheck declined")
				}
			}
		})
	}
}
