// Package cost estimates what a checked module's machines can spend: per
// transition, its effect intents by determinism class (from the effect
// catalog), how many are external calls and how many attempts their
// retries allow; per machine, the adapters it touches and the worst-case
// path from the initial state to each final state; per budget, how those
// worst cases compare with its limits.
//
// It is a static estimate from the declarations alone. Guards are not
// evaluated, so a path counts even when a guard would forbid it; loops
// (states a run can come back to) are reported apart, because their cost
// per pass repeats as often as their guards allow, which the estimate
// cannot bound. Paths visit each state at most once; on-error routes are
// paths too (the transition's intents up to the failing one, all its
// attempts, then the route).
package cost

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Report is the estimate for one module.
type Report struct {
	Module    string     `json:"module"`
	Functions []Function `json:"functions"`
	Machines  []Machine  `json:"machines"`
	Budgets   []Budget   `json:"budgets"`
}

// Function is an effectful function's declared effects (pure functions
// are counted in Pure).
type Function struct {
	Name    string   `json:"name"`
	Effects []Intent `json:"effects"`
}

// Intent is one effect intent of a transition or function.
type Intent struct {
	Effect      string `json:"effect"`
	Target      string `json:"target,omitempty"`
	Determinism string `json:"determinism"`
	External    bool   `json:"external"`
	// Attempts is 1 plus the intent's retries.
	Attempts  int    `json:"attempts"`
	TimeoutMs int64  `json:"timeout_ms,omitempty"`
	OnError   string `json:"on_error,omitempty"`
}

// Transition is one (on EVENT ...) of a state.
type Transition struct {
	From     string         `json:"from"`
	Event    string         `json:"event"`
	To       string         `json:"to"`
	Guarded  bool           `json:"guarded"`
	Effects  []Intent       `json:"effects"`
	ByClass  map[string]int `json:"by_class"`
	External int            `json:"external_calls"`
	// MaxAttempts is the most external attempts the transition can make
	// (every external intent with all its retries).
	MaxAttempts int `json:"max_external_attempts"`
}

// Adapter is a declaration (or host capability) that intents reach.
type Adapter struct {
	Kind    string `json:"kind"` // store, port, agent, surface, a governance kind, or host
	Name    string `json:"name"`
	Intents int    `json:"intents"`
}

// Step is one transition taken on a path.
type Step struct {
	From  string `json:"from"`
	Event string `json:"event"`
	To    string `json:"to"`
	// OnError is the failing intent's effect when the step is an on-error
	// route rather than the transition's target.
	OnError string `json:"on_error,omitempty"`
}

// Path is the worst case to one final state.
type Path struct {
	Final     string         `json:"final"`
	Reachable bool           `json:"reachable"`
	Steps     []Step         `json:"steps"`
	Effects   int            `json:"effects"`
	ByClass   map[string]int `json:"by_class"`
	External  int            `json:"external_calls"`
	// MaxAttempts counts external attempts with every retry used.
	MaxAttempts int `json:"max_external_attempts"`
	// EffectTimeMs bounds the time external intents may take (attempts
	// times timeouts); null when one of them has no timeout.
	EffectTimeMs *int64 `json:"effect_time_bound_ms"`
	// Repeats is true when the path passes through a loop: its cost is
	// then per pass of the loop.
	Repeats bool `json:"passes_loops"`
}

// Loop is a set of states a run can return to, with the transitions that
// stay inside it.
type Loop struct {
	States      []string `json:"states"`
	Transitions []Step   `json:"transitions"`
}

// Machine is one machine's estimate.
type Machine struct {
	Name        string         `json:"name"`
	Initial     string         `json:"initial"`
	Transitions []Transition   `json:"transitions"`
	ByClass     map[string]int `json:"by_class"`
	Adapters    []Adapter      `json:"adapters"`
	WorstCase   []Path         `json:"worst_case"`
	Loops       []Loop         `json:"loops"`
	// Truncated is set when the machine has more paths than the estimate
	// explores (MaxPaths); the worst cases are then lower bounds.
	Truncated bool `json:"truncated"`
	// perEffect is the most intents of each effect on any path to a final
	// state (for budgets).
	perEffect map[string]int
	effects   map[string]bool
}

