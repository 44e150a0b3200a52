package noir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/internal/atomicdir"
	"github.com/capsulang/caps/internal/toolpath"
	"github.com/capsulang/caps/runtime/value"
)

// ManifestName is the file that binds a generated project to its module.
const ManifestName = "capsulang.json"

// Manifest binds a Noir project to the zk-proof and module it came from.
type Manifest struct {
	Module       string          `json:"module"`
	SemanticHash string          `json:"semantic_hash"`
	Proof        string          `json:"proof"`
	Backend      string          `json:"backend"`
	Claim        string          `json:"claim"`
	Public       []ManifestInput `json:"public"`
	Private      []ManifestInput `json:"private"`
	Generator    string          `json:"generator"`
}

// ManifestInput is an input in the manifest.
type ManifestInput struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	NoirType string `json:"noir_type"`
}

// Project is the files of a generated Nargo project, by relative path.
type Project struct {
	Files    map[string][]byte
	Manifest Manifest
}

// PackageName is the Nargo package name of a proof: lower case letters,
// digits and _.
func PackageName(proof string) string {
	var b strings.Builder
	for i, r := range proof {
		switch {
		case r >= 'A' && r <= 'Z':
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r - 'A' + 'a')
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "proof_" + s
	}
	return s
}

// Emit builds the Nargo project of a proof that lowers. vals, when not
// nil, fill Prover.toml; without them Prover.toml lists every input with
// an empty value to fill in.
func Emit(p *Proof, module, hash string, vals map[string]value.Value) (*Project, error) {
	if !p.Lowers {
		var msgs []string
		for _, r := range p.Reasons {
			msgs = append(msgs, r.Message)
		}
		return nil, fmt.Errorf("the proof %s does not lower to Noir: %s", p.Name, strings.Join(msgs, "; "))
	}
	pr := &Project{Files: map[string][]byte{}}
	name := PackageName(p.Name)
	pr.Files["Nargo.toml"] = []byte(fmt.Sprintf("[package]\nname = %q\ntype = \"bin\"\nauthors = [\"caps emit-noir\"]\n\n[dependencies]\n", name))
	pr.Files["src/main.nr"] = []byte(p.Main)
	var toml bytes.Buffer
	toml.WriteString("# Inputs of " + p.Name + " (public ones first), as Nargo and caps noir-execute read them.\n")
	var inputs map[string]any
	if vals != nil {
		var err error
		inputs, err = p.NoirInputs(vals)
		if err != nil {
			return nil, err
		}
	}
	for _, in := range p.Inputs() {
		if inputs == nil {
			fmt.Fprintf(&toml, "%s = \"\"\n", in.Name)
			continue
		}
		fmt.Fprintf(&toml, "%s = %s\n", in.Name, tomlValue(inputs[in.Name]))
	}
	pr.Files["Prover.toml"] = toml.Bytes()
	m := Manifest{Module: module, SemanticHash: hash, Proof: p.Name, Backend: p.Backend, Claim: p.ClaimText,
		Public: []ManifestInput{}, Private: []ManifestInput{}, Generator: "caps emit-noir"}
	for _, in := range p.Inputs() {
		mi := ManifestInput{Name: in.Name, Type: in.Source, NoirType: noirType(in.Type)}
		if in.Public {
			m.Public = append(m.Public, mi)
		} else {
			m.Private = append(m.Private, mi)
		}
	}
	var mb bytes.Buffer
	enc := json.NewEncoder(&mb)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(m)
	pr.Files[ManifestName] = mb.Bytes()
	pr.Manifest = m
	return pr, nil
}

