package check

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// TestDeclForm checks that a form found by its path in a declaration,
// here or in an imported module, has its span in the current text of an
// engine answer whose kept trees carry an older text's offsets (a line
// inserted before them), and that DeclTree returns the tree the answer
// holds.
func TestDeclForm(t *testing.T) {
	const util = `(module util
  (capsule "1.0")
  (function c (input (x I64)) (output I64)
    (requires (> x
      5))
    (body x)))
`
	const app = `(module app
  (capsule "1.0")
  (import util)
  (function g (input (x I64)) (output I64)
    (requires (> x 0))
    (body (util.c x)))
  (function h (input (x I64)) (output I64) (body (g x))
    (example (h 1) 1)))
`
	lib := Check(ast.Build(syntax.Read(mustParse(t, []byte(util)))), Options{Path: "/virtual/util.caps"})
	d, err := syntax.NewDocument([]byte(app))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	imp := mapImporter{"util": lib}
	base := Check(ast.Build(syntax.Read(d.CST())), Options{Path: "/virtual/app.caps", Importer: imp})
	if base.HasErrors() {
		t.Fatalf("the module has errors: %v", base.Diagnostics)
	}
	at := strings.Index(app, "  (function g")
	if err := d.Edit(at, at, []byte("  ;; moved down\n\n")); err != nil {
		t.Fatal(err)
	}
	res, ok := base.RecheckResult(d.CST())
	if !ok {
		t.Fatal("the engine declined the edit")
	}
	text := string(d.Text())
	if tree := res.DeclTree("", "g"); tree == nil || tree.Span().Start == strings.Index(text, "(function g") {
		t.Fatal("the answer does not keep g's tree at the older text's offsets: the test does not exercise the shift")
	}
	type got struct {
		Text  string
		Start int
		OK    bool
	}
	tests := []struct {
		name, file, decl string
		path             []int
		want             got
	}{
		{"a contract of a moved declaration", "", "g", []int{4, 1}, got{"(> x 0)", strings.Index(text, "(> x 0)"), true}},
		{"an example's call", "", "h", []int{5, 1}, got{"(h 1)", strings.Index(text, "(h 1)"), true}},
		{"a declaration's own form", "", "h", nil, got{text[strings.Index(text, "(function h") : len(text)-2], strings.Index(text, "(function h"), true}},
		{"an imported contract over two lines", "/virtual/util.caps", "c", []int{4, 1}, got{"(> x\n      5)", strings.Index(util, "(> x"), true}},
		{"no such declaration", "", "nope", nil, got{}},
		{"a path past the form's items", "", "g", []int{4, 9}, got{}},
		{"a path into an atom", "", "g", []int{1, 0}, got{}},
		{"no such import", "/virtual/none.caps", "c", nil, got{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, sp, ok := res.DeclForm(tt.file, tt.decl, tt.path)
			var g got
			if ok {
				g = got{string(src[sp.Start:sp.End]), sp.Start, true}
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("DeclForm(%q, %q, %v) (-want +got):\n%s", tt.file, tt.decl, tt.path, diff)
			}
		})
	}
	for _, d := range res.File.Module.Decls {
		if b := d.Base(); b.Name.Name == "g" && res.DeclTree("", "g") != b.Form {
			t.Error("DeclTree(\"\", \"g\") is not the answer's tree of g")
		}
	}
	if f := res.DeclTree("/virtual/util.caps", "c"); f == nil || f != lib.File.Module.Decls[0].Base().Form {
		t.Errorf("DeclTree of the imported c is %v, not the imported module's tree", f)
	}
	if f := res.DeclTree("", "nope"); f != nil {
		t.Errorf("DeclTree of a name no declaration has: %v", f)
	}
}
