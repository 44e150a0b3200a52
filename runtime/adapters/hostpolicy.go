package adapters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/hostpolicy"
	"github.com/capsulang/caps/syntax/ast"
)

// The format and version of the host-policy artifact.
const (
	HostPolicyFormat  = "capsulang.host-policy"
	HostPolicyVersion = 1
)

// DefaultTimeout is the attempt timeout of a generated host section.
const DefaultTimeout = 30_000 // ms

// HostPolicy is the host-policy artifact (docs/authority.md): the module's
// Authority IR and effect intents, bound to its semantic hash, and the
// host-owned Policy that live mode enforces. The JSON Schema of its
// version 1 is docs/schemas/host-policy.v1.schema.json.
type HostPolicy struct {
	Format       string                `json:"format"`
	Version      int                   `json:"version"`
	Module       string                `json:"module"`
	SemanticHash string                `json:"semantic_hash"`
	Authority    *hostpolicy.Authority `json:"authority"`
	Effects      []hostpolicy.Effect   `json:"effects"`
	Host         *Policy               `json:"host"`
}

// HostModule is the checked module a host policy is made for or loaded
// against.
type HostModule struct {
	// Path is the module's file as the user gave it, for messages.
	Path string
	// Module is the module's syntax tree.
	Module *ast.Module
	// Hash is its semantic hash, as `caps hash` prints it.
	Hash string
}

func (m HostModule) name() string {
	if m.Module == nil {
		return ""
	}
	return m.Module.Name.Name
}

// Boundary is what the module's enforced trust boundaries ((mode enforce))
// allow the live adapters.
type Boundary struct {
	// Names are the enforced trust boundaries.
	Names []string
	// EgressOnly lists the ports the adapters may reach (the ports every
	// enforced (egress-only ...) lists), sorted; nil when no enforced
	// boundary restricts egress.
	EgressOnly []string
	// AmbientDeny is set by (secrets ambient-deny): MCP servers get only
	// the environment the host section gives them.
	AmbientDeny bool
}

// allowsEgress reports whether an adapter may reach the port; when not,
// it says why.
func (b *Boundary) allowsEgress(port string) (bool, string) {
	if b == nil || b.EgressOnly == nil {
		return true, ""
	}
	i := sort.SearchStrings(b.EgressOnly, port)
	if i < len(b.EgressOnly) && b.EgressOnly[i] == port {
		return true, ""
	}
	return false, fmt.Sprintf("trust boundary %s allows egress only through %s, not port %s",
		strings.Join(b.Names, ", "), listOrNone(b.EgressOnly), port)
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "no port"
	}
	return strings.Join(names, ", ")
}

// NewHostPolicy makes the artifact of a checked module. With host nil the
// host section is generated (GeneratedHost); otherwise it is host, which
// must pass the checks of a loaded artifact: valid rules and bindings,
// within the module's trust boundaries.
func NewHostPolicy(mod HostModule, host *Policy) (*HostPolicy, error) {
	auth, effects, err := hostpolicy.Export(mod.Module)
	if err != nil {
		return nil, err
	}
	if host == nil {
		host = GeneratedHost(effects)
	}
	if err := validateHost(host); err != nil {
		return nil, err
	}
	if _, err := checkBoundaries(host, auth, mod.Module); err != nil {
		return nil, err
	}
	return &HostPolicy{Format: HostPolicyFormat, Version: HostPolicyVersion, Module: mod.name(), SemanticHash: mod.Hash,
		Authority: auth, Effects: effects, Host: withDefaults(host)}, nil
}

// GeneratedHost is the host section of a generated artifact: an allow rule
// for exactly each effect and target the module's machines can emit (in
// the order of the effects), no deny rule, no bindings (the host fills
// them in) and a 30s timeout. The host layer then narrows nothing; the
// module's own authority policy decides.
func GeneratedHost(effects []hostpolicy.Effect) *Policy {
	p := &Policy{Allow: []Rule{}}
	seen := map[Rule]bool{}
	for _, e := range effects {
		r := Rule{Effect: e.Effect}
		if e.Target != nil {
			r.Target = *e.Target
		}
		if !seen[r] {
			seen[r] = true
			p.Allow = append(p.Allow, r)
		}
	}
	return withDefaults(p)
}

