package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/lsp/lsptest"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// startInProcess runs a server on pipes and returns a client for it.
func startInProcess(t testing.TB) *lsptest.Client {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan struct{})
	go func() {
		Serve(context.Background(), sr, sw, Options{})
		sw.Close()
		close(done)
	}()
	c := lsptest.New(cr, cw)
	t.Cleanup(func() { c.Close(); <-done })
	if err := c.Call("initialize", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	c.Notify("initialized", map[string]any{})
	return c
}

// utf16Pos converts a byte offset in text to an LSP position.
func utf16Pos(text string, off int) map[string]int {
	line, lineStart := 0, 0
	for i := 0; i < off; i++ {
		switch text[i] {
		case '\n':
			line, lineStart = line+1, i+1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
			line, lineStart = line+1, i+1
		}
	}
	return map[string]int{"line": line, "character": len(utf16.Encode([]rune(text[lineStart:off])))}
}

var fragments = []string{"(", ")", " ", "\n", "\r\n", "\r", "state", "(on Go (target b))", "😀", "é", "𝄞", "\"x\"", "; note 🎉\n", "event.n", "42", "(machine M", "\t"}

// randomEdit picks a range on rune boundaries (never inside a CRLF pair,
// which an editor cannot address) and a replacement.
func randomEdit(r *rand.Rand, text string) (int, int, string) {
	bound := func() int {
		for {
			off := r.Intn(len(text) + 1)
			if off < len(text) && !utf8.RuneStart(text[off]) {
				continue
			}
			if off > 0 && off < len(text) && text[off-1] == '\r' && text[off] == '\n' {
				continue
			}
			return off
		}
	}
	a, b := bound(), bound()
	if a > b {
		a, b = b, a
	}
	if b-a > 40 {
		b = a
	}
	ins := ""
	for n := r.Intn(3); n > 0; n-- {
		ins += fragments[r.Intn(len(fragments))]
	}
	// Avoid creating a CRLF by joining \r with a following \n, or splitting
	// one: positions on either side would change meaning, which is valid
	// but makes the client model here ambiguous.
	if strings.HasSuffix(text[:a]+ins, "\r") && strings.HasPrefix(text[b:], "\n") || strings.HasSuffix(text[:a], "\r") && strings.HasPrefix(ins+text[b:], "\n") {
		ins += "x"
		if strings.HasSuffix(text[:a], "\r") {
			ins = "x" + ins
		}
	}
	return a, b, ins
}

