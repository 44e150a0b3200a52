package adapters

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MCPProtocolVersion is the MCP revision the client asks for.
const MCPProtocolVersion = "2025-06-18"

// MCPClient is a minimal MCP client over stdio: it starts the server
// process, speaks JSON-RPC 2.0 in newline-delimited messages, performs
// the initialize handshake on first use, and calls tools. It answers the
// server's own requests (ping with an empty result, anything else with
// "method not found") and ignores notifications. It is safe for
// concurrent use.
type MCPClient struct {
	srv *MCPServer

	startOnce sync.Once
	startErr  error
	failed    atomic.Bool // set when the start failed
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	stderr    *tailBuffer
	wmu       sync.Mutex // serializes writes

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan rpcResponse
	dead    error // set when the connection is gone
	done    chan struct{}
	exited  chan struct{} // closed when the process has exited

	// ServerInfo is the server's initialize result.
	ServerInfo json.RawMessage
}

type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type rpcResponse struct {
	result json.RawMessage
	err    error
}

// NewMCPClient returns a client for the server; the process starts on the
// first call.
func NewMCPClient(srv *MCPServer) *MCPClient {
	return &MCPClient{srv: srv, pending: map[int64]chan rpcResponse{}, done: make(chan struct{}), exited: make(chan struct{})}
}

// MCPDownError is the error of an MCP server that could not be started
// (or did not complete initialize) or that closed the connection.
type MCPDownError struct{ Err error }

func (e *MCPDownError) Error() string { return e.Err.Error() }
func (e *MCPDownError) Unwrap() error { return e.Err }

// down reports whether the client's server failed to start or is gone, so
// that the executor starts a new one.
func (c *MCPClient) down() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed.Load() || c.dead != nil
}

func (c *MCPClient) start(ctx context.Context) error {
	c.startOnce.Do(c.doStart(ctx))
	if c.startErr != nil {
		return &MCPDownError{c.startErr}
	}
	return nil
}

func (c *MCPClient) doStart(ctx context.Context) func() {
	return func() {
		defer func() { c.failed.Store(c.startErr != nil) }()
		cmd := exec.Command(c.srv.Command[0], c.srv.Command[1:]...)
		cmd.Dir = c.srv.Dir
		cmd.Env = serverEnv(c.srv)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			c.startErr = err
			return
		}
		// The server's stdout is a pipe of our own (not StdoutPipe), so
		// that waiting for the process, which finishes copying its
		// stderr, does not close it under readLoop.
		stdout, stdoutW, err := os.Pipe()
		if err != nil {
			c.startErr = err
			return
		}
		cmd.Stdout = stdoutW
		c.stderr = &tailBuffer{max: 4096}
		cmd.Stderr = c.stderr
		err = cmd.Start()
		stdoutW.Close() // the child has its copy
		if err != nil {
			stdout.Close()
			c.startErr = fmt.Errorf("starting the MCP server %s: %v", strings.Join(c.srv.Command, " "), err)
			return
		}
		c.cmd, c.stdin = cmd, stdin
		go func() { cmd.Wait(); close(c.exited) }()
		go func() { c.readLoop(stdout); stdout.Close() }()
		init := map[string]any{
			"protocolVersion": MCPProtocolVersion,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]any{"name": "caps", "version": "0.1.0"},
		}
		res, err := c.request(ctx, "initialize", init)
		if err != nil {
			c.startErr = fmt.Errorf("MCP initialize: %v", err)
			return
		}
		c.ServerInfo = res
		if err := c.notify("notifications/initialized", nil); err != nil {
			c.startErr = fmt.Errorf("MCP initialized: %v", err)
		}
	}
}

// serverEnv is the environment of an MCP server process: the host's
// environment plus the server's env, or, for an isolated server
// ((secrets ambient-deny)), its env alone, sorted.
func serverEnv(srv *MCPServer) []string {
	var env []string
	if !srv.Isolated {
		env = os.Environ()
	}
	names := make([]string, 0, len(srv.Env))
	for k := range srv.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		env = append(env, k+"="+srv.Env[k])
	}
	if env == nil {
		env = []string{} // an empty environment, not the host's (exec.Cmd reads nil as the host's)
	}
	return env
}

func (c *MCPClient) readLoop(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m rpcMessage
		if json.Unmarshal(line, &m) != nil {
			continue // not JSON-RPC (a server logging to stdout)
		}
		switch {
		case m.Method != "" && len(m.ID) > 0: // a request from the server
			reply := rpcMessage{JSONRPC: "2.0", ID: m.ID}
			if m.Method == "ping" {
				reply.Result = json.RawMessage("{}")
			} else {
				reply.Error = &rpcError{Code: -32601, Message: "method not found: " + m.Method}
			}
			c.write(reply)
		case m.Method != "": // a notification
		default:
			var id int64
			if json.Unmarshal(m.ID, &id) != nil {
				continue
			}
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch == nil {
				continue
			}
			if m.Error != nil {
				ch <- rpcResponse{err: fmt.Errorf("MCP error %d: %s", m.Error.Code, m.Error.Message)}
			} else {
				ch <- rpcResponse{result: m.Result}
			}
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	// The process is probably exiting: give it a moment, so that its
	// stderr, which Wait finishes copying, is in the message.
	select {
	case <-c.exited:
	case <-time.After(500 * time.Millisecond):
	}
	c.mu.Lock()
	c.dead = fmt.Errorf("the MCP server closed the connection (%v)%s", err, c.stderr.suffix())
	for id, ch := range c.pending {
		ch <- rpcResponse{err: &MCPDownError{c.dead}}
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}

func (c *MCPClient) write(m rpcMessage) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.stdin.Write(append(b, '\n'))
	return err
}

func (c *MCPClient) notify(method string, params any) error {
	m := rpcMessage{JSONRPC: "2.0", Method: method}
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return err
		}
		m.Params = p
	}
	return c.write(m)
}

func (c *MCPClient) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	ch := make(chan rpcResponse, 1)
	c.mu.Lock()
	if c.dead != nil {
		c.mu.Unlock()
		return nil, &MCPDownError{c.dead}
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(rpcMessage{JSONRPC: "2.0", ID: json.RawMessage(fmt.Sprint(id)), Method: method, Params: p}); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		// The server is probably gone: say so, with its stderr, once the
		// read loop has seen the end.
		select {
		case <-c.done:
			c.mu.Lock()
			dead := c.dead
			c.mu.Unlock()
			return nil, &MCPDownError{dead}
		case <-time.After(time.Second):
		}
		return nil, fmt.Errorf("writing to the MCP server: %v", err)
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": ctx.Err().Error()})
		return nil, fmt.Errorf("%s: %v", method, ctx.Err())
	}
}

// CallTool calls a tool with JSON arguments and returns the result.
func (c *MCPClient) CallTool(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return c.request(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
}

// ListTools returns the server's tools/list result.
func (c *MCPClient) ListTools(ctx context.Context) (json.RawMessage, error) {
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	return c.request(ctx, "tools/list", map[string]any{})
}

// Close ends the session: it closes the server's stdin, waits up to two
// seconds for it to exit, then kills it.
func (c *MCPClient) Close() error {
	if c.cmd == nil {
		return nil
	}
	c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(2 * time.Second):
		c.cmd.Process.Kill()
		<-c.exited
	}
	<-c.done
	return nil
}

// tailBuffer keeps the last max bytes written to it (a server's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) suffix() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	return "; its stderr ends: " + s
}