// withDefaults returns a copy of p with its absent parts spelled out: no
// rules and no bindings as empty lists and objects, the default timeout.
func withDefaults(p *Policy) *Policy {
	q := *p
	if q.Allow == nil {
		q.Allow = []Rule{}
	}
	if q.Deny == nil {
		q.Deny = []Rule{}
	}
	if q.MCP == nil {
		q.MCP = map[string]*MCPServer{}
	}
	if q.HTTP == nil {
		q.HTTP = map[string]*HTTPService{}
	}
	if q.Timeout == nil {
		q.Timeout = &Duration{Millis: DefaultTimeout}
	}
	return &q
}

// Marshal returns the artifact in canonical form: object keys sorted,
// two-space indentation, no HTML escaping, a final newline.
func (h *HostPolicy) Marshal() ([]byte, error) {
	return canonicalJSON(h)
}

// canonicalJSON encodes v with sorted keys and two-space indentation.
func canonicalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// legacyKeys are the top-level fields of the host policy file that live
// mode read before the artifact.
var legacyKeys = []string{"allow", "deny", "mcp", "http", "timeout"}

// legacyPolicy is that file: every field optional.
type legacyPolicy struct {
	Allow   []Rule                  `json:"allow,omitempty"`
	Deny    []Rule                  `json:"deny,omitempty"`
	MCP     map[string]*MCPServer   `json:"mcp,omitempty"`
	HTTP    map[string]*HTTPService `json:"http,omitempty"`
	Timeout *Duration               `json:"timeout,omitempty"`
}

// ParseHostPolicy decodes a host-policy artifact for mod and returns its
// host section, ready for live mode. It refuses: malformed JSON (with
// line:column), a legacy policy file (saying how to convert it), another
// format or version, unknown, repeated or missing fields and values of
// the wrong type (with their JSON path), a semantic hash other than the
// module's (saying how to regenerate), authority or effects sections that
// differ from the module's export (edited by hand), invalid rules and
// bindings, and bindings the module's enforced trust boundaries forbid.
// It then replaces ${NAME} in MCP env, HTTP, A2A and A2UI header values and
// store folders by the host's environment variables and applies the trust
// boundaries.
func ParseHostPolicy(data []byte, file string, mod HostModule) (*Policy, error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if err := checkHeader(data, root, file, &mod); err != nil {
		return nil, err
	}
	var h HostPolicy
	if err := decodeStrict(data, &h); err != nil {
		return nil, err
	}
	if h.Module != mod.name() {
		return nil, &JSONError{Path: "$.module", Msg: fmt.Sprintf("the module is %q, but %s declares module %s; the field is generated and must not be edited", h.Module, mod.Path, mod.name())}
	}
	if h.Host == nil {
		return nil, &JSONError{Path: "$.host", Msg: "the host section is null; it holds the host's allow and deny rules and bindings"}
	}
	auth, effects, err := hostpolicy.Export(mod.Module)
	if err != nil {
		return nil, err
	}
	if err := hostpolicy.Compare(h.Authority, h.Effects, auth, effects); err != nil {
		return nil, fmt.Errorf("%v: the authority and effects sections are generated from module %s and must not be edited; change the module instead and regenerate the artifact, keeping its host section: caps host-policy %s --host %s --json > NEW.json",
			err, mod.name(), mod.Path, file)
	}
	if err := validateHost(h.Host); err != nil {
		return nil, err
	}
	b, err := checkBoundaries(h.Host, auth, mod.Module)
	if err != nil {
		return nil, err
	}
	p := withDefaults(h.Host)
	p.Boundary = b
	p.Module = mod.Module
	resolve(p)
	return p, nil
}

// LoadHostPolicy reads a host-policy artifact for mod (ParseHostPolicy);
// errors start with the file's name (and line:column where known).
func LoadHostPolicy(file string, mod HostModule) (*Policy, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p, err := ParseHostPolicy(data, file, mod)
	if err != nil {
		return nil, fileError(file, err)
	}
	return p, nil
}

// ReadHostSection reads the host section to keep when an artifact is
// regenerated (caps host-policy --host FILE): the "host" of an artifact of
// any module, or a legacy policy file (top-level allow, deny, mcp, http,
// timeout). ${NAME} references are kept as written.
func ReadHostSection(file string) (*Policy, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p, err := parseHostSection(data)
	if err != nil {
		return nil, fileError(file, err)
	}
	return p, nil
}

