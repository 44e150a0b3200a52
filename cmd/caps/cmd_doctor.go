package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/internal/toolpath"
	"github.com/capsulang/caps/syntax/ast"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "doctor",
		Output:   func() cli.Schema { return cli.SchemaOf(doctorJSON{}) },
		Effects:  cli.Effects{Reads: []string{"PATH and the tools' environment variables", "CAPS_PATH", "the workspace .caps folder"}, Writes: nil, Runs: []string{"the optional tools, for their versions"}},
		Example:  cli.Example{Line: "caps doctor --json"},
		Negative: cli.Example{Line: "caps doctor --json extra", Exit: 2},
		Args:     "[--json]",
		Short:    "check the toolchain's health: parser, optional tools, caches, versions",
		Long: `Doctor checks that this caps works and which optional tools it can use. It
parses and checks a small probe module (the parser and its tree-sitter
ABI, the checker and its effect catalog), then looks on PATH for the tools
some commands and tests use: wabt (wat2wasm, wasm-validate), the RISC-V
binutils and qemu-riscv64, node, npm and the xstate package, the
tree-sitter CLI, Neovim and a C compiler for the editor plugin, docker
compose for capsule bundles, and z3. It reports each tool's version, the
import roots of CAPS_PATH and the workspace folder .caps.

Every problem comes with a one-line fix. A missing optional tool is not a
failure: the commands that need it say so. Doctor exits with 1 when a
required part is broken (the parser or checker probe fails, a CAPS_PATH
root does not exist, a found tool is too old) and 0 otherwise.

With --json it prints {"ok", "caps": {"version", "go", "os", "arch",
"tree_sitter_abi"}, "checks": [{"name", "kind", "status", "required",
"path", "version", "purpose", "fix"}], "problems"}; status is ok, missing,
problem or info.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 0 {
					return c.UsageErrorf("expected no arguments")
				}
				return runDoctor(c, *jsonOut)
			}
		},
	})
}

// doctorCheck is one line of the doctor's report.
type doctorCheck struct {
	Name string `json:"name"`
	// Kind is core, tool, editor or cache.
	Kind     string `json:"kind"`
	Status   string `json:"status"` // ok, missing, problem, info
	Required bool   `json:"required"`
	Path     string `json:"path,omitempty"`
	Version  string `json:"version,omitempty"`
	Purpose  string `json:"purpose"`
	Fix      string `json:"fix,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

type doctorJSON struct {
	OK       bool          `json:"ok"`
	Caps     doctorCaps    `json:"caps"`
	Checks   []doctorCheck `json:"checks"`
	Problems int           `json:"problems"`
}

type doctorCaps struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
	ABI     int    `json:"tree_sitter_abi"`
}

// doctorTool describes an optional external tool.
type doctorTool struct {
	name    string
	env     string   // overrides the lookup, as the tests' tools do
	bins    []string // tried in order
	verArgs []string // prints the version
	kind    string
	purpose string
	fix     string
	// min is the lowest version that works ("" for any); verRE extracts
	// the version from the output.
	min string
}

