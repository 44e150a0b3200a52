package noir_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/codegen/internal/testutil"
	"github.com/capsulang/caps/codegen/noir"
)

// claimGen writes random claims over the inputs of randomInputs. Divisors
// are non-zero literals (-1 included, for the signed MIN / -1 guard), so
// that no claim traps and their values can be returned together.
type claimGen struct{ r *rand.Rand }

var randomInputs = []struct{ name, typ string }{
	{"a", "I64"}, {"b", "I64"}, {"c", "I32"}, {"d", "I32"}, {"e", "U32"}, {"f", "U64"}, {"g", "U64"}, {"h", "Bool"},
}

var divisors = map[string][]string{
	"I64": {"1", "-1", "2", "7", "-7", "9223372036854775807", "-9223372036854775808"},
	"I32": {"1", "-1", "3", "-3", "2147483647", "-2147483648"},
	"U32": {"1", "2", "10", "4294967295"},
	"U64": {"1", "3", "1000", "18446744073709551615"},
}

func (g *claimGen) leaf(typ string) string {
	var names []string
	for _, in := range randomInputs {
		if in.typ == typ {
			names = append(names, in.name)
		}
	}
	if typ == "Bool" {
		if g.r.IntN(3) == 0 {
			return []string{"true", "false"}[g.r.IntN(2)]
		}
		return "h"
	}
	return names[g.r.IntN(len(names))]
}

func (g *claimGen) num(typ string, depth int) string {
	if depth == 0 || g.r.IntN(4) == 0 {
		return g.leaf(typ)
	}
	switch g.r.IntN(6) {
	case 0:
		return fmt.Sprintf("(if %s %s %s)", g.boolean(depth-1), g.num(typ, depth-1), g.num(typ, depth-1))
	case 1:
		ds := divisors[typ]
		return fmt.Sprintf("(%s %s %s)", []string{"/", "%"}[g.r.IntN(2)], g.num(typ, depth-1), ds[g.r.IntN(len(ds))])
	case 2:
		// a literal operand takes the other operand's type
		ds := divisors[typ]
		return fmt.Sprintf("(%s %s %s)", []string{"+", "-", "*"}[g.r.IntN(3)], ds[g.r.IntN(len(ds))], g.num(typ, depth-1))
	}
	return fmt.Sprintf("(%s %s %s)", []string{"+", "-", "*"}[g.r.IntN(3)], g.num(typ, depth-1), g.num(typ, depth-1))
}

func (g *claimGen) boolean(depth int) string {
	if depth == 0 || g.r.IntN(5) == 0 {
		return g.leaf("Bool")
	}
	switch g.r.IntN(5) {
	case 0:
		return fmt.Sprintf("(%s %s %s)", []string{"and", "or"}[g.r.IntN(2)], g.boolean(depth-1), g.boolean(depth-1))
	case 1:
		return fmt.Sprintf("(not %s)", g.boolean(depth-1))
	case 2:
		return fmt.Sprintf("(%s %s %s)", []string{"==", "!="}[g.r.IntN(2)], g.boolean(depth-1), g.boolean(depth-1))
	}
	typ := []string{"I64", "I32", "U32", "U64"}[g.r.IntN(4)]
	op := []string{"<", "<=", ">", ">=", "==", "!="}[g.r.IntN(6)]
	return fmt.Sprintf("(%s %s %s)", op, g.num(typ, depth-1), g.num(typ, depth-1))
}

