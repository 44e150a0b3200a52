package react_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/codegen/internal/testutil"
	"github.com/capsulang/caps/codegen/protocol"
	"github.com/capsulang/caps/codegen/react"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/react")

// harness returns the npm test folder with its packages installed: under
// CI=true a missing install fails, elsewhere the test is skipped.
func harness(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(testutil.Root(), "codegen", "react", "testdata", "harness")
	for _, p := range []string{"typescript/bin/tsc", "react/package.json", "react-dom/server.js", "@types/react/package.json"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(p))); err != nil {
			msg := "needs the npm packages of codegen/react/testdata/harness: run (cd codegen/react/testdata/harness && npm ci)"
			if testutil.InCI() {
				t.Fatalf("CI=true and this test %s", msg)
			}
			t.Skip("skipping: this test " + msg)
		}
	}
	testutil.Tool(t, "NODE", "nodejs", "node")
	return dir
}

func run(t *testing.T, dir, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// renderData is the data each surface is rendered with: type-checked
// through protocol.Envelope like caps a2ui-envelope --data.
var renderData = map[string]map[string]string{
	"30_protocol_native_a2ui": {"repo_review_ui": `{"repo":"advatar/Capsulang","issues":[{"title":"Flaky replay test","labels":["ci"]},` +
		`{"title":"<b>Q&A</b> it's \"quoted\"\ttabbed\u2028","10":1e21,"2":-0.0000001,"b":[1.5,123456789012345680000,1e-7,0],"a":{"1":null}}],"approved":false}`},
	"protocol_surface": {"article_review": `{"article_id":88,"locale":"pt-BR","draft":"Olá <mundo>","revisions":1,"approved":false}`},
	"release_approval": {
		"migration_signoff": `{"migration_id":"4021","target_db":"orders","risk_score":12,"lock_seconds":3,"dry_run_ok":true,"dba_approved":true,"owner_approved":false,"approvals":1,"applied":false,"was_applied":false,"state":"awaiting_signoff"}`,
	},
}

// badTS are TypeScript files that misuse the bindings of the spec's
// example (in its bundle's src/): tsc --strict must reject each with the
// error given. They show that the bindings are real types.
var badTS = []struct{ name, src, want string }{
	{"bad_data.ts", `import type { RepoReviewUiData } from "./repo_review_ui.js";
export const d: RepoReviewUiData = { repo: 7, issues: null, approved: false };
`, "error TS2322: Type 'number' is not assignable to type 'string'."},
	{"bad_action.ts", `import { repoReviewUiActions } from "./repo_review_ui.js";
export const a = repoReviewUiActions.approve_issue_creation({ issue_title: "t" });
`, "error TS2345"},
	{"bad_missing.ts", `import type { RepoReviewUiData } from "./repo_review_ui.js";
export const d: RepoReviewUiData = { repo: "r", issues: null };
`, "error TS2741: Property 'approved' is missing"},
}

// TestReactBundles compiles every example with surfaces into one folder,
// checks the bundles with tsc --strict --noEmit (with badTS, which must
// fail exactly as expected, and nothing else), emits them to JavaScript,
// renders every surface with react-dom/server from its data, and compares
// the bundles' files and the renderings with testdata/react. tsc runs
// twice in all, to keep the test fast.
func TestReactBundles(t *testing.T) {
	h := harness(t)
	tsc := filepath.Join(h, "node_modules", "typescript", "bin", "tsc")
	root := t.TempDir()
	if err := os.Symlink(filepath.Join(h, "node_modules"), filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}
	var bases []string
	pkgs := map[string]*load.Package{}
	for _, path := range testutil.Examples(t) {
		pkg := testutil.Load(t, path)
		if len(react.Surfaces(pkg.Result)) == 0 {
			continue
		}
		base := strings.TrimSuffix(filepath.Base(path), ".caps")
		bases, pkgs[base] = append(bases, base), pkg
		files, err := react.Generate(pkg.Result, pkg.Hash)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			golden(t, filepath.Join(base, f.Path), f.Data)
			writeFile(t, filepath.Join(root, base, filepath.FromSlash(f.Path)), f.Data)
		}
	}
	if len(bases) == 0 {
		t.Fatal("no example declares a surface")
	}
	const spec = "30_protocol_native_a2ui"
	if pkgs[spec] == nil {
		t.Fatalf("examples/%s.caps is missing", spec)
	}
	// Type-check every bundle as its own tsconfig.json says, and badTS.
	writeFile(t, filepath.Join(root, "tsconfig.json"), []byte(`{"extends": "./`+spec+`/tsconfig.json", "include": ["*/src"]}`))
	for _, b := range badTS {
		writeFile(t, filepath.Join(root, spec, "src", b.name), []byte(b.src))
	}
	out, err := run(t, root, "node", tsc, "--strict", "--noEmit", "-p", ".")
	if err == nil {
		t.Fatalf("tsc --strict --noEmit accepted the bad files:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		bad := false
		for _, b := range badTS {
			bad = bad || strings.HasPrefix(line, spec+"/src/"+b.name+"(")
		}
		if !bad && !strings.HasPrefix(line, " ") {
			t.Errorf("tsc --strict --noEmit: %s", line)
		}
	}
	for _, b := range badTS {
		if !strings.Contains(out, spec+"/src/"+b.name+"(") || !strings.Contains(out, b.want) {
			t.Errorf("tsc --strict does not reject %s with %q:\n%s", b.name, b.want, out)
		}
		if err := os.Remove(filepath.Join(root, spec, "src", b.name)); err != nil {
			t.Fatal(err)
		}
	}
	// Emit JavaScript and render.
	if out, err := run(t, root, "node", tsc, "-p", ".", "--noEmit", "false", "--outDir", "out"); err != nil {
		t.Fatalf("tsc (emit): %v\n%s", err, out)
	}
	writeFile(t, filepath.Join(root, "out", "package.json"), []byte(`{"type": "module"}`))
	for _, base := range bases {
		t.Run(base, func(t *testing.T) {
			pkg := pkgs[base]
			data := map[string]json.RawMessage{}
			for surface, d := range renderData[base] {
				msgs, err := protocol.Envelope(pkg.Result, surface, "data", []byte(d))
				if err != nil {
					t.Fatalf("render data of %s: %v", surface, err)
				}
				data[surface] = msgs[0].UpdateDataModel.Value
			}
			b, _ := json.Marshal(data)
			dataFile := filepath.Join(root, base+".data.json")
			writeFile(t, dataFile, b)
			out, err := run(t, root, "node", filepath.Join(h, "run.mjs"), filepath.Join("out", base, "src"), filepath.Join(base, "manifest.json"), dataFile)
			if err != nil {
				t.Fatalf("rendering: %v\n%s", err, out)
			}
			golden(t, base+".render.json", []byte(out))
			var r struct {
				Surfaces []struct {
					Surface string `json:"surface"`
					HTML    string `json:"html"`
				} `json:"surfaces"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if len(r.Surfaces) != len(react.Surfaces(pkg.Result)) {
				t.Errorf("rendered %d surfaces, want %d", len(r.Surfaces), len(react.Surfaces(pkg.Result)))
			}
			for _, s := range r.Surfaces {
				if !strings.HasPrefix(s.HTML, `<section data-a2ui-surface="`+s.Surface+`"`) {
					t.Errorf("%s: %s", s.Surface, s.HTML)
				}
				// The Go rendering the language server previews with is
				// React's, byte for byte.
				var d []byte
				if v, ok := data[s.Surface]; ok {
					d = v
				}
				got, err := react.StaticMarkup(pkg.Result, s.Surface, d)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(s.HTML, got); diff != "" {
					t.Errorf("%s: StaticMarkup differs from react-dom/server (-react +StaticMarkup):\n%s", s.Surface, diff)
				}
			}
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReactNoSurface: a module without surfaces has nothing to compile.
func TestReactNoSurface(t *testing.T) {
	pkg := testutil.Load(t, filepath.Join(testutil.Root(), "examples", "abs.caps"))
	if _, err := react.Generate(pkg.Result, pkg.Hash); err == nil || err.Error() != "the module declares no surface" {
		t.Errorf("err = %v", err)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(testutil.Root(), "testdata", "react", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./codegen/react -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); run go test ./codegen/react -update and review:\n%s", name, diff)
	}
}