var doctorTools = []doctorTool{
	{name: "wat2wasm", env: "WAT2WASM", bins: []string{"wat2wasm"}, verArgs: []string{"--version"}, kind: "tool",
		purpose: "assembles WAT text; the tests check it gives the bytes of caps compile --target wasm", fix: "apt-get install wabt (or set WAT2WASM)"},
	{name: "wasm-validate", env: "WASM_VALIDATE", bins: []string{"wasm-validate"}, verArgs: []string{"--version"}, kind: "tool",
		purpose: "validates the .wasm files caps compile writes", fix: "apt-get install wabt (or set WASM_VALIDATE)"},
	{name: "riscv64-as", env: "RISCV_AS", bins: []string{"riscv64-linux-gnu-as", "riscv64-unknown-elf-as"}, verArgs: []string{"--version"}, kind: "tool",
		purpose: "assembles the RV64 output of caps emit-riscv", fix: "apt-get install binutils-riscv64-linux-gnu (or set RISCV_AS)"},
	{name: "riscv64-ld", env: "RISCV_LD", bins: []string{"riscv64-linux-gnu-ld", "riscv64-unknown-elf-ld"}, verArgs: []string{"--version"}, kind: "tool",
		purpose: "links RV64 programs for the differential tests", fix: "apt-get install binutils-riscv64-linux-gnu (or set RISCV_LD)"},
	{name: "qemu-riscv64", env: "QEMU_RISCV64", bins: []string{"qemu-riscv64"}, verArgs: []string{"--version"}, kind: "tool",
		purpose: "runs RV64 code beside the interpreter (go test ./codegen/riscv64)", fix: "apt-get install qemu-user (or set QEMU_RISCV64)"},
	{name: "node", env: "NODE", bins: []string{"node", "nodejs"}, verArgs: []string{"--version"}, kind: "tool", min: "20",
		purpose: "runs the XState export (caps compile --target xstate) and the VS Code extension's tests", fix: "install Node.js 20 or later (apt-get install nodejs, or nodejs.org)"},
	{name: "npm", env: "NPM", bins: []string{"npm"}, verArgs: []string{"--version"}, kind: "tool",
		purpose: "installs the xstate test harness and the VS Code extension's dependencies", fix: "apt-get install npm"},
	{name: "tree-sitter", env: "TREE_SITTER", bins: []string{"tree-sitter"}, verArgs: []string{"--version"}, kind: "editor", min: "0.22",
		purpose: "regenerates and tests the grammar in tree-sitter-capsulang (ABI 14 needs CLI 0.22.x)", fix: "install tree-sitter CLI 0.22.x (npm install -g tree-sitter-cli@0.22) or set TREE_SITTER"},
	{name: "nvim", env: "NVIM", bins: []string{"nvim"}, verArgs: []string{"--version"}, kind: "editor", min: "0.10",
		purpose: "the Neovim plugin in editors/nvim needs Neovim 0.10+", fix: "install Neovim 0.10 or later (neovim.io) or set NVIM"},
	{name: "cc", env: "CC", bins: []string{"cc", "gcc", "clang"}, verArgs: []string{"--version"}, kind: "editor",
		purpose: "the Neovim plugin compiles tree-sitter-capsulang/src/parser.c with it", fix: "apt-get install gcc (or set CC)"},
	{name: "docker-compose", env: "DOCKER_COMPOSE", bins: []string{"docker-compose", "docker"}, kind: "tool",
		purpose: "runs the container bundles that capsule compilation writes", fix: "install Docker with the compose plugin (docs.docker.com/compose/install)"},
	{name: "z3", env: "Z3", bins: []string{"z3"}, verArgs: []string{"--version"}, kind: "tool",
		purpose: "the SMT solver of caps verify-report, refinement-report and conformance (proof obligations)", fix: "apt-get install z3 (optional)"},
}

var versionRE = regexp.MustCompile(`\d+\.\d+(\.\d+)?`)

// runTool runs a tool with args for at most a few seconds and returns the
// first non-empty line of its output.
func runTool(path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	for _, line := range strings.Split(out.String(), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 120 {
				line = line[:120]
			}
			return line, err
		}
	}
	return "", err
}

// versionLess compares dotted versions numerically: is v below min?
func versionLess(v, min string) bool {
	a, b := strings.Split(v, "."), strings.Split(min, ".")
	for i := range b {
		if i >= len(a) {
			return true
		}
		x, _ := strconv.Atoi(a[i])
		y, _ := strconv.Atoi(b[i])
		if x != y {
			return x < y
		}
	}
	return false
}

func lookTool(t doctorTool) string { return toolpath.Look(t.env, t.bins...) }