func tomlValue(x any) string {
	switch x := x.(type) {
	case bool:
		return strconv.FormatBool(x)
	case string:
		return strconv.Quote(x)
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, tomlValue(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return strconv.Quote(fmt.Sprint(x))
}

// Write writes the project into dir atomically: into a fresh folder beside
// it, renamed over dir at the end. An existing dir is replaced only when
// it holds a project caps emit-noir wrote (it has capsulang.json).
func (pr *Project) Write(dir string) error {
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s exists and is not a folder", dir)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) > 0 {
			if _, err := os.Stat(filepath.Join(dir, ManifestName)); err != nil {
				return fmt.Errorf("%s exists and was not written by caps emit-noir (no %s); choose another --out-dir or remove it", dir, ManifestName)
			}
		}
	}
	_, err := atomicdir.Write(dir, pr.Files)
	return err
}

// FileNames lists the project's files in order.
func (pr *Project) FileNames() []string {
	var names []string
	for n := range pr.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ReadProverTOML reads the inputs of a Prover.toml that caps emit-noir
// wrote: lines NAME = "decimal" | true | false | ["b", ...].
func ReadProverTOML(data []byte) (map[string]any, error) {
	out := map[string]any{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("Prover.toml line %d: expected NAME = VALUE", i+1)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		x, err := tomlScalar(v)
		if err != nil {
			return nil, fmt.Errorf("Prover.toml line %d: %v", i+1, err)
		}
		if s, ok := x.(string); ok && s == "" {
			return nil, fmt.Errorf("Prover.toml line %d: %s has no value; fill it in or pass --inputs", i+1, k)
		}
		out[k] = x
	}
	return out, nil
}

func tomlScalar(v string) (any, error) {
	switch {
	case v == "true" || v == "false":
		return v == "true", nil
	case strings.HasPrefix(v, "\""):
		return strconv.Unquote(v)
	case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
		var arr []any
		for _, e := range strings.Split(v[1:len(v)-1], ",") {
			if e = strings.TrimSpace(e); e == "" {
				continue
			}
			x, err := tomlScalar(e)
			if err != nil {
				return nil, err
			}
			arr = append(arr, x)
		}
		return arr, nil
	case v != "" && strings.Trim(v, "-0123456789") == "":
		return v, nil
	}
	return nil, fmt.Errorf("unsupported value %s (this reader takes strings, integers, true, false and arrays)", v)
}

// Toolchain runs the pinned Noir toolchain (tools/noir) under node.
type Toolchain struct {
	Node string // the node binary
	Dir  string // the folder with run.mjs and node_modules
}

// ErrNoToolchain is returned when node or the npm packages are missing.
var ErrNoToolchain = errors.New("the Noir toolchain is not installed")

// FindToolchain finds node (NODE or PATH) and the tools folder: the
// environment variable CAPS_NOIR_TOOLS, else tools/noir in the current
// folder or one above it, else next to the caps binary's repository.
func FindToolchain() (*Toolchain, error) {
	nodePath := toolpath.Look("NODE", "node")
	if nodePath == "" {
		return nil, fmt.Errorf("%w: node was not found (install Node.js 20 or later, e.g. apt-get install nodejs npm)", ErrNoToolchain)
	}
	var cands []string
	if d := os.Getenv("CAPS_NOIR_TOOLS"); d != "" {
		cands = append(cands, d)
	} else {
		if wd, err := os.Getwd(); err == nil {
			for d := wd; ; d = filepath.Dir(d) {
				cands = append(cands, filepath.Join(d, "tools", "noir"))
				if filepath.Dir(d) == d {
					break
				}
			}
		}
		if exe, err := os.Executable(); err == nil {
			cands = append(cands, filepath.Join(filepath.Dir(exe), "..", "tools", "noir"))
		}
	}
	for _, d := range cands {
		if _, err := os.Stat(filepath.Join(d, "run.mjs")); err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "node_modules", "@noir-lang", "noir_wasm", "package.json")); err != nil {
			return nil, fmt.Errorf("%w: %s has no node_modules; run (cd %s && npm ci)", ErrNoToolchain, d, d)
		}
		return &Toolchain{Node: nodePath, Dir: d}, nil
	}
	return nil, fmt.Errorf("%w: no tools/noir folder with run.mjs was found from the current folder; run caps in the Capsulang repository, or set CAPS_NOIR_TOOLS to that folder (and run npm ci in it)", ErrNoToolchain)
}

