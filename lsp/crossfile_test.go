package lsp_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCrossFileNavigation(t *testing.T) {
	dir := t.TempDir()
	units := "(module units\n  (capsule \"1\")\n  (function double\n    (input (x I64))\n    (output I64)\n    (body (* x 2))))\n"
	mainSrc := "(module main\n  (capsule \"1\")\n  (import units)\n  (function f\n    (output I64)\n    (body (units.double 4))))\n"
	os.WriteFile(filepath.Join(dir, "units.caps"), []byte(units), 0o644)
	os.WriteFile(filepath.Join(dir, "main.caps"), []byte(mainSrc), 0o644)
	c, root := startIn(t, dir)
	mainURI := root + "/main.caps"
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": mainURI, "languageId": "capsulang", "version": 1, "text": mainSrc}})
	if _, err := c.Wait("textDocument/publishDiagnostics", nil); err != nil {
		t.Fatal(err)
	}
	// wait until the workspace is indexed
	var syms []any
	c.Call("workspace/symbol", map[string]any{"query": "double"}, &syms)

	td := map[string]any{"uri": mainURI}
	at := pos{5, 18} // `double` in (units.double 4)
	type loc struct {
		URI   string `json:"uri"`
		Range rng    `json:"range"`
	}
	var defs []loc
	if err := c.Call("textDocument/definition", map[string]any{"textDocument": td, "position": at}, &defs); err != nil {
		t.Fatal(err)
	}
	want := loc{root + "/units.caps", rng{pos{2, 12}, pos{2, 18}}}
	if len(defs) != 1 || defs[0] != want {
		t.Fatalf("definition: %+v", defs)
	}
	var refs []loc
	if err := c.Call("textDocument/references", map[string]any{"textDocument": td, "position": at, "context": map[string]any{"includeDeclaration": true}}, &refs); err != nil {
		t.Fatal(err)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].URI < refs[j].URI })
	wantRefs := []loc{{mainURI, rng{pos{5, 17}, pos{5, 23}}}, want}
	if diff := cmp.Diff(wantRefs, refs); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
	var edit struct {
		Changes map[string][]struct {
			Range   rng    `json:"range"`
			NewText string `json:"newText"`
		} `json:"changes"`
	}
	if err := c.Call("textDocument/rename", map[string]any{"textDocument": td, "position": at, "newName": "twice"}, &edit); err != nil {
		t.Fatal(err)
	}
	if len(edit.Changes) != 2 || len(edit.Changes[mainURI]) != 1 || len(edit.Changes[root+"/units.caps"]) != 1 ||
		edit.Changes[root+"/units.caps"][0].Range != want.Range || edit.Changes[mainURI][0].Range != (rng{pos{5, 17}, pos{5, 23}}) {
		t.Errorf("rename: %+v", edit)
	}
}