func checkTool(t doctorTool) doctorCheck {
	ch := doctorCheck{Name: t.name, Kind: t.kind, Purpose: t.purpose}
	path := lookTool(t)
	if path == "" {
		ch.Status, ch.Fix = "missing", t.fix
		return ch
	}
	ch.Path, ch.Status = path, "ok"
	args := t.verArgs
	if t.name == "docker-compose" {
		// The compose plugin answers "docker compose version"; the old
		// standalone binary "docker-compose version".
		args = []string{"version"}
		if filepath.Base(path) == "docker" {
			args = []string{"compose", "version"}
		}
	}
	line, err := runTool(path, args...)
	if err != nil && t.name == "docker-compose" {
		ch.Status, ch.Fix, ch.Detail = "missing", t.fix, "docker is installed but its compose plugin is not"
		return ch
	}
	ch.Version = versionRE.FindString(line)
	if ch.Version == "" && line != "" {
		ch.Version = line
	}
	if err != nil && ch.Version == "" {
		ch.Status, ch.Fix, ch.Detail = "problem", t.fix, fmt.Sprintf("%s %s failed: %v", path, strings.Join(args, " "), err)
		return ch
	}
	if t.min != "" && versionRE.MatchString(ch.Version) && versionLess(ch.Version, t.min) {
		ch.Status, ch.Fix = "problem", t.fix
		ch.Detail = fmt.Sprintf("version %s is older than %s", ch.Version, t.min)
		return ch
	}
	return ch
}

// doctorProbe is the module the doctor parses and checks.
const doctorProbe = `(module doctor.probe
  (capsule "1.0")
  (store s (backend memory) (authority runtime-state) (collection log))
  (function inc (input (x U32)) (output U32) (body (+ x 1)) (example (inc 1) 2))
  (function note (input (x U32)) (output U32) (effects (db.write s.log)) (body (do (db.write s.log x) x))))
`

// probeParser parses and checks the probe module.
func probeParser() doctorCheck {
	ch := doctorCheck{Name: "parser and checker", Kind: "core", Required: true, Status: "ok", Version: fmt.Sprintf("tree-sitter ABI %d", treeSitterABI),
		Purpose: "parses and checks a probe module with a function, an example and a declared effect"}
	f, err := ast.Parse([]byte(doctorProbe))
	if err != nil {
		ch.Status, ch.Detail = "problem", "the probe does not parse: "+err.Error()
	} else if res := check.Check(f, check.Options{Path: "probe.caps"}); res.HasErrors() {
		ch.Status, ch.Detail = "problem", fmt.Sprintf("the probe has %d check diagnostics, the first: %s %s", len(res.Diagnostics), res.Diagnostics[0].Code, res.Diagnostics[0].Message)
	}
	if ch.Status != "ok" {
		ch.Fix = "rebuild caps from a clean checkout (make build) and report the failure"
	}
	return ch
}

