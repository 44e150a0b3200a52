package check

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
)

// keepStep is one edit of a library (from → to in its text), and what
// the library's answer and its importer's must keep of their type
// objects.
type keepStep struct {
	name, from, to   string
	libKept, appKept []string
}

// keepDifferential edits lib step by step the way the language server
// answers it (RecheckResult, made Importable) and checks app again over
// each version (recheckImports). Each answer must be a full check's:
// diagnostics, the declarations' types as printed, what hover shows of
// every reference (the symbol's kind, name, detail, doc and type), the
// expression types of the importer's bodies, and no type object of an
// older version reachable from the answer (every record, enum and
// variant its types reach is the type of a declaration of the current
// versions). appEdit (from → to in app) is then checked over the
// importer's answer against a full check (an object kept against an
// older library would not accept the new library's values).
func keepDifferential(t *testing.T, lib, app string, appEdit [2]string, steps []keepStep) {
	t.Helper()
	libBase := checkAs("lib", []byte(lib), nil)
	appBase := checkAs("app", []byte(app), mapImporter{"lib": libBase})
	src := lib
	for _, st := range steps {
		if !strings.Contains(src, st.from) {
			t.Fatalf("%s: %q not in the library", st.name, st.from)
		}
		src = strings.Replace(src, st.from, st.to, 1)
		cst, err := syntax.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		answer, ok := libBase.RecheckResult(cst)
		if !ok {
			t.Fatalf("%s: Recheck declined", st.name)
		}
		libNext, ok := answer.Importable()
		if !ok {
			t.Fatalf("%s: Importable declined", st.name)
		}
		appNext, run, ok := appBase.recheckImports(mapImporter{"lib": libNext})
		if !ok {
			t.Fatalf("%s: RecheckImports declined", st.name)
		}
		libFull := checkAs("lib", []byte(src), nil)
		appFull := checkAs("app", []byte(app), mapImporter{"lib": libFull})
		sameAsFull(t, st.name+": the library", libFull, libNext)
		sameAsFull(t, st.name+": the importer", appFull, appNext)
		if appNext.Partial() {
			// (its base covered every body: so must the answer, its
			// references to the library moved to the new version's)
			t.Errorf("%s: the importer's answer is partial", st.name)
		}
		if got := keptTypes(libBase, libNext); !cmp.Equal(got, st.libKept) {
			t.Errorf("%s: the library's types kept: %v, want %v", st.name, got, st.libKept)
		}
		if got := keptTypes(appBase, appNext); !cmp.Equal(got, st.appKept) || run.keptTypes != len(st.appKept) {
			t.Errorf("%s: the importer's types kept: %v (the run: %d), want %v", st.name, got, run.keptTypes, st.appKept)
		}
		if appEdit[0] != "" {
			edited := strings.Replace(app, appEdit[0], appEdit[1], 1)
			cst, err := syntax.Parse([]byte(edited))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := appNext.RecheckResult(cst)
			if !ok {
				t.Fatalf("%s: the importer's Recheck declined", st.name)
			}
			want := checkAs("app", []byte(edited), mapImporter{"lib": libFull})
			if diff := cmp.Diff(want.Diagnostics, got.Diagnostics); diff != "" {
				t.Errorf("%s: an edit of the importer over its answer differs from a full check (-full +recheck):\n%s", st.name, diff)
			}
		}
		libBase, appBase = libNext, appNext
	}
}

