package lsp

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

func init() {
	requests["workspace/symbol"] = workspaceSymbols
	notifications["workspace/didChangeWatchedFiles"] = didChangeWatchedFiles
	extraFeatures = append(extraFeatures, func(c *protocol.ServerCapabilities) {
		c.WorkspaceSymbolProvider = true
	})
}

// wsSymbol is one declaration found in a workspace file.
type wsSymbol struct {
	name   string
	kind   ast.DeclKind
	parent string
	rng    protocol.Range
}

// workspace indexes every .caps file under the workspace folders, open or
// not, by parsing it (not checking: that happens when a file is opened).
type workspace struct {
	mu      sync.Mutex
	folders []string
	files   map[string][]wsSymbol // by path
	ready   chan struct{}
}

func newWorkspace() *workspace {
	return &workspace{files: map[string][]wsSymbol{}, ready: make(chan struct{})}
}

// scanFolders lists the .caps files under the folders, skipping hidden
// folders and node_modules.
func scanFolders(folders []string) []string {
	var out []string
	for _, root := range folders {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				name := d.Name()
				if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "build") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(path, ".caps") {
				out = append(out, path)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

// indexFile parses one file and records its declarations.
func (w *workspace) indexFile(path string, src []byte, enc syntax.Encoding) {
	if src == nil {
		var err error
		src, err = load.ReadSource(path)
		if err != nil {
			w.remove(path)
			return
		}
	}
	f, err := ast.Parse(src)
	if err != nil || f.Module == nil {
		w.remove(path)
		return
	}
	toRange := mapper{f.Source.CST.Lines, enc}.Range
	var syms []wsSymbol
	for _, d := range f.Module.Decls {
		b := d.Base()
		if !b.Name.Valid() {
			continue
		}
		syms = append(syms, wsSymbol{name: b.Name.Name, kind: d.Kind(), parent: f.Module.Name.Name, rng: toRange(b.Name.Span)})
		if m, ok := d.(*ast.Machine); ok {
			for _, st := range m.States {
				if st.Name.Valid() {
					syms = append(syms, wsSymbol{name: st.Name.Name, kind: "state", parent: m.Name.Name, rng: toRange(st.Name.Span)})
				}
			}
			for _, ev := range m.Events {
				if ev.Name.Valid() {
					syms = append(syms, wsSymbol{name: ev.Name.Name, kind: "event", parent: m.Name.Name, rng: toRange(ev.Name.Span)})
				}
			}
		}
	}
	w.mu.Lock()
	w.files[path] = syms
	w.mu.Unlock()
}

func (w *workspace) remove(path string) {
	w.mu.Lock()
	delete(w.files, path)
	w.mu.Unlock()
}

// loadWorkspace indexes the workspace in the background, reporting
// progress; it stops between files when the server ends.
func (s *Server) loadWorkspace(folders []string, progress bool) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer close(s.ws.ready)
		files := scanFolders(folders)
		var token protocol.ProgressToken
		if progress && len(files) > 0 {
			token = *protocol.NewProgressToken("capsulang/workspace-load")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, err := s.conn.Call(ctx, "window/workDoneProgress/create", &protocol.WorkDoneProgressCreateParams{Token: token}, nil)
			cancel()
			if err != nil {
				progress = false
			} else {
				s.conn.Notify(context.Background(), "$/progress", &protocol.ProgressParams{Token: token, Value: &protocol.WorkDoneProgressBegin{Kind: "begin", Title: "Indexing Capsulang files", Percentage: 0}})
			}
		}
		for i, f := range files {
			select {
			case <-s.stopping:
				s.log.Printf("workspace index stopped after %d of %d files: the server is exiting", i, len(files))
				return
			default:
			}
			s.ws.indexFile(f, nil, s.enc)
			if progress && (i%20 == 0) {
				s.conn.Notify(context.Background(), "$/progress", &protocol.ProgressParams{Token: token, Value: &protocol.WorkDoneProgressReport{Kind: "report", Message: filepath.Base(f), Percentage: uint32(100 * (i + 1) / len(files))}})
			}
		}
		if progress {
			s.conn.Notify(context.Background(), "$/progress", &protocol.ProgressParams{Token: token, Value: &protocol.WorkDoneProgressEnd{Kind: "end", Message: "indexed " + itoa(len(files)) + " files"}})
		}
		s.log.Printf("indexed %d workspace files", len(files))
	}()
}

