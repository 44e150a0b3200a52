// Package codes documents every diagnostic code the Capsulang toolchain
// emits: what it means, a small module that triggers it, and how to fix it.
//
// The table is data (codes.json, embedded) shared by `caps explain`, the
// language server (hovers and code descriptions) and docs/diagnostics.md,
// which is generated from it. Tests keep the three in step with the
// checker: every code constant in package check has an entry, every
// entry's example really produces its code, and every fixed module checks
// clean.
package codes

//go:generate go test -run TestDiagnosticsDoc -update

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// DocsBase is the URL of the diagnostics reference; each code has an anchor
// on it (see DocURL).
const DocsBase = "https://capsulang.dev/docs/diagnostics"

// Sources of diagnostics.
const (
	// SourceChecker codes are reported by check.Check, including the syntax
	// diagnostics of the parser that it passes on.
	SourceChecker = "checker"
	// SourceRuntime codes are reported by the layer that runs function
	// examples (the interpreter), not by the checker.
	SourceRuntime = "runtime"
	// SourceCommand codes are reported by a command about its arguments
	// checked against a module that itself checks clean: an unknown
	// surface or ill-typed data given to caps a2ui-envelope. Command holds
	// the invocation that reports the code and FixedCommand a corrected
	// one.
	SourceCommand = "command"
	// SourceCapsule codes are reported for Capsule contracts
	// (.capsule.yaml) by caps capsule-check and capsule-compile (package
	// analysis/capsule). Their Example and Fixed are contracts, not
	// modules.
	SourceCapsule = "capsule"
	// SourceVerifier codes are reported from proof obligations the Z3
	// solver refuted (analysis/verify): by caps verify-report and the
	// language server, never by caps check.
	SourceVerifier = "verifier"
)

// Code documents one diagnostic code.
type Code struct {
	// Code is the stable code, e.g. E_UNKNOWN_STATE. Never renamed.
	Code string `json:"code"`
	// Severity is "error", "warning" or "info": the severity the code is
	// normally reported with.
	Severity string `json:"severity"`
	// Title is a few words, e.g. "Unknown state".
	Title string `json:"title"`
	// Summary says what the code means in one to three sentences.
	Summary string `json:"summary"`
	// Example is a complete module that produces the code (a contract,
	// for SourceCapsule).
	Example string `json:"example"`
	// Modules are the other modules Example imports, by module name, for
	// the import codes. An importer that finds them is assumed.
	Modules map[string]string `json:"modules,omitempty"`
	// Fix says how to fix it.
	Fix string `json:"fix"`
	// Fixed is Example corrected: a module that checks clean.
	Fixed string `json:"fixed"`
	// Source is SourceChecker, SourceRuntime, SourceCommand,
	// SourceCapsule or SourceVerifier.
	Source string `json:"source"`
	// Command is, for SourceCommand, the arguments of a caps invocation
	// that reports the code on Example, written to the file example.caps
	// (which the arguments name); FixedCommand is the corrected
	// invocation, which succeeds.
	Command      []string `json:"command,omitempty"`
	FixedCommand []string `json:"fixed_command,omitempty"`
	// Since is the toolchain version that introduced the code.
	Since string `json:"since"`
}

// ShellCommand writes a command's arguments as a shell command line,
// quoting the arguments that need it: caps a2ui-envelope ... --data '{...}'.
func ShellCommand(args []string) string {
	parts := []string{"caps"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'{}[]$`\\*?;&|<>()!#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// Anchor is the code's anchor in the diagnostics reference: the code in
// lower case (e_unknown_state).
func (c *Code) Anchor() string { return strings.ToLower(c.Code) }

// URL is the code's entry in the diagnostics reference.
func (c *Code) URL() string { return DocsBase + "#" + c.Anchor() }

//go:embed codes.json
var data []byte

var (
	all    []*Code
	byCode map[string]*Code
)

func init() {
	var table struct {
		Codes []*Code `json:"codes"`
	}
	if err := json.Unmarshal(data, &table); err != nil {
		panic(fmt.Sprintf("codes: bad codes.json: %v", err))
	}
	byCode = map[string]*Code{}
	for _, c := range table.Codes {
		if byCode[c.Code] != nil {
			panic("codes: " + c.Code + " is listed twice in codes.json")
		}
		byCode[c.Code] = c
		all = append(all, c)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Code < all[j].Code })
}

// Lookup returns the documentation of a code, or nil if there is none.
// Case and surrounding space are ignored (e_unknown_state works).
func Lookup(code string) *Code {
	return byCode[strings.ToUpper(strings.TrimSpace(code))]
}

// All returns every documented code, sorted by code. The slice is the
// caller's; the entries are shared and must not be modified.
func All() []*Code {
	return append([]*Code(nil), all...)
}

// DocURL returns the stable documentation URL of a code, such as
// https://capsulang.dev/docs/diagnostics#e_unknown_state, or "" for a code
// that is not documented.
func DocURL(code string) string {
	c := Lookup(code)
	if c == nil {
		return ""
	}
	return c.URL()
}