// sameAsFull compares an answer with a full check of the same text.
func sameAsFull(t *testing.T, what string, full, ans *Result) {
	t.Helper()
	if diff := cmp.Diff(full.Diagnostics, ans.Diagnostics); diff != "" {
		t.Errorf("%s: diagnostics differ from a full check (-full +answer):\n%s", what, diff)
	}
	if diff := cmp.Diff(typeStrings(full), typeStrings(ans)); diff != "" {
		t.Errorf("%s: types differ from a full check (-full +answer):\n%s", what, diff)
	}
	if diff := cmp.Diff(symbolDocs(full), symbolDocs(ans)); diff != "" {
		t.Errorf("%s: symbols' hover differs from a full check (-full +answer):\n%s", what, diff)
	}
	if diff := cmp.Diff(shapes(full), shapes(ans)); diff != "" {
		t.Errorf("%s: the types' fields, members and cases differ from a full check's (-full +answer):\n%s", what, diff)
	}
	if ans.Partial() {
		return // (a fast answer made importable covers no body)
	}
	if diff := cmp.Diff(refHovers(full), refHovers(ans)); diff != "" {
		t.Errorf("%s: references' hover differs from a full check (-full +answer):\n%s", what, diff)
	}
	if diff := cmp.Diff(exprTypes(full), exprTypes(ans)); diff != "" {
		t.Errorf("%s: expression types differ from a full check (-full +answer):\n%s", what, diff)
	}
	if stale := staleTypes(ans); len(stale) > 0 {
		t.Errorf("%s: types of older versions are reachable from the answer: %v", what, stale)
	}
}

// hoverOf is what the language server's hover shows of a symbol
// (symbolMarkdown), with the file it is from.
func hoverOf(s *Symbol) string {
	ty := "<nil>"
	if s.Type != nil {
		ty = s.Type.String()
	}
	return fmt.Sprintf("%s %s [%s] doc=%q type=%s from %s", s.Kind, s.Name, s.Detail, s.Doc, ty, s.File)
}

// symbolDocs lists what hover shows of r's own symbols, at their spans.
func symbolDocs(r *Result) []string {
	var out []string
	for _, s := range r.Symbols {
		if s.File == r.Path && s.Decl != nil {
			out = append(out, fmt.Sprintf("%v %s", s.Span, hoverOf(s)))
		}
	}
	sort.Strings(out)
	return out
}

// refHovers lists what hover shows at each reference of r.
func refHovers(r *Result) []string {
	var out []string
	for _, ref := range r.Refs {
		if ref.Sym != nil {
			out = append(out, fmt.Sprintf("%v %s", ref.Span, hoverOf(ref.Sym)))
		}
	}
	sort.Strings(out)
	return out
}

// exprTypes lists the expression types of r, by span.
func exprTypes(r *Result) []string {
	var out []string
	if r.Types == nil {
		return nil
	}
	for e, ty := range r.Types.All() {
		out = append(out, fmt.Sprintf("%v %s", e.ExprSpan(), ty))
	}
	sort.Strings(out)
	return out
}

// staleTypes lists the records, enums and variants reachable from r's
// symbols' and expressions' types that are not the type of a
// declaration of r's module or of a module it imports, directly or not
// (an object of an older version kept by mistake).
func staleTypes(r *Result) []string {
	current := map[types.Type]bool{}
	seen := map[*Result]bool{}
	var collect func(r *Result)
	collect = func(r *Result) {
		if seen[r] {
			return
		}
		seen[r] = true
		for _, s := range r.Symbols {
			if s.Decl != nil && s.Kind == "type" && s.Type != nil {
				current[s.Type] = true
			}
		}
		if c := r.checker; c != nil {
			// (a second declaration of a name has no symbol type)
			for _, ty := range c.typeCache {
				current[ty] = true
			}
		}
		for _, im := range r.Imports {
			if im.Imported != nil && im.Result != nil {
				collect(im.Result)
			}
		}
	}
	collect(r)
	var stale []string
	visited := map[types.Type]bool{}
	var walk func(ty types.Type)
	walk = func(ty types.Type) {
		if ty == nil || visited[ty] {
			return
		}
		visited[ty] = true
		switch x := ty.(type) {
		case *types.Record:
			if !current[x] {
				stale = append(stale, "record "+x.Name)
			}
			for _, f := range x.Fields {
				walk(f.Type)
			}
		case *types.Enum:
			if !current[x] {
				stale = append(stale, "enum "+x.Name)
			}
		case *types.Variant:
			if !current[x] {
				stale = append(stale, "variant "+x.Name)
			}
			for _, cs := range x.Cases {
				for _, f := range cs.Fields {
					walk(f.Type)
				}
			}
		case *types.List:
			walk(x.Elem)
		case *types.Array:
			walk(x.Elem)
		case *types.Option:
			walk(x.Elem)
		case *types.Result:
			walk(x.Ok)
			walk(x.Err)
		case *types.Map:
			walk(x.Key)
			walk(x.Value)
		}
	}
	for _, s := range r.Symbols {
		walk(s.Type)
	}
	if r.Types != nil {
		for _, ty := range r.Types.All() {
			walk(ty)
		}
	}
	sort.Strings(stale)
	return stale
}

