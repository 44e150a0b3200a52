package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/lsp/lsptest"
)

func TestWorkspaceSymbolsAndWatching(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.caps"), []byte("(module a (capsule \"1\") (function total (output I64) (body 1)))\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.caps"), []byte("(module b (capsule \"1\")\n  (machine Turnstile (event Push) (initial locked)\n    (state locked (on Push (target locked)))))\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "node_modules", "c.caps"), []byte("(module c (capsule \"1\") (function totally (output I64) (body 1)))\n"), 0o644)
	c, err := lsptest.Start(capsBin, "lsp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	rootURI := "file://" + dir
	if err := c.Call("initialize", map[string]any{"rootUri": rootURI, "capabilities": map[string]any{
		"window":    map[string]any{"workDoneProgress": true},
		"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
	}}, nil); err != nil {
		t.Fatal(err)
	}
	c.Notify("initialized", map[string]any{})
	// the server registers a watcher for .caps files
	reg, err := c.Wait("client/registerCapability", nil)
	if err != nil || !json.Valid(reg.Params) {
		t.Fatalf("registration: %v", err)
	}
	// and reports indexing progress, ending with a count
	end, err := c.Wait("$/progress", func(p json.RawMessage) bool {
		var v struct{ Value struct{ Kind string } }
		json.Unmarshal(p, &v)
		return v.Value.Kind == "end"
	})
	if err != nil {
		t.Fatal(err)
	}
	var ev struct{ Value struct{ Message string } }
	json.Unmarshal(end.Params, &ev)
	if ev.Value.Message != "indexed 2 files" {
		t.Errorf("progress end: %s", ev.Value.Message)
	}
	type sym struct {
		Name          string `json:"name"`
		ContainerName string `json:"containerName"`
		Location      struct {
			URI   string `json:"uri"`
			Range rng    `json:"range"`
		} `json:"location"`
	}
	var syms []sym
	if err := c.Call("workspace/symbol", map[string]any{"query": "tot"}, &syms); err != nil {
		t.Fatal(err)
	}
	if len(syms) != 1 || syms[0].Name != "total" || syms[0].Location.URI != rootURI+"/a.caps" || syms[0].Location.Range != (rng{pos{0, 34}, pos{0, 39}}) {
		t.Fatalf("symbols: %+v", syms)
	}
	if err := c.Call("workspace/symbol", map[string]any{"query": "lockd"}, &syms); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range syms {
		names = append(names, s.ContainerName+"."+s.Name)
	}
	if diff := cmp.Diff([]string{"Turnstile.locked"}, names); diff != "" {
		t.Error(diff)
	}
	// a file changed outside the editor is re-indexed
	os.WriteFile(filepath.Join(dir, "a.caps"), []byte("(module a (capsule \"1\") (function grand_total (output I64) (body 1)))\n"), 0o644)
	c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": rootURI + "/a.caps", "type": 2}}})
	for i := 0; i < 50; i++ {
		c.Call("workspace/symbol", map[string]any{"query": "grand"}, &syms)
		if len(syms) == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(syms) != 1 || syms[0].Name != "grand_total" {
		t.Errorf("after change: %+v", syms)
	}
}
