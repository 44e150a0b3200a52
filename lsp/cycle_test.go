package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestImportCycleInEditor (issue 19, item 4): an open file in an import
// cycle gets E_IMPORT_CYCLE, whose related location is the import in the
// other file, with that file's range, and keeps it on its next edit.
func TestImportCycleInEditor(t *testing.T) {
	dir := t.TempDir()
	aSrc := "(module a (capsule \"1.0\") (import b)\n  (function fa (input (x I64)) (output I64) (body (+ x 1))))\n"
	bSrc := "; the other half\n(module b (capsule \"1.0\")\n  (import a))\n"
	os.WriteFile(filepath.Join(dir, "a.caps"), []byte(aSrc), 0o644)
	os.WriteFile(filepath.Join(dir, "b.caps"), []byte(bSrc), 0o644)
	c, root := startIn(t, dir)
	aURI, bURI := root+"/a.caps", root+"/b.caps"
	type location struct {
		URI   string `json:"uri"`
		Range rng    `json:"range"`
	}
	type diags struct {
		URI         string `json:"uri"`
		Version     int    `json:"version"`
		Diagnostics []struct {
			Code               string `json:"code"`
			Message            string `json:"message"`
			Range              rng    `json:"range"`
			RelatedInformation []struct {
				Location location `json:"location"`
				Message  string   `json:"message"`
			} `json:"relatedInformation"`
		} `json:"diagnostics"`
	}
	check := func(version int) {
		t.Helper()
		var d diags
		_, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
			json.Unmarshal(p, &d)
			return d.URI == aURI && d.Version == version
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Diagnostics) != 1 {
			t.Fatalf("version %d: %+v", version, d.Diagnostics)
		}
		x := d.Diagnostics[0]
		want := location{URI: bURI, Range: rng{pos{2, 10}, pos{2, 11}}}
		if x.Code != "E_IMPORT_CYCLE" || x.Message != "import cycle: a.caps -> b.caps -> a.caps" || x.Range != (rng{pos{0, 34}, pos{0, 35}}) ||
			len(x.RelatedInformation) != 1 || x.RelatedInformation[0].Location != want ||
			x.RelatedInformation[0].Message != "b.caps imports a.caps here, closing the cycle" {
			t.Fatalf("version %d: %+v", version, x)
		}
	}
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": aURI, "languageId": "capsulang", "version": 1, "text": aSrc}})
	check(1)
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": aURI, "version": 2}, "contentChanges": []any{
		map[string]any{"range": rng{pos{1, 55}, pos{1, 56}}, "text": "2"},
	}})
	check(2)
}
