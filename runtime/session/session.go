package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/internal/durable"
)

// Format names the layout of session.json.
const Format = "caps-session/1"

// Step kinds.
const (
	KindDelta   = "delta"   // an authoring delta was applied
	KindResolve = "resolve" // an open hole was answered
	KindPropose = "propose" // the session was proposed (it ends in the workflow)
)

// Meta is a session's session.json.
type Meta struct {
	Format    string `json:"format"`
	ID        string `json:"id"`
	CreatedAt string `json:"created_at"`
	By        string `json:"by,omitempty"`
	// Target is the workspace-relative path of the module file.
	Target string `json:"target"`
	// BaseExists and BaseSHA256 describe the target when the session
	// began (base.caps holds its content).
	BaseExists bool   `json:"base_exists"`
	BaseSHA256 string `json:"base_sha256"`
	// Hash is the SHA-256 of this record with Hash empty: the chain's
	// anchor.
	Hash string `json:"hash"`
}

// Step is one step of a session (steps/NNNN/step.json).
type Step struct {
	N    int    `json:"n"`
	Kind string `json:"kind"`
	At   string `json:"at"`
	By   string `json:"by,omitempty"`
	// Delta is the applied delta, as validated (KindDelta).
	Delta     json.RawMessage `json:"delta,omitempty"`
	DeltaHash string          `json:"delta_hash,omitempty"`
	// Description and Model, for a delta the LLM bridge made: what the
	// person asked for and which model answered.
	Description string `json:"description,omitempty"`
	Model       string `json:"model,omitempty"`
	// Hole and Answer (KindResolve).
	Hole   string `json:"hole,omitempty"`
	Answer string `json:"answer,omitempty"`
	// Proposal is the proposal's id (KindPropose).
	Proposal string `json:"proposal,omitempty"`
	// SourceSHA256 is the hash of source.caps, the source after the step.
	SourceSHA256 string `json:"source_sha256"`
	// Prev is the hash of the step before (of the Meta for step 1); Hash
	// is the SHA-256 of this record with Hash empty.
	Prev string `json:"prev"`
	Hash string `json:"hash"`
}

// Store is the sessions folder of a workspace.
type Store struct {
	ws  *propose.Workspace
	dir string
	// Now returns the time for time stamps; nil means time.Now.
	Now func() time.Time
}

// NewStore returns the session store of a workspace.
func NewStore(ws *propose.Workspace) *Store {
	return &Store{ws: ws, dir: filepath.Join(ws.Root, propose.MetaDir, "sessions")}
}

// Dir returns the folder of the session id.
func (s *Store) Dir(id string) string { return filepath.Join(s.dir, id) }

func (s *Store) now() string {
	if s.Now != nil {
		return s.Now().UTC().Format(time.RFC3339Nano)
	}
	return time.Now().UTC().Format(time.RFC3339Nano)
}

// Session is a loaded, verified session.
type Session struct {
	Meta  Meta
	Base  []byte // the target when the session began (nil when it did not exist)
	Steps []Step
	// Sources[i] is the source after step i+1.
	Sources [][]byte

	store *Store
	state *state
}

var idRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

var proposalRE = regexp.MustCompile(`^p-[0-9a-f]{16}$`)

// IDError is a malformed session id.
type IDError struct{ ID string }

func (e *IDError) Error() string {
	return fmt.Sprintf("bad session id %q: use lower-case letters, digits, '.', '-' and '_' (at most 64, starting with a letter or digit)", e.ID)
}

// NotFoundError is a session id with no session folder.
type NotFoundError struct{ ID, Root string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no session %s in %s (caps session list shows the sessions)", e.ID, e.Root)
}

// CheckID refuses ids that are not a lower-case letter or digit followed by
// up to 63 lower-case letters, digits, dots, dashes and underscores.
func CheckID(id string) error {
	if !idRE.MatchString(id) {
		return &IDError{id}
	}
	return nil
}

// TamperedError is a session folder that does not verify: a file was
// changed, removed or added by hand, or its steps no longer synthesize
// the recorded sources. Nothing is written to such a session.
type TamperedError struct {
	ID     string
	Path   string // relative to the session folder
	Reason string
}

