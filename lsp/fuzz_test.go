package lsp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/capsulang/caps/lsp/lsptest"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// FuzzServerMessages feeds arbitrary bytes to a server after a valid
// initialize and document, then checks that it still answers a request:
// malformed framing, JSON and params must never crash or wedge it.
func FuzzServerMessages(f *testing.F) {
	seeds := []string{
		frame(`{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///f.caps"},"position":{"line":0,"character":3}}}`),
		frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///f.caps","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"text":"😀"}]}}`),
		frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///f.caps","version":3},"contentChanges":[{"range":{"start":{"line":99,"character":1},"end":{"line":0,"character":2}},"text":"x"}]}}`),
		frame(`{"jsonrpc":"2.0","id":"x","method":"textDocument/completion","params":null}`),
		frame(`{"jsonrpc":"2.0","id":[1],"method":"shutdown"}`),
		frame(`{`), "Content-Length: 99999999999\r\n\r\n", "garbage\r\n\r\n", frame(`[]`),
		frame(`{"jsonrpc":"2.0","id":3,"method":"textDocument/rename","params":{"textDocument":{"uri":"file:///f.caps"},"position":{"line":0,"character":9},"newName":"()"}}`),
		frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`),
		// issue 19, item 2: over the size limit (1 KiB here) and back
		frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///f.caps","version":5},"contentChanges":[{"text":"(module m (capsule \"1\") (function f (output I64) (body 1)))\n;`+strings.Repeat("😀", 250)+`"}]}}`) +
			frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///f.caps","version":6},"contentChanges":[{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":500}},"text":""}]}}`) +
			frame(`{"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///f.caps"},"position":{"line":0,"character":30}}}`),
		// issue 19, item 9: a dry run's scenario outside the workspace
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///g.caps","languageId":"capsulang","version":1,"text":"(module g (capsule \"1\") (machine M (event Go) (initial a) (state a (on Go (target b))) (state b (type final))))"}}}`) +
			frame(`{"jsonrpc":"2.0","id":7,"method":"workspace/executeCommand","params":{"command":"capsulang.dryRun","arguments":[{"uri":"file:///g.caps","machine":"M","scenario":"/proc/self/environ"}]}}`),
		// issue 19, item 8: a change without text
		frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///f.caps","version":4},"contentChanges":[{}]}}`),
		// issue 19, item 7: a Content-Length shorter than the body
		"Content-Length: 10\r\n\r\n" + `{"jsonrpc":"2.0","id":8,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///f.caps"}}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, []byte(`"exit"`)) || bytes.Contains(data, []byte(`"shutdown"`)) {
			return // lifecycle messages end the session by design: nothing to check
		}
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		done := make(chan struct{})
		go func() {
			// A small size limit lets the inputs take documents over it.
			Serve(context.Background(), sr, sw, Options{MaxDocumentSize: 1 << 10})
			sw.Close()
			close(done)
		}()
		c := lsptest.New(cr, cw)
		c.Timeout = 5 * time.Second
		if err := c.Call("initialize", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
			t.Fatal(err)
		}
		c.Notify("initialized", map[string]any{})
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file:///f.caps", "languageId": "capsulang", "version": 1, "text": "(module m (capsule \"1\") (function f (output I64) (body 1)))"}})
		c.WriteRaw(data)
		// A complete, valid frame after the junk must be answered: the junk
		// may have left a partial frame open, so pad with a blank header end
		// and a parse-error-producing frame first.
		c.WriteRaw([]byte("\r\n\r\n"))
		c.Timeout = 300 * time.Millisecond
		if _, err := c.CallRaw("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///f.caps"}}); err != nil {
			// A frame with a huge Content-Length legitimately swallows what
			// follows; only a dead server is a failure.
			select {
			case <-done:
				t.Fatalf("server died on %q", data)
			default:
			}
		}
		cw.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("server did not stop after its input closed (input %q)", data)
		}
	})
}
