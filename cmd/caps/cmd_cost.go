package main

import (
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/cost"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/runtime/value"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "cost",
		Output:   func() cli.Schema { return report.ResultSchema(costExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps cost --json examples/03_claim_review_machine.caps"},
		Negative: cli.Example{Line: "caps cost --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--json] FILE",
		Short:    "estimate what a module's machines spend: effects by class, adapters, worst-case paths, budgets",
		Long: `Cost checks FILE and estimates, from its declarations alone, what its
machines can spend. Per transition: its effect intents grouped by
determinism class (the effect catalog's: ledgered, external/ledgered,
observable, ...), the external calls and the attempts their retries
allow. Per machine: the adapters its intents reach (stores, ports,
agents, surfaces, and host capabilities for intents without a target),
the worst-case path from the initial state to each final state (the most
external attempts, then the most intents; each state visited once,
on-error routes included), and its loops, whose cost repeats as often as
their guards allow. Per (budget ...): each limit against the worst case
(max-llm-calls and max-ci-runs count llm.call and ci.run attempts,
max-wall-clock-ms the external intents' timeouts), the effects outside
allow-effects and those deny-effects names. Guards are not evaluated.

It exits with 1 when FILE has errors or a budget limit is exceeded.

With --json it prints {"ok", "files": [{"path", "diagnostics", "cost":
{"module", "functions", "machines": [{"name", "initial", "transitions",
"by_class", "adapters", "worst_case": [{"final", "reachable", "steps",
"effects", "by_class", "external_calls", "max_external_attempts",
"effect_time_bound_ms", "passes_loops"}], "loops", "truncated"}],
"budgets": [{"name", "limits": [{"limit", "value", "used", "over",
"basis"}], "outside_allow_effects", "denied_effects"}]}}]}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runCost(c, args[0], *jsonOut)
			}
		},
	})
}

func runCost(c *cli.Context, path string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, f := loadChecked(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	r := cost.Estimate(pkg.File.Module)
	for _, b := range r.Budgets {
		for _, l := range b.Limits {
			if l.Over {
				p.SetFailed()
			}
		}
		if len(b.Denied) > 0 || len(b.OutsideAllow) > 0 {
			p.SetFailed()
		}
	}
	if jsonOut {
		f.Extra = costExtra{r}
		return p.Finish()
	}
	c.Stdout.Write([]byte(costText(r)))
	return p.Finish()
}

// classes prints a by-class count as "ledgered 2, observable 1".
func classes(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func stepsText(steps []cost.Step) string {
	if len(steps) == 0 {
		return "(none)"
	}
	var b strings.Builder
	b.WriteString(steps[0].From)
	for _, s := range steps {
		if s.OnError != "" {
			fmt.Fprintf(&b, " -%s (%s fails)-> %s", s.Event, s.OnError, s.To)
		} else {
			fmt.Fprintf(&b, " -%s-> %s", s.Event, s.To)
		}
	}
	return b.String()
}

func costText(r *cost.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "module %s\n", r.Module)
	for _, f := range r.Functions {
		var es []string
		for _, e := range f.Effects {
			es = append(es, strings.TrimSpace(e.Effect+" "+e.Target)+" ("+e.Determinism+")")
		}
		fmt.Fprintf(&b, "function %s: %s\n", f.Name, strings.Join(es, ", "))
	}
	for _, m := range r.Machines {
		fmt.Fprintf(&b, "machine %s (initial %s)\n", m.Name, m.Initial)
		for _, t := range m.Transitions {
			guard := ""
			if t.Guarded {
				guard = " [guard]"
			}
			fmt.Fprintf(&b, "  %s -%s-> %s%s: %d %s (%s)", t.From, t.Event, t.To, guard, len(t.Effects), pluralWord(len(t.Effects), "intent", "intents"), classes(t.ByClass))
			if t.External > 0 {
				fmt.Fprintf(&b, "; %d external, at most %d %s", t.External, t.MaxAttempts, pluralWord(t.MaxAttempts, "attempt", "attempts"))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  by class: %s\n", classes(m.ByClass))
		var as []string
		for _, a := range m.Adapters {
			as = append(as, fmt.Sprintf("%s %s (%d)", a.Kind, a.Name, a.Intents))
		}
		if len(as) == 0 {
			as = []string{"none"}
		}
		fmt.Fprintf(&b, "  adapters: %s\n", strings.Join(as, ", "))
		for _, p := range m.WorstCase {
			if !p.Reachable {
				fmt.Fprintf(&b, "  worst case to %s: unreachable from %s\n", p.Final, m.Initial)
				continue
			}
			fmt.Fprintf(&b, "  worst case to %s: %s\n", p.Final, stepsText(p.Steps))
			fmt.Fprintf(&b, "    %d %s (%s); %d external, at most %d %s", p.Effects, pluralWord(p.Effects, "intent", "intents"), classes(p.ByClass),
				p.External, p.MaxAttempts, pluralWord(p.MaxAttempts, "attempt", "attempts"))
			if p.EffectTimeMs != nil {
				fmt.Fprintf(&b, ", effect time at most %s", value.FormatDuration(*p.EffectTimeMs))
			} else {
				b.WriteString(", effect time unbounded (an external intent has no timeout)")
			}
			if p.Repeats {
				b.WriteString("; it passes a loop, whose cost repeats")
			}
			b.WriteString("\n")
		}
		for _, l := range m.Loops {
			var ts []string
			for _, s := range l.Transitions {
				ts = append(ts, stepsText([]cost.Step{s}))
			}
			fmt.Fprintf(&b, "  loop %s: %s\n", strings.Join(l.States, ", "), strings.Join(ts, "; "))
		}
		if m.Truncated {
			fmt.Fprintf(&b, "  (more than %d paths: the worst cases are lower bounds)\n", cost.MaxPaths)
		}
	}
	for _, bg := range r.Budgets {
		fmt.Fprintf(&b, "budget %s\n", bg.Name)
		for _, l := range bg.Limits {
			used := "not estimated"
			if l.Used != nil {
				used = fmt.Sprintf("worst case %d", *l.Used)
				if l.Over {
					used += ": OVER"
				}
			}
			fmt.Fprintf(&b, "  %s %s: %s (%s)\n", l.Limit, l.Value, used, l.Basis)
		}
		if len(bg.OutsideAllow) > 0 {
			fmt.Fprintf(&b, "  outside allow-effects: %s\n", strings.Join(bg.OutsideAllow, ", "))
		}
		if len(bg.Denied) > 0 {
			fmt.Fprintf(&b, "  denied by deny-effects: %s\n", strings.Join(bg.Denied, ", "))
		}
	}
	return b.String()
}

// costExtra is the JSON output of this command (see its Output schema).
type costExtra struct {
	Cost *cost.Report `json:"cost"`
}
