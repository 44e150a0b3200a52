package verify

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capsulang/caps/internal/toolpath"
)

// ErrNoSolver is returned (wrapped) when the z3 executable cannot be found.
var ErrNoSolver = errors.New("the Z3 SMT solver is not installed: install the Debian package `z3` (apt-get install z3), or put a z3 executable on PATH")

// Solver runs Z3 on SMT-LIB2 scripts, one process per query, reading the
// script from stdin.
type Solver struct {
	// Path is the z3 executable.
	Path string
	// Timeout bounds each query. A query that runs out of time is
	// reported as unknown with reason "timeout".
	Timeout time.Duration
	// Alone is how long a query runs over bit-vectors alone before the
	// integer encoding is started beside it (0 means one second). Set it
	// to Timeout for reproducible counterexamples: which encoding answers
	// first depends on the machine's load, and their models may differ.
	Alone time.Duration

	// intsOnly puts every query over the integers alone (tests).
	intsOnly bool

	versionOnce sync.Once
	version     string
}

// DefaultTimeout is the time each obligation gets by default.
const DefaultTimeout = 10 * time.Second

// FindSolver finds the solver: the program the environment variable Z3
// names (as caps doctor reads it), else z3 on PATH.
func FindSolver() (*Solver, error) {
	p := toolpath.Look("Z3", "z3")
	if p == "" {
		return nil, ErrNoSolver
	}
	return &Solver{Path: p, Timeout: DefaultTimeout}, nil
}

// Version returns the solver's version line, such as "Z3 version 4.8.12 -
// 64 bit", or "" if it cannot be read.
func (s *Solver) Version() string {
	s.versionOnce.Do(func() {
		out, err := exec.Command(s.Path, "--version").Output()
		if err == nil {
			s.version = strings.TrimSpace(string(out))
		}
	})
	return s.version
}

// answer is the solver's verdict on one query.
type answer struct {
	status string          // "sat", "unsat" or "unknown"
	reason string          // for unknown: why (timeout, incomplete...)
	model  map[string]sexp // for sat: the values of the requested terms, by SMT name without |quotes|
}

// session is one running z3 process that answers queries one after the
// other, so that the process starts once per worker rather than once per
// obligation.
type session struct {
	s     *Solver
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	errb  *bytes.Buffer
	n     int
	dead  bool
	lines chan string
}

func (s *Solver) start() (*session, error) {
	cmd := exec.Command(s.Path, "-in", "-smt2")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start z3: %w", err)
	}
	ss := &session{s: s, cmd: cmd, in: in, out: bufio.NewReader(out), errb: &errb, lines: make(chan string, 64)}
	go func() {
		for {
			line, err := ss.out.ReadString('\n')
			if line != "" {
				ss.lines <- strings.TrimRight(line, "\r\n")
			}
			if err != nil {
				close(ss.lines)
				return
			}
		}
	}()
	return ss, nil
}

func (s *Solver) timeout() time.Duration {
	if s.Timeout <= 0 {
		return DefaultTimeout
	}
	return s.Timeout
}

func (ss *session) close() {
	if ss.dead {
		return
	}
	ss.dead = true
	ss.in.Close()
	done := make(chan struct{})
	go func() { ss.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		ss.cmd.Process.Kill()
		<-done
	}
}

func (ss *session) kill() {
	if ss.dead {
		return
	}
	ss.dead = true
	ss.cmd.Process.Kill()
	ss.in.Close()
	ss.cmd.Wait()
}

// send writes commands and a marker, then returns the output up to the
// marker. A solver that says nothing before the deadline is killed.
func (ss *session) send(ctx context.Context, cmds string, deadline time.Duration) (string, error) {
	ss.n++
	mark := fmt.Sprintf("@@caps-%d", ss.n)
	if _, err := io.WriteString(ss.in, cmds+"(echo \""+mark+"\")\n"); err != nil {
		return "", fmt.Errorf("z3 stopped: %v %s", err, strings.TrimSpace(ss.errb.String()))
	}
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	var out strings.Builder
	for {
		select {
		case line, ok := <-ss.lines:
			if !ok {
				return "", fmt.Errorf("z3 stopped unexpectedly: %s", strings.TrimSpace(ss.errb.String()+" "+out.String()))
			}
			if line == mark {
				return out.String(), nil
			}
			out.WriteString(line)
			out.WriteByte('\n')
		case <-timer.C:
			ss.kill()
			return "", errTimeout
		case <-ctx.Done():
			ss.kill()
			return "", ctx.Err()
		}
	}
}

var errTimeout = errors.New("timeout")

