package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runtimeFiles writes the test modules of the runtime commands into a
// fresh working directory.
func runtimeFiles(t *testing.T) {
	t.Helper()
	t.Chdir(t.TempDir())
	files := map[string]string{
		"calc.caps": `(module calc
  (capsule "1.0")
  (store db (backend memory) (authority runtime-state) (collection log))
  (type Level (enum low high))
  (type Claim (record (id U64) (amount U64) (level Level)))
  ;; Absolute value.
  (function abs_i64 (input (x I64)) (output I64)
    (body (if (< x 0) (- 0 x) x))
    (example (abs_i64 -7) 7))
  (function div (input (a U32) (b U32)) (output U32)
    (body (/ a b)))
  (function safe_div (input (a U32) (b U32)) (output U32)
    (requires (!= b 0))
    (body (/ a b)))
  (function greet (input (name Text)) (output Text)
    (body (concat "hello " name)))
  (function bump (input (c Claim)) (output Claim)
    (body (record Claim (id c.id) (amount (+ c.amount 1)) (level Level.high))))
  (function maybe (input (o (Option U64))) (output (Result U64 Text))
    (body (match o ((some x) (ok x)) (none (err "none")))))
  (function forever (input (n U64)) (output U64)
    (body (forever (+ n 1))))
  (function outer (input (n U32)) (output U32)
    (body (+ 1 (div n 0))))
  (function log_twice (input (n U64)) (output U64)
    (effects (db.write db.log))
    (body (do (db.write db.log n) (db.write db.log (+ n 1) "note") n)))
  (function nothing (output Bool) (body true)))
`,
		"broken.caps": `(module broken
  (capsule "1.0")
  (function f (output U32) (body (+ 1 "x"))))
`,
	}
	for name, src := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCall(t *testing.T) {
	runtimeFiles(t)
	const usage = "usage: caps call [--json] [--engine interp|wasm] [--max-steps N] [--max-depth N] FILE FUNC [NAME=VALUE...]\nRun 'caps help call' for details.\n"
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{name: "abs", args: []string{"call", "calc.caps", "abs_i64", "x=-7"}, stdout: "7\n"},
		{name: "flags after", args: []string{"call", "calc.caps", "abs_i64", "x=-7", "--json"}, stdout: `{"value":"7","effects":[]}` + "\n"},
		{name: "no inputs", args: []string{"call", "calc.caps", "nothing"}, stdout: "true\n"},
		{name: "bare text", args: []string{"call", "calc.caps", "greet", "name=Ada Lovelace"}, stdout: "\"hello Ada Lovelace\"\n"},
		{name: "quoted text", args: []string{"call", "calc.caps", "greet", `name="a \"b\""`}, stdout: "\"hello a \\\"b\\\"\"\n"},
		{name: "record", args: []string{"call", "calc.caps", "bump", "c=(record Claim (id 1) (amount 9) (level low))"},
			stdout: "(record Claim (id 1) (amount 10) (level Level.high))\n"},
		{name: "record as JSON", args: []string{"call", "--json", "calc.caps", "bump", `c={"id": 1, "amount": "9", "level": "low"}`},
			stdout: `{"value":{"id":"1","amount":"10","level":"high"},"effects":[]}` + "\n"},
		{name: "option", args: []string{"call", "calc.caps", "maybe", "o=(some 5)"}, stdout: "(ok 5)\n"},
		{name: "none", args: []string{"call", "calc.caps", "maybe", "o=none"}, stdout: "(err \"none\")\n"},
		{name: "effects", args: []string{"call", "calc.caps", "log_twice", "n=4"},
			stdout: "4\n; effect intents, in order:\n(db.write db.log 4)\n(db.write db.log 5 \"note\")\n"},
		{name: "effects json", args: []string{"call", "--json", "calc.caps", "log_twice", "n=4"},
			stdout: `{"value":"4","effects":[{"effect":"db.write","target":"db.log","args":["4"]},{"effect":"db.write","target":"db.log","args":["5","note"]}]}` + "\n"},
		{name: "stdin", args: []string{"call", "-", "f", "x=3"}, stdin: "(module s (capsule \"1\") (function f (input (x U32)) (output U32) (body (* x x))))",
			stdout: "9\n"},

		// runtime errors: exit 1, message on stderr with the place
		{name: "division by zero", args: []string{"call", "calc.caps", "div", "a=1", "b=0"}, code: 1,
			stderr: "caps: calc.caps:11:11: runtime error division-by-zero: division by zero: 1 / 0\n"},
		{name: "requires", args: []string{"call", "calc.caps", "safe_div", "a=1", "b=0"}, code: 1,
			stderr: "caps: calc.caps:13:15: runtime error requires-failed: safe_div: requires (!= b 0) does not hold for a = 1, b = 0\n"},
		{name: "nested error shows the call", args: []string{"call", "calc.caps", "outer", "n=1"}, code: 1,
			stderr: "caps: calc.caps:11:11: runtime error division-by-zero: division by zero: 1 / 0\ncalc.caps:24:16: note: in the call of div from outer\n"},
		{name: "depth budget", args: []string{"call", "--max-depth", "50", "calc.caps", "forever", "n=0"}, code: 1,
			stderr: "caps: calc.caps:22:11: runtime error depth-budget: recursion deeper than 50 calls in forever; is there a missing base case?\n" +
				strings.Repeat("calc.caps:22:11: note: in the call of forever from forever\n", 16) + "calc.caps: note: ... and 34 more calls\n"},
		{name: "step budget", args: []string{"call", "--max-steps", "100", "calc.caps", "forever", "n=0"}, code: 1},
		{name: "runtime error json", args: []string{"call", "--json", "calc.caps", "div", "a=1", "b=0"}, code: 1,
			stdout: `{"value":null,"effects":[],"error":{"kind":"division-by-zero","message":"division by zero: 1 / 0","path":"calc.caps","range":{"start":{"line":10,"character":10},"end":{"line":10,"character":17}}}}` + "\n",
			stderr: "caps: calc.caps:11:11: runtime error division-by-zero: division by zero: 1 / 0\n"},

		// usage problems: exit 2
		{name: "unknown function", args: []string{"call", "calc.caps", "abs_i46", "x=1"}, code: 2,
			stderr: "caps: calc.caps has no function \"abs_i46\"; did you mean \"abs_i64\"?\n"},
		{name: "unknown function no suggestion", args: []string{"call", "calc.caps", "zzzzzzzz"}, code: 2,
			stderr: "caps: calc.caps has no function \"zzzzzzzz\"; its functions are abs_i64, div, safe_div, greet, bump, maybe, forever, outer, log_twice, nothing\n"},
		{name: "unknown input", args: []string{"call", "calc.caps", "div", "a=1", "zz=2"}, code: 2,
			stderr: "caps: div has no input \"zz\"; its inputs are a, b\n"},
		{name: "misspelt input", args: []string{"call", "calc.caps", "greet", "nmae=x"}, code: 2,
			stderr: "caps: greet has no input \"nmae\"; did you mean \"name\"?\n"},
		{name: "missing input", args: []string{"call", "calc.caps", "div", "a=1"}, code: 2,
			stderr: "caps: div needs input b (U32); pass NAME=VALUE for each\n"},
		{name: "repeated input", args: []string{"call", "calc.caps", "div", "a=1", "a=2", "b=1"}, code: 2,
			stderr: "caps: input a is given twice\n"},
		{name: "not NAME=VALUE", args: []string{"call", "calc.caps", "div", "1", "2"}, code: 2,
			stderr: "caps: argument \"1\": write arguments as NAME=VALUE, e.g. a=...\n"},
		{name: "bad value", args: []string{"call", "calc.caps", "div", "a=-1", "b=2"}, code: 2,
			stderr: "caps: input a (U32): -1 does not fit in U32 (0 to 4294967295)\n"},
		{name: "bad enum", args: []string{"call", "calc.caps", "bump", "c=(record Claim (id 1) (amount 9) (level mid))"}, code: 2,
			stderr: "caps: input c (Claim): enum Level has no member `mid` (members: low, high)\n"},
		{name: "missing FUNC", args: []string{"call", "calc.caps"}, code: 2,
			stderr: "caps call: expected FILE and FUNC, got 1 arguments\n" + usage},
		{name: "missing file", args: []string{"call", "nope.caps", "f"}, code: 2,
			stderr: "caps: nope.caps: no such file\n"},

		// a file with errors: its diagnostics, exit 1
		{name: "file with errors", args: []string{"call", "broken.caps", "f"}, code: 1,
			stderr: "broken.caps:3:35: error E_TYPE_MISMATCH: (+ ...) works on integers, not Text\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCaps(t, tt.stdin, tt.args...)
			if tt.name == "step budget" {
				if got.code != 1 || !strings.Contains(got.stderr, "runtime error step-budget: evaluation took more than 100 steps (in forever)") {
					t.Errorf("got %+v", got)
				}
				return
			}
			want := runResult{tt.code, tt.stdout, tt.stderr}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("caps %s: (-want +got)\n%s", strings.Join(tt.args, " "), diff)
			}
		})
	}
}

func TestCallShippedExample(t *testing.T) {
	// The example in the README and the help text.
	got := runCaps(t, "", "call", "../../examples/abs.caps", "abs_i64", "x=-7")
	if got.code != 0 || got.stdout != "7\n" || got.stderr != "" {
		t.Errorf("%+v", got)
	}
	got = runCaps(t, "", "call", "--json", "../../examples/insurance_claim.caps", "archive_claim", "claim_id=42")
	var out struct {
		Value   string
		Effects []struct {
			Effect, Target string
			Args           []string
		}
	}
	if err := json.Unmarshal([]byte(got.stdout), &out); err != nil || got.code != 0 {
		t.Fatalf("%v: %+v", err, got)
	}
	if out.Value != "42" || len(out.Effects) != 1 || out.Effects[0].Effect != "db.write" || out.Effects[0].Target != "claims_db.archive" || out.Effects[0].Args[0] != "42" {
		t.Errorf("%+v", out)
	}
}
