package check

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax"
)

// token finds symbols and numbers (not inside strings or comments: a
// mutation there is still a valid edit, only a less interesting one).
var token = regexp.MustCompile(`[^\s()";]+`)

// mutate applies the edit that op selects to src: a token replaced by
// another token of the file (renames, type, effect and callee changes), a
// list deleted or duplicated, or a number made out of range.
func mutate(src string, op [3]byte) string {
	toks := token.FindAllStringIndex(src, -1)
	if len(toks) == 0 {
		return src
	}
	t := toks[int(op[1])*len(toks)/256]
	switch op[0] % 4 {
	case 0, 1:
		o := toks[int(op[2])*len(toks)/256]
		return src[:t[0]] + src[o[0]:o[1]] + src[t[1]:]
	case 2:
		// the list that starts at or after the token: delete or duplicate it
		start := t[0]
		for start < len(src) && src[start] != '(' {
			start++
		}
		depth := 0
		for end := start; end < len(src); end++ {
			switch src[end] {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					if op[2]%2 == 0 {
						return src[:start] + src[end+1:]
					}
					return src[:end+1] + " " + src[start:end+1] + src[end+1:]
				}
			}
		}
		return src
	default:
		return src[:t[0]] + []string{"4294967296", "-1", "0", "9223372036854775808"}[op[2]%4] + src[t[1]:]
	}
}

// FuzzRecheck mutates a seed module up to three times and checks, after
// each mutation, that Recheck against the unmutated module's check agrees
// with a full check of the mutated text, and declines only when the text
// has a syntax error or imports something.
func FuzzRecheck(f *testing.F) {
	seeds := map[string]string{}
	for name, b := range seedSources(f, 120) {
		seeds[name] = string(b)
	}
	var names []string
	for k := range seeds {
		names = append(names, k)
	}
	sort.Strings(names)
	for i := range names {
		f.Add(uint8(i), []byte{byte(i * 37), byte(i * 91), byte(i * 13), byte(i * 7), byte(i * 53), byte(i * 29)})
	}
	f.Fuzz(func(t *testing.T, which uint8, ops []byte) {
		a := seeds[names[int(which)%len(names)]]
		c, err := syntax.Parse([]byte(a))
		if err != nil {
			return // not parseable: nothing to recheck
		}
		base := checkCST(c)
		cur := a
		for k := 0; k+3 <= len(ops) && k < 9; k += 3 {
			cur = mutate(cur, [3]byte{ops[k], ops[k+1], ops[k+2]})
			next, err := syntax.Parse([]byte(cur))
			if err != nil {
				return // a mutation that does not parse ends the run
			}
			got, ok := base.Recheck(next)
			if ok {
				if diff := cmp.Diff(checkCST(next).Diagnostics, got); diff != "" {
					t.Fatalf("Recheck differs from Check (-check +recheck)\nold:\n%s\nnew:\n%s\n%s", a, cur, diff)
				}
			} else if !next.HasError(0) && !strings.Contains(cur, "(import") {
				// only a syntax error or an import the base did not
				// resolve makes the engine decline
				t.Fatalf("Recheck declined an error-free edit\nold:\n%s\nnew:\n%s", a, cur)
			}
		}
	})
}
