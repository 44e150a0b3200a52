package check

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
)

// TestTypesKeptAcrossImportVersions edits a library the way the language
// server answers it (the engine's answer to the edit, made importable)
// and checks its importer again over each version (RecheckImports): the
// type declarations whose resolution cannot have changed keep their type
// objects, in the library and in the importer, so that what was resolved
// against them stays valid; those that read a changed type get new ones.
// Every answer must be a full check's.
func TestTypesKeptAcrossImportVersions(t *testing.T) {
	lib := `(module lib
  (capsule "1")
  (type Id U32)
  (type Color (enum red green))
  (type Point (record (x I64) (y I64)))
  (type Unused (record (a I64)))
  (type Ids (List Id))
  (function origin (output Point) (body (record Point (x 0) (y 0))))
  (function shade (input (c Color)) (output I64) (body 1)))
`
	app := `(module app
  (capsule "1")
  (import lib)
  (type Pair (record (p lib.Point) (c lib.Color)))
  (type Tagged (record (id lib.Id) (pair Pair)))
  (type Own (enum a b))
  (type Tree (record (kids (List Tree))))
  (function make (output Pair) (body (record Pair (p (lib.origin)) (c lib.Color.red))))
  (function moved (input (p Pair)) (output lib.Point) (body p.p))
  (function own (input (o Own)) (output I64) (body 1)))
`
	steps := []struct {
		name, from, to string
		// the library's and the importer's types that keep their objects
		libKept, appKept []string
		// bodies of the importer checked again
		rechecked int
	}{
		{"a body", "(x 0) (y 0)", "(x 1) (y 0)",
			[]string{"Id", "Color", "Point", "Unused", "Ids"}, []string{"Pair", "Tagged", "Own", "Tree"}, 0},
		{"a type no importer reads", "(record (a I64))", "(record (a I64) (b Bool))",
			[]string{"Id", "Color", "Point", "Ids"}, []string{"Pair", "Tagged", "Own", "Tree"}, 0},
		{"an alias the importer reads", "(type Id U32)", "(type Id U64)",
			[]string{"Color", "Point", "Unused"}, []string{"Pair", "Own", "Tree"}, 0},
		{"a record the importer reads", "(record (x I64) (y I64))", "(record (x I64) (y I64) (z I64))",
			[]string{"Id", "Color", "Unused", "Ids"}, []string{"Own", "Tree"}, 2},
	}
	libBase := checkAs("lib", []byte(lib), nil)
	appBase := checkAs("app", []byte(app), mapImporter{"lib": libBase})
	if len(libBase.Diagnostics)+len(appBase.Diagnostics) != 0 {
		t.Fatalf("the sources have diagnostics: %v %v", libBase.Diagnostics, appBase.Diagnostics)
	}
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
		// every answer a full check's
		libFull := checkAs("lib", []byte(src), nil)
		appFull := checkAs("app", []byte(app), mapImporter{"lib": libFull})
		if diff := cmp.Diff(libFull.Diagnostics, libNext.Diagnostics); diff != "" {
			t.Fatalf("%s: the library's answer differs from a full check (-full +answer):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(appFull.Diagnostics, appNext.Diagnostics); diff != "" {
			t.Fatalf("%s: the importer's answer differs from a full check (-full +answer):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(typeStrings(appFull), typeStrings(appNext)); diff != "" {
			t.Fatalf("%s: the importer's types differ from a full check's (-full +answer):\n%s", st.name, diff)
		}
		if got, want := keptTypes(libBase, libNext), st.libKept; !cmp.Equal(got, want) {
			t.Errorf("%s: the library's types kept: %v, want %v", st.name, got, want)
		}
		if got, want := keptTypes(appBase, appNext), st.appKept; !cmp.Equal(got, want) {
			t.Errorf("%s: the importer's types kept: %v, want %v", st.name, got, want)
		}
		if run.keptTypes != len(st.appKept) {
			t.Errorf("%s: the importer's run kept %d types, want %d", st.name, run.keptTypes, len(st.appKept))
		}
		if run.rechecked != st.rechecked {
			t.Errorf("%s: %d of the importer's bodies checked again, want %d", st.name, run.rechecked, st.rechecked)
		}
		// what the importer resolved against its types stays one type:
		// moved's output is Pair's field p's type
		if p, out := typeOf(appNext, "Pair").(*types.Record), importedType(appNext, "lib", "Point"); p == nil || p.Field("p") != out {
			t.Errorf("%s: Pair's field p is not lib.Point of the new import", st.name)
		}
		localEdit(t, st.name, appNext, app, mapImporter{"lib": libFull})
		libBase, appBase = libNext, appNext
	}
	// the library checked in full (as the loader checks a file it has no
	// answer for): every type made anew, so the importer keeps only the
	// types that read none of the library's
	libFull := checkAs("lib", []byte(src), nil)
	appNext, run, ok := appBase.recheckImports(mapImporter{"lib": libFull})
	if !ok {
		t.Fatal("full library: RecheckImports declined")
	}
	if got, want := keptTypes(libBase, libFull), []string{"Id"}; !cmp.Equal(got, want) {
		t.Errorf("full library: the library's types kept: %v, want %v (a builtin's alias)", got, want)
	}
	if got, want := keptTypes(appBase, appNext), []string{"Own", "Tree"}; !cmp.Equal(got, want) || run.keptTypes != len(want) {
		t.Errorf("full library: the importer's types kept: %v (the run: %d), want %v", got, run.keptTypes, want)
	}
	localEdit(t, "full library", appNext, app, mapImporter{"lib": libFull})
}

// localEdit edits the importer's body that builds a Pair from what the
// library returns, over ans (the importer's answer after the library
// changed), and compares the Recheck with a full check: a type the
// answer kept against another version of the library than imp's would
// not accept the library's new value.
func localEdit(t *testing.T, what string, ans *Result, app string, imp Importer) {
	t.Helper()
	edited := strings.Replace(app, "(c lib.Color.red)", "(c lib.Color.green)", 1)
	cst, err := syntax.Parse([]byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := ans.RecheckResult(cst)
	if !ok {
		t.Fatalf("%s: the importer's Recheck declined", what)
	}
	want := checkAs("app", []byte(edited), imp)
	if diff := cmp.Diff(want.Diagnostics, got.Diagnostics); diff != "" {
		t.Fatalf("%s: an edit of the importer over its answer differs from a full check (-full +recheck):\n%s", what, diff)
	}
}

// typeOf is the type of the declaration name in r, nil when none.
func typeOf(r *Result, name string) types.Type {
	for _, s := range r.Symbols {
		if s.Name == name && s.Decl != nil && s.File == r.Path {
			return s.Type
		}
	}
	return nil
}

// importedType is the type of member in r's import alias.
func importedType(r *Result, alias, member string) types.Type {
	for _, im := range r.Imports {
		if im.Name == alias {
			return typeOf(im.Result, member)
		}
	}
	return nil
}

// keptTypes lists the type declarations of b whose type object a, a
// later version, has too, in declaration order.
func keptTypes(b, a *Result) []string {
	var out []string
	for _, s := range b.Symbols {
		if s.Decl != nil && s.Kind == "type" && s.File == b.Path && s.Type != nil && typeOf(a, s.Name) == s.Type {
			out = append(out, s.Name)
		}
	}
	return out
}

// typeStrings lists r's declarations' types, as text.
func typeStrings(r *Result) []string {
	var out []string
	for _, s := range r.Symbols {
		if s.Decl != nil && s.File == r.Path && s.Type != nil {
			out = append(out, s.Name+" "+s.Detail)
		}
	}
	return out
}