// Budget compares a (budget ...) declaration with the machines' worst cases.
type Budget struct {
	Name   string  `json:"name"`
	Limits []Limit `json:"limits"`
	// OutsideAllow lists effects the module performs that the budget's
	// allow-effects leaves out; Denied those it performs that deny-effects
	// names.
	OutsideAllow []string `json:"outside_allow_effects"`
	Denied       []string `json:"denied_effects"`
}

// Limit is one numeric limit of a budget.
type Limit struct {
	Limit string `json:"limit"`
	Value string `json:"value"`
	// Used is the worst case the estimate can compute for the limit, or
	// null when it cannot (max-iterations, max-cost-usd, ...).
	Used  *int64 `json:"used"`
	Over  bool   `json:"over"`
	Basis string `json:"basis"`
}

// MaxPaths bounds the simple paths explored per machine.
const MaxPaths = 200_000

// Estimate builds the report of a module without errors.
func Estimate(m *ast.Module) *Report {
	r := &Report{Module: m.Name.Name, Functions: []Function{}, Machines: []Machine{}, Budgets: []Budget{}}
	kinds := map[string]string{}
	for _, d := range m.Decls {
		kinds[d.Base().Name.Name] = string(d.Kind())
	}
	var budgets []*ast.ClauseDecl
	allEffects := map[string]bool{}
	for _, d := range m.Decls {
		switch d := d.(type) {
		case *ast.Function:
			if d.Effects == nil || d.Effects.Pure || len(d.Effects.Items) == 0 {
				continue
			}
			f := Function{Name: d.Name.Name}
			for _, e := range d.Effects.Items {
				f.Effects = append(f.Effects, intent(e))
				allEffects[e.Name.Name] = true
			}
			r.Functions = append(r.Functions, f)
		case *ast.Machine:
			mc := machine(d, kinds)
			for e := range mc.effects {
				allEffects[e] = true
			}
			r.Machines = append(r.Machines, mc)
		case *ast.ClauseDecl:
			if d.DeclKind == ast.KindBudget {
				budgets = append(budgets, d)
			}
		}
	}
	for _, b := range budgets {
		r.Budgets = append(r.Budgets, budget(b, r.Machines, allEffects))
	}
	return r
}

func intent(e *ast.Effect) Intent {
	in := Intent{Effect: e.Name.Name, Attempts: 1, Determinism: "unknown"}
	var ts []string
	for _, t := range e.Targets {
		ts = append(ts, t.Name)
	}
	in.Target = strings.Join(ts, " ")
	if ce := catalog.LookupEffect(e.Name.Name); ce != nil {
		in.Determinism = ce.Determinism
		in.External = strings.HasPrefix(ce.Determinism, "external")
	}
	if e.Retry != nil && !e.Retry.Neg && !e.Retry.Overflow {
		in.Attempts += int(e.Retry.Mag)
	}
	if e.Timeout != nil {
		in.TimeoutMs = e.Timeout.Millis
	}
	in.OnError = e.OnError.Name
	return in
}

// edge is a way out of a state: a transition's target, or an on-error
// route after intents[:n].
type edge struct {
	step    Step
	intents []Intent
}

func tally(ins []Intent) (byClass map[string]int, external, attempts int, timeMs *int64) {
	byClass = map[string]int{}
	var t int64
	bounded := true
	for _, in := range ins {
		byClass[in.Determinism]++
		if in.External {
			external++
			attempts += in.Attempts
			if in.TimeoutMs == 0 {
				bounded = false
			} else {
				t += int64(in.Attempts) * in.TimeoutMs
			}
		}
	}
	if bounded {
		timeMs = &t
	}
	return
}

func adapterOf(in Intent, kinds map[string]string) (kind, name string) {
	if in.Target == "" {
		return "host", strings.SplitN(in.Effect, ".", 2)[0]
	}
	root := strings.SplitN(strings.Fields(in.Target)[0], ".", 2)[0]
	if k, ok := kinds[root]; ok {
		return k, root
	}
	return "label", root
}

