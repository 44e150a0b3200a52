package capsule

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// IRFormat names the normalized contract IR document.
const IRFormat = "capsulang.capsule-ir"

// IR is the normalized contract: every default made explicit, every list
// present (empty rather than absent), keys in a fixed order (the order of
// the fields below). Its canonical JSON (see Canonical) is the same bytes
// for every spelling of the same contract, and ContractHash is the SHA-256
// of that JSON without the contract_hash member.
type IR struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"format_version"`
	Capsule       string    `json:"capsule"`
	Module        string    `json:"module"`
	Version       string    `json:"version"`
	Purpose       string    `json:"purpose"`
	Identity      Identity  `json:"identity"`
	Inputs        []string  `json:"inputs"`
	Outputs       []string  `json:"outputs"`
	Effects       []*Effect `json:"effects"`
	Telemetry     Telemetry `json:"telemetry"`
	Policy        Policy    `json:"policy"`
	Runtime       Runtime   `json:"runtime"`
	Memory        Memory    `json:"memory"`
	ContractHash  string    `json:"contract_hash,omitempty"`
}

// Identity is the agent the contract encloses.
type Identity struct {
	ID              string `json:"id"`   // kind:Name
	Kind            string `json:"kind"` // agent or service
	Cryptographic   string `json:"cryptographic"`
	Credentials     string `json:"credentials"`
	Attestation     string `json:"attestation"`
	Owner           string `json:"owner"` // human:Name
	MandateValidFor string `json:"mandate_valid_for"`
}

// Effect is one scoped effect the agent may ask the gate for.
type Effect struct {
	Verb                     string `json:"verb"`
	Resource                 string `json:"resource"`
	EDLEffect                string `json:"edl_effect"` // db.read.CustomerDB.claims
	Tool                     string `json:"tool"`       // the gate action: db_read_customerdb_claims
	Protected                bool   `json:"protected"`
	Risk                     string `json:"risk"`
	Gate                     string `json:"gate"`
	Approval                 string `json:"approval"`
	ApprovalRequiredAboveUSD *int64 `json:"approval_required_above_usd"`
	MaxAmountUSD             *int64 `json:"max_amount_usd"`
	Receipt                  string `json:"receipt"`
	ValidFor                 string `json:"valid_for"`
}

// Telemetry says how authority decisions are recorded.
type Telemetry struct {
	Required      bool     `json:"required"`
	TamperEvident bool     `json:"tamper_evident"`
	Export        []string `json:"export"`
}

// Policy is the decision policy.
type Policy struct {
	Default    string        `json:"default"`
	Escalation []*Escalation `json:"escalation"`
}

// Escalation is one escalation rule: when If holds for an amount-bearing
// effect, Require must be met first.
type Escalation struct {
	If      string   `json:"if"`
	Require []string `json:"require"`
}

// Runtime is the enclosure the agent runs in.
type Runtime struct {
	Mode               string   `json:"mode"`
	Network            string   `json:"network"`
	Secrets            string   `json:"secrets"`
	Mounts             []string `json:"mounts"`
	Image              string   `json:"image"`
	Command            []string `json:"command"`
	Workdir            string   `json:"workdir"`
	DoorkeeperEndpoint string   `json:"doorkeeper_endpoint"`
	BackendPreference  []string `json:"backend_preference"`
}

// Memory is the agent's memory policy.
type Memory struct {
	Default string   `json:"default"`
	Stores  []*Store `json:"stores"`
}

// Store is one memory store.
type Store struct {
	ID                string `json:"id"`
	Isolation         string `json:"isolation"`
	TTL               string `json:"ttl"`
	SourceAttribution string `json:"source_attribution"`
	HashValidation    string `json:"hash_validation"`
}

// marshal encodes v as compact JSON without escaping <, > and &.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // the IR types always encode
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// indent encodes v as JSON with two-space indentation and a final newline,
// without escaping <, > and &.
func indent(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// Hash is the contract hash of ir: "sha256:" and the hex SHA-256 of the
// compact JSON of ir without its contract_hash member.
func (ir *IR) Hash() string {
	c := *ir
	c.ContractHash = ""
	return Digest(marshal(&c))
}

// Digest is "sha256:" and the hex SHA-256 of b.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Canonical is the .capsule.json document: the IR with its contract hash,
// two-space indentation, a final newline.
func (ir *IR) Canonical() []byte {
	c := *ir
	c.ContractHash = ir.Hash()
	return indent(&c)
}

// ParseIR reads a .capsule.json document back, refusing unknown members
// and a contract_hash that does not match the content.
func ParseIR(data []byte) (*IR, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var ir IR
	if err := dec.Decode(&ir); err != nil {
		return nil, err
	}
	if ir.Format != IRFormat || ir.FormatVersion != 1 {
		return nil, errorf("not a contract IR of format %s version 1", IRFormat)
	}
	if h := ir.Hash(); ir.ContractHash != h {
		return nil, errorf("contract_hash is %s, but the content hashes to %s", ir.ContractHash, h)
	}
	return &ir, nil
}
