package ir

// Semantic mutations for property tests. Each one changes a module's
// meaning for certain; the tests check that the hash changes.

import (
	"math/big"
	"math/rand"
	"regexp"
	"strconv"

	"github.com/capsulang/caps/syntax"
)

// site is a place in the tree where a mutation can apply: apply performs
// it on the tree it was found in.
type site struct {
	what  string
	apply func()
}

// mutation finds the sites where it applies in a module.
type mutation struct {
	name  string
	sites func(mod *node) []site
}

var (
	intTextRE = regexp.MustCompile(`^-?[0-9]+$`)
	durTextRE = regexp.MustCompile(`^([0-9]+)(ms|s|m|h|d)$`)
)

// walk calls fn for every node with the chain of list heads above it.
func walk(n *node, path []string, fn func(n *node, path []string)) {
	fn(n, path)
	if !n.isList() {
		return
	}
	p := append(path[:len(path):len(path)], n.head())
	for _, k := range n.kids {
		walk(k, p, fn)
	}
}

// decls returns the declarations of a module node.
func decls(mod *node) []*node {
	if len(mod.kids) < 2 {
		return nil
	}
	var out []*node
	for _, k := range mod.kids[2:] {
		switch k.head() {
		case "capsule", "profile", "import", "":
		default:
			out = append(out, k)
		}
	}
	return out
}

func declsOf(mod *node, kind string) []*node {
	var out []*node
	for _, d := range decls(mod) {
		if d.head() == kind {
			out = append(out, d)
		}
	}
	return out
}

func clausesOf(n *node, head string, from int) []*node {
	var out []*node
	if len(n.kids) > from {
		for _, k := range n.kids[from:] {
			if k.head() == head {
				out = append(out, k)
			}
		}
	}
	return out
}

// transitions returns every (on ...) of every state of every machine, with
// the machine.
func transitions(mod *node) (ts, machines []*node) {
	for _, m := range declsOf(mod, "machine") {
		for _, s := range clausesOf(m, "state", 2) {
			for _, t := range clausesOf(s, "on", 2) {
				ts = append(ts, t)
				machines = append(machines, m)
			}
		}
	}
	return ts, machines
}

// effectItems returns the effect intents listed in transitions' and
// functions' effects clauses.
func effectItems(mod *node) []*node {
	var out []*node
	add := func(c *node) {
		if len(c.kids) == 2 && c.arg(1) == "pure" {
			return
		}
		out = append(out, c.kids[1:]...)
	}
	ts, _ := transitions(mod)
	for _, t := range ts {
		for _, c := range clausesOf(t, "effects", 2) {
			add(c)
		}
	}
	for _, f := range declsOf(mod, "function") {
		for _, c := range clausesOf(f, "effects", 2) {
			add(c)
		}
	}
	return out
}

func swapSite(what string, ns []*node, i, j int) site {
	return site{what, func() { ns[i], ns[j] = ns[j], ns[i] }}
}

// differingPairs returns the swap sites of items that mean different things.
func differingPairs(what string, ns []*node) []site {
	var out []site
	for i := range ns {
		for j := i + 1; j < len(ns); j++ {
			if ns[i].norm() != ns[j].norm() {
				out = append(out, swapSite(what, ns, i, j))
			}
		}
	}
	return out
}

