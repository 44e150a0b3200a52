package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/lsp/lsptest"
)

// TestImporterHoverAfterImportEdits edits, through the server, a library
// an open module imports: doc comments only (hover shows docs), a type
// the importer reads through an alias of its own, and members the
// importer's bodies and types read removed or renamed. After each edit,
// the importer's published diagnostics and its hovers (at every name it
// reads of the library and at its own types' names) must be those of a
// server that opens the same texts afresh.
func TestImporterHoverAfterImportEdits(t *testing.T) {
	lib := `(module lib
  (capsule "1")
  ;; A point.
  (type Point (record (x I64) (y I64)))
  ;; A color.
  (type Color (enum red green))
  ;; The origin.
  (function origin (output Point) (body (record Point (x 0) (y 0))))
  (function old (output I64) (body 1)))
`
	app := `(module app
  (capsule "1")
  (import lib)
  ;; A pair.
  (type Pair (record (p lib.Point) (c lib.Color)))
  (type Local lib.Point)
  (type Box (record (v Local)))
  (function make (output Pair) (body (record Pair (p (lib.origin)) (c lib.Color.red))))
  (function get (input (b Box)) (output Local) (body b.v))
  (function useOld (output I64) (body (lib.old))))
`
	steps := []struct{ name, from, to string }{
		{"a type's doc", ";; A point.", ";; A point, in the plane."},
		{"a function's doc", ";; The origin.", ";; Where x and y are 0."},
		{"a doc removed", "  ;; A color.\n", ""},
		{"Point redefined", "(record (x I64) (y I64))", "(record (x I64) (y I64) (z I64))"},
		{"a function renamed", "(function old", "(function older"},
		{"an enum member renamed", "(enum red green)", "(enum crimson green)"},
		{"Point removed", "  (type Point (record (x I64) (y I64) (z I64)))\n", ""},
	}
	s, c, dir := importerServer(t, lib, app)
	libURI := protocol.DocumentURI("file://" + filepath.Join(dir, "lib.caps"))
	appURI := protocol.DocumentURI("file://" + filepath.Join(dir, "app.caps"))
	text, version := lib, 1
	for _, st := range steps {
		at := strings.Index(text, st.from)
		if at < 0 {
			t.Fatalf("%s: %q not in lib.caps", st.name, st.from)
		}
		version++
		text = replaceText(c, libURI, version, text, at, at+len(st.from), st.to)
		s.settled(t, libURI, version)
		got := importerState(t, s, c, dir, appURI, app)
		fs, fc, fdir := importerServer(t, text, app)
		want := importerState(t, fs, fc, fdir, protocol.DocumentURI("file://"+filepath.Join(fdir, "app.caps")), app)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: app.caps differs from a fresh server's (-fresh +edited):\n%s", st.name, diff)
		}
	}
}

// importerServer starts a server on a folder of lib.caps and app.caps
// and opens both.
func importerServer(t *testing.T, lib, app string) (*Server, *lsptest.Client, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"lib.caps": lib, "app.caps": app} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, c := wsServer(t, dir)
	for i, name := range []string{"lib.caps", "app.caps"} {
		u := protocol.DocumentURI("file://" + filepath.Join(dir, name))
		text := lib
		if i == 1 {
			text = app
		}
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": text}})
		s.settled(t, u, 1)
	}
	return s, c, dir
}

// importerState is app.caps's published diagnostics and its hovers at
// each name it reads of the library (after "lib.") and at each of its
// own type names, with the folder's path replaced by DIR.
func importerState(t *testing.T, s *Server, c *lsptest.Client, dir string, u protocol.DocumentURI, app string) []string {
	t.Helper()
	var out []string
	s.mu.Lock()
	for _, d := range s.docs[u].lastDiags {
		out = append(out, fmt.Sprintf("diagnostic %v %v %s", d.Code, d.Range, d.Message))
	}
	s.mu.Unlock()
	var at []int
	for i := 0; i+4 < len(app); i++ {
		if strings.HasPrefix(app[i:], "lib.") {
			at = append(at, i+4)
		}
	}
	for _, name := range []string{"Pair", "Local", "Box"} {
		for i := 0; ; {
			k := strings.Index(app[i:], name)
			if k < 0 {
				break
			}
			at = append(at, i+k)
			i += k + 1
		}
	}
	for _, off := range at {
		var h json.RawMessage
		if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u}, "position": utf16Pos(app, off)}, &h); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("hover at %d: %s", off, strings.ReplaceAll(string(h), dir, "DIR")))
	}
	return out
}
