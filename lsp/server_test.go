package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/lsp/lsptest"
)

var capsBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "caps-lsp-test")
	if err != nil {
		panic(err)
	}
	capsBin = filepath.Join(dir, "caps")
	out, err := exec.Command("go", "build", "-o", capsBin, "../cmd/caps").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building caps: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type pos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}
type rng struct {
	Start pos `json:"start"`
	End   pos `json:"end"`
}
type diag struct {
	Range           rng    `json:"range"`
	Severity        int    `json:"severity"`
	Code            string `json:"code"`
	CodeDescription struct {
		Href string `json:"href"`
	} `json:"codeDescription"`
	Message string `json:"message"`
}
type published struct {
	URI         string `json:"uri"`
	Version     int    `json:"version"`
	Diagnostics []diag `json:"diagnostics"`
}

func start(t *testing.T, caps map[string]any) *lsptest.Client {
	t.Helper()
	c, err := lsptest.Start(capsBin, "lsp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Kill)
	if caps == nil {
		caps = map[string]any{}
	}
	var res struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	if err := c.Call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps}, &res); err != nil {
		t.Fatal(err)
	}
	c.Notify("initialized", map[string]any{})
	return c
}

const uri = "file:///tmp/capsulang-test/claims.caps"

const claimSrc = `(module demo.claims
  (capsule "1")
  (machine Claim
    (context (score U32))
    (event Submit (score U32))
    (event Close)
    (initial open)
    (state open
      (on Submit (target scored) (assign (score event.score))))
    (state scored
      (on Close (target closed)))
    (state closed (type final))))
`

func open(t *testing.T, c *lsptest.Client, text string, version int) published {
	t.Helper()
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": version, "text": text}})
	return waitDiags(t, c, version)
}

func waitDiags(t *testing.T, c *lsptest.Client, version int) published {
	t.Helper()
	m, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		var pd published
		json.Unmarshal(p, &pd)
		return pd.Version == version
	})
	if err != nil {
		t.Fatal(err)
	}
	var pd published
	json.Unmarshal(m.Params, &pd)
	return pd
}

func change(c *lsptest.Client, version int, r rng, text string) {
	c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"range": r, "text": text}},
	})
}

