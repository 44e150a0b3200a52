package hostpolicy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/syntax/ast"
)

// Compare checks an artifact's authority and effects sections against a
// fresh export of the module (want, wantEffects). It ignores what the
// semantic hash ignores: the order of the declarations in each list, the
// order of the intents, and how a duration is spelled (a duration's text
// must still denote its milliseconds). It returns nil when they agree,
// else an error naming the first difference by path, such as
// authority.capabilities[CapSend].risk.
func Compare(got *Authority, gotEffects []Effect, want *Authority, wantEffects []Effect) error {
	g, w := generic(got), generic(want)
	gm, _ := g.(map[string]any)
	wm, _ := w.(map[string]any)
	if gm == nil || wm == nil {
		if gm == nil && wm == nil {
			return nil
		}
		return fmt.Errorf("authority is %s in the artifact but %s in the module", show(g), show(w))
	}
	for _, key := range sortedKeys(wm, gm) {
		if msg := diffDecls("authority."+key, gm[key], wm[key]); msg != "" {
			return fmt.Errorf("%s", msg)
		}
	}
	return diffEffects(gotEffects, wantEffects)
}

// diffDecls compares two lists of declarations by name.
func diffDecls(path string, got, want any) string {
	gl, gok := got.([]any)
	wl, wok := want.([]any)
	if !gok || !wok {
		return diff(path, got, want)
	}
	gByName, gNames := byName(gl)
	wByName, wNames := byName(wl)
	for _, n := range wNames {
		if _, ok := gByName[n]; !ok {
			return fmt.Sprintf("%s: the artifact lacks %s, which the module declares", path, n)
		}
	}
	for _, n := range gNames {
		w, ok := wByName[n]
		if !ok {
			return fmt.Sprintf("%s: the artifact lists %s, which the module does not declare", path, n)
		}
		if msg := diff(path+"["+n+"]", gByName[n], w); msg != "" {
			return msg
		}
	}
	if len(gl) != len(gNames) || len(wl) != len(wNames) {
		return diff(path, got, want) // unnamed or repeated entries
	}
	return ""
}

// byName indexes declarations by their "name".
func byName(list []any) (map[string]any, []string) {
	m := map[string]any{}
	var names []string
	for _, it := range list {
		o, _ := it.(map[string]any)
		n, ok := o["name"].(string)
		if !ok {
			continue
		}
		if _, dup := m[n]; !dup {
			names = append(names, n)
		}
		m[n] = it
	}
	return m, names
}

// diff compares two JSON values; in objects, a field K beside a field
// K_ms is a duration's text, compared only through K_ms.
func diff(path string, got, want any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		for _, k := range sortedKeys(w, g) {
			gv, gok := g[k]
			wv, wok := w[k]
			p := path + "." + k
			switch {
			case !gok:
				return fmt.Sprintf("%s: the artifact lacks this field", p)
			case !wok:
				return fmt.Sprintf("%s: unknown field", p)
			}
			if _, isText := w[k+"_ms"]; isText {
				if msg := durationText(p, gv, g[k+"_ms"]); msg != "" {
					return msg
				}
				if (gv == nil) != (wv == nil) {
					return mismatch(p, gv, wv)
				}
				continue
			}
			if msg := diff(p, gv, wv); msg != "" {
				return msg
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			break
		}
		for i := range w {
			if msg := diff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); msg != "" {
				return msg
			}
		}
		return ""
	default:
		if fmt.Sprint(got) == fmt.Sprint(want) && sameKind(got, want) {
			return ""
		}
	}
	return mismatch(path, got, want)
}

// durationText checks that a duration's text denotes its milliseconds.
func durationText(path string, text, ms any) string {
	if text == nil {
		return ""
	}
	s, _ := text.(string)
	d, ok := ast.ParseNumber(s, ast.Span{}).(*ast.Duration)
	if !ok || fmt.Sprint(d.Millis) != fmt.Sprint(ms) {
		return fmt.Sprintf("%s is %s, which does not denote %s_ms %s", path, show(text), path[strings.LastIndexByte(path, '.')+1:], show(ms))
	}
	return ""
}

func mismatch(path string, got, want any) string {
	return fmt.Sprintf("%s is %s in the artifact but %s in the module", path, show(got), show(want))
}

func sameKind(a, b any) bool { return fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b) }

// diffEffects compares two lists of intents as sets.
func diffEffects(got, want []Effect) error {
	gs, ws := effectSet(got), effectSet(want)
	for _, k := range ws.order {
		if !gs.has[k] {
			return fmt.Errorf("effects: the artifact lacks %s, which the module's machines emit", k)
		}
	}
	for _, k := range gs.order {
		if !ws.has[k] {
			return fmt.Errorf("effects: the artifact lists %s, which the module's machines do not emit", k)
		}
	}
	return nil
}

type set struct {
	has   map[string]bool
	order []string
}

func effectSet(es []Effect) set {
	s := set{has: map[string]bool{}}
	for _, e := range es {
		k := e.String()
		if !s.has[k] {
			s.has[k] = true
			s.order = append(s.order, k)
		}
	}
	return s
}

// String describes an intent: "mcp.call P.tool (machine M, state S, event E)".
func (e Effect) String() string {
	s := e.Effect
	if e.Target != nil {
		s += " " + *e.Target
	}
	return fmt.Sprintf("%s (machine %s, state %s, event %s)", s, e.Machine, e.State, e.Event)
}

// generic turns a value into its JSON tree (numbers as json.Number).
func generic(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// sortedKeys returns the keys of both objects, sorted.
func sortedKeys(a, b map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]any{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
