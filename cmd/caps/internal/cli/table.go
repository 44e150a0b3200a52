package cli

import (
	"encoding"
	"encoding/json"
	"flag"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// The command table's agent-facing metadata: JSON Schemas, effects and
// examples. "caps manifest", the committed agent manifest (agent/), the
// reference section of docs/cli.md and "caps skills" are generated from it;
// the tests run every example and validate its output against the schema.

// SchemaDialect is the JSON Schema dialect of every schema in the table.
const SchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// Schema is a JSON Schema document (draft 2020-12) as a JSON object.
type Schema = map[string]any

// Effects is what a command touches besides its standard streams.
type Effects struct {
	// Reads lists what the command reads: "FILE" (its positional files),
	// "stdin", "the workspace .caps folder", "PATH", ...
	Reads []string `json:"reads"`
	// Writes lists what it writes besides stdout and stderr: "--out PATH",
	// "the files named", "the workspace .caps folder", ... Empty for a
	// command that only prints.
	Writes []string `json:"writes"`
	// Runs lists the external programs it may start (z3, node, wat2wasm).
	Runs []string `json:"runs,omitempty"`
	// Network is true when the command may talk to other machines.
	Network bool `json:"network"`
	// DryRun is true when the command has a mode that computes without
	// performing its effects.
	DryRun bool `json:"supports_dry_run,omitempty"`
}

// External reports whether the command has effects outside the process
// other than reading: writing files, starting programs or using the
// network (AFPS "external_effects").
func (e Effects) External() bool {
	return len(e.Writes) > 0 || len(e.Runs) > 0 || e.Network
}

// Example is one command line and the exit code it ends with.
type Example struct {
	// Line is the command line as a shell would run it from the
	// repository's root, starting with "caps ".
	Line string `json:"command"`
	// Exit is the expected exit code.
	Exit int `json:"exit"`
	// Note says what the example shows (optional).
	Note string `json:"note,omitempty"`
}

// AllCommands returns every command, hidden ones included, sorted by name.
func AllCommands() []*Command {
	var cmds []*Command
	for _, c := range registry {
		cmds = append(cmds, c)
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds
}

// InputSchema returns the JSON Schema of a command's input: its flags as
// typed properties and its positional arguments as "args", in the shape an
// agent fills in before it builds the command line.
func InputSchema(cmd *Command) Schema {
	props := Schema{}
	fs := newFlagSet(cmd.Name)
	cmd.Flags(fs)
	fs.VisitAll(func(f *flag.Flag) {
		_, usage := flag.UnquoteUsage(f)
		p := Schema{"description": usage}
		switch v := f.Value.(type) {
		case interface{ IsBoolFlag() bool }:
			if v.IsBoolFlag() {
				p["type"] = "boolean"
				break
			}
			p["type"] = "string"
		default:
			switch reflect.TypeOf(f.Value).String() {
			case "*flag.intValue", "*flag.int64Value", "*flag.uintValue", "*flag.uint64Value":
				p["type"] = "integer"
			case "*flag.float64Value":
				p["type"] = "number"
			case "*flag.durationValue":
				p["type"] = "string"
				p["description"] = usage + " (a Go duration such as 30s or 2m)"
			default:
				p["type"] = "string"
			}
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
			p["default"] = defaultValue(p["type"], def)
		}
		props[f.Name] = p
	})
	return Schema{
		"$schema":     SchemaDialect,
		"title":       "caps " + cmd.Name + " input",
		"description": "The command line as an object: each flag by its name, the positional arguments in order under args. Usage: " + cmd.Usage(),
		"type":        "object",
		"properties": Schema{
			"args":  Schema{"type": "array", "items": Schema{"type": "string"}, "description": "the positional arguments, in the order the usage gives them"},
			"flags": Schema{"type": "object", "properties": props, "additionalProperties": false},
		},
		"additionalProperties": false,
	}
}

func defaultValue(typ any, def string) any {
	switch typ {
	case "integer":
		var n int64
		if _, err := fmt.Sscan(def, &n); err == nil {
			return n
		}
	case "number":
		var f float64
		if _, err := fmt.Sscan(def, &f); err == nil {
			return f
		}
	case "boolean":
		return def == "true"
	}
	return def
}

var schemaOverrides = map[reflect.Type]Schema{
	reflect.TypeFor[time.Time]():       {"type": "string", "format": "date-time"},
	reflect.TypeFor[time.Duration]():   {"type": "integer"},
	reflect.TypeFor[json.RawMessage](): {},
}

// DefineSchema gives the schema of a type that marshals itself (has its
// own MarshalJSON or MarshalText), which SchemaOf cannot see through.
func DefineSchema(t reflect.Type, s Schema) { schemaOverrides[t] = s }

// SchemaOf derives the JSON Schema of the JSON encoding of v's type, as
// encoding/json writes it: struct fields by their json tags (required
// unless omitempty), no other properties, slices and maps that may be
// null, pointers that may be null. Types that marshal themselves need a
// DefineSchema; SchemaOf panics on one that has none, so that a schema
// never silently accepts anything.
func SchemaOf(v any) Schema {
	g := &schemaGen{defs: Schema{}, active: map[reflect.Type]bool{}, recursive: map[reflect.Type]bool{}}
	s := g.of(reflect.TypeOf(v))
	if len(g.defs) > 0 {
		s = clone(s)
		s["$defs"] = g.defs
	}
	return s
}

// Document returns s as a standalone schema document: with $schema and a
// title.
func Document(s Schema, title string) Schema {
	d := clone(s)
	d["$schema"] = SchemaDialect
	d["title"] = title
	return d
}

func clone(s Schema) Schema {
	c := make(Schema, len(s)+2)
	for k, v := range s {
		c[k] = v
	}
	return c
}

type schemaGen struct {
	defs      Schema
	active    map[reflect.Type]bool
	recursive map[reflect.Type]bool
}

var (
	marshalerT     = reflect.TypeFor[json.Marshaler]()
	textMarshalerT = reflect.TypeFor[encoding.TextMarshaler]()
)

func nullable(s Schema) Schema {
	return Schema{"anyOf": []any{s, Schema{"type": "null"}}}
}

func (g *schemaGen) of(t reflect.Type) Schema {
	if s, ok := schemaOverrides[t]; ok {
		return s
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		if t.Implements(marshalerT) || reflect.PointerTo(t).Implements(marshalerT) {
			panic(fmt.Sprintf("cli: SchemaOf: %v has its own MarshalJSON; give its schema with cli.DefineSchema", t))
		}
		if t.Implements(textMarshalerT) || reflect.PointerTo(t).Implements(textMarshalerT) {
			return Schema{"type": "string"}
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Interface:
		return Schema{}
	case reflect.Pointer:
		return nullable(g.of(t.Elem()))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return Schema{"type": []any{"string", "null"}}
		}
		return Schema{"type": []any{"array", "null"}, "items": g.of(t.Elem())}
	case reflect.Array:
		return Schema{"type": "array", "items": g.of(t.Elem()), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		return Schema{"type": []any{"object", "null"}, "additionalProperties": g.of(t.Elem())}
	case reflect.Struct:
		if g.active[t] {
			g.recursive[t] = true
			return Schema{"$ref": "#/$defs/" + defName(t)}
		}
		g.active[t] = true
		s := g.structSchema(t)
		delete(g.active, t)
		if g.recursive[t] {
			g.defs[defName(t)] = s
			return Schema{"$ref": "#/$defs/" + defName(t)}
		}
		return s
	}
	panic(fmt.Sprintf("cli: SchemaOf: %v cannot be encoded as JSON", t))
}

func defName(t reflect.Type) string {
	if t.Name() != "" {
		return t.Name()
	}
	return strings.NewReplacer(" ", "", "{", "", "}", "", ";", "", "\"", "", ":", "").Replace(t.String())
}

func (g *schemaGen) structSchema(t reflect.Type) Schema {
	props := Schema{}
	var required []any
	g.fields(t, props, &required)
	s := Schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// fields adds the JSON fields of struct type t to props (embedded structs
// without a tag are flattened, as encoding/json does).
func (g *schemaGen) fields(t reflect.Type, props Schema, required *[]any) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, props, required)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		var fs Schema
		if strings.Contains(","+opts+",", ",string,") {
			fs = Schema{"type": "string"}
		} else {
			fs = g.of(f.Type)
		}
		props[name] = fs
		if !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") {
			*required = append(*required, name)
		}
	}
}

