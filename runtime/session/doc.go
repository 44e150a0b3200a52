// Package session keeps authoring sessions: the file-backed, replayable
// record of how a person and (optionally) an AI author build one module
// from structured authoring deltas (spec §03, §11).
//
// A session targets one .caps file of a workspace. Each step applies a
// delta (propose.AuthoringDelta, validated against its published JSON
// Schema), resolves an open hole with a person's answer, or records the
// proposal the session ended in. After every step the session holds the
// source synthesized deterministically from the target's content when the
// session began and all the steps so far: the union of the deltas (later
// declarations of the same kind and name replace earlier ones), with each
// resolved hole turned into an assumption. The same steps always give the
// same bytes, hence the same semantic hash.
//
// Layout, under the workspace's .caps folder:
//
//	sessions/CURRENT                 the id of the session commands use by default
//	sessions/ID/session.json         target, base hash, creator; its own hash
//	sessions/ID/base.caps            the target's content when the session began
//	sessions/ID/steps/NNNN/step.json one step, linked to the one before by hash
//	sessions/ID/steps/NNNN/source.caps the source synthesized after the step
//	sessions/ID/attempts/*.json      replies of the LLM bridge that were refused
//
// Every write goes to a temporary folder that is synced and renamed into
// place, so a step is there whole or not at all, and two writers cannot
// both add step N. Every read verifies the chain (each step's hash, its
// link to the one before, the files' hashes) and replays the steps: a
// session folder changed by hand is refused with a *TamperedError that
// names the file. The chain detects edits; it is not a signature, and a
// writer who recomputes every hash is not caught (the evolution ledger
// records the proposal the session ends in).
//
// A session never writes a module file: Propose hands its delta to the
// workspace's propose → assess → commit workflow (runtime/evolution).
// Package bridge (runtime/session/bridge) turns a description in words
// into a delta through an OpenAI-compatible model, outside the trust
// boundary; docs/authoring.md describes both.
package session