func parseHostSection(data []byte) (*Policy, error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if root.kind == '{' && member(root, "format") == nil && isLegacy(root) {
		var l legacyPolicy
		if err := decodeStrict(data, &l); err != nil {
			return nil, err
		}
		p := &Policy{Allow: l.Allow, Deny: l.Deny, MCP: l.MCP, HTTP: l.HTTP, Timeout: l.Timeout}
		if err := validateHost(p); err != nil {
			return nil, err
		}
		return withDefaults(p), nil
	}
	if err := checkHeader(data, root, "", nil); err != nil {
		return nil, err
	}
	var h HostPolicy
	if err := decodeStrict(data, &h); err != nil {
		return nil, err
	}
	if h.Host == nil {
		return nil, &JSONError{Path: "$.host", Msg: "the host section is null"}
	}
	if err := validateHost(h.Host); err != nil {
		return nil, err
	}
	return withDefaults(h.Host), nil
}

// fileError prefixes an error with the file: "FILE:LINE:COL: ..." or
// "FILE: ...".
func fileError(file string, err error) error {
	if je, ok := err.(*JSONError); ok && je.Line > 0 {
		return fmt.Errorf("%s:%v", file, err)
	}
	return fmt.Errorf("%s: %v", file, err)
}

// checkHeader checks the document's shape, format and version and, for a
// document loaded against a module (mod not nil), that it is not a legacy
// policy file and that its semantic hash is the module's. file names the
// document in the instructions of the errors.
func checkHeader(data []byte, root *jnode, file string, mod *HostModule) error {
	at := func(n *jnode, p, format string, args ...any) error {
		line, col := lineCol(data, n.off)
		return &JSONError{Path: p, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	if root.kind != '{' {
		return at(root, "$", "a host-policy artifact is a JSON object, not %s", describeNode(root))
	}
	format := member(root, "format")
	if format == nil {
		if isLegacy(root) && mod != nil {
			return fmt.Errorf("this is a host policy in the old format (top-level %s); live mode now takes the host-policy artifact of the module. Convert it: caps host-policy %s --host %s --json > NEW.json, then pass NEW.json to --policy",
				strings.Join(legacyKeys, ", "), mod.Path, file)
		}
		return at(root, "$", "no \"format\": this is not a host-policy artifact; generate one with caps host-policy MODULE --json")
	}
	if s := stringValue(format); s != HostPolicyFormat {
		return at(format, "$.format", "the format is %s, expected %q", format.raw, HostPolicyFormat)
	}
	if v := member(root, "version"); v == nil {
		return at(root, "$", "no \"version\"")
	} else if string(v.raw) != fmt.Sprint(HostPolicyVersion) {
		return at(v, "$.version", "version %s is not supported: this caps reads version %d; regenerate the artifact with this caps: caps host-policy MODULE --host FILE --json", v.raw, HostPolicyVersion)
	}
	if mod == nil {
		return nil
	}
	h := member(root, "semantic_hash")
	if h == nil {
		return at(root, "$", "no \"semantic_hash\"")
	}
	if got := stringValue(h); got != mod.Hash {
		made := ""
		if m := member(root, "module"); m != nil {
			made = stringValue(m)
		}
		if made != mod.name() {
			return at(h, "$.semantic_hash", "the artifact is for module %s (semantic hash %s), not for %s (module %s, semantic hash %s): pass the artifact of this module, or make one from this one's host section: caps host-policy %s --host %s --json > NEW.json",
				made, got, mod.Path, mod.name(), mod.Hash, mod.Path, file)
		}
		return at(h, "$.semantic_hash", "the artifact was made for semantic hash %s of module %s, but %s now has semantic hash %s: the module changed since. Regenerate the artifact, keeping its host section: caps host-policy %s --host %s --json > NEW.json",
			got, made, mod.Path, mod.Hash, mod.Path, file)
	}
	return nil
}

// isLegacy reports whether an object without "format" is a legacy policy
// file: it is empty or has one of the legacy fields.
func isLegacy(root *jnode) bool {
	if len(root.keys) == 0 {
		return true
	}
	for _, k := range root.keys {
		for _, l := range legacyKeys {
			if k == l {
				return true
			}
		}
	}
	return false
}

// member returns the value of an object's field, or nil.
func member(n *jnode, key string) *jnode {
	for i, k := range n.keys {
		if k == key {
			return n.members[i]
		}
	}
	return nil
}

func stringValue(n *jnode) string {
	var s string
	if n.kind != '"' || json.Unmarshal(n.raw, &s) != nil {
		return string(n.raw)
	}
	return s
}

// validateHost checks a host section's rules and bindings.
func validateHost(p *Policy) error {
	for _, list := range []struct {
		name  string
		rules []Rule
	}{{"allow", p.Allow}, {"deny", p.Deny}} {
		for i, r := range list.rules {
			at := fmt.Sprintf("$.host.%s[%d]", list.name, i)
			if r.Effect == "" {
				return &JSONError{Path: at + ".effect", Msg: "a rule needs an effect (a name or a pattern such as mcp.call or *)"}
			}
			if _, err := path.Match(r.Effect, ""); err != nil {
				return &JSONError{Path: at + ".effect", Msg: fmt.Sprintf("bad pattern %q", r.Effect)}
			}
			if _, err := path.Match(r.Target, ""); err != nil {
				return &JSONError{Path: at + ".target", Msg: fmt.Sprintf("bad pattern %q", r.Target)}
			}
		}
	}
	for _, name := range sortedKeys(p.MCP) {
		at := childPath("$.host.mcp", name)
		if err := bindingName(at, name); err != nil {
			return err
		}
		if s := p.MCP[name]; s == nil || len(s.Command) == 0 || s.Command[0] == "" {
			return &JSONError{Path: at + ".command", Msg: fmt.Sprintf("the MCP server of port %s has no command; give the program and its arguments, e.g. [\"node\", \"server.js\", \"stdio\"]", name)}
		}
	}
	for _, name := range sortedKeys(p.HTTP) {
		at := childPath("$.host.http", name)
		if err := bindingName(at, name); err != nil {
			return err
		}
		s := p.HTTP[name]
		if s == nil {
			return &JSONError{Path: at, Msg: "the binding is null; give its url"}
		}
		u, err := url.Parse(s.URL)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return &JSONError{Path: at + ".url", Msg: fmt.Sprintf("%q is not an http:// or https:// URL with a host", s.URL)}
		}
		if strings.ContainsAny(u.Host, "*?[") {
			return &JSONError{Path: at + ".url", Msg: fmt.Sprintf("%q: the host of a binding is one host, not a pattern", s.URL)}
		}
	}
	for _, kind := range []struct {
		name, what string
		urls       map[string]string
	}{{"a2a", "agent", a2aURLs(p.A2A)}, {"a2ui", "surface", a2uiURLs(p.A2UI)}} {
		for _, name := range sortedKeys(kind.urls) {
			at := childPath("$.host."+kind.name, name)
			if err := bindingName(at, name); err != nil {
				return err
			}
			raw := kind.urls[name]
			u, err := url.Parse(raw)
			if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
				return &JSONError{Path: at + ".url", Msg: fmt.Sprintf("%q is not an http:// or https:// URL with a host; give the %s's endpoint", raw, kind.what)}
			}
			if strings.ContainsAny(u.Host, "*?[") {
				return &JSONError{Path: at + ".url", Msg: fmt.Sprintf("%q: the host of a binding is one host, not a pattern", raw)}
			}
		}
	}
	for _, name := range sortedKeys(p.Stores) {
		at := childPath("$.host.stores", name)
		if err := bindingName(at, name); err != nil {
			return err
		}
		if s := p.Stores[name]; s == nil || strings.TrimSpace(s.Dir) == "" {
			return &JSONError{Path: at + ".dir", Msg: fmt.Sprintf("store %s has no dir; give the folder of its files, e.g. \"var/%s\"", name, name)}
		}
	}
	return nil
}

