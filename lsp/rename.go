package lsp

import (
	"context"
	"fmt"
	"regexp"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax"
)

func init() {
	requests["textDocument/prepareRename"] = positional(prepareRename)
	requests["textDocument/rename"] = onDocument(func(p *protocol.RenameParams) protocol.DocumentURI { return p.TextDocument.URI }, rename)
	extraFeatures = append(extraFeatures, func(c *protocol.ServerCapabilities) {
		c.RenameProvider = &protocol.RenameOptions{PrepareProvider: true}
	})
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// renamable returns the symbol at off if it can be renamed, with the span
// of the name under the cursor.
func renamable(sn *snapshot, off int) (*check.Symbol, syntax.Span, error) {
	sym, sp, _ := sn.Index().at(off)
	if sym == nil {
		return nil, sp, rpcError(errInvalidParams, "there is no renamable name here")
	}
	if sym.Kind == check.SymModule || sym.Kind == check.SymImport {
		return nil, sp, rpcError(errInvalidParams, "module names are renamed by moving the file; rename the module by hand")
	}
	if sym.Name == "result" && sym.Kind == check.SymLocal {
		return nil, sp, rpcError(errInvalidParams, "`result` is built in")
	}
	return sym, sp, nil
}

func prepareRename(_ context.Context, sn *snapshot, off int) (any, error) {
	sym, sp, err := renamable(sn, off)
	if err != nil {
		return nil, err
	}
	return &struct {
		Range       protocol.Range `json:"range"`
		Placeholder string         `json:"placeholder"`
	}{sn.rng(sp), sym.Name}, nil
}

func rename(ctx context.Context, s *Server, sn *snapshot, p *protocol.RenameParams) (any, error) {
	off, err := sn.offset(p.Position)
	if err != nil {
		return nil, err
	}
	sym, _, err := renamable(sn, off)
	if err != nil {
		return nil, err
	}
	if !identRE.MatchString(p.NewName) {
		return nil, rpcError(errInvalidParams, fmt.Sprintf("%q is not a valid name (letters, digits, _ and -, not starting with a digit)", p.NewName))
	}
	ix := sn.Index()
	// refuse a rename that would collide with a sibling
	for _, other := range sn.Package().Result.Symbols {
		if other != sym && other.Name == p.NewName && other.Parent == sym.Parent && other.Kind == sym.Kind && other.File == sym.File {
			return nil, rpcError(errInvalidParams, fmt.Sprintf("%s %s already exists", other.Kind, p.NewName))
		}
	}
	changes := map[protocol.DocumentURI][]protocol.TextEdit{}
	decl := sn.location(sym)
	changes[decl.URI] = append(changes[decl.URI], protocol.TextEdit{Range: decl.Range, NewText: p.NewName})
	for _, sp := range ix.uses[sym] {
		changes[sn.uri] = append(changes[sn.uri], protocol.TextEdit{Range: sn.rng(sp), NewText: p.NewName})
	}
	for path, spans := range s.fileUses(sn, sym) {
		for _, l := range s.locations(path, spans, sn.enc) {
			changes[l.URI] = append(changes[l.URI], protocol.TextEdit{Range: l.Range, NewText: p.NewName})
		}
	}
	return &protocol.WorkspaceEdit{Changes: changes}, nil
}
