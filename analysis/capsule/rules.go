package capsule

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/capsulang/caps/syntax"
)

// Check parses a contract and applies every rule, the rejected-by-design
// rules of spec §13 included. The contract's IR is nil when there are
// errors.
func Check(text []byte) (*Contract, []syntax.Diagnostic) {
	c, diags := Parse(text)
	if c.IR == nil {
		return c, diags
	}
	diags = append(diags, c.Rules()...)
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Span.Start < diags[j].Span.Start })
	if hasErrors(diags) {
		c.IR = nil
	}
	return c, diags
}

// pinnedRE matches an image reference pinned by digest.
var pinnedRE = regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)

// credentialStores are host paths that hold credentials; mounting one
// into the enclosure hands the agent ambient credentials.
var credentialStores = []string{
	"/Library/Keychains", "/.aws", "/.ssh", "/.gnupg", "/.docker/config.json",
	"/.config/gcloud", "/.kube", "/.netrc", "/.git-credentials", "/.config/gh", "/var/run/docker.sock",
	"/run/secrets", "/.azure",
}

// Rules applies the rejected-by-design rules to a parsed contract.
func (c *Contract) Rules() []syntax.Diagnostic {
	ir := c.IR
	var out []syntax.Diagnostic
	add := func(code, path, format string, args ...any) {
		out = append(out, syntax.Diagnostic{Code: code, Severity: syntax.Error, Span: c.Span(path), Message: fmt.Sprintf(format, args...)})
	}
	// Ambient credentials and host keychain access.
	switch ir.Identity.Credentials {
	case "ambient", "host_keychain":
		add(CodeAmbientCredentials, "identity.credentials", "`identity.credentials: %s` gives the agent the host's own credentials; an enclosed agent holds only short-lived credentials issued for its mandate: write `credentials: short_lived`", ir.Identity.Credentials)
	}
	switch ir.Runtime.Secrets {
	case "ambient", "host_keychain":
		add(CodeAmbientCredentials, "runtime.secrets", "`runtime.secrets: %s` exposes the host's secrets to the enclosure; secrets reach the agent only through the doorkeeper: write `secrets: brokered`", ir.Runtime.Secrets)
	}
	for i, m := range ir.Runtime.Mounts {
		for _, s := range credentialStores {
			if strings.Contains(m, s) {
				add(CodeAmbientCredentials, fmt.Sprintf("runtime.mounts[%d]", i), "`runtime.mounts[%d]` (%s) mounts a host credential store (%s) into the enclosure: remove the mount and let the doorkeeper broker the credential", i, m, s)
				break
			}
		}
	}
	// Default-allow in enforce mode.
	if ir.Runtime.Mode == "enforce" {
		if ir.Runtime.Network == "allow" {
			add(CodeDefaultAllow, "runtime.network", "`runtime.network: allow` lets the enforced enclosure reach any host; egress goes only through the doorkeeper: write `network: deny` (or `mode: audit` while you observe)")
		}
		if ir.Policy.Default == "allow" {
			add(CodeDefaultAllow, "policy.default", "`policy.default: allow` allows every effect no rule decides in an enforced enclosure: write `default: deny` and allow effects by listing them")
		}
	}
	// Protected effects need a gate action; high-risk ones an approval-bound receipt.
	for i, e := range ir.Effects {
		path := fmt.Sprintf("effects[%d]", i)
		if e.Protected && e.Gate == "none" {
			add(CodeUngatedEffect, path+".gate", "`%s` (%s %s) changes the world with `gate: none`; a protected effect runs only as a gate action of the doorkeeper: remove `gate: none`", path, e.Verb, e.Resource)
		} else if e.Protected && ir.Runtime.DoorkeeperEndpoint == "" {
			add(CodeUngatedEffect, path, "`%s` (%s %s) is protected but the contract names no gate: add `runtime.doorkeeper_endpoint`, the doorkeeper that mediates it", path, e.Verb, e.Resource)
		}
		if e.Risk != "high" {
			continue
		}
		switch {
		case e.Approval == "none":
			add(CodeUnboundReceipt, path, "`%s` (%s %s) is high-risk but needs no approval; give `approval_required_above_usd` or `approval: always` so that its receipt is bound to an approval", path, e.Verb, e.Resource)
		case e.Receipt != "approval_bound":
			add(CodeUnboundReceipt, path+".receipt", "`%s` (%s %s) is high-risk but its receipt is `%s`; a high-risk operation completes only with a receipt bound to its approval: write `receipt: approval_bound`", path, e.Verb, e.Resource, e.Receipt)
		}
	}
	// The enclosure's image is pinned by digest, or the attestation binds
	// nothing.
	if !pinnedRE.MatchString(ir.Runtime.Image) {
		out = append(out, syntax.Diagnostic{Code: CodeImageNotPinned, Severity: syntax.Warning, Span: c.Span("runtime.image"),
			Message: fmt.Sprintf("`runtime.image` (%s) is not pinned by a sha256 digest, so the attested bundle does not fix what runs: write IMAGE@sha256:<64 hex digits>", ir.Runtime.Image)})
	}
	// Authority decisions need telemetry.
	t := ir.Telemetry
	switch {
	case !t.Required:
		add(CodeUntracedDecisions, "telemetry.required", "`telemetry.required: false` would leave authority decisions unrecorded: write `required: true`")
	case len(t.Export) == 0:
		add(CodeUntracedDecisions, "telemetry.export", "`telemetry.export` is empty, so authority decisions go nowhere: export to at least one of otel, siem, ledger")
	case !t.TamperEvident:
		add(CodeUntracedDecisions, "telemetry.tamper_evident", "`telemetry.tamper_evident: false` lets the record of authority decisions be changed unnoticed: write `tamper_evident: true`")
	}
	return out
}