// TestRandomClaimsNoir lowers random claims over every input type and
// compares, on random and boundary inputs, the value the real ACVM
// computes for each with the interpreter's. The claims go into one
// circuit that returns all their values, so that one compilation serves
// them all.
func TestRandomClaimsNoir(t *testing.T) {
	tc := toolchain(t)
	const nclaims = 40
	g := &claimGen{r: rand.New(rand.NewPCG(11, 12))}
	var b strings.Builder
	b.WriteString("(module zk.random (capsule \"1\") (profile zk.noir)\n")
	var fields []string
	for _, in := range randomInputs {
		fields = append(fields, fmt.Sprintf("(%s %s)", in.name, in.typ))
	}
	for i := 0; i < nclaims; i++ {
		fmt.Fprintf(&b, "  (zk-proof C%d (backend noir) (public %s) (private %s)\n    (proves %s))\n", i, fields[0], strings.Join(fields[1:], " "), g.boolean(4))
	}
	b.WriteString(")\n")
	pkg := testutil.LoadSource(t, b.String())
	ps := noir.Plan(pkg.Result)
	var params, bodies []string
	for i, in := range randomInputs {
		pub := ""
		if i == 0 {
			pub = "pub "
		}
		nt := map[string]string{"I64": "i64", "I32": "i32", "U32": "u32", "U64": "u64", "Bool": "bool"}[in.typ]
		params = append(params, fmt.Sprintf("%s: %s%s", in.name, pub, nt))
	}
	for _, p := range ps {
		if !p.Lowers {
			t.Fatalf("%s does not lower: %v\n%s", p.Name, p.Reasons, p.ClaimText)
		}
		bodies = append(bodies, p.Body)
	}
	main := fmt.Sprintf("use std::ops::{WrappingAdd, WrappingMul, WrappingSub};\n\nfn main(%s) -> pub [bool; %d] {\n    [\n        %s\n    ]\n}\n",
		strings.Join(params, ", "), len(bodies), strings.Join(bodies, ",\n        "))
	pr, err := noir.Emit(ps[0], "zk.random", pkg.Hash, nil)
	if err != nil {
		t.Fatal(err)
	}
	pr.Files["src/main.nr"] = []byte(main)
	dir := filepath.Join(t.TempDir(), "random")
	if err := pr.Write(dir); err != nil {
		t.Fatal(err)
	}
	if cr, err := tc.Compile(dir); err != nil || !cr.OK {
		t.Fatalf("compile: %v %+v\n%s", err, cr, main)
	}
	n := 100
	if testing.Short() {
		n = 30
	}
	r := rand.New(rand.NewPCG(13, 14))
	var inputs []map[string]any
	var cases []string
	for i := 0; i < n; i++ {
		var parts []string
		for _, in := range randomInputs {
			parts = append(parts, fmt.Sprintf("%q: %s", in.name, randomJSON(r, in.typ)))
		}
		js := "{" + strings.Join(parts, ", ") + "}"
		vals, err := ps[0].ParseInputs([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		m, err := ps[0].NoirInputs(vals)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, m)
		cases = append(cases, js)
	}
	res, err := tc.Execute(dir, inputs)
	if err != nil {
		t.Fatal(err)
	}
	compared, trues := 0, 0
	for i, r := range res {
		if !r.Satisfied {
			t.Fatalf("%s: the circuit failed: %s", cases[i], r.Error)
		}
		var got []bool
		if err := json.Unmarshal(r.ReturnValue, &got); err != nil || len(got) != len(ps) {
			t.Fatalf("return value %s: %v", r.ReturnValue, err)
		}
		vals, _ := ps[0].ParseInputs([]byte(cases[i]))
		for j, p := range ps {
			want, err := p.Eval(vals)
			if err != nil {
				t.Fatalf("%s on %s: the interpreter failed: %v", p.ClaimText, cases[i], err)
			}
			if got[j] != want {
				t.Errorf("%s on %s: circuit %v, interpreter %v\nNoir: %s", p.ClaimText, cases[i], got[j], want, p.Body)
			}
			compared++
			if want {
				trues++
			}
		}
	}
	if trues == 0 || trues == compared {
		t.Errorf("the claims were all %v", trues != 0)
	}
	t.Logf("%d claim values compared (Noir ACVM vs interpreter) for %d random claims on %d inputs; %d true", compared, len(ps), n, trues)
}
