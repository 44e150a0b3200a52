package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/syntax"
)

// serverCapabilities extends the 3.16 capabilities of go.lsp.dev/protocol
// with the 3.17 fields the server implements.
type serverCapabilities struct {
	protocol.ServerCapabilities
	PositionEncoding  string `json:"positionEncoding,omitempty"`
	InlayHintProvider bool   `json:"inlayHintProvider,omitempty"`
}

type initializeResult struct {
	Capabilities serverCapabilities   `json:"capabilities"`
	ServerInfo   *protocol.ServerInfo `json:"serverInfo,omitempty"`
}

// initializeParams holds the parts of the client's initialize params we use.
type initializeParams struct {
	Capabilities struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
		Workspace struct {
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
			InlayHint struct {
				RefreshSupport bool `json:"refreshSupport"`
			} `json:"inlayHint"`
		} `json:"workspace"`
	} `json:"capabilities"`
	WorkspaceFolders []protocol.WorkspaceFolder `json:"workspaceFolders"`
	RootURI          protocol.DocumentURI       `json:"rootUri"`
}

func init() {
	requests["initialize"] = initialize
	requests["shutdown"] = func(s *Server, _ json.RawMessage) (func(context.Context) (any, error), error) {
		s.mu.Lock()
		s.shutdown = true
		writeHeapProfile(s)
		s.mu.Unlock()
		return func(context.Context) (any, error) { return nil, nil }, nil
	}
	notifications["initialized"] = initialized
	notifications["textDocument/didOpen"] = didOpen
	notifications["textDocument/didChange"] = didChange
	notifications["textDocument/didClose"] = didClose
}

func initialize(s *Server, params json.RawMessage) (func(context.Context) (any, error), error) {
	var p initializeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.initialized {
		s.mu.Unlock()
		return nil, rpcError(errInvalidRequest, "initialize was already sent")
	}
	s.enc = syntax.UTF16
	encName := "utf-16"
	for _, e := range p.Capabilities.General.PositionEncodings {
		if e == "utf-8" {
			s.enc, encName = syntax.UTF8, e
			break
		}
		if e == "utf-32" {
			s.enc, encName = syntax.UTF32, e
		}
	}
	s.initialized = true
	for _, f := range p.WorkspaceFolders {
		s.folders = append(s.folders, uriPath(protocol.DocumentURI(f.URI)))
	}
	if len(s.folders) == 0 && p.RootURI != "" {
		s.folders = []string{uriPath(p.RootURI)}
	}
	// workspace folders are import roots too (after CAPS_PATH)
	s.loader.Roots = append(s.loader.Roots, s.folders...)
	s.clientProgress = p.Capabilities.Window.WorkDoneProgress
	s.clientWatch = p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
	s.clientInlayRefresh = p.Capabilities.Workspace.InlayHint.RefreshSupport
	s.mu.Unlock()
	caps := serverCapabilities{PositionEncoding: encName, InlayHintProvider: true}
	caps.TextDocumentSync = &protocol.TextDocumentSyncOptions{
		OpenClose: true,
		Change:    protocol.TextDocumentSyncKindIncremental,
		Save:      &protocol.SaveOptions{IncludeText: false},
	}
	enableFeatures(&caps.ServerCapabilities)
	version := s.opts.Version
	if version == "" {
		version = "dev"
	}
	res := &initializeResult{Capabilities: caps, ServerInfo: &protocol.ServerInfo{Name: "caps lsp", Version: version}}
	return func(context.Context) (any, error) { return res, nil }, nil
}

func didOpen(s *Server, params json.RawMessage) error {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	u := p.TextDocument.URI
	d := &document{uri: u, path: uriPath(u), published: -1, cache: &docCache{}}
	if err := s.setText(d, []byte(p.TextDocument.Text)); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.docs[u]; ok {
		old.close()
	}
	s.docs[u] = d
	s.textChanged(d, p.TextDocument.Version, false)
	return nil
}

// textChanged follows a document's new text (opened or changed), with s.mu
// held: a new snapshot and diagnostics, or, for a document over the size
// limit, its one diagnostic (and a message when it has just become too
// large); files importing it see the new text.
func (s *Server) textChanged(d *document, version int32, wasLarge bool) {
	d.version = version
	if d.doc == nil {
		s.publishTooLarge(d, !wasLarge)
	} else {
		d.snap = s.newSnapshot(d, version)
		s.scheduleDiagnostics(d)
	}
	s.noteSource(d)
	s.loader.Forget(d.path)
	s.importersOf(d)
}

