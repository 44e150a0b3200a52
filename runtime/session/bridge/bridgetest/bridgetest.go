// Package bridgetest runs a loopback server that speaks the
// chat-completions API and replays recorded responses, for the tests of
// the LLM bridge and of the commands that use it. No outside model is
// reached.
//
// The base URL of recording NAME is URL/NAME/v1: a POST to
// URL/NAME/v1/chat/completions answers with the file NAME.json of the
// recordings folder. Two names are special: "slow" answers only after
// Delay (or when the client gives up), and "error" answers 500 with an
// OpenAI-style error body.
package bridgetest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is a request the server received.
type Request struct {
	Path          string
	Authorization string
	Body          []byte
}

// Server is a running fake model server.
type Server struct {
	URL string
	// Delay is how long "slow" waits (default 10 s).
	Delay time.Duration

	mu       sync.Mutex
	requests []Request
}

var nameRE = regexp.MustCompile(`^/([a-z0-9-]+)/v1/chat/completions$`)

// Start starts a server replaying the recordings in dir; it stops when the
// test ends.
func Start(t testing.TB, dir string) *Server {
	t.Helper()
	s := &Server{Delay: 10 * time.Second}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, Request{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Body: body})
		s.mu.Unlock()
		m := nameRE.FindStringSubmatch(r.URL.Path)
		if r.Method != http.MethodPost || m == nil {
			http.Error(w, `{"error": {"message": "not found"}}`, http.StatusNotFound)
			return
		}
		if !json.Valid(body) || !strings.Contains(r.Header.Get("Content-Type"), "application/json") {
			http.Error(w, `{"error": {"message": "the request is not JSON"}}`, http.StatusBadRequest)
			return
		}
		switch m[1] {
		case "slow":
			select {
			case <-time.After(s.Delay):
			case <-r.Context().Done():
				return
			}
		case "error":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error": {"message": "the model is overloaded", "type": "server_error"}}`)
			return
		}
		b, err := os.ReadFile(filepath.Join(dir, m[1]+".json"))
		if err != nil {
			http.Error(w, `{"error": {"message": "no such recording"}}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// Base returns the base URL (OPENAI_BASE_URL) of a recording.
func (s *Server) Base(name string) string { return s.URL + "/" + name + "/v1" }

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}