func TestInitializeAdvertisesImplementedFeatures(t *testing.T) {
	c, err := lsptest.Start(capsBin, "lsp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	// Requests before initialize are refused.
	err = c.Call("textDocument/hover", map[string]any{}, nil)
	if e, ok := err.(*lsptest.RPCError); !ok || e.Code != -32002 {
		t.Fatalf("before initialize: %v", err)
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   struct{ Name string }      `json:"serverInfo"`
	}
	if err := c.Call("initialize", map[string]any{"capabilities": map[string]any{"general": map[string]any{"positionEncodings": []string{"utf-32", "utf-16"}}}}, &res); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range res.Capabilities {
		keys = append(keys, k)
	}
	want := []string{"declarationProvider", "definitionProvider", "documentHighlightProvider", "documentSymbolProvider", "foldingRangeProvider", "hoverProvider", "positionEncoding", "referencesProvider", "selectionRangeProvider", "textDocumentSync"}
	for _, extra := range advertisedExtras {
		want = append(want, extra)
	}
	if diff := cmp.Diff(sortStrings(want), sortStrings(keys)); diff != "" {
		t.Errorf("capabilities (-want +got):\n%s", diff)
	}
	if string(res.Capabilities["positionEncoding"]) != `"utf-32"` {
		t.Errorf("positionEncoding %s", res.Capabilities["positionEncoding"])
	}
	if code, err := c.Close(); err != nil || code != 0 {
		t.Errorf("exit code %d, %v", code, err)
	}
}

// advertisedExtras lists capabilities added by feature files as they land.
var advertisedExtras = []string{"codeActionProvider", "codeLensProvider", "completionProvider", "executeCommandProvider", "inlayHintProvider", "documentFormattingProvider", "documentLinkProvider", "documentRangeFormattingProvider", "renameProvider", "semanticTokensProvider", "signatureHelpProvider", "workspaceSymbolProvider"}

func sortStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestDiagnosticsLifecycle(t *testing.T) {
	c := start(t, nil)
	bad := strings.Replace(claimSrc, "(target scored)", "(target scord)", 1)
	pd := open(t, c, bad, 1)
	want := []diag{{
		Range: rng{pos{8, 25}, pos{8, 30}}, Severity: 1, Code: "E_UNKNOWN_STATE",
		Message: "unknown state `scord` in machine Claim; did you mean `scored`?",
	}}
	want[0].CodeDescription.Href = "https://capsulang.dev/docs/diagnostics#e_unknown_state"
	if diff := cmp.Diff(want, pd.Diagnostics); diff != "" {
		t.Fatalf("diagnostics (-want +got):\n%s", diff)
	}
	// Fix it with an incremental edit: insert the missing "e".
	change(c, 2, rng{pos{8, 29}, pos{8, 29}}, "e")
	pd = waitDiags(t, c, 2)
	if len(pd.Diagnostics) != 0 {
		t.Fatalf("after fix: %+v", pd.Diagnostics)
	}
	c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	m, err := c.Wait("textDocument/publishDiagnostics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m.Params), `"diagnostics":[]`) {
		t.Errorf("close: %s", m.Params)
	}
}

func TestDocumentSymbols(t *testing.T) {
	c := start(t, nil)
	open(t, c, claimSrc, 1)
	td := map[string]any{"uri": uri}
	// Definition, references and hover: testdata/markers/navigation.caps.
	// document symbols: module > machine > children
	var syms []struct {
		Name     string `json:"name"`
		Children []struct {
			Name     string `json:"name"`
			Children []struct {
				Name     string `json:"name"`
				Children []struct {
					Name string `json:"name"`
				} `json:"children"`
			} `json:"children"`
		} `json:"children"`
	}
	if err := c.Call("textDocument/documentSymbol", map[string]any{"textDocument": td}, &syms); err != nil {
		t.Fatal(err)
	}
	var outline []string
	for _, m := range syms {
		outline = append(outline, m.Name)
		for _, d := range m.Children {
			outline = append(outline, "  "+d.Name)
			for _, x := range d.Children {
				outline = append(outline, "    "+x.Name)
				for _, y := range x.Children {
					outline = append(outline, "      "+y.Name)
				}
			}
		}
	}
	wantOutline := []string{"demo.claims", "  Claim", "    score", "    Submit", "    Close", "    open", "      on Submit", "    scored", "      on Close", "    closed"}
	if diff := cmp.Diff(wantOutline, outline); diff != "" {
		t.Errorf("outline (-want +got):\n%s", diff)
	}
}

func TestBadInputNeverKillsTheServer(t *testing.T) {
	c := start(t, nil)
	open(t, c, claimSrc, 1)
	// malformed JSON body
	c.WriteRaw([]byte("Content-Length: 9\r\n\r\n{\"id\": 1,"))
	m, err := c.Wait("", func(json.RawMessage) bool { return true })
	if err != nil || m.Error == nil || m.Error.Code != -32700 {
		t.Fatalf("malformed: %+v %v", m, err)
	}
	// unknown method
	if err := c.Call("capsulang/nonsense", map[string]any{}, nil); err == nil || err.(*lsptest.RPCError).Code != -32601 {
		t.Errorf("unknown method: %v", err)
	}
	// unopened document
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///nope.caps"}, "position": pos{0, 0}}, nil); err == nil || !strings.Contains(err.Error(), "document not open") {
		t.Errorf("unopened: %v", err)
	}
	// out-of-range position
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos{999, 0}}, nil); err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("out of range: %v", err)
	}
	// params of the wrong shape
	if err := c.Call("textDocument/hover", []int{1, 2}, nil); err == nil || err.(*lsptest.RPCError).Code != -32602 {
		t.Errorf("bad params: %v", err)
	}
	// still serving
	var h struct{ Contents struct{ Value string } }
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos{9, 13}}, &h); err != nil || h.Contents.Value == "" {
		t.Fatalf("after bad input: %v %+v", err, h)
	}
}

func TestUTF16Positions(t *testing.T) {
	c := start(t, nil)
	// An emoji (two UTF-16 units, four UTF-8 bytes) before the error.
	src := strings.Replace(claimSrc, "(capsule \"1\")", "(capsule \"1\") ; 😀 é", 1)
	src = strings.Replace(src, "(initial open)", "(initial opne) ; 😀", 1)
	pd := open(t, c, src, 1)
	if len(pd.Diagnostics) != 1 || pd.Diagnostics[0].Range != (rng{pos{6, 13}, pos{6, 17}}) {
		t.Fatalf("%+v", pd.Diagnostics)
	}
	// Edit after the emoji on line 1: replace é (1 unit at character 21 after "; 😀 ")
	change(c, 2, rng{pos{1, 19}, pos{1, 20}}, "e")
	pd = waitDiags(t, c, 2)
	if len(pd.Diagnostics) != 1 {
		t.Fatalf("%+v", pd.Diagnostics)
	}
}

// startIn starts caps lsp with dir as its workspace folder, initialized,
// and returns the client and dir's file URI; the server is killed when
// the test ends.
func startIn(t *testing.T, dir string) (*lsptest.Client, string) {
	t.Helper()
	c, err := lsptest.Start(capsBin, "lsp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Kill)
	root := "file://" + dir
	if err := c.Call("initialize", map[string]any{"rootUri": root, "capabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	c.Notify("initialized", map[string]any{})
	return c, root
}
