package check

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/capsulang/caps/syntax/edittest"
)

// mapImporter answers imports from checked modules by module path.
type mapImporter map[string]*Result

func (m mapImporter) Import(from, path string) (*Imported, error) {
	r, ok := m[path]
	if !ok || r.File.Module == nil {
		return nil, &ImportError{Code: ImportNotFound, Message: "module " + path + " not found"}
	}
	return &Imported{File: "/virtual/" + path + ".caps", Module: r.File.Module, Hash: "h", Result: r}, nil
}

func checkAs(path string, src []byte, imp Importer) *Result {
	c, err := syntax.Parse(src)
	if err != nil {
		panic(err)
	}
	return Check(ast.Build(syntax.Read(c)), Options{Path: "/virtual/" + path + ".caps", Importer: imp})
}

// importGraph is a library edited at random and the modules importing it,
// directly or through another, in import order.
type importGraph struct {
	name    string
	lib     string // the library's module path
	libSrc  []byte
	users   []string // module paths, in import order
	userSrc map[string][]byte
}

func importGraphs(t *testing.T) []importGraph {
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rename := func(src []byte, name, imports, extra string) []byte {
		s := strings.Replace(string(src), "(module bench.generated\n  (capsule \"1.0\")", "(module "+name+"\n  (capsule \"1.0\")"+imports, 1)
		return []byte(strings.Replace(s, "\n  (store ops", extra+"\n  (store ops", 1))
	}
	libTypes := `
  (type Score U32)
  (type Level (enum low high))
  (type Entry (record (score Score) (level Level)))
  (function entry_of
    (input (s Score))
    (output Entry)
    (effects pure)
    (body (record Entry (score s) (level Level.low))))
`
	return []importGraph{
		{
			name: "examples/17_imports", lib: "lib.money", libSrc: read("../../examples/lib/money.caps"),
			users:   []string{"examples.imports"},
			userSrc: map[string][]byte{"examples.imports": read("../../examples/17_imports.caps")},
		},
		{
			name: "testdata/check/imports_checked", lib: "fixtures.units", libSrc: read("../../testdata/check/lib/fixtures/units.caps"),
			users:   []string{"fixtures.imports_checked"},
			userSrc: map[string][]byte{"fixtures.imports_checked": read("../../testdata/check/imports_checked.caps")},
		},
		{
			// an importer that declares acceptance policies (their
			// module-wide check runs over reused declarations)
			name: "claims importing units", lib: "fixtures.units", libSrc: read("../../testdata/check/lib/fixtures/units.caps"),
			users: []string{"examples.claims_before_facts"},
			userSrc: map[string][]byte{"examples.claims_before_facts": []byte(strings.Replace(strings.Replace(string(read("../../examples/31_claims_before_facts.caps")),
				"(capsule \"0.1.0\")", "(capsule \"0.1.0\")\n  (import fixtures.units (as u))", 1),
				"  (machine LoanDecision", "  (acceptance spare (auto))\n  (function probe (input (r u.Reading)) (output Text) (body (u.probe_of r)))\n  (function kelvin (output u.Kelvin) (body (u.to_kelvin 20)))\n  (machine LoanDecision", 1))},
		},
		{
			// the benchmark's workspace, three levels deep: mid's interface
			// reads lib's types, top reads mid's
			name: "generated chain", lib: "m000", libSrc: rename(gen.Module(80), "m000", "", libTypes),
			users: []string{"mid", "top"},
			userSrc: map[string][]byte{
				"mid": rename(gen.Module(80), "mid", "\n  (import m000)", `
  (function uses_mid
    (input (x I64))
    (output I64)
    (body (+ (m000.clamp_0 x 0 10) (m000.clamp_1 x 0 10))))
  (function wrap
    (input (s m000.Score))
    (output m000.Entry)
    (body (m000.entry_of s)))
  (function level_of
    (input (e m000.Entry))
    (output Bool)
    (body (match e.level (m000.Level.low true) (m000.Level.high false))))
`),
				"top": rename(gen.Module(80), "top", "\n  (import m000)\n  (import mid)", `
  (function uses_top
    (input (x I64))
    (output I64)
    (body (+ (m000.clamp_0 x 0 10) (mid.clamp_1 x 0 10))))
  (function rewrap
    (input (s m000.Score))
    (output Bool)
    (body (mid.level_of (mid.wrap s))))
  (function missing
    (output I64)
    (body (mid.clamp_9999 1 2 3)))
`),
			},
		},
	}
}

