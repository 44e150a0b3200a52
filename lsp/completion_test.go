package lsp_test

import (
	"sort"
	"testing"
)

// labels returns the sorted completion labels at a position of the test
// document. (The completion cases of TestCompletion are marker tests now:
// testdata/markers/completion.caps.)
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
