package propose

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
	"github.com/capsulang/caps/syntax/format"
)

// AuthoringDelta is the structured change an AI author proposes (spec §11):
// requirements, assumptions and open holes, plus the declarations to add
// or replace. Synthesize turns it into source deterministically: the same
// delta applied to the same file always yields the same bytes.
//
//	{
//	  "module": "examples.triage",          // for a new file
//	  "capsule": "1.0",                     // for a new file (default "1.0")
//	  "profiles": ["agentic"],              // added when missing
//	  "requirements": ["..."], "assumptions": ["..."], "open_holes": ["..."],
//	  "declarations": [
//	    {"kind": "function", "name": "score", "doc": "Scores a ticket.",
//	     "source": "(function score (input (x U32)) (output U32) (body x))"},
//	    {"kind": "gate", "name": "Ship",
//	     "clauses": [["requires", "approval", "Owner", "granted"],
//	                 ["summary", {"text": "Owner signs off."}]]}
//	  ]
//	}
//
// A declaration is given either as source (exactly one form, whose head
// and name must match kind and name) or as clauses: JSON arrays whose
// first element is the clause key. In clauses a JSON string is a symbol
// or number written as is, {"text": "..."} is a string literal, true and
// false are booleans, numbers are numbers and nested arrays are lists.
type AuthoringDelta struct {
	Module       string      `json:"module,omitempty"`
	Capsule      string      `json:"capsule,omitempty"`
	Profiles     []string    `json:"profiles,omitempty"`
	Requirements []string    `json:"requirements,omitempty"`
	Assumptions  []string    `json:"assumptions,omitempty"`
	OpenHoles    []string    `json:"open_holes,omitempty"`
	Declarations []DeltaDecl `json:"declarations,omitempty"`
}

// DeltaDecl is one proposed declaration.
type DeltaDecl struct {
	Kind    string            `json:"kind"`
	Name    string            `json:"name"`
	Doc     string            `json:"doc,omitempty"`
	Source  string            `json:"source,omitempty"`
	Clauses []json.RawMessage `json:"clauses,omitempty"`
}

var atomRE = regexp.MustCompile(`^[^\s()";]+$`)

// ParseDelta validates an authoring delta against its published schema
// (a *SchemaError naming the failing paths), then decodes and checks it.
func ParseDelta(b []byte) (*AuthoringDelta, error) {
	if err := ValidateDeltaSchema(b); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	d := &AuthoringDelta{}
	if err := dec.Decode(d); err != nil {
		return nil, fmt.Errorf("authoring delta: %v", err)
	}
	if dec.More() {
		return nil, errors.New("authoring delta: data after the JSON object")
	}
	kinds := map[string]bool{}
	for _, k := range ast.DeclKinds {
		kinds[string(k)] = true
	}
	seen := map[string]bool{}
	for i, decl := range d.Declarations {
		where := fmt.Sprintf("authoring delta: declaration %d", i+1)
		if !kinds[decl.Kind] {
			return nil, fmt.Errorf("%s: unknown kind %q", where, decl.Kind)
		}
		if !atomRE.MatchString(decl.Name) {
			return nil, fmt.Errorf("%s: bad name %q", where, decl.Name)
		}
		if (decl.Source == "") == (len(decl.Clauses) == 0) {
			return nil, fmt.Errorf("%s (%s %s): give either source or clauses", where, decl.Kind, decl.Name)
		}
		key := decl.Kind + " " + decl.Name
		if seen[key] {
			return nil, fmt.Errorf("%s: %s is given twice", where, key)
		}
		seen[key] = true
	}
	for _, p := range d.Profiles {
		if !atomRE.MatchString(p) {
			return nil, fmt.Errorf("authoring delta: bad profile %q", p)
		}
	}
	if d.Module != "" && !atomRE.MatchString(d.Module) {
		return nil, fmt.Errorf("authoring delta: bad module name %q", d.Module)
	}
	return d, nil
}

// Hash returns the SHA-256 of the delta's normalized JSON: lists sorted
// without repeats, declarations sorted by kind and name, clause JSON
// re-encoded. Deltas that synthesize the same source have the same hash.
func (d *AuthoringDelta) Hash() string {
	c := *d
	c.Requirements = sortedUnique(d.Requirements)
	c.Assumptions = sortedUnique(d.Assumptions)
	c.OpenHoles = sortedUnique(d.OpenHoles)
	c.Profiles = sortedUnique(d.Profiles)
	c.Declarations = nil
	for _, decl := range d.Declarations {
		n := decl
		n.Clauses = nil
		for _, raw := range decl.Clauses {
			var v any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if dec.Decode(&v) == nil {
				b, _ := json.Marshal(v)
				raw = b
			}
			n.Clauses = append(n.Clauses, raw)
		}
		c.Declarations = append(c.Declarations, n)
	}
	sort.Slice(c.Declarations, func(i, j int) bool {
		a, b := c.Declarations[i], c.Declarations[j]
		return a.Kind+" "+a.Name < b.Kind+" "+b.Name
	})
	b, _ := json.Marshal(c)
	return SHA256(b)
}

