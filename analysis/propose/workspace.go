package propose

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// MetaDir is the workspace's metadata folder: proposals, the evolution
// ledger, stored file contents and the policy. No proposal may touch it.
const MetaDir = ".caps"

// PolicyFile is the workspace policy, relative to the root.
const PolicyFile = MetaDir + "/policy.json"

// Workspace is a folder of .caps files that proposals change. Its root is
// an absolute path with symbolic links resolved.
type Workspace struct {
	Root string
	// ImportRoots are extra import folders (CAPS_PATH), as for caps check.
	ImportRoots []string
	// Policy is the workspace policy (PolicyFile), or the zero policy.
	Policy *Policy
	// PolicyHash is the SHA-256 of the policy file's bytes ("" when absent).
	PolicyHash string
}

// FindRoot returns the nearest folder at or above start that holds a .caps
// or a .git folder.
func FindRoot(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		for _, m := range []string{MetaDir, ".git"} {
			if st, err := os.Stat(filepath.Join(dir, m)); err == nil && st.IsDir() {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no workspace: no folder at or above %s holds .caps/ or .git/ (create .caps/ or pass --workspace DIR)", start)
		}
		dir = parent
	}
}

// OpenWorkspace opens the workspace at root and reads its policy.
func OpenWorkspace(root string, importRoots []string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %v", root, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("workspace %s is not a folder", root)
	}
	ws := &Workspace{Root: real, ImportRoots: importRoots, Policy: &Policy{}}
	b, err := os.ReadFile(filepath.Join(real, filepath.FromSlash(PolicyFile)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		p, err := ParsePolicy(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", PolicyFile, err)
		}
		ws.Policy = p
		sum := sha256.Sum256(b)
		ws.PolicyHash = "sha256:" + hex.EncodeToString(sum[:])
	}
	return ws, nil
}

// Abs returns the absolute path of a workspace-relative (slash) path.
func (ws *Workspace) Abs(rel string) string {
	return filepath.Join(ws.Root, filepath.FromSlash(rel))
}

// PathError is a refused proposal path.
type PathError struct {
	Path   string
	Reason string
}

func (e *PathError) Error() string { return fmt.Sprintf("refused: %s: %s", e.Path, e.Reason) }

// Target checks that path (absolute, or relative to the current folder)
// may be changed by a proposal and returns its workspace-relative slash
// path. Refused: paths outside the workspace (also through symbolic
// links), symbolic links themselves, anything inside a .git or .caps
// folder, files that are not .caps files, folders, and the workspace
// policy's forbidden paths.
func (ws *Workspace) Target(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", &PathError{p, err.Error()}
	}
	return ws.checkTarget(p, abs)
}

// TargetRel is Target for a path relative to the workspace root (as in a
// diff header).
func (ws *Workspace) TargetRel(rel string) (string, error) {
	if filepath.IsAbs(rel) || strings.HasPrefix(filepath.ToSlash(rel), "/") {
		return "", &PathError{rel, "absolute path in a patch; patch paths are relative to the workspace root"}
	}
	return ws.checkTarget(rel, filepath.Join(ws.Root, filepath.FromSlash(rel)))
}

func (ws *Workspace) checkTarget(display, abs string) (string, error) {
	abs = filepath.Clean(abs)
	// Resolve symbolic links in the existing part of the path.
	dir, rest := abs, ""
	for {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
	if rest != "" && filepath.Dir(rest) != "." {
		return "", &PathError{display, "its folder does not exist"}
	}
	var real string
	if rest == "" {
		// The file exists: it must be a regular file, not a link.
		st, err := os.Lstat(abs)
		if err != nil {
			return "", &PathError{display, err.Error()}
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return "", &PathError{display, "is a symbolic link; proposals change regular files only"}
		}
		if st.IsDir() {
			return "", &PathError{display, "is a folder, not a .caps file"}
		}
		if !st.Mode().IsRegular() {
			return "", &PathError{display, "is not a regular file"}
		}
		d, err := filepath.EvalSymlinks(filepath.Dir(abs))
		if err != nil {
			return "", &PathError{display, err.Error()}
		}
		real = filepath.Join(d, filepath.Base(abs))
	} else {
		d, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return "", &PathError{display, err.Error()}
		}
		real = filepath.Join(d, rest)
	}
	rel, err := filepath.Rel(ws.Root, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &PathError{display, fmt.Sprintf("outside the workspace %s", ws.Root)}
	}
	rel = filepath.ToSlash(rel)
	if err := ws.CheckRel(rel); err != nil {
		return "", &PathError{display, err.(*PathError).Reason}
	}
	return rel, nil
}

// CheckRel applies the rules on the names alone to a workspace-relative
// slash path: no .git or .caps folder, a .caps file, not forbidden by the
// policy.
func (ws *Workspace) CheckRel(rel string) error {
	clean := path.Clean(rel)
	if clean != rel || strings.HasPrefix(rel, "../") || rel == ".." || strings.HasPrefix(rel, "/") {
		return &PathError{rel, "not a clean workspace-relative path"}
	}
	for _, part := range strings.Split(rel, "/") {
		switch part {
		case ".git":
			return &PathError{rel, "inside a .git folder"}
		case MetaDir:
			return &PathError{rel, "inside the workspace's .caps folder (proposals, the evolution ledger, the policy)"}
		}
	}
	if !strings.HasSuffix(rel, ".caps") {
		return &PathError{rel, "not a .caps file; proposals change Capsulang sources only"}
	}
	if pat := ws.Policy.Forbids(rel); pat != "" {
		return &PathError{rel, fmt.Sprintf("forbidden by the workspace policy (%q)", pat)}
	}
	return nil
}

