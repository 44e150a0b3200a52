package webui

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/runtime/evolution"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/runtime/session"
	"github.com/capsulang/caps/runtime/session/bridge"
	"github.com/capsulang/caps/syntax"
)

//go:embed static
var static embed.FS

// MaxBody bounds a request body (a delta or a source is far smaller).
const MaxBody = 4 << 20

// Config configures a Server.
type Config struct {
	// Root is the workspace root (see propose.FindRoot).
	Root string
	// Evolution configures the propose → assess → commit workflow (import
	// roots, hooks, clock); the zero value is the defaults.
	Evolution evolution.Options
	// Getenv reads the bridge's OPENAI_* variables; nil means os.Getenv.
	Getenv func(string) string
	// Timeout bounds a model request; 0 means bridge.DefaultTimeout.
	Timeout time.Duration
	// By is who acts when a request names no one; "" means $USER.
	By string
	// Now stamps session steps; nil means time.Now.
	Now func() time.Time
}

// Server is the authoring UI: an http.Handler for the page and its API.
type Server struct {
	cfg   Config
	w     *evolution.Workspace
	store *session.Store
	mux   *http.ServeMux
	// mu serializes the API calls: sessions and the ledger are files, and
	// one person drives the page.
	mu sync.Mutex
}

// New opens the workspace of cfg.Root and returns its server.
func New(cfg Config) (*Server, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = bridge.DefaultTimeout
	}
	if cfg.By == "" {
		cfg.By = os.Getenv("USER")
	}
	w, err := evolution.Open(cfg.Root, cfg.Evolution)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, w: w, store: session.NewStore(w.Analysis())}
	if cfg.Now != nil {
		s.store.Now = cfg.Now
	}
	sub, err := fs.Sub(static, "static")
	if err != nil {
		return nil, err
	}
	m := http.NewServeMux()
	m.Handle("/", noStore(http.FileServerFS(sub)))
	s.route(m, "GET /api/workspace", s.workspace)
	s.route(m, "POST /api/sessions", s.newSession)
	s.route(m, "GET /api/sessions/{id}", s.getSession)
	s.route(m, "POST /api/sessions/{id}/describe", s.describe)
	s.route(m, "POST /api/sessions/{id}/apply", s.apply)
	s.route(m, "POST /api/sessions/{id}/resolve", s.resolve)
	s.route(m, "POST /api/sessions/{id}/dryrun", s.dryRun)
	s.route(m, "POST /api/sessions/{id}/surface", s.surface)
	s.route(m, "POST /api/sessions/{id}/propose", s.propose)
	s.route(m, "POST /api/check", s.check)
	s.route(m, "POST /api/proposals/{id}/assess", s.assess)
	s.route(m, "POST /api/proposals/{id}/commit", s.commit)
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{Status: http.StatusNotFound, Kind: "not-found",
			Msg: fmt.Sprintf("no API %s %s: the API is described in docs/authoring.md", r.Method, r.URL.Path)})
	})
	s.mux = m
	return s, nil
}

// Root returns the workspace root.
func (s *Server) Root() string { return s.w.Root() }

// ServeHTTP serves the page and the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "the page takes GET", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// route registers an API handler: it runs under the lock, and its result
// or error is written as JSON.
func (s *Server) route(m *http.ServeMux, pattern string, h func(r *http.Request) (any, error)) {
	method, path, _ := strings.Cut(pattern, " ")
	m.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{Status: http.StatusMethodNotAllowed, Kind: "method", Msg: fmt.Sprintf("%s %s: this API takes %s", r.Method, r.URL.Path, method)})
	})
	m.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		// A page of another origin may not drive the API: browsers send
		// Origin on cross-origin POSTs, and a JSON body needs a preflight
		// the server never grants.
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			writeError(w, &apiError{Status: http.StatusForbidden, Kind: "origin", Msg: fmt.Sprintf("requests from %s are refused: open the UI at http://%s/", o, r.Host)})
			return
		}
		s.mu.Lock()
		v, err := h(r)
		s.mu.Unlock()
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

// apiError is an error answer: {"error", "kind", ...Extra}.
type apiError struct {
	Status int
	Kind   string
	Msg    string
	Extra  map[string]any
}

func (e *apiError) Error() string { return e.Msg }

func badRequest(format string, args ...any) error {
	return &apiError{Status: http.StatusBadRequest, Kind: "bad-request", Msg: fmt.Sprintf(format, args...)}
}

