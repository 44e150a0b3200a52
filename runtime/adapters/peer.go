package adapters

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"

	"github.com/capsulang/caps/runtime/machine"
)

// peerDown reports whether err says the peer cannot be reached at all:
// the connection was refused or reset, the host does not resolve or is
// unreachable. A timeout is not "down" (the attempt's deadline decides).
func peerDown(err error) bool {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	for _, e := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EHOSTUNREACH, syscall.ENETUNREACH, io.EOF, io.ErrUnexpectedEOF} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// peerFailure fills out with the failure of a request to a peer: R_PEER_DOWN
// when it cannot be reached (naming the peer, its address and the host
// section's binding to fix), otherwise the error as it is (the runtime
// classifies timeouts and cancellations).
func peerFailure(out *machine.Outcome, what, binding, addr string, err error) {
	var ue *url.Error
	cause := err
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	if peerDown(err) {
		out.Code = CodePeerDown
		out.Error = fmt.Sprintf("%s at %s is down (%v): start it, or fix %s in the host section of the host-policy artifact", what, addr, cause, binding)
		return
	}
	out.Error = fmt.Sprintf("%s at %s: %v", what, addr, cause)
}

// postJSON sends body to url with the headers and returns the status and
// the body of the answer (at most maxHTTPBody bytes).
func postJSON(ctx context.Context, client *http.Client, method, url, contentType string, body []byte, headers map[string]string) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("reading the answer: %w", err)
	}
	return resp.StatusCode, data, nil
}