// check puts one query (declarations and assertions) to the session and
// asks for the values of terms when it is satisfiable.
func (ss *session) check(ctx context.Context, script string, terms []string, timeout time.Duration) (*answer, error) {
	grace := timeout + 3*time.Second
	// Each query starts from (reset) rather than (push): Z3 answers a
	// fresh, non-incremental problem with its much faster bit-vector
	// tactics. reset also clears the options.
	ms := timeout.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	opts := fmt.Sprintf("(reset)\n(set-option :produce-models true)\n(set-option :timeout %d)\n", ms)
	out, err := ss.send(ctx, opts+script+"(check-sat)\n", grace)
	if err == errTimeout {
		return &answer{status: "unknown", reason: "timeout"}, nil
	}
	if err != nil {
		return nil, err
	}
	forms, perr := parseSexps(out)
	if perr != nil {
		return nil, fmt.Errorf("z3 printed an answer that cannot be read: %q", clipText(out))
	}
	a := &answer{}
	for _, f := range forms {
		if len(f.list) > 0 && f.list[0].atom == "error" {
			msg := ""
			if len(f.list) > 1 {
				msg = f.list[1].atom
			}
			return nil, fmt.Errorf("z3 rejected the query: %s", msg)
		}
		switch f.atom {
		case "sat", "unsat", "unknown":
			a.status = f.atom
		}
	}
	if a.status == "" {
		return nil, fmt.Errorf("z3 gave no verdict: %q", clipText(out))
	}
	follow := ""
	switch {
	case a.status == "unknown":
		follow = "(get-info :reason-unknown)\n"
	case a.status == "sat" && len(terms) > 0:
		follow = "(get-value (" + strings.Join(terms, " ") + "))\n"
	}
	if follow != "" {
		out, err := ss.send(ctx, follow, grace)
		if err != nil {
			return nil, err
		}
		forms, perr := parseSexps(out)
		if perr != nil {
			return nil, fmt.Errorf("z3 printed an answer that cannot be read: %q", clipText(out))
		}
		for _, f := range forms {
			if len(f.list) == 2 && f.list[0].atom == ":reason-unknown" {
				a.reason = f.list[1].atom
			} else if a.status == "sat" {
				a.model = map[string]sexp{}
				for _, p := range f.list {
					if len(p.list) == 2 {
						a.model[p.list[0].atom] = p.list[1]
					}
				}
			}
		}
	}
	if a.status == "unknown" && (strings.Contains(a.reason, "timeout") || strings.Contains(a.reason, "canceled")) {
		a.reason = "timeout"
	}
	return a, nil
}

func clipText(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// sexp is a parsed S-expression of the solver's output: an atom (symbols
// with their |quotes| removed, strings with their quotes removed) or a
// list.
type sexp struct {
	atom string
	list []sexp
	str  bool // the atom was a string literal
}

func (x sexp) String() string {
	if x.list == nil {
		if x.str {
			return strconv.Quote(x.atom)
		}
		if strings.ContainsAny(x.atom, " ()!.") {
			return "|" + x.atom + "|"
		}
		return x.atom
	}
	parts := make([]string, len(x.list))
	for i, y := range x.list {
		parts[i] = y.String()
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func parseSexps(s string) ([]sexp, error) {
	var out []sexp
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
		if i >= len(s) {
			return out, nil
		}
		x, n, err := parseSexp(s, i)
		if err != nil {
			return out, err
		}
		out = append(out, x)
		i = n
	}
}

func parseSexp(s string, i int) (sexp, int, error) {
	switch s[i] {
	case '(':
		x := sexp{list: []sexp{}}
		i++
		for {
			for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
				i++
			}
			if i >= len(s) {
				return x, i, errors.New("unclosed list")
			}
			if s[i] == ')' {
				return x, i + 1, nil
			}
			y, n, err := parseSexp(s, i)
			if err != nil {
				return x, n, err
			}
			x.list = append(x.list, y)
			i = n
		}
	case ')':
		return sexp{}, i, errors.New("unexpected )")
	case '|':
		j := strings.IndexByte(s[i+1:], '|')
		if j < 0 {
			return sexp{}, i, errors.New("unclosed |symbol|")
		}
		return sexp{atom: s[i+1 : i+1+j]}, i + j + 2, nil
	case '"':
		var b strings.Builder
		j := i + 1
		for j < len(s) {
			if s[j] == '"' {
				if j+1 < len(s) && s[j+1] == '"' {
					b.WriteByte('"')
					j += 2
					continue
				}
				return sexp{atom: b.String(), str: true}, j + 1, nil
			}
			b.WriteByte(s[j])
			j++
		}
		return sexp{}, i, errors.New("unclosed string")
	}
	j := i
	for j < len(s) && !strings.ContainsRune(" \n\t\r()", rune(s[j])) {
		j++
	}
	return sexp{atom: s[i:j]}, j, nil
}
