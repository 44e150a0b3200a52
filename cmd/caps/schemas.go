package main

import (
	"reflect"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/runtime/value"
)

// The JSON Schemas of the types that encode themselves (they have their
// own MarshalJSON), for the output schemas of the command table.
func init() {
	// A Capsulang value in the JSON encoding of docs/runtime.md: any JSON
	// value, depending on the value's type.
	cli.DefineSchema(reflect.TypeFor[value.Value](), cli.Schema{"description": "a Capsulang value in the JSON encoding of docs/runtime.md"})
	// A duration as its literal: "30s", "1500ms".
	cli.DefineSchema(reflect.TypeFor[adapters.Duration](), cli.Schema{"type": "string", "description": "a duration literal such as 30s or 1500ms"})
	// A trace record encodes the fields its json tags name, in canonical
	// JSON (docs/ledger.md), leaving out empty optional ones.
	type plainRecord trace.Record
	cli.DefineSchema(reflect.TypeFor[trace.Record](), cli.SchemaOf(plainRecord{}))
}
