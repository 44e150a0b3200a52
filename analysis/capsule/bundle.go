package capsule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/internal/atomicdir"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Artifact is one file of a bundle.
type Artifact struct {
	Path   string `json:"path"` // relative to the bundle, with slashes
	Kind   string `json:"kind"`
	SHA256 string `json:"sha256"` // "sha256:HEX"
	Bytes  int    `json:"bytes"`
	Data   []byte `json:"-"`
}

// Artifact kinds.
const (
	KindContractIR  = "contract-ir"
	KindEDL         = "edl"
	KindModule      = "module"
	KindProbe       = "probe-module"
	KindCompose     = "docker-compose"
	KindSeatbelt    = "seatbelt"
	KindDoorkeeper  = "doorkeeper-policy"
	KindTelemetry   = "telemetry-plan"
	KindReceipts    = "receipt-plan"
	KindNegative    = "negative-test"
	KindPositive    = "scenario"
	KindAttestation = "attestation"
)

// AttestationFile is the attestation manifest's name in a bundle.
const AttestationFile = "attestation.json"

// Attestation is the manifest of a bundle: the SHA-256 of every other
// artifact, and its own digest over the rest of the document.
type Attestation struct {
	Format        string      `json:"format"`
	FormatVersion int         `json:"format_version"`
	Contract      string      `json:"contract"`
	Version       string      `json:"version"`
	ContractHash  string      `json:"contract_hash"`
	Module        string      `json:"module"`
	ModuleFile    string      `json:"module_file"`
	SemanticHash  string      `json:"semantic_hash"` // what caps hash prints for the module
	Enclosure     string      `json:"enclosure"`
	Artifacts     []*Artifact `json:"artifacts"`
	Digest        string      `json:"digest,omitempty"`
}

// Bundle is a compiled contract.
type Bundle struct {
	IR        *IR
	EDL       *EDL
	Module    string      // the module file's name
	Artifacts []*Artifact // in the order they are listed; the attestation last
}

// Compile compiles a checked contract IR into its bundle. The generated
// module is checked with the Capsulang checker; a diagnostic there is an
// internal error of the compiler, returned as an error.
func Compile(ir *IR) (*Bundle, error) {
	e := Lower(ir)
	base := BaseName(ir.Module)
	mod := Module(e)
	pkg := (&load.Loader{}).LoadSource(base+".caps", mod)
	if ds := pkg.Result.Diagnostics; len(ds) > 0 {
		return nil, fmt.Errorf("internal error: the generated module %s.caps does not check clean (%s: %s); please report it with the contract", base, ds[0].Code, ds[0].Message)
	}
	probe := ProbeModule(e)
	if d := unexpectedDiagnostic((&load.Loader{}).LoadSource(base+ProbeFileSuffix, probe)); d != nil {
		return nil, fmt.Errorf("internal error: the generated probe module %s%s has an unexpected diagnostic (%s: %s); please report it with the contract", base, ProbeFileSuffix, d.Code, d.Message)
	}
	b := &Bundle{IR: ir, EDL: e, Module: base + ".caps"}
	add := func(path, kind string, data []byte) {
		b.Artifacts = append(b.Artifacts, &Artifact{Path: path, Kind: kind, SHA256: Digest(data), Bytes: len(data), Data: data})
	}
	add(base+".capsule.json", KindContractIR, ir.Canonical())
	add(base+".edl.json", KindEDL, indent(e))
	add(base+".caps", KindModule, mod)
	add(base+ProbeFileSuffix, KindProbe, probe)
	add("docker-compose.yaml", KindCompose, Compose(e))
	add("seatbelt.sb", KindSeatbelt, Seatbelt(e))
	add("doorkeeper-policy.json", KindDoorkeeper, Doorkeeper(e))
	add("telemetry-plan.json", KindTelemetry, TelemetryPlanOf(e, ir))
	add("receipt-plan.json", KindReceipts, ReceiptPlanOf(e))
	for _, s := range Scenarios(e) {
		kind := KindNegative
		if !strings.HasPrefix(s.Name, "negative-") {
			kind = KindPositive
		}
		add("tests/"+s.Name+".json", kind, indent(s.Scenario))
	}
	att := &Attestation{Format: "capsulang.capsule-attestation", FormatVersion: 1, Contract: ir.Module, Version: ir.Version,
		ContractHash: e.ContractHash, Module: e.Module, ModuleFile: base + ".caps", SemanticHash: pkg.Hash, Enclosure: e.Enclosure.ID,
		Artifacts: append([]*Artifact{}, b.Artifacts...)}
	sort.Slice(att.Artifacts, func(i, j int) bool { return att.Artifacts[i].Path < att.Artifacts[j].Path })
	att.Digest = att.digest()
	add(AttestationFile, KindAttestation, indent(att))
	return b, nil
}