// a2aURLs and a2uiURLs are the URLs of the bindings, by name ("" for a
// null binding).
func a2aURLs(m map[string]*A2AAgent) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if v != nil {
			out[k] = v.URL
		} else {
			out[k] = ""
		}
	}
	return out
}

func a2uiURLs(m map[string]*A2UIRenderer) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if v != nil {
			out[k] = v.URL
		} else {
			out[k] = ""
		}
	}
	return out
}

// bindingName checks that a binding names one port exactly.
func bindingName(at, name string) error {
	if name == "" || strings.ContainsAny(name, "*?[]\\./ ") {
		return &JSONError{Path: at, Msg: fmt.Sprintf("a binding names one port exactly, as the module declares it; %q is not a port name", name)}
	}
	return nil
}

// checkBoundaries applies the module's enforced trust boundaries to the
// host section's bindings:
//
//   - (egress-only PORT...): a binding of a port not listed is refused;
//   - (network deny-by-default): an HTTP binding must name a port the
//     module declares with (protocol http);
//   - (secrets ambient-deny): recorded in the Boundary; MCP servers then
//     start with only the environment the host section gives them;
//   - (filesystem read-only): a store binding (local files) is refused.
//
// It returns nil when no trust boundary is enforced.
func checkBoundaries(p *Policy, auth *hostpolicy.Authority, m *ast.Module) (*Boundary, error) {
	var b *Boundary
	var egress map[string]bool
	denyByDefault, readOnly := "", ""
	for _, tb := range auth.TrustBoundaries {
		if tb.Mode == nil || *tb.Mode != "enforce" {
			continue
		}
		if b == nil {
			b = &Boundary{}
		}
		b.Names = append(b.Names, tb.Name)
		if tb.EgressOnly != nil {
			listed := map[string]bool{}
			for _, port := range tb.EgressOnly {
				listed[port] = egress == nil || egress[port]
			}
			egress = listed
		}
		if tb.Network != nil && *tb.Network == "deny-by-default" && denyByDefault == "" {
			denyByDefault = tb.Name
		}
		if tb.Secrets != nil && *tb.Secrets == "ambient-deny" {
			b.AmbientDeny = true
		}
		if tb.Filesystem != nil && *tb.Filesystem == "read-only" && readOnly == "" {
			readOnly = tb.Name
		}
	}
	if b == nil {
		return nil, nil
	}
	if egress != nil {
		b.EgressOnly = []string{}
		for port, ok := range egress {
			if ok {
				b.EgressOnly = append(b.EgressOnly, port)
			}
		}
		sort.Strings(b.EgressOnly)
	}
	for _, kind := range []struct {
		name  string
		ports []string
	}{{"mcp", sortedKeys(p.MCP)}, {"http", sortedKeys(p.HTTP)}, {"a2a", sortedKeys(p.A2A)}, {"a2ui", sortedKeys(p.A2UI)}} {
		for _, port := range kind.ports {
			if ok, why := b.allowsEgress(port); !ok {
				return nil, &JSONError{Path: childPath("$.host."+kind.name, port),
					Msg: fmt.Sprintf("%s: remove this binding, or list the port in the boundary's (egress-only ...) clause", why)}
			}
		}
	}
	if readOnly != "" {
		for _, store := range sortedKeys(p.Stores) {
			return nil, &JSONError{Path: childPath("$.host.stores", store),
				Msg: fmt.Sprintf("trust boundary %s has (filesystem read-only), and a store binding writes files on the host: remove this binding", readOnly)}
		}
	}
	if denyByDefault != "" {
		for _, port := range sortedKeys(p.HTTP) {
			if !declaresPort(m, port, "http") {
				return nil, &JSONError{Path: childPath("$.host.http", port),
					Msg: fmt.Sprintf("trust boundary %s has (network deny-by-default): an HTTP binding must name a port that module %s declares with (protocol http), and it declares no such port %s", denyByDefault, m.Name.Name, port)}
			}
		}
	}
	return b, nil
}