func (e *TamperedError) Error() string {
	return fmt.Sprintf("session %s does not verify: %s: %s; nothing was changed. "+
		"Restore .caps/sessions/%s from a backup, or start a new session (caps session new --target FILE) and apply its deltas again",
		e.ID, e.Path, e.Reason, e.ID)
}

// New starts a session on target (a path on disk: absolute or relative to
// the current folder), which must be a file a proposal may change; it may
// not exist yet. id "" picks a random id. The new session becomes the
// current one.
func (s *Store) New(target, id, by string) (*Session, error) {
	rel, err := s.ws.Target(target)
	if err != nil {
		return nil, err
	}
	if id == "" {
		id = "s-" + randomHex(8)
	}
	if err := CheckID(id); err != nil {
		return nil, err
	}
	base, exists, err := s.ws.ReadLive(rel)
	if err != nil {
		return nil, err
	}
	if exists {
		if err := load.ValidateText(base); err != nil {
			return nil, fmt.Errorf("%s: %v", rel, err)
		}
	}
	m := Meta{Format: Format, ID: id, CreatedAt: s.now(), By: by, Target: rel, BaseExists: exists, BaseSHA256: propose.SHA256(base)}
	m.Hash = metaHash(m)
	final := s.Dir(id)
	if _, err := os.Lstat(final); err == nil {
		return nil, fmt.Errorf("session %s already exists: pick another --id", id)
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(s.dir, ".tmp-"+id+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := writeJSON(filepath.Join(tmp, "session.json"), m); err != nil {
		return nil, err
	}
	if exists {
		if err := durable.WriteFile(filepath.Join(tmp, "base.caps"), base); err != nil {
			return nil, err
		}
	}
	if err := os.Mkdir(filepath.Join(tmp, "steps"), 0o755); err != nil {
		return nil, err
	}
	if err := durable.SyncDir(tmp); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, final); err != nil {
		return nil, fmt.Errorf("session %s: %v (was it created at the same time by another command?)", id, err)
	}
	if err := durable.SyncDir(s.dir); err != nil {
		return nil, err
	}
	if err := s.SetCurrent(id); err != nil {
		return nil, err
	}
	return s.Open(id)
}

// SetCurrent makes id the session commands use by default.
func (s *Store) SetCurrent(id string) error {
	return durable.WriteFileAtomic(filepath.Join(s.dir, "CURRENT"), []byte(id+"\n"))
}

// Current returns the id of the current session.
func (s *Store) Current() (string, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, "CURRENT"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", errors.New("no current session: start one with caps session new --target FILE, or pass --session ID")
	}
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if err := CheckID(id); err != nil {
		return "", fmt.Errorf("%s: %v", filepath.Join(s.dir, "CURRENT"), err)
	}
	return id, nil
}

// List returns the ids of the workspace's sessions, sorted.
func (s *Store) List() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && CheckID(e.Name()) == nil {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}

// Entry is one session of a workspace in a listing (caps session list,
// the web UI's workspace view).
type Entry struct {
	ID      string `json:"id"`
	Current bool   `json:"current"`
	// Target and Steps are the session's target file and its number of
	// steps; Verified reports that it opened and verified.
	Target   string `json:"target,omitempty"`
	Steps    int    `json:"steps"`
	Verified bool   `json:"verified"`
	// Problem is why a session does not verify (Open's error).
	Problem string `json:"problem,omitempty"`
}

