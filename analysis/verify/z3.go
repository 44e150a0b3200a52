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
//
// Every attempt at a query is bounded by Z3's resource limit (rlimit), a
// count of the solver's own steps, rather than by time, so that whether
// an attempt settles a query, and so the report, does not depend on the
// machine's load. Timeout is only a wall-clock backstop.
type Solver struct {
	// Path is the z3 executable.
	Path string
	// Timeout is the wall-clock cap on each obligation, all its attempts
	// included (0 means DefaultTimeout): a backstop for a solver that
	// does not come back, since Rlimit bounds every attempt. An
	// obligation that runs out of either is open with reason "timeout".
	Timeout time.Duration
	// Rlimit is each obligation's budget in Z3's resource units (0 means
	// DefaultRlimit): its bit-vector query gets a fifth of it alone,
	// then all of it beside the integer encoding, which gets
	// Rlimit/IntRlimitDivisor (Z3 counts its arithmetic in far larger
	// steps). The first attempts have budgets of their own (QuickRlimits).
	Rlimit uint64
	// NoQuick turns off the first, incremental attempts at each query:
	// the query is put, between push and pop, to a z3 process that keeps
	// running (no restart or reset, which cost z3 about 17 ms of CPU
	// each), and only a decisive answer that needs no model is kept
	// (unsat; sat for an existential obligation). Anything else goes on
	// to a fresh query, so results are the same with and without them.
	NoQuick bool
	// Reuse keeps the solver processes running between calls of Verify
	// (for callers that verify many modules: benchmarks, caps conformance);
	// Close stops them. Without it each Verify stops the processes it
	// started before it returns.
	Reuse bool
	// Cache, when set, keeps each obligation's verdict on disk under the
	// digest of its queries, and answers the same queries from it later.
	Cache *Cache

	// intsOnly puts every query over the integers alone (tests).
	intsOnly bool

	poolMu sync.Mutex
	pool   [][2][]*session // idle sessions by worker: fresh ones, incremental ones
	cpu    time.Duration   // CPU time of the z3 processes that have ended

	versionOnce sync.Once
	version     string
}

// DefaultTimeout is the wall-clock cap on each obligation by default.
const DefaultTimeout = 10 * time.Second

// DefaultRlimit is each obligation's resource budget by default: about
// three to six seconds of one core for a hard bit-vector query.
const DefaultRlimit = 10_000_000

// IntRlimitDivisor divides an obligation's budget for its integer
// encoding: Z3 counts arithmetic reasoning in steps a hundred or more
// times as costly as bit-blasting's.
const IntRlimitDivisor = 200

// QuickRlimits are the budgets of the first, incremental attempts at a
// query, in order: the integer encoding with Z3's default arithmetic (the
// examples need at most 5,000 units), the same with its older arithmetic
// solver, then the bit-vectors bit-blasted straight to SAT (a 64-bit
// midpoint needs 400,000). None is more than the obligation's budget.
// An integer attempt that runs out costs 10 to 40 ms of CPU here. Z3's
// default incremental bit-vector strategy is not tried: it counts its
// steps so coarsely on wide words and text that half a million of them
// took seconds.
var QuickRlimits = [3]uint64{10_000, 10_000, 1_000_000}

func (s *Solver) rlimit() uint64 {
	if s.Rlimit == 0 {
		return DefaultRlimit
	}
	return s.Rlimit
}

