package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// conformancePeers are the peers caps conformance runs live mode against:
// real HTTP servers on the loopback interface, written in Go and started
// in this process, so that the command needs nothing installed. They
// speak what the live adapters speak (runtime/adapters): an A2A agent
// (JSON-RPC binding of A2A 1.0: an agent card, SendMessage, GetTask), an
// A2UI renderer endpoint (JSON Lines posts) and an HTTP service. Each
// counts what it received, which the evidence compares with what the
// ledger says was sent.
type conformancePeers struct {
	a2a, renderer, http *conformancePeer

	mu sync.Mutex
	// skills are the skills the agent card lists.
	skills []string
	// messages counts the A2A SendMessage requests, tasks holds the tasks
	// the agent made (by id), cards counts agent card reads.
	messages, cards int
	tasks           map[string]json.RawMessage
	// uiPosts and uiMessages count the posts and the A2UI messages (JSON
	// Lines) the renderer got; httpCalls the requests of the HTTP service.
	uiPosts, uiMessages, httpCalls int
}

// conformancePeer is one loopback HTTP server.
type conformancePeer struct {
	name string
	url  string
	srv  *http.Server
	ln   net.Listener
}

// close stops the peer: later requests are refused.
func (p *conformancePeer) close() {
	if p != nil && p.srv != nil {
		p.srv.Close()
	}
}

// startConformancePeers starts the three peers; the agent card lists
// skills. On error the peers already started are stopped.
func startConformancePeers(skills []string) (*conformancePeers, error) {
	ps := &conformancePeers{skills: skills, tasks: map[string]json.RawMessage{}}
	var err error
	if ps.a2a, err = startPeer("A2A agent", http.HandlerFunc(ps.serveA2A)); err != nil {
		return nil, err
	}
	if ps.renderer, err = startPeer("A2UI renderer", http.HandlerFunc(ps.serveRenderer)); err != nil {
		ps.close()
		return nil, err
	}
	if ps.http, err = startPeer("HTTP service", http.HandlerFunc(ps.serveHTTP)); err != nil {
		ps.close()
		return nil, err
	}
	return ps, nil
}

func startPeer(name string, h http.Handler) (*conformancePeer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the %s cannot listen on the loopback interface: %w", name, err)
	}
	p := &conformancePeer{name: name, url: "http://" + ln.Addr().String(), ln: ln,
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go p.srv.Serve(ln)
	return p, nil
}

func (ps *conformancePeers) close() {
	for _, p := range []*conformancePeer{ps.a2a, ps.renderer, ps.http} {
		p.close()
	}
}

// counts returns what the peers received so far.
func (ps *conformancePeers) counts() (cards, messages, uiPosts, uiMessages, httpCalls int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.cards, ps.messages, ps.uiPosts, ps.uiMessages, ps.httpCalls
}

// serveA2A is the A2A agent: its card at /.well-known/agent-card.json
// offers one JSON-RPC interface of protocol 1.0 at /a2a and lists the
// skills; SendMessage completes a task at once, whose artifact echoes the
// message's data part; GetTask returns a task it made.
func (ps *conformancePeers) serveA2A(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/.well-known/agent-card.json":
		var skills []map[string]any
		for _, s := range ps.skills {
			skills = append(skills, map[string]any{"id": s, "name": s, "description": "answered by the conformance agent", "tags": []string{"conformance"}})
		}
		ps.mu.Lock()
		ps.cards++
		ps.mu.Unlock()
		peerJSON(w, http.StatusOK, map[string]any{
			"name": "caps conformance agent", "description": "The loopback A2A agent of caps conformance.", "version": "1.0.0",
			"supportedInterfaces": []any{map[string]any{"url": "http://" + r.Host + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
			"capabilities":        map[string]any{}, "defaultInputModes": []string{"application/json"}, "defaultOutputModes": []string{"application/json"},
			"skills": skills,
		})
	case r.Method == http.MethodPost && r.URL.Path == "/a2a":
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ID      string `json:"id"`
				Message struct {
					ContextID string            `json:"contextId"`
					Parts     []json.RawMessage `json:"parts"`
				} `json:"message"`
			} `json:"params"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			peerJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": err.Error()}})
			return
		}
		reply := func(result any) {
			peerJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		}
		ps.mu.Lock()
		defer ps.mu.Unlock()
		switch req.Method {
		case "SendMessage":
			ps.messages++
			id := fmt.Sprintf("task-%d", ps.messages)
			ctxID := req.Params.Message.ContextID
			if ctxID == "" {
				ctxID = "ctx-" + id
			}
			parts := req.Params.Message.Parts
			if parts == nil {
				parts = []json.RawMessage{}
			}
			task, _ := json.Marshal(map[string]any{"id": id, "contextId": ctxID,
				"status":    map[string]any{"state": "TASK_STATE_COMPLETED"},
				"artifacts": []any{map[string]any{"artifactId": "artifact-" + id, "name": "echo", "parts": parts}}})
			ps.tasks[id] = task
			reply(map[string]json.RawMessage{"task": task})
		case "GetTask":
			task, ok := ps.tasks[req.Params.ID]
			if !ok {
				peerJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32001, "message": "task not found: " + req.Params.ID}})
				return
			}
			reply(task)
		default:
			peerJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + req.Method}})
		}
	default:
		http.NotFound(w, r)
	}
}

// serveRenderer is the A2UI renderer endpoint: it takes A2UI messages as
// JSON Lines and counts them.
func (ps *conformancePeers) serveRenderer(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/jsonl" {
		http.Error(w, "POST A2UI messages as JSON Lines", http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		if !json.Valid([]byte(l)) {
			http.Error(w, "not JSON Lines", http.StatusBadRequest)
			return
		}
		n++
	}
	ps.mu.Lock()
	ps.uiPosts++
	ps.uiMessages += n
	ps.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// serveHTTP is the HTTP service: a JSON body in, {"ok": true} out.
func (ps *conformancePeers) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if len(body) > 0 && !json.Valid(body) {
		http.Error(w, "the body is not JSON", http.StatusBadRequest)
		return
	}
	ps.mu.Lock()
	ps.httpCalls++
	ps.mu.Unlock()
	peerJSON(w, http.StatusOK, map[string]any{"ok": true, "path": r.URL.Path})
}

func peerJSON(w http.ResponseWriter, status int, v any) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}