// CompileResult is what noir-compile reports.
type CompileResult struct {
	OK          bool            `json:"ok"`
	Error       string          `json:"error,omitempty"`
	Artifact    string          `json:"artifact,omitempty"`
	NoirVersion string          `json:"noir_version,omitempty"`
	Warnings    []string        `json:"warnings,omitempty"`
	NoirWasm    string          `json:"noir_wasm,omitempty"`
	NoirJS      string          `json:"noir_js,omitempty"`
	ABI         json.RawMessage `json:"abi,omitempty"`
}

// ExecResult is one execution of a compiled circuit.
type ExecResult struct {
	OK          bool            `json:"ok"`
	Satisfied   bool            `json:"satisfied"`
	Error       string          `json:"error,omitempty"`
	WitnessSize int             `json:"witness_bytes,omitempty"`
	ReturnValue json.RawMessage `json:"return_value,omitempty"`
}

func (tc *Toolchain) run(stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.Command(tc.Node, append([]string{filepath.Join(tc.Dir, "run.mjs")}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node run.mjs %s: %v\n%s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Compile compiles the project in dir with noir_wasm, writing
// dir/target/PACKAGE.json.
func (tc *Toolchain) Compile(dir string) (*CompileResult, error) {
	out, err := tc.run(nil, "compile", dir)
	if err != nil {
		return nil, err
	}
	var r CompileResult
	if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
		return nil, fmt.Errorf("unexpected output of run.mjs: %v: %.500s", err, out)
	}
	return &r, nil
}

// Execute runs the compiled circuit of dir with noir_js (the ACVM) on
// each input map, in one node process.
func (tc *Toolchain) Execute(dir string, inputs []map[string]any) ([]ExecResult, error) {
	var in bytes.Buffer
	for _, m := range inputs {
		data, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		in.Write(data)
		in.WriteByte('\n')
	}
	out, err := tc.run(in.Bytes(), "execute-many", dir)
	if err != nil {
		return nil, err
	}
	var res []ExecResult
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var r ExecResult
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("unexpected output of run.mjs: %v: %.500s", err, line)
		}
		if !r.OK {
			return nil, fmt.Errorf("the Noir toolchain failed: %s", r.Error)
		}
		res = append(res, r)
	}
	if len(res) != len(inputs) {
		return nil, fmt.Errorf("run.mjs answered %d of %d executions", len(res), len(inputs))
	}
	return res, nil
}

// NoirType is the Noir type of a Capsulang type ("" when it has no
// circuit encoding here).
func NoirType(t types.Type) string { return noirType(t) }

// ConvertInputs turns a JSON object of input values into the input map of
// the circuit described by m: each input must be given, with a value of
// its Capsulang type (checked as caps call checks arguments). Without a
// manifest (a project written by hand) numbers become decimal strings and
// everything else passes through.
func ConvertInputs(m Manifest, data []byte) (map[string]any, error) {
	if m.Proof == "" {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var raw map[string]any
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("the inputs must be a JSON object of input names to values: %v", err)
		}
		for k, v := range raw {
			if n, ok := v.(json.Number); ok {
				raw[k] = n.String()
			}
		}
		return raw, nil
	}
	p := &Proof{Name: m.Proof}
	for _, side := range []struct {
		ins    []ManifestInput
		public bool
	}{{m.Public, true}, {m.Private, false}} {
		for _, in := range side.ins {
			t := types.Builtins[in.Type]
			if t == nil {
				return nil, fmt.Errorf("%s: input %s has type %s, which has no circuit encoding here", ManifestName, in.Name, in.Type)
			}
			x := Input{Name: in.Name, Type: t, Source: in.Type, Public: side.public}
			if side.public {
				p.Public = append(p.Public, x)
			} else {
				p.Private = append(p.Private, x)
			}
		}
	}
	vals, err := p.ParseInputs(data)
	if err != nil {
		return nil, err
	}
	return p.NoirInputs(vals)
}
