package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax/ast"
)

// conformanceEvolutionHook, when set (by tests), is called with the
// temporary workspace after the commits and before the evolution ledger
// is verified: a test changes the ledger to show that the level is then
// unmet.
var conformanceEvolutionHook func(workspace string)

// improvementKinds are the declarations CPS-8 names.
var improvementKinds = []ast.DeclKind{ast.KindLineage, ast.KindObjective, ast.KindEvalSuite, ast.KindSuccessorContract,
	ast.KindBudget, ast.KindGate, ast.KindDeploymentPolicy, ast.KindImprovementRecord}

// conformanceImprovementDecls shows that each kind of improvement
// declaration CPS-8 names is declared in a module that checks and hashes
// (its canonical IR).
func conformanceImprovementDecls(checked []*conformanceModule, req func(string, bool, string, ...any) requirementJSON) requirementJSON {
	found := map[ast.DeclKind]bool{}
	var names []string
	for _, m := range checked {
		kinds := map[ast.DeclKind]bool{}
		for _, d := range m.pkg.File.Module.Decls {
			if slices.Contains(improvementKinds, d.Kind()) {
				kinds[d.Kind()] = true
			}
		}
		if len(kinds) == 0 {
			continue
		}
		if h, err := load.IROptions(m.pkg.Result).Hash(m.pkg.File.Module); err != nil || h == "" {
			continue
		}
		names = append(names, filepath.Base(m.path))
		for k := range kinds {
			found[k] = true
		}
	}
	var have, missing []string
	for _, k := range improvementKinds {
		if found[k] {
			have = append(have, string(k))
		} else {
			missing = append(missing, string(k))
		}
	}
	return req("improvement declarations are parsed, checked and canonicalized", len(missing) == 0,
		"modules that check and hash (canonical IR)%s declare %d of the %d kinds: %s%s", listed(", %s,", names), len(have), len(improvementKinds), strings.Join(have, ", "), listed("; none declares %s", missing))
}

// conformanceProbe is the improvement caps conformance proposes: a pure
// function with an example, added at the end of the module.
const conformanceProbe = `

  ;; Added by caps conformance: a governed improvement.
  (function conformance_probe
    (input (x U32))
    (output U32)
    (body x)
    (example (conformance_probe 7) 7))`