func machine(d *ast.Machine, kinds map[string]string) Machine {
	mc := Machine{Name: d.Name.Name, Initial: d.Initial.Name, Transitions: []Transition{}, ByClass: map[string]int{},
		Adapters: []Adapter{}, WorstCase: []Path{}, Loops: []Loop{}, perEffect: map[string]int{}, effects: map[string]bool{}}
	out := map[string][]edge{}
	final := map[string]bool{}
	var finals []string
	adapters := map[[2]string]int{}
	for _, s := range d.States {
		if s.Final {
			final[s.Name.Name] = true
			finals = append(finals, s.Name.Name)
		}
		for _, t := range s.Transitions {
			tr := Transition{From: s.Name.Name, Event: t.Event.Name, To: t.Target.Name, Guarded: t.Guard != nil, Effects: []Intent{}}
			for _, e := range t.Effects {
				in := intent(e)
				tr.Effects = append(tr.Effects, in)
				mc.ByClass[in.Determinism]++
				mc.effects[in.Effect] = true
				k, n := adapterOf(in, kinds)
				adapters[[2]string{k, n}]++
			}
			tr.ByClass, tr.External, tr.MaxAttempts, _ = tally(tr.Effects)
			mc.Transitions = append(mc.Transitions, tr)
			out[tr.From] = append(out[tr.From], edge{Step{From: tr.From, Event: tr.Event, To: tr.To}, tr.Effects})
			for k, in := range tr.Effects {
				if in.OnError != "" {
					out[tr.From] = append(out[tr.From], edge{Step{From: tr.From, Event: tr.Event, To: in.OnError, OnError: in.Effect}, tr.Effects[:k+1]})
				}
			}
		}
	}
	for k, n := range adapters {
		mc.Adapters = append(mc.Adapters, Adapter{Kind: k[0], Name: k[1], Intents: n})
	}
	sort.Slice(mc.Adapters, func(i, j int) bool {
		a, b := mc.Adapters[i], mc.Adapters[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	loopOf := loops(d, out, &mc)

	// Enumerate the simple paths from the initial state; keep the worst
	// path to each final state and, per effect, the most intents on any
	// path that ends in a final state.
	best := map[string]*Path{}
	var steps []Step
	var intents []Intent
	onPath := map[string]bool{}
	explored := 0
	var walk func(state string)
	walk = func(state string) {
		if explored >= MaxPaths {
			mc.Truncated = true
			return
		}
		explored++
		if final[state] {
			p := pathOf(state, steps, intents, loopOf)
			if b := best[state]; b == nil || worse(p, b) {
				best[state] = p
			}
			count := map[string]int{}
			for _, in := range intents {
				count[in.Effect] += in.Attempts
			}
			for e, n := range count {
				mc.perEffect[e] = max(mc.perEffect[e], n)
			}
			return
		}
		onPath[state] = true
		for _, e := range out[state] {
			if onPath[e.step.To] {
				continue
			}
			steps = append(steps, e.step)
			n := len(intents)
			intents = append(intents, e.intents...)
			walk(e.step.To)
			steps, intents = steps[:len(steps)-1], intents[:n]
		}
		onPath[state] = false
	}
	walk(mc.Initial)
	for _, f := range finals {
		if p := best[f]; p != nil {
			mc.WorstCase = append(mc.WorstCase, *p)
		} else {
			mc.WorstCase = append(mc.WorstCase, Path{Final: f, Steps: []Step{}, ByClass: map[string]int{}})
		}
	}
	return mc
}

func pathOf(final string, steps []Step, intents []Intent, loopOf map[string]bool) *Path {
	p := &Path{Final: final, Reachable: true, Steps: append([]Step{}, steps...), Effects: len(intents)}
	p.ByClass, p.External, p.MaxAttempts, p.EffectTimeMs = tally(intents)
	for _, s := range steps {
		if loopOf[s.From] {
			p.Repeats = true
		}
	}
	return p
}

// worse reports whether p costs more than q: more external attempts, then
// more intents, then more steps, then the first in text order.
func worse(p, q *Path) bool {
	if p.MaxAttempts != q.MaxAttempts {
		return p.MaxAttempts > q.MaxAttempts
	}
	if p.Effects != q.Effects {
		return p.Effects > q.Effects
	}
	if len(p.Steps) != len(q.Steps) {
		return len(p.Steps) > len(q.Steps)
	}
	return fmt.Sprint(p.Steps) < fmt.Sprint(q.Steps)
}

// loops finds the strongly connected components with a cycle (Tarjan)
// and records them on mc; it returns the states that lie in one.
func loops(d *ast.Machine, out map[string][]edge, mc *Machine) map[string]bool {
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var comps [][]string
	n := 0
	var strong func(v string)
	strong = func(v string) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range out[v] {
			w := e.step.To
			if _, seen := index[w]; !seen {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			comps = append(comps, comp)
		}
	}
	for _, s := range d.States {
		if _, seen := index[s.Name.Name]; !seen {
			strong(s.Name.Name)
		}
	}
	in := map[string]bool{}
	order := map[string]int{}
	for k, s := range d.States {
		order[s.Name.Name] = k
	}
	for _, comp := range comps {
		set := map[string]bool{}
		for _, s := range comp {
			set[s] = true
		}
		var inner []Step
		seen := map[Step]bool{}
		for _, s := range comp {
			for _, e := range out[s] {
				if set[e.step.To] && !seen[e.step] {
					seen[e.step] = true
					inner = append(inner, e.step)
				}
			}
		}
		if len(inner) == 0 {
			continue // a single state without a self-loop
		}
		sort.Slice(comp, func(i, j int) bool { return order[comp[i]] < order[comp[j]] })
		sort.SliceStable(inner, func(i, j int) bool { return order[inner[i].From] < order[inner[j].From] })
		for _, s := range comp {
			in[s] = true
		}
		mc.Loops = append(mc.Loops, Loop{States: comp, Transitions: inner})
	}
	sort.Slice(mc.Loops, func(i, j int) bool { return order[mc.Loops[i].States[0]] < order[mc.Loops[j].States[0]] })
	return in
}

// budgetEffects maps a budget's numeric limits to the effect they count.
var budgetEffects = map[string]string{"max-llm-calls": "llm.call", "max-ci-runs": "ci.run"}

func budget(d *ast.ClauseDecl, machines []Machine, used map[string]bool) Budget {
	b := Budget{Name: d.Name.Name, Limits: []Limit{}, OutsideAllow: []string{}, Denied: []string{}}
	var allow map[string]bool
	for _, c := range d.Clauses {
		key := c.Key.Name
		var args []string
		for _, a := range c.Args {
			if a.Kind != syntax.FormList {
				args = append(args, a.Text())
			}
		}
		switch key {
		case "allow-effects":
			if allow == nil {
				allow = map[string]bool{}
			}
			for _, a := range args {
				allow[a] = true
			}
		case "deny-effects":
			for _, a := range args {
				if used[a] {
					b.Denied = append(b.Denied, a)
				}
			}
		case "summary":
		default:
			if !strings.HasPrefix(key, "max-") || len(args) != 1 {
				continue
			}
			l := Limit{Limit: key, Value: args[0]}
			limit, err := strconv.ParseFloat(args[0], 64)
			switch {
			case budgetEffects[key] != "":
				eff := budgetEffects[key]
				var worst int64
				for _, m := range machines {
					worst = max(worst, int64(m.perEffect[eff]))
				}
				l.Used = &worst
				l.Over = err == nil && float64(worst) > limit
				l.Basis = fmt.Sprintf("the most %s attempts (retries included) on a path to a final state that visits each state once; each pass of a loop adds its own", eff)
				if len(machines) == 0 {
					l.Basis = "the module has no machine"
				}
			case key == "max-wall-clock-ms":
				var worst int64
				bounded := true
				for _, m := range machines {
					for _, p := range m.WorstCase {
						if !p.Reachable {
							continue
						}
						if p.EffectTimeMs == nil {
							bounded = false
						} else {
							worst = max(worst, *p.EffectTimeMs)
						}
					}
				}
				if bounded {
					l.Used = &worst
					l.Over = err == nil && float64(worst) > limit
					l.Basis = "the time external intents may take on the worst-case paths (attempts times timeouts)"
				} else {
					l.Basis = "not bounded: an external intent on a worst-case path has no (timeout ...)"
				}
			default:
				l.Basis = "not measurable from the declarations"
			}
			b.Limits = append(b.Limits, l)
		}
	}
	if allow != nil {
		for e := range used {
			if !allow[e] {
				b.OutsideAllow = append(b.OutsideAllow, e)
			}
		}
	}
	sort.Strings(b.OutsideAllow)
	sort.Strings(b.Denied)
	return b
}
