package adapters

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/capsulang/caps/runtime/machine"
)

// maxHTTPBody bounds the response body the HTTP adapter keeps.
const maxHTTPBody = 1 << 20

// httpCall carries out http.call PORT.OP: a request (POST by default) to
// the policy's URL for the port followed by /OP, with the intent's
// arguments as a JSON body and the policy's headers. A 2xx answer is a
// success whose result is the body (JSON, or the text as a JSON string);
// anything else is a failure.
func (x *LiveExecutor) httpCall(ctx context.Context, port, op string, c *machine.Call) machine.Outcome {
	out := machine.Outcome{Adapter: "http"}
	if ok, why := x.Policy.egress(port); !ok {
		out.Code, out.Error = CodeNoAdapter, why
		return out
	}
	var svc *HTTPService
	if x.Policy != nil {
		svc = x.Policy.HTTP[port]
	}
	if svc == nil {
		out.Code, out.Error = CodeNoAdapter, fmt.Sprintf("the host policy configures no HTTP service for port %s", port)
		return out
	}
	method := svc.Method
	if method == "" {
		method = http.MethodPost
	}
	url := strings.TrimSuffix(svc.URL, "/")
	if op != "" {
		url += "/" + op
	}
	out.Operation = method + " " + url
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(Arguments(c)))
	if err != nil {
		out.Error = err.Error()
		return out
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Idempotency-Key", c.IntentID)
	for k, v := range svc.Headers {
		req.Header.Set(k, v)
	}
	resp, err := x.httpClient().Do(req)
	if err != nil {
		peerFailure(&out, "the HTTP service of port "+port, childPath("$.host.http", port)+".url", url, err)
		return out
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody))
	if err != nil {
		out.Error = "reading the response: " + err.Error()
		return out
	}
	if json.Valid(body) && len(bytes.TrimSpace(body)) > 0 {
		out.Result = json.RawMessage(bytes.TrimSpace(body))
	} else if len(body) > 0 {
		out.Result, _ = json.Marshal(string(body))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		out.Code = fmt.Sprintf("R_HTTP_%d", resp.StatusCode)
		out.Error = fmt.Sprintf("HTTP %s", resp.Status)
		return out
	}
	out.OK = true
	return out
}
