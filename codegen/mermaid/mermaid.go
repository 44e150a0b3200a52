// Package mermaid draws machines for people and editors: a Mermaid
// stateDiagram-v2 per machine (states, initial and final states,
// transitions labelled with their event, [guarded] and the number of
// effects, state timeouts), and a flowchart of a machine's effect graph
// (each transition's effect intents and the stores, agents, ports and
// surfaces they target).
package mermaid

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax/ast"
)

var unsafe = regexp.MustCompile(`[^A-Za-z0-9_]`)

func id(s string) string { return unsafe.ReplaceAllString(s, "_") }

func label(s string) string { return strings.ReplaceAll(s, `"`, "#quot;") }

func machines(res *check.Result, only string) ([]*ast.Machine, error) {
	var out []*ast.Machine
	if res.File != nil && res.File.Module != nil {
		for _, d := range res.File.Module.Decls {
			if m, ok := d.(*ast.Machine); ok && (only == "" || m.Name.Name == only) {
				out = append(out, m)
			}
		}
	}
	if len(out) == 0 {
		if only != "" {
			return nil, fmt.Errorf("the module has no machine %s", only)
		}
		return nil, fmt.Errorf("the module declares no machine")
	}
	return out, nil
}

// StateDiagrams returns a stateDiagram-v2 for each machine (or the one
// named only), separated by blank lines.
func StateDiagrams(res *check.Result, only string) (string, error) {
	ms, err := machines(res, only)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, m := range ms {
		parts = append(parts, StateDiagram(m))
	}
	return strings.Join(parts, "\n"), nil
}

// StateDiagram draws one machine.
func StateDiagram(m *ast.Machine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s\n---\nstateDiagram-v2\n", label(m.Name.Name))
	for _, st := range m.States {
		fmt.Fprintf(&b, "    state \"%s\" as %s\n", label(st.Name.Name), id(st.Name.Name))
	}
	if m.Initial.Name != "" {
		fmt.Fprintf(&b, "    [*] --> %s\n", id(m.Initial.Name))
	}
	for _, st := range m.States {
		for _, t := range st.Transitions {
			l := t.Event.Name
			if t.Guard != nil {
				l += " [guarded]"
			}
			if n := len(t.Effects); n > 0 {
				l += fmt.Sprintf(" / %d effect", n)
				if n > 1 {
					l += "s"
				}
			}
			fmt.Fprintf(&b, "    %s --> %s : %s\n", id(st.Name.Name), id(t.Target.Name), label(l))
			for _, e := range t.Effects {
				if e.OnError.Name != "" {
					fmt.Fprintf(&b, "    %s --> %s : %s\n", id(t.Target.Name), id(e.OnError.Name), label("on-error "+e.Name.Name))
				}
			}
		}
		if st.Timeout != nil && st.Timeout.Duration != nil {
			fmt.Fprintf(&b, "    note right of %s : after %s sends %s\n", id(st.Name.Name), st.Timeout.Duration.Text, st.Timeout.Event.Name)
		}
		if st.Final {
			fmt.Fprintf(&b, "    %s --> [*]\n", id(st.Name.Name))
		}
	}
	return b.String()
}

// EffectGraphs returns a flowchart of each machine's effect graph.
func EffectGraphs(res *check.Result, only string) (string, error) {
	ms, err := machines(res, only)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, m := range ms {
		parts = append(parts, EffectGraph(m))
	}
	return strings.Join(parts, "\n"), nil
}

// EffectGraph draws the transitions of m that emit effect intents, each
// linked to its effects and each effect to its target.
func EffectGraph(m *ast.Machine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s effects\n---\nflowchart LR\n", label(m.Name.Name))
	targets := map[string]bool{}
	var torder []string
	for _, st := range m.States {
		for _, t := range st.Transitions {
			if len(t.Effects) == 0 {
				continue
			}
			tid := id("t_" + st.Name.Name + "_" + t.Event.Name)
			fmt.Fprintf(&b, "    %s[\"%s --%s--> %s\"]\n", tid, label(st.Name.Name), label(t.Event.Name), label(t.Target.Name))
			for i, e := range t.Effects {
				eid := fmt.Sprintf("%s_e%d", tid, i)
				l := e.Name.Name
				if e.Retry != nil {
					l += fmt.Sprintf(" retry %d", e.Retry.Mag)
				}
				if e.OnError.Name != "" {
					l += " on-error " + e.OnError.Name
				}
				fmt.Fprintf(&b, "    %s([\"%s\"])\n", eid, label(l))
				fmt.Fprintf(&b, "    %s -->|%d| %s\n", tid, i+1, eid)
				for _, x := range e.Targets {
					xid := id("x_" + x.Name)
					if !targets[xid] {
						targets[xid] = true
						torder = append(torder, xid)
						fmt.Fprintf(&b, "    %s[(\"%s\")]\n", xid, label(x.Name))
					}
					fmt.Fprintf(&b, "    %s --> %s\n", eid, xid)
				}
			}
		}
	}
	if len(torder) == 0 {
		b.WriteString("    none[\"no effect intents\"]\n")
	}
	return b.String()
}
