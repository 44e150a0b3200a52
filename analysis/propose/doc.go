// Package propose builds and assesses proposed changes to a workspace's
// .caps files, and never writes them.
//
// A proposal (Build) is a set of candidate file contents made from a
// unified diff, a repair plan, an authoring delta or whole files, recorded
// with its base contents and the proposer. Assess checks the candidates,
// compares their declared authority with the base (CompareAuthority: an
// expansion is always caught), evaluates the module's own improvement
// governance (gates, budgets, must-pass requirements, approvals) and the
// workspace policy, and returns a verdict with its reasons and the
// evidence hash a commit is bound to. Storing proposals, writing files and
// keeping the evolution ledger belong to runtime/evolution; docs/propose.md
// describes the workflow.
package propose