// TestKeepTypesDuplicateImportedDecls: the imported module declares T
// twice. The importer reads the first (as a full check does), so an
// edit of the second keeps the importer's types, and removing the first
// makes the second the one read.
func TestKeepTypesDuplicateImportedDecls(t *testing.T) {
	lib := `(module lib
  (capsule "1")
  (type T (record (a I64)))
  (type T (record (b Bool)))
  (type U (record (t T)))
  (function mk (output T) (body (record T (a 1)))))
`
	app := `(module app
  (capsule "1")
  (import lib)
  (type W (record (t lib.T) (u lib.U)))
  (type Own (enum a b))
  (function f (output I64) (body (let ((w (record W (t (lib.mk)) (u (record lib.U (t (lib.mk))))))) w.t.a))))
`
	keepDifferential(t, lib, app, [2]string{"w.t.a", "(+ w.t.a 1)"}, []keepStep{
		{"the second T edited", "(record (b Bool))", "(record (b I64))",
			[]string{"T", "U"}, []string{"W", "Own"}},
		{"the first T removed", "(type T (record (a I64)))\n", "",
			nil, []string{"Own"}},
		{"a first T again", "(type T (record (b I64)))", "(type T (record (a I64)))\n  (type T (record (b I64)))",
			nil, []string{"Own"}},
		{"a body", "(a 1)", "(a 2)",
			[]string{"T", "U"}, []string{"W", "Own"}},
	})
}

// TestKeepTypesMissingImportedMember: the importer reads lib.X, which
// neither version declares. Its types stay kept while the library's
// names stay the same (the message's suggestions read them), and are
// made anew when a name that could be suggested is added.
func TestKeepTypesMissingImportedMember(t *testing.T) {
	lib := `(module lib
  (capsule "1")
  (type P (record (a I64)))
  (function g (output I64) (body 1)))
`
	app := `(module app
  (capsule "1")
  (import lib)
  (type W (record (x lib.X) (n I64)))
  (type V (record (w W)))
  (type Own (enum a b))
  (function f (input (w W)) (output I64) (body w.n)))
`
	keepDifferential(t, lib, app, [2]string{"(body w.n)", "(body (+ w.n 1))"}, []keepStep{
		{"a body", "(body 1)", "(body 2)",
			[]string{"P"}, []string{"W", "V", "Own"}},
		{"a type the importer does not read", "(record (a I64))", "(record (a I64) (b I64))",
			nil, []string{"W", "V", "Own"}},
		{"a name it could suggest", "(function g", "(type Xs U32)\n  (function g",
			[]string{"P"}, []string{"Own"}},
		{"X declared", "(type Xs U32)", "(type X U32)",
			[]string{"P"}, []string{"Own"}},
	})
}

