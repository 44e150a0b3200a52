// Package webui serves the authoring UI of `caps serve-authoring-ui`: a
// web page, embedded in the binary, and the JSON API under /api/ that
// backs it (spec §03, §11; docs/authoring.md).
//
// The page walks a person through the authoring flow: describe what they
// want (through the LLM bridge, runtime/session/bridge) or paste an
// AuthoringDelta, see the session's delta with its requirements,
// assumptions and open holes, answer the holes, read the synthesized
// source with live diagnostics from the checker the language server uses
// (analysis/load and runtime/examples), step a machine in dry-run mode
// (runtime/machine) on its state diagram, see the A2UI surfaces rendered
// from their envelopes (codegen/protocol), and end in the propose →
// assess → commit workflow (runtime/evolution) with a named approval.
//
// Every API call goes through the same packages as the CLI; nothing shells
// out. Sessions are the file-backed records of runtime/session, so a
// session started in the page can be continued with `caps session` and
// the other way round. The server holds no state of its own besides a
// lock that serializes the calls: every answer is computed from the
// workspace's files.
//
// Listen binds to loopback unless asked otherwise; a non-loopback address
// is refused (*RemoteError) unless allowRemote is set, since the API
// writes to the workspace and has no authentication.
package webui
