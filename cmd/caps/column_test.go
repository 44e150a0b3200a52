package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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

// serverDiag is a diagnostic as the server publishes it.
type serverDiag struct {
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"range"`
	Code               string `json:"code"`
	RelatedInformation []struct {
		Location struct {
			URI   string `json:"uri"`
			Range struct {
				Start struct{ Line, Character int } `json:"start"`
			} `json:"range"`
		} `json:"location"`
	} `json:"relatedInformation"`
}

// serverDiagnostics opens text as uri in an in-process language server
// that counts characters in code points (utf-32, so that a character is a
// column) and returns the diagnostics it publishes.
func serverDiagnostics(t *testing.T, uri, text string) []serverDiag {
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
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
	msg, err := c.Wait("textDocument/publishDiagnostics", func(json.RawMessage) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Diagnostics []serverDiag `json:"diagnostics"`
	}
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		t.Fatal(err)
	}
	return p.Diagnostics
}

// serverParseErrors returns the server's E_PARSE diagnostics of src in the
// form of caps check's text output: "<stdin>:LINE:COLUMN: error E_PARSE".
func serverParseErrors(t *testing.T, src string) []string {
	t.Helper()
	var got []string
	for _, d := range serverDiagnostics(t, "file:///tmp/capsulang-column-test/stdin.caps", src) {
		if d.Code == "E_PARSE" {
			got = append(got, fmt.Sprintf("<stdin>:%d:%d: error E_PARSE", d.Range.Start.Line+1, d.Range.Start.Character+1))
		}
	}
	sort.Strings(got)
	return got
}

// TestRelatedColumnsInOtherFile checks that a related location in another
// file is placed with that file's own lines by caps check and by the
// server alike: the import closing a cycle comes after two astral
// characters on its line in b.caps, and a.caps has none.
func TestRelatedColumnsInOtherFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.caps"), filepath.Join(dir, "b.caps")
	aSrc := "(module a (capsule \"1\") (import b)\n  (function fa (input (x I64)) (output I64) (body (+ x 1))))\n"
	bSrc := "; the other half\n(module b (capsule \"1\") (function z (output Text) (body \"\t😀😀\")) (import a))\n"
	if err := os.WriteFile(a, []byte(aSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(bSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "2:73" // the "a" of (import a); in UTF-16 units it is 2:75, in bytes 2:79
	r := runCaps(t, "", "check", a)
	m := regexp.MustCompile(`b\.caps:(\d+:\d+): note: b\.caps imports a\.caps here`).FindStringSubmatch(r.stderr)
	if m == nil || m[1] != want {
		t.Errorf("caps check: want the note at b.caps:%s:\n%s", want, r.stderr)
	}
	var got []string
	for _, d := range serverDiagnostics(t, "file://"+filepath.ToSlash(a), aSrc) {
		for _, ri := range d.RelatedInformation {
			if strings.HasSuffix(ri.Location.URI, "/b.caps") {
				got = append(got, fmt.Sprintf("%d:%d", ri.Location.Range.Start.Line+1, ri.Location.Range.Start.Character+1))
			}
		}
	}
	if diff := cmp.Diff([]string{want}, got); diff != "" {
		t.Errorf("server: related locations in b.caps (-want +got):\n%s", diff)
	}
}
