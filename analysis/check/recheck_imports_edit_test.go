package check

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax"
)

// TestRecheckImportEditCounts edits the module's own imports and holds
// Recheck's diagnostics to a full check's, byte for byte, counting the
// bodies checked again: only the declarations that looked up an alias
// whose answer changed (a, which calls l.twice; c, whose signature names
// l.Score; f, which calls a member of the failing import nothere), and those that depend on them through interfaces (d calls
// c), are checked again.
func TestRecheckImportEditCounts(t *testing.T) {
	lib := checkAs("lib", []byte(`(module lib
  (capsule "1")
  (type Score U32)
  (function twice (input (x I64)) (output I64) (body (* x 2))))
`), nil)
	lib2 := checkAs("lib2", []byte(`(module lib2
  (capsule "1")
  (type Score U64)
  (function twice (input (x I64)) (output I64) (body x)))
`), nil)
	unused := checkAs("unused", []byte(`(module unused
  (capsule "1")
  (function z (output I64) (body 0)))
`), nil)
	imp := mapImporter{"lib": lib, "lib2": lib2, "unused": unused}
	app := `(module app
  (capsule "1")
  (import lib (as l))
  (import unused)
  (import lib2)
  (import nothere)
  (function a (input (x I64)) (output I64) (body (l.twice x)))
  (function b (input (x I64)) (output I64) (body (+ x 1)))
  (function c (input (s l.Score)) (output I64) (body 1))
  (function d (input (x I64)) (output I64) (body (c 1)))
  (function e (output I64) (body (b 2)))
  (function f (output I64) (body (nothere.x))))
`
	tests := []struct {
		name, from, to string
		rechecked      int
	}{
		{"unused import removed", "\n  (import unused)", "", 0},
		{"unused import added", "(import lib2)", "(import lib2)\n  (import unused (as u2))", 0},
		{"imports reordered", "(import lib (as l))\n  (import unused)", "(import unused)\n  (import lib (as l))", 0},
		{"duplicate alias", "(import lib2)", "(import lib2)\n  (import lib2 (as l))", 0},
		{"alias retargeted", "(import lib (as l))", "(import lib2 (as l))", 3},
		{"alias renamed", "(import lib (as l))", "(import lib (as m))", 3},
		{"import used removed", "(import lib (as l))\n", "", 3},
		{"alias of an unused import renamed", "(import unused)", "(import unused (as v))", 0},
		// f's call of nothere.x is not reported while the import fails
		{"alias of a failing import renamed", "(import nothere)", "(import nothere (as q))", 1},
		{"failing import removed", "\n  (import nothere)", "", 1},
		// nothere fails, then names lib: f finds no x in it
		{"failing alias also imported", "(import nothere)", "(import nothere)\n  (import lib (as nothere))", 1},
	}
	base := checkAs("app", []byte(app), imp)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(app, tt.from) {
				t.Fatalf("%q not in the fixture", tt.from)
			}
			src := strings.Replace(app, tt.from, tt.to, 1)
			cst, err := syntax.Parse([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			full := checkAs("app", []byte(src), imp)
			got, run, ok := base.recheck(cst)
			if !ok {
				t.Fatal("Recheck declined")
			}
			if diff := cmp.Diff(full.Diagnostics, got); diff != "" {
				t.Fatalf("differs from Check (-check +recheck):\n%s", diff)
			}
			if run.rechecked != tt.rechecked {
				t.Errorf("%d bodies checked again (%v), want %d", run.rechecked, run.checked, tt.rechecked)
			}
			if run.whole {
				t.Error("Recheck read and built the whole file: an import edit is read as the header alone")
			}
		})
	}
}

// cycleImporter answers mapImporter's modules, and refuses the module
// path cycle as a loader refuses an import that closes a cycle.
type cycleImporter struct{ mapImporter }

func (c cycleImporter) Import(from, path string) (*Imported, error) {
	if path == "cycle" {
		return nil, &ImportError{Code: ImportCycle, Message: "import cycle: app imports cycle, which imports app"}
	}
	return c.mapImporter.Import(from, path)
}

