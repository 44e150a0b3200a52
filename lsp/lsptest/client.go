// Package lsptest is a scripted LSP client for tests and benchmarks: it
// starts a server process, frames JSON-RPC over its stdio, matches
// responses to requests and queues notifications.
package lsptest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Message is one JSON-RPC message from the server.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Client talks to one server.
type Client struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	wmu sync.Mutex

	mu      sync.Mutex
	cond    *sync.Cond
	nextID  int
	pending map[string]chan *Message
	notes   []*Message
	readErr error
	// Timeout bounds each wait.
	Timeout time.Duration
}

// Start runs the server command and connects to it.
func Start(name string, args ...string) (*Client, error) {
	cmd := exec.Command(name, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := New(out, in)
	c.cmd = cmd
	return c, nil
}

// New connects to a server over r (its output) and w (its input).
func New(r io.Reader, w io.WriteCloser) *Client {
	c := &Client{in: w, pending: map[string]chan *Message{}, Timeout: 10 * time.Second}
	c.cond = sync.NewCond(&c.mu)
	go c.read(bufio.NewReader(r))
	return c
}

func (c *Client) read(r *bufio.Reader) {
	for {
		msg, err := readMessage(r)
		c.mu.Lock()
		if err != nil {
			c.readErr = err
			for _, ch := range c.pending {
				close(ch)
			}
			c.pending = map[string]chan *Message{}
			c.cond.Broadcast()
			c.mu.Unlock()
			return
		}
		if msg.Method != "" && len(msg.ID) > 0 {
			// a request from the server: answer it (null result) and queue
			// it so tests can look at it
			go c.send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
		}
		if msg.Method == "" {
			if ch, ok := c.pending[string(msg.ID)]; ok {
				delete(c.pending, string(msg.ID))
				ch <- msg
			} else {
				c.notes = append(c.notes, msg) // e.g. an error reply with id null
			}
		} else {
			c.notes = append(c.notes, msg)
		}
		c.cond.Broadcast()
		c.mu.Unlock()
	}
}

func readMessage(r *bufio.Reader) (*Message, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			length, err = strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return nil, err
			}
		}
	}
	if length < 0 {
		return nil, errors.New("message without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	var m Message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("bad message from server: %v: %s", err, body)
	}
	return &m, nil
}

// WriteRaw sends raw bytes (for malformed-input tests).
func (c *Client) WriteRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.in.Write(b)
	return err
}

func (c *Client) send(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.WriteRaw([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)))
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	return c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// Call sends a request and decodes its result into result (if non-nil).
// A JSON-RPC error comes back as *RPCError.
func (c *Client) Call(method string, params, result any) error {
	msg, err := c.CallRaw(method, params)
	if err != nil {
		return err
	}
	if msg.Error != nil {
		return &RPCError{Code: msg.Error.Code, Message: msg.Error.Message}
	}
	if result != nil {
		return json.Unmarshal(msg.Result, result)
	}
	return nil
}

// Go sends a request without waiting; the returned function waits.
func (c *Client) Go(method string, params any) (id int, wait func() (*Message, error)) {
	c.mu.Lock()
	c.nextID++
	id = c.nextID
	ch := make(chan *Message, 1)
	c.pending[strconv.Itoa(id)] = ch
	c.mu.Unlock()
	err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return id, func() (*Message, error) {
		if err != nil {
			return nil, err
		}
		select {
		case m, ok := <-ch:
			if !ok {
				return nil, fmt.Errorf("%s: connection closed: %v", method, c.readErr)
			}
			return m, nil
		case <-time.After(c.Timeout):
			return nil, fmt.Errorf("%s: no response within %v", method, c.Timeout)
		}
	}
}

// CallRaw sends a request and returns the raw response.
func (c *Client) CallRaw(method string, params any) (*Message, error) {
	_, wait := c.Go(method, params)
	return wait()
}

// RPCError is an error response.
type RPCError struct {
	Code    int
	Message string
}

func (e *RPCError) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

// Wait returns (and removes) the first queued notification for which match
// returns true, waiting up to the timeout.
func (c *Client) Wait(method string, match func(params json.RawMessage) bool) (*Message, error) {
	deadline := time.Now().Add(c.Timeout)
	c.mu.Lock()
	defer c.mu.Unlock()
	timer := time.AfterFunc(c.Timeout, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer timer.Stop()
	for {
		for i, m := range c.notes {
			if (method == "" || m.Method == method) && (match == nil || match(m.Params)) {
				c.notes = append(c.notes[:i], c.notes[i+1:]...)
				return m, nil
			}
		}
		if c.readErr != nil {
			return nil, fmt.Errorf("waiting for %s: connection closed: %v", method, c.readErr)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no %s notification within %v", method, c.Timeout)
		}
		c.cond.Wait()
	}
}

// Drain drops queued notifications.
func (c *Client) Drain() {
	c.mu.Lock()
	c.notes = nil
	c.mu.Unlock()
}

// Close ends the session: shutdown, exit, and waits for the process.
func (c *Client) Close() (exitCode int, err error) {
	c.Call("shutdown", nil, nil)
	c.Notify("exit", nil)
	c.in.Close()
	if c.cmd == nil {
		return 0, nil
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil
		}
		return 0, err
	case <-time.After(c.Timeout):
		c.cmd.Process.Kill()
		return -1, errors.New("server did not exit")
	}
}

// Kill stops the server process.
func (c *Client) Kill() {
	if c.cmd != nil && c.cmd.Process != nil {
		c.cmd.Process.Kill()
	}
}

// Pid returns the server process id (0 for an in-process server).
func (c *Client) Pid() int {
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}
