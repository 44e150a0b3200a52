package lsp_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const complSrc = `(module demo.c
  (capsule "1")
  (store ops (backend memory) (collection items audits))
  (machine M
    (context (count U32) (note Text))
    (event Add (amount U32) (who Text))
    (event Stop)
    (initial idle)
    (state idle
      (on Add (target idle) (assign (count (+ count event.amount)))
        (effects (db.write ops.items)))
      (on Stop (target done)))
    (state done (type final))))
`

func labels(t *testing.T, c interface {
	Call(string, any, any) error
}, line, char int) []string {
	t.Helper()
	var res struct {
		Items []struct {
			Label string `json:"label"`
		} `json:"items"`
	}
	if err := c.Call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos{line, char}}, &res); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range res.Items {
		out = append(out, it.Label)
	}
	sort.Strings(out)
	return out
}

func TestCompletion(t *testing.T) {
	c := start(t, nil)
	open(t, c, complSrc, 1)
	lines := strings.Split(complSrc, "\n")
	col := func(line int, after string) int { return strings.Index(lines[line], after) + len(after) }
	tests := []struct {
		name       string
		line, char int
		want       []string
	}{
		{"states after target", 9, col(9, "(target "), []string{"done", "idle"}},
		{"states after target with prefix", 9, col(9, "(target i"), []string{"idle"}},
		{"events after on", 11, col(11, "(on "), []string{"Add", "Stop"}},
		{"event fields", 9, col(9, "event."), []string{"event.amount", "event.who"}},
		{"effect targets", 10, col(10, "(db.write "), []string{"ops.audits", "ops.items"}},
		{"context fields in assign", 9, col(9, "(assign ("), []string{"count", "note"}},
		{"types in a field", 4, col(4, "(count "), nil},
	}
	for _, tt := range tests {
		got := labels(t, c, tt.line, tt.char)
		if tt.want == nil {
			if !contains(got, "U32") || !contains(got, "Option") {
				t.Errorf("%s: %v", tt.name, got)
			}
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// effect names inside (effects ( ...
	got := labels(t, c, 10, col(10, "(effects (db."))
	if !contains(got, "db.write") || !contains(got, "db.project") || contains(got, "mcp.call") {
		t.Errorf("effects: %v", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