// Sessions lists the workspace's sessions, sorted by id, each opened and
// verified (one that does not verify is listed with its Problem), and
// returns the id of the current one ("" when there is none). The list is
// empty, not nil, for a workspace without sessions.
func (s *Store) Sessions() ([]Entry, string, error) {
	ids, err := s.List()
	if err != nil {
		return nil, "", err
	}
	cur, _ := s.Current()
	list := []Entry{}
	for _, id := range ids {
		e := Entry{ID: id, Current: id == cur}
		if ss, err := s.Open(id); err != nil {
			e.Problem = err.Error()
		} else {
			e.Target, e.Steps, e.Verified = ss.Meta.Target, len(ss.Steps), true
		}
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	return list, cur, nil
}

// Open loads the session id and verifies it: its hash chain, its files
// and a replay of its steps (a *TamperedError when any fails).
func (s *Store) Open(id string) (*Session, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	dir := s.Dir(id)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, &NotFoundError{id, s.ws.Root}
	}
	bad := func(path, format string, args ...any) error {
		return &TamperedError{ID: id, Path: path, Reason: fmt.Sprintf(format, args...)}
	}
	sess := &Session{store: s}
	b, err := os.ReadFile(filepath.Join(dir, "session.json"))
	if err != nil {
		return nil, bad("session.json", "cannot be read: %v", unwrap(err))
	}
	if err := decodeStrict(b, &sess.Meta); err != nil {
		return nil, bad("session.json", "%v", err)
	}
	m := sess.Meta
	switch {
	case m.Format != Format:
		return nil, bad("session.json", "format %q, expected %q", m.Format, Format)
	case m.ID != id:
		return nil, bad("session.json", "names session %q", m.ID)
	case m.Hash != metaHash(m):
		return nil, bad("session.json", "its hash does not match its content (it was edited)")
	}
	if err := s.ws.CheckRel(m.Target); err != nil {
		return nil, bad("session.json", "%v", err)
	}
	base, err := os.ReadFile(filepath.Join(dir, "base.caps"))
	switch {
	case m.BaseExists && err != nil:
		return nil, bad("base.caps", "cannot be read: %v", unwrap(err))
	case !m.BaseExists && err == nil:
		return nil, bad("base.caps", "is there, but the target did not exist when the session began")
	case m.BaseExists && propose.SHA256(base) != m.BaseSHA256:
		return nil, bad("base.caps", "its hash does not match base_sha256 in session.json (it was edited)")
	}
	if m.BaseExists {
		sess.Base = base
	}
	ents, err := os.ReadDir(filepath.Join(dir, "steps"))
	if err != nil {
		return nil, bad("steps", "cannot be read: %v", unwrap(err))
	}
	var nums []int
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			continue // a write that did not finish
		}
		n, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() || e.Name() != stepName(n) {
			return nil, bad("steps/"+e.Name(), "is not a step")
		}
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for i, n := range nums {
		if n != i+1 {
			return nil, bad("steps/"+stepName(i+1), "is missing (steps go up to %d)", nums[len(nums)-1])
		}
	}
	prev := m.Hash
	sess.state = newState()
	for _, n := range nums {
		name := "steps/" + stepName(n)
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name), "step.json"))
		if err != nil {
			return nil, bad(name+"/step.json", "cannot be read: %v", unwrap(err))
		}
		var st Step
		if err := decodeStrict(b, &st); err != nil {
			return nil, bad(name+"/step.json", "%v", err)
		}
		switch {
		case st.N != n:
			return nil, bad(name+"/step.json", "says it is step %d", st.N)
		case st.Prev != prev:
			return nil, bad(name+"/step.json", "does not link to the step before (prev %s, expected %s): a step was changed, removed or reordered", st.Prev, prev)
		case st.Hash != stepHash(st):
			return nil, bad(name+"/step.json", "its hash does not match its content (it was edited)")
		}
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name), "source.caps"))
		if err != nil {
			return nil, bad(name+"/source.caps", "cannot be read: %v", unwrap(err))
		}
		if propose.SHA256(src) != st.SourceSHA256 {
			return nil, bad(name+"/source.caps", "its hash does not match source_sha256 in step.json (it was edited)")
		}
		// Replay the step: it must synthesize the recorded source.
		if err := sess.replay(st); err != nil {
			return nil, bad(name+"/step.json", "does not replay: %v", err)
		}
		out, err := sess.synthesize()
		if err != nil {
			return nil, bad(name+"/step.json", "does not replay: %v", err)
		}
		if !bytes.Equal(out, src) {
			return nil, bad(name+"/source.caps", "differs from what the steps synthesize (replay); the file or the synthesizer changed")
		}
		sess.Steps = append(sess.Steps, st)
		sess.Sources = append(sess.Sources, src)
		prev = st.Hash
	}
	return sess, nil
}

