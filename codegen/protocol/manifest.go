package protocol

import (
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax/ast"
)

// Schema is the JSON Schema (draft 2020-12 keywords) of a value in the
// runtime's JSON encoding (docs/runtime.md).
type Schema struct {
	Type                 any                `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	Minimum              *int64             `json:"minimum,omitempty"`
	Maximum              *uint64            `json:"maximum,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"`
	AnyOf                []*Schema          `json:"anyOf,omitempty"`
	// XType is the Capsulang type the schema describes.
	XType string `json:"x-capsulang-type,omitempty"`
}

func i64(v int64) *int64   { return &v }
func u64(v uint64) *uint64 { return &v }
func intp(v int) *int      { return &v }
func obj(props map[string]*Schema, req []string) *Schema {
	return &Schema{Type: "object", Properties: props, Required: req, AdditionalProperties: false}
}

// schemaOf returns the JSON Schema of type t.
func schemaOf(t types.Type) *Schema {
	switch tt := t.(type) {
	case *types.Basic:
		switch tt.Kind {
		case types.Unit:
			return &Schema{Type: "null"}
		case types.Bool:
			return &Schema{Type: "boolean"}
		case types.I32:
			return &Schema{Type: "integer", Minimum: i64(-1 << 31), Maximum: u64(1<<31 - 1)}
		case types.U32:
			return &Schema{Type: "integer", Minimum: i64(0), Maximum: u64(1<<32 - 1)}
		case types.I64, types.Int:
			return &Schema{Type: "string", Pattern: "^-?[0-9]+$"}
		case types.U64, types.Wei:
			return &Schema{Type: "string", Pattern: "^[0-9]+$"}
		case types.Text, types.Address:
			return &Schema{Type: "string"}
		case types.Duration:
			return &Schema{Type: "string", Pattern: "^[0-9]+(ms|s|m|h|d)$"}
		case types.Timestamp:
			return &Schema{Type: "string", Format: "date-time"}
		case types.Bytes32:
			return &Schema{Type: "string", Pattern: "^0x[0-9a-f]{64}$"}
		case types.Json:
			return &Schema{}
		}
	case *types.List:
		return &Schema{Type: "array", Items: schemaOf(tt.Elem)}
	case *types.Array:
		return &Schema{Type: "array", Items: schemaOf(tt.Elem), MinItems: intp(tt.Len), MaxItems: intp(tt.Len)}
	case *types.Option:
		return &Schema{AnyOf: []*Schema{{Type: "null"}, schemaOf(tt.Elem)}}
	case *types.Result:
		return &Schema{AnyOf: []*Schema{
			obj(map[string]*Schema{"ok": schemaOf(tt.Ok)}, []string{"ok"}),
			obj(map[string]*Schema{"err": schemaOf(tt.Err)}, []string{"err"}),
		}}
	case *types.Map:
		if types.Identical(tt.Key, types.TText) {
			return &Schema{Type: "object", AdditionalProperties: schemaOf(tt.Value)}
		}
		return &Schema{Type: "array", Items: &Schema{Type: "array", MinItems: intp(2), MaxItems: intp(2)}}
	case *types.Record:
		props := map[string]*Schema{}
		req := []string{}
		for _, f := range tt.Fields {
			props[f.Name] = schemaOf(f.Type)
			req = append(req, f.Name)
		}
		s := obj(props, req)
		s.XType = tt.Name
		return s
	case *types.Enum:
		return &Schema{Type: "string", Enum: append([]string{}, tt.Members...), XType: tt.Name}
	case *types.Variant:
		var names []string
		for _, c := range tt.Cases {
			names = append(names, c.Name)
		}
		return &Schema{AnyOf: []*Schema{{Type: "string", Enum: names}, {Type: "object", Required: []string{"case"}}}, XType: tt.Name}
	}
	return &Schema{}
}

// fieldsSchema is the object schema of a list of fields, each required.
func (m *module) fieldsSchema(fs []dataField) *Schema {
	props := map[string]*Schema{}
	req := []string{}
	for _, f := range fs {
		s := schemaOf(f.typ)
		if s.XType == "" {
			s.XType = f.Type
		}
		props[f.Name] = s
		req = append(req, f.Name)
	}
	return obj(props, req)
}

// ManifestAction is a surface action in the manifest: its name, whether
// it is a declared action or a machine event, the data model path of its
// inputs and the schema of the context its button sends.
type ManifestAction struct {
	Name                     string  `json:"name"`
	Kind                     string  `json:"kind"`
	Path                     string  `json:"path"`
	RequiresUserConfirmation bool    `json:"requires_user_confirmation"`
	Context                  *Schema `json:"context"`
}

// ManifestSurface is one surface of the A2UI manifest.
type ManifestSurface struct {
	SurfaceID  string           `json:"surface_id"`
	CatalogID  string           `json:"catalog_id"`
	Protocol   string           `json:"protocol"`
	Version    string           `json:"version"`
	Title      string           `json:"title"`
	Route      string           `json:"route,omitempty"`
	Bind       string           `json:"bind,omitempty"`
	DataModel  *Schema          `json:"data_model"`
	Actions    []ManifestAction `json:"actions"`
	Components []Component      `json:"components"`
}

// Manifest is the A2UI manifest of a module.
type Manifest struct {
	Module      string            `json:"module"`
	Hash        string            `json:"semantic_hash"`
	A2UIVersion string            `json:"a2ui_version"`
	Surfaces    []ManifestSurface `json:"surfaces"`
}

// BuildManifest returns the A2UI manifest of every surface of a checked
// module; hash is its semantic hash.
func BuildManifest(res *check.Result, hash string) *Manifest {
	m := newModule(res)
	out := &Manifest{Hash: hash, A2UIVersion: A2UIVersion, Surfaces: []ManifestSurface{}}
	if m.mod == nil {
		return out
	}
	out.Module = m.mod.Name.Name
	for _, d := range m.mod.Decls {
		s, ok := d.(*ast.Surface)
		if !ok {
			continue
		}
		sf := m.surface(s)
		ms := ManifestSurface{SurfaceID: sf.Name, CatalogID: sf.CatalogID, Protocol: sf.Protocol, Version: sf.Version, Title: sf.Title, Route: sf.Route, Bind: sf.Bind,
			DataModel: m.fieldsSchema(m.dataModel(s)), Actions: []ManifestAction{}, Components: m.components(s)}
		for _, a := range sf.Actions {
			in := m.actionInputs(s, a)
			ms.Actions = append(ms.Actions, ManifestAction{Name: a.Name, Kind: a.Kind, Path: ActionPath(a), RequiresUserConfirmation: a.RequiresUserConfirmation, Context: m.fieldsSchema(in)})
		}
		out.Surfaces = append(out.Surfaces, ms)
	}
	return out
}
