package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/jsonrpc2"
)

// Requests that exist only in the tests, to reach the error paths of the
// dispatcher that no real handler takes on purpose.
func init() {
	fails := func(err error) requestHandler {
		return func(*Server, json.RawMessage) (func(context.Context) (any, error), error) {
			return func(context.Context) (any, error) { return nil, err }, nil
		}
	}
	requests["test/untyped"] = fails(errors.New("the disk is on fire"))
	requests["test/wrapped"] = fails(fmt.Errorf("loading a.caps: %w", rpcError(errRequestFailed, "the file has errors")))
	requests["test/panic"] = func(*Server, json.RawMessage) (func(context.Context) (any, error), error) {
		return func(context.Context) (any, error) { panic("boom") }, nil
	}
	// test/block waits for its cancellation, then answers nothing (the
	// dispatcher says it was cancelled) or the context's error.
	requests["test/block"] = func(_ *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
		var p struct{ ReturnErr bool }
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		return func(ctx context.Context) (any, error) {
			<-ctx.Done()
			if p.ReturnErr {
				return nil, ctx.Err()
			}
			return nil, nil
		}, nil
	}
}

// TestRPCErrorCodes checks the code and message of each kind of failure,
// as the client reads them: the client's mistakes are InvalidParams, a
// request that cannot succeed now is RequestFailed, the server's own
// failures are InternalError and a cancelled request is RequestCancelled.
func TestRPCErrorCodes(t *testing.T) {
	c := startInProcess(t)
	const u = "file:///tmp/capsulang-errors-test/a.caps"
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1,
		"text": "(module m (capsule \"1.0\")\n\t(😀 x (\n"}})
	at := func(line, char int) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": char}}
	}
	type rpcErr struct {
		Code    int
		Message string
	}
	for _, tc := range []struct {
		name   string
		method string
		params any
		want   rpcErr
	}{
		{"params of the wrong shape", "textDocument/hover", []int{1, 2}, rpcErr{-32602, "invalid params: json: cannot unmarshal array into Go value of type protocol.TextDocumentPositionParams"}},
		{"missing params", "textDocument/hover", nil, rpcErr{-32602, "missing params"}},
		{"a document not open", "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///nowhere.caps"}, "position": map[string]any{"line": 0, "character": 0}}, rpcErr{-32602, "document not open: file:///nowhere.caps"}},
		{"a position past the end", "textDocument/hover", at(7, 0), rpcErr{-32602, "line 7 is past the end of the document (3 lines)"}},
		{"an unknown command", "workspace/executeCommand", map[string]any{"command": "capsulang.nonsense"}, rpcErr{-32602, "unknown command capsulang.nonsense"}},
		{"formatting a file with syntax errors", "textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": u}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}},
			rpcErr{-32803, "cannot format a file with syntax errors: 2:8: missing `)` to close the list opened here (and 2 more errors)"}},
		{"an unknown method", "test/nonsense", map[string]any{}, rpcErr{-32601, "method not supported: test/nonsense"}},
		{"an error with no sentinel", "test/untyped", map[string]any{}, rpcErr{-32603, "the disk is on fire"}},
		{"a wrapped sentinel", "test/wrapped", map[string]any{}, rpcErr{-32803, "loading a.caps: the file has errors"}},
		{"a panic", "test/panic", map[string]any{}, rpcErr{-32603, "internal error in test/panic: boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := c.CallRaw(tc.method, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			if msg.Error == nil {
				t.Fatalf("got result %s, want an error", msg.Result)
			}
			if diff := cmp.Diff(tc.want, rpcErr{msg.Error.Code, msg.Error.Message}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCancelledRequest checks that a cancelled request is answered with
// RequestCancelled (-32800), whether its handler returns nothing or the
// context's error.
func TestCancelledRequest(t *testing.T) {
	c := startInProcess(t)
	for _, tc := range []struct {
		returnErr bool
		message   string
	}{{false, "request cancelled"}, {true, "context canceled"}} {
		id, wait := c.Go("test/block", map[string]any{"ReturnErr": tc.returnErr})
		c.Notify("$/cancelRequest", map[string]any{"id": id})
		msg, err := wait()
		if err != nil {
			t.Fatal(err)
		}
		if msg.Error == nil || msg.Error.Code != -32800 || msg.Error.Message != tc.message {
			t.Errorf("returnErr=%v: got %+v, want error -32800 %q", tc.returnErr, msg.Error, tc.message)
		}
	}
}

// TestAsRPCError checks the mapping from errors to codes: the outermost
// sentinel decides, the message is the error's own text, causes stay
// reachable with errors.Is, and an error with no sentinel is the server's.
func TestAsRPCError(t *testing.T) {
	cause := errors.New("permission denied")
	for _, tc := range []struct {
		name string
		err  error
		code jsonrpc2.Code
		msg  string
	}{
		{"invalid params", rpcError(errInvalidParams, "no function f"), jsonrpc2.InvalidParams, "no function f"},
		{"request failed", rpcError(errRequestFailed, "the file has errors"), -32803, "the file has errors"},
		{"cancelled", rpcError(errRequestCancelled, "request cancelled"), -32800, "request cancelled"},
		{"outermost wins", rpcWrap(errRequestFailed, fmt.Errorf("compiling: %w", rpcError(errInvalidParams, "inner"))), -32803, "compiling: inner"},
		{"wrapped in fmt.Errorf", fmt.Errorf("hover: %w", rpcError(errInvalidParams, "bad position")), jsonrpc2.InvalidParams, "hover: bad position"},
		{"untyped", cause, jsonrpc2.InternalError, "permission denied"},
		{"context cancelled", fmt.Errorf("loading: %w", context.Canceled), -32800, "loading: context canceled"},
		{"deadline", context.DeadlineExceeded, jsonrpc2.InternalError, "context deadline exceeded"},
		{"a jsonrpc2 error", &jsonrpc2.Error{Code: jsonrpc2.ServerNotInitialized, Message: "not yet"}, jsonrpc2.ServerNotInitialized, "not yet"},
	} {
		got := asRPCError(tc.err)
		if got.Code != tc.code || got.Message != tc.msg {
			t.Errorf("%s: got %d %q, want %d %q", tc.name, got.Code, got.Message, tc.code, tc.msg)
		}
	}
	err := rpcWrap(errRequestFailed, fmt.Errorf("writing out: %w", cause))
	if !errors.Is(err, errRequestFailed) || !errors.Is(err, cause) || errors.Is(err, errInvalidParams) {
		t.Errorf("errors.Is does not see the sentinel and only it, and the cause, in %v", err)
	}
}

// TestIDKey checks that requests are told apart by their IDs, as
// $/cancelRequest names them.
func TestIDKey(t *testing.T) {
	for _, tc := range []struct {
		id   jsonrpc2.ID
		want string
	}{{jsonrpc2.NewNumberID(7), "7"}, {jsonrpc2.NewStringID("a7"), `"a7"`}} {
		if got := idKey(tc.id); got != tc.want {
			t.Errorf("idKey(%v) = %s, want %s", tc.id, got, tc.want)
		}
	}
}
