package webui

import (
	"fmt"
	"html"
	"strings"

	"github.com/capsulang/caps/syntax/ast"
)

func findMachineDecl(decls []ast.Decl, name string) *ast.Machine {
	for _, d := range decls {
		if m, ok := d.(*ast.Machine); ok && m.Name.Name == name {
			return m
		}
	}
	return nil
}

// Diagram geometry, in SVG user units.
const (
	nodeH  = 36
	rowGap = 80
	margin = 40
	charW  = 7 // the width of a character of a 12px label, roughly
)

// diagramSVG draws a machine's state diagram: states in columns by their
// distance (in transitions) from the initial state, unreachable states in
// a last column, transitions as labelled arrows. Each state is a <g
// class="state" data-state="NAME">, each transition a <g
// class="transition" data-transition="FROM/EVENT/TO">, so that the page
// can highlight the path of a dry run. The layout depends only on the
// machine, so the same machine always gives the same bytes.
func diagramSVG(m MachineView) string {
	// Nodes fit the longest state name; columns leave room for the
	// longest label of a transition.
	nodeW := 130
	for _, st := range m.States {
		nodeW = max(nodeW, len(st.Name)*charW+24)
	}
	gap := 70
	for _, t := range m.Transitions {
		l := len(t.Event)
		if t.Guarded {
			l += len(" [guarded]")
		}
		gap = max(gap, l*charW+20)
	}
	colGap := nodeW + gap
	col := map[string]int{}
	order := []string{}
	if m.Initial != "" {
		col[m.Initial] = 0
		order = append(order, m.Initial)
	}
	for i := 0; i < len(order); i++ {
		for _, t := range m.Transitions {
			if t.From != order[i] {
				continue
			}
			if _, seen := col[t.To]; !seen && stateIndex(m, t.To) >= 0 {
				col[t.To] = col[order[i]] + 1
				order = append(order, t.To)
			}
		}
	}
	maxCol := 0
	for _, c := range col {
		maxCol = max(maxCol, c)
	}
	unreached := false
	for _, st := range m.States {
		if _, ok := col[st.Name]; !ok {
			col[st.Name] = maxCol + 1
			order = append(order, st.Name)
			unreached = true
		}
	}
	if unreached {
		maxCol++
	}
	type pt struct{ x, y int }
	pos := map[string]pt{}
	rows := map[int]int{}
	maxRow := 0
	for _, name := range order {
		c := col[name]
		pos[name] = pt{margin + 30 + c*colGap, margin + rows[c]*rowGap}
		maxRow = max(maxRow, rows[c])
		rows[c]++
	}
	width := margin*2 + 30 + maxCol*colGap + nodeW
	height := margin*2 + maxRow*rowGap + nodeH + 40
	var b strings.Builder
	esc := html.EscapeString
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="diagram" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="state diagram of %s">`, width, height, width, height, esc(m.Name))
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>`)
	if p, ok := pos[m.Initial]; ok {
		fmt.Fprintf(&b, `<g class="initial"><circle cx="%d" cy="%d" r="6"/><line x1="%d" y1="%d" x2="%d" y2="%d" marker-end="url(#arrow)"/></g>`,
			p.x-24, p.y+nodeH/2, p.x-18, p.y+nodeH/2, p.x, p.y+nodeH/2)
	}
	for _, st := range m.States {
		p := pos[st.Name]
		cls := "state"
		if st.Final {
			cls += " final"
		}
		fmt.Fprintf(&b, `<g class="%s" data-state="%s"><rect x="%d" y="%d" width="%d" height="%d" rx="10"/>`, cls, esc(st.Name), p.x, p.y, nodeW, nodeH)
		if st.Final {
			fmt.Fprintf(&b, `<rect class="inner" x="%d" y="%d" width="%d" height="%d" rx="7"/>`, p.x+4, p.y+4, nodeW-8, nodeH-8)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text></g>`, p.x+nodeW/2, p.y+nodeH/2+5, esc(st.Name))
	}
	pairs := map[string]int{} // transitions drawn between the same two states
	for _, t := range m.Transitions {
		a, okA := pos[t.From]
		z, okZ := pos[t.To]
		if !okA || !okZ {
			continue
		}
		key := t.From + "\x00" + t.To
		k := pairs[key]
		pairs[key]++
		label := t.Event
		if t.Guarded {
			label += " [guarded]"
		}
		var path string
		var lx, ly int
		switch {
		case t.From == t.To:
			x, y := a.x+nodeW/2, a.y
			d := 18 + 10*k
			path = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x-12, y, x-30, y-2*d, x+30, y-2*d, x+12, y)
			lx, ly = x, y-2*d+12
		case z.x > a.x:
			x1, y1 := a.x+nodeW, a.y+nodeH/2
			x2, y2 := z.x, z.y+nodeH/2
			bend := 22 * k
			mx, my := (x1+x2)/2, (y1+y2)/2-bend
			path = fmt.Sprintf("M%d,%d Q%d,%d %d,%d", x1, y1, mx, my, x2, y2)
			lx, ly = mx, (y1+y2)/2-bend/2-6
		default: // back or within a column: loop under the states
			x1, y1 := a.x+nodeW/2, a.y+nodeH
			x2, y2 := z.x+nodeW/2, z.y+nodeH
			depth := 40 + 16*k
			low := max(y1, y2) + depth
			path = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, x1, low, x2, low, x2, y2)
			lx, ly = (x1+x2)/2, low-4
		}
		fmt.Fprintf(&b, `<g class="transition" data-transition="%s"><path d="%s" marker-end="url(#arrow)"/><text x="%d" y="%d" text-anchor="middle">%s</text></g>`,
			esc(t.ID), path, lx, ly, esc(label))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func stateIndex(m MachineView, name string) int {
	for i, st := range m.States {
		if st.Name == name {
			return i
		}
	}
	return -1
}
