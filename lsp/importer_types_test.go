package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/types"
)

// TestImportEditsKeepImporterTypes edits, through the server, a library
// that an open module imports: a body (the importer keeps its view), a
// type the importer does not read, and a record it reads (the engine
// answers the importer both times). The importer's answers must keep
// the type objects of its type declarations that read no changed type
// (so the library's answer kept those of its unchanged ones), make anew
// those that read the changed record, and publish no diagnostic (the
// texts are valid).
func TestImportEditsKeepImporterTypes(t *testing.T) {
	dir := t.TempDir()
	lib := `(module lib
  (capsule "1")
  (type Color (enum red green))
  (type Point (record (x I64) (y I64)))
  (type Unused (record (a I64)))
  (function origin (output Point) (body (record Point (x 0) (y 0)))))
`
	app := `(module app
  (capsule "1")
  (import lib)
  (type Pair (record (p lib.Point) (c lib.Color)))
  (type Hue (record (c lib.Color)))
  (type Own (enum a b))
  (function make (output Pair) (body (record Pair (p (lib.origin)) (c lib.Color.red)))))
`
	for name, text := range map[string]string{"lib.caps": lib, "app.caps": app} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, c := wsServer(t, dir)
	libURI := protocol.DocumentURI("file://" + filepath.Join(dir, "lib.caps"))
	appURI := protocol.DocumentURI("file://" + filepath.Join(dir, "app.caps"))
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": libURI, "languageId": "capsulang", "version": 1, "text": lib}})
	s.settled(t, libURI, 1)
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": appURI, "languageId": "capsulang", "version": 1, "text": app}})
	s.settled(t, appURI, 1)
	// the importer's types, by name, in its last answer, and its
	// published diagnostics' codes
	state := func() (map[string]types.Type, []string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		d := s.docs[appURI]
		r := d.deps.engineBase()
		if r == nil {
			t.Fatal("app.caps has no last answer")
		}
		out := map[string]types.Type{}
		for _, sym := range r.Symbols {
			if sym.Decl != nil && sym.Kind == "type" && sym.File == r.Path {
				out[sym.Name] = sym.Type
			}
		}
		codes := []string{}
		for _, dg := range d.lastDiags {
			codes = append(codes, fmt.Sprint(dg.Code))
		}
		return out, codes
	}
	before, codes := state()
	if len(before) != 3 || len(codes) != 0 {
		t.Fatalf("app.caps before the edits: types %v, diagnostics %v", before, codes)
	}
	steps := []struct {
		name, from, to string
		kept           []string // the importer's types that keep their objects
		engine         int64    // importer answers by the engine
	}{
		{"a body", "(x 0) (y 0)", "(x 1) (y 0)", []string{"Hue", "Own", "Pair"}, 0},
		// (the importer read none of the members whose interface
		// changed: it keeps its answer, and is not sent to the engine)
		{"a type no importer reads", "(record (a I64))", "(record (a I64) (b Bool))", []string{"Hue", "Own", "Pair"}, 0},
		{"a record the importer reads", "(record (x I64) (y I64))", "(record (x I64) (y I64) (z I64))", []string{"Hue", "Own"}, 1},
	}
	text, version := lib, 1
	for _, st := range steps {
		at := strings.Index(text, st.from)
		if at < 0 {
			t.Fatalf("%s: %q not in lib.caps", st.name, st.from)
		}
		engine := importStats.engine.Load()
		version++
		text = replaceText(c, libURI, version, text, at, at+len(st.from), st.to)
		s.settled(t, libURI, version)
		after, codes := state()
		var kept []string
		for _, name := range []string{"Hue", "Own", "Pair"} {
			if after[name] == nil {
				t.Fatalf("%s: app.caps's answer has no type %s", st.name, name)
			}
			if after[name] == before[name] {
				kept = append(kept, name)
			}
		}
		if diff := cmp.Diff(st.kept, kept); diff != "" {
			t.Errorf("%s: app.caps's types that kept their objects (-want +got):\n%s", st.name, diff)
		}
		if got := importStats.engine.Load() - engine; got != st.engine {
			t.Errorf("%s: %d engine answers for app.caps, want %d", st.name, got, st.engine)
		}
		if len(codes) != 0 {
			t.Errorf("%s: app.caps published %v", st.name, codes)
		}
		before = after
	}
}