// replay applies a recorded step to the session's state.
func (s *Session) replay(st Step) error {
	switch st.Kind {
	case KindDelta:
		d, err := propose.ParseDelta(st.Delta)
		if err != nil {
			return err
		}
		if d.Hash() != st.DeltaHash {
			return fmt.Errorf("delta_hash %s does not match the delta (%s)", st.DeltaHash, d.Hash())
		}
		return s.state.applyDelta(d)
	case KindResolve:
		i, err := s.state.findHole(st.Hole)
		if err != nil {
			return err
		}
		if normalize(st.Answer) == "" {
			return errors.New("an empty answer")
		}
		s.state.resolve(i, st.Answer, st.N)
		return nil
	case KindPropose:
		if !proposalRE.MatchString(st.Proposal) {
			return fmt.Errorf("bad proposal id %q", st.Proposal)
		}
		return nil
	}
	return fmt.Errorf("unknown step kind %q", st.Kind)
}

// synthesize returns the source the state gives: the base while no delta
// has been applied, else the merged delta applied to the base.
func (s *Session) synthesize() ([]byte, error) {
	if s.state.deltas == 0 {
		return append([]byte(nil), s.Base...), nil
	}
	return s.state.delta().Synthesize(s.Base, s.Meta.BaseExists)
}

// ID returns the session's id.
func (s *Session) ID() string { return s.Meta.ID }

// Source returns the source after the last step (the base before any).
func (s *Session) Source() []byte {
	if len(s.Sources) == 0 {
		return s.Base
	}
	return s.Sources[len(s.Sources)-1]
}

// HasDelta reports whether a delta has been applied.
func (s *Session) HasDelta() bool { return s.state.deltas > 0 }

// Holes returns the session's holes in the order they were met.
func (s *Session) Holes() []Hole { return append([]Hole(nil), s.state.holes...) }

// OpenHoles returns the holes still open.
func (s *Session) OpenHoles() []Hole {
	var out []Hole
	for _, h := range s.state.holes {
		if h.Open() {
			out = append(out, h)
		}
	}
	return out
}

// Delta returns the session's merged delta: what Propose hands to the
// workflow.
func (s *Session) Delta() *propose.AuthoringDelta { return s.state.delta() }

// DeltaJSON returns the merged delta as JSON.
func (s *Session) DeltaJSON() []byte { return deltaJSON(s.state.delta()) }

// Head returns the hash of the last step (of the Meta before any).
func (s *Session) Head() string {
	if len(s.Steps) == 0 {
		return s.Meta.Hash
	}
	return s.Steps[len(s.Steps)-1].Hash
}

// TargetPath returns the target's absolute path.
func (s *Session) TargetPath() string { return s.store.ws.Abs(s.Meta.Target) }

// DeltaInput is a delta to apply with where it came from.
type DeltaInput struct {
	JSON []byte
	By   string
	// Description and Model, when the LLM bridge made the delta.
	Description, Model string
}

// Apply validates a delta (the schema, then its declarations), merges it
// and synthesizes the new source; only when all of that succeeds is the
// step written. The session is unchanged on any error.
func (s *Session) Apply(in DeltaInput) (*Step, error) {
	d, err := propose.ParseDelta(in.JSON)
	if err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, in.JSON); err != nil {
		return nil, err
	}
	st := Step{Kind: KindDelta, By: in.By, Delta: compact.Bytes(), DeltaHash: d.Hash(), Description: in.Description, Model: in.Model}
	return s.add(st)
}

// Resolve answers the hole ref (its id, h2, or its exact question) and
// synthesizes the new source.
func (s *Session) Resolve(ref, answer, by string) (*Step, error) {
	i, err := s.state.findHole(ref)
	if err != nil {
		return nil, err
	}
	if normalize(answer) == "" {
		return nil, fmt.Errorf("the answer to %s is empty", s.state.holes[i].ID)
	}
	return s.add(Step{Kind: KindResolve, By: by, Hole: s.state.holes[i].ID, Answer: normalize(answer)})
}

