package lsp

// Capsule contracts (.capsule.yaml, docs/capsule.md) in the language
// server: diagnostics as caps capsule-check reports them, hover
// documentation of every key (with each effect's lowering), go-to-
// definition from an escalation's amount_usd to the effects' amounts, and
// a "Compile capsule" code lens whose command compiles the bundle and asks
// the editor to open the generated module. A contract is not a Capsulang
// document: its requests and notifications are routed here before the
// Capsulang handlers see them, and the requests this file does not answer
// get an empty result.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/capsulang/caps/analysis/capsule"
	"github.com/capsulang/caps/syntax"
)

// capsuleDoc is an open contract.
type capsuleDoc struct {
	text    []byte
	lines   *syntax.Mapper // of text, built with it
	version int32
}

// newCapsuleDoc is a contract's version, with its position mapper.
func newCapsuleDoc(text []byte, version int32) *capsuleDoc {
	return &capsuleDoc{text: text, lines: syntax.NewMapper(text), version: version}
}

// IsCapsuleContract reports whether a document is a Capsule contract, by
// its name.
func IsCapsuleContract(u protocol.DocumentURI) bool {
	s := string(u)
	return strings.HasSuffix(s, ".capsule.yaml") || strings.HasSuffix(s, ".capsule.yml")
}

const compileCapsuleCommand = "capsulang.compileCapsule"

func init() {
	commands[compileCapsuleCommand] = compileCapsule
}