// acquire returns an idle session of worker w from the pool (Reuse) or
// starts one. Incremental sessions (push/pop only) and fresh ones (reset
// before each query) are kept apart: a fresh session keeps its last
// query's declarations, which would clash with an incremental query.
// Each worker has its own sessions, so that an incremental session sees
// the same queries in the same order every run: what Z3 has seen before
// changes how many steps it takes, and so whether an attempt fits its
// budget.
func (s *Solver) acquire(w int, incremental bool) (*session, error) {
	k := poolIndex(incremental)
	s.poolMu.Lock()
	for w < len(s.pool) && len(s.pool[w][k]) > 0 {
		p := &s.pool[w][k]
		ss := (*p)[len(*p)-1]
		*p = (*p)[:len(*p)-1]
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

// release hands worker w's session back: to the pool with Reuse, else it
// stops.
func (s *Solver) release(w int, ss *session) {
	if ss == nil || ss.dead {
		return
	}
	if !s.Reuse {
		ss.close()
		return
	}
	s.poolMu.Lock()
	for len(s.pool) <= w {
		s.pool = append(s.pool, [2][]*session{})
	}
	k := poolIndex(ss.incremental)
	s.pool[w][k] = append(s.pool[w][k], ss)
	s.poolMu.Unlock()
}

// Close stops the solver processes kept for reuse (Reuse).
func (s *Solver) Close() {
	s.poolMu.Lock()
	var pool []*session
	for _, p := range s.pool {
		pool = append(append(pool, p[0]...), p[1]...)
	}
	s.pool = nil
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
// marker. A solver that has not answered when ctx ends is killed (its
// worker starts another when it needs one).
func (ss *session) send(ctx context.Context, cmds string) (string, error) {
	outs, err := ss.sendAll(ctx, []string{cmds})
	if err != nil {
		return "", err
	}
	return outs[0], nil
}

// sendAll writes several command groups at once, each followed by a
// marker, and returns each group's output. One write instead of a round
// trip per group: on a loaded machine every wake-up of caps or z3 waits
// for the scheduler, and round trips, not the solver's work, made most
// of the wall time. The writing runs beside the reading, so that neither
// side waits for the other's pipe.
func (ss *session) sendAll(ctx context.Context, groups []string) ([]string, error) {
	marks := make([]string, len(groups))
	var b strings.Builder
	for i, g := range groups {
		ss.n++
		marks[i] = fmt.Sprintf("@@caps-%d", ss.n)
		b.WriteString(g + "(echo \"" + marks[i] + "\")\n")
	}
	werr := make(chan error, 1)
	go func() {
		_, err := io.WriteString(ss.in, b.String())
		werr <- err
	}()
	outs := make([]string, 0, len(groups))
	var out strings.Builder
	for len(outs) < len(groups) {
		select {
		case err := <-werr:
			if err != nil {
				return nil, fmt.Errorf("z3 stopped: %v %s", err, strings.TrimSpace(ss.errb.String()))
			}
			werr = nil
		case line, ok := <-ss.lines:
			if !ok {
				return nil, fmt.Errorf("z3 stopped unexpectedly: %s", strings.TrimSpace(ss.errb.String()+" "+out.String()))
			}
			if line == marks[len(outs)] {
				outs = append(outs, out.String())
				out.Reset()
				continue
			}
			out.WriteString(line)
			out.WriteByte('\n')
		case <-ctx.Done():
			ss.kill()
			return nil, ctx.Err()
		}
	}
	if werr != nil {
		if err := <-werr; err != nil {
			return nil, fmt.Errorf("z3 stopped: %v %s", err, strings.TrimSpace(ss.errb.String()))
		}
	}
	return outs, nil
}

// quickQuery is one first attempt at a query: its script, the tactic of
// check-sat-using ("" for check-sat) and its resource budget.
type quickQuery struct {
	script, tactic string
	rlimit         uint64
}

// quickError is a query of a batch that z3 rejected.
type quickError struct {
	index int
	err   error
}

func (e *quickError) Error() string { return e.err.Error() }

// quick puts queries to an incremental session, each between push and pop
// with its budget, all in one write (sendAll), and returns z3's verdicts:
// "sat", "unsat" or "unknown". A query z3 rejects makes a *quickError.
// The session is never reset between queries, so it must only ever see
// quick queries (a fresh query's declarations would stay and clash).
//
// Z3 does not undo a datatype declaration at pop, so a query's
// declare-datatypes lines are made once, at the base level, and later
// queries that declare the same datatypes the same way skip them; a
// query that declares a name differently resets the session first.
func (ss *session) quick(ctx context.Context, qs []quickQuery) ([]string, error) {
	groups := make([]string, len(qs))
	for i, q := range qs {
		groups[i] = ss.quickCommands(q)
	}
	outs, err := ss.sendAll(ctx, groups)
	if err != nil {
		return nil, err
	}
	verdicts := make([]string, len(qs))
	for i, out := range outs {
		if verdicts[i], err = quickVerdict(out); err != nil {
			return nil, &quickError{i, err}
		}
	}
	return verdicts, nil
}

// quickCommands are the commands of one quick query, with the datatype
// declarations it needs at the base level.
func (ss *session) quickCommands(q quickQuery) string {
	var base, body strings.Builder
	reset := false
	for _, line := range strings.SplitAfter(q.script, "\n") {
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
	for _, line := range strings.SplitAfter(q.script, "\n") {
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
	check := "(check-sat)"
	if q.tactic != "" {
		check = "(check-sat-using " + q.tactic + ")"
	}
	return fmt.Sprintf("%s(push)\n(set-option :rlimit %d)\n%s%s\n(pop)\n", base.String(), max(q.rlimit, 1), body.String(), check)
}

// quickVerdict reads z3's answer to one quick query.
func quickVerdict(out string) (string, error) {
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
			if outOfBudget(msg) {
				return "unknown", nil // the budget ran out while z3 read the query
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

// check puts one query (declarations and assertions) to the session
// within a budget of rlimit resource units, and asks for the values of
// terms when it is satisfiable.
func (ss *session) check(ctx context.Context, script string, terms []string, rlimit uint64) (*answer, error) {
	// Each query starts from (reset) rather than (push): Z3 answers a
	// fresh, non-incremental problem with its much faster bit-vector
	// tactics. reset also clears the options and the resource count.
	rlimit = max(rlimit, 1)
	opts := fmt.Sprintf("(reset)\n(set-option :produce-models true)\n(set-option :rlimit %d)\n", rlimit)
	out, err := ss.send(ctx, opts+script+"(check-sat)\n")
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
			if outOfBudget(msg) {
				// The budget ran out while z3 read the query (unfolding
				// a recursive definition, simplifying an assertion).
				return &answer{status: "unknown", reason: "timeout"}, nil
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
		// The count of resource units used (since the reset) tells a
		// query that ran out of its budget from one Z3 gave up on.
		follow = "(get-info :reason-unknown)\n(get-info :rlimit)\n"
	case a.status == "sat" && len(terms) > 0:
		follow = "(get-value (" + strings.Join(terms, " ") + "))\n"
	}
	used := uint64(0)
	if follow != "" {
		out, err := ss.send(ctx, follow)
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
			} else if len(f.list) == 2 && f.list[0].atom == ":rlimit" {
				used, _ = strconv.ParseUint(f.list[1].atom, 10, 64)
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
	if a.status == "unknown" && (used >= rlimit || outOfBudget(a.reason)) {
		a.reason = "timeout"
	}
	return a, nil
}

// outOfBudget reports whether Z3's reason for unknown means it ran out of
// its resource budget (or was stopped), rather than gave up.
func outOfBudget(reason string) bool {
	for _, r := range []string{"resource limit", "timeout", "canceled"} {
		if strings.Contains(reason, r) {
			return true
		}
	}
	return false
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
