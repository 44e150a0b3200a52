package capsule

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/capsulang/caps/syntax"
)

// keyDocs documents each key of a contract, by its path with list
// indexes written [] (docs/capsule.md has the same table).
var keyDocs = map[string]string{
	"capsule":                               "The contract format version: `0.1`. Required.",
	"module":                                "The contract's dotted lower-case name (`claims.refund_reviewer`); the generated module is `edl.` and the name with dots as underscores. Required.",
	"version":                               "The contract's version, `MAJOR.MINOR.PATCH`; it becomes the module's `(capsule ...)`. Required.",
	"purpose":                               "One sentence: what the agent is for. It becomes the mandate's purpose. Required.",
	"identity":                              "Who the enclosed agent is and who answers for it. Required.",
	"identity.id":                           "The enclosed agent, `agent:Name` or `service:Name`; it becomes the principal `AgentName`. Required.",
	"identity.kind":                         "`agent` or `service`, as in the id. Default: from the id.",
	"identity.cryptographic":                "`required` or `optional`: whether the agent proves its identity cryptographically. Default: `required`.",
	"identity.credentials":                  "`short_lived`: credentials issued for the mandate. `ambient` and `host_keychain` are rejected by design. Default: `short_lived`.",
	"identity.attestation":                  "`required` or `optional`: whether the enclosure must be attested. Default: `required`.",
	"identity.owner":                        "The accountable person, `human:Name`: issues the mandate and approves protected actions. Required.",
	"identity.mandate_valid_for":            "How long the mandate and its delegation last, a duration (`30m`, `8h`). Default: `30m`.",
	"inputs":                                "The type names the agent takes. Default: none.",
	"outputs":                               "The type names the agent produces. Default: none.",
	"effects":                               "What the agent may do: one verb (`read`, `write`, `delete`, `call`) and resource per item. Required, not empty.",
	"effects[].read":                        "Read a resource (`System.member`). Not protected.",
	"effects[].write":                       "Write a resource (`System.member`). Protected: runs only as a gate action.",
	"effects[].delete":                      "Delete in a resource (`System.member`). Protected and high-risk.",
	"effects[].call":                        "Call an operation (`System.operation`). Protected: runs only as a gate action.",
	"effects[].max_amount_usd":              "The largest amount the agent may move with this effect; above it the policy denies, even after approval.",
	"effects[].approval_required_above_usd": "Amounts above this need the owner's approval (escalated until approved). Needs `max_amount_usd` and must be below it.",
	"effects[].approval":                    "`none`, `always` or `above_threshold`. Default: `above_threshold` with a threshold, else `none`.",
	"effects[].gate":                        "`doorkeeper`: the effect runs as a gate action. `none` is rejected for a protected effect. Default: `doorkeeper`.",
	"effects[].risk":                        "`low` or `high`. Default: `high` with an amount, `approval: always` or `delete`; else `low`.",
	"effects[].receipt":                     "`approval_bound`, `required` or `none`. A high-risk effect needs `approval_bound`. Default: `approval_bound` with an approval, else `required`.",
	"effects[].valid_for":                   "The lifetime of the effect's capability. Default: `10m` for `read`, `5m` otherwise.",
	"telemetry":                             "How authority decisions are recorded. Required.",
	"telemetry.required":                    "Must be `true`: authority decisions are always recorded. Default: `true`.",
	"telemetry.tamper_evident":              "Must be `true`: the record is tamper-evident. Default: `true`.",
	"telemetry.export":                      "Where records go: `otel`, `siem`, `ledger`. Not empty. Default: `[ledger]`.",
	"policy":                                "The decision policy. Default: deny, no escalation.",
	"policy.default":                        "The outcome when no rule decides: `deny` or `escalate` (`allow` is rejected in enforce mode). Default: `deny`.",
	"policy.escalation":                     "Conditions under which an effect with an amount needs approval first.",
	"policy.escalation[].if":                "A condition over `amount_usd`, the amount of the effect, in the language of policy conditions (docs/authority.md).",
	"policy.escalation[].require":           "What the escalation needs: `human_approval`. Default: `[human_approval]`.",
	"runtime":                               "The enclosure the agent runs in. Required.",
	"runtime.mode":                          "`enforce` or `audit`. Default: `enforce`.",
	"runtime.network":                       "`deny`: egress only through the doorkeeper (`allow` is rejected in enforce mode). Default: `deny`.",
	"runtime.secrets":                       "`brokered`: the doorkeeper holds the credentials. `ambient` and `host_keychain` are rejected. Default: `brokered`.",
	"runtime.mounts":                        "Absolute host paths mounted read-only; credential stores are rejected. Default: none.",
	"runtime.image":                         "The agent's container image, pinned by `@sha256:` digest. Required.",
	"runtime.command":                       "The agent's command line. Default: the image's.",
	"runtime.workdir":                       "The writable work folder in the container. Default: `/workspace`.",
	"runtime.doorkeeper_endpoint":           "The doorkeeper's `http(s)://` URL: the gate every protected effect goes through; it becomes the port `GateCapsule`.",
	"runtime.backend_preference":            "The sandbox backends, in order: `docker`, `seatbelt`. Default: `[docker, seatbelt]`.",
	"memory":                                "The agent's memory policy. Default: isolated, no stores.",
	"memory.default":                        "`isolated` or `none`. Default: `isolated`.",
	"memory.stores":                         "The memory stores; each becomes a memory policy.",
	"memory.stores[].id":                    "The store, `mem:name`; it becomes the memory policy `MemName`. Required.",
	"memory.stores[].isolation":             "`per_session`, `per_task` or `shared`. Default: `per_session`.",
	"memory.stores[].ttl":                   "How long entries live. Default: `24h`.",
	"memory.stores[].source_attribution":    "`required` or `optional`. Default: `required`.",
	"memory.stores[].hash_validation":       "`on_read`, `on_write` or `none`. Default: `on_read`.",
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// place is what a position in a contract points at.
type place struct {
	path  string // effects[1].max_amount_usd
	span  syntax.Span
	isKey bool
	node  *node // the value
}

// locate finds the key or scalar value at off.
func locate(n *node, path string, off int) *place {
	switch n.kind {
	case kindMap:
		for _, e := range n.entries {
			p := join(path, e.key)
			if e.keySpan.Contains(off) {
				return &place{path: p, span: e.keySpan, isKey: true, node: e.val}
			}
			if r := locate(e.val, p, off); r != nil {
				return r
			}
		}
	case kindSeq:
		for i, it := range n.items {
			if r := locate(it, fmt.Sprintf("%s[%d]", path, i), off); r != nil {
				return r
			}
		}
	default:
		if n.span != (syntax.Span{}) && n.span.Contains(off) {
			return &place{path: path, span: n.span, node: n}
		}
	}
	return nil
}

// Hover describes the key or value at byte offset off of a contract's
// text, in Markdown, and the span it is about; ok is false when there is
// nothing to say. It works on contracts with errors.
func Hover(text []byte, off int) (md string, span syntax.Span, ok bool) {
	root, _ := readYAML(text)
	if root == nil {
		return "", syntax.Span{}, false
	}
	pl := locate(root, "", off)
	if pl == nil {
		return "", syntax.Span{}, false
	}
	generic := indexRE.ReplaceAllString(pl.path, "[]")
	doc, known := keyDocs[generic]
	if !known {
		return "", syntax.Span{}, false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**`%s`**\n\n%s", generic, doc)
	last := generic[strings.LastIndexAny(generic, ".]")+1:]
	if _, verb := Verbs[last]; verb && strings.HasPrefix(generic, "effects[]") {
		res := pl.node.text
		if resourceRE.MatchString(res) {
			tool := strings.ReplaceAll(Verbs[last], ".", "_") + "_" + strings.ToLower(strings.ReplaceAll(res, ".", "_"))
			fmt.Fprintf(&b, "\n\nLowers to the gate action `%s` (`mcp.call %s.%s`), the capability `Cap%s` and the EDL effect `%s.%s`.",
				tool, gatePort, tool, pascal(tool), Verbs[last], res)
		}
	}
	return b.String(), pl.span, true
}

// Definition finds what the name at byte offset off refers to: in an
// escalation condition, `amount_usd` is the amount of the effects that
// give max_amount_usd, so it leads to those keys. It returns nil when
// there is nothing to go to.
func Definition(text []byte, off int) []syntax.Span {
	root, _ := readYAML(text)
	if root == nil {
		return nil
	}
	pl := locate(root, "", off)
	if pl == nil || pl.isKey || !strings.HasPrefix(indexRE.ReplaceAllString(pl.path, "[]"), "policy.escalation[].if") {
		return nil
	}
	// The word under the cursor.
	start, end := off, off
	isWord := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for start > pl.span.Start && isWord(text[start-1]) {
		start--
	}
	for end < pl.span.End && isWord(text[end]) {
		end++
	}
	if string(text[start:end]) != "amount_usd" {
		return nil
	}
	var out []syntax.Span
	var effs *entry
	for _, e := range root.entries {
		if e.key == "effects" {
			effs = e
		}
	}
	if effs != nil && effs.val.kind == kindSeq {
		for _, it := range effs.val.items {
			for _, e := range it.entries {
				if e.key == "max_amount_usd" {
					out = append(out, e.keySpan)
				}
			}
		}
	}
	return out
}
