package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

// capsulang/debug.documentText returns the server's copy of a document and
// its version. Tests use it to prove the server never disagrees with the
// editor about the text; it is documented in docs/lsp.md as a debugging aid.
func init() {
	requests["capsulang/debug.documentText"] = func(s *Server, params json.RawMessage) (func(context.Context) (any, error), error) {
		var p struct {
			TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
		}
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		sn, err := s.snapshotOf(p.TextDocument.URI)
		if err != nil {
			return nil, err
		}
		return func(context.Context) (any, error) {
			return map[string]any{"version": sn.version, "text": string(sn.cst.Src)}, nil
		}, nil
	}
}
