package lsp

import (
	"context"
	"regexp"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/capsulang/caps/syntax"
)

var urlRE = regexp.MustCompile(`https?://[^\s"]+`)

func init() {
	requests["textDocument/documentLink"] = documentOnly(documentLinks)
	extraFeatures = append(extraFeatures, func(c *protocol.ServerCapabilities) {
		c.DocumentLinkProvider = &protocol.DocumentLinkOptions{}
	})
}

// documentLinks links imports to the files they resolve to and URLs in
// strings (endpoints, catalogs) to themselves.
func documentLinks(_ context.Context, sn *snapshot) (any, error) {
	pkg := sn.Package()
	out := []protocol.DocumentLink{}
	for _, im := range pkg.Result.Imports {
		out = append(out, protocol.DocumentLink{Range: sn.rng(im.Import.Path.Span), Target: protocol.DocumentURI(uri.File(im.File)), Tooltip: "module " + im.Import.Path.Name + " (" + im.Hash + ")"})
	}
	var walk func(fs []*syntax.Form)
	walk = func(fs []*syntax.Form) {
		for _, f := range fs {
			switch f.Kind {
			case syntax.FormList:
				walk(f.Items())
			case syntax.FormString:
				raw := sn.cst.Src[f.Span().Start:f.Span().End]
				for _, m := range urlRE.FindAllIndex(raw, -1) {
					sp := syntax.Span{Start: f.Span().Start + m[0], End: f.Span().Start + m[1]}
					out = append(out, protocol.DocumentLink{Range: sn.rng(sp), Target: protocol.DocumentURI(raw[m[0]:m[1]])})
				}
			}
		}
	}
	walk(pkg.File.Source.Forms)
	return out, nil
}
