package session

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/propose"
)

// Hole is an open question of the session: a delta's open hole, numbered
// h1, h2, ... in the order the session first met it.
type Hole struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// Answer is the person's answer once resolved ("" while open).
	Answer string `json:"answer,omitempty"`
	// Step is the step that resolved it (0 while open).
	Step int `json:"resolved_at,omitempty"`
}

// Open reports whether the hole still needs an answer.
func (h Hole) Open() bool { return h.Step == 0 }

// state is what the steps so far add up to.
type state struct {
	module, capsule string
	profiles        map[string]bool
	requirements    map[string]bool
	assumptions     map[string]bool
	holes           []Hole
	holeByText      map[string]int
	decls           map[string]propose.DeltaDecl
	deltas          int
}

func newState() *state {
	return &state{
		profiles: map[string]bool{}, requirements: map[string]bool{}, assumptions: map[string]bool{},
		holeByText: map[string]int{}, decls: map[string]propose.DeltaDecl{},
	}
}

// normalize collapses white space, as the synthesizer does.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// applyDelta merges a parsed delta.
func (st *state) applyDelta(d *propose.AuthoringDelta) error {
	if d.Module != "" {
		if st.module != "" && st.module != d.Module {
			return fmt.Errorf("the delta is for module %s, the session's is %s", d.Module, st.module)
		}
		st.module = d.Module
	}
	if d.Capsule != "" {
		if st.capsule != "" && st.capsule != d.Capsule {
			return fmt.Errorf("the delta gives capsule %q, the session's is %q", d.Capsule, st.capsule)
		}
		st.capsule = d.Capsule
	}
	add := func(set map[string]bool, items []string) {
		for _, it := range items {
			if it = normalize(it); it != "" {
				set[it] = true
			}
		}
	}
	add(st.profiles, d.Profiles)
	add(st.requirements, d.Requirements)
	add(st.assumptions, d.Assumptions)
	for _, q := range d.OpenHoles {
		q = normalize(q)
		if q == "" {
			continue
		}
		if _, ok := st.holeByText[q]; ok {
			continue // the same question again: still the same hole
		}
		st.holeByText[q] = len(st.holes)
		st.holes = append(st.holes, Hole{ID: "h" + strconv.Itoa(len(st.holes)+1), Question: q})
	}
	for _, decl := range d.Declarations {
		st.decls[decl.Kind+" "+decl.Name] = decl
	}
	st.deltas++
	return nil
}

// findHole finds a hole by id (h2) or by its exact question.
func (st *state) findHole(ref string) (int, error) {
	ref = normalize(ref)
	for i, h := range st.holes {
		if h.ID == ref {
			return i, nil
		}
	}
	if i, ok := st.holeByText[ref]; ok {
		return i, nil
	}
	if len(st.holes) == 0 {
		return 0, fmt.Errorf("no hole %q: the session has no holes", ref)
	}
	var ids []string
	for _, h := range st.holes {
		ids = append(ids, h.ID)
	}
	return 0, fmt.Errorf("no hole %q: the session's holes are %s (caps session show lists them)", ref, strings.Join(ids, ", "))
}

// resolve answers a hole at step n; a later answer replaces an earlier one.
func (st *state) resolve(i int, answer string, n int) {
	st.holes[i].Answer = normalize(answer)
	st.holes[i].Step = n
}

// delta returns the session's merged delta: the union of its deltas, the
// open holes still open, and each answered hole as an assumption.
func (st *state) delta() *propose.AuthoringDelta {
	d := &propose.AuthoringDelta{Module: st.module, Capsule: st.capsule}
	d.Profiles = sortedSet(st.profiles)
	d.Requirements = sortedSet(st.requirements)
	assumptions := map[string]bool{}
	for a := range st.assumptions {
		assumptions[a] = true
	}
	for _, h := range st.holes {
		if h.Open() {
			d.OpenHoles = append(d.OpenHoles, h.Question)
		} else {
			assumptions[answerText(h)] = true
		}
	}
	d.Assumptions = sortedSet(assumptions)
	keys := make([]string, 0, len(st.decls))
	for k := range st.decls {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d.Declarations = append(d.Declarations, st.decls[k])
	}
	return d
}

// answerText is how an answered hole reads in the source.
func answerText(h Hole) string {
	return fmt.Sprintf("answer to %q: %s", h.Question, h.Answer)
}

func sortedSet(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// deltaJSON encodes a merged delta (it validates against the schema).
func deltaJSON(d *propose.AuthoringDelta) []byte {
	b, err := json.Marshal(d)
	if err != nil {
		panic(err) // plain strings and raw JSON that was decoded before
	}
	return b
}
