// Package patterns is Capsulang's pattern library: known-good workflow
// modules (a state machine with its context, events, effect intents and
// surfaces) that an agent or a person starts from instead of a blank
// file. Each pattern ships as a checked module with function examples and
// a machine scenario (scenarios/FILE-BASE.MACHINE.json); the package's
// tests keep every one passing caps check and caps test. caps patterns
// lists and shows them and caps new writes one out under a new module
// name.
package patterns

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

//go:embed catalog.json *.caps scenarios/*.json
var files embed.FS

// Pattern is one workflow of the library.
type Pattern struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Summary string   `json:"summary"`
	Tags    []string `json:"tags"`
	// File is the module's file name in the library; Machine its machine;
	// StartEvent the event that starts a run.
	File       string `json:"file"`
	Machine    string `json:"machine"`
	StartEvent string `json:"start_event"`
	// Source is the module's text; Scenario the machine scenario (JSON),
	// named ScenarioFile.
	Source       []byte `json:"-"`
	Scenario     []byte `json:"-"`
	ScenarioFile string `json:"-"`
}

var (
	all    []*Pattern
	byName = map[string]*Pattern{}
)

func init() {
	b, err := files.ReadFile("catalog.json")
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(b, &all); err != nil {
		panic("patterns: catalog.json: " + err.Error())
	}
	for _, p := range all {
		if p.Source, err = files.ReadFile(p.File); err != nil {
			panic("patterns: " + err.Error())
		}
		p.ScenarioFile = "scenarios/" + strings.TrimSuffix(p.File, ".caps") + "." + p.Machine + ".json"
		if p.Scenario, err = files.ReadFile(p.ScenarioFile); err != nil {
			panic("patterns: " + err.Error())
		}
		byName[p.Name] = p
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
}

// All returns every pattern, sorted by name.
func All() []*Pattern { return all }

// Lookup returns the named pattern, or nil.
func Lookup(name string) *Pattern { return byName[name] }

// Names returns the pattern names, sorted.
func Names() []string {
	out := make([]string, len(all))
	for i, p := range all {
		out[i] = p.Name
	}
	return out
}

// ModuleName is the module name of the library's copy of p.
func (p *Pattern) ModuleName() string {
	return "patterns." + strings.TrimSuffix(p.File, ".caps")
}

var moduleLine = regexp.MustCompile(`(?m)^\(module [^\s()]+`)

// Template returns p's module renamed to module (the rest unchanged).
func (p *Pattern) Template(module string) []byte {
	done := false
	return moduleLine.ReplaceAllFunc(p.Source, func(m []byte) []byte {
		if done {
			return m
		}
		done = true
		return []byte("(module " + module)
	})
}

var identRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$`)

// ModuleFor derives a module name from a file path: its base name without
// extension, lower case, with anything but letters, digits and _ turned
// into _ (and a leading digit prefixed with m_).
func ModuleFor(file string) string {
	base := strings.TrimSuffix(path.Base(strings.ReplaceAll(file, "\\", "/")), path.Ext(file))
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" {
		s = "workflow"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "m_" + s
	}
	return s
}

// ValidModule reports whether name can name a module.
func ValidModule(name string) error {
	if !identRE.MatchString(name) {
		return fmt.Errorf("%q is not a module name: use lower-case words of letters, digits and _, joined by dots", name)
	}
	return nil
}
