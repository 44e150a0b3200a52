package cli

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type inner struct {
	N int `json:"n"`
}

type embedded struct {
	E string `json:"e"`
}

type sample struct {
	embedded
	Name     string           `json:"name"`
	Opt      string           `json:"opt,omitempty"`
	Skip     string           `json:"-"`
	Count    int64            `json:"count,string"`
	Ratio    float64          `json:"ratio"`
	Tags     []string         `json:"tags"`
	Inner    *inner           `json:"inner"`
	ByName   map[string]inner `json:"by_name,omitempty"`
	Any      any              `json:"any"`
	Raw      json.RawMessage  `json:"raw"`
	When     time.Time        `json:"when"`
	Pair     [2]bool          `json:"pair"`
	Bytes    []byte           `json:"bytes"`
	Untagged int
	hidden   int
	Extra    map[string]string `json:"extra"`
}

type tree struct {
	Label    string  `json:"label"`
	Children []*tree `json:"children"`
}

type selfMarshal struct{}

func (selfMarshal) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

func TestSchemaOf(t *testing.T) {
	str, integer := Schema{"type": "string"}, Schema{"type": "integer"}
	tests := []struct {
		name string
		v    any
		want Schema
	}{
		{"scalar", 0, integer},
		{"slice", []string{}, Schema{"type": []any{"array", "null"}, "items": str}},
		{"struct", sample{}, Schema{
			"type": "object", "additionalProperties": false,
			"properties": Schema{
				"e":        str,
				"name":     str,
				"opt":      str,
				"count":    str,
				"ratio":    Schema{"type": "number"},
				"tags":     Schema{"type": []any{"array", "null"}, "items": str},
				"inner":    Schema{"anyOf": []any{Schema{"type": "object", "additionalProperties": false, "properties": Schema{"n": integer}, "required": []any{"n"}}, Schema{"type": "null"}}},
				"by_name":  Schema{"type": []any{"object", "null"}, "additionalProperties": Schema{"type": "object", "additionalProperties": false, "properties": Schema{"n": integer}, "required": []any{"n"}}},
				"any":      Schema{},
				"raw":      Schema{},
				"when":     Schema{"type": "string", "format": "date-time"},
				"pair":     Schema{"type": "array", "items": Schema{"type": "boolean"}, "minItems": 2, "maxItems": 2},
				"bytes":    Schema{"type": []any{"string", "null"}},
				"Untagged": integer,
				"extra":    Schema{"type": []any{"object", "null"}, "additionalProperties": str},
			},
			"required": []any{"e", "name", "count", "ratio", "tags", "inner", "any", "raw", "when", "pair", "bytes", "Untagged", "extra"},
		}},
		{"recursive", tree{}, Schema{
			"$ref": "#/$defs/tree",
			"$defs": Schema{"tree": Schema{
				"type": "object", "additionalProperties": false,
				"properties": Schema{"label": str, "children": Schema{"type": []any{"array", "null"}, "items": Schema{"anyOf": []any{Schema{"$ref": "#/$defs/tree"}, Schema{"type": "null"}}}}},
				"required":   []any{"label", "children"},
			}},
		}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SchemaOf(tt.v)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// A type that encodes itself has no schema SchemaOf can derive: it says so
// rather than accept anything.
func TestSchemaOfSelfMarshaler(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "cli.selfMarshal has its own MarshalJSON; give its schema with cli.DefineSchema") {
			t.Errorf("recover() = %v", r)
		}
	}()
	SchemaOf(struct {
		X selfMarshal `json:"x"`
	}{})
}

func TestOneOfMovesDefs(t *testing.T) {
	got := OneOf(SchemaOf(tree{}), Schema{"type": "null"})
	want := Schema{
		"oneOf": []any{Schema{"$ref": "#/$defs/tree"}, Schema{"type": "null"}},
		"$defs": SchemaOf(tree{})["$defs"],
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func testCommand() *Command {
	return &Command{
		Name: "demo", Args: "[--json] [--n N] FILE", Short: "demo",
		Example:  Example{Line: "caps demo --json --n 3 a.caps"},
		Negative: Example{Line: "caps demo --bogus a.caps", Exit: 2},
		Flags: func(fs *flag.FlagSet) RunFunc {
			fs.Bool("json", false, "print JSON")
			fs.Int("n", 1, "how many `N`")
			fs.String("mode", "", "a mode")
			fs.Duration("timeout", time.Second, "how long")
			return func(c *Context, args []string) int { return ExitOK }
		},
	}
}

func TestInputSchema(t *testing.T) {
	got := InputSchema(testCommand())
	flags := got["properties"].(Schema)["flags"].(Schema)["properties"].(Schema)
	want := Schema{
		"json":    Schema{"type": "boolean", "description": "print JSON"},
		"n":       Schema{"type": "integer", "description": "how many N", "default": int64(1)},
		"mode":    Schema{"type": "string", "description": "a mode"},
		"timeout": Schema{"type": "string", "description": "how long (a Go duration such as 30s or 2m)", "default": "1s"},
	}
	if diff := cmp.Diff(want, flags); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if got["$schema"] != SchemaDialect {
		t.Errorf("$schema = %v", got["$schema"])
	}
}

func TestExampleInput(t *testing.T) {
	cmd := testCommand()
	got, err := ExampleInput(cmd, "caps demo a.caps --json --n 3 --mode 'two words'")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"args": []any{"a.caps"}, "flags": map[string]any{"json": true, "n": 3, "mode": "two words"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for line, msg := range map[string]string{
		"caps demo --jsn a.caps": `"caps demo --jsn a.caps": unknown flag --jsn; did you mean --json?`,
		"caps other a.caps":      `"caps other a.caps" does not start with "caps demo"`,
		"caps demo 'open":        `"caps demo 'open": unclosed quote`,
	} {
		if _, err := ExampleInput(cmd, line); err == nil || err.Error() != msg {
			t.Errorf("%s: err = %v, want %s", line, err, msg)
		}
	}
}

func TestEffectsExternal(t *testing.T) {
	for _, tt := range []struct {
		e    Effects
		want bool
	}{
		{Effects{Reads: []string{"FILE"}}, false},
		{Effects{Writes: []string{"--out PATH"}}, true},
		{Effects{Runs: []string{"z3"}}, true},
		{Effects{Network: true}, true},
	} {
		if got := tt.e.External(); got != tt.want {
			t.Errorf("%+v: External() = %v", tt.e, got)
		}
	}
}
