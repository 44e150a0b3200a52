package check_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// checkedFacts is what a check result tells its readers, in comparable
// form: symbols and references by name and span, types by expression.
// The symbols' hover texts are compared apart (detailsOf).
type checkedFacts struct {
	Diagnostics []syntax.Diagnostic
	Symbols     []string
	Refs        []string
	Types       []string
	FuncEffects []string
	Examples    int
}

func factsOf(res *check.Result) checkedFacts {
	var f checkedFacts
	f.Diagnostics = res.Diagnostics
	for _, s := range res.Symbols {
		parent := ""
		if s.Parent != nil {
			parent = s.Parent.Name
		}
		typ := "<nil>"
		if s.Type != nil {
			typ = s.Type.String()
		}
		f.Symbols = append(f.Symbols, fmt.Sprintf("%s %q %v %v parent=%q type=%s doc=%q file=%q decl=%v",
			s.Kind, s.Name, s.Span, s.Full, parent, typ, s.Doc, s.File, s.Decl != nil))
	}
	for _, r := range res.Refs {
		f.Refs = append(f.Refs, fmt.Sprintf("%v -> %s %q %v", r.Span, r.Sym.Kind, r.Sym.Name, r.Sym.Span))
	}
	for e, t := range res.Types.All() {
		f.Types = append(f.Types, fmt.Sprintf("%T %v %d: %v", e, e.ExprSpan(), e.ExprID(), t))
	}
	if len(f.Types) != res.Types.Len() {
		panic("TypeMap.All and Len disagree")
	}
	for fn, uses := range res.FuncEffects {
		f.FuncEffects = append(f.FuncEffects, fmt.Sprintf("%s %v", fn.Name.Name, uses))
	}
	sort.Strings(f.Types)       // expressions outside the dense table come in a map's order
	sort.Strings(f.FuncEffects) // a map's order
	f.Examples = len(res.Examples)
	return f
}

// onceDropsDetail holds the kinds of symbol whose hover text
// (Symbol.Detail) a check with Options.Once leaves out: the declarations
// and the symbols a large module has many of.
var onceDropsDetail = map[check.SymbolKind]bool{
	check.SymInput: true, check.SymLocal: true, check.SymField: true,
	check.SymEnumMember: true, check.SymVariantCase: true,
}

// detailsOf lists the hover text of each symbol, "" for those a check
// with Options.Once leaves out when once is set.
func detailsOf(res *check.Result, once bool) []string {
	var out []string
	for _, s := range res.Symbols {
		d := s.Detail
		if once && (onceDropsDetail[s.Kind] || s.Decl != nil) {
			d = ""
		}
		out = append(out, fmt.Sprintf("%s %q: %q", s.Kind, s.Name, d))
	}
	return out
}

// TestOnceKeepsResults: a check with Options.Once (what the command line
// runs) reports exactly what a full check reports, for every checker
// fixture and example, but for the hover texts it leaves out (the
// language server's, which never checks with Once); only Recheck and
// Overlay decline on its result.
func TestOnceKeepsResults(t *testing.T) {
	var files []string
	for _, pat := range []string{fixtureDir + "/*.caps", "../../examples/*.caps"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 40 {
		t.Fatalf("found %d files; the fixtures or examples moved", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".caps"), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			check1 := func(once bool) (*check.Result, *syntax.CST) {
				cst, err := syntax.Parse(src)
				if err != nil {
					t.Fatal(err)
				}
				f := ast.Build(syntax.Read(cst))
				var stack []string
				if f.Module != nil {
					stack = []string{f.Module.Name.Name}
				}
				im := &fixtureImporter{stack: stack, cache: map[string]*check.Imported{}}
				return check.Check(f, check.Options{Path: file, Importer: im, Once: once}), cst
			}
			full, _ := check1(false)
			once, cst := check1(true)
			if diff := cmp.Diff(factsOf(full), factsOf(once)); diff != "" {
				t.Errorf("Once changed the result (-full +once):\n%s", diff)
			}
			if diff := cmp.Diff(detailsOf(full, true), detailsOf(once, false)); diff != "" {
				t.Errorf("Once kept other hover texts (-full without those it leaves out +once):\n%s", diff)
			}
			if _, ok := once.Recheck(cst); ok {
				t.Error("Recheck of a result checked with Once reported ok; it has no state to recheck with")
			}
			if once.File.Module != nil && once.Overlay(nil) != nil {
				t.Error("Overlay of a result checked with Once is not nil")
			}
		})
	}
}