func sortedUnique(ss []string) []string {
	set := map[string]bool{}
	for _, s := range ss {
		s = strings.Join(strings.Fields(s), " ")
		if s != "" {
			set[s] = true
		}
	}
	if len(set) == 0 {
		return nil
	}
	return sortedKeys(set)
}

// text renders one declaration as source (not yet formatted).
func (decl DeltaDecl) text() (string, error) {
	var b strings.Builder
	for _, l := range docLines(decl.Doc) {
		b.WriteString(";; " + l + "\n")
	}
	if decl.Source != "" {
		f, err := ast.Parse([]byte(decl.Source))
		if err != nil {
			return "", err
		}
		forms := f.Source.Forms
		for _, d := range f.Diagnostics {
			if d.Code == syntax.CodeParse {
				return "", fmt.Errorf("%s %s: source does not parse: %s", decl.Kind, decl.Name, d.Message)
			}
		}
		if len(forms) != 1 || forms[0].Head() != decl.Kind || len(forms[0].Items()) < 2 || forms[0].Items()[1].Text() != decl.Name {
			return "", fmt.Errorf("%s %s: source must be exactly one (%s %s ...) form", decl.Kind, decl.Name, decl.Kind, decl.Name)
		}
		b.WriteString(strings.TrimSpace(decl.Source))
		return b.String(), nil
	}
	b.WriteString("(" + decl.Kind + " " + decl.Name)
	for i, raw := range decl.Clauses {
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return "", err
		}
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			return "", fmt.Errorf("%s %s: clause %d must be a non-empty array", decl.Kind, decl.Name, i+1)
		}
		if _, ok := arr[0].(string); !ok {
			return "", fmt.Errorf("%s %s: clause %d must start with its key", decl.Kind, decl.Name, i+1)
		}
		s, err := jsonForm(v)
		if err != nil {
			return "", fmt.Errorf("%s %s: clause %d: %v", decl.Kind, decl.Name, i+1, err)
		}
		b.WriteString("\n  " + s)
	}
	b.WriteString(")")
	return b.String(), nil
}

// jsonForm renders a clause value as source.
func jsonForm(v any) (string, error) {
	switch v := v.(type) {
	case string:
		if !atomRE.MatchString(v) {
			return "", fmt.Errorf("%q is not a symbol; write {\"text\": ...} for a string", v)
		}
		return v, nil
	case json.Number:
		return string(v), nil
	case bool:
		return strconv.FormatBool(v), nil
	case map[string]any:
		t, ok := v["text"].(string)
		if !ok || len(v) != 1 {
			return "", errors.New(`an object must be {"text": "..."}`)
		}
		return syntaxQuote(t), nil
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			s, err := jsonForm(x)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "(" + strings.Join(parts, " ") + ")", nil
	}
	return "", fmt.Errorf("unsupported value %v", v)
}

