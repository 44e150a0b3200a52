// Package report prints diagnostics for the caps commands, as text for
// people or as JSON for tools. Its output formats are a public contract,
// documented in docs/cli.md:
//
// Text, on stderr, one line per diagnostic and one per related location,
// with 1-based lines and 1-based columns counted in Unicode code points
// (syntax.Point, from the mapper of the file each location is in):
//
//	examples/a.caps:3:7: error E_PARSE: missing `)` to close the list opened here
//	examples/a.caps:2:3: note: the unclosed `(`
//
// JSON, on stdout, one document per run with LSP ranges (0-based lines,
// UTF-16 characters, end exclusive):
//
//	{"ok":false,"files":[{"path":"a.caps","diagnostics":[{"code":"E_PARSE",
//	  "severity":"error","message":"...","range":{"start":{"line":2,"character":6},
//	  "end":{"line":2,"character":6}},"related":[{"path":"a.caps","range":{...},
//	  "message":"the unclosed `(`"}]}]}]}
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/syntax"
)

// Result is the JSON document a command prints with --json.
type Result struct {
	// OK is true exactly when the command exits with 0.
	OK    bool    `json:"ok"`
	Files []*File `json:"files"`
}

// File is one input file in a Result.
type File struct {
	Path string `json:"path"`
	// Error says why the file could not be processed (an I/O or encoding
	// problem, exit code 2); the file then has no diagnostics.
	Error       string       `json:"error,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Extra holds command-specific fields. It must marshal to a JSON
	// object, whose fields are added to the file's object after the ones
	// above.
	Extra any `json:"-"`
}

// Diagnostic is the JSON form of a syntax.Diagnostic.
type Diagnostic struct {
	Code     string       `json:"code"`
	Severity string       `json:"severity"` // "error", "warning", "info" or "hint"
	Message  string       `json:"message"`
	Range    syntax.Range `json:"range"`
	Related  []Related    `json:"related"`
	// Suggestion is the name the checker suggests in place of the text at
	// Range (a did-you-mean); absent when there is none.
	Suggestion string `json:"suggestion,omitempty"`
	// Fix is the repair the checker knows for the diagnostic, as data;
	// absent when there is none.
	Fix *Fix `json:"fix,omitempty"`
}

// Fix is a diagnostic's syntax.Fix in JSON: the kind of repair and its
// arguments (always an array), as docs/cli.md lists them.
type Fix struct {
	Kind string   `json:"kind"`
	Args []string `json:"args"`
}

// FixOf returns d's fix in JSON, or nil.
func FixOf(d syntax.Diagnostic) *Fix {
	if d.Fix == nil {
		return nil
	}
	return &Fix{Kind: d.Fix.Kind, Args: append([]string{}, d.Fix.Args...)}
}

// Related is another location that matters to a diagnostic.
type Related struct {
	Path string `json:"path"`
	// Range is absent when the related file is not known to the report.
	Range   *syntax.Range `json:"range,omitempty"`
	Message string        `json:"message"`
}

// MarshalJSON merges Extra into the file's object.
func (f *File) MarshalJSON() ([]byte, error) {
	type plain File
	b, err := Marshal((*plain)(f))
	if err != nil || f.Extra == nil {
		return b, err
	}
	x, err := Marshal(f.Extra)
	if err != nil {
		return nil, err
	}
	if len(x) < 2 || x[0] != '{' {
		return nil, errors.New("report: File.Extra must marshal to a JSON object")
	}
	if len(x) == 2 {
		return b, nil
	}
	return append(append(b[:len(b)-1], ','), x[1:]...), nil
}

// Marshal encodes v as compact JSON without escaping <, > and &.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Source is a file that diagnostics point into.
type Source struct {
	Path  string // as given on the command line; "-" is stdin
	Text  []byte
	Lines *syntax.Mapper // the position mapper of Text; made from Text when nil
}

// Mapper returns the source's position mapper, made from Text on first
// use when Lines is nil.
func (s *Source) Mapper() *syntax.Mapper {
	if s.Lines == nil {
		s.Lines = syntax.NewMapper(s.Text)
	}
	return s.Lines
}

// Printer collects the results of one command run. In text mode it prints
// each file's diagnostics on stderr as they are added; in JSON mode Finish
// prints one Result on stdout. Either way Finish returns the exit code.
type Printer struct {
	json           bool
	stdout, stderr io.Writer
	files          []*File
	sources        map[string]*Source
	code           int
	// convs holds the cursors of each source's mapper, by encoding and
	// role (diagnostics or related locations), so that each position is
	// counted from the one before it in the same sequence rather than from
	// the start of its line: a file's diagnostics come in source order and
	// its related locations mostly move in one direction too.
	convs map[convKey]*syntax.Cursor

	// LookupSource, if set, finds files that related locations point to
	// and that were not added to the printer. NewPrinter sets it to
	// ReadRelated.
	LookupSource func(path string) *Source
}

// convKey names the cursor of one source in one encoding, for either
// diagnostics or related locations.
type convKey struct {
	src     *Source
	enc     syntax.Encoding
	related bool
}

// NewPrinter returns a printer writing to the given streams.
func NewPrinter(stdout, stderr io.Writer, jsonMode bool) *Printer {
	return &Printer{json: jsonMode, stdout: stdout, stderr: stderr, sources: map[string]*Source{}, convs: map[convKey]*syntax.Cursor{}, LookupSource: ReadRelated}
}

// ReadRelated reads a file that a related location points into, such as
// the other file of an import cycle (the checker names it by its absolute
// path). Its path is shown relative to the current folder when it is
// inside it. A file that cannot be read is left out (nil).
func ReadRelated(path string) *Source {
	f, err := cli.Load(path)
	if err != nil {
		return nil
	}
	return &Source{Path: shortPath(path), Text: f.Text}
}

// shortPath is path relative to the current folder when it is inside it,
// else path as it is.
func shortPath(path string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(path) {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// converter returns the printer's cursor over src's mapper in enc, for
// related locations or for diagnostics.
func (p *Printer) converter(src *Source, enc syntax.Encoding, related bool) *syntax.Cursor {
	k := convKey{src, enc, related}
	c := p.convs[k]
	if c == nil {
		c = src.Mapper().Cursor(enc)
		p.convs[k] = c
	}
	return c
}

// JSON reports whether the printer is in JSON mode.
func (p *Printer) JSON() bool { return p.json }

// Code returns the exit code so far.
func (p *Printer) Code() int { return p.code }

// SetFailed marks the run as failed with exit code 1 (unless it already
// has a worse code): for failures that are not diagnostics, such as a file
// that is not formatted or a failed test.
func (p *Printer) SetFailed() { p.code = max(p.code, cli.ExitFail) }

// SetError marks the run with exit code 2.
func (p *Printer) SetError() { p.code = cli.ExitUsage }

// Add records the diagnostics of src and returns its File entry, whose
// Extra the caller may set. Diagnostics are reported in source order; an
// Error-severity diagnostic makes the exit code at least 1.
func (p *Printer) Add(src *Source, ds []syntax.Diagnostic) *File {
	src.Mapper()
	p.sources[src.Path] = src
	ds = Sorted(ds)
	for _, d := range ds {
		if d.Severity == syntax.Error {
			p.code = max(p.code, cli.ExitFail)
		}
	}
	f := &File{Path: src.Path, Diagnostics: []Diagnostic{}}
	if p.json {
		f.Diagnostics = p.convert(src, ds)
	} else {
		p.printText(src, ds)
	}
	p.files = append(p.files, f)
	return f
}

// Fail records a file that could not be processed: the error goes to
// stderr as "caps: ..." (in both modes) and into the JSON result, and the
// exit code becomes 2.
func (p *Printer) Fail(path string, err error) *File {
	fmt.Fprintf(p.stderr, "%s: %v\n", cli.Program, err)
	msg := err.Error()
	var le *cli.LoadError
	if errors.As(err, &le) {
		msg = le.Msg
	}
	f := &File{Path: path, Error: msg, Diagnostics: []Diagnostic{}}
	p.files = append(p.files, f)
	p.code = cli.ExitUsage
	return f
}

// Finish prints the JSON result in JSON mode and returns the exit code.
func (p *Printer) Finish() int {
	if p.json {
		// Written file by file rather than as one Result value, so that a
		// large file's JSON is encoded once and not re-compacted.
		w := bufio.NewWriter(p.stdout)
		fmt.Fprintf(w, `{"ok":%t,"files":[`, p.code == cli.ExitOK)
		for i, f := range p.files {
			b, err := f.MarshalJSON()
			if err != nil {
				panic(err) // a programming error in some command's Extra
			}
			if i > 0 {
				w.WriteByte(',')
			}
			w.Write(b)
		}
		w.WriteString("]}\n")
		w.Flush()
	}
	return p.code
}

// Sorted returns the diagnostics ordered by position (stable, so that
// diagnostics at one place keep their order). The input is not modified.
func Sorted(ds []syntax.Diagnostic) []syntax.Diagnostic {
	out := append([]syntax.Diagnostic(nil), ds...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Span.Start != out[j].Span.Start {
			return out[i].Span.Start < out[j].Span.Start
		}
		return out[i].Span.End < out[j].Span.End
	})
	return out
}

func (p *Printer) source(path string, self *Source) *Source {
	if path == "" || path == self.Path {
		return self
	}
	if s := p.sources[path]; s != nil {
		return s
	}
	if p.LookupSource != nil {
		if s := p.LookupSource(path); s != nil {
			s.Mapper()
			p.sources[path] = s
			return s
		}
	}
	return nil
}

func (p *Printer) convert(src *Source, ds []syntax.Diagnostic) []Diagnostic {
	conv := p.converter(src, syntax.UTF16, false)
	out := make([]Diagnostic, 0, len(ds))
	for _, d := range ds {
		jd := Diagnostic{
			Code:     d.Code,
			Severity: d.Severity.String(),
			Message:  d.Message,
			Range:    conv.Range(d.Span),
			Related:  []Related{},

			Suggestion: d.Suggestion,
			Fix:        FixOf(d),
		}
		for _, r := range d.Related {
			rel := Related{Path: r.File, Message: r.Message}
			if rel.Path == "" {
				rel.Path = src.Path
			}
			if rs := p.source(r.File, src); rs != nil {
				rg := p.converter(rs, syntax.UTF16, true).Range(r.Span)
				rel.Path, rel.Range = rs.Path, &rg
			}
			jd.Related = append(jd.Related, rel)
		}
		out = append(out, jd)
	}
	return out
}

func (p *Printer) printText(src *Source, ds []syntax.Diagnostic) {
	if len(ds) == 0 {
		return
	}
	// Buffered, not gathered: the text of 100,000 diagnostics need not be
	// held at once.
	b := bufio.NewWriterSize(p.stderr, 64<<10)
	defer b.Flush()
	conv := p.converter(src, syntax.UTF32, false)
	name := cli.DisplayPath(src.Path)
	for _, d := range ds {
		fmt.Fprintf(b, "%s:%s: %s", name, conv.Point(d.Span.Start), d.Severity)
		if d.Code != "" {
			fmt.Fprintf(b, " %s", d.Code)
		}
		fmt.Fprintf(b, ": %s\n", d.Message)
		for _, r := range d.Related {
			rs := p.source(r.File, src)
			if rs == nil {
				fmt.Fprintf(b, "%s: note: %s\n", cli.DisplayPath(r.File), r.Message)
				continue
			}
			rp := p.converter(rs, syntax.UTF32, true).Point(r.Span.Start)
			fmt.Fprintf(b, "%s:%s: note: %s\n", cli.DisplayPath(rs.Path), rp, r.Message)
		}
	}
}

// ResultSchema returns the JSON Schema of the Result a command prints with
// --json when its files carry the fields of extra (a value of the type it
// sets as File.Extra; nil for none). The extra fields are required of a
// file unless the file failed (it has an error) or has an error
// diagnostic: commands leave them out then.
func ResultSchema(extra any) cli.Schema {
	type plain File // without File's MarshalJSON
	file := cli.SchemaOf(plain{})
	props := cli.Schema{}
	for k, v := range file["properties"].(cli.Schema) {
		props[k] = v
	}
	fs := cli.Schema{"type": "object", "properties": props, "required": []any{"path", "diagnostics"}, "additionalProperties": false}
	var defs cli.Schema
	var required []any
	if extra != nil {
		x := cli.SchemaOf(extra)
		if anyOf, ok := x["anyOf"].([]any); ok && len(anyOf) == 2 { // a pointer
			x = anyOf[0].(cli.Schema)
		}
		xp, ok := x["properties"].(cli.Schema)
		if !ok {
			panic(fmt.Sprintf("report: ResultSchema: %T is not a struct", extra))
		}
		for k, v := range xp {
			if _, dup := props[k]; dup {
				panic(fmt.Sprintf("report: ResultSchema: %T redefines the file field %q", extra, k))
			}
			props[k] = v
		}
		if req, ok := x["required"].([]any); ok {
			required = req
		}
		if d, ok := x["$defs"].(cli.Schema); ok {
			defs = d
		}
	}
	s := cli.Schema{
		"type": "object",
		"properties": cli.Schema{
			"ok":    cli.Schema{"type": "boolean", "description": "true exactly when the command exits with 0"},
			"files": cli.Schema{"type": "array", "items": fs},
		},
		"required":             []any{"ok", "files"},
		"additionalProperties": false,
	}
	if required != nil {
		s["if"] = cli.Schema{"properties": cli.Schema{"ok": cli.Schema{"const": true}}}
		s["then"] = cli.Schema{"properties": cli.Schema{"files": cli.Schema{"items": cli.Schema{"required": required}}}}
	}
	if defs != nil {
		s["$defs"] = defs
	}
	return s
}