// classify maps an error of the packages the API calls to an answer.
func classify(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	e := &apiError{Status: http.StatusUnprocessableEntity, Kind: "refused", Msg: err.Error(), Extra: map[string]any{}}
	var se *propose.SchemaError
	var te *session.TamperedError
	var de *session.DescribeError
	var re *evolution.RefusedError
	var nf *session.NotFoundError
	var ie *session.IDError
	var pe *propose.PathError
	switch {
	case errors.As(err, &de):
		e.Kind = "model"
		if de.Attempt != "" {
			e.Extra["attempt"] = de.Attempt
		}
		var be *bridge.Error
		if errors.As(err, &be) {
			e.Extra["model_error"] = be.Kind
		}
		if errors.As(err, &se) {
			e.Extra["problems"] = se.Problems
		}
	case errors.As(err, &se):
		e.Kind = "schema"
		e.Extra["problems"] = se.Problems
	case errors.As(err, &te):
		e.Status, e.Kind = http.StatusConflict, "tampered"
	case errors.As(err, &re):
		e.Status, e.Kind = http.StatusConflict, "refused"
		if re.Assessment != nil {
			e.Extra["verdict"] = re.Assessment.Verdict
			var reasons []propose.Reason
			for _, r := range re.Assessment.Reasons {
				if r.Level != "info" {
					reasons = append(reasons, r)
				}
			}
			e.Extra["reasons"] = orEmpty(reasons)
		}
		e.Extra["unmet"] = orEmpty(re.Unmet)
	case errors.As(err, &nf):
		e.Status, e.Kind = http.StatusNotFound, "not-found"
	case errors.As(err, &ie), errors.As(err, &pe):
		e.Status, e.Kind = http.StatusBadRequest, "bad-request"
	case errors.Is(err, fs.ErrNotExist):
		e.Status, e.Kind = http.StatusNotFound, "not-found"
	}
	if len(e.Extra) == 0 {
		e.Extra = nil
	}
	return e
}

func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

func writeError(w http.ResponseWriter, err error) {
	e := classify(err)
	body := map[string]any{"error": e.Msg, "kind": e.Kind}
	for k, v := range e.Extra {
		body[k] = v
	}
	writeJSON(w, e.Status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		b.Reset()
		fmt.Fprintf(&b, "{\"error\": %q, \"kind\": \"internal\"}\n", err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// decode reads a request's JSON body into v: one object, no unknown
// fields, at most MaxBody bytes.
func decode(r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && ct != "application/json" && !bytes.HasPrefix([]byte(ct), []byte("application/json;")) {
		return badRequest("the request body must be JSON (Content-Type: application/json), not %s", ct)
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		return badRequest("reading the request: %v", err)
	}
	if len(b) > MaxBody {
		return badRequest("the request body is larger than %d MB", MaxBody>>20)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		b = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("the request body is not the JSON object this API takes: %v", err)
	}
	if dec.More() {
		return badRequest("the request body holds more than one JSON value")
	}
	return nil
}

// by returns who acts: the request's name, or the server's default.
func (s *Server) by(name string) string {
	if name != "" {
		return name
	}
	return s.cfg.By
}

// loader returns a fresh loader: every check reads the files as they are.
func (s *Server) loader() *load.Loader {
	return &load.Loader{Roots: s.cfg.Evolution.ImportRoots}
}

// Diagnostic is a diagnostic as the API reports it: its range in UTF-16
// code units, as in the language server and JavaScript strings.
type Diagnostic struct {
	Code       string       `json:"code,omitempty"`
	Severity   string       `json:"severity"`
	Message    string       `json:"message"`
	Range      syntax.Range `json:"range"`
	Suggestion string       `json:"suggestion,omitempty"`
}

// checked is a source checked as its target file, with the diagnostics
// of the language server: the checker's, plus the examples' when the
// checker found no errors.
type checked struct {
	pkg         *load.Package
	Diagnostics []Diagnostic `json:"diagnostics"`
	Errors      int          `json:"errors"`
	Warnings    int          `json:"warnings"`
	Hash        string       `json:"semantic_hash"`
}

func (s *Server) checkSource(abs string, src []byte) *checked {
	pkg := s.loader().LoadSource(abs, src)
	ds := append([]syntax.Diagnostic(nil), pkg.Result.Diagnostics...)
	if !pkg.Result.HasErrors() {
		ds = append(ds, examples.Diagnostics(examples.Evaluate(pkg.Result))...)
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Span.Start < ds[j].Span.Start })
	lines := pkg.File.Source.CST.Lines
	if lines == nil {
		lines = syntax.NewMapper(src)
	}
	c := &checked{pkg: pkg, Diagnostics: []Diagnostic{}, Hash: pkg.Hash}
	for _, d := range ds {
		c.Diagnostics = append(c.Diagnostics, Diagnostic{Code: d.Code, Severity: d.Severity.String(), Message: d.Message,
			Range: lines.Range(d.Span, syntax.UTF16), Suggestion: d.Suggestion})
		switch d.Severity {
		case syntax.Error:
			c.Errors++
		case syntax.Warning:
			c.Warnings++
		}
	}
	return c
}

// targetAbs resolves a target given relative to the workspace root.
func (s *Server) targetAbs(target string) string {
	if filepath.IsAbs(target) {
		return target
	}
	return filepath.Join(s.w.Root(), filepath.FromSlash(target))
}
