package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	r := runCaps(t, "", "explain", "E_UNKNOWN_STATE")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "E_UNKNOWN_STATE (error): ") || !strings.Contains(r.stdout, "More: https://capsulang.dev/docs/diagnostics#e_unknown_state\n") {
		t.Fatalf("%+v", r)
	}
	r = runCaps(t, "", "explain", "e_unknown_stat")
	if r.code != 2 || r.stderr != "caps: unknown diagnostic code \"e_unknown_stat\"; did you mean E_UNKNOWN_STATE? (caps explain --list lists them)\n" {
		t.Fatalf("%+v", r)
	}
	r = runCaps(t, "", "explain", "--list", "--json")
	var out struct {
		Codes []struct{ Code, Severity, URL string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Codes) < 30 {
		t.Fatalf("%v %+v", err, r)
	}
	for _, c := range out.Codes {
		want := map[byte]string{'E': "error", 'W': "warning", 'I': "info"}[c.Code[0]]
		if c.Severity != want {
			t.Errorf("%s has severity %s", c.Code, c.Severity)
		}
	}
	r = runCaps(t, "", "explain", "--json", "W_UNUSED_EVENT")
	var one struct{ Code, Example, Fixed string }
	if err := json.Unmarshal([]byte(r.stdout), &one); err != nil || one.Code != "W_UNUSED_EVENT" || one.Example == "" || one.Fixed == "" {
		t.Fatalf("%v %+v", err, r)
	}
}