// TestKeepTypesLocalAliasOfImported: the importer names lib.T through an
// alias of its own and uses the alias elsewhere: redefining lib.T makes
// every type that reads the alias anew.
func TestKeepTypesLocalAliasOfImported(t *testing.T) {
	lib := `(module lib
  (capsule "1")
  (type T (record (a I64)))
  (type Tag (enum x y))
  (function mk (output T) (body (record T (a 1)))))
`
	app := `(module app
  (capsule "1")
  (import lib)
  (type Local lib.T)
  (type Again Local)
  (type Box (record (v Local) (tag lib.Tag)))
  (type Boxes (List Again))
  (type Own (enum a b))
  (function get (input (b Box)) (output Local) (body b.v))
  (function mk (output Box) (body (record Box (v (lib.mk)) (tag lib.Tag.x)))))
`
	keepDifferential(t, lib, app, [2]string{"(body b.v)", "(body (let ((v b.v)) v))"}, []keepStep{
		{"a body", "(a 1)", "(a 2)",
			[]string{"T", "Tag"}, []string{"Local", "Again", "Box", "Boxes", "Own"}},
		{"T redefined", "(type T (record (a I64)))", "(type T (record (a I64) (b Bool)))",
			[]string{"Tag"}, []string{"Own"}},
		{"T an alias", "(type T (record (a I64) (b Bool)))", "(type T I64)",
			[]string{"Tag"}, []string{"Own"}},
		{"Tag redefined", "(enum x y)", "(enum x y z)",
			[]string{"T"}, []string{"Local", "Again", "Boxes", "Own"}},
	})
}

// TestKeepTypesDocOnlyEdits: a doc comment edited in the library keeps
// every type object, and hover (the symbols' docs, in the library and
// at the importer's references) shows the new doc.
func TestKeepTypesDocOnlyEdits(t *testing.T) {
	lib := `(module lib
  (capsule "1")
  ;; A point.
  (type Point (record (x I64) (y I64)))
  ;; A color.
  (type Color (enum red green))
  ;; The origin.
  (function origin (output Point) (body (record Point (x 0) (y 0)))))
`
	app := `(module app
  (capsule "1")
  (import lib)
  ;; A pair.
  (type Pair (record (p lib.Point) (c lib.Color)))
  (function make (output Pair) (body (record Pair (p (lib.origin)) (c lib.Color.red)))))
`
	keepDifferential(t, lib, app, [2]string{"lib.Color.red", "lib.Color.green"}, []keepStep{
		{"a type's doc", ";; A point.", ";; A point, in the plane.",
			[]string{"Point", "Color"}, []string{"Pair"}},
		{"a doc added", "  (type Color", "  ;; More.\n  (type Color",
			[]string{"Point", "Color"}, []string{"Pair"}},
		{"a doc removed", "  ;; A point, in the plane.\n", "",
			[]string{"Point", "Color"}, []string{"Pair"}},
		{"a function's doc", ";; The origin.", ";; Where x and y are 0.",
			[]string{"Point", "Color"}, []string{"Pair"}},
	})
	// the importer's own doc edited: its answer made importable (as the
	// language server answers the edit) keeps Pair, and shows the new doc
	libR := checkAs("lib", []byte(lib), nil)
	imp := mapImporter{"lib": libR}
	base := checkAs("app", []byte(app), imp)
	for _, edit := range [][2]string{{";; A pair.", ";; Two things."}, {"  ;; Two things.\n", ""}, {"  (type Pair", "  ;; Back.\n  (type Pair"}} {
		next := strings.Replace(app, edit[0], edit[1], 1)
		cst, err := syntax.Parse([]byte(next))
		if err != nil {
			t.Fatal(err)
		}
		ans, ok := base.RecheckResult(cst)
		if !ok {
			t.Fatalf("%q: Recheck declined", edit[1])
		}
		got, ok := ans.Importable()
		if !ok {
			t.Fatalf("%q: Importable declined", edit[1])
		}
		sameAsFull(t, fmt.Sprintf("the importer's doc %q", edit[1]), checkAs("app", []byte(next), imp), got)
		if kept := keptTypes(base, got); !cmp.Equal(kept, []string{"Pair"}) {
			t.Errorf("%q: the importer's types kept: %v, want [Pair]", edit[1], kept)
		}
		base, app = got, next
	}
}

