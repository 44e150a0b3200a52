package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/lsp"
	"github.com/capsulang/caps/lsp/lsptest"
	"github.com/capsulang/caps/syntax"
)

// pipelineDiag is one diagnostic as both `caps check --json` and the
// language server's publishDiagnostics give it, reduced to what they must
// agree on.
type pipelineDiag struct {
	Code     string
	Severity string
	Message  string
	Range    syntax.Range
	Related  []pipelineRelated
}

type pipelineRelated struct {
	Path    string
	Range   syntax.Range
	Message string
}

// TestCheckAndServerAgree runs every example, every checker fixture and a
// module whose examples fail through `caps check --json` and through an
// in-process language server, and requires the same diagnostics from both:
// codes, severities, messages, ranges (UTF-16) and related locations, in
// the same order, the examples' results included. Both go through the one
// diagnostics pipeline (analysis/diagnose); this is what keeps them from
// drifting apart.
func TestCheckAndServerAgree(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// The checker fixtures import from testdata/check/lib; both the CLI
	// and the server read CAPS_PATH (load.EnvRoots).
	t.Setenv("CAPS_PATH", filepath.Join(root, "testdata", "check", "lib"))
	var files []string
	for _, pat := range []string{"examples/*.caps", "examples/lib/*.caps", "testdata/check/*.caps", "testdata/check/lib/*/*.caps", "testdata/pipeline/*.caps"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		files = append(files, m...)
	}
	if len(files) < 40 {
		t.Fatalf("only %d files to compare", len(files))
	}
	c := startServer(t)
	sawExampleFailure := false
	for _, file := range files {
		name, _ := filepath.Rel(root, file)
		cli, examplesRun := cliDiagnostics(t, file)
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		u := "file://" + filepath.ToSlash(file)
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": string(text)}})
		// The server publishes the checker's diagnostics first and, when
		// the examples run, the same version again with their results.
		publishes := 1
		if examplesRun {
			publishes = 2
		}
		var server []pipelineDiag
		for i := 0; i < publishes; i++ {
			server = publishedDiagnostics(t, c, u)
		}
		c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
		if diff := cmp.Diff(cli, server); diff != "" {
			t.Errorf("%s: caps check and the server disagree (-check +server):\n%s", name, diff)
		}
		for _, d := range cli {
			sawExampleFailure = sawExampleFailure || d.Code == "E_EXAMPLE_FAILED"
		}
	}
	t.Logf("compared %d files", len(files))
	if !sawExampleFailure {
		t.Error("no file has a failing example: the comparison does not cover the examples' diagnostics")
	}
}

// startServer starts an in-process language server (UTF-16 positions, no
// debounce) and returns its initialized client.
func startServer(t *testing.T) *lsptest.Client {
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
	t.Cleanup(func() { c.Close(); <-done })
	if err := c.Call("initialize", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	c.Notify("initialized", map[string]any{})
	return c
}

// cliDiagnostics runs caps check --json FILE and returns its diagnostics,
// and whether FILE's examples ran, which caps test --json tells
// independently (it runs the examples of files without checker errors).
func cliDiagnostics(t *testing.T, file string) ([]pipelineDiag, bool) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"check", "--json", file}, strings.NewReader(""), &out, &errb); code > 1 {
		t.Fatalf("caps check %s: exit %d: %s", file, code, errb.String())
	}
	var res struct {
		Files []struct {
			Diagnostics []struct {
				Code     string       `json:"code"`
				Severity string       `json:"severity"`
				Message  string       `json:"message"`
				Range    syntax.Range `json:"range"`
				Related  []struct {
					Path    string        `json:"path"`
					Range   *syntax.Range `json:"range"`
					Message string        `json:"message"`
				} `json:"related"`
			} `json:"diagnostics"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Files) != 1 {
		t.Fatalf("caps check --json %s: %v\n%s", file, err, out.String())
	}
	var ds []pipelineDiag
	for _, d := range res.Files[0].Diagnostics {
		pd := pipelineDiag{Code: d.Code, Severity: d.Severity, Message: d.Message, Range: d.Range}
		for _, r := range d.Related {
			pr := pipelineRelated{Path: r.Path, Message: r.Message}
			if r.Range != nil {
				pr.Range = *r.Range
			}
			pd.Related = append(pd.Related, pr)
		}
		ds = append(ds, pd)
	}
	out.Reset()
	if code := run([]string{"test", "--json", file}, strings.NewReader(""), &out, &errb); code > 1 {
		t.Fatalf("caps test %s: exit %d: %s", file, code, errb.String())
	}
	var tr struct {
		Files []struct {
			Examples []json.RawMessage `json:"examples"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &tr); err != nil || len(tr.Files) != 1 {
		t.Fatalf("caps test --json %s: %v\n%s", file, err, out.String())
	}
	return ds, len(tr.Files[0].Examples) > 0
}

// publishedDiagnostics waits for the next publishDiagnostics of version 1 of
// the document u and returns its diagnostics.
func publishedDiagnostics(t *testing.T, c *lsptest.Client, u string) []pipelineDiag {
	t.Helper()
	msg, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		var pd struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
		}
		json.Unmarshal(p, &pd)
		return pd.URI == u && pd.Version == 1
	})
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	var pd struct {
		Diagnostics []struct {
			Code     string       `json:"code"`
			Severity int          `json:"severity"`
			Message  string       `json:"message"`
			Range    syntax.Range `json:"range"`
			Related  []struct {
				Location struct {
					URI   string       `json:"uri"`
					Range syntax.Range `json:"range"`
				} `json:"location"`
				Message string `json:"message"`
			} `json:"relatedInformation"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(msg.Params, &pd); err != nil {
		t.Fatal(err)
	}
	var ds []pipelineDiag
	for _, d := range pd.Diagnostics {
		pdg := pipelineDiag{Code: d.Code, Severity: syntax.Severity(d.Severity).String(), Message: d.Message, Range: d.Range}
		for _, r := range d.Related {
			pdg.Related = append(pdg.Related, pipelineRelated{Path: strings.TrimPrefix(r.Location.URI, "file://"), Range: r.Location.Range, Message: r.Message})
		}
		ds = append(ds, pdg)
	}
	return ds
}
