package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/lsp"
	"github.com/capsulang/caps/lsp/lsptest"
)

// TestFmtAndCheckAgreeOnColumns checks that caps fmt and caps check put
// the same syntax error at the same line:column, counted in characters:
// a tab is one column and so is an astral character (issue 21: fmt once
// counted UTF-8 bytes).
func TestFmtAndCheckAgreeOnColumns(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"tab and astral", "(module m (capsule \"1.0\")\n\t(😀 x (\n", []string{"<stdin>:2:8: error E_PARSE", "<stdin>:2:8: error E_PARSE", "<stdin>:2:8: error E_PARSE"}},
		{"accents and a bracket", "(module m (capsule \"1.0\")\n  (é é) ( ]\n", []string{"<stdin>:2:10: error E_PARSE", "<stdin>:2:10: error E_PARSE", "<stdin>:2:11: error E_PARSE"}},
		{"astral then a stray paren", "(module m (capsule \"1.0\"))\n\"😀😀\" )\n", []string{"<stdin>:2:6: error E_PARSE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parse := func(args ...string) []string {
				r := runCaps(t, tc.src, args...)
				var got []string
				for _, line := range strings.Split(r.stderr+r.stdout, "\n") {
					if strings.Contains(line, "E_PARSE") {
						if i := strings.Index(line, " E_PARSE"); i >= 0 {
							line = line[:i+len(" E_PARSE")]
						}
						got = append(got, line)
					}
				}
				sort.Strings(got)
				return got
			}
			fmtLines, checkLines := parse("fmt", "-"), parse("check", "-")
			if diff := cmp.Diff(fmtLines, checkLines); diff != "" {
				t.Errorf("caps fmt and caps check disagree on E_PARSE positions (-fmt +check):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, checkLines); diff != "" {
				t.Errorf("caps check positions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(checkLines, serverParseErrors(t, tc.src)); diff != "" {
				t.Errorf("caps check and the language server disagree on E_PARSE positions (-check +server):\n%s", diff)
			}
		})
	}
}

// serverParseErrors opens src in an in-process language server that
// counts characters in code points (utf-32, so that a character is a
// column) and returns its E_PARSE diagnostics in the form of caps check's
// text output: "<stdin>:LINE:COLUMN: error E_PARSE".
func serverParseErrors(t *testing.T, src string) []string {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan struct{})
	go func() {
		lsp.Serve(context.Background(), sr, sw, lsp.Options{})
		sw.Close()
		close(done)
	}()
	c := lsptest.New(cr, cw)
	defer func() { c.Close(); <-done }()
	var init struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	if err := c.Call("initialize", map[string]any{"capabilities": map[string]any{"general": map[string]any{"positionEncodings": []string{"utf-32"}}}}, &init); err != nil {
		t.Fatal(err)
	}
	if init.Capabilities.PositionEncoding != "utf-32" {
		t.Fatalf("server chose position encoding %q, want utf-32", init.Capabilities.PositionEncoding)
	}
	c.Notify("initialized", map[string]any{})
	const uri = "file:///tmp/capsulang-column-test/stdin.caps"
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": src}})
	msg, err := c.Wait("textDocument/publishDiagnostics", func(json.RawMessage) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Diagnostics []struct {
			Range struct {
				Start struct{ Line, Character int } `json:"start"`
			} `json:"range"`
			Code string `json:"code"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range p.Diagnostics {
		if d.Code == "E_PARSE" {
			got = append(got, fmt.Sprintf("<stdin>:%d:%d: error E_PARSE", d.Range.Start.Line+1, d.Range.Start.Character+1))
		}
	}
	sort.Strings(got)
	return got
}
