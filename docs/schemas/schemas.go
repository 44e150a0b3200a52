// Package schemas embeds the published JSON Schemas of docs/schemas, so
// that the toolchain validates against the very files the documentation
// links to.
package schemas

import _ "embed"

// AuthoringDeltaPath is the schema's path in the repository, named in
// validation errors.
const AuthoringDeltaPath = "docs/schemas/authoring-delta.v1.schema.json"

// AuthoringDelta is the JSON Schema (draft 2020-12) of an authoring delta
// (propose.AuthoringDelta).
//
//go:embed authoring-delta.v1.schema.json
var AuthoringDelta []byte
