package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/runtime/machine"
)

// MCP resource failure codes.
const (
	// CodeMCPResource: the port's resource has no URI on the server (not
	// mapped in the binding's "resources" and no resource of that name in
	// resources/list).
	CodeMCPResource = "R_MCP_RESOURCE"
	// CodeMCPNoSubscribe: the server does not offer resource subscriptions.
	CodeMCPNoSubscribe = "R_MCP_NO_SUBSCRIBE"
)

// ReadResource reads a resource (resources/read).
func (c *MCPClient) ReadResource(ctx context.Context, uri string) (json.RawMessage, error) {
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	return c.request(ctx, "resources/read", map[string]any{"uri": uri})
}

// Subscribe subscribes to a resource's updates (resources/subscribe).
func (c *MCPClient) Subscribe(ctx context.Context, uri string) (json.RawMessage, error) {
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	return c.request(ctx, "resources/subscribe", map[string]any{"uri": uri})
}

// ListResources returns every resource of resources/list, following the
// pagination cursor.
func (c *MCPClient) ListResources(ctx context.Context) ([]MCPResource, error) {
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	var all []MCPResource
	cursor := ""
	for page := 0; page < 1000; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := c.request(ctx, "resources/list", params)
		if err != nil {
			return nil, err
		}
		var r struct {
			Resources  []MCPResource `json:"resources"`
			NextCursor string        `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return nil, fmt.Errorf("resources/list: %v", err)
		}
		all = append(all, r.Resources...)
		if r.NextCursor == "" {
			return all, nil
		}
		cursor = r.NextCursor
	}
	return all, nil
}

// MCPResource is one entry of resources/list.
type MCPResource struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// canSubscribe reports whether the server's initialize result offers
// resources.subscribe.
func (c *MCPClient) canSubscribe() bool {
	var r struct {
		Capabilities struct {
			Resources *struct {
				Subscribe bool `json:"subscribe"`
			} `json:"resources"`
		} `json:"capabilities"`
	}
	return json.Unmarshal(c.ServerInfo, &r) == nil && r.Capabilities.Resources != nil && r.Capabilities.Resources.Subscribe
}

// mcpClient returns the MCP client of a port (a new one when the last
// one's server did not start or is gone), starting no server yet; on
// failure it fills out.
func (x *LiveExecutor) mcpClient(port string, out *machine.Outcome) *MCPClient {
	if ok, why := x.Policy.egress(port); !ok {
		out.Code, out.Error = CodeNoAdapter, why
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	cl := x.clients[port]
	if cl != nil && cl.down() {
		cl.Close() // a server that did not start or exited: start a new one
		cl = nil
	}
	if cl == nil {
		var srv *MCPServer
		if x.Policy != nil {
			srv = x.Policy.MCP[port]
		}
		if srv == nil {
			out.Code, out.Error = CodeNoAdapter, fmt.Sprintf("the host policy configures no MCP server for port %s", port)
			return nil
		}
		cl = NewMCPClient(srv)
		x.clients[port] = cl
	}
	return cl
}

// mcpResource carries out mcp.read-resource and mcp.subscribe-resource
// PORT.RESOURCE. The resource's URI is the binding's "resources" entry for
// RESOURCE, else the URI of the server's resource named RESOURCE in
// resources/list. mcp.subscribe-resource subscribes (resources/subscribe;
// the server must offer subscriptions) and then reads the resource, so its
// result is the resource's contents when subscribed, like
// mcp.read-resource's.
func (x *LiveExecutor) mcpResource(ctx context.Context, port, resource string, c *machine.Call) machine.Outcome {
	out := machine.Outcome{Adapter: "mcp"}
	cl := x.mcpClient(port, &out)
	if cl == nil {
		return out
	}
	uri := cl.srv.Resources[resource]
	if uri == "" {
		list, err := cl.ListResources(ctx)
		if err != nil {
			mcpFailure(&out, port, err)
			return out
		}
		var names []string
		for _, r := range list {
			if r.Name == resource && uri == "" {
				uri = r.URI
			}
			names = append(names, r.Name)
		}
		if uri == "" {
			sort.Strings(names)
			if len(names) > 12 {
				names = append(names[:12], "...")
			}
			out.Code, out.Error = CodeMCPResource, fmt.Sprintf("port %s: the MCP server has no resource named %s (it lists %s); map it to a URI in the binding: \"resources\": {\"%s\": \"URI\"} under %s",
				port, resource, listOrNone(names), resource, childPath("$.host.mcp", port))
			return out
		}
	}
	if c.Spec.Name == "mcp.subscribe-resource" {
		out.Operation = "resources/subscribe " + uri
		if err := cl.start(ctx); err != nil {
			mcpFailure(&out, port, err)
			return out
		}
		if !cl.canSubscribe() {
			out.Code, out.Error = CodeMCPNoSubscribe, fmt.Sprintf("port %s: the MCP server does not offer resource subscriptions (its capabilities have no resources.subscribe); use mcp.read-resource", port)
			return out
		}
		if _, err := cl.Subscribe(ctx, uri); err != nil {
			mcpFailure(&out, port, err)
			return out
		}
		out.Operation += " + resources/read"
	} else {
		out.Operation = "resources/read " + uri
	}
	res, err := cl.ReadResource(ctx, uri)
	if err != nil {
		mcpFailure(&out, port, err)
		if out.Code == "" && strings.Contains(out.Error, "MCP error") {
			out.Code = CodeMCPResource
		}
		return out
	}
	out.Result, out.OK = res, true
	return out
}

// mcpFailure fills out with an MCP error: R_PEER_DOWN, naming the port and
// the binding to check, when the server did not start or is gone.
func mcpFailure(out *machine.Outcome, port string, err error) {
	var down *MCPDownError
	if errors.As(err, &down) {
		out.Code = CodePeerDown
		out.Error = fmt.Sprintf("the MCP server of port %s is down (%v): check its command in %s of the host section of the host-policy artifact; the next attempt starts it again", port, down.Err, childPath("$.host.mcp", port))
		return
	}
	out.Error = err.Error()
}
