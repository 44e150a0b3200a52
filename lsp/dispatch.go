package lsp

// This file dispatches JSON-RPC messages to the notification and request
// handlers and turns their failures into protocol errors.

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// notificationHandler handles a notification in order, on the reading
// goroutine.
type notificationHandler func(s *Server, params json.RawMessage) error

// requestHandler parses a request and captures what it needs (snapshots)
// synchronously; the returned function runs on its own goroutine.
type requestHandler func(s *Server, params json.RawMessage) (func(ctx context.Context) (any, error), error)

var (
	notifications = map[string]notificationHandler{}
	requests      = map[string]requestHandler{}
)

func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic in %s: %v\n%s", req.Method(), r, debug.Stack())
			if _, ok := req.(*jsonrpc2.Call); ok {
				err = reply(ctx, nil, asRPCError(rpcError(errInternal, fmt.Sprintf("internal error in %s: %v", req.Method(), r))))
			}
			err = nil
		}
	}()
	call, isCall := req.(*jsonrpc2.Call)
	if !isCall {
		return s.handleNotification(req)
	}
	method := req.Method()
	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	s.mu.Unlock()
	switch {
	case method == "initialize":
	case !initialized:
		return reply(ctx, nil, asRPCError(rpcError(errServerNotInitialized, "the server is not initialized; send initialize first")))
	case shutdown && method != "shutdown":
		return reply(ctx, nil, asRPCError(rpcError(errInvalidRequest, "the server is shutting down")))
	}
	h, ok := requests[method]
	if ch := s.capsuleRequest(method, req.Params()); ch != nil {
		h, ok = ch, true // a Capsule contract (capsule.go)
	}
	if !ok {
		return reply(ctx, nil, asRPCError(rpcError(errMethodNotFound, "method not supported: "+method)))
	}
	run, err := h(s, req.Params())
	if err != nil {
		return reply(ctx, nil, asRPCError(err))
	}
	id := idKey(call.ID())
	rctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.cancels[id] = cancel
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.cancels, id)
			s.mu.Unlock()
			cancel()
		}()
		res, err := s.runRequest(rctx, method, run)
		if rctx.Err() != nil && err == nil && res == nil {
			err = rpcError(errRequestCancelled, "request cancelled")
		}
		if err != nil {
			reply(ctx, nil, asRPCError(err))
			return
		}
		reply(ctx, res, nil)
	}()
	return nil
}

func (s *Server) runRequest(ctx context.Context, method string, run func(context.Context) (any, error)) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic in %s: %v\n%s", method, r, debug.Stack())
			res, err = nil, rpcError(errInternal, fmt.Sprintf("internal error in %s: %v", method, r))
		}
	}()
	start := time.Now()
	res, err = run(ctx)
	s.log.Printf("%s in %v", method, time.Since(start))
	return res, err
}

// idKey is the key of a request's cancel function: its ID as JSON. ID
// marshals through a pointer (marshaling the value gave "{}" for every
// request, so $/cancelRequest never found one).
func idKey(id jsonrpc2.ID) string {
	b, _ := json.Marshal(&id)
	return string(b)
}

func (s *Server) handleNotification(req jsonrpc2.Request) error {
	method := req.Method()
	switch method {
	case "exit":
		select {
		case <-s.exited:
		default:
			close(s.exited)
		}
		return nil
	case "$/cancelRequest":
		var p struct {
			ID jsonrpc2.ID `json:"id"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			s.mu.Lock()
			if cancel := s.cancels[idKey(p.ID)]; cancel != nil {
				cancel()
			}
			s.mu.Unlock()
		}
		return nil
	}
	s.mu.Lock()
	initialized := s.initialized
	s.mu.Unlock()
	if !initialized {
		return nil // notifications before initialize are dropped
	}
	h, ok := notifications[method]
	if ch := s.capsuleNotification(method, req.Params()); ch != nil {
		h, ok = ch, true // a Capsule contract (capsule.go)
	}
	if !ok {
		if !strings.HasPrefix(method, "$/") {
			s.log.Printf("ignoring notification %s", method)
		}
		return nil
	}
	if err := h(s, req.Params()); err != nil {
		s.log.Printf("%s: %v", method, err)
		s.showMessage(protocol.MessageTypeError, fmt.Sprintf("Capsulang: %s failed: %v", method, err))
	}
	return nil
}

func (s *Server) showMessage(t protocol.MessageType, msg string) {
	s.conn.Notify(context.Background(), "window/showMessage", &protocol.ShowMessageParams{Type: t, Message: msg})
}

func decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return rpcError(errInvalidParams, "missing params")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return rpcWrap(errInvalidParams, fmt.Errorf("invalid params: %w", err))
	}
	return nil
}