// digest is the attestation's digest: the SHA-256 of its compact JSON
// without the digest member.
func (a *Attestation) digest() string {
	c := *a
	c.Digest = ""
	return Digest(marshal(&c))
}

// Write writes the bundle to dir: into a temporary folder beside dir
// first, then renamed into place, so that dir is never half-written. An
// existing dir is replaced only when it is a bundle (it has an
// attestation.json) or empty.
func (b *Bundle) Write(dir string) error {
	dir = filepath.Clean(dir)
	if info, err := os.Stat(dir); err == nil {
		if !info.IsDir() {
			return fmt.Errorf("%s exists and is not a folder", dir)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			if _, err := os.Stat(filepath.Join(dir, AttestationFile)); err != nil {
				return fmt.Errorf("%s exists and is not a capsule bundle (no %s); choose another --out-dir or remove it", dir, AttestationFile)
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	files := make(map[string][]byte, len(b.Artifacts))
	for _, a := range b.Artifacts {
		files[a.Path] = a.Data
	}
	_, err := atomicdir.Write(dir, files)
	return err
}

// Problem is one finding of Verify, about one file of the bundle.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Verify re-computes a written bundle: the attestation's own digest, the
// SHA-256 of every artifact it lists, that no file is missing or extra,
// and that compiling the bundled contract IR again gives every artifact
// byte for byte. It returns the problems found, each naming its file, and
// the attestation (nil when it cannot be read).
func Verify(dir string) ([]Problem, *Attestation, error) {
	var out []Problem
	data, err := os.ReadFile(filepath.Join(dir, AttestationFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, derr := os.Stat(dir); derr != nil {
				return nil, nil, fmt.Errorf("%s: no such folder", dir)
			}
			return []Problem{{AttestationFile, "missing: this is not a capsule bundle (compile one with caps capsule-compile FILE --out-dir DIR)"}}, nil, nil
		}
		return nil, nil, err
	}
	var att Attestation
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&att); err != nil || att.Format != "capsulang.capsule-attestation" {
		msg := "not an attestation manifest"
		if err != nil {
			msg += ": " + err.Error()
		}
		return []Problem{{AttestationFile, msg}}, nil, nil
	}
	if d := att.digest(); d != att.Digest {
		out = append(out, Problem{AttestationFile, fmt.Sprintf("changed: its digest is %s but its content hashes to %s", att.Digest, d)})
	}
	listed := map[string]bool{AttestationFile: true}
	var irData []byte
	irPath := ""
	for _, a := range att.Artifacts {
		if !filepath.IsLocal(filepath.FromSlash(a.Path)) || a.Path == AttestationFile {
			out = append(out, Problem{AttestationFile, fmt.Sprintf("lists %q, which is not a file of the bundle", a.Path)})
			continue
		}
		listed[a.Path] = true
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(a.Path)))
		if err != nil {
			out = append(out, Problem{a.Path, "missing: the attestation lists it"})
			continue
		}
		if d := Digest(b); d != a.SHA256 {
			out = append(out, Problem{a.Path, fmt.Sprintf("changed: the attestation records %s, the file hashes to %s", a.SHA256, d)})
		} else if len(b) != a.Bytes {
			out = append(out, Problem{a.Path, fmt.Sprintf("changed: the attestation records %d bytes, the file has %d", a.Bytes, len(b))})
		}
		if a.Kind == KindContractIR {
			irData, irPath = b, a.Path
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); !listed[rel] {
			out = append(out, Problem{rel, "not listed in the attestation: remove it or compile the bundle again"})
		}
		return nil
	})
	if len(out) > 0 {
		return out, &att, nil
	}
	// Every digest holds: compile the bundled IR again and compare.
	if irPath == "" {
		return []Problem{{AttestationFile, "lists no contract IR (kind " + KindContractIR + ")"}}, &att, nil
	}
	ir, err := ParseIR(irData)
	if err != nil {
		return []Problem{{irPath, "not a contract IR: " + err.Error()}}, &att, nil
	}
	fresh, err := Compile(ir)
	if err != nil {
		return nil, &att, err
	}
	want := map[string]*Artifact{}
	for _, a := range fresh.Artifacts {
		want[a.Path] = a
	}
	for _, a := range att.Artifacts {
		w := want[a.Path]
		switch {
		case w == nil:
			out = append(out, Problem{a.Path, "the contract IR does not compile to this file"})
		case w.SHA256 != a.SHA256:
			out = append(out, Problem{a.Path, "differs from what the bundled contract IR compiles to (the file and its digest were both changed)"})
		}
		delete(want, a.Path)
	}
	for p := range want {
		if p != AttestationFile {
			out = append(out, Problem{p, "missing: the contract IR compiles to it but the attestation does not list it"})
		}
	}
	if w := fresh.Artifacts[len(fresh.Artifacts)-1]; len(out) == 0 && w.SHA256 != Digest(data) {
		out = append(out, Problem{AttestationFile, "differs from the attestation the bundled contract IR compiles to"})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, &att, nil
}