// TestRecheckImportsMatchesCheck edits imported modules at random (typing,
// signature and effect changes, undoing back to the last valid text) and
// checks, after every edit, each module importing them again with
// RecheckImports, against its last check (a full one, or a RecheckImports
// result), with the imports answered by the new checks (RecheckImports
// results for the modules in between): the diagnostics must be exactly a
// fresh full check's. It reports how many importer checks the engine
// answered and how many bodies it checked again.
func TestRecheckImportsMatchesCheck(t *testing.T) {
	edits := 60
	if testing.Short() {
		edits = 15
	}
	var checks, answered, bodies, rechecked, carried, libAnswers int
	for _, g := range importGraphs(t) {
		r := rand.New(rand.NewSource(int64(len(g.libSrc))))
		d, err := syntax.NewDocument(g.libSrc)
		if err != nil {
			t.Fatal(err)
		}
		full := mapImporter{g.lib: checkAs(g.lib, g.libSrc, nil)}
		for _, u := range g.users {
			full[u] = checkAs(u, g.userSrc[u], full)
		}
		if n := len(full[g.users[0]].Imports); n == 0 {
			t.Fatalf("%s: %s resolved no import", g.name, g.users[0])
		}
		for _, u := range g.users {
			if want := bytes.Contains(g.userSrc[u], []byte("(acceptance spare")); want != hasCode(full[u].Diagnostics, ClaimUnusedPolicy) {
				t.Fatalf("%s: %s: W_CLAIM_UNUSED_POLICY reported: %v, want %v", g.name, u, !want, want)
			}
		}
		bases := map[string]*Result{}
		for _, u := range g.users {
			bases[u] = full[u]
		}
		good := g.libSrc
		var libPrev *Result // (the last library check that kept its tree)
		for i := 0; i < edits; i++ {
			cur := d.Text()
			start, end, text := bodyEdit(r, cur)
			if d.CST().HasError(0) && r.Intn(3) > 0 {
				start, end, text = edittest.Undo(cur, good)
			}
			if err := d.Edit(start, end, []byte(text)); err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s: edit %d [%d,%d) -> %q", g.name, i, start, end, text)
			lib := Check(ast.Build(syntax.Read(d.CST())), Options{Path: "/virtual/" + g.lib + ".caps"})
			if libPrev != nil && i%3 == 1 && !d.CST().HasError(0) {
				// as the language server answers the edited module: the
				// engine's answer made importable, which keeps the type
				// objects of its unchanged type declarations (and so the
				// importers' types that read them)
				answer, ok := libPrev.RecheckResult(d.CST())
				if imp, ok2 := answer.Importable(); ok && ok2 {
					if diff := cmp.Diff(lib.Diagnostics, imp.Diagnostics); diff != "" {
						t.Fatalf("%s: the library's answer differs from Check (-check +answer):\n%s", what, diff)
					}
					lib = imp
					libAnswers++
				}
			}
			if i%2 == 0 && lib.TreeCurrent() && lib.checker.base == nil && !lib.checker.kept {
				// as the loader keeps an imported file: its text, no tree
				c := lib.File.Source.CST
				lib.File.Source.CST = &syntax.CST{Src: c.Src, Lines: c.Lines}
				libPrev = nil
			} else {
				libPrev = lib
			}
			full = mapImporter{g.lib: lib}
			eng := mapImporter{g.lib: lib}
			for _, u := range g.users {
				want := checkAs(u, g.userSrc[u], full)
				full[u] = want
				checks++
				got, run, ok := bases[u].recheckImports(eng)
				if !ok {
					eng[u], bases[u] = want, want
					continue
				}
				answered++
				bodies += run.rechecked + run.reused
				rechecked += run.rechecked
				if diff := cmp.Diff(want.Diagnostics, got.Diagnostics); diff != "" {
					t.Fatalf("%s: %s: RecheckImports differs from Check (-check +recheck):\n%s", what, u, diff)
				}
				if !got.Partial() {
					// its own bodies are covered (carried over from the
					// base): its symbols, references and types are a full
					// check's
					if diff := cmp.Diff(bodyRecords(want), bodyRecords(got)); diff != "" {
						t.Fatalf("%s: %s: RecheckImports' symbols, references or types differ from Check's (-check +recheck):\n%s", what, u, diff)
					}
					carried++
				}
				eng[u] = got
				// the answer is a base for Recheck too: an edit of the
				// importer's own text, rechecked over it (its imports
				// answered as the answer resolved them) and chained once
				// more, is a full check's
				if r.Intn(2) == 0 {
					recheckAfterImports(t, what+": "+u, r, u, got, full)
				}
				// the next base: now and then the full check (as the
				// server's deferred full check makes it), else the engine's
				if r.Intn(4) == 0 {
					bases[u] = want
				} else {
					bases[u] = got
				}
			}
			if !d.CST().HasError(0) {
				good = d.Text()
			}
		}
		d.Close()
	}
	t.Logf("%d of %d importer checks answered by RecheckImports (%d covering every body, compared symbol by symbol); %s of their bodies checked again; %d Rechecks over their answers; %d library versions were the engine's answers", answered, checks, carried, pct(rechecked, bodies), recheckedOverImports, libAnswers)
	if carried == 0 {
		t.Fatal("no RecheckImports answer covered every body")
	}
	if libAnswers == 0 {
		t.Fatal("no library version was the engine's answer")
	}
	if recheckedOverImports == 0 {
		t.Fatal("no Recheck over a RecheckImports answer was compared")
	}
	if answered*100 < checks*80 {
		t.Fatalf("RecheckImports answered only %d of %d importer checks", answered, checks)
	}
}