// syntaxQuote writes a Capsulang string literal.
func syntaxQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func docLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// notes renders the requirements, assumptions and open holes as a comment
// block, each list sorted.
func (d *AuthoringDelta) notes() string {
	var b strings.Builder
	for _, g := range []struct {
		label string
		items []string
	}{{"requirement", d.Requirements}, {"assumption", d.Assumptions}, {"open hole", d.OpenHoles}} {
		for _, it := range sortedUnique(g.items) {
			b.WriteString(";; " + g.label + ": " + it + "\n")
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return ";; Authoring delta " + strings.TrimPrefix(d.Hash(), "sha256:")[:12] + ":\n" + b.String()
}

// Synthesize applies the delta to a file's content (base; exists false for
// a new file) and returns the formatted result. Declarations that exist
// (same kind and name) are replaced in place, with their doc comment when
// the delta gives one; new ones are appended to the module sorted by kind
// (in the order of ast.DeclKinds) and name; missing profiles are added.
// The notes block goes before the first new or replaced declaration.
func (d *AuthoringDelta) Synthesize(base []byte, exists bool) ([]byte, error) {
	if !exists || len(bytes.TrimSpace(base)) == 0 {
		if d.Module == "" {
			return nil, errors.New("authoring delta: a new file needs \"module\"")
		}
		capsule := d.Capsule
		if capsule == "" {
			capsule = "1.0"
		}
		base = []byte("(module " + d.Module + "\n  (capsule " + syntaxQuote(capsule) + "))\n")
	}
	f, err := ast.Parse(base)
	if err != nil {
		return nil, err
	}
	for _, dg := range f.Diagnostics {
		if dg.Code == syntax.CodeParse {
			return nil, fmt.Errorf("the target does not parse, so a delta cannot be merged into it: %s", dg.Message)
		}
	}
	m := f.Module
	if m == nil {
		return nil, errors.New("the target holds no (module ...) form")
	}
	if d.Module != "" && d.Module != m.Name.Name {
		return nil, fmt.Errorf("authoring delta is for module %s, the target is module %s", d.Module, m.Name.Name)
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	existing := map[string]ast.Decl{}
	for _, decl := range m.Decls {
		if decl != nil && decl.Base() != nil {
			existing[string(decl.Kind())+" "+decl.Base().Name.Name] = decl
		}
	}
	order := map[string]int{}
	for i, k := range ast.DeclKinds {
		order[string(k)] = i
	}
	decls := append([]DeltaDecl(nil), d.Declarations...)
	sort.SliceStable(decls, func(i, j int) bool {
		if decls[i].Kind != decls[j].Kind {
			return order[decls[i].Kind] < order[decls[j].Kind]
		}
		return decls[i].Name < decls[j].Name
	})
	notes := d.notes()
	firstAt := -1 // offset of the first new or replaced declaration
	var appended []string
	for _, decl := range decls {
		text, err := decl.text()
		if err != nil {
			return nil, err
		}
		if old, ok := existing[decl.Kind+" "+decl.Name]; ok {
			sp := old.Base().Form.Span()
			start := sp.Start
			if decl.Doc != "" {
				start = docStart(base, start)
			}
			edits = append(edits, edit{start, sp.End, text})
			if firstAt < 0 || start < firstAt {
				firstAt = start
			}
			continue
		}
		appended = append(appended, text)
	}
	end := m.Form.Span().End - 1 // before the module's ")"
	if len(appended) > 0 {
		var b strings.Builder
		for i, t := range appended {
			b.WriteString("\n\n")
			if i == 0 && notes != "" && firstAt < 0 {
				b.WriteString(notes + "\n")
				notes = ""
			}
			b.WriteString(t)
		}
		edits = append(edits, edit{end, end, b.String()})
	}
	if notes != "" {
		// Before the first replaced declaration, or the module's first
		// item when the delta declares nothing.
		at := firstAt
		if at < 0 && len(m.Form.Items()) > 2 {
			at = docStart(base, m.Form.Items()[2].Span().Start)
		}
		if at < 0 {
			at = end
		}
		edits = append(edits, edit{at, at, notes + "\n"})
	}
	// Profiles.
	var missing []string
	have := map[string]bool{}
	for _, p := range m.Profiles {
		have[p.Name] = true
	}
	for _, p := range sortedUnique(d.Profiles) {
		if !have[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		done := false
		for _, it := range m.Form.Items() {
			if it.Head() == "profile" {
				e := it.Span().End - 1
				edits = append(edits, edit{e, e, " " + strings.Join(missing, " ")})
				done = true
				break
			}
		}
		if !done {
			at := m.Name.Span.End
			for _, it := range m.Form.Items() {
				if it.Head() == "capsule" {
					at = it.Span().End
				}
			}
			edits = append(edits, edit{at, at, "\n  (profile " + strings.Join(missing, " ") + ")"})
		}
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), base...)
	for _, e := range edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	formatted, err := format.Source(out)
	if err != nil {
		return nil, fmt.Errorf("the synthesized source is not valid: %v", err)
	}
	return formatted, nil
}

// docStart returns the start of the ;; comment lines directly above the
// line holding off (or off itself).
func docStart(src []byte, off int) int {
	lineStart := bytes.LastIndexByte(src[:off], '\n') + 1
	if strings.TrimSpace(string(src[lineStart:off])) != "" {
		return off
	}
	start := off
	for lineStart > 0 {
		prevStart := bytes.LastIndexByte(src[:lineStart-1], '\n') + 1
		line := strings.TrimSpace(string(src[prevStart : lineStart-1]))
		if !strings.HasPrefix(line, ";;") {
			break
		}
		start = prevStart
		lineStart = prevStart
	}
	if start != off {
		// Keep the indentation of the first comment line.
		for start < off && (src[start] == ' ' || src[start] == '\t') {
			start++
		}
	}
	return start
}