// add replays st on a copy of the state, synthesizes, and writes the step.
func (s *Session) add(st Step) (*Step, error) {
	st.N = len(s.Steps) + 1
	st.At = s.store.now()
	st.Prev = s.Head()
	saved := s.state
	s.state = saved.clone()
	fail := func(err error) (*Step, error) {
		s.state = saved
		return nil, err
	}
	if err := s.replay(st); err != nil {
		return fail(err)
	}
	src, err := s.synthesize()
	if err != nil {
		return fail(err)
	}
	if len(src) > load.MaxFileSize {
		return fail(fmt.Errorf("the synthesized source is larger than %d MB", load.MaxFileSize>>20))
	}
	st.SourceSHA256 = propose.SHA256(src)
	st.Hash = stepHash(st)
	if err := s.writeStep(st, src); err != nil {
		return fail(err)
	}
	s.Steps = append(s.Steps, st)
	s.Sources = append(s.Sources, src)
	return &s.Steps[len(s.Steps)-1], nil
}

func (st *state) clone() *state {
	c := newState()
	c.module, c.capsule, c.deltas = st.module, st.capsule, st.deltas
	for k := range st.profiles {
		c.profiles[k] = true
	}
	for k := range st.requirements {
		c.requirements[k] = true
	}
	for k := range st.assumptions {
		c.assumptions[k] = true
	}
	c.holes = append([]Hole(nil), st.holes...)
	for k, v := range st.holeByText {
		c.holeByText[k] = v
	}
	for k, v := range st.decls {
		c.decls[k] = v
	}
	return c
}

// writeStep writes steps/NNNN through a temporary folder renamed into
// place; the rename fails when another writer added the step first.
func (s *Session) writeStep(st Step, src []byte) error {
	steps := filepath.Join(s.store.Dir(s.Meta.ID), "steps")
	tmp, err := os.MkdirTemp(steps, ".tmp-"+stepName(st.N)+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := writeJSON(filepath.Join(tmp, "step.json"), st); err != nil {
		return err
	}
	if err := durable.WriteFile(filepath.Join(tmp, "source.caps"), src); err != nil {
		return err
	}
	if err := durable.SyncDir(tmp); err != nil {
		return err
	}
	final := filepath.Join(steps, stepName(st.N))
	if _, err := os.Lstat(final); err == nil {
		return fmt.Errorf("session %s got a step %d from another command meanwhile; nothing was written: run this command again", s.Meta.ID, st.N)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("session %s: writing step %d: %v; nothing was written: run this command again", s.Meta.ID, st.N, err)
	}
	return durable.SyncDir(steps)
}

// SaveAttempt keeps a refused reply of the LLM bridge (with what was
// asked) under attempts/, outside the chain, and returns its path.
func (s *Session) SaveAttempt(v any) (string, error) {
	dir := filepath.Join(s.store.Dir(s.Meta.ID), "attempts")
	name := time.Now().UTC().Format("20060102T150405Z") + "-" + randomHex(4) + ".json"
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	return path, durable.WriteFileAtomic(path, append(b, '\n'))
}

func stepName(n int) string { return fmt.Sprintf("%04d", n) }

func metaHash(m Meta) string {
	m.Hash = ""
	b, _ := json.Marshal(m)
	return propose.SHA256(b)
}

func stepHash(st Step) string {
	st.Hash = ""
	b, _ := json.Marshal(st)
	return propose.SHA256(b)
}

func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not a valid record: %v", err)
	}
	if dec.More() {
		return errors.New("not a valid record: data after the JSON object")
	}
	return nil
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return durable.WriteFile(path, append(b, '\n'))
}

// Upto returns the session as it was after step n (0: before any step),
// replayed from its records; it is for reading only.
func (s *Session) Upto(n int) (*Session, error) {
	if n < 0 || n > len(s.Steps) {
		return nil, fmt.Errorf("session %s has steps 0 to %d, not %d", s.Meta.ID, len(s.Steps), n)
	}
	v := &Session{Meta: s.Meta, Base: s.Base, store: s.store, state: newState()}
	for _, st := range s.Steps[:n] {
		if err := v.replay(st); err != nil {
			return nil, err
		}
	}
	v.Steps, v.Sources = s.Steps[:n:n], s.Sources[:n:n]
	return v, nil
}
