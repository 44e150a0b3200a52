// Package syntax turns Capsulang source text into concrete syntax trees.
//
// It owns the parts of the front end that know about bytes: source text and
// its position mapper (Mapper: byte offsets inside; LSP positions in UTF-8,
// UTF-16 or UTF-32 code units, and the line:column of text output,
// outside), the tree-sitter parser and incremental
// documents, and the Diagnostic type shared by every later stage. A batch
// parse (Parse) of text without syntax errors skips tree-sitter: a scanner
// builds the same CST in one pass and a fraction of the memory (scan.go).
// An edit to a Document rescans only the list around it and shares the
// rest of the tree, and of the line index, with the version before
// (piece.go). The typed AST lives in package syntax/ast and the formatter
// in syntax/format.
//
// Offsets are byte offsets into the source; a Span is half-open [Start, End).
package syntax