// capsRepoRoot returns the caps repository that holds dir, or "".
func capsRepoRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			if bytes.HasPrefix(b, []byte("module github.com/capsulang/caps\n")) {
				return d
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// checkXState looks for the xstate package of the repository's harness.
func checkXState(root string) doctorCheck {
	ch := doctorCheck{Name: "xstate", Kind: "tool", Purpose: "the XState v5 package the xstate target is tested against (codegen/xstate/testdata/harness)"}
	if root == "" {
		ch.Status, ch.Detail = "info", "not checked: the current folder is not in the caps repository"
		return ch
	}
	pj := filepath.Join(root, "codegen", "xstate", "testdata", "harness", "node_modules", "xstate", "package.json")
	b, err := os.ReadFile(pj)
	if err != nil {
		ch.Status, ch.Fix = "missing", "cd codegen/xstate/testdata/harness && npm ci"
		return ch
	}
	var meta struct{ Version string }
	json.Unmarshal(b, &meta)
	ch.Status, ch.Path, ch.Version = "ok", filepath.Dir(pj), meta.Version
	return ch
}

// noirProving says that zero-knowledge proofs are not made: the Noir
// circuits compile and execute (noir-compile, noir-execute), but
// @aztec/bb.js cannot prove without the BN254 reference string, which it
// downloads and no package ships (docs/codegen.md).
var noirProving = doctorCheck{Name: "bb.js proving", Kind: "tool", Status: "info",
	Purpose: "proving and verifying Noir circuits (noir-prove, noir-verify)",
	Detail:  "not available: bb.js must download the BN254 reference string (CRS) before it proves and caps ships none, so caps has no noir-prove or noir-verify; noir-compile and noir-execute work (docs/codegen.md)"}

// checkCaches reports the import roots and the workspace folder.
func checkCaches() []doctorCheck {
	var out []doctorCheck
	if roots := load.EnvRoots(); len(roots) > 0 {
		for _, root := range roots {
			ch := doctorCheck{Name: "CAPS_PATH root", Kind: "cache", Required: true, Path: root, Purpose: "an import root: (import a.b) looks for a/b.caps here"}
			if st, err := os.Stat(root); err != nil || !st.IsDir() {
				ch.Status, ch.Fix = "problem", fmt.Sprintf("create %s or remove it from CAPS_PATH", root)
				ch.Detail = "not a folder"
			} else {
				ch.Status = "ok"
			}
			out = append(out, ch)
		}
	} else {
		out = append(out, doctorCheck{Name: "CAPS_PATH", Kind: "cache", Status: "info", Purpose: "import roots besides the importing file's folder", Detail: "not set: imports resolve next to the importing file only"})
	}
	ws := doctorCheck{Name: "workspace .caps", Kind: "cache", Purpose: "the workspace folder: proposals, the evolution ledger and its transaction journal"}
	if st, err := os.Stat(".caps"); err == nil && st.IsDir() {
		ws.Status, ws.Path = "ok", ".caps"
		if ents, err := os.ReadDir(filepath.Join(".caps", "txn")); err == nil && len(ents) > 0 {
			ws.Status = "problem"
			ws.Detail = fmt.Sprintf("%d unfinished transaction(s) in .caps/txn", len(ents))
			ws.Fix = "the next caps propose, commit or rollback here finishes the interrupted commit before it writes"
		}
	} else {
		ws.Status, ws.Detail = "info", "no .caps folder here (caps propose creates one)"
	}
	return append(out, ws)
}

func runDoctor(c *cli.Context, jsonOut bool) int {
	rep := doctorJSON{Caps: doctorCaps{Version: version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, ABI: treeSitterABI}}
	rep.Checks = append(rep.Checks, probeParser())
	// The tools answer --version concurrently (node and npm take a while).
	tools := make([]doctorCheck, len(doctorTools))
	var wg sync.WaitGroup
	for k, t := range doctorTools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tools[k] = checkTool(t)
		}()
	}
	wg.Wait()
	for k, t := range doctorTools {
		rep.Checks = append(rep.Checks, tools[k])
		if t.name == "npm" {
			wd, _ := os.Getwd()
			rep.Checks = append(rep.Checks, checkXState(capsRepoRoot(wd)))
		}
	}
	rep.Checks = append(rep.Checks, noirProving)
	rep.Checks = append(rep.Checks, checkCaches()...)
	failed := false
	for _, ch := range rep.Checks {
		if ch.Status == "problem" || (ch.Required && ch.Status != "ok") {
			rep.Problems++
			failed = true
		}
	}
	rep.OK = !failed
	code := cli.ExitOK
	if failed {
		code = cli.ExitFail
	}
	if jsonOut {
		writeJSON(c, rep)
		return code
	}
	var b strings.Builder
	fmt.Fprintf(&b, "caps %s (%s, %s/%s, tree-sitter ABI %d)\n", version, rep.Caps.Go, rep.Caps.OS, rep.Caps.Arch, treeSitterABI)
	missing := 0
	for _, ch := range rep.Checks {
		what := ch.Path
		if ch.Version != "" {
			what = strings.TrimSpace(ch.Version + " " + ch.Path)
		}
		if ch.Detail != "" {
			what = strings.TrimSpace(what + " (" + ch.Detail + ")")
		}
		fmt.Fprintf(&b, "%s\n", strings.TrimRight(fmt.Sprintf("%-8s %-18s %s", ch.Status, ch.Name, what), " "))
		if ch.Fix != "" {
			fmt.Fprintf(&b, "         fix: %s\n", ch.Fix)
		}
		if ch.Status == "missing" {
			missing++
		}
	}
	fmt.Fprintf(&b, "%d %s, %d optional %s missing\n", rep.Problems, pluralWord(rep.Problems, "problem", "problems"), missing, pluralWord(missing, "tool", "tools"))
	c.Stdout.Write([]byte(b.String()))
	return code
}
