package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/hostpolicy"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/machinerun"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "host-policy",
		Output:   func() cli.Schema { return cli.OneOf(cli.SchemaOf(adapters.HostPolicy{}), report.ResultSchema(nil)) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports", "--host FILE"}, Writes: nil},
		Example:  cli.Example{Line: "caps host-policy --json examples/authority.caps"},
		Negative: cli.Example{Line: "caps host-policy --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--json] [--host FILE] FILE",
		Short:    "export a module's Authority IR as a host-policy artifact",
		Long: `Host-policy checks FILE and exports its Authority IR as the host-policy
artifact, the one policy format of live mode (caps machine-run --mode live
--policy ARTIFACT). The artifact is bound to the module's semantic hash
(what caps hash FILE prints): live mode refuses it once the module changes.

With --json it prints the artifact on stdout: canonical JSON (keys sorted,
two-space indentation, a final newline), the same bytes for the same module
and host section. Without --json it prints a short summary.

The artifact holds the module's principals, mandates, delegations,
capabilities, authority policies, trust boundaries, telemetry obligations
and memory policies as typed objects, every effect intent its machines can
emit, and the host section: allow and deny rules, MCP, HTTP, A2A, A2UI
and store bindings and the attempt timeout. The generated host section allows exactly the emitted
effects and targets and binds nothing; the host fills in the bindings.
--host FILE keeps the host section of FILE instead, an earlier artifact
(of any version of the module) or a host policy file of the old format
(top-level allow, deny, mcp, http, timeout), so that a host regenerates
after the module changes without losing its bindings:

    caps host-policy --json --host old.json claims.caps > new.json

The schema is docs/schemas/host-policy.v1.schema.json; docs/authority.md
describes every field. Exit 1 when FILE has errors, 2 on a usage or I/O
error or a --host FILE that is not usable (malformed, or binding ports
the module's enforced trust boundaries forbid).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print the artifact (JSON) on stdout")
			host := fs.String("host", "", "keep the host section of `FILE` (an artifact or an old-format policy file)")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runHostPolicy(c, args[0], *host, *jsonOut)
			}
		},
	})
}

// runHostPolicy prints the host-policy artifact of a module, or its
// summary.
func runHostPolicy(c *cli.Context, path, hostFile string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg := loadModule(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	src, diags := packageSource(path, pkg), pkg.Result.Diagnostics
	mod, err := machinerun.HostModule(pkg, cli.DisplayPath(path))
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	var host *adapters.Policy
	if hostFile != "" {
		if host, err = adapters.ReadHostSection(hostFile); err != nil {
			c.Errorf("--host %v", err)
			return cli.ExitUsage
		}
	}
	art, err := adapters.NewHostPolicy(mod, host)
	var ee *hostpolicy.Error
	switch {
	case errors.As(err, &ee):
		p.Add(src, append(diags, syntax.Diagnostic{Severity: syntax.Error, Span: ee.Span, Message: ee.Msg}))
		return p.Finish()
	case err != nil:
		c.Errorf("--host %s: %v", hostFile, err)
		return cli.ExitUsage
	}
	p.Add(src, diags) // warnings, in text mode
	out := []byte(hostPolicySummary(art, path))
	if jsonOut {
		if out, err = art.Marshal(); err != nil {
			p.Fail(path, err)
			return p.Finish()
		}
	}
	c.Stdout.Write(out)
	warnDenied(c, art)
	return cli.ExitOK
}

// warnDenied warns, on stderr, of each intent of the module that the
// host section denies: live mode will refuse it whatever the module's own
// authority decides.
func warnDenied(c *cli.Context, art *adapters.HostPolicy) {
	for _, e := range art.Effects {
		if d := art.Host.Decide(e.Effect, deref(e.Target)); !d.Allowed {
			c.Errorf("warning: the host section denies %s by %s; live mode will refuse the intent", e, d.Rule)
		}
	}
}

// hostPolicySummary describes an artifact for people.
func hostPolicySummary(art *adapters.HostPolicy, path string) string {
	var b strings.Builder
	a := art.Authority
	fmt.Fprintf(&b, "host policy of module %s\n", art.Module)
	fmt.Fprintf(&b, "semantic hash %s\n", art.SemanticHash)
	fmt.Fprintf(&b, "authority: %s\n", strings.Join([]string{
		count(len(a.Principals), "principal", "principals"),
		count(len(a.Mandates), "mandate", "mandates"),
		count(len(a.Delegations), "delegation", "delegations"),
		count(len(a.Capabilities), "capability", "capabilities"),
		count(len(a.Policies), "authority-policy", "authority-policies"),
		count(len(a.TrustBoundaries), "trust-boundary", "trust-boundaries"),
		count(len(a.TelemetryObligations), "telemetry-obligation", "telemetry-obligations"),
		count(len(a.MemoryPolicies), "memory-policy", "memory-policies"),
	}, ", "))
	machines := map[string]bool{}
	for _, e := range art.Effects {
		machines[e.Machine] = true
	}
	fmt.Fprintf(&b, "effects: %s of %s\n", count(len(art.Effects), "intent", "intents"), count(len(machines), "machine", "machines"))
	for _, tb := range a.TrustBoundaries {
		b.WriteString(boundaryLine(tb) + "\n")
	}
	h := art.Host
	more := ""
	if n := len(h.A2A); n > 0 {
		more += ", " + count(n, "A2A binding", "A2A bindings")
	}
	if n := len(h.A2UI); n > 0 {
		more += ", " + count(n, "A2UI binding", "A2UI bindings")
	}
	if n := len(h.Stores); n > 0 {
		more += ", " + count(n, "store binding", "store bindings")
	}
	fmt.Fprintf(&b, "host: %s, %s, %s, %s%s, timeout %s\n", count(len(h.Allow), "allow rule", "allow rules"), count(len(h.Deny), "deny rule", "deny rules"),
		count(len(h.MCP), "MCP binding", "MCP bindings"), count(len(h.HTTP), "HTTP binding", "HTTP bindings"), more, value.FormatDuration(h.Timeout.Millis))
	fmt.Fprintf(&b, "print the artifact with: caps host-policy --json %s\n", path)
	return b.String()
}

// boundaryLine says what a trust boundary does to live mode.
func boundaryLine(tb *hostpolicy.TrustBoundary) string {
	mode := deref(tb.Mode)
	if mode != "enforce" {
		if mode == "" {
			mode = "no mode"
		}
		return fmt.Sprintf("trust boundary %s (%s): not enforced by live mode; (mode enforce) enforces it", tb.Name, mode)
	}
	var what []string
	if tb.EgressOnly != nil {
		what = append(what, "egress only through "+strings.Join(tb.EgressOnly, ", "))
	}
	if deref(tb.Network) == "deny-by-default" {
		what = append(what, "HTTP bindings only for declared http ports")
	}
	if deref(tb.Secrets) == "ambient-deny" {
		what = append(what, "MCP servers get no ambient environment")
	}
	if deref(tb.Filesystem) == "read-only" {
		what = append(what, "no store bindings")
	}
	if len(what) == 0 {
		what = append(what, "nothing that live mode restricts")
	}
	return fmt.Sprintf("trust boundary %s (enforce): %s", tb.Name, strings.Join(what, "; "))
}

func count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, pluralWord(n, one, many))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
