package interp_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

func TestEffectTargets(t *testing.T) {
	in := interp.New(checked(t, `
  (store s (backend memory) (authority runtime-state) (collection events))
  (store view (backend memory) (authority runtime-state))
  (function f (input (job Text) (n U32)) (output U32)
    (effects (ci.run) (db.project s.events) (requires-user-confirmation) (receipt.emit paid))
    (body (do
      (ci.run job n)
      (ci.run nightly job)
      (db.project s.events view.totals n)
      (requires-user-confirmation)
      (receipt.emit paid n)
      n)))`))
	_, intents, err := call(t, in, "f", "build", "3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range intents {
		got = append(got, it.String()+" target="+it.Target)
	}
	want := []string{
		`(ci.run "build" 3) target=`,
		`(ci.run nightly "build") target=nightly`,
		`(db.project s.events view.totals 3) target=s.events`,
		`(requires-user-confirmation) target=`,
		`(receipt.emit paid 3) target=paid`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("intents (-want +got)\n%s", diff)
	}
	if x := intents[2].Extra; len(x) != 1 || x[0] != "view.totals" {
		t.Errorf("extra targets %v", x)
	}
}

func TestImports(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"shared/units.caps": `(module shared.units
  (capsule "1.0")
  (type Scale (enum gram kilo))
  (type Weight (record (amount U64) (unit Scale)))
  (function grams (input (w Weight)) (output U64)
    (body (match w.unit (Scale.gram w.amount) (Scale.kilo (* w.amount 1000)))))
  (function ratio (input (a U64) (b U64)) (output U64)
    (body (/ a b))))`,
		"main.caps": `(module main
  (capsule "1.0")
  (import shared.units (as u))
  (function total (input (kilos U64)) (output U64)
    (body (+ (u.grams (record u.Weight (amount kilos) (unit u.Scale.kilo))) 1))
    (example (total 2) 2001))
  (function bad (input (a U64)) (output U64)
    (body (u.ratio a 0))))`,
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkg, err := (&load.Loader{}).Load(filepath.Join(dir, "main.caps"))
	if err != nil {
		t.Fatal(err)
	}
	if pkg.Result.HasErrors() {
		t.Fatalf("errors: %v", pkg.Result.Diagnostics)
	}
	in := interp.New(pkg.Result)
	if v, _, err := call(t, in, "total", "3"); outcome(v, err) != "3001" {
		t.Errorf("total 3 = %s", outcome(v, err))
	}
	// An imported function can be called directly.
	if v, _, err := in.Call("u.ratio", []value.Value{value.U64(9), value.U64(3)}); outcome(v, err) != "3" {
		t.Errorf("u.ratio = %s", outcome(v, err))
	}
	// An error inside the import names its file.
	_, _, err = call(t, in, "bad", "1")
	var re *interp.Error
	if !errors.As(err, &re) || re.Kind != interp.DivisionByZero || re.Function != "ratio" || filepath.Base(re.File) != "units.caps" {
		t.Errorf("error %+v", re)
	} else if len(re.Stack) != 2 || re.Stack[0].Caller != "bad" || re.Stack[0].File != "" {
		t.Errorf("stack %+v", re.Stack)
	}
	if ty, ok := in.TypeNamed("u.Weight"); !ok || ty.String() != "Weight" {
		t.Errorf("TypeNamed u.Weight: %v %v", ty, ok)
	}
}
