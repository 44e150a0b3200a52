package codegen

import (
	"github.com/capsulang/caps/analysis/check"
)

// NativePlanSchema names the format of NativePlan documents.
const NativePlanSchema = "capsulang.native-plan.v1"

// NativePlan is what `caps compile --target native-aarch64` writes: no
// machine code, but an honest account of the route a native AArch64
// build would take (checked Core, then this toolchain's wasm, then an
// ahead-of-time compiler that caps neither ships nor runs), which
// functions would travel it, and what stays with the host runtime.
type NativePlan struct {
	Schema       string `json:"schema"`
	Target       string `json:"target"`
	Status       string `json:"status"` // always "planned"
	Module       string `json:"module"`
	SemanticHash string `json:"semantic_hash"`
	// Artifact is always null: no native code is produced.
	Artifact *string     `json:"artifact"`
	Route    []RouteStep `json:"route"`
	// Functions would be compiled along the route (the wasm target's
	// compiled functions); Skipped and Unsupported are the wasm target's.
	Functions   []string         `json:"functions"`
	Skipped     []string         `json:"skipped"`
	Unsupported []NativeFeature  `json:"unsupported"`
	HostOwned   []HostOwnedDecls `json:"host_owned"`
	Limitations []string         `json:"limitations"`
}

// RouteStep is one stage of the native route.
type RouteStep struct {
	Stage  string `json:"stage"`
	Tool   string `json:"tool"`
	Status string `json:"status"` // implemented, external, not-run
	Note   string `json:"note"`
}

// NativeFeature is an unsupported feature without its span (the plan is a
// file on its own; caps compile-plan gives places).
type NativeFeature struct {
	Decl    string `json:"decl"`
	Feature string `json:"feature"`
}

// HostOwnedDecls lists declarations that never become native code.
type HostOwnedDecls struct {
	Kind  string   `json:"kind"`
	Names []string `json:"names"`
	Why   string   `json:"why"`
}

// PlanNative builds the native-aarch64 plan of a checked module without
// errors. hash is the module's semantic hash.
func PlanNative(res *check.Result, hash string) *NativePlan {
	wp, _ := PlanFor(res, "wasm") // "wasm" is always registered
	np := &NativePlan{
		Schema: NativePlanSchema, Target: "native-aarch64", Status: "planned", SemanticHash: hash,
		Functions: append([]string{}, wp.Compiled...), Skipped: append([]string{}, wp.Skipped...), Unsupported: []NativeFeature{},
		HostOwned: []HostOwnedDecls{},
		Route: []RouteStep{
			{Stage: "check", Tool: "caps check", Status: "implemented", Note: "the route starts from checked Capsule Core, never from raw source"},
			{Stage: "wasm", Tool: "caps compile --target wasm", Status: "implemented", Note: "the pure scalar functions become a WebAssembly module; caps diff-compiled --target wasm compares it with the interpreter"},
			{Stage: "aot", Tool: "a WebAssembly ahead-of-time compiler for aarch64 (for example wasmtime compile --target aarch64-unknown-linux-gnu)", Status: "external", Note: "caps neither ships nor runs one; the result is not checked by caps"},
			{Stage: "native", Tool: "", Status: "not-run", Note: "no AArch64 object or executable is produced by this toolchain"},
		},
		Limitations: []string{
			"no native code is generated: this file is a plan, not an artifact",
			"only the pure scalar subset of the wasm target can travel the route (caps compile-backends lists it)",
			"equivalence of AOT output with the interpreter is not established by caps",
		},
	}
	if res.File != nil && res.File.Module != nil {
		np.Module = res.File.Module.Name.Name
	}
	for _, f := range wp.Unsupported {
		np.Unsupported = append(np.Unsupported, NativeFeature{Decl: f.Decl, Feature: f.Feature})
	}
	if _, machines := countDecls(res); len(machines) > 0 {
		np.HostOwned = append(np.HostOwned, HostOwnedDecls{Kind: "machine", Names: machines,
			Why: "machines compute transitions and effect intents; the host runtime owns policy, adapters, trace and ledger, so they are never compiled into a binary with ambient authority"})
	}
	return np
}
