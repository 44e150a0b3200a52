package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/scenario"
)

// Scenario files for dry runs. A dry run reads only scenario files inside
// the workspace folders (the one named by the command) or the document's
// folder (those found beside it), with the rule that keeps imports in
// their roots: symbolic links that lead out are refused. The files are
// decoded by runtime/scenario, as strictly as `caps test --scenario`, and
// their errors never show the file's bytes.

// scenarioFile is a scenario file to replay.
type scenarioFile struct {
	path string // resolved, inside its root
	name string // as the user named it, for messages
}

// namedScenario resolves the dry run's scenario argument (a path or a
// file URI; a relative path is relative to the document's folder) and
// confines it to the workspace folders.
func (s *Server) namedScenario(docPath, arg string) (scenarioFile, error) {
	s.mu.Lock()
	roots := append([]string(nil), s.folders...)
	s.mu.Unlock()
	path := uriPath(protocol.DocumentURI(arg))
	if !filepath.IsAbs(path) {
		if !filepath.IsAbs(docPath) {
			return scenarioFile{}, fmt.Errorf("scenario %s: the document has no folder to be relative to; give the scenario as an absolute path or a file URI", arg)
		}
		path = filepath.Join(filepath.Dir(docPath), path)
	}
	if len(roots) == 0 {
		return scenarioFile{}, fmt.Errorf("scenario %s: no workspace folder is open; a dry run reads scenario files only from inside the workspace folders", arg)
	}
	real, err := confine(arg, filepath.Clean(path), roots, "the workspace folders")
	return scenarioFile{path: real, name: arg}, err
}

// confine returns path with its symbolic links resolved if it lies inside
// one of roots, lexically and after resolving them (load.Inside, the
// imports' rule); what names the roots in messages. A path outside every
// root is refused before the file system is asked anything about it.
func confine(name, path string, roots []string, what string) (string, error) {
	outside := fmt.Sprintf("outside %s (%s); a dry run reads scenario files only from inside them", what, strings.Join(roots, ", "))
	var refused error
	for _, root := range roots {
		if !lexicallyInside(root, path) {
			continue
		}
		real, inside, err := load.Inside(root, path)
		switch {
		case err != nil:
			return "", fmt.Errorf("scenario %s: %s", name, pathProblem(err))
		case inside:
			return real, nil
		}
		refused = fmt.Errorf("scenario %s resolves to %s, %s", name, real, outside)
	}
	if refused != nil {
		return "", refused
	}
	return "", fmt.Errorf("scenario %s is %s", name, outside)
}

// lexicallyInside reports whether the clean absolute path names root or
// something under it, without following links.
func lexicallyInside(root, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// pathProblem words a file system error without its path.
func pathProblem(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "no such file"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// besideScenarios finds the scenario files of a machine beside the
// capsule, scenarios/FILE.MACHINE*.json and FILE.MACHINE*.json, confined
// to the document's folder. A document that is not a file has none.
func besideScenarios(docPath, machineName string) ([]scenarioFile, error) {
	if !filepath.IsAbs(docPath) {
		return nil, nil
	}
	dir := filepath.Dir(docPath)
	base := strings.TrimSuffix(filepath.Base(docPath), ".caps")
	var paths []string
	for _, pat := range []string{filepath.Join(dir, "scenarios", base+"."+machineName+"*.json"), filepath.Join(dir, base+"."+machineName+"*.json")} {
		m, _ := filepath.Glob(pat)
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	var out []scenarioFile
	for _, p := range paths {
		name, _ := filepath.Rel(dir, p)
		real, err := confine(name, p, []string{dir}, "the document's folder")
		if err != nil {
			return nil, err
		}
		out = append(out, scenarioFile{path: real, name: name})
	}
	return out, nil
}

// events reads the scenario file for machineName and returns the events
// it sends (its expectations are for caps test; advances of the clock and
// cancellations are not replayed).
func (f scenarioFile) events(machineName string) ([]machine.Event, error) {
	data, err := f.read()
	if err != nil {
		return nil, err
	}
	sc, err := scenario.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: not a scenario: %s", f.name, scenarioProblem(err))
	}
	if sc.Machine != machineName {
		return nil, fmt.Errorf("scenario %s is for machine %s, not %s", f.name, clip(sc.Machine), machineName)
	}
	var evs []machine.Event
	for _, st := range sc.Events {
		if st.Event != "" {
			evs = append(evs, machine.Event{Name: st.Event, Raw: st.Payload})
		}
	}
	return evs, nil
}

// read reads a regular file of at most load.MaxFileSize bytes.
func (f scenarioFile) read() ([]byte, error) {
	st, err := os.Stat(f.path)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %s", f.name, pathProblem(err))
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("scenario %s: not a regular file", f.name)
	}
	file, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %s", f.name, pathProblem(err))
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, load.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %s", f.name, pathProblem(err))
	}
	if len(data) > load.MaxFileSize {
		return nil, fmt.Errorf("scenario %s: larger than the %d MB limit for scenario files", f.name, load.MaxFileSize>>20)
	}
	return data, nil
}

// scenarioProblem words a decoding error without the file's bytes: a JSON
// syntax error by its offset (encoding/json would quote the character),
// a value of the wrong type by its key; the scenario package's own errors
// name a key or a step, clipped.
func scenarioProblem(err error) string {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Sprintf("invalid JSON at byte %d", syntax.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		if typ.Field == "" {
			return "the file is not a JSON object"
		}
		return fmt.Sprintf("%q has the wrong type (at byte %d)", typ.Field, typ.Offset)
	}
	return clip(strings.TrimPrefix(err.Error(), "json: "))
}

// clipLen bounds a name or message quoted from a scenario file.
const clipLen = 120

// clip shortens s to clipLen bytes, on a character boundary, with an
// ellipsis.
func clip(s string) string {
	if len(s) <= clipLen {
		return s
	}
	n := clipLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
