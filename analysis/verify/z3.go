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

// Solver runs Z3 on SMT-LIB2 scripts. Each worker of Verify keeps its z3
// processes (sessions) running and feeds them one query after another on
// their standard input.
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

	// Quick is the budget of the first attempt at each query: the query is
	// put, between push and pop, to a z3 process that keeps running (no
	// restart or reset, which cost z3 about 17 ms of CPU each), and only a
	// decisive answer that needs no model is kept (unsat; sat for an
	// existential obligation). Anything else goes on to a fresh query as
	// before, so results are identical. 0 means DefaultQuick; a negative
	// value turns the first attempt off.
	Quick time.Duration
	// Reuse keeps the solver processes running between calls of Verify
	// (for callers that verify many modules: benchmarks, caps conformance);
	// Close stops them. Without it each Verify stops the processes it
	// started before it returns.
	Reuse bool

	// intsOnly puts every query over the integers alone (tests).
	intsOnly bool

	poolMu sync.Mutex
	pool   [2][]*session // idle sessions: fresh ones, incremental ones
	cpu    time.Duration // CPU time of the z3 processes that have ended

	versionOnce sync.Once
	version     string
}

// DefaultTimeout is the time each obligation gets by default.
const DefaultTimeout = 10 * time.Second

// DefaultQuick is the default budget of the first, incremental attempt at
// a query (Solver.Quick).
const DefaultQuick = 250 * time.Millisecond

func (s *Solver) quickBudget() time.Duration {
	switch {
	case s.Quick < 0:
		return 0
	case s.Quick == 0:
		return min(DefaultQuick, s.timeout())
	}
	return min(s.Quick, s.timeout())
}

// acquire returns an idle session from the pool (Reuse) or starts one.
// Incremental sessions (push/pop only) and fresh ones (reset before each
// query) are kept apart: a fresh session keeps its last query's
// declarations, which would clash with an incremental query.
func (s *Solver) acquire(incremental bool) (*session, error) {
	k := poolIndex(incremental)
	s.poolMu.Lock()
	for len(s.pool[k]) > 0 {
		ss := s.pool[k][len(s.pool[k])-1]
		s.pool[k] = s.pool[k][:len(s.pool[k])-1]
		if !ss.dead {
			s.poolMu.Unlock()
			return ss, nil
		}
	}
	s.poolMu.Unlock()
	ss, err := s.start()
	if ss != nil {
		ss.incremental = incremental
	}
	return ss, err
}

func poolIndex(incremental bool) int {
	if incremental {
		return 1
	}
	return 0
}

// release hands a session back: to the pool with Reuse, else it stops.
func (s *Solver) release(ss *session) {
	if ss == nil || ss.dead {
		return
	}
	if !s.Reuse {
		ss.close()
		return
	}
	s.poolMu.Lock()
	k := poolIndex(ss.incremental)
	s.pool[k] = append(s.pool[k], ss)
	s.poolMu.Unlock()
}

// Close stops the solver processes kept for reuse (Reuse).
func (s *Solver) Close() {
	s.poolMu.Lock()
	pool := append(s.pool[0], s.pool[1]...)
	s.pool = [2][]*session{}
	s.poolMu.Unlock()
	for _, ss := range pool {
		ss.close()
	}
}

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
	// incremental sessions only see push/pop queries (quick); datatypes
	// holds the datatype declarations made at their base level, by name.
	incremental bool
	datatypes   map[string]string
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
	ss.account()
}

func (ss *session) kill() {
	if ss.dead {
		return
	}
	ss.dead = true
	ss.cmd.Process.Kill()
	ss.in.Close()
	ss.cmd.Wait()
	ss.account()
}

// account adds an ended process's CPU time to its solver's.
func (ss *session) account() {
	if st := ss.cmd.ProcessState; st != nil {
		ss.s.poolMu.Lock()
		ss.s.cpu += st.UserTime() + st.SystemTime()
		ss.s.poolMu.Unlock()
	}
}

// CPU returns the CPU time of the solver processes that have ended (all
// of them once Close has returned, or Verify without Reuse).
func (s *Solver) CPU() time.Duration {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	return s.cpu
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

// quick puts a query to an incremental session between push and pop with
// a short budget, checked with tactic when it is set (check-sat-using),
// and returns z3's verdict: "sat", "unsat" or "unknown".
// The session is never reset between queries, so it must only ever see
// quick queries (a fresh query's declarations would stay and clash).
//
// Z3 does not undo a datatype declaration at pop, so a query's
// declare-datatypes lines are made once, at the base level, and later
// queries that declare the same datatypes the same way skip them; a
// query that declares a name differently resets the session first.
func (ss *session) quick(ctx context.Context, script, tactic string, budget time.Duration) (string, error) {
	var base, body strings.Builder
	reset := false
	for _, line := range strings.SplitAfter(script, "\n") {
		if !strings.HasPrefix(line, "(declare-datatypes ((") {
			body.WriteString(line)
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "(declare-datatypes (("), " ")
		if old, ok := ss.datatypes[name]; ok && old != line {
			reset = true
		}
	}
	if reset || ss.datatypes == nil {
		if reset {
			base.WriteString("(reset)\n")
		}
		ss.datatypes = map[string]string{}
	}
	// Declarations in the script's order: one may use another.
	for _, line := range strings.SplitAfter(script, "\n") {
		if !strings.HasPrefix(line, "(declare-datatypes ((") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "(declare-datatypes (("), " ")
		if ss.datatypes[name] == line {
			continue
		}
		ss.datatypes[name] = line
		base.WriteString(line)
	}
	ms := max(budget.Milliseconds(), 1)
	check := "(check-sat)"
	if tactic != "" {
		check = fmt.Sprintf("(check-sat-using (try-for %s %d))", tactic, ms)
	}
	out, err := ss.send(ctx, fmt.Sprintf("%s(push)\n(set-option :timeout %d)\n%s%s\n(pop)\n", base.String(), ms, body.String(), check), budget+3*time.Second)
	if err == errTimeout {
		return "unknown", nil
	}
	if err != nil {
		return "", err
	}
	forms, perr := parseSexps(out)
	if perr != nil {
		return "", fmt.Errorf("z3 printed an answer that cannot be read: %q", clipText(out))
	}
	verdict := ""
	for _, f := range forms {
		if len(f.list) > 0 && f.list[0].atom == "error" {
			msg := ""
			if len(f.list) > 1 {
				msg = f.list[1].atom
			}
			return "", fmt.Errorf("z3 rejected the query: %s", msg)
		}
		switch f.atom {
		case "sat", "unsat", "unknown":
			verdict = f.atom
		}
	}
	if verdict == "" {
		return "", fmt.Errorf("z3 gave no verdict: %q", clipText(out))
	}
	return verdict, nil
}

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
