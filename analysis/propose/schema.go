package propose

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/capsulang/caps/docs/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// DeltaSchemaPath is where the AuthoringDelta's JSON Schema is published.
const DeltaSchemaPath = schemas.AuthoringDeltaPath

// SchemaError is an authoring delta that does not validate against the
// published schema (DeltaSchemaPath). Problems are sorted by where they are
// in the delta.
type SchemaError struct {
	Problems []SchemaProblem
}

// SchemaProblem is one reason a delta does not validate.
type SchemaProblem struct {
	// Instance is the JSON pointer of the offending value in the delta
	// ("" for the whole delta), e.g. /declarations/0/kind.
	Instance string `json:"instance"`
	// Schema is the JSON pointer of the failing keyword in the schema,
	// e.g. /$defs/declaration/properties/kind/enum.
	Schema string `json:"schema"`
	// Message says what is wrong.
	Message string `json:"message"`
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "authoring delta does not validate against %s", DeltaSchemaPath)
	for _, p := range e.Problems {
		at := p.Instance
		if at == "" {
			at = "/"
		}
		fmt.Fprintf(&b, "\n  at %s (schema #%s): %s", at, p.Schema, p.Message)
	}
	return b.String()
}

var (
	deltaSchemaOnce sync.Once
	deltaSchema     *jsonschema.Schema
	deltaSchemaErr  error
)

// declOneOf is the schema's choice between a declaration's source and
// its clauses.
const declOneOf = "/$defs/declaration/oneOf"

// compiledDeltaSchema compiles the embedded schema once.
func compiledDeltaSchema() (*jsonschema.Schema, error) {
	deltaSchemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemas.AuthoringDelta))
		if err != nil {
			deltaSchemaErr = fmt.Errorf("%s: %v", DeltaSchemaPath, err)
			return
		}
		c := jsonschema.NewCompiler()
		const url = "https://capsulang.dev/schemas/authoring-delta.v1.schema.json"
		if err := c.AddResource(url, doc); err != nil {
			deltaSchemaErr = err
			return
		}
		deltaSchema, deltaSchemaErr = c.Compile(url)
	})
	return deltaSchema, deltaSchemaErr
}

// ValidateDeltaSchema validates the JSON text of an authoring delta
// against the published schema: a *SchemaError when it does not validate,
// another error when it is not JSON.
func ValidateDeltaSchema(b []byte) error {
	sch, err := compiledDeltaSchema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("authoring delta: not JSON: %v", err)
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	p := message.NewPrinter(language.English)
	se := &SchemaError{}
	seen := map[SchemaProblem]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		causes := e.Causes
		switch e.ErrorKind.(type) {
		case *kind.AnyOf, *kind.OneOf:
			// The alternatives that failed only for their type say
			// little ("want number"); keep the others when there are.
			var kept []*jsonschema.ValidationError
			for _, c := range causes {
				if _, isType := leafKind(c).(*kind.Type); !isType {
					kept = append(kept, c)
				}
			}
			if len(kept) > 0 {
				causes = kept
			}
		}
		if len(causes) == 0 {
			sp := SchemaProblem{
				Instance: pointer(e.InstanceLocation),
				Schema:   schemaFragment(e.SchemaURL) + pointer(e.ErrorKind.KeywordPath()),
				Message:  e.ErrorKind.LocalizedString(p),
			}
			if strings.HasPrefix(sp.Schema, declOneOf+"/") {
				// Both alternatives fail together: one problem.
				sp.Schema, sp.Message = declOneOf, `give exactly one of "source" and "clauses"`
			}
			if !seen[sp] {
				seen[sp] = true
				se.Problems = append(se.Problems, sp)
			}
			return
		}
		for _, c := range causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(se.Problems, func(i, j int) bool { return se.Problems[i].Instance < se.Problems[j].Instance })
	return se
}

// leafKind follows an error's single causes (references) down to the
// kind that failed.
func leafKind(e *jsonschema.ValidationError) jsonschema.ErrorKind {
	for len(e.Causes) == 1 {
		e = e.Causes[0]
	}
	if len(e.Causes) == 0 {
		return e.ErrorKind
	}
	return nil
}

func schemaFragment(url string) string {
	if i := strings.IndexByte(url, '#'); i >= 0 {
		return url[i+1:]
	}
	return ""
}

// pointer writes a JSON pointer (RFC 6901).
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		t = strings.ReplaceAll(t, "~", "~0")
		t = strings.ReplaceAll(t, "/", "~1")
		b.WriteString("/" + t)
	}
	return b.String()
}