// generatedHeader starts every module capsule-compile writes.
const generatedHeader = ";; Generated by caps capsule-compile from the Capsule contract "

// LiveCheck enforces "no attested enclosure, no live effect" for the
// module at path (its source and semantic hash): a module that
// capsule-compile generated may run live only from its bundle, and only
// when the bundle verifies and its attestation names the module's
// semantic hash. It returns nil for a module that is not generated (the
// generated header comment is absent and no attestation beside it names
// the file).
func LiveCheck(path string, src []byte, semanticHash string) error {
	dir := filepath.Dir(path)
	var att Attestation
	data, err := os.ReadFile(filepath.Join(dir, AttestationFile))
	named := err == nil && json.Unmarshal(data, &att) == nil && att.ModuleFile == filepath.Base(path)
	if !named {
		if bytes.HasPrefix(src, []byte(generatedHeader)) {
			return fmt.Errorf("%s was generated by caps capsule-compile, but no attestation beside it names it: live mode runs a generated module only from its attested bundle (compile the contract with caps capsule-compile FILE --out-dir DIR and run the module in DIR)", path)
		}
		return nil
	}
	problems, _, err := Verify(dir)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		var parts []string
		for _, p := range problems {
			parts = append(parts, p.Path+": "+p.Message)
		}
		return fmt.Errorf("the bundle %s does not verify, so live mode refuses %s (%s); compile the contract again", dir, filepath.Base(path), strings.Join(parts, "; "))
	}
	if att.SemanticHash != semanticHash {
		return fmt.Errorf("%s has semantic hash %s but its attestation records %s; compile the contract again", path, semanticHash, att.SemanticHash)
	}
	return nil
}

// ProbeFileSuffix ends the probe module's file name in a bundle.
const ProbeFileSuffix = ".bypass-probe.caps"

// unexpectedDiagnostic returns the first diagnostic of the probe module
// other than the ones its BypassProbe machine is built to draw: a
// W_AUTHORITY_NEVER_ALLOWS on an intent of the probe, which is the checker
// proving statically what the negative tests show at run time (the call
// outside the mandate can never be allowed). It is nil when there is none.
func unexpectedDiagnostic(pkg *load.Package) *syntax.Diagnostic {
	var probe syntax.Span
	if m := pkg.File.Module; m != nil {
		for _, d := range m.Decls {
			if mc, ok := d.(*ast.Machine); ok && mc.Name.Name == probeMachine {
				probe = mc.Form.Span()
			}
		}
	}
	for i := range pkg.Result.Diagnostics {
		d := &pkg.Result.Diagnostics[i]
		if d.Code == check.AuthorityNeverAllows && probe.End > 0 && probe.Start <= d.Span.Start && d.Span.End <= probe.End {
			continue
		}
		return d
	}
	return nil
}