// govAssessment is the part of caps assess --json the evidence reads.
type govAssessment struct {
	Verdict           string `json:"verdict"`
	ParentHash        string `json:"parent_hash"`
	CandidateHash     string `json:"candidate_hash"`
	DiffHash          string `json:"diff_hash"`
	ApprovalsRequired []struct {
		Role string `json:"role"`
	} `json:"approvals_required"`
	Unmet      []json.RawMessage `json:"unmet"`
	Governance struct {
		Gates []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"gates"`
	} `json:"governance"`
}

// improvementRecord is the part of a ledger improvement record the
// evidence reads.
type improvementRecord struct {
	Type            string `json:"type"`
	Event           string `json:"event"`
	ParentHash      string `json:"parent_hash"`
	CandidateHash   string `json:"candidate_hash"`
	DiffHash        string `json:"diff_hash"`
	PolicyDecisions []struct {
		Name    string `json:"name"`
		Outcome string `json:"outcome"`
	} `json:"policy_decisions"`
	Approvals []struct {
		Name     string `json:"name"`
		Decision string `json:"decision"`
		By       string `json:"by"`
	} `json:"approvals"`
}

// conformanceImprovement runs the governed improvement workflow for real
// in a temporary workspace holding a copy of DIR: for every module that
// declares a gate, it proposes an improvement (conformanceProbe), assesses
// it, tries to commit it without approval when the assessment asks for
// one (which must be refused, writing nothing), then commits it with the
// approvals asked for. A proposal whose governance evidence is missing
// (verdict incomplete or fail) must be refused even with them. The
// evolution ledger must then verify, hold an improvement record for every
// commit that matches its assessment, and, once one record is changed,
// fail to verify and refuse the next proposal.
func conformanceImprovement(dir string, checked []*conformanceModule, req func(string, bool, string, ...any) requirementJSON) []requirementJSON {
	const what, whatLedger = "improvement records are ledger-ready", "the evolution ledger verifies, and a changed one is refused"
	fail := func(format string, args ...any) []requirementJSON {
		return []requirementJSON{req(what, false, format, args...), req(whatLedger, false, "not run: the improvement workflow did not complete")}
	}
	var gated []*conformanceModule
	for _, m := range checked {
		if m.pkg.File.Source != nil && m.pkg.File.Source.CST != nil && bytes.Contains(m.pkg.File.Source.CST.Src, []byte("(gate ")) {
			gated = append(gated, m)
		}
	}
	if len(gated) == 0 {
		return fail("no module of %s declares a gate", dir)
	}
	tmp, err := os.MkdirTemp("", "caps-conformance-evolution-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(tmp)
	ws := filepath.Join(tmp, "workspace")
	if err := copyTree(dir, ws); err != nil {
		return fail("copying %s into a temporary workspace: %v", dir, err)
	}
	caps := func(args ...string) (int, []byte, string) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		return code, out.Bytes(), strings.TrimSpace(errb.String())
	}
	type committed struct {
		file, event string
		a           govAssessment
		approvals   []string
	}
	var commits []committed
	var done []string
	for _, m := range gated {
		rel, err := filepath.Rel(dir, m.path)
		if err != nil {
			return fail("%v", err)
		}
		target := filepath.Join(ws, rel)
		before, err := os.ReadFile(target)
		if err != nil {
			return fail("%v", err)
		}
		src := bytes.TrimRight(before, " \t\r\n")
		if !bytes.HasSuffix(src, []byte(")")) {
			return fail("%s does not end with the module's closing parenthesis", rel)
		}
		cand := filepath.Join(tmp, "candidate-"+filepath.Base(rel))
		if err := os.WriteFile(cand, append(append(append([]byte{}, src[:len(src)-1]...), conformanceProbe...), ")\n"...), 0o644); err != nil {
			return fail("%v", err)
		}
		code, out, stderr := caps("propose", "--workspace", ws, "--target", target, "--candidate", cand, "--by", "agent:caps-conformance", "--reason", "conformance: a governed improvement", "--quiet")
		if code != 0 {
			return fail("%s: caps propose exits %d: %s", rel, code, stderr)
		}
		id := strings.TrimSpace(string(out))
		code, out, stderr = caps("assess", "--workspace", ws, "--json", id)
		var a govAssessment
		if err := json.Unmarshal(out, &a); err != nil || code > 1 {
			return fail("%s: caps assess exits %d: %s", rel, code, stderr)
		}
		var approvals []string
		for _, r := range a.ApprovalsRequired {
			approvals = append(approvals, r.Role+":caps-conformance")
		}
		var gates []string
		for _, g := range a.Governance.Gates {
			gates = append(gates, g.Name+" "+g.Status)
		}
		unchanged := func() bool {
			now, err := os.ReadFile(target)
			return err == nil && bytes.Equal(now, before)
		}
		approveArgs := func() []string {
			args := []string{"commit", "--workspace", ws, "--json"}
			for _, ap := range approvals {
				args = append(args, "--approve", ap)
			}
			return append(args, id)
		}
		switch a.Verdict {
		case "incomplete", "fail":
			// The governance holds: no approval stands in for evidence.
			if code, _, _ := caps(approveArgs()...); code != 1 || !unchanged() {
				return fail("%s: assessed %s, yet caps commit exits %d", rel, a.Verdict, code)
			}
			done = append(done, fmt.Sprintf("%s assessed %s (%d governance requirements unmet%s), its commit refused even with the approvals, the file unchanged", filepath.Base(rel), a.Verdict, len(a.Unmet), listed("; gates: %s", gates)))
			continue
		case "needs-approval":
			if code, _, _ := caps("commit", "--workspace", ws, "--json", id); code != 1 || !unchanged() {
				return fail("%s: assessed needs-approval, yet caps commit without --approve exits %d", rel, code)
			}
		case "pass":
		default:
			return fail("%s: caps assess gives the verdict %q", rel, a.Verdict)
		}
		code, out, stderr = caps(approveArgs()...)
		var c struct {
			EventID string `json:"event_id"`
		}
		if json.Unmarshal(out, &c); code != 0 || c.EventID == "" || unchanged() {
			return fail("%s: caps commit exits %d: %s", rel, code, stderr)
		}
		commits = append(commits, committed{filepath.Base(rel), c.EventID, a, approvals})
		how := "committed"
		if len(approvals) > 0 {
			how = "refused without approval, then committed with --approve " + strings.Join(approvals, " --approve ")
		}
		done = append(done, fmt.Sprintf("%s assessed %s%s, %s", filepath.Base(rel), a.Verdict, listed(" (gates: %s)", gates), how))
	}
	if len(commits) == 0 {
		return fail("no improvement could be committed: %s", strings.Join(done, "; "))
	}
	if conformanceEvolutionHook != nil {
		conformanceEvolutionHook(ws)
	}
	code, out, stderr := caps("ledger", "verify", "--workspace", ws, "--json")
	var lv struct {
		OK      bool `json:"ok"`
		Records int  `json:"records"`
		Problem *struct {
			Line   int    `json:"line"`
			Reason string `json:"reason"`
		} `json:"problem"`
	}
	json.Unmarshal(out, &lv)
	if code != 0 || !lv.OK {
		why := stderr
		if lv.Problem != nil {
			why = fmt.Sprintf("line %d: %s", lv.Problem.Line, lv.Problem.Reason)
		}
		return fail("caps ledger verify exits %d after the workflow: %s", code, why)
	}
	ledgerPath := filepath.Join(ws, ".caps", "ledger", "evolution.jsonl")
	data, err := os.ReadFile(ledgerPath)
	if err != nil {
		return fail("%v", err)
	}
	records := map[string]improvementRecord{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var rec struct {
			Payload improvementRecord `json:"payload"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Payload.Type == "improvement-record" {
			records[rec.Payload.Event] = rec.Payload
		}
	}
	for _, c := range commits {
		r, ok := records[c.event]
		if !ok {
			return fail("the evolution ledger holds no improvement record for %s (%s)", c.event, c.file)
		}
		if r.ParentHash != c.a.ParentHash || r.CandidateHash != c.a.CandidateHash || r.DiffHash != c.a.DiffHash {
			return fail("the improvement record of %s does not carry the assessment's hashes", c.event)
		}
		decided := map[string]bool{}
		for _, d := range r.PolicyDecisions {
			decided[d.Name] = true
		}
		for _, g := range c.a.Governance.Gates {
			if !decided[g.Name] {
				return fail("the improvement record of %s has no policy decision for gate %s", c.event, g.Name)
			}
		}
		if len(r.Approvals) != len(c.approvals) {
			return fail("the improvement record of %s lists %d approvals, not %d", c.event, len(r.Approvals), len(c.approvals))
		}
	}
	ready := req(what, true, "in a temporary workspace holding a copy of %s, caps propose adds a function with an example to each module with a gate (%s), then caps assess and caps commit: %s; the evolution ledger holds the improvement record of each commit (event, parent, candidate and diff hashes, a policy decision for every gate, the approvals)",
		dir, countOf(len(gated), "module"), strings.Join(done, "; "))

	// One record changed: the chain breaks and the workspace refuses.
	changed := bytes.Replace(data, []byte(`"kind":"commit"`), []byte(`"kind":"comm1t"`), 1)
	if bytes.Equal(changed, data) || os.WriteFile(ledgerPath, changed, 0o644) != nil {
		return []requirementJSON{ready, req(whatLedger, false, "could not change a record of the evolution ledger")}
	}
	code2, out2, _ := caps("ledger", "verify", "--workspace", ws, "--json")
	var broken struct {
		OK      bool `json:"ok"`
		Problem *struct {
			Line int `json:"line"`
		} `json:"problem"`
	}
	json.Unmarshal(out2, &broken)
	code3, _, _ := caps("propose", "--workspace", ws, "--target", filepath.Join(ws, mustRel(dir, gated[0].path)), "--candidate", filepath.Join(ws, mustRel(dir, gated[0].path)), "--quiet")
	if code2 != 1 || broken.OK || broken.Problem == nil || code3 != 1 {
		return []requirementJSON{ready, req(whatLedger, false, "with one record changed, caps ledger verify exits %d and caps propose %d (both must exit 1)", code2, code3)}
	}
	return []requirementJSON{ready, req(whatLedger, true, "caps ledger verify: %d records, hash chain intact; with one commit record changed it exits 1 naming line %d, and caps propose refuses to write", lv.Records, broken.Problem.Line)}
}

func mustRel(base, path string) string {
	rel, err := filepath.Rel(base, path)
	if err != nil {
		return path
	}
	return rel
}

// copyTree copies the regular files of src into dst; src may be a
// symbolic link to a folder, but links inside it are not followed.
func copyTree(src, dst string) error {
	src, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".caps" || d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}