func TestRandomizedSync(t *testing.T) {
	c := startInProcess(t)
	const uri = "file:///tmp/sync/fuzz.caps"
	text := "(module m\r\n  (capsule \"1\") ; 😀\n  (machine M (context (n U32)) (event Go) (initial a)\n    (state a (on Go (target b)))\n    (state b (type final))))\n"
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
	r := rand.New(rand.NewSource(1))
	edits := 3000
	if testing.Short() {
		edits = 500
	}
	version := 1
	for i := 0; i < edits; i++ {
		var changes []any
		for n := 1 + r.Intn(3); n > 0; n-- {
			a, b, ins := randomEdit(r, text)
			changes = append(changes, map[string]any{
				"range": map[string]any{"start": utf16Pos(text, a), "end": utf16Pos(text, b)},
				"text":  ins,
			})
			text = text[:a] + ins + text[b:]
		}
		version++
		c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": changes})
	}
	var got struct {
		Version int    `json:"version"`
		Text    string `json:"text"`
	}
	if err := c.Call("capsulang/debug.documentText", map[string]any{"textDocument": map[string]any{"uri": uri}}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Version != version || got.Text != text {
		t.Fatalf("server text differs after %d edits (version %d vs %d):\nserver %q\nclient %q", edits, got.Version, version, got.Text, text)
	}
	// The diagnostics for the last version equal a fresh check of the text.
	if diff := diagnosticsVsFresh(t, c, version, text); diff != "" {
		t.Fatalf("diagnostics differ from a fresh check (-fresh +server):\n%s", diff)
	}
}

// diagnosticsVsFresh waits for the diagnostics of version and compares
// them with a fresh check of text; it returns the difference.
func diagnosticsVsFresh(t *testing.T, c *lsptest.Client, version int, text string) string {
	t.Helper()
	m, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		var pd struct{ Version int }
		json.Unmarshal(p, &pd)
		return pd.Version == version
	})
	if err != nil {
		t.Fatal(err)
	}
	var pd struct {
		Diagnostics []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Range   struct {
				Start, End syntax.Position
			} `json:"range"`
		} `json:"diagnostics"`
	}
	json.Unmarshal(m.Params, &pd)
	f, _ := ast.Parse([]byte(text))
	fresh := (&load.Loader{}).CheckFile("/tmp/sync/fuzz.caps", f)
	type d struct {
		Code, Message string
		Range         syntax.Range
	}
	var want, have []d
	for _, x := range fresh.Result.Diagnostics {
		want = append(want, d{x.Code, x.Message, f.Source.CST.Lines.Range(x.Span, syntax.UTF16)})
	}
	for _, x := range pd.Diagnostics {
		have = append(have, d{x.Code, x.Message, syntax.Range{Start: x.Range.Start, End: x.Range.End}})
	}
	sortD := func(ds []d) {
		for i := range ds {
			for j := i + 1; j < len(ds); j++ {
				a, b := ds[i].Range.Start, ds[j].Range.Start
				if b.Line < a.Line || b.Line == a.Line && b.Character < a.Character {
					ds[i], ds[j] = ds[j], ds[i]
				}
			}
		}
	}
	sortD(want)
	sortD(have)
	return cmp.Diff(want, have)
}

// documentText asks the server for its copy of a document.
func documentText(t *testing.T, c *lsptest.Client, uri string) (version int, text string) {
	t.Helper()
	var got struct {
		Version int    `json:"version"`
		Text    string `json:"text"`
	}
	if err := c.Call("capsulang/debug.documentText", map[string]any{"textDocument": map[string]any{"uri": uri}}, &got); err != nil {
		t.Fatal(err)
	}
	return got.Version, got.Text
}

// showMessage waits for the next window/showMessage and returns its type
// and text.
func showMessage(t *testing.T, c *lsptest.Client) (int, string) {
	t.Helper()
	m, err := c.Wait("window/showMessage", nil)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	}
	json.Unmarshal(m.Params, &p)
	return p.Type, p.Message
}

// A content change without "text" is invalid params: the notification is
// dropped with an error message and the server's text stays as it was,
// even when other changes of the same notification are valid (issue 19,
// item 8).
func TestChangeWithoutTextKeepsTheText(t *testing.T) {
	c := startInProcess(t)
	const uri = "file:///tmp/sync/notext.caps"
	text := "(module m (capsule \"1\") (function f (output I64) (body 1)))"
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
	valid := map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "text": ";"}
	for _, changes := range [][]any{
		{map[string]any{}},
		{map[string]any{"text": nil}},
		{valid, map[string]any{"range": valid["range"]}},
	} {
		c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": changes})
		typ, msg := showMessage(t, c)
		want := `Capsulang: textDocument/didChange failed: invalid params: content change ` + fmt.Sprint(len(changes)) + ` of version 2 has no "text"; the document was left as it was (version 1): close and reopen the file`
		if typ != 1 || msg != want {
			t.Errorf("changes %v: message %d %q, want 1 %q", changes, typ, msg, want)
		}
		if v, got := documentText(t, c, uri); v != 1 || got != text {
			t.Errorf("changes %v: the server has version %d %q, want version 1 %q", changes, v, got, text)
		}
	}
	// A valid change still applies afterwards.
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3}, "contentChanges": []any{valid}})
	if v, got := documentText(t, c, uri); v != 3 || got != ";"+text {
		t.Errorf("after a valid change: version %d %q", v, got)
	}
}
