package lsp

// This file holds the server's JSON-RPC errors. A request handler says
// what went wrong by wrapping one of the sentinel errors below; asRPCError
// turns the error into the reply's code and message. The sentinel decides
// whose fault the client is told it is: InvalidParams blames the request,
// RequestFailed says the request was fine but cannot succeed now (the file
// has errors, the workspace refuses), and an error that wraps no sentinel
// is the server's own failure, InternalError.

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codeRequestFailed is the LSP's RequestFailed (3.17), which go.lsp.dev's
// protocol package does not name.
const codeRequestFailed jsonrpc2.Code = -32803

// The sentinel errors, one per JSON-RPC code the server replies with.
var (
	errInvalidRequest       = errors.New("invalid request")
	errMethodNotFound       = errors.New("method not found")
	errInvalidParams        = errors.New("invalid params")
	errInternal             = errors.New("internal error")
	errServerNotInitialized = errors.New("server not initialized")
	errRequestFailed        = errors.New("request failed")
	errRequestCancelled     = errors.New("request cancelled")
)

// rpcCodes maps each sentinel to its code.
var rpcCodes = map[error]jsonrpc2.Code{
	errInvalidRequest:       jsonrpc2.InvalidRequest,
	errMethodNotFound:       jsonrpc2.MethodNotFound,
	errInvalidParams:        jsonrpc2.InvalidParams,
	errInternal:             jsonrpc2.InternalError,
	errServerNotInitialized: jsonrpc2.ServerNotInitialized,
	errRequestFailed:        codeRequestFailed,
	errRequestCancelled:     protocol.CodeRequestCancelled,
}

// codedError wraps a sentinel and an error: its message is the error's
// alone (the client reads "document not open: ...", not the sentinel's
// name), and errors.Is finds both the sentinel and the error's causes.
type codedError struct {
	sentinel error
	err      error
}

func (e *codedError) Error() string   { return e.err.Error() }
func (e *codedError) Unwrap() []error { return []error{e.sentinel, e.err} }

// rpcError is an error with message msg that wraps sentinel.
func rpcError(sentinel error, msg string) error {
	return &codedError{sentinel, errors.New(msg)}
}

// rpcWrap wraps err, keeping its message and causes, with sentinel.
func rpcWrap(sentinel, err error) error {
	return &codedError{sentinel, err}
}

// asRPCError converts a handler's error to the reply's: the code of the
// outermost sentinel it wraps, RequestCancelled for a context's
// cancellation, InternalError for anything else; the message is the
// error's. A *jsonrpc2.Error passes through as it is.
func asRPCError(err error) *jsonrpc2.Error {
	if code, ok := rpcCode(err); ok {
		return &jsonrpc2.Error{Code: code, Message: err.Error()}
	}
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) {
		return &jsonrpc2.Error{Code: protocol.CodeRequestCancelled, Message: err.Error()}
	}
	return &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: err.Error()}
}

// rpcCode finds the outermost sentinel in err's tree, depth first in the
// order errors.Is searches.
func rpcCode(err error) (jsonrpc2.Code, bool) {
	if err == nil {
		return 0, false
	}
	for sentinel, code := range rpcCodes {
		if err == sentinel { // not a map lookup: err may not be comparable
			return code, true
		}
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return rpcCode(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if code, ok := rpcCode(e); ok {
				return code, true
			}
		}
	}
	return 0, false
}
