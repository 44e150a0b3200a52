package lsp_test

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A frame whose Content-Length is shorter than its body is answered with
// one parse error, and the rest of its body is skipped up to the next
// header: the request right after it is answered (issue 19, item 7).
func TestShortContentLengthResynchronises(t *testing.T) {
	c := start(t, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"capsulang/nonsense"}`
	c.WriteRaw([]byte(fmt.Sprintf("Content-Length: 10\r\n\r\n%s", body)))
	m, err := c.Wait("", func(json.RawMessage) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if m.Error == nil || m.Error.Code != -32700 || m.Error.Message != "parse error: unmarshaling jsonrpc message: unexpected EOF" || string(m.ID) != "null" {
		t.Fatalf("short frame: got %+v %+v, want one -32700 with id null", m, m.Error)
	}
	var h struct{ Contents struct{ Value string } }
	src := "(module m (capsule \"1\") (function f (output I64) (body 1)))"
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": src}})
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos{0, 35}}, &h); err != nil {
		t.Fatalf("the request after a short frame: %v", err)
	}
	if h.Contents.Value == "" {
		t.Fatalf("the request after a short frame: empty hover")
	}
	c.Drain()
	// The same with the leftover body ending in a line break of its own.
	c.WriteRaw([]byte(fmt.Sprintf("Content-Length: 10\r\n\r\n%s\r\n", body)))
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos{0, 35}}, &h); err != nil {
		t.Fatalf("the request after a short frame ending in CRLF: %v", err)
	}
}