// shapes describes the types of r's type declarations in full: a
// record's and a variant's cases' fields, an enum's members, and the
// position each name's lookup finds (the lookups' index is state the
// type object builds on first use).
func shapes(r *Result) []string {
	var out []string
	field := func(fs []types.Field) string {
		var b strings.Builder
		for _, f := range fs {
			fmt.Fprintf(&b, " (%s %s)", f.Name, f.Type)
		}
		return b.String()
	}
	for _, s := range r.Symbols {
		if s.File != r.Path || s.Decl == nil || s.Kind != "type" {
			continue
		}
		d := s.Name + ":"
		switch x := s.Type.(type) {
		case *types.Record:
			d += " " + x.Kind + field(x.Fields)
			for _, f := range x.Fields {
				d += fmt.Sprintf(" %s@%d", f.Name, x.FieldIndex(f.Name))
			}
			d += fmt.Sprintf(" missing@%d", x.FieldIndex("missing"))
		case *types.Enum:
			for _, m := range x.Members {
				d += fmt.Sprintf(" %s@%d", m, x.Index(m))
			}
			d += fmt.Sprintf(" missing@%d", x.Index("missing"))
		case *types.Variant:
			for _, cs := range x.Cases {
				d += fmt.Sprintf(" (%s@%d%s)", cs.Name, x.CaseIndex(cs.Name), field(cs.Fields))
			}
			d += fmt.Sprintf(" missing@%d", x.CaseIndex("missing"))
		default:
			d += fmt.Sprint(" ", s.Type)
		}
		out = append(out, d)
	}
	return out
}

// TestKeepTypesMutableState: what a check sets on a type object (a
// record's fields, an enum's members, a variant's cases, appended while
// its declaration is resolved, and the name index lookups build on first
// use, past 16 names) stays the base's on a kept object: the new
// version's resolution fills an object that is dropped. The kept objects
// must describe exactly what a full check's do, after lookups of their
// names in the base built their indexes, and a self-referring record
// kept must refer to itself.
func TestKeepTypesMutableState(t *testing.T) {
	var fields, members, reads []string
	for i := 0; i < 20; i++ {
		fields = append(fields, fmt.Sprintf("(f%d I64)", i))
		members = append(members, fmt.Sprintf("m%d", i))
		reads = append(reads, fmt.Sprintf("b.f%d", i))
	}
	lib := `(module lib
  (capsule "1")
  (type Big (record ` + strings.Join(fields, " ") + `))
  (type Many (enum ` + strings.Join(members, " ") + `))
  (type Tree (record (kids (List Tree)) (big Big)))
  (type Shape (variant (circle (radius U32)) (box (big Big)) none))
  (type Other (record (a I64)))
  (function sum (input (b Big)) (output I64) (body (+ ` + strings.Join(reads, " ") + `)))
  (function last (input (m Many)) (output I64) (body (match m (Many.m19 1) (_ 0)))))
`
	app := `(module app
  (capsule "1")
  (import lib)
  (type Holder (record (big lib.Big) (many lib.Many) (tree lib.Tree) (shape lib.Shape)))
  (type Own (enum a b))
  (function get (input (h Holder)) (output I64) (body (+ h.big.f19 h.big.f0 (lib.sum h.big))))
  (function kind (input (h Holder)) (output I64) (body (match h.shape ((lib.Shape.box b) b.big.f7) (_ 0))))
  (function many (input (h Holder)) (output I64) (body (match h.many (lib.Many.m19 19) (lib.Many.m0 0) (_ 1)))))
`
	keepDifferential(t, lib, app, [2]string{"b.big.f7", "b.big.f8"}, []keepStep{
		{"a body", "(_ 0)))))", "(_ 2)))))",
			[]string{"Big", "Many", "Tree", "Shape", "Other"}, []string{"Holder", "Own"}},
		{"a type no importer reads", "(record (a I64))", "(record (a I64) (b I64))",
			[]string{"Big", "Many", "Tree", "Shape"}, []string{"Holder", "Own"}},
		{"Big grows", "(f19 I64)", "(f19 I64) (f20 I64)",
			[]string{"Many", "Other"}, []string{"Own"}},
		{"Many grows", "m19)", "m19 m20)",
			[]string{"Big", "Tree", "Shape", "Other"}, []string{"Own"}},
		{"a body again", "(_ 2)))))", "(_ 3)))))",
			[]string{"Big", "Many", "Tree", "Shape", "Other"}, []string{"Holder", "Own"}},
	})
	// the kept self-referring record refers to itself
	libBase := checkAs("lib", []byte(lib), nil)
	src := strings.Replace(lib, "(record (a I64))", "(record (a Bool))", 1)
	cst, err := syntax.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ans, ok := libBase.RecheckResult(cst)
	if !ok {
		t.Fatal("Recheck declined")
	}
	next, ok := ans.Importable()
	if !ok {
		t.Fatal("Importable declined")
	}
	tree, _ := typeOf(next, "Tree").(*types.Record)
	if tree == nil || tree != typeOf(libBase, "Tree") {
		t.Fatalf("Tree was not kept: %v", tree)
	}
	if l, _ := tree.Field("kids").(*types.List); l == nil || l.Elem != tree {
		t.Errorf("the kept Tree's kids are %v, not a list of itself", tree.Field("kids"))
	}
	if tree.Field("big") != typeOf(next, "Big") {
		t.Errorf("the kept Tree's big is not the new version's Big")
	}
}

