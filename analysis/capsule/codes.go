package capsule

// Diagnostic codes of a .capsule.yaml contract. They are public contracts
// (analysis/codes/codes.json documents each, and `caps explain CODE`
// prints it): never renamed.
const (
	// The file cannot be read as a contract.
	CodeYAML         = "E_CAPSULE_YAML"          // not valid YAML, or YAML features a contract does not use
	CodeUnknownKey   = "E_CAPSULE_UNKNOWN_KEY"   // a key the contract format does not have
	CodeType         = "E_CAPSULE_TYPE"          // a value of the wrong type
	CodeValue        = "E_CAPSULE_VALUE"         // a value of the right type that is not allowed
	CodeMissingField = "E_CAPSULE_MISSING_FIELD" // a required key is absent
	CodeNoIdentity   = "E_CAPSULE_NO_IDENTITY"   // no identity section
	CodeNoEffects    = "E_CAPSULE_NO_EFFECTS"    // no effects, or an empty list
	CodeNoTelemetry  = "E_CAPSULE_NO_TELEMETRY"  // no telemetry section

	// Rejected by design (spec §13).
	CodeAmbientCredentials = "E_CAPSULE_AMBIENT_CREDENTIALS" // ambient credentials or host keychain access
	CodeDefaultAllow       = "E_CAPSULE_DEFAULT_ALLOW"       // default-allow network or policy in enforce mode
	CodeUngatedEffect      = "E_CAPSULE_UNGATED_EFFECT"      // a protected effect without a gate action
	CodeUnboundReceipt     = "E_CAPSULE_UNBOUND_RECEIPT"     // a high-risk operation without an approval-bound receipt
	CodeUntracedDecisions  = "E_CAPSULE_UNTRACED_DECISIONS"  // authority decisions without telemetry

	// Warnings.
	CodeImageNotPinned = "W_CAPSULE_IMAGE_NOT_PINNED" // runtime.image has no sha256 digest
)

// Codes lists every code of this package, in the order above.
var Codes = []string{
	CodeYAML, CodeUnknownKey, CodeType, CodeValue, CodeMissingField, CodeNoIdentity, CodeNoEffects, CodeNoTelemetry,
	CodeAmbientCredentials, CodeDefaultAllow, CodeUngatedEffect, CodeUnboundReceipt, CodeUntracedDecisions,
	CodeImageNotPinned,
}
