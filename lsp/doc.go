// Package lsp implements the Capsulang language server (`caps lsp`).
//
// The server speaks JSON-RPC over a byte stream (stdio). Notifications are
// applied in arrival order on the reading goroutine; each request takes an
// immutable snapshot of the documents it needs before it is handed to its
// own goroutine, so a slow request never delays edits or diagnostics, and
// nothing computed for an old version is ever published. Every handler
// runs under panic recovery: a bug answers one request with an error and
// the server keeps serving.
//
// Positions are converted at the edge: inside the server everything is a
// byte offset (syntax.Span); the negotiated position encoding (UTF-16 by
// default, UTF-8 or UTF-32 when the client offers them) is applied only when
// reading or writing protocol messages.
package lsp
