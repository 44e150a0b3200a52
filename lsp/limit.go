package lsp

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
)

// Documents over the size limit. The CLI reads no source file larger than
// load.MaxFileSize, and the server analyses no larger document: parsing
// one takes minutes and gigabytes. Such a document is kept as text only,
// so that edits still apply and can bring it back under the limit (it is
// then parsed and analysed again); meanwhile it has one diagnostic saying
// why, and requests about it are refused. No document grows past
// MaxMessageSize, the largest message the server reads.

// maxDocument is the size limit of an analysed document.
func (s *Server) maxDocument() int {
	if s.opts.MaxDocumentSize > 0 {
		return s.opts.MaxDocumentSize
	}
	return load.MaxFileSize
}

// setText gives a new document its text: parsed, or kept as text only
// when it is over the size limit.
func (s *Server) setText(d *document, text []byte) error {
	if len(text) > s.maxDocument() {
		d.large = text
		return nil
	}
	doc, err := syntax.NewDocument(text)
	if err != nil {
		return err
	}
	d.doc = doc
	return nil
}

// size returns the length of the document's text.
func (d *document) size() int {
	if d.doc == nil {
		return len(d.large)
	}
	return len(d.doc.Text())
}

// text returns the document's current text; the caller must not keep it
// past s.mu (the text of a large document is edited in place).
func (d *document) text() []byte {
	if d.doc == nil {
		return d.large
	}
	return d.doc.Text()
}

// span converts a change's range to a byte span of the document's text.
func (d *document) span(r protocol.Range, enc syntax.Encoding) (syntax.Span, error) {
	if d.doc == nil {
		return largeSpan(d.large, fromProtocolRange(r), enc)
	}
	return mapper{d.doc.CST().Lines, enc}.Span(r)
}

// edit replaces the span sp of the text with text (the whole text when
// whole is set): in the tree, or in the kept text of a large document.
func (d *document) edit(sp syntax.Span, text []byte, whole bool) error {
	switch {
	case d.doc == nil && whole:
		d.large = text
	case d.doc == nil:
		d.large = slices.Replace(d.large, sp.Start, sp.End, text...)
	case whole:
		return d.doc.Replace(text)
	default:
		return d.doc.Edit(sp.Start, sp.End, text)
	}
	return nil
}

// keepTextOnly stops analysing the document: its tree, snapshot and
// incremental base are released and a copy of its text is kept (a copy,
// because snapshots share the tree's text and large texts are edited in
// place).
func (d *document) keepTextOnly() {
	d.large = bytes.Clone(d.doc.Text())
	d.close()
	d.doc, d.snap = nil, nil
	d.dropBases()
}

// parseIfSmall parses the kept text of a large document that is back under
// the size limit.
func (s *Server) parseIfSmall(d *document) error {
	if d.doc != nil || len(d.large) > s.maxDocument() {
		return nil
	}
	doc, err := syntax.NewDocument(d.large)
	if err != nil {
		return err
	}
	d.doc, d.large = doc, nil
	return nil
}

// tooLarge explains why a document is not analysed, as its size against
// the limit and what to do.
func (s *Server) tooLarge(d *document) string {
	return fmt.Sprintf("this document is %s, over the %s limit for Capsulang source files, so it is not analysed; make it smaller to have diagnostics and the other features again", mib(d.size()), mib(s.maxDocument()))
}

// publishTooLarge publishes the one diagnostic of a large document, with
// s.mu held; announce also shows the reason, when the document has just
// become too large.
func (s *Server) publishTooLarge(d *document, announce bool) {
	msg := s.tooLarge(d)
	if announce {
		s.showMessage(protocol.MessageTypeWarning, fmt.Sprintf("Capsulang: %s: %s", d.uri, msg))
		s.scheduleRelease() // the copies made reading it, and its tree
	}
	d.published, d.publishedFinal = d.version, true
	s.conn.Notify(context.Background(), "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{
		URI: d.uri, Version: uint32(d.version), Diagnostics: []protocol.Diagnostic{{
			Severity: protocol.DiagnosticSeverityError, Source: "capsulang", Message: msg,
		}},
	})
}

// notAnalysed is the error of a request about a large document.
func (s *Server) notAnalysed(d *document) error {
	return rpcError(errRequestFailed, fmt.Sprintf("%s: %s", d.uri, s.tooLarge(d)))
}

// mib words a size in MiB, rounded up to a tenth so that a size over a
// limit never reads as the limit ("16.1 MiB"), whole sizes without the
// tenth ("16 MiB"), and sizes under 1 MiB in bytes.
func mib(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	tenths := (int64(n)*10 + 1<<20 - 1) >> 20
	if tenths%10 == 0 {
		return fmt.Sprintf("%d MiB", tenths/10)
	}
	return fmt.Sprintf("%d.%d MiB", tenths/10, tenths%10)
}

// largeSpan converts a range to a byte span of a text without a line
// index (an index of a large text can take eight bytes a line), by the
// rules of syntax.Mapper.Span.
func largeSpan(text []byte, r syntax.Range, enc syntax.Encoding) (syntax.Span, error) {
	a, err := largeOffset(text, r.Start, enc)
	if err != nil {
		return syntax.Span{}, err
	}
	b, err := largeOffset(text, r.End, enc)
	if err != nil {
		return syntax.Span{}, err
	}
	if b < a {
		return syntax.Span{}, fmt.Errorf("range end %d:%d is before its start %d:%d", r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	return syntax.Span{Start: a, End: b}, nil
}

// largeOffset converts a position to a byte offset of text by the rules of
// syntax.Mapper.Offset: it scans for the line, and converts the character
// within a line index of that line's first bytes only (a character is at
// most four bytes).
func largeOffset(text []byte, p syntax.Position, enc syntax.Encoding) (int, error) {
	start, lines := lineStart(text, p.Line)
	if start < 0 {
		if p.Line == lines && p.Character == 0 {
			return len(text), nil
		}
		return 0, fmt.Errorf("line %d is past the end of the document (%d lines)", p.Line, lines)
	}
	line := text[start : start+lineLength(text[start:])]
	if max := 4*p.Character + 4; p.Character >= 0 && len(line) > max {
		line = line[:max]
	}
	off, err := syntax.NewMapper(line).Offset(syntax.Position{Character: p.Character}, enc)
	return start + off, err
}

// lineStart returns the offset at which line starts in text, or -1 and
// the number of lines when text has fewer. Line breaks are "\n", "\r\n"
// and a lone "\r".
func lineStart(text []byte, line int) (start, lines int) {
	for n := 0; n < line; n++ {
		i := bytes.IndexAny(text[start:], "\r\n")
		if i < 0 {
			return -1, n + 1
		}
		start += i + 1
		if text[start-1] == '\r' && start < len(text) && text[start] == '\n' {
			start++
		}
	}
	return start, 0
}

// lineLength returns the length of the first line of text, without its
// line break.
func lineLength(text []byte) int {
	if i := bytes.IndexAny(text, "\r\n"); i >= 0 {
		return i
	}
	return len(text)
}
