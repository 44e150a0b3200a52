package lsp

// This file holds the server's one way of converting between byte offsets
// and protocol positions: a file's position mapper (syntax.Mapper, built
// once per text with its tree) in the session's encoding. A location in
// another file is converted with that file's own mapper (fileMapper).

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
)

// mapper is the position mapper of one file version in the encoding the
// client and server agreed on, speaking protocol types.
type mapper struct {
	m   *syntax.Mapper
	enc syntax.Encoding
}

// Range converts a byte span to a protocol range.
func (m mapper) Range(sp syntax.Span) protocol.Range {
	return toProtocolRange(m.m.Range(sp, m.enc))
}

// Offset converts a protocol position from the client to a byte offset; a
// position that does not fit the text is the client's error
// (InvalidParams).
func (m mapper) Offset(p protocol.Position) (int, error) {
	off, err := m.m.Offset(fromProtocolPosition(p), m.enc)
	if err != nil {
		return 0, rpcWrap(errInvalidParams, err)
	}
	return off, nil
}

// Span converts a protocol range to a byte span; the error is the
// mapper's, for the caller to word.
func (m mapper) Span(r protocol.Range) (syntax.Span, error) {
	return m.m.Span(fromProtocolRange(r), m.enc)
}

// Location is the location of a span of the mapper's file, named by u.
func (m mapper) Location(u protocol.DocumentURI, sp syntax.Span) protocol.Location {
	return protocol.Location{URI: u, Range: m.Range(sp)}
}

// fileMapper returns the mapper of another file than a snapshot's, as the
// loader read it, or false when it cannot be loaded.
func fileMapper(l *load.Loader, path string, enc syntax.Encoding) (mapper, bool) {
	pkg, err := l.Load(path)
	if err != nil || pkg.File == nil || pkg.File.Source == nil || pkg.File.Source.CST == nil {
		return mapper{}, false
	}
	return mapper{pkg.File.Source.CST.Lines, enc}, true
}

// fileURI is the document URI of a file path.
func fileURI(path string) protocol.DocumentURI { return protocol.DocumentURI(uri.File(path)) }

// toProtocolRange converts a syntax range to the protocol's.
func toProtocolRange(r syntax.Range) protocol.Range {
	return protocol.Range{Start: toProtocolPosition(r.Start), End: toProtocolPosition(r.End)}
}

// toProtocolPosition converts a syntax position to the protocol's.
func toProtocolPosition(p syntax.Position) protocol.Position {
	return protocol.Position{Line: uint32(p.Line), Character: uint32(p.Character)}
}

// fromProtocolPosition converts a protocol position to syntax's.
func fromProtocolPosition(p protocol.Position) syntax.Position {
	return syntax.Position{Line: int(p.Line), Character: int(p.Character)}
}

// fromProtocolRange converts a protocol range to syntax's.
func fromProtocolRange(r protocol.Range) syntax.Range {
	return syntax.Range{Start: fromProtocolPosition(r.Start), End: fromProtocolPosition(r.End)}
}