// Policy is the workspace policy, read from .caps/policy.json:
//
//	{
//	  "forbidden_paths": ["vendor/**", "examples/authority.caps"],
//	  "max_files": 5,
//	  "max_lines": 400,
//	  "validation": [
//	    {"name": "check", "command": "caps check examples", "timeout_seconds": 60}
//	  ]
//	}
//
// Forbidden paths are slash patterns relative to the root: path.Match
// syntax, where a final "/**" also matches everything below a folder.
// Limits of 0 mean none. Validation commands run against a copy of the
// workspace holding the candidate; see ParseCommand for what a command
// may contain.
type Policy struct {
	ForbiddenPaths []string      `json:"forbidden_paths,omitempty"`
	MaxFiles       int           `json:"max_files,omitempty"`
	MaxLines       int           `json:"max_lines,omitempty"`
	Validation     []CommandSpec `json:"validation,omitempty"`
}

// CommandSpec is one validation command of the policy.
type CommandSpec struct {
	Name           string `json:"name"`
	Command        string `json:"command"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty"`
}

// DefaultTimeout and MaxTimeout bound a validation command's run time.
const (
	DefaultTimeout = 120 * time.Second
	MaxTimeout     = 30 * time.Minute
)

// Timeout returns the command's time limit.
func (c CommandSpec) Timeout() time.Duration {
	if c.TimeoutSeconds <= 0 {
		return DefaultTimeout
	}
	return min(time.Duration(c.TimeoutSeconds)*time.Second, MaxTimeout)
}

// ParsePolicy decodes a policy file; unknown fields are errors.
func ParsePolicy(b []byte) (*Policy, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	p := &Policy{}
	if err := dec.Decode(p); err != nil {
		return nil, err
	}
	for _, pat := range p.ForbiddenPaths {
		if _, err := path.Match(strings.TrimSuffix(pat, "/**"), ""); err != nil {
			return nil, fmt.Errorf("forbidden path %q: %v", pat, err)
		}
	}
	for i, c := range p.Validation {
		if c.Name == "" {
			p.Validation[i].Name = fmt.Sprintf("command %d", i+1)
		}
	}
	return p, nil
}

// Forbids returns the pattern that forbids rel, or "".
func (p *Policy) Forbids(rel string) string {
	if p == nil {
		return ""
	}
	for _, pat := range p.ForbiddenPaths {
		pat = strings.TrimPrefix(path.Clean(pat), "./")
		if dir, ok := strings.CutSuffix(pat, "/**"); ok {
			if ok, _ := path.Match(dir, rel); ok {
				return pat
			}
			for d := path.Dir(rel); d != "."; d = path.Dir(d) {
				if ok, _ := path.Match(dir, d); ok {
					return pat
				}
			}
			continue
		}
		if ok, _ := path.Match(pat, rel); ok {
			return pat
		}
		// A pattern naming a folder forbids everything below it.
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			if ok, _ := path.Match(pat, d); ok {
				return pat
			}
		}
	}
	return ""
}

// Command is a parsed validation command: a program name from the
// allow-list and its arguments. It runs without a shell.
type Command struct {
	Name string   `json:"name"`
	Argv []string `json:"argv"`
	// Timeout is the time limit of one run.
	Timeout time.Duration `json:"-"`
}

// ParseCommand splits a validation command line into words. Words are
// separated by spaces and tabs; '...' and "..." quote literally (no
// escapes). Refused, because a shell would give them meaning that this
// runner does not: command substitution (` and $( ), variables ($),
// operators and redirections (; & | < >), newlines, and backslashes. The
// program (the first word) must be a bare name in allowed.
func ParseCommand(line string, allowed []string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case ' ', '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case '\'', '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unterminated %c quote", c)
			}
			q := line[i+1 : i+1+j]
			if c == '"' && strings.ContainsAny(q, "`$\\") {
				return nil, errors.New("refused: `, $ and \\ are not allowed, even in double quotes (no shell runs the command)")
			}
			cur.WriteString(q)
			inWord = true
			i += j + 1
		case '`', '$', ';', '&', '|', '<', '>', '\n', '\r', '\\', '(', ')', '*', '?', '~', '#':
			return nil, fmt.Errorf("refused: %q is shell syntax; validation commands run without a shell (quote it if it is a literal argument)", c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	prog := words[0]
	if strings.ContainsAny(prog, `/\`) || prog == "." || prog == ".." {
		return nil, fmt.Errorf("refused: program %q must be a bare name from the allow-list (%s)", prog, strings.Join(allowed, ", "))
	}
	ok := false
	for _, a := range allowed {
		if a == prog {
			ok = true
		}
	}
	if !ok {
		return nil, fmt.Errorf("refused: program %q is not in the allow-list (%s)", prog, strings.Join(allowed, ", "))
	}
	return words, nil
}

// DefaultAllowedPrograms are the programs validation commands may run.
var DefaultAllowedPrograms = []string{"caps", "go"}

// walkCaps lists the workspace's .caps files (workspace-relative slash
// paths, sorted), skipping hidden folders, node_modules and build, up to
// limit files.
func (ws *Workspace) walkCaps(limit int) []string {
	var out []string
	filepath.WalkDir(ws.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != ws.Root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(name, ".caps") {
			rel, err := filepath.Rel(ws.Root, p)
			if err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
			if len(out) >= limit {
				return filepath.SkipAll
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}