// TestKeepTypesRemovedImportedSymbols: the library removes or renames
// members the importer's bodies, signatures and types refer to. Every
// reader is checked again (its references would otherwise point to
// symbols the new version has not), the others' references move to the
// new version's symbols, and the answer is a full check's.
func TestKeepTypesRemovedImportedSymbols(t *testing.T) {
	lib := `(module lib
  (capsule "1")
  (type P (record (a I64) (b I64)))
  (type Color (enum red green))
  (type Q (record (c Color)))
  (function old (input (x I64)) (output I64) (body x))
  (function keep (output I64) (body 1)))
`
	app := `(module app
  (capsule "1")
  (import lib)
  (type W (record (p lib.P)))
  (type H (record (q lib.Q)))
  (type Own (enum a b))
  (function useOld (output I64) (body (lib.old 1)))
  (function useKeep (output I64) (body (lib.keep)))
  (function useField (input (w W)) (output I64) (body w.p.b))
  (function useRed (output lib.Color) (body lib.Color.red))
  (function useP (input (p lib.P)) (output I64) (body p.a)))
`
	keepDifferential(t, lib, app, [2]string{"(lib.keep)", "(+ (lib.keep) 1)"}, []keepStep{
		{"a function renamed", "(function old", "(function older",
			[]string{"P", "Color", "Q"}, []string{"W", "H", "Own"}},
		{"a field removed", "(record (a I64) (b I64))", "(record (a I64))",
			[]string{"Color", "Q"}, []string{"H", "Own"}},
		{"an enum member renamed", "(enum red green)", "(enum crimson green)",
			[]string{"P"}, []string{"W", "Own"}},
		{"a type removed", "(type P (record (a I64)))\n", "",
			[]string{"Color", "Q"}, []string{"H", "Own"}},
		{"an input renamed", "(input (x I64)) (output I64) (body x)", "(input (y I64)) (output I64) (body y)",
			[]string{"Color", "Q"}, []string{"W", "H", "Own"}},
		// (W reads lib.P, found in neither version: the names the
		// library declares changed)
		{"the function back", "(function older", "(function old",
			[]string{"Color", "Q"}, []string{"H", "Own"}},
	})
}

