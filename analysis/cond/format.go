package cond

// Format writes a parsed condition in prefix form, one operator per
// parenthesis, so that its grouping is explicit:
// effect == "x" and amount > 5 is (and (== effect "x") (> amount 5)).
func Format(x Expr) string {
	switch x := x.(type) {
	case *Lit:
		return x.Val.String()
	case *Path:
		return x.Name
	case *Not:
		return "(not " + Format(x.X) + ")"
	case *Binary:
		return "(" + x.Op + " " + Format(x.X) + " " + Format(x.Y) + ")"
	}
	return "?"
}

// Paths lists the names a condition reads, in order, each once.
func Paths(x Expr) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(Expr)
	walk = func(x Expr) {
		switch x := x.(type) {
		case *Path:
			if !seen[x.Name] {
				seen[x.Name] = true
				out = append(out, x.Name)
			}
		case *Not:
			walk(x.X)
		case *Binary:
			walk(x.X)
			walk(x.Y)
		}
	}
	walk(x)
	return out
}
