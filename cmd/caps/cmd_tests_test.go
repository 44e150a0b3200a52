package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const failingExamples = `(module fail
  (capsule "1.0")
  (type Level (enum economy express))
  (type Parcel (record (id U64) (level Level) (tags (List Text))))
  (function abs_i64 (input (x I64)) (output I64)
    (body (if (< x 0) (- 0 x) x))
    (example (abs_i64 -7) 8)
    (example (abs_i64 -7) 7))
  (function div (input (a U32) (b U32)) (output U32)
    (body (/ a b))
    (example (div 1 0) 0))
  (function upgrade (input (p Parcel)) (output Parcel)
    (body (record Parcel (id p.id) (level Level.economy) (tags (list "a" "c"))))
    (example (upgrade (record Parcel (id 1) (level Level.economy) (tags (list))))
      (record Parcel (id 1) (level Level.express) (tags (list "a" "b"))))))
`

const passingExamples = `(module pass
  (capsule "1.0")
  (function twice (input (n U32)) (output U32)
    (body (* n 2))
    (example (twice 2) 4)
    (example (twice 2147483648) 0)))
`

func TestTestCommand(t *testing.T) {
	runtimeFiles(t)
	for name, src := range map[string]string{"fail.caps": failingExamples, "dir/pass.caps": passingExamples} {
		if err := os.MkdirAll("dir", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "passing", args: []string{"test", "dir"},
			stdout: "PASS dir/pass.caps:5:5: (twice 2)\nPASS dir/pass.caps:6:5: (twice 2147483648)\n2 passed, 0 failed\n"},
		{name: "failing", args: []string{"test", "fail.caps"}, code: 1,
			stdout: `FAIL fail.caps:7:5: (abs_i64 -7)
    expected: 8
    got:      7
PASS fail.caps:8:5: (abs_i64 -7)
FAIL fail.caps:11:5: (div 1 0)
    expected: 0
    error:    division by zero: 1 / 0 (division-by-zero, at fail.caps:10:11)
FAIL fail.caps:14:5: (upgrade (record Parcel (id 1) (level Level.economy) (tags (list))))
    expected: (record Parcel (id 1) (level Level.express) (tags (list "a" "b")))
    got:      (record Parcel (id 1) (level Level.economy) (tags (list "a" "c")))
    differs:  level: expected Level.express, got Level.economy
              tags[1]: expected "b", got "c"
1 passed, 3 failed
`},
		{name: "file with errors", args: []string{"test", "broken.caps", "dir/pass.caps"}, code: 1,
			stdout: "FAIL broken.caps: the file has errors; its examples were not run\nPASS dir/pass.caps:5:5: (twice 2)\nPASS dir/pass.caps:6:5: (twice 2147483648)\n2 passed, 0 failed; 1 file with errors not run\n",
			stderr: "broken.caps:3:35: error E_TYPE_MISMATCH: (+ ...) works on integers, not Text\n"},
		{name: "no examples", args: []string{"test", "calc.caps"}, stdout: "PASS calc.caps:9:5: (abs_i64 -7)\n1 passed, 0 failed\n"},
		{name: "missing scenario", args: []string{"test", "--scenario", "s.json", "dir"}, code: 2,
			stdout: "PASS dir/pass.caps:5:5: (twice 2)\nPASS dir/pass.caps:6:5: (twice 2147483648)\n2 passed, 0 failed\n",
			stderr: "caps: s.json: no such file\n"},
		{name: "no files", args: []string{"test"}, code: 2,
			stderr: "caps test: expected at least one FILE or DIR\nusage: caps test [--json] [--max-steps N] [--max-depth N] [--scenario S.json]... FILE|DIR...\nRun 'caps help test' for details.\n"},
		{name: "missing file", args: []string{"test", "gone.caps"}, code: 2,
			stdout: "0 passed, 0 failed\n", stderr: "caps: gone.caps: no such file\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCaps(t, "", tt.args...)
			want := runResult{tt.code, tt.stdout, tt.stderr}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("caps %s: (-want +got)\n%s", strings.Join(tt.args, " "), diff)
			}
		})
	}
}

func TestTestCommandJSON(t *testing.T) {
	runtimeFiles(t)
	if err := os.WriteFile("fail.caps", []byte(failingExamples), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCaps(t, "", "test", "--json", "fail.caps", "broken.caps")
	if got.code != 1 || got.stderr != "" {
		t.Fatalf("%+v", got)
	}
	type exampleOut struct {
		Function string   `json:"function"`
		Args     []string `json:"args"`
		Expected *string  `json:"expected"`
		Got      *string  `json:"got"`
		Passed   bool     `json:"passed"`
		Error    *string  `json:"error"`
		Range    struct {
			Start struct{ Line, Character int }
		} `json:"range"`
	}
	var out struct {
		OK    bool `json:"ok"`
		Files []struct {
			Path        string            `json:"path"`
			Diagnostics []json.RawMessage `json:"diagnostics"`
			Examples    []exampleOut      `json:"examples"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, got.stdout)
	}
	if out.OK || len(out.Files) != 2 {
		t.Fatalf("%+v", out)
	}
	f := out.Files[0]
	if f.Path != "fail.caps" || len(f.Diagnostics) != 0 || len(f.Examples) != 4 {
		t.Fatalf("%+v", f)
	}
	s := func(x string) *string { return &x }
	first := exampleOut{Function: "abs_i64", Args: []string{"-7"}, Expected: s("8"), Got: s("7")}
	first.Range.Start.Line, first.Range.Start.Character = 6, 4
	if diff := cmp.Diff(first, f.Examples[0]); diff != "" {
		t.Errorf("first example (-want +got)\n%s", diff)
	}
	if e := f.Examples[2]; e.Passed || e.Got != nil || e.Error == nil || *e.Error != "division by zero: 1 / 0" || *e.Expected != "0" {
		t.Errorf("div example %+v", e)
	}
	if !f.Examples[1].Passed {
		t.Errorf("second example %+v", f.Examples[1])
	}
	if b := out.Files[1]; b.Path != "broken.caps" || len(b.Diagnostics) != 1 || b.Examples == nil || len(b.Examples) != 0 {
		t.Errorf("broken file %+v", b)
	}
}

// TestShippedExamplesPass runs caps test on examples/: every example the
// repository ships must pass (the negative examples are tested apart).
func TestShippedExamplesPass(t *testing.T) {
	got := runCaps(t, "", append([]string{"test"}, shippedModules(t, "../..")...)...)
	if got.code != 0 || got.stderr != "" || !strings.HasSuffix(got.stdout, " passed, 0 failed\n") {
		t.Errorf("caps test examples: code %d\n%s\n%s", got.code, got.stdout, got.stderr)
	}
}

// TestCheckRunsExamples: caps check reports failing examples through the
// interpreter.
func TestCheckRunsExamples(t *testing.T) {
	runtimeFiles(t)
	if err := os.WriteFile("fail.caps", []byte(failingExamples), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCaps(t, "", "check", "fail.caps")
	if got.code != 1 || !strings.Contains(got.stderr, "fail.caps:7:27: error E_EXAMPLE_FAILED: example (abs_i64 -7) expected 8, got 7\n") ||
		!strings.Contains(got.stderr, "fail.caps:10:11: note: division-by-zero here\n") {
		t.Errorf("%+v", got)
	}
	if got := runCaps(t, "", "check", "calc.caps"); got.code != 0 || got.stderr != "" {
		t.Errorf("clean file: %+v", got)
	}
}