var mutations = []mutation{
	{"change an integer literal", func(mod *node) []site {
		var out []site
		walk(mod, nil, func(n *node, _ []string) {
			if n.kind == syntax.FormNumber && intTextRE.MatchString(n.raw) {
				out = append(out, site{n.raw, func() {
					v, _ := new(big.Int).SetString(n.raw, 10)
					n.raw = v.Add(v, big.NewInt(1)).String()
					n.text = n.raw
				}})
			}
		})
		return out
	}},
	{"change a duration", func(mod *node) []site {
		var out []site
		walk(mod, nil, func(n *node, _ []string) {
			if m := durTextRE.FindStringSubmatch(n.raw); n.kind == syntax.FormNumber && m != nil {
				out = append(out, site{n.raw, func() {
					v, _ := strconv.Atoi(m[1])
					n.raw = strconv.Itoa(v+1) + m[2]
					n.text = n.raw
				}})
			}
		})
		return out
	}},
	{"change a string", func(mod *node) []site {
		var out []site
		walk(mod, nil, func(n *node, _ []string) {
			if n.kind == syntax.FormString {
				out = append(out, site{n.raw, func() {
					n.raw = n.raw[:1] + "Z" + n.raw[1:]
					n.text = "Z" + n.text
				}})
			}
		})
		return out
	}},
	{"rename a state consistently", func(mod *node) []site {
		var out []site
		for _, m := range declsOf(mod, "machine") {
			for _, s := range clausesOf(m, "state", 2) {
				name := s.arg(1)
				if name == "" {
					continue
				}
				out = append(out, site{name, func() {
					walk(m, nil, func(n *node, _ []string) {
						if n.kind == syntax.FormSymbol && n.raw == name {
							n.raw, n.text = name+"_renamed", name+"_renamed"
						}
					})
				}})
			}
		}
		return out
	}},
	{"rename a state inconsistently", func(mod *node) []site {
		var out []site
		for _, m := range declsOf(mod, "machine") {
			for _, s := range clausesOf(m, "state", 2) {
				if s.arg(1) != "" {
					out = append(out, site{s.arg(1), func() { s.kids[1] = sym(s.arg(1) + "_renamed") }})
				}
			}
		}
		return out
	}},
	{"swap two function inputs", func(mod *node) []site {
		var out []site
		for _, f := range declsOf(mod, "function") {
			var ins []*node
			for _, c := range clausesOf(f, "input", 2) {
				ins = append(ins, c.kids[1:]...)
			}
			// Swap the contents of two input fields (they may sit in
			// different input clauses).
			for i := range ins {
				for j := i + 1; j < len(ins); j++ {
					a, b := ins[i], ins[j]
					if a.norm() != b.norm() {
						out = append(out, site{f.arg(1), func() { *a, *b = *b, *a }})
					}
				}
			}
		}
		return out
	}},
	{"change an effect name", func(mod *node) []site {
		var out []site
		for _, e := range effectItems(mod) {
			h := e
			if e.isList() {
				if len(e.kids) == 0 || e.kids[0].isList() {
					continue
				}
				h = e.kids[0]
			}
			out = append(out, site{h.raw, func() { h.raw += "_changed"; h.text = h.raw }})
		}
		return out
	}},
	{"change a transition target", func(mod *node) []site {
		var out []site
		ts, ms := transitions(mod)
		for i, t := range ts {
			for _, c := range clausesOf(t, "target", 2) {
				for _, s := range clausesOf(ms[i], "state", 2) {
					if s.arg(1) != "" && s.arg(1) != c.arg(1) && len(c.kids) == 2 {
						c, name := c, s.arg(1)
						out = append(out, site{name, func() { c.kids[1] = sym(name) }})
					}
				}
			}
		}
		return out
	}},
	{"swap two effects of a transition", func(mod *node) []site {
		var out []site
		ts, _ := transitions(mod)
		for _, t := range ts {
			for _, c := range clausesOf(t, "effects", 2) {
				out = append(out, differingPairs("effects", c.kids[1:])...)
			}
		}
		return out
	}},
	{"swap two repeated clauses", func(mod *node) []site {
		// requires/ensures/example of a function, clauses of the same key of
		// a governance declaration: their order is kept.
		var out []site
		for _, d := range decls(mod) {
			switch d.head() {
			case "function":
				for _, key := range []string{"requires", "ensures", "example"} {
					cs := clausesOf(d, key, 2)
					for i := range cs {
						for j := i + 1; j < len(cs); j++ {
							if a, b := cs[i], cs[j]; a.norm() != b.norm() {
								out = append(out, site{key, func() { *a, *b = *b, *a }})
							}
						}
					}
				}
			case "type", "machine", "store", "surface", "port", "agent":
			default:
				groups := map[string][]*node{}
				for _, c := range d.kids[2:] {
					groups[c.head()] = append(groups[c.head()], c)
				}
				for key, cs := range groups {
					for i := range cs {
						for j := i + 1; j < len(cs); j++ {
							if a, b := cs[i], cs[j]; a.norm() != b.norm() {
								out = append(out, site{key, func() { *a, *b = *b, *a }})
							}
						}
					}
				}
			}
		}
		return out
	}},
	{"swap the branches of an if", func(mod *node) []site {
		var out []site
		walk(mod, nil, func(n *node, _ []string) {
			if n.head() == "if" && len(n.kids) == 4 && n.kids[2].norm() != n.kids[3].norm() {
				out = append(out, swapSite("if", n.kids, 2, 3))
			}
		})
		return out
	}},
	{"swap two enum members or record fields", func(mod *node) []site {
		var out []site
		for _, d := range declsOf(mod, "type") {
			if len(d.kids) == 3 {
				switch d.kids[2].head() {
				case "enum", "record", "error", "event", "variant":
					out = append(out, differingPairs(d.arg(1), d.kids[2].kids[1:])...)
				}
			}
		}
		return out
	}},
	{"change a governance argument", func(mod *node) []site {
		var out []site
		for _, d := range decls(mod) {
			switch d.head() {
			case "type", "function", "machine", "store", "surface", "port", "agent":
				continue
			}
			for _, c := range d.kids[2:] {
				walk(c, nil, func(n *node, _ []string) {
					if n.kind == syntax.FormSymbol && n != c.kids[0] {
						out = append(out, site{n.raw, func() { n.raw += "_changed"; n.text = n.raw }})
					}
				})
			}
		}
		return out
	}},
	{"add a clause", func(mod *node) []site {
		var out []site
		for _, d := range decls(mod) {
			var add string
			switch d.head() {
			case "type":
				continue
			case "function":
				add = `(requires false)`
			case "machine":
				add = `(event MutationAddedEvent)`
			case "store":
				add = `(collection mutation_added)`
			case "surface":
				add = `(action mutation_added)`
			case "port":
				add = `(tool mutation_added)`
			case "agent":
				add = `(skill mutation_added)`
			default:
				add = `(summary "mutation added")`
			}
			d, c := d, parseNode(add)
			out = append(out, site{d.arg(1), func() { d.kids = append(d.kids, c) }})
		}
		return out
	}},
	{"add a transition", func(mod *node) []site {
		var out []site
		for _, m := range declsOf(mod, "machine") {
			for _, s := range clausesOf(m, "state", 2) {
				if s.arg(1) != "" {
					s := s
					out = append(out, site{s.arg(1), func() {
						s.kids = append(s.kids, list(sym("on"), sym("MutationEvent"), list(sym("target"), sym(s.arg(1)))))
					}})
				}
			}
		}
		return out
	}},
	{"drop an assignment", func(mod *node) []site {
		var out []site
		ts, _ := transitions(mod)
		for _, t := range ts {
			for _, c := range clausesOf(t, "assign", 2) {
				for i := 1; i < len(c.kids); i++ {
					c, i := c, i
					out = append(out, site{c.norm(), func() { c.kids = append(c.kids[:i:i], c.kids[i+1:]...) }})
				}
			}
		}
		return out
	}},
}

// mutate applies one random applicable mutation to a copy of mod and
// returns the copy and a description; ok is false when no mutation applies.
func mutate(rng *rand.Rand, mod *node) (out *node, desc string, ok bool) {
	for _, i := range rng.Perm(len(mutations)) {
		m := mutations[i]
		c := mod.clone()
		sites := m.sites(c)
		if len(sites) == 0 {
			continue
		}
		s := sites[rng.Intn(len(sites))]
		s.apply()
		return c, m.name + ": " + s.what, true
	}
	return nil, "", false
}