// contentChange is TextDocumentContentChangeEvent with an optional range
// (absent means the whole document). Text is required: a change without
// it is refused rather than read as "delete".
type contentChange struct {
	Range *protocol.Range `json:"range"`
	Text  *string         `json:"text"`
}

// didChangeParams are the params of textDocument/didChange.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                          `json:"contentChanges"`
}

// validate checks what can be checked before any change is applied, so
// that a malformed notification leaves the document as it was.
func (p *didChangeParams) validate(current int32) error {
	for i, ch := range p.ContentChanges {
		if ch.Text == nil {
			return fmt.Errorf(`invalid params: content change %d of version %d has no "text"; the document was left as it was (version %d): close and reopen the file`, i+1, p.TextDocument.Version, current)
		}
	}
	return nil
}

// didChange applies a notification's content changes in order and makes a
// snapshot of the result. A change without text is refused before any is
// applied; a change whose range does not fit stops the rest.
func didChange(s *Server, params json.RawMessage) error {
	var p didChangeParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return fmt.Errorf("didChange for a document that is not open: %s", p.TextDocument.URI)
	}
	if err := p.validate(d.version); err != nil {
		return err
	}
	wasLarge := d.doc == nil
	for i, ch := range p.ContentChanges {
		if err := s.applyChange(d, ch); err != nil {
			return fmt.Errorf("content change %d of version %d %w", i+1, p.TextDocument.Version, err)
		}
	}
	if err := s.parseIfSmall(d); err != nil {
		return err
	}
	s.textChanged(d, p.TextDocument.Version, wasLarge)
	return nil
}

// applyChange applies one content change to the document's text; s.mu
// must be held. A change that takes the document over the size limit
// stops its analysis first. Its error completes "content change N of
// version V".
func (s *Server) applyChange(d *document, ch contentChange) error {
	text := []byte(*ch.Text)
	sp := syntax.Span{End: d.size()}
	if ch.Range != nil {
		var err error
		if sp, err = d.span(*ch.Range, s.enc); err != nil {
			// The client and server disagree about the text; ask for a
			// resync rather than corrupting the document.
			return fmt.Errorf("does not fit the document (%v); close and reopen the file", err)
		}
	}
	size := d.size() - sp.Len() + len(text)
	if size > MaxMessageSize {
		return fmt.Errorf("would make the document %s, over the %s the server keeps of a document; the change was not applied: close the file", mib(size), mib(MaxMessageSize))
	}
	if d.doc != nil && size > s.maxDocument() {
		d.keepTextOnly()
	}
	if err := d.edit(sp, text, ch.Range == nil); err != nil {
		return fmt.Errorf("could not be applied: %w", err)
	}
	return nil
}

// protocolRange converts a protocol range to the syntax package's.
func didClose(s *Server, params json.RawMessage) error {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil
	}
	delete(s.docs, p.TextDocument.URI)
	d.close()
	s.exCaches.drop(p.TextDocument.URI)
	s.forgetSource(d.path)
	s.answers.drop(d.path)
	s.loader.Forget(d.path) // back to the disk's text
	if len(s.docs) == 0 {
		s.loader.Reset() // no document needs the imports any more
	}
	s.scheduleRelease()
	s.refreshImporters(nil)
	s.conn.Notify(context.Background(), "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
	return nil
}

// initialized starts indexing the workspace and asks the client to watch
// .caps files, so that files changed outside the editor stay current.
func initialized(s *Server, _ json.RawMessage) error {
	s.mu.Lock()
	folders, progress, watch := s.folders, s.clientProgress, s.clientWatch
	s.mu.Unlock()
	s.loadWorkspace(folders, progress)
	if watch {
		go s.conn.Call(context.Background(), "client/registerCapability", &protocol.RegistrationParams{Registrations: []protocol.Registration{{
			ID: "capsulang-watch", Method: "workspace/didChangeWatchedFiles",
			RegisterOptions: map[string]any{"watchers": []map[string]any{{"globPattern": "**/*.caps"}}},
		}}}, nil)
	}
	return nil
}
