// Package capsule compiles Capsule governance contracts (.capsule.yaml,
// spec §13) into checked Capsulang and an enclosure bundle.
//
// The path is: the YAML contract is read with positions (Parse), every
// default is made explicit in the normalized contract IR (IR, printed as
// .capsule.json with a stable contract hash), the IR is checked against
// the rules a contract must keep, including the ones the spec rejects by
// design (Check), then lowered into an EDL enclosure contract (Lower) and
// from there into a Capsulang module with the Authority IR and a machine
// workflow, and the runtime artifacts of the bundle: Docker Compose, a
// macOS Seatbelt profile, a doorkeeper policy, telemetry and receipt
// plans, negative bypass scenarios and an attestation manifest with the
// SHA-256 of every artifact (Compile). Verify re-computes a written
// bundle. docs/capsule.md describes the contract format, the artifacts and
// the diagnostic codes.
package capsule

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/cond"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/syntax"
)

// Contract is a parsed contract: its IR (nil when the file has errors
// that leave no contract) and where each value came from.
type Contract struct {
	IR    *IR
	spans map[string]syntax.Span // by path: "identity.credentials", "effects[1].gate"
}

// Span is where the value at path was written (the nearest enclosing
// value that was, for a default).
func (c *Contract) Span(path string) syntax.Span {
	for p := path; p != ""; {
		if s, ok := c.spans[p]; ok {
			return s
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return syntax.Span{}
}

type errorString string

func (e errorString) Error() string { return string(e) }

func errorf(format string, args ...any) error { return errorString(fmt.Sprintf(format, args...)) }

// Parse reads a .capsule.yaml contract and checks its shape: YAML
// syntax, unknown keys, types, required keys and allowed values. It does
// not apply the rejected-by-design rules (Check does). The IR is nil when
// there are errors.
func Parse(text []byte) (*Contract, []syntax.Diagnostic) {
	root, diags := readYAML(text)
	d := &decoder{diags: diags, c: &Contract{spans: map[string]syntax.Span{}}}
	if len(diags) > 0 {
		return d.c, diags
	}
	ir := d.contract(root)
	sort.SliceStable(d.diags, func(i, j int) bool { return d.diags[i].Span.Start < d.diags[j].Span.Start })
	if !hasErrors(d.diags) {
		d.c.IR = ir
	}
	return d.c, d.diags
}

func hasErrors(ds []syntax.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == syntax.Error {
			return true
		}
	}
	return false
}

// decoder reads nodes into the IR, collecting diagnostics.
type decoder struct {
	diags []syntax.Diagnostic
	c     *Contract
}

func (d *decoder) errorf(code string, span syntax.Span, format string, args ...any) {
	d.diags = append(d.diags, syntax.Diagnostic{Code: code, Severity: syntax.Error, Span: span, Message: fmt.Sprintf(format, args...)})
}

// object is a mapping being decoded: its entries by key, and the keys it
// may have.
type object struct {
	d    *decoder
	n    *node
	path string
	keys map[string]*entry
}

// object checks that n is a mapping with only the given keys.
func (d *decoder) object(n *node, path string, keys ...string) *object {
	o := &object{d: d, n: n, path: path, keys: map[string]*entry{}}
	if n.kind != kindMap {
		if n.kind != kindNull {
			d.typeError(n, path, "a mapping")
		}
		return o
	}
	for _, e := range n.entries {
		if !slices.Contains(keys, e.key) {
			msg := fmt.Sprintf("unknown key %q in %s", e.key, where(path))
			s := spell.Nearest(e.key, keys)
			if s != "" {
				msg += spell.Hint(s, spell.Go)
			} else {
				msg += "; its keys are " + strings.Join(keys, ", ")
			}
			d.errorf(CodeUnknownKey, e.keySpan, "%s", msg)
			d.diags[len(d.diags)-1].Suggestion = s
			continue
		}
		o.keys[e.key] = e
		d.c.spans[join(path, e.key)] = e.val.span
	}
	return o
}

func where(path string) string {
	if path == "" {
		return "the contract"
	}
	return "`" + path + "`"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (d *decoder) typeError(n *node, path, want string) {
	d.errorf(CodeType, n.span, "`%s` must be %s, not %s", path, want, n.kind)
}

// get returns the value of key, or nil when it is absent (or null).
func (o *object) get(key string) *node {
	e := o.keys[key]
	if e == nil || e.val.kind == kindNull {
		return nil
	}
	return e.val
}

// require reports a missing key with code.
func (o *object) require(key, code, what string) *node {
	n := o.get(key)
	if n == nil && (o.n.kind == kindMap || o.n.kind == kindNull) {
		span := o.n.span
		if e := o.keys[key]; e != nil {
			span = e.keySpan
		}
		o.d.errorf(code, span, "%s has no `%s`: %s", where(o.path), join(o.path, key), what)
	}
	return n
}

// str reads a string (a plain number is accepted as its text where
// noted by the caller through allowNumber).
func (o *object) str(key, def string) string {
	n := o.get(key)
	if n == nil {
		return def
	}
	return o.d.str(n, join(o.path, key))
}

func (d *decoder) str(n *node, path string) string {
	if n.kind != kindString {
		d.typeError(n, path, "a string")
		return ""
	}
	return n.text
}

// enum reads a string that must be one of allowed.
func (o *object) enum(key, def string, allowed ...string) string {
	n := o.get(key)
	if n == nil {
		return def
	}
	return o.d.enum(n, join(o.path, key), allowed...)
}

func (d *decoder) enum(n *node, path string, allowed ...string) string {
	s := d.str(n, path)
	if n.kind == kindString && !slices.Contains(allowed, s) {
		d.errorf(CodeValue, n.span, "`%s` is %q; it must be one of %s", path, s, strings.Join(allowed, ", "))
		return ""
	}
	return s
}

func (o *object) boolean(key string, def bool) bool {
	n := o.get(key)
	if n == nil {
		return def
	}
	if n.kind != kindBool {
		o.d.typeError(n, join(o.path, key), "true or false")
		return def
	}
	return n.text == "true" || n.text == "True" || n.text == "TRUE"
}

// amount reads a whole number of dollars, at least 0.
func (o *object) amount(key string) *int64 {
	n := o.get(key)
	if n == nil {
		return nil
	}
	path := join(o.path, key)
	if n.kind != kindInt {
		o.d.typeError(n, path, "a whole number")
		return nil
	}
	v, err := strconv.ParseInt(n.text, 0, 64)
	if err != nil || v < 0 {
		o.d.errorf(CodeValue, n.span, "`%s` is %s; it must be a whole number from 0 to %d", path, n.text, int64(1)<<62)
		return nil
	}
	return &v
}

// list reads a list of strings; a missing list is empty.
func (o *object) list(key string, allowed ...string) []string {
	out := []string{}
	n := o.get(key)
	if n == nil {
		return out
	}
	path := join(o.path, key)
	if n.kind != kindSeq {
		o.d.typeError(n, path, "a list")
		return out
	}
	for i, it := range n.items {
		p := fmt.Sprintf("%s[%d]", path, i)
		o.d.c.spans[p] = it.span
		var s string
		if allowed != nil {
			s = o.d.enum(it, p, allowed...)
		} else {
			s = o.d.str(it, p)
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

var (
	moduleRE   = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)
	semverRE   = regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	idRE       = regexp.MustCompile(`^[a-z]+:[A-Z][A-Za-z0-9]*$`)
	resourceRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*(\.[A-Za-z_][A-Za-z0-9_]*)+$`)
	durationRE = regexp.MustCompile(`^[1-9][0-9]*(ms|s|m|h|d)$`)
	storeIDRE  = regexp.MustCompile(`^mem:[a-z][a-z0-9-]*$`)
	nameRE     = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
)

// matched reads a string that must match re.
func (o *object) matched(key, def string, re *regexp.Regexp, what string) string {
	n := o.get(key)
	if n == nil {
		return def
	}
	return o.d.matched(n, join(o.path, key), re, what)
}

func (d *decoder) matched(n *node, path string, re *regexp.Regexp, what string) string {
	s := d.str(n, path)
	if n.kind == kindString && !re.MatchString(s) {
		d.errorf(CodeValue, n.span, "`%s` is %q; it must be %s", path, s, what)
		return ""
	}
	return s
}

// Verbs are the effect verbs of a contract, and the EDL effect each lowers
// to.
var Verbs = map[string]string{"read": "db.read", "write": "db.write", "delete": "db.delete", "call": "http.call"}

var verbOrder = []string{"read", "write", "delete", "call"}

// contract decodes the top level.
func (d *decoder) contract(root *node) *IR {
	if root == nil {
		root = &node{kind: kindNull}
	}
	o := d.object(root, "", "capsule", "module", "version", "purpose", "identity", "inputs", "outputs", "effects", "telemetry", "policy", "runtime", "memory")
	if root.kind != kindMap && root.kind != kindNull {
		return nil
	}
	ir := &IR{Format: IRFormat, FormatVersion: 1}
	if n := o.require("capsule", CodeMissingField, "give the contract format version, `capsule: 0.1`"); n != nil {
		if (n.kind != kindFloat && n.kind != kindString) || n.text != "0.1" {
			d.errorf(CodeValue, n.span, "`capsule` is %s; this toolchain reads contract format 0.1 (`capsule: 0.1`)", n.text)
		}
		ir.Capsule = "0.1"
	}
	if n := o.require("module", CodeMissingField, "name the contract's module, for example `module: claims.refund_reviewer`"); n != nil {
		ir.Module = d.matched(n, "module", moduleRE, "a dotted lower-case name such as claims.refund_reviewer")
	}
	if n := o.require("version", CodeMissingField, "give the contract's version, for example `version: 1.0.0`"); n != nil {
		ir.Version = d.matched(n, "version", semverRE, "a version MAJOR.MINOR.PATCH such as 1.2.0")
	}
	if n := o.require("purpose", CodeMissingField, "say in one sentence what the agent is for; it becomes the mandate's purpose"); n != nil {
		ir.Purpose = d.str(n, "purpose")
		if n.kind == kindString && strings.TrimSpace(ir.Purpose) == "" {
			d.errorf(CodeValue, n.span, "`purpose` is empty; say what the agent is for")
		}
	}
	if n := o.get("identity"); n != nil {
		ir.Identity = d.identity(n)
	} else {
		span := root.span
		if e := o.keys["identity"]; e != nil {
			span = e.keySpan
		}
		d.errorf(CodeNoIdentity, span, "the contract has no `identity`: say who the agent is (`id: agent:Name`), who owns it (`owner: human:Name`) and how it proves who it is")
	}
	ir.Inputs = o.list("inputs")
	ir.Outputs = o.list("outputs")
	for _, k := range []string{"inputs", "outputs"} {
		for i, s := range map[string][]string{"inputs": ir.Inputs, "outputs": ir.Outputs}[k] {
			if !nameRE.MatchString(s) {
				d.errorf(CodeValue, d.c.Span(fmt.Sprintf("%s[%d]", k, i)), "`%s[%d]` is %q; it must be a type name such as RefundRequest", k, i, s)
			}
		}
	}
	ir.Effects = d.effects(o)
	if n := o.get("telemetry"); n != nil {
		ir.Telemetry = d.telemetry(n)
	} else {
		span := root.span
		if e := o.keys["telemetry"]; e != nil {
			span = e.keySpan
		}
		d.errorf(CodeNoTelemetry, span, "the contract has no `telemetry`: every authority decision must be recorded; add `telemetry: {required: true, tamper_evident: true, export: [otel, ledger]}`")
	}
	ir.Policy = d.policy(o.get("policy"))
	ir.Runtime = d.runtime(o.require("runtime", CodeMissingField, "describe the enclosure: at least `image:` (pinned by digest) and `doorkeeper_endpoint:`"))
	ir.Memory = d.memory(o.get("memory"))
	d.amountRules(ir)
	return ir
}

func (d *decoder) identity(n *node) Identity {
	o := d.object(n, "identity", "id", "kind", "cryptographic", "credentials", "attestation", "owner", "mandate_valid_for")
	id := Identity{}
	if v := o.require("id", CodeMissingField, "name the agent, for example `id: agent:RefundReviewer`"); v != nil {
		id.ID = d.matched(v, "identity.id", idRE, "KIND:Name, such as agent:RefundReviewer")
	}
	idKind, _, _ := strings.Cut(id.ID, ":")
	id.Kind = o.enum("kind", idKind, "agent", "service")
	if id.ID != "" && id.Kind != "" && idKind != id.Kind {
		d.errorf(CodeValue, d.c.Span("identity.kind"), "`identity.kind` is %s but `identity.id` is %s: make them agree", id.Kind, id.ID)
	}
	if id.ID != "" && idKind != "agent" && idKind != "service" {
		d.errorf(CodeValue, d.c.Span("identity.id"), "`identity.id` is %s; the enclosed identity is an agent: or a service:", id.ID)
	}
	id.Cryptographic = o.enum("cryptographic", "required", "required", "optional")
	id.Credentials = o.enum("credentials", "short_lived", "short_lived", "ambient", "host_keychain")
	id.Attestation = o.enum("attestation", "required", "required", "optional")
	if v := o.require("owner", CodeMissingField, "name the accountable person, for example `owner: human:ClaimsLead`"); v != nil {
		id.Owner = d.matched(v, "identity.owner", idRE, "human:Name, such as human:ClaimsLead")
		if id.Owner != "" && !strings.HasPrefix(id.Owner, "human:") {
			d.errorf(CodeValue, v.span, "`identity.owner` is %s; the owner who issues the mandate and approves is a human: principal", id.Owner)
		}
	}
	id.MandateValidFor = o.matched("mandate_valid_for", "30m", durationRE, "a duration such as 30m, 8h or 1d")
	return id
}

func (d *decoder) effects(o *object) []*Effect {
	out := []*Effect{}
	n := o.get("effects")
	if n == nil || (n.kind == kindSeq && len(n.items) == 0) {
		span := o.n.span
		if e := o.keys["effects"]; e != nil {
			span = e.keySpan
		}
		d.errorf(CodeNoEffects, span, "the contract declares no `effects`: list what the agent may do, for example `- read: CustomerDB.claims`; an agent with no effects needs no enclosure")
		return out
	}
	if n.kind != kindSeq {
		d.typeError(n, "effects", "a list")
		return out
	}
	seen := map[string]int{}
	for i, it := range n.items {
		path := fmt.Sprintf("effects[%d]", i)
		d.c.spans[path] = it.span
		if it.kind != kindMap {
			d.typeError(it, path, "a mapping such as `read: CustomerDB.claims`")
			continue
		}
		eo := d.object(it, path, "read", "write", "delete", "call", "max_amount_usd", "approval_required_above_usd", "approval", "gate", "risk", "receipt", "valid_for")
		e := &Effect{}
		var verbs []string
		for _, v := range verbOrder {
			if eo.keys[v] != nil {
				verbs = append(verbs, v)
			}
		}
		switch len(verbs) {
		case 0:
			d.errorf(CodeMissingField, it.span, "`%s` names no verb: give exactly one of read, write, delete, call with the resource, such as `read: CustomerDB.claims`", path)
			continue
		case 1:
		default:
			d.errorf(CodeValue, eo.keys[verbs[1]].keySpan, "`%s` has several verbs (%s): write one effect per verb", path, strings.Join(verbs, ", "))
			continue
		}
		e.Verb = verbs[0]
		e.Resource = eo.matched(e.Verb, "", resourceRE, "a resource such as CustomerDB.claims (a capitalized system, a dot, a member)")
		if e.Resource == "" {
			if eo.get(e.Verb) == nil {
				d.errorf(CodeMissingField, eo.keys[e.Verb].keySpan, "`%s.%s` names no resource", path, e.Verb)
			}
			continue
		}
		key := e.Verb + " " + e.Resource
		if j, dup := seen[key]; dup {
			d.errorf(CodeValue, eo.keys[e.Verb].keySpan, "`%s` repeats effects[%d] (%s %s): merge them into one", path, j, e.Verb, e.Resource)
			continue
		}
		seen[key] = i
		e.EDLEffect = Verbs[e.Verb] + "." + e.Resource
		e.Tool = strings.ReplaceAll(Verbs[e.Verb], ".", "_") + "_" + strings.ToLower(strings.ReplaceAll(e.Resource, ".", "_"))
		e.Protected = e.Verb != "read"
		e.MaxAmountUSD = eo.amount("max_amount_usd")
		e.ApprovalRequiredAboveUSD = eo.amount("approval_required_above_usd")
		e.Gate = eo.enum("gate", "doorkeeper", "doorkeeper", "none")
		approval := "none"
		if e.ApprovalRequiredAboveUSD != nil {
			approval = "above_threshold"
		}
		e.Approval = eo.enum("approval", approval, "none", "always", "above_threshold")
		if e.Approval == "above_threshold" && e.ApprovalRequiredAboveUSD == nil && eo.get("approval") != nil {
			d.errorf(CodeMissingField, d.c.Span(path+".approval"), "`%s.approval` is above_threshold but there is no `approval_required_above_usd`", path)
		}
		if e.ApprovalRequiredAboveUSD != nil && e.Approval != "above_threshold" && e.Approval != "" {
			d.errorf(CodeValue, d.c.Span(path+".approval"), "`%s` gives `approval_required_above_usd` with `approval: %s`: drop one of them", path, e.Approval)
		}
		if e.MaxAmountUSD != nil && e.ApprovalRequiredAboveUSD != nil && *e.ApprovalRequiredAboveUSD >= *e.MaxAmountUSD {
			d.errorf(CodeValue, d.c.Span(path+".approval_required_above_usd"), "`%s.approval_required_above_usd` (%d) must be below `max_amount_usd` (%d)", path, *e.ApprovalRequiredAboveUSD, *e.MaxAmountUSD)
		}
		if e.ApprovalRequiredAboveUSD != nil && eo.get("max_amount_usd") == nil {
			d.errorf(CodeMissingField, d.c.Span(path+".approval_required_above_usd"), "`%s` has an approval threshold but no `max_amount_usd`: give the largest amount the agent may move", path)
		}
		risk := "low"
		if e.MaxAmountUSD != nil || e.Approval == "always" || e.Verb == "delete" {
			risk = "high"
		}
		e.Risk = eo.enum("risk", risk, "low", "high")
		receipt := "required"
		if e.Approval != "none" {
			receipt = "approval_bound"
		}
		e.Receipt = eo.enum("receipt", receipt, "required", "approval_bound", "none")
		valid := "10m"
		if e.Protected {
			valid = "5m"
		}
		e.ValidFor = eo.matched("valid_for", valid, durationRE, "a duration such as 5m or 1h")
		out = append(out, e)
	}
	return out
}

func (d *decoder) telemetry(n *node) Telemetry {
	o := d.object(n, "telemetry", "required", "tamper_evident", "export")
	t := Telemetry{Required: o.boolean("required", true), TamperEvident: o.boolean("tamper_evident", true)}
	t.Export = o.list("export", "otel", "siem", "ledger")
	if o.get("export") == nil && n.kind == kindMap {
		t.Export = []string{"ledger"}
	}
	return t
}

func (d *decoder) policy(n *node) Policy {
	p := Policy{Default: "deny", Escalation: []*Escalation{}}
	if n == nil {
		return p
	}
	o := d.object(n, "policy", "default", "escalation")
	p.Default = o.enum("default", "deny", "deny", "escalate", "allow")
	esc := o.get("escalation")
	if esc == nil {
		return p
	}
	if esc.kind != kindSeq {
		d.typeError(esc, "policy.escalation", "a list")
		return p
	}
	for i, it := range esc.items {
		path := fmt.Sprintf("policy.escalation[%d]", i)
		d.c.spans[path] = it.span
		eo := d.object(it, path, "if", "require")
		if it.kind != kindMap {
			continue
		}
		e := &Escalation{}
		if v := eo.require("if", CodeMissingField, "give the condition, for example `if: amount_usd > 50`"); v != nil {
			e.If = d.str(v, path+".if")
			if v.kind == kindString {
				d.condition(e.If, v)
			}
		}
		e.Require = eo.list("require", "human_approval")
		if len(e.Require) == 0 && eo.get("require") == nil && it.kind == kindMap {
			e.Require = []string{"human_approval"}
		}
		p.Escalation = append(p.Escalation, e)
	}
	return p
}

// condition checks an escalation condition: our condition language over
// amount_usd, the amount of the effect.
func (d *decoder) condition(text string, n *node) {
	x, err := cond.Parse(text)
	base := n.span.Start
	if n.span.End-n.span.Start > len(text) { // quoted
		base++
	}
	if err != nil {
		d.errorf(CodeValue, syntax.Span{Start: base + err.Start, End: base + err.End}, "escalation condition: %s", err.Msg)
		return
	}
	env := cond.NewEnv()
	env.Define("amount_usd", cond.Int)
	for _, e := range cond.Check(x, env, spell.Nearest) {
		d.errorf(CodeValue, syntax.Span{Start: base + e.Start, End: base + e.End}, "escalation condition: %s (a contract's conditions may read amount_usd, the amount of the effect)", e.Msg)
	}
}

// amountRules: an escalation applies to the effects that carry an amount,
// so a contract with escalation rules needs one.
func (d *decoder) amountRules(ir *IR) {
	if len(ir.Policy.Escalation) == 0 {
		return
	}
	for _, e := range ir.Effects {
		if e.MaxAmountUSD != nil {
			return
		}
	}
	if len(ir.Effects) > 0 {
		d.errorf(CodeValue, d.c.Span("policy.escalation[0]"), "`policy.escalation` applies to effects that carry an amount, and no effect gives `max_amount_usd`")
	}
}

func (d *decoder) runtime(n *node) Runtime {
	r := Runtime{Mode: "enforce", Network: "deny", Secrets: "brokered", Mounts: []string{}, Command: []string{}, Workdir: "/workspace", BackendPreference: []string{"docker", "seatbelt"}}
	if n == nil {
		return r
	}
	o := d.object(n, "runtime", "mode", "network", "secrets", "mounts", "image", "command", "workdir", "doorkeeper_endpoint", "backend_preference")
	r.Mode = o.enum("mode", "enforce", "enforce", "audit")
	r.Network = o.enum("network", "deny", "deny", "allow")
	r.Secrets = o.enum("secrets", "brokered", "brokered", "ambient", "host_keychain")
	r.Mounts = o.list("mounts")
	for i, m := range r.Mounts {
		if !strings.HasPrefix(m, "/") && !strings.HasPrefix(m, "~/") {
			d.errorf(CodeValue, d.c.Span(fmt.Sprintf("runtime.mounts[%d]", i)), "`runtime.mounts[%d]` is %q; give an absolute host path (it is mounted read-only)", i, m)
		}
	}
	if v := o.require("image", CodeMissingField, "give the agent's container image, pinned by digest (`repo/name@sha256:...`)"); v != nil {
		r.Image = d.str(v, "runtime.image")
		if v.kind == kindString && (r.Image == "" || strings.ContainsAny(r.Image, " \t")) {
			d.errorf(CodeValue, v.span, "`runtime.image` is %q; give an image reference such as ghcr.io/acme/agent@sha256:...", r.Image)
		}
	}
	r.Command = o.list("command")
	r.Workdir = o.str("workdir", "/workspace")
	if !strings.HasPrefix(r.Workdir, "/") && r.Workdir != "" {
		d.errorf(CodeValue, d.c.Span("runtime.workdir"), "`runtime.workdir` is %q; give an absolute path inside the container", r.Workdir)
	}
	r.DoorkeeperEndpoint = o.str("doorkeeper_endpoint", "")
	if r.DoorkeeperEndpoint != "" && !strings.HasPrefix(r.DoorkeeperEndpoint, "https://") && !strings.HasPrefix(r.DoorkeeperEndpoint, "http://") {
		d.errorf(CodeValue, d.c.Span("runtime.doorkeeper_endpoint"), "`runtime.doorkeeper_endpoint` is %q; give the gate's http:// or https:// URL", r.DoorkeeperEndpoint)
	}
	if o.get("backend_preference") != nil {
		r.BackendPreference = o.list("backend_preference", "docker", "seatbelt")
	}
	return r
}

func (d *decoder) memory(n *node) Memory {
	m := Memory{Default: "isolated", Stores: []*Store{}}
	if n == nil {
		return m
	}
	o := d.object(n, "memory", "default", "stores")
	m.Default = o.enum("default", "isolated", "isolated", "none")
	st := o.get("stores")
	if st == nil {
		return m
	}
	if st.kind != kindSeq {
		d.typeError(st, "memory.stores", "a list")
		return m
	}
	for i, it := range st.items {
		path := fmt.Sprintf("memory.stores[%d]", i)
		d.c.spans[path] = it.span
		so := d.object(it, path, "id", "isolation", "ttl", "source_attribution", "hash_validation")
		if it.kind != kindMap {
			continue
		}
		s := &Store{}
		if v := so.require("id", CodeMissingField, "name the store, for example `id: mem:refund-session`"); v != nil {
			s.ID = d.matched(v, path+".id", storeIDRE, "mem:NAME in lower case, such as mem:refund-session")
		}
		s.Isolation = so.enum("isolation", "per_session", "per_session", "per_task", "shared")
		s.TTL = so.matched("ttl", "24h", durationRE, "a duration such as 24h")
		s.SourceAttribution = so.enum("source_attribution", "required", "required", "optional")
		s.HashValidation = so.enum("hash_validation", "on_read", "on_read", "on_write", "none")
		m.Stores = append(m.Stores, s)
	}
	return m
}