// TestRecheckImportsReuse holds RecheckImports to its point on the
// benchmark's workspace: an edit of a function's output type in the
// imported module checks again, in an importer, only the declarations
// that call it; an edit of its body, none.
func TestRecheckImportsReuse(t *testing.T) {
	g := importGraphs(t)[3]
	libSrc := string(g.libSrc)
	at := strings.Index(libSrc, "(function clamp_0")
	at += strings.Index(libSrc[at:], "(output I64)") + len("(output ")
	tests := []struct {
		name      string
		lib       string
		rechecked map[string]int
		codes     map[string][]string
	}{
		{"output type", libSrc[:at] + "Bool" + libSrc[at+3:], map[string]int{"mid": 1, "top": 1}, map[string][]string{"mid": {"E_TYPE_MISMATCH"}, "top": {"E_TYPE_MISMATCH", "E_UNKNOWN_NAME"}}},
		{"body", strings.Replace(libSrc, "(if (< x lo)", "(if (< x hi)", 1), map[string]int{"mid": 0, "top": 0}, map[string][]string{"mid": nil, "top": {"E_UNKNOWN_NAME"}}},
		{"type used through mid", strings.Replace(libSrc, "(type Score U32)", "(type Score U64)", 1), map[string]int{"mid": 2, "top": 1}, map[string][]string{"mid": nil, "top": {"E_UNKNOWN_NAME"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full := mapImporter{g.lib: checkAs(g.lib, g.libSrc, nil)}
			for _, u := range g.users {
				full[u] = checkAs(u, g.userSrc[u], full)
			}
			lib := checkAs(g.lib, []byte(tt.lib), nil)
			eng := mapImporter{g.lib: lib}
			fresh := mapImporter{g.lib: lib}
			for _, u := range g.users {
				fresh[u] = checkAs(u, g.userSrc[u], fresh)
				got, run, ok := full[u].recheckImports(eng)
				if !ok {
					t.Fatalf("%s: RecheckImports declined", u)
				}
				eng[u] = got
				if diff := cmp.Diff(fresh[u].Diagnostics, got.Diagnostics); diff != "" {
					t.Fatalf("%s: differs from Check (-check +recheck):\n%s", u, diff)
				}
				var codes []string
				for _, d := range got.Diagnostics {
					codes = append(codes, d.Code)
				}
				if diff := cmp.Diff(tt.codes[u], codes); diff != "" {
					t.Errorf("%s: codes (-want +got):\n%s", u, diff)
				}
				if run.rechecked != tt.rechecked[u] {
					t.Errorf("%s: %d bodies checked again, want %d", u, run.rechecked, tt.rechecked[u])
				}
			}
		})
	}
}

// TestRecheckImportsDeclines lists what RecheckImports leaves to a full
// check: an import that resolved and now fails.
func TestRecheckImportsDeclines(t *testing.T) {
	g := importGraphs(t)[3]
	full := mapImporter{g.lib: checkAs(g.lib, g.libSrc, nil)}
	mid := checkAs("mid", g.userSrc["mid"], full)
	if _, _, ok := mid.recheckImports(mapImporter{}); ok {
		t.Errorf("RecheckImports answered though m000 no longer resolves")
	}
	if _, _, ok := mid.recheckImports(failing{}); ok {
		t.Errorf("RecheckImports answered though every import fails")
	}
	if _, _, ok := mid.recheckImports(full); !ok {
		t.Errorf("RecheckImports declined the same imports")
	}
}

func hasCode(ds []syntax.Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

type failing struct{}

func (failing) Import(from, path string) (*Imported, error) { return nil, errors.New("no") }

// BenchmarkRecheckImports times checking an importer of the benchmark's
// workspace again after an edit of the output type of a function it
// calls in the module it imports: RecheckImports against a full check
// (of the same tree: neither reads the text again).
func BenchmarkRecheckImports(b *testing.B) {
	var g importGraph
	for _, x := range importGraphs(&testing.T{}) {
		if x.lib == "m000" {
			g = x
		}
	}
	libSrc := string(g.libSrc)
	at := strings.Index(libSrc, "(function clamp_0")
	at += strings.Index(libSrc[at:], "(output I64)") + len("(output ")
	libs := [2]*Result{checkAs(g.lib, g.libSrc, nil), checkAs(g.lib, []byte(libSrc[:at]+"Bool"+libSrc[at+3:]), nil)}
	base := checkAs("mid", g.userSrc["mid"], mapImporter{g.lib: libs[0]})
	b.Run("RecheckImports", func(b *testing.B) {
		// each answer the base of the next, as in the language server
		r := base
		for i := 0; i < b.N; i++ {
			next, ok := r.RecheckImports(mapImporter{g.lib: libs[1-i%2]})
			if !ok {
				b.Fatal("declined")
			}
			r = next
		}
	})
	b.Run("Check", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Check(base.File, Options{Path: base.Path, Importer: mapImporter{g.lib: libs[1-i%2]}})
		}
	})
}