// Object is a shorthand for a closed object schema: props as given, all
// of them required except those named in optional.
func Object(props Schema, optional ...string) Schema {
	var req []any
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !contains(optional, k) {
			req = append(req, k)
		}
	}
	s := Schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(req) > 0 {
		s["required"] = req
	}
	return s
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// OneOf is the schema of a command whose JSON output takes one of several
// shapes (a result, or a refusal). The $defs of the alternatives move to
// the top, where their references point.
func OneOf(alts ...Schema) Schema {
	defs := Schema{}
	var list []any
	for _, a := range alts {
		if d, ok := a["$defs"].(Schema); ok {
			a = clone(a)
			delete(a, "$defs")
			for k, v := range d {
				if old, dup := defs[k]; dup && fmt.Sprint(old) != fmt.Sprint(v) {
					panic("cli: OneOf: two different definitions of " + k)
				}
				defs[k] = v
			}
		}
		list = append(list, a)
	}
	s := Schema{"oneOf": list}
	if len(defs) > 0 {
		s["$defs"] = defs
	}
	return s
}

// SplitLine splits a command line into words as a shell would for the
// quoting the examples use ('...' and "..." without escapes).
func SplitLine(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, inWord := rune(0), false
	for _, r := range s {
		switch {
		case in != 0 && r == in:
			in = 0
		case in != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			in, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if in != 0 {
		return nil, fmt.Errorf("%q: unclosed quote", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// ExampleInput parses an example command line of cmd into the object its
// InputSchema describes: {"args": [...], "flags": {...}}. It fails when the
// line is not a command line of cmd or uses a flag cmd does not have.
func ExampleInput(cmd *Command, line string) (map[string]any, error) {
	words, err := SplitLine(line)
	if err != nil {
		return nil, err
	}
	if len(words) < 2 || words[0] != Program || words[1] != cmd.Name {
		return nil, fmt.Errorf("%q does not start with %q", line, Program+" "+cmd.Name)
	}
	fs := newFlagSet(cmd.Name)
	cmd.Flags(fs)
	pos, err := parseInterspersed(fs, words[2:])
	if err != nil {
		if err == flag.ErrHelp {
			return map[string]any{"args": []any{}, "flags": map[string]any{"help": true}}, nil
		}
		return nil, fmt.Errorf("%q: %s", line, flagError(fs, err))
	}
	flags := map[string]any{}
	fs.Visit(func(f *flag.Flag) {
		var v any = f.Value.String()
		if g, ok := f.Value.(flag.Getter); ok {
			switch x := g.Get().(type) {
			case bool, int, int64, uint, uint64, float64:
				v = x
			}
		}
		flags[f.Name] = v
	})
	args := []any{}
	for _, p := range pos {
		args = append(args, p)
	}
	return map[string]any{"args": args, "flags": flags}, nil
}
