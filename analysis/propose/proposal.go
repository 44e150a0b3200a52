package propose

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/repair"
	"github.com/capsulang/caps/syntax"
)

// Source kinds: where a proposal's candidate comes from.
const (
	FromCandidate = "candidate" // a whole new file
	FromPatch     = "patch"     // a unified diff
	FromRepair    = "repair"    // a repair-plan option
	FromDelta     = "delta"     // a structured authoring delta
)

// Request asks for a proposal.
type Request struct {
	// Kind is one of the From* constants.
	Kind string
	// Targets are the files to change, as paths on disk (absolute or
	// relative to the current folder). A patch may name its own files
	// instead; every other kind needs exactly one target.
	Targets []string
	// Candidate is the new content of the target (FromCandidate).
	Candidate []byte
	// Patch is a unified diff (FromPatch).
	Patch []byte
	// Repair names a repair option (FromRepair).
	Repair *RepairRef
	// Delta is an authoring delta in JSON (FromDelta).
	Delta []byte
	// By names who proposes it (an agent or a person); Reason says why.
	By, Reason string
}

// RepairRef names a repair option: the diagnostic with Code on Line
// (1-based) of the target, and the option's ID ("" for the first, as
// ranked).
type RepairRef struct {
	Code   string `json:"code"`
	Line   int    `json:"line"`
	Option string `json:"option,omitempty"`
}

// Proposal is a proposed change of one or more files. It is a plain value
// (JSON-encodable); the file contents live in Files.
type Proposal struct {
	ID        string `json:"id"`
	CreatedAt string `json:"created_at"`
	By        string `json:"by"`
	Reason    string `json:"reason,omitempty"`
	// Source says where the candidate came from.
	Source SourceInfo `json:"source"`
	// Signals are what triggered the proposal: diagnostic codes and error
	// signatures (see ErrorSignature).
	Signals []string `json:"signals"`
	// OpenHoles are an authoring delta's unresolved questions.
	OpenHoles []string     `json:"open_holes,omitempty"`
	Files     []FileChange `json:"files"`
	// Rebased records the base hashes a proposal was first made against,
	// when a commit moved it onto newer files.
	Rebased []string `json:"rebased_from,omitempty"`
}

// SourceInfo describes a proposal's origin.
type SourceInfo struct {
	Kind string `json:"kind"`
	// Repair, for a repair proposal: the option applied.
	Repair *RepairSource `json:"repair,omitempty"`
	// DeltaHash is the SHA-256 of the authoring delta's canonical bytes.
	DeltaHash string `json:"delta_hash,omitempty"`
}

// RepairSource is the repair option a proposal applies.
type RepairSource struct {
	Code    string `json:"code"`
	Line    int    `json:"line"`
	Option  string `json:"option"`
	Title   string `json:"title"`
	Safety  string `json:"safety"`
	Message string `json:"message"`
	Signal  string `json:"signal"` // the diagnostic's error signature
}

// FileChange is one file of a proposal: its content when proposed (the
// base) and the candidate content.
type FileChange struct {
	Path            string `json:"path"` // workspace-relative, slash-separated
	BaseExists      bool   `json:"base_exists"`
	BaseSHA256      string `json:"base_sha256"`
	CandidateSHA256 string `json:"candidate_sha256"`
	Base            []byte `json:"-"`
	Candidate       []byte `json:"-"`
}

