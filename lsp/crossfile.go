package lsp

import (
	"path/filepath"
	"sort"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax"
)

// sameSymbol reports whether a and b are the same declaration, possibly
// seen through different checks of its file.
func sameSymbol(a, b *check.Symbol) bool {
	return a == b || a.File == b.File && a.Span == b.Span && a.Name == b.Name && a.Kind == b.Kind
}

// fileUses returns, for every workspace file other than the snapshot's that
// refers to sym, the spans of those references. Files are loaded and
// checked through the import cache (open documents' text is used).
func (s *Server) fileUses(sn *snapshot, sym *check.Symbol) map[string][]syntax.Span {
	out := map[string][]syntax.Span{}
	self, _ := filepath.Abs(sn.path)
	s.ws.mu.Lock()
	var paths []string
	for p := range s.ws.files {
		if p != self {
			paths = append(paths, p)
		}
	}
	s.ws.mu.Unlock()
	sort.Strings(paths)
	for _, p := range paths {
		pkg, err := s.loader.Load(p)
		if err != nil || len(pkg.Result.Imports) == 0 {
			continue
		}
		for _, r := range pkg.Result.Refs {
			if sameSymbol(r.Sym, sym) {
				out[p] = append(out[p], r.Span)
			}
		}
	}
	return out
}

// locations converts spans in another file to protocol locations.
func (s *Server) locations(path string, spans []syntax.Span, enc syntax.Encoding) []protocol.Location {
	m, ok := fileMapper(s.loader, path, enc)
	if !ok {
		return nil
	}
	var out []protocol.Location
	for _, sp := range spans {
		out = append(out, m.Location(fileURI(path), sp))
	}
	return out
}
