package main

import (
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/codes"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/internal/spell"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "explain",
		Output:   func() cli.Schema { return cli.OneOf(cli.SchemaOf(codeJSON{}), cli.SchemaOf(explainListJSON{})) },
		Effects:  cli.Effects{Reads: nil, Writes: nil},
		Example:  cli.Example{Line: "caps explain --json E_EFFECT_NOT_DECLARED"},
		Negative: cli.Example{Line: "caps explain --json E_NO_SUCH_CODE", Exit: 2},
		Also:     []cli.Example{{Line: "caps explain --list --json"}},
		Args:     "[--json] CODE | --list [--json]",
		Short:    "explain a diagnostic code: what it means, an example, how to fix it",
		Long: `Explain prints what a diagnostic code means, a small module that triggers
it, and how to fix it. --list lists every code. With --json it prints the
code's entry ({"code", "severity", "title", "summary", "example", "fix",
"fixed", "url", "since"}) or, with --list, {"codes": [...]}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			list := fs.Bool("list", false, "list every code")
			return func(c *cli.Context, args []string) int {
				if *list {
					if len(args) > 0 {
						return c.UsageErrorf("--list takes no CODE")
					}
					return explainList(c, *jsonOut)
				}
				if len(args) != 1 {
					return c.UsageErrorf("expected one CODE, e.g. caps explain E_UNKNOWN_STATE")
				}
				return explainCode(c, args[0], *jsonOut)
			}
		},
	})
}

type codeJSON struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Title    string `json:"title"`
	Summary  string `json:"summary"`
	Example  string `json:"example,omitempty"`
	Fix      string `json:"fix,omitempty"`
	Fixed    string `json:"fixed,omitempty"`
	Source   string `json:"source"`
	// Command and FixedCommand are the invocations of a command code.
	Command      string `json:"command,omitempty"`
	FixedCommand string `json:"fixed_command,omitempty"`
	URL          string `json:"url"`
	Since        string `json:"since"`
}

func toJSON(k *codes.Code, full bool) codeJSON {
	j := codeJSON{Code: k.Code, Severity: k.Severity, Title: k.Title, Summary: k.Summary, Source: k.Source, URL: k.URL(), Since: k.Since}
	if full {
		j.Example, j.Fix, j.Fixed = k.Example, k.Fix, k.Fixed
		if len(k.Command) > 0 {
			j.Command, j.FixedCommand = codes.ShellCommand(k.Command), codes.ShellCommand(k.FixedCommand)
		}
	}
	return j
}

func explainCode(c *cli.Context, code string, jsonOut bool) int {
	k := codes.Lookup(code)
	if k == nil {
		var names []string
		for _, x := range codes.All() {
			names = append(names, x.Code)
		}
		hint := spell.Hint(closestCode(strings.ToUpper(code), names), spell.Bare)
		c.Errorf("unknown diagnostic code %q%s (caps explain --list lists them)", code, hint)
		return cli.ExitUsage
	}
	if jsonOut {
		b, _ := report.Marshal(toJSON(k, true))
		fmt.Fprintf(c.Stdout, "%s\n", b)
		return cli.ExitOK
	}
	if len(k.Command) > 0 {
		fmt.Fprintf(c.Stdout, "%s (%s): %s\n\n%s\n\nExample, saved as example.caps:\n\n%s\n    $ %s\n\nFix: %s\n\n    $ %s\n\nMore: %s\n",
			k.Code, k.Severity, k.Title, k.Summary, indent(k.Example), codes.ShellCommand(k.Command), k.Fix, codes.ShellCommand(k.FixedCommand), k.URL())
		return cli.ExitOK
	}
	fmt.Fprintf(c.Stdout, "%s (%s): %s\n\n%s\n\nExample:\n\n%s\nFix: %s\n\n%s\nMore: %s\n",
		k.Code, k.Severity, k.Title, k.Summary, indent(k.Example), k.Fix, indent(k.Fixed), k.URL())
	return cli.ExitOK
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

func explainList(c *cli.Context, jsonOut bool) int {
	all := codes.All()
	sort.Slice(all, func(i, j int) bool { return all[i].Code < all[j].Code })
	if jsonOut {
		var out []codeJSON
		for _, k := range all {
			out = append(out, toJSON(k, false))
		}
		b, _ := report.Marshal(explainListJSON{out})
		fmt.Fprintf(c.Stdout, "%s\n", b)
		return cli.ExitOK
	}
	for _, k := range all {
		fmt.Fprintf(c.Stdout, "%-28s %-8s %s\n", k.Code, k.Severity, k.Title)
	}
	return cli.ExitOK
}

// closestCode suggests a code for a near miss (E_UNKNOWN_STAT, UNKNOWN_STATE).
func closestCode(code string, names []string) string {
	if best := spell.Nearest(code, names); best != "" {
		return best
	}
	for _, n := range names {
		if len(code) > 4 && strings.HasSuffix(n, code) {
			return n
		}
	}
	return ""
}

// explainListJSON is the JSON output of this command (see its Output schema).
type explainListJSON struct {
	Codes []codeJSON `json:"codes"`
}
