package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// MaxMessageSize bounds one JSON-RPC message body.
const MaxMessageSize = 64 << 20

// stream frames JSON-RPC messages with Content-Length headers. Unlike the
// stock jsonrpc2 stream it survives bad input: a body that is not valid
// JSON-RPC is answered with a parse error (id null) and skipped, the rest
// of a body longer than its Content-Length is skipped up to the next
// Content-Length header, an oversized body is drained and refused, and
// only the end of the input (or a broken header stream) ends the
// connection.
type stream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer

	wmu sync.Mutex
	// onBadMessage is told about messages that could not be decoded.
	onBadMessage func(err error)
	// onMessage, when set, is told about every message read ("<-") and
	// written ("->") with its body.
	onMessage func(dir string, body []byte)
}

func newStream(r io.Reader, w io.Writer, c io.Closer) *stream {
	return &stream{in: bufio.NewReaderSize(r, 64<<10), out: w, c: c}
}

// Read returns the next decodable message.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		if err != nil {
			return nil, n, err
		}
		if body == nil {
			continue // a refused frame, already answered
		}
		if s.onMessage != nil {
			s.onMessage("<-", body)
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		code, text := jsonrpc2.ParseError, "parse error: "+err.Error()
		var probe map[string]json.RawMessage
		if json.Unmarshal(body, &probe) == nil {
			code, text = jsonrpc2.InvalidRequest, "invalid request: "+err.Error()
		}
		s.replyError(rawID(body), code, text)
		if s.onBadMessage != nil {
			s.onBadMessage(err)
		}
	}
}

// rawID extracts a request id from an undecodable message, if it has one.
func rawID(body []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &probe) == nil && len(probe.ID) > 0 {
		var n json.Number
		var str string
		if json.Unmarshal(probe.ID, &n) == nil || json.Unmarshal(probe.ID, &str) == nil {
			return probe.ID
		}
	}
	return json.RawMessage("null")
}

// readFrame reads one header block and body. A nil body with a nil error
// means the frame was refused and answered.
func (s *stream) readFrame() ([]byte, int64, error) {
	var total int64
	length := int64(-1)
	for {
		line, err := s.in.ReadString('\n')
		total += int64(len(line))
		if err != nil {
			if err == io.EOF && total == 0 {
				return nil, total, io.EOF
			}
			return nil, total, fmt.Errorf("reading message header: %w", err)
		}
		line = resync(strings.TrimRight(line, "\r\n"))
		if line == "" {
			if length >= 0 {
				break
			}
			continue // stray blank line between messages
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue // not a header line; keep scanning for one
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				s.replyError(json.RawMessage("null"), jsonrpc2.ParseError, "bad Content-Length header "+strconvQuote(value))
				length = -1
				continue
			}
			length = n
		}
	}
	if length > MaxMessageSize {
		if _, err := io.CopyN(io.Discard, s.in, length); err != nil {
			return nil, total, fmt.Errorf("draining oversized message: %w", err)
		}
		s.replyError(json.RawMessage("null"), jsonrpc2.InvalidRequest, fmt.Sprintf("message of %d bytes is larger than the %d-byte limit", length, MaxMessageSize))
		return nil, total + length, nil
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, total, fmt.Errorf("reading message body: %w", err)
	}
	return body, total + length, nil
}

// contentLength is the header every frame has, in lower case.
const contentLength = "content-length:"

// resync returns the header in a header line. The rest of a body whose
// Content-Length was too short runs into the next frame's first header
// line; what comes before the last Content-Length header in a line is
// that leftover, and dropping it resynchronises the stream on the next
// frame instead of skipping every frame up to a stray blank line.
func resync(line string) string {
	for i := len(line) - len(contentLength); i > 0; i-- {
		if asciiEqualFold(line[i:i+len(contentLength)], contentLength) {
			return line[i:]
		}
	}
	return line
}

// asciiEqualFold reports whether s equals the lower-case ASCII text lower,
// ignoring the case of ASCII letters only.
func asciiEqualFold(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func strconvQuote(s string) string { return strconv.Quote(strings.TrimSpace(s)) }

func (s *stream) replyError(id json.RawMessage, code jsonrpc2.Code, msg string) {
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int32  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int32  `json:"code"`
		Message string `json:"message"`
	}{int32(code), msg}})
	s.writeBody(body)
}

func (s *stream) writeBody(body []byte) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.onMessage != nil {
		s.onMessage("->", body)
	}
	n, err := fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n", len(body))
	if err != nil {
		return int64(n), err
	}
	m, err := s.out.Write(body)
	return int64(n + m), err
}

// Write sends a message.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshaling message: %w", err)
	}
	return s.writeBody(body)
}

// Close closes the underlying connection.
func (s *stream) Close() error {
	if s.c != nil {
		return s.c.Close()
	}
	return nil
}

// messageSummary describes a JSON-RPC body in one line for the message
// log: its kind, method, id and size, and a response's error.
func messageSummary(body []byte) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return fmt.Sprintf("undecodable message (%d bytes)", len(body))
	}
	id := string(m.ID)
	switch {
	case m.Method != "" && id != "":
		return fmt.Sprintf("request %s #%s (%d bytes)", m.Method, id, len(body))
	case m.Method != "":
		return fmt.Sprintf("notification %s (%d bytes)", m.Method, len(body))
	case m.Error != nil:
		return fmt.Sprintf("response #%s error %d: %s (%d bytes)", id, m.Error.Code, m.Error.Message, len(body))
	default:
		return fmt.Sprintf("response #%s (%d bytes)", id, len(body))
	}
}
