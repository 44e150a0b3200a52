package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/lsp/lsptest"
)

// TestWorkspaceImportCycleEdit (issue 17): base.caps, open with left,
// right, top and the others of the cross-file differential test, is
// edited to import top.caps (which imports base through left and right:
// a cycle), then back, three times; after each edit every open module's
// final diagnostics must be a fresh full check's and a fresh server's.
// An importer job published right.caps or left.caps without its
// E_IMPORT_CYCLE about one run in three under 4 parallel -race runs: the
// import graph dropped base's imports while base was checked again, and
// recorded none for base's answer given to the job's engine checks
// (analysis/load/cycle.go).
func TestWorkspaceImportCycleEdit(t *testing.T) {
	var steps [][3]string
	for i := 0; i < 6; i++ {
		steps = append(steps, [3]string{"mutate", "base.caps", "base imports top (a cycle)"})
	}
	if msg := xfSequence(t, steps...); msg != "" {
		t.Fatal(msg)
	}
}

// TestImportHoverAfterKeptAnswer (issue 17): base.caps loses its function
// origin, which top.caps calls: the importer job checks left, right and
// top again with the engine, top reading left, right and base from the
// job's answers (not from the loader's packages). The hover of each of
// top's imports must show the imported module's semantic hash, as a
// fresh server's does; it showed "import left ()" (load.Loader.importWith
// gave an import answered from an answer no hash).
func TestImportHoverAfterKeptAnswer(t *testing.T) {
	dir := t.TempDir()
	files := xfFiles(t)
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	uri := func(rel string) protocol.DocumentURI {
		return protocol.DocumentURI("file://" + filepath.Join(dir, rel))
	}
	open := func(s *Server, c *lsptest.Client, texts map[string]string) {
		for _, rel := range []string{"base.caps", "left.caps", "right.caps", "top.caps"} {
			c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri(rel), "languageId": "capsulang", "version": 1, "text": texts[rel]}})
			s.settled(t, uri(rel), 1)
		}
	}
	s, c := wsServer(t, dir)
	open(s, c, files)
	m := xfMutations[slices.IndexFunc(xfMutations, func(m xfMutation) bool { return m.name == "origin removed" })]
	a, b, ins, _ := m.toggle(files["base.caps"])
	edited := map[string]string{}
	for k, v := range files {
		edited[k] = v
	}
	edited["base.caps"] = replaceText(c, uri("base.caps"), 2, files["base.caps"], a, b, ins)
	s.settled(t, uri("base.caps"), 2)
	time.Sleep(200 * time.Millisecond) // (the importer job)
	s.settled(t, uri("base.caps"), 2)
	fs, fc := wsServer(t, dir)
	open(fs, fc, edited)
	hover := func(c *lsptest.Client, name string) string {
		text := edited["top.caps"]
		off := strings.Index(text, "(import "+name) + len("(import ")
		var h struct {
			Contents struct{ Value string } `json:"contents"`
		}
		if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri("top.caps")}, "position": utf16Pos(text, off)}, &h); err != nil {
			t.Fatal(err)
		}
		return h.Contents.Value
	}
	for _, name := range []string{"left", "right", "base", "lib.money"} {
		got, want := hover(c, name), hover(fc, name)
		if !strings.Contains(want, "(sha256:") || got != want {
			t.Errorf("hover on top's import of %s: got %q, a fresh server's %q", name, got, want)
		}
	}
}