// TestRecheckNewImport adds imports r's check never resolved: Recheck
// declines them, RecheckResultWith resolves them with the importer
// given (a module found, one missing, one closing a cycle) and answers
// as a full check with that importer does, checking again only the
// bodies that read the new alias.
func TestRecheckNewImport(t *testing.T) {
	lib := checkAs("lib", []byte(`(module lib
  (capsule "1")
  (function twice (input (x I64)) (output I64) (body (* x 2))))
`), nil)
	imp := cycleImporter{mapImporter{"lib": lib}}
	app := `(module app
  (capsule "1")
  (function a (input (x I64)) (output I64) (body (n.twice x)))
  (function b (input (x I64)) (output I64) (body (+ x 1))))
`
	base := checkAs("app", []byte(app), imp)
	tests := []struct {
		name, to  string
		rechecked int
		codes     []string
	}{
		{"module never resolved", "(import lib (as n))", 1, nil},
		{"missing module", "(import nowhere (as n))", 1, []string{ImportNotFound}},
		{"cycle", "(import cycle (as n))", 1, []string{ImportCycle}},
		{"unrelated alias", "(import lib (as m))", 0, []string{UnknownName}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(app, "(capsule \"1\")", "(capsule \"1\")\n  "+tt.to, 1)
			cst, err := syntax.Parse([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := base.Recheck(cst); ok {
				t.Fatal("Recheck answered an import its base never resolved")
			}
			full := checkAs("app", []byte(src), imp)
			counted := &countingImporter{imp: imp, calls: map[string]int{}}
			got, run, ok := base.recheckResultWith(cst, counted)
			if !ok {
				t.Fatal("RecheckResultWith declined")
			}
			// (a reads the new alias: a second round reads it again, and
			// resolves the header again, from the first round's answer)
			for path, n := range counted.calls {
				if n != 1 {
					t.Errorf("the importer was asked for %s %d times, want once", path, n)
				}
			}
			if diff := cmp.Diff(full.Diagnostics, got.Diagnostics); diff != "" {
				t.Fatalf("differs from Check (-check +recheck):\n%s", diff)
			}
			var codes []string
			for _, d := range got.Diagnostics {
				codes = append(codes, d.Code)
			}
			if diff := cmp.Diff(tt.codes, codes); diff != "" {
				t.Errorf("codes (-want +got):\n%s", diff)
			}
			if run.rechecked != tt.rechecked {
				t.Errorf("%d bodies checked again (%v), want %d", run.rechecked, run.checked, tt.rechecked)
			}
			if run.whole {
				t.Error("Recheck read and built the whole file: an import edit is read as the header alone")
			}
			// the answer is a base for the next edit, which replays the
			// new import: the text back as it was
			back, err := syntax.Parse([]byte(app))
			if err != nil {
				t.Fatal(err)
			}
			again, ok := got.Recheck(back)
			if !ok {
				t.Fatal("Recheck over the answer declined")
			}
			if diff := cmp.Diff(base.Diagnostics, again); diff != "" {
				t.Fatalf("edit undone: differs from Check (-check +recheck):\n%s", diff)
			}
		})
	}
}

// TestRecheckImportEditsChained makes random runs of import edits (each
// import line set to one of several forms: absent, another module, another
// alias, a duplicate, a missing module), half of them with an edit of a
// body or a signature that reads an alias in the same version, and
// answers each from the last answer, chained, with RecheckResultWith:
// every answer must be a full check's, byte for byte, and none may read
// the whole file.
func TestRecheckImportEditsChained(t *testing.T) {
	lib := checkAs("lib", []byte(`(module lib
  (capsule "1")
  (type Score U32)
  (function twice (input (x I64)) (output I64) (body (* x 2))))
`), nil)
	lib2 := checkAs("lib2", []byte(`(module lib2
  (capsule "1")
  (type Score U64)
  (function twice (input (x I64)) (output I64) (body x)))
`), nil)
	imp := cycleImporter{mapImporter{"lib": lib, "lib2": lib2}}
	forms := []string{"", "(import lib (as l))", "(import lib2 (as l))", "(import lib)", "(import lib2)", "(import lib (as m))", "(import nowhere (as l))", "(import cycle (as l))", "(import lib2 (as lib))"}
	// a's body, and c's input, take one of these in turn: an edit of
	// the imports and one of a declaration in the same version
	aBodies := []string{"(l.twice x)", "(m.twice x)", "(lib.twice x)", "(+ x 1)", "(nowhere.twice x)"}
	cInputs := []string{"l.Score", "lib2.Score", "m.Score", "I64"}
	body := `
  (function a (input (x I64)) (output I64) (body A))
  (function b (input (x I64)) (output I64) (body (lib.twice x)))
  (function c (input (s C)) (output I64) (body 1))
  (function d (input (x I64)) (output I64) (body (c 1)))
  (function e (input (s lib2.Score)) (output I64) (body (m.twice 1))))
`
	r := rand.New(rand.NewSource(5))
	lines := make([]string, 3)
	aBody, cInput := aBodies[0], cInputs[0]
	text := func() string {
		b := strings.Replace(strings.Replace(body, "A", aBody, 1), "(s C)", "(s "+cInput+")", 1)
		return "(module app\n  (capsule \"1\")\n  " + strings.Join(lines, "\n  ") + b
	}
	prev := checkAs("app", []byte(text()), imp)
	answered, whole := 0, 0
	for i := 0; i < 200; i++ {
		switch r.Intn(4) {
		case 0:
			aBody = aBodies[r.Intn(len(aBodies))]
		case 1:
			cInput = cInputs[r.Intn(len(cInputs))]
		}
		lines[r.Intn(len(lines))] = forms[r.Intn(len(forms))]
		src := text()
		cst, err := syntax.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		full := checkAs("app", []byte(src), imp)
		got, run, ok := prev.recheckResultWith(cst, imp)
		if !ok {
			prev = full
			continue
		}
		answered++
		if run.whole {
			whole++
		}
		if diff := cmp.Diff(full.Diagnostics, got.Diagnostics); diff != "" {
			t.Fatalf("edit %d:\n%s\ndiffers from Check (-check +recheck):\n%s", i, src, diff)
		}
		prev = got
	}
	if answered < 190 {
		t.Errorf("only %d of 200 edits answered by the engine", answered)
	}
	if whole > 0 {
		t.Errorf("%d of %d answers read and built the whole file: an import edit is read as the header alone", whole, answered)
	}
}

// TestRecheckImportRemovedThenAdded removes the module's only import and
// adds it again, each edit answered over the last answer, while the
// imported module changed in between (the importer answers another
// result): the import added again is resolved anew, as a full check
// resolves it, not from the log of the check before the removal.
func TestRecheckImportRemovedThenAdded(t *testing.T) {
	v1 := checkAs("lib", []byte(`(module lib
  (capsule "1")
  (function twice (input (x I64)) (output I64) (body (* x 2))))
`), nil)
	v2 := checkAs("lib", []byte(`(module lib
  (capsule "1")
  (function thrice (input (x I64)) (output I64) (body (* x 3))))
`), nil)
	imp := mapImporter{"lib": v1}
	with := `(module app
  (capsule "1")
  (import lib)
  (function a (input (x I64)) (output I64) (body (lib.twice x))))
`
	without := strings.Replace(with, "\n  (import lib)", "", 1)
	prev := checkAs("app", []byte(with), imp)
	for i, src := range []string{without, with} {
		if i == 1 {
			imp["lib"] = v2 // lib changed while app did not import it
		}
		cst, err := syntax.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		got, run, ok := prev.recheckResultWith(cst, imp)
		if !ok {
			t.Fatalf("edit %d: RecheckResultWith declined", i)
		}
		if run.whole {
			t.Errorf("edit %d: read the whole file", i)
		}
		full := checkAs("app", []byte(src), imp)
		if diff := cmp.Diff(full.Diagnostics, got.Diagnostics); diff != "" {
			t.Fatalf("edit %d differs from Check (-check +recheck):\n%s", i, diff)
		}
		prev = got
	}
	if len(prev.Diagnostics) == 0 {
		t.Fatal("the import added again was answered by the removed one's old result: no unknown name")
	}
}

// countingImporter counts the calls for each module path.
type countingImporter struct {
	imp   Importer
	calls map[string]int
}

func (c *countingImporter) Import(from, path string) (*Imported, error) {
	c.calls[path]++
	return c.imp.Import(from, path)
}