// capsuleURI is the document a request or notification is about, if it
// names one.
func capsuleURI(params json.RawMessage) (protocol.DocumentURI, bool) {
	var p struct {
		TextDocument struct {
			URI protocol.DocumentURI `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(params, &p) != nil || !IsCapsuleContract(p.TextDocument.URI) {
		return "", false
	}
	return p.TextDocument.URI, true
}

// capsuleRequest is the handler of a request about a contract, or nil
// when the request is not about one.
func (s *Server) capsuleRequest(method string, params json.RawMessage) requestHandler {
	u, ok := capsuleURI(params)
	if !ok {
		return nil
	}
	switch method {
	case "textDocument/hover":
		return capsulePositional(u, func(d *capsuleDoc, m mapper, off int) (any, error) {
			md, sp, ok := capsule.Hover(d.text, off)
			if !ok {
				return nil, nil
			}
			rg := m.Range(sp)
			return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: &rg}, nil
		})
	case "textDocument/definition":
		return capsulePositional(u, func(d *capsuleDoc, m mapper, off int) (any, error) {
			locs := []protocol.Location{}
			for _, sp := range capsule.Definition(d.text, off) {
				locs = append(locs, m.Location(u, sp))
			}
			return locs, nil
		})
	case "textDocument/codeLens":
		return func(s *Server, _ json.RawMessage) (func(context.Context) (any, error), error) {
			lens := []protocol.CodeLens{{
				Range:   protocol.Range{},
				Command: &protocol.Command{Title: "Compile capsule", Command: compileCapsuleCommand, Arguments: []any{map[string]any{"uri": u}}},
			}}
			return func(context.Context) (any, error) { return lens, nil }, nil
		}
	}
	return func(*Server, json.RawMessage) (func(context.Context) (any, error), error) {
		return func(context.Context) (any, error) { return nil, nil }, nil
	}
}

// capsulePositional adapts a handler of a position in an open contract.
func capsulePositional(u protocol.DocumentURI, f func(d *capsuleDoc, m mapper, off int) (any, error)) requestHandler {
	return func(s *Server, params json.RawMessage) (func(context.Context) (any, error), error) {
		var p protocol.TextDocumentPositionParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		s.mu.Lock()
		d := s.capsules[u]
		enc := s.enc
		s.mu.Unlock()
		if d == nil {
			return nil, rpcError(errInvalidParams, "document not open: "+string(u))
		}
		m := mapper{d.lines, enc}
		off, err := m.Offset(p.Position)
		if err != nil {
			return nil, err
		}
		return func(context.Context) (any, error) { return f(d, m, off) }, nil
	}
}

// capsuleNotification is the handler of a notification about a contract,
// or nil.
func (s *Server) capsuleNotification(method string, params json.RawMessage) notificationHandler {
	u, ok := capsuleURI(params)
	if !ok {
		return nil
	}
	switch method {
	case "textDocument/didOpen":
		return func(s *Server, params json.RawMessage) error {
			var p protocol.DidOpenTextDocumentParams
			if err := decode(params, &p); err != nil {
				return err
			}
			d := newCapsuleDoc([]byte(p.TextDocument.Text), p.TextDocument.Version)
			s.mu.Lock()
			if s.capsules == nil {
				s.capsules = map[protocol.DocumentURI]*capsuleDoc{}
			}
			s.capsules[u] = d
			s.mu.Unlock()
			s.publishCapsule(u, d)
			return nil
		}
	case "textDocument/didChange":
		return func(s *Server, params json.RawMessage) error {
			var p didChangeParams
			if err := decode(params, &p); err != nil {
				return err
			}
			s.mu.Lock()
			old := s.capsules[u]
			enc := s.enc
			s.mu.Unlock()
			if old == nil {
				return fmt.Errorf("didChange for a document that is not open: %s", u)
			}
			text, lines := old.text, old.lines // lines is nil once text changed
			for i, ch := range p.ContentChanges {
				if ch.Text == nil {
					return fmt.Errorf("content change %d has no text", i+1)
				}
				if ch.Range == nil {
					text, lines = []byte(*ch.Text), nil
					continue
				}
				if lines == nil {
					lines = syntax.NewMapper(text)
				}
				sp, err := mapper{lines, enc}.Span(*ch.Range)
				if err != nil {
					return fmt.Errorf("content change %d does not fit the document (%v); close and reopen the file", i+1, err)
				}
				text, lines = append(append(append([]byte{}, text[:sp.Start]...), *ch.Text...), text[sp.End:]...), nil
			}
			d := newCapsuleDoc(text, p.TextDocument.Version)
			s.mu.Lock()
			s.capsules[u] = d
			s.mu.Unlock()
			s.publishCapsule(u, d)
			return nil
		}
	case "textDocument/didClose":
		return func(s *Server, _ json.RawMessage) error {
			s.mu.Lock()
			delete(s.capsules, u)
			s.mu.Unlock()
			s.conn.Notify(context.Background(), "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
			return nil
		}
	}
	return func(*Server, json.RawMessage) error { return nil }
}

// publishCapsule publishes a contract's diagnostics.
func (s *Server) publishCapsule(u protocol.DocumentURI, d *capsuleDoc) {
	_, diags := capsule.Check(d.text)
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()
	m := mapper{d.lines, enc}
	out := []protocol.Diagnostic{}
	for _, dg := range diags {
		out = append(out, protocol.Diagnostic{
			Range:           m.Range(dg.Span),
			Severity:        protocol.DiagnosticSeverity(dg.Severity),
			Code:            dg.Code,
			CodeDescription: &protocol.CodeDescription{Href: protocol.URI(docURL(dg.Code))},
			Source:          "capsulang",
			Message:         dg.Message,
		})
	}
	s.conn.Notify(context.Background(), "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{URI: u, Version: uint32(d.version), Diagnostics: out})
}

// compileCapsuleArgs is capsulang.compileCapsule's argument.
type compileCapsuleArgs struct {
	URI protocol.DocumentURI `json:"uri"`
	// OutDir is where the bundle goes; default: build/NAME beside the
	// contract.
	OutDir string `json:"outDir,omitempty"`
}

type compileCapsuleResult struct {
	OutDir       string               `json:"outDir"`
	Module       protocol.DocumentURI `json:"module"`
	ContractHash string               `json:"contractHash"`
	Artifacts    []*capsule.Artifact  `json:"artifacts"`
}

// compileCapsule compiles a contract (its open text, else the file) into
// its bundle and asks the editor to show the generated module.
func compileCapsule(s *Server, args json.RawMessage) (func(context.Context) (any, error), error) {
	var a compileCapsuleArgs
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if !IsCapsuleContract(a.URI) {
		return nil, rpcError(errInvalidParams, "not a Capsule contract (NAME.capsule.yaml): "+string(a.URI))
	}
	s.mu.Lock()
	d := s.capsules[a.URI]
	s.mu.Unlock()
	path := uriPath(a.URI)
	return func(ctx context.Context) (any, error) {
		var text []byte
		if d != nil {
			text = d.text
		} else {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, rpcWrap(errInvalidParams, err)
			}
			text = b
		}
		c, diags := capsule.Check(text)
		if c.IR == nil {
			n := 0
			for _, dg := range diags {
				if dg.Severity == syntax.Error {
					n++
				}
			}
			return nil, rpcError(errRequestFailed, fmt.Sprintf("the contract has %d errors; fix them first (see the Problems list)", n))
		}
		b, err := capsule.Compile(c.IR)
		if err != nil {
			return nil, err
		}
		out := a.OutDir
		if out == "" {
			out = filepath.Join(filepath.Dir(path), "build", capsule.BaseName(c.IR.Module))
		}
		if err := b.Write(out); err != nil {
			return nil, rpcWrap(errRequestFailed, fmt.Errorf("writing %s: %w", out, err))
		}
		mod := protocol.DocumentURI(uri.File(filepath.Join(out, b.Module)))
		go s.conn.Call(context.Background(), "window/showDocument", map[string]any{"uri": mod, "takeFocus": true}, nil)
		return &compileCapsuleResult{OutDir: out, Module: mod, ContractHash: b.EDL.ContractHash, Artifacts: b.Artifacts}, nil
	}, nil
}