// SHA256 returns "sha256:" and the hex SHA-256 of b.
func SHA256(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// Hooks let the caller supply what analysis/propose cannot do itself: run
// the interpreter, run commands, replay ledgers. A nil hook reports the
// corresponding evidence as not run.
type Hooks struct {
	// Examples evaluates a checked package's examples and returns their
	// diagnostics (E_EXAMPLE_FAILED for failures, I_EXAMPLE_NOT_EVALUATED
	// when they cannot run), as `caps check` does.
	Examples func(pkg *load.Package) []syntax.Diagnostic
	// Evaluated returns the values failing examples actually produced,
	// keyed by the span of the expected value (for the fix-example repair).
	Evaluated func(pkg *load.Package) map[syntax.Span]string
	// Validate runs the policy's validation commands against a copy of the
	// workspace where overlay (workspace-relative path → content) replaces
	// the live files.
	Validate func(ws *Workspace, overlay map[string][]byte, cmds []Command) []CommandResult
	// Scenarios runs scenario files against the candidate; nil: "not run:
	// machine runtime not available".
	Scenarios func(ws *Workspace, overlay map[string][]byte, files []string) TestReport
	// Replay replays golden ledgers against the candidate; nil: "not
	// available: no replay verifier".
	Replay func(ws *Workspace, overlay map[string][]byte, files []string) TestReport
}

// CommandResult is the outcome of one validation command.
type CommandResult struct {
	Name       string   `json:"name"`
	Argv       []string `json:"argv"`
	OK         bool     `json:"ok"`
	ExitCode   int      `json:"exit_code"`
	Stdout     string   `json:"stdout,omitempty"`
	Stderr     string   `json:"stderr,omitempty"`
	DurationMS int64    `json:"duration_ms"`
	Error      string   `json:"error,omitempty"`
}

// loader returns a loader that reads overlay files (absolute path →
// content) instead of the disk.
func (ws *Workspace) loader(overlay map[string][]byte) *load.Loader {
	return &load.Loader{
		Roots: ws.ImportRoots,
		ReadFile: func(p string) ([]byte, error) {
			abs := p
			if !strings.HasPrefix(p, "/") {
				abs = ws.Abs(p)
			}
			if b, ok := overlay[abs]; ok {
				if b == nil {
					return nil, fmt.Errorf("%s: no such file", p)
				}
				if err := load.ValidateText(b); err != nil {
					return nil, fmt.Errorf("%s: %v", p, err)
				}
				return b, nil
			}
			return load.ReadSource(p)
		},
	}
}

// readLive reads a target's current content; a missing file is (nil,
// false).
func (ws *Workspace) readLive(rel string) ([]byte, bool, error) {
	b, err := os.ReadFile(ws.Abs(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// ReadLive returns a workspace file's current content and whether it
// exists.
func (ws *Workspace) ReadLive(rel string) ([]byte, bool, error) { return ws.readLive(rel) }

// Build turns a request into a proposal against the live files of the
// workspace: it reads the targets, computes the candidate contents and
// the triggering signals. Nothing is written. ID and CreatedAt are left
// for the caller (see ProposalID).
func Build(ws *Workspace, req Request, hooks Hooks) (*Proposal, error) {
	p := &Proposal{By: req.By, Reason: req.Reason, Source: SourceInfo{Kind: req.Kind}, Signals: []string{}}
	if p.By == "" {
		p.By = "anonymous"
	}
	var targets []string
	for _, t := range req.Targets {
		rel, err := ws.Target(t)
		if err != nil {
			return nil, err
		}
		targets = append(targets, rel)
	}
	one := func() (string, error) {
		if len(targets) != 1 {
			return "", fmt.Errorf("a %s proposal needs exactly one --target FILE", req.Kind)
		}
		return targets[0], nil
	}
	addFile := func(rel string, candidate []byte) error {
		base, exists, err := ws.readLive(rel)
		if err != nil {
			return err
		}
		for _, f := range p.Files {
			if f.Path == rel {
				return fmt.Errorf("%s is changed twice in one proposal", rel)
			}
		}
		p.Files = append(p.Files, FileChange{Path: rel, BaseExists: exists, Base: base, Candidate: candidate,
			BaseSHA256: SHA256(base), CandidateSHA256: SHA256(candidate)})
		return nil
	}
	switch req.Kind {
	case FromCandidate:
		rel, err := one()
		if err != nil {
			return nil, err
		}
		if err := addFile(rel, req.Candidate); err != nil {
			return nil, err
		}
	case FromPatch:
		fps, err := ParsePatch(req.Patch)
		if err != nil {
			return nil, err
		}
		for _, fp := range fps {
			rel := fp.NewPath
			if fp.NewPath == "/dev/null" {
				return nil, &PathError{fp.OldPath, "the patch deletes the file; proposals cannot delete files"}
			}
			if len(fps) == 1 && len(targets) == 1 {
				rel = targets[0] // --target names the file the one-file patch applies to
			} else {
				if rel, err = ws.TargetRel(rel); err != nil {
					return nil, err
				}
				if len(targets) > 0 && !contains(targets, rel) {
					return nil, &PathError{rel, "the patch changes a file that is not among the --target files"}
				}
			}
			base, exists, err := ws.readLive(rel)
			if err != nil {
				return nil, err
			}
			if fp.OldPath == "/dev/null" && exists {
				return nil, &PatchError{0, fmt.Sprintf("the patch creates %s, which already exists", rel)}
			}
			if fp.OldPath != "/dev/null" && !exists {
				return nil, &PatchError{0, fmt.Sprintf("%s does not exist", rel)}
			}
			out, err := fp.Apply(base)
			if err != nil {
				return nil, err
			}
			if err := addFile(rel, out); err != nil {
				return nil, err
			}
		}
	case FromRepair:
		rel, err := one()
		if err != nil {
			return nil, err
		}
		if req.Repair == nil {
			return nil, errors.New("no repair option given")
		}
		out, src, err := ws.applyRepair(rel, *req.Repair, hooks)
		if err != nil {
			return nil, err
		}
		p.Source.Repair = src
		p.Signals = []string{src.Code, src.Signal}
		if err := addFile(rel, out); err != nil {
			return nil, err
		}
	case FromDelta:
		rel, err := one()
		if err != nil {
			return nil, err
		}
		delta, err := ParseDelta(req.Delta)
		if err != nil {
			return nil, err
		}
		base, exists, err := ws.readLive(rel)
		if err != nil {
			return nil, err
		}
		out, err := delta.Synthesize(base, exists)
		if err != nil {
			return nil, err
		}
		p.Source.DeltaHash = delta.Hash()
		p.OpenHoles = delta.OpenHoles
		if err := addFile(rel, out); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown proposal kind %q", req.Kind)
	}
	changed := false
	for _, f := range p.Files {
		if !f.BaseExists || !bytes.Equal(f.Base, f.Candidate) {
			changed = true
		}
		if len(f.Candidate) > load.MaxFileSize {
			return nil, fmt.Errorf("%s: candidate is larger than %d MB", f.Path, load.MaxFileSize>>20)
		}
	}
	if !changed {
		return nil, errors.New("the candidate is identical to the current files: nothing to propose")
	}
	sort.Slice(p.Files, func(i, j int) bool { return p.Files[i].Path < p.Files[j].Path })
	if req.Kind != FromRepair {
		// The triggering signals: what is wrong with the files now.
		set := map[string]bool{}
		for _, f := range p.Files {
			if !f.BaseExists {
				continue
			}
			pkg := ws.loader(map[string][]byte{ws.Abs(f.Path): f.Base}).LoadSource(ws.Abs(f.Path), f.Base)
			for _, s := range DiagnosticSignals(checked(pkg, hooks)) {
				set[s] = true
			}
		}
		p.Signals = sortedKeys(set)
	}
	return p, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// checked returns a package's diagnostics with its examples' (examples
// run only on modules without errors), as caps check reports them.
func checked(pkg *load.Package, hooks Hooks) []syntax.Diagnostic {
	ds := append([]syntax.Diagnostic(nil), pkg.Result.Diagnostics...)
	if !pkg.Result.HasErrors() && hooks.Examples != nil {
		ds = append(ds, hooks.Examples(pkg)...)
	}
	return ds
}

// applyRepair applies a repair option to a target.
func (ws *Workspace) applyRepair(rel string, ref RepairRef, hooks Hooks) ([]byte, *RepairSource, error) {
	src, exists, err := ws.readLive(rel)
	if err != nil {
		return nil, nil, err
	}
	if !exists {
		return nil, nil, fmt.Errorf("%s does not exist", rel)
	}
	abs := ws.Abs(rel)
	pkg := ws.loader(nil).LoadSource(abs, src)
	diags := checked(pkg, hooks)
	var evaluated map[syntax.Span]string
	if hooks.Evaluated != nil && !pkg.Result.HasErrors() {
		evaluated = hooks.Evaluated(pkg)
	}
	plans := repair.Plans(repair.Input{File: pkg.File, Result: pkg.Result, Diagnostics: diags, Evaluated: evaluated})
	lines := pkg.File.Source.CST.Lines
	var codesHere []string
	for _, pl := range plans {
		d := pl.Diagnostic
		if lines.Point(d.Span.Start).Line != ref.Line {
			continue
		}
		codesHere = append(codesHere, d.Code)
		if d.Code != ref.Code {
			continue
		}
		var ids []string
		for _, o := range pl.Options {
			ids = append(ids, o.ID)
			if ref.Option != "" && o.ID != ref.Option {
				continue
			}
			return repair.Apply(src, o.Edits), &RepairSource{
				Code: d.Code, Line: ref.Line, Option: o.ID, Title: o.Title, Safety: o.Safety,
				Message: d.Message, Signal: ErrorSignature(d.Code, d.Message),
			}, nil
		}
		return nil, nil, fmt.Errorf("%s:%d: %s has no repair option %q (options: %s)", rel, ref.Line, ref.Code, ref.Option, strings.Join(ids, ", "))
	}
	if len(codesHere) > 0 {
		return nil, nil, fmt.Errorf("%s:%d: no repairable %s here (repairable: %s)", rel, ref.Line, ref.Code, strings.Join(codesHere, ", "))
	}
	return nil, nil, fmt.Errorf("%s:%d: no repairable diagnostic %s on this line (see caps repair-plan %s)", rel, ref.Line, ref.Code, rel)
}

// ProposalID derives a proposal's id from its content and creation time:
// "p-" and 16 hex digits.
func ProposalID(p *Proposal) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", p.CreatedAt, p.By, p.Reason, p.Source.Kind)
	for _, f := range p.Files {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", f.Path, f.BaseSHA256, f.CandidateSHA256)
	}
	return "p-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// ParseRepairRef parses CODE@LINE[:OPTION].
func ParseRepairRef(s string) (*RepairRef, error) {
	code, rest, ok := strings.Cut(s, "@")
	if !ok || code == "" {
		return nil, fmt.Errorf("bad repair %q: expected CODE@LINE[:OPTION], e.g. E_EFFECT_NOT_DECLARED@12:declare-effect", s)
	}
	line, opt, _ := strings.Cut(rest, ":")
	n := 0
	if _, err := fmt.Sscanf(line, "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != line {
		return nil, fmt.Errorf("bad repair %q: LINE must be a line number (1-based)", s)
	}
	return &RepairRef{Code: code, Line: n, Option: opt}, nil
}
