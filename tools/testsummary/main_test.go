package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const events = `{"Action":"start","Package":"p/a"}
{"Action":"run","Package":"p/a","Test":"TestOK"}
{"Action":"output","Package":"p/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"p/a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"p/a","Test":"TestOK"}
{"Action":"run","Package":"p/a","Test":"TestTool"}
{"Action":"output","Package":"p/a","Test":"TestTool","Output":"=== RUN   TestTool\n"}
{"Action":"output","Package":"p/a","Test":"TestTool","Output":"    a_test.go:12: skipping: needs wat2wasm (Debian package wabt)\n"}
{"Action":"output","Package":"p/a","Test":"TestTool","Output":"--- SKIP: TestTool (0.00s)\n"}
{"Action":"skip","Package":"p/a","Test":"TestTool"}
{"Action":"output","Package":"p/a","Output":"PASS\n"}
{"Action":"output","Package":"p/a","Output":"ok  \tp/a\t0.01s\n"}
{"Action":"pass","Package":"p/a"}
{"Action":"run","Package":"p/b","Test":"TestBad"}
{"Action":"output","Package":"p/b","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"p/b","Test":"TestBad","Output":"    b_test.go:3: got 1, want 2\n"}
{"Action":"output","Package":"p/b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"p/b","Test":"TestBad"}
{"Action":"output","Package":"p/b","Output":"FAIL\n"}
{"Action":"output","Package":"p/b","Output":"FAIL\tp/b\t0.01s\n"}
{"Action":"fail","Package":"p/b"}
{"Action":"output","Package":"p/c","Output":"?   \tp/c\t[no test files]\n"}
{"Action":"skip","Package":"p/c"}
`

func TestSummary(t *testing.T) {
	for _, tt := range []struct {
		name string
		ci   bool
		code int
		tail string
	}{
		{"local", false, 1, ""},
		{"ci", true, 1, "CI=true: 1 test(s) and 1 step(s) were skipped; in CI everything must run (install what they need in .ci/run)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := summary{steps: []step{{"go vet", "ran", ""}, {"grammar", "skipped", "tree-sitter CLI not found"}}}
			var out strings.Builder
			if err := s.read(strings.NewReader(events), &out); err != nil {
				t.Fatal(err)
			}
			code := s.print(&out, tt.ci)
			want := "ok  \tp/a\t0.01s\n" +
				"=== RUN   TestBad\n    b_test.go:3: got 1, want 2\n--- FAIL: TestBad (0.00s)\n" +
				"FAIL\tp/b\t0.01s\n" +
				"?   \tp/c\t[no test files]\n" +
				"\n===== make test: summary =====\n" +
				"go vet         ran\n" +
				"grammar        skipped: tree-sitter CLI not found\n" +
				"go test        failed: 3 packages (1 failed, 1 without tests), 1 tests passed, 1 failed, 1 skipped\n" +
				"skipped tests:\n" +
				"  p/a TestTool: skipping: needs wat2wasm (Debian package wabt)\n" +
				tt.tail +
				"1 passed, 1 failed, 2 skipped\n"
			if diff := cmp.Diff(want, out.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
		})
	}
	// Nothing failed and nothing skipped: exit 0, also in CI.
	s := summary{steps: []step{{"go vet", "ran", ""}}}
	var out strings.Builder
	s.read(strings.NewReader(strings.Split(events, `{"Action":"run","Package":"p/a","Test":"TestTool"}`)[0]), &out)
	if code := s.print(&out, true); code != 0 || !strings.HasSuffix(out.String(), "\n1 passed, 0 failed, 0 skipped\n") {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
}