func itoa(n int) string { return strconv.Itoa(n) }

func workspaceSymbols(s *Server, params json.RawMessage) (func(context.Context) (any, error), error) {
	var p protocol.WorkspaceSymbolParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) {
		select {
		case <-s.ws.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		q := strings.ToLower(p.Query)
		out := []protocol.SymbolInformation{}
		s.ws.mu.Lock()
		defer s.ws.mu.Unlock()
		paths := make([]string, 0, len(s.ws.files))
		for path := range s.ws.files {
			paths = append(paths, path)
		}
		sort.Strings(paths)
		for _, path := range paths {
			for _, sym := range s.ws.files[path] {
				if q != "" && !fuzzyMatch(strings.ToLower(sym.name), q) {
					continue
				}
				kind := symbolKind(sym.kind)
				switch sym.kind {
				case "state":
					kind = protocol.SymbolKindEnumMember
				case "event":
					kind = protocol.SymbolKindEvent
				}
				out = append(out, protocol.SymbolInformation{Name: sym.name, Kind: kind, ContainerName: sym.parent,
					Location: protocol.Location{URI: protocol.DocumentURI(uri.File(path)), Range: sym.rng}})
				if len(out) >= 1000 {
					return out, nil
				}
			}
		}
		return out, nil
	}, nil
}

// fuzzyMatch reports whether the query's characters appear in order.
func fuzzyMatch(name, q string) bool {
	i := 0
	for j := 0; j < len(name) && i < len(q); j++ {
		if name[j] == q[i] {
			i++
		}
	}
	return i == len(q)
}

func didChangeWatchedFiles(s *Server, params json.RawMessage) error {
	var p protocol.DidChangeWatchedFilesParams
	if err := decode(params, &p); err != nil {
		return err
	}
	for _, ch := range p.Changes {
		path := uriPath(ch.URI)
		s.loader.Forget(path)
		if ch.Type == protocol.FileChangeTypeDeleted {
			s.ws.remove(path)
			continue
		}
		if _, err := os.Stat(path); err == nil {
			go s.ws.indexFile(path, nil, s.enc)
		}
	}
	// open documents that import a changed file need new diagnostics
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		if d.snap == nil {
			continue // over the size limit: not analysed
		}
		if importsAnything(d.base) || importsAnything(d.engine) {
			d.dropViews() // (as refreshImporters)
			d.dropBases()
		}
		d.snap = s.newSnapshot(d, d.snap.version)
		d.published, d.publishedFinal = d.snap.version-1, false
		s.scheduleDiagnostics(d)
	}
	return nil
}

// progress starts a work-done progress report when the client supports
// them and returns the function that ends it. It never blocks the caller
// on the client for more than two seconds.
func (s *Server) progress(title string) func() {
	s.mu.Lock()
	ok := s.clientProgress
	s.mu.Unlock()
	if !ok {
		return func() {}
	}
	s.mu.Lock()
	s.progressN++
	n := s.progressN
	s.mu.Unlock()
	token := *protocol.NewProgressToken("capsulang/" + strconv.Itoa(n))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_, err := s.conn.Call(ctx, "window/workDoneProgress/create", &protocol.WorkDoneProgressCreateParams{Token: token}, nil)
	cancel()
	if err != nil {
		return func() {}
	}
	s.conn.Notify(context.Background(), "$/progress", &protocol.ProgressParams{Token: token, Value: &protocol.WorkDoneProgressBegin{Kind: "begin", Title: title}})
	return func() {
		s.conn.Notify(context.Background(), "$/progress", &protocol.ProgressParams{Token: token, Value: &protocol.WorkDoneProgressEnd{Kind: "end"}})
	}
}