// TestRecheckImportsConcurrent checks importers of one module again at
// once, as the language server does (they share the imported module's
// check, whose view for importers is built on first use): each answer is
// a fresh check's. Run it with -race.
func TestRecheckImportsConcurrent(t *testing.T) {
	g := importGraphs(t)[3]
	libSrc := string(g.libSrc)
	at := strings.Index(libSrc, "(function clamp_0")
	at += strings.Index(libSrc[at:], "(output I64)") + len("(output ")
	old := mapImporter{g.lib: checkAs(g.lib, g.libSrc, nil)}
	lib := checkAs(g.lib, []byte(libSrc[:at]+"Bool"+libSrc[at+3:]), nil)
	const n = 8
	bases := make([]*Result, n)
	for i := range bases {
		bases[i] = checkAs("mid", g.userSrc["mid"], old)
	}
	got := make([]*Result, n)
	var wg sync.WaitGroup
	for i := range bases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = bases[i].RecheckImports(mapImporter{g.lib: lib})
		}()
	}
	wg.Wait()
	want := checkAs("mid", g.userSrc["mid"], mapImporter{g.lib: lib})
	for i, r := range got {
		if r == nil {
			t.Fatalf("importer %d: RecheckImports declined", i)
		}
		if diff := cmp.Diff(want.Diagnostics, r.Diagnostics); diff != "" {
			t.Fatalf("importer %d differs from Check (-check +recheck):\n%s", i, diff)
		}
	}
}

// recheckAfterImports edits the importer u twice (body edits), each time
// rechecking over the previous answer, from base, a RecheckImports
// answer, and compares with a full check with the same imports.
func recheckAfterImports(t *testing.T, what string, r *rand.Rand, u string, base *Result, imp Importer) {
	t.Helper()
	src := base.File.Source.CST.Src
	for k := 0; k < 2; k++ {
		start, end, text := bodyEdit(r, src)
		src = append(append(append([]byte(nil), src[:start]...), text...), src[end:]...)
		c, err := syntax.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := base.RecheckResult(c)
		if !ok {
			return // a syntax error, say: the server checks in full
		}
		want := checkAs(u, src, imp)
		if diff := cmp.Diff(want.Diagnostics, got.Diagnostics); diff != "" {
			t.Fatalf("%s: Recheck %d over a RecheckImports answer differs from Check (-check +recheck):\n%s", what, k, diff)
		}
		recheckedOverImports++
		if !got.Rechecks() {
			return
		}
		base = got
	}
}

// recheckedOverImports counts the Rechecks recheckAfterImports compared.
var recheckedOverImports int

// bodyRecords lists what requests read of a result, independently of its
// tree's nodes: its own symbols (kind, name, span, parents, members),
// its references (span and the symbol's file, kind, name and span) and
// its expressions' types (span and type), sorted.
func bodyRecords(r *Result) []string {
	var out []string
	sym := func(s *Symbol) string {
		if s == nil {
			return "<nil>"
		}
		return fmt.Sprintf("%s %s/%s %v", s.File, s.Kind, SymbolKey(s), s.Span)
	}
	for _, s := range r.Symbols {
		if s.File != r.Path {
			continue
		}
		var members []string
		for _, m := range r.checker.members(s) {
			members = append(members, string(m.Kind)+" "+m.Name)
		}
		sort.Strings(members)
		out = append(out, fmt.Sprintf("symbol %s %q %v", sym(s), s.Detail, members))
	}
	for _, ref := range r.Refs {
		out = append(out, fmt.Sprintf("ref %v -> %s", ref.Span, sym(ref.Sym)))
	}
	for e, t := range r.Types.All() {
		out = append(out, fmt.Sprintf("type %v %v", e.ExprSpan(), t))
	}
	sort.Strings(out)
	return out
}