// TestKeepTypesAliasChainAcrossImports: the importer reads, through an
// alias of its own, a library's alias of a type of the library's own
// import (app → lib → base). Editing base's type makes anew every type
// that reads it two imports away; editing another keeps them.
func TestKeepTypesAliasChainAcrossImports(t *testing.T) {
	base := `(module base
  (capsule "1")
  (type B (record (v I64)))
  (type Other (record (o I64)))
  (function mkB (output B) (body (record B (v 1)))))
`
	lib := `(module lib
  (capsule "1")
  (import base)
  (type A base.B)
  (type Wrap (record (a A)))
  (function mk (output Wrap) (body (record Wrap (a (base.mkB))))))
`
	app := `(module app
  (capsule "1")
  (import lib)
  (type Mine lib.A)
  (type Holder (record (m Mine) (w lib.Wrap)))
  (type Own (enum a b))
  (function get (input (h Holder)) (output Mine) (body h.w.a))
  (function make (output Holder) (body (let ((w (lib.mk))) (record Holder (m w.a) (w w))))))
`
	steps := []struct {
		name, from, to          string
		baseKept, libKept, kept []string
	}{
		{"a body", "(v 1)", "(v 2)", []string{"B", "Other"}, []string{"A", "Wrap"}, []string{"Mine", "Holder", "Own"}},
		{"another type", "(record (o I64))", "(record (o Bool))", []string{"B"}, []string{"A", "Wrap"}, []string{"Mine", "Holder", "Own"}},
		{"B redefined", "(record (v I64))", "(record (v I64) (w I64))", []string{"Other"}, nil, []string{"Own"}},
		{"B an alias", "(type B (record (v I64) (w I64)))", "(type B I64)", []string{"Other"}, nil, []string{"Own"}},
	}
	baseR := checkAs("base", []byte(base), nil)
	libR := checkAs("lib", []byte(lib), mapImporter{"base": baseR})
	appR := checkAs("app", []byte(app), mapImporter{"lib": libR})
	src := base
	for _, st := range steps {
		if !strings.Contains(src, st.from) {
			t.Fatalf("%s: %q not in base", st.name, st.from)
		}
		src = strings.Replace(src, st.from, st.to, 1)
		cst, err := syntax.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		ans, ok := baseR.RecheckResult(cst)
		if !ok {
			t.Fatalf("%s: Recheck declined", st.name)
		}
		baseNext, ok := ans.Importable()
		if !ok {
			t.Fatalf("%s: Importable declined", st.name)
		}
		libNext, ok := libR.RecheckImports(mapImporter{"base": baseNext})
		if !ok {
			t.Fatalf("%s: the library's RecheckImports declined", st.name)
		}
		appNext, ok := appR.RecheckImports(mapImporter{"lib": libNext})
		if !ok {
			t.Fatalf("%s: the importer's RecheckImports declined", st.name)
		}
		baseFull := checkAs("base", []byte(src), nil)
		libFull := checkAs("lib", []byte(lib), mapImporter{"base": baseFull})
		appFull := checkAs("app", []byte(app), mapImporter{"lib": libFull})
		sameAsFull(t, st.name+": base", baseFull, baseNext)
		sameAsFull(t, st.name+": lib", libFull, libNext)
		sameAsFull(t, st.name+": app", appFull, appNext)
		if libNext.Partial() || appNext.Partial() {
			t.Errorf("%s: an answer over a complete base is partial (lib %v, app %v)", st.name, libNext.Partial(), appNext.Partial())
		}
		for _, k := range []struct {
			what      string
			old, next *Result
			want      []string
		}{{"base", baseR, baseNext, st.baseKept}, {"lib", libR, libNext, st.libKept}, {"app", appR, appNext, st.kept}} {
			if got := keptTypes(k.old, k.next); !cmp.Equal(got, k.want) {
				t.Errorf("%s: %s's types kept: %v, want %v", st.name, k.what, got, k.want)
			}
		}
		baseR, libR, appR = baseNext, libNext, appNext
	}
}