// stubImporter answers imports from sources in memory, each checked once;
// a path it does not hold is not found.
type stubImporter map[string]string

func (im stubImporter) Import(from, path string) (*check.Imported, error) {
	src, ok := im[path]
	if !ok {
		return nil, &check.ImportError{Code: check.ImportNotFound, Message: "cannot find module " + path}
	}
	f, err := ast.Parse([]byte(src))
	if err != nil {
		return nil, err
	}
	return &check.Imported{File: path + ".caps", Module: f.Module, Hash: "sha256:" + path, Result: check.Check(f, check.Options{Path: path + ".caps"})}, nil
}

// TestImportsResolved: Options.ImportsResolved is called once, by Check
// alone, when the imports are final (those resolved, without the missing
// one or the second import under one name) and before any declaration is
// checked; never for a file without a module, nor by a Recheck.
func TestImportsResolved(t *testing.T) {
	im := stubImporter{
		"lib.a": "(module a (capsule \"1\") (function g (input (x I64)) (output I64) (body x)))",
		"lib.b": "(module b (capsule \"1\") (type T I64))",
		"c.a":   "(module a (capsule \"1\"))",
	}
	type call struct {
		Imports []string // name=hash
		Symbols []string // kind name
		Types   int
	}
	for _, tc := range []struct {
		name, src string
		calls     []call
		imports   []string // of the result
	}{
		{"imports",
			"(module m (capsule \"1\")\n  (import lib.a) (import lib.b (as bb)) (import missing) (import c.a)\n  (function f (input (y I64)) (output I64) (body (a.g y))))",
			[]call{{Imports: []string{"a=sha256:lib.a", "bb=sha256:lib.b"}, Symbols: []string{"module m", "import a", "import bb"}}},
			[]string{"a=sha256:lib.a", "bb=sha256:lib.b"}},
		{"no imports", "(module m (capsule \"1\") (function f (input (y I64)) (output I64) (body y)))",
			[]call{{Symbols: []string{"module m"}}}, nil},
		{"no module", "", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, once := range []bool{false, true} {
				cst, err := syntax.Parse([]byte(tc.src))
				if err != nil {
					t.Fatal(err)
				}
				var calls []call
				hook := func(res *check.Result) {
					var c call
					for _, info := range res.Imports {
						c.Imports = append(c.Imports, info.Name+"="+info.Hash)
					}
					for _, s := range res.Symbols {
						c.Symbols = append(c.Symbols, fmt.Sprintf("%s %s", s.Kind, s.Name))
					}
					c.Types = res.Types.Len()
					calls = append(calls, c)
				}
				res := check.Check(ast.Build(syntax.Read(cst)), check.Options{Path: "m.caps", Importer: im, Once: once, ImportsResolved: hook})
				if diff := cmp.Diff(tc.calls, calls); diff != "" {
					t.Errorf("once=%v: calls (-want +got):\n%s", once, diff)
				}
				var got []string
				for _, info := range res.Imports {
					got = append(got, info.Name+"="+info.Hash)
				}
				if diff := cmp.Diff(tc.imports, got); diff != "" {
					t.Errorf("once=%v: the result's imports (-want +got):\n%s", once, diff)
				}
				if !once && res.File.Module != nil {
					if _, ok := res.Recheck(cst); !ok {
						t.Fatal("Recheck declined")
					}
					if len(calls) != len(tc.calls) {
						t.Errorf("Recheck called ImportsResolved again: %d calls", len(calls))
					}
				}
			}
		})
	}
}