// declaresPort reports whether the module declares a port of that name
// and protocol.
func declaresPort(m *ast.Module, name, protocol string) bool {
	if m == nil {
		return false
	}
	for _, d := range m.Decls {
		if p, ok := d.(*ast.Port); ok && p != nil && p.Name.Name == name {
			return p.Protocol != nil && p.Protocol.Name.Name == protocol
		}
	}
	return false
}

// resolve makes a loaded host section ready for the adapters: ${NAME} in
// MCP env and HTTP header values becomes the host's environment variable,
// and under (secrets ambient-deny) every MCP server is isolated, with the
// host's PATH of now unless its env sets PATH.
func resolve(p *Policy) {
	for _, s := range p.MCP {
		for k, v := range s.Env {
			s.Env[k] = expandEnv(v)
		}
		if p.Boundary != nil && p.Boundary.AmbientDeny {
			s.Isolated = true
			if _, ok := s.Env["PATH"]; !ok {
				if s.Env == nil {
					s.Env = map[string]string{}
				}
				s.Env["PATH"] = os.Getenv("PATH")
			}
		}
	}
	for _, s := range p.HTTP {
		for k, v := range s.Headers {
			s.Headers[k] = expandEnv(v)
		}
	}
	for _, s := range p.A2A {
		for k, v := range s.Headers {
			s.Headers[k] = expandEnv(v)
		}
	}
	for _, s := range p.A2UI {
		for k, v := range s.Headers {
			s.Headers[k] = expandEnv(v)
		}
	}
	for _, s := range p.Stores {
		s.Dir = expandEnv(s.Dir)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
