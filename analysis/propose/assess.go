package propose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Verdicts, and the levels of the reasons behind them.
const (
	Pass          = "pass"
	NeedsApproval = "needs-approval"
	// Incomplete: evidence the module's governance requires is missing.
	// Approvals cannot stand in for it; a commit is refused until it is
	// supplied.
	Incomplete = "incomplete"
	Fail       = "fail"
)

// Test statuses.
const (
	StatusPassed       = "passed"
	StatusFailed       = "failed"
	StatusNotRun       = "not run"
	StatusNotAvailable = "not available"
	StatusNone         = "none" // nothing to run
)

// Assessment is the verdict on a proposal and the evidence behind it. Its
// JSON form is what `caps assess --json` prints (docs/propose.md).
type Assessment struct {
	ID             string          `json:"id"`
	Verdict        string          `json:"verdict"`
	Reasons        []Reason        `json:"reasons"`
	Confidence     float64         `json:"confidence"`
	BlastRadius    BlastRadius     `json:"blast_radius"`
	ParentHash     string          `json:"parent_hash"`
	CandidateHash  string          `json:"candidate_hash"`
	DiffHash       string          `json:"diff_hash"`
	AuthorityDelta AuthorityDelta  `json:"authority_delta"`
	Diagnostics    DiagnosticDelta `json:"diagnostics"`
	Tests          Tests           `json:"tests"`
	Governance     Governance      `json:"governance"`
	Approvals      []Approval      `json:"approvals_required"`
	// Unmet lists the governance requirements the candidate does not meet.
	Unmet      []Requirement    `json:"unmet"`
	Files      []FileAssessment `json:"files"`
	Signals    []string         `json:"signals"`
	AssessedAt string           `json:"assessed_at"`
	PolicyHash string           `json:"policy_hash,omitempty"`
	// EvidenceHash fingerprints the golden ledgers and scenario files the
	// assessment read (see EvidenceHash).
	EvidenceHash string `json:"evidence_hash,omitempty"`
}

// Reason is one rule's contribution to the verdict.
type Reason struct {
	// Level is fail, needs-approval or info.
	Level   string `json:"level"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// BlastRadius is the size of a change.
type BlastRadius struct {
	Files   int `json:"files"`
	Lines   int `json:"lines"` // added + removed
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// DiagnosticDelta compares diagnostics before and after, matched by file,
// code and message (positions move with edits).
type DiagnosticDelta struct {
	New      []DiagnosticItem `json:"new"`
	Resolved []DiagnosticItem `json:"resolved"`
	Before   Counts           `json:"before"`
	After    Counts           `json:"after"`
}

// Counts counts diagnostics by severity.
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// DiagnosticItem is a diagnostic in an assessment; Line and Column are
// 1-based (columns in code points).
type DiagnosticItem struct {
	Path     string `json:"path"`
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// Tests is the evidence from running things.
type Tests struct {
	Examples   TestReport `json:"examples"`
	Scenarios  TestReport `json:"scenarios"`
	Replay     TestReport `json:"replay"`
	Validation TestReport `json:"validation"`
}

// TestReport is one kind of evidence.
type TestReport struct {
	Status string     `json:"status"`
	Reason string     `json:"reason,omitempty"`
	Total  int        `json:"total"`
	Passed int        `json:"passed"`
	Failed int        `json:"failed"`
	Items  []TestItem `json:"items,omitempty"`
	// Commands holds validation command results.
	Commands []CommandResult `json:"commands,omitempty"`
}

// TestItem is one test, scenario file, ledger or command.
type TestItem struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// Governance is the module's own improvement governance, evaluated.
type Governance struct {
	EvalSuites         []SuiteResult `json:"eval_suites"`
	SuccessorContracts []RuleSet     `json:"successor_contracts"`
	Gates              []GateResult  `json:"gates"`
	Budgets            []RuleSet     `json:"budgets"`
	Limits             []RuleResult  `json:"limits"`
}

// RuleResult is one evaluated rule.
type RuleResult struct {
	Rule string `json:"rule"`
	// Status is met, failed, missing (evidence that this tool cannot
	// produce), needs-approval, or not tracked.
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// RuleSet is a successor contract or a budget, rule by rule.
type RuleSet struct {
	Name   string       `json:"name"`
	Path   string       `json:"path"`
	Status string       `json:"status"`
	Rules  []RuleResult `json:"rules"`
}

// SuiteResult is an eval-suite's evidence.
type SuiteResult struct {
	Name   string       `json:"name"`
	Path   string       `json:"path"`
	Status string       `json:"status"` // passed, failed, incomplete
	Rules  []RuleResult `json:"rules"`
}

// GateResult lists which of a gate's requirements are met.
type GateResult struct {
	Name    string   `json:"name"`
	Path    string   `json:"path"`
	Status  string   `json:"status"` // passed, failed, incomplete
	Met     []string `json:"met"`
	Missing []string `json:"missing"`
	Failed  []string `json:"failed"`
}

// Requirement is a governance requirement the candidate does not meet: a
// gate's (requires ...) or a successor contract's rule. Status is failed,
// missing (evidence this tool has not got) or needs-approval; only a
// needs-approval requirement is met by approvals, of every one of Roles.
type Requirement struct {
	// Gate or SuccessorContract names the declaration holding it.
	Gate              string `json:"gate,omitempty"`
	SuccessorContract string `json:"successor_contract,omitempty"`
	Path              string `json:"path"`
	// Requirement is the requirement as written, without its parentheses
	// and, for a gate, without "requires".
	Requirement string   `json:"requirement"`
	Status      string   `json:"status"`
	Roles       []string `json:"roles,omitempty"`
	// Why says why it is not met.
	Why string `json:"why"`
}

// String is the requirement on one line: PATH: gate G: requires R: WHY.
func (r Requirement) String() string {
	if r.Gate != "" {
		return fmt.Sprintf("%s: gate %s: requires %s: %s", r.Path, r.Gate, r.Requirement, r.Why)
	}
	return fmt.Sprintf("%s: successor-contract %s: %s: %s", r.Path, r.SuccessorContract, r.Requirement, r.Why)
}

// Approval is an approval a commit needs. Role "" accepts any named
// approver; otherwise --approve must name the role.
type Approval struct {
	Role   string `json:"role"`
	Reason string `json:"reason"`
}

// FileAssessment is one file's part.
type FileAssessment struct {
	Path            string `json:"path"`
	Module          string `json:"module,omitempty"`
	ParentHash      string `json:"parent_hash"`
	CandidateHash   string `json:"candidate_hash"`
	BaseSHA256      string `json:"base_sha256"`
	CandidateSHA256 string `json:"candidate_sha256"`
	Added           int    `json:"lines_added"`
	Removed         int    `json:"lines_removed"`
}

// CycleCounts are a file's improvement-cycle counts from the ledger: the
// proposals made and the proposals assessed since the file's last commit
// or rollback, this one included. Budgets limit them.
type CycleCounts struct {
	Proposals  int `json:"proposals"`
	Iterations int `json:"iterations"`
}

// AssessInput is what an assessment needs besides the workspace.
type AssessInput struct {
	Proposal *Proposal
	// Cycle holds the counts per file path.
	Cycle map[string]CycleCounts
	// Now is the assessment's time stamp (RFC 3339).
	Now string
	// AllowedPrograms is the validation allow-list (nil: the default).
	AllowedPrograms []string
}

type loaded struct {
	rel        string
	abs        string
	parent     *load.Package // nil when the file is new
	candidate  *load.Package
	pDiags     []syntax.Diagnostic
	cDiags     []syntax.Diagnostic
	parentMod  *ast.Module
	candMod    *ast.Module
	added, rem int
}

// Assess assesses a proposal against its candidate files (never the live
// files): checks before and after, examples and the other tests, hashes,
// blast radius, the authority delta, the parent module's governance and
// the workspace policy, and returns the verdict. It reads the workspace
// (imports, other files, scenario and ledger files) and writes nothing.
func Assess(ws *Workspace, in AssessInput, hooks Hooks) *Assessment {
	p := in.Proposal
	a := &Assessment{ID: p.ID, Signals: p.Signals, AssessedAt: in.Now, PolicyHash: ws.PolicyHash, EvidenceHash: EvidenceHash(ws, p),
		Reasons: []Reason{}, Approvals: []Approval{}, Unmet: []Requirement{}, Files: []FileAssessment{}}
	if a.Signals == nil {
		a.Signals = []string{}
	}
	reason := func(level, rule, format string, args ...any) {
		a.Reasons = append(a.Reasons, Reason{Level: level, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	approval := func(role, why string) {
		for _, x := range a.Approvals {
			if x.Role == role && x.Reason == why {
				return
			}
		}
		a.Approvals = append(a.Approvals, Approval{Role: role, Reason: why})
	}

	// Paths: the policy may have changed since the proposal.
	for _, f := range p.Files {
		if err := ws.CheckRel(f.Path); err != nil {
			reason(Fail, "path", "%v", err)
		} else if _, err := ws.TargetRel(f.Path); err != nil {
			reason(Fail, "path", "%v", err)
		}
	}

	parentOverlay := map[string][]byte{}
	candOverlay := map[string][]byte{}
	relOverlay := map[string][]byte{}
	for _, f := range p.Files {
		abs := ws.Abs(f.Path)
		if f.BaseExists {
			parentOverlay[abs] = f.Base
		} else {
			parentOverlay[abs] = nil
		}
		candOverlay[abs] = f.Candidate
		relOverlay[f.Path] = f.Candidate
	}
	lp, lc := ws.loader(parentOverlay), ws.loader(candOverlay)

	var files []*loaded
	var diffs strings.Builder
	var newDiags, oldDiags []DiagnosticItem
	for _, f := range p.Files {
		l := &loaded{rel: f.Path, abs: ws.Abs(f.Path)}
		if f.BaseExists {
			l.parent = lp.LoadSource(l.abs, f.Base)
			l.pDiags = checked(l.parent, hooks)
			l.parentMod = l.parent.File.Module
		}
		l.candidate = lc.LoadSource(l.abs, f.Candidate)
		l.cDiags = checked(l.candidate, hooks)
		l.candMod = l.candidate.File.Module
		l.added, l.rem = LineStats(f.Base, f.Candidate)
		diffs.WriteString(UnifiedDiff(f.Path, f.Base, f.BaseExists, f.Candidate))
		files = append(files, l)
		fa := FileAssessment{Path: f.Path, BaseSHA256: f.BaseSHA256, CandidateSHA256: f.CandidateSHA256, Added: l.added, Removed: l.rem}
		if l.parent != nil {
			fa.ParentHash = l.parent.Hash
		}
		fa.CandidateHash = l.candidate.Hash
		if l.candMod != nil {
			fa.Module = l.candMod.Name.Name
		}
		a.Files = append(a.Files, fa)
		if l.parent != nil {
			oldDiags = append(oldDiags, items(f.Path, l.parent, l.pDiags)...)
		}
		newDiags = append(newDiags, items(f.Path, l.candidate, l.cDiags)...)
	}

	// Files that import a target: their diagnostics may change too.
	targets := map[string]bool{}
	for _, l := range files {
		targets[l.abs] = true
	}
	for _, rel := range ws.walkCaps(2000) {
		abs := ws.Abs(rel)
		if targets[abs] {
			continue
		}
		src, _, err := ws.readLive(rel)
		if err != nil || !bytes.Contains(src, []byte("(import")) {
			continue
		}
		cp, err := lc.Load(abs)
		if err != nil || !importsAny(cp.Result, targets, map[*check.Result]bool{}) {
			continue
		}
		pp, err := lp.Load(abs)
		if err != nil {
			continue
		}
		oldDiags = append(oldDiags, items(rel, pp, checked(pp, hooks))...)
		newDiags = append(newDiags, items(rel, cp, checked(cp, hooks))...)
	}
	a.Diagnostics = diffDiagnostics(oldDiags, newDiags)

	// Hashes.
	a.DiffHash = SHA256([]byte(diffs.String()))
	a.ParentHash, a.CandidateHash = combinedHashes(a.Files)

	// Blast radius.
	for _, l := range files {
		a.BlastRadius.Added += l.added
		a.BlastRadius.Removed += l.rem
	}
	a.BlastRadius.Files = len(files)
	a.BlastRadius.Lines = a.BlastRadius.Added + a.BlastRadius.Removed

	// Authority.
	a.AuthorityDelta = AuthorityDelta{Added: []AuthorityItem{}, Removed: []AuthorityItem{}}
	perFile := map[string]AuthorityDelta{}
	for _, l := range files {
		d := CompareAuthority(l.parentMod, l.candMod)
		for i := range d.Added {
			d.Added[i].Path = l.rel
		}
		for i := range d.Removed {
			d.Removed[i].Path = l.rel
		}
		perFile[l.rel] = d
		a.AuthorityDelta.Added = append(a.AuthorityDelta.Added, d.Added...)
		a.AuthorityDelta.Removed = append(a.AuthorityDelta.Removed, d.Removed...)
	}
	a.AuthorityDelta.Expansion = len(a.AuthorityDelta.Added) > 0

	// Tests.
	a.Tests.Examples = examplesReport(files, hooks)
	scenarioFiles := ws.scenarioFiles(files)
	if len(scenarioFiles) == 0 {
		a.Tests.Scenarios = TestReport{Status: StatusNone, Reason: "no scenario files for the changed modules"}
	} else if hooks.Scenarios == nil {
		a.Tests.Scenarios = TestReport{Status: StatusNotRun, Reason: "machine runtime not available", Total: len(scenarioFiles)}
		for _, s := range scenarioFiles {
			a.Tests.Scenarios.Items = append(a.Tests.Scenarios.Items, TestItem{Name: s, Status: StatusNotRun})
		}
	} else {
		a.Tests.Scenarios = hooks.Scenarios(ws, relOverlay, scenarioFiles)
	}
	a.Tests.Replay = ws.replayReport(files, relOverlay, hooks)
	a.Tests.Validation = ws.validation(relOverlay, in.AllowedPrograms, hooks)

	// Verdict rules, in the order of docs/propose.md.
	if a.Diagnostics.New != nil {
		for _, d := range a.Diagnostics.New {
			if d.Severity == "error" {
				reason(Fail, "new-error", "%s:%d: %s %s", d.Path, d.Line, d.Code, d.Message)
			}
		}
	}
	for _, l := range files {
		if l.candMod == nil {
			reason(Fail, "no-module", "%s: the candidate holds no (module ...) form", l.rel)
		}
	}
	if a.Tests.Validation.Status == StatusFailed {
		for _, c := range a.Tests.Validation.Items {
			if c.Status != StatusPassed {
				reason(Fail, "validation", "validation command %s: %s", c.Name, c.Message)
			}
		}
	}
	if a.Tests.Scenarios.Status == StatusFailed {
		reason(Fail, "scenarios", "%d scenario(s) failed", a.Tests.Scenarios.Failed)
	}
	if a.Tests.Replay.Status == StatusFailed {
		reason(Fail, "replay", "%d golden ledger(s) do not replay", a.Tests.Replay.Failed)
	}
	// Policy limits.
	lim := func(what string, got, max int, source string) {
		if max <= 0 {
			return
		}
		r := RuleResult{Rule: fmt.Sprintf("%s %s <= %d", source, what, max), Status: "met"}
		if got > max {
			r.Status, r.Message = "failed", fmt.Sprintf("the change touches %d %s", got, what)
			reason(Fail, "blast-radius", "%s allows at most %d %s; the change touches %d", source, max, what, got)
		}
		a.Governance.Limits = append(a.Governance.Limits, r)
	}
	lim("files", a.BlastRadius.Files, ws.Policy.MaxFiles, "policy")
	lim("lines", a.BlastRadius.Lines, ws.Policy.MaxLines, "policy")

	// Authority expansion.
	for _, it := range a.AuthorityDelta.Added {
		reason(NeedsApproval, "authority-expansion", "%s", describeItem(it))
	}

	// The parent modules' governance.
	for _, l := range files {
		if l.parentMod == nil {
			continue
		}
		g := &govEval{ws: ws, l: l, delta: perFile[l.rel], examples: fileExamples(l, hooks), tests: &a.Tests,
			counts: in.Cycle[l.rel], blast: a.BlastRadius, reason: reason, approval: approval,
			unmet: func(r Requirement) { a.Unmet = append(a.Unmet, r) }}
		g.run(&a.Governance)
	}
	if a.AuthorityDelta.Expansion && !hasRole(a.Approvals) {
		approval("", "the change expands authority")
	}
	if len(p.OpenHoles) > 0 {
		reason(NeedsApproval, "open-holes", "the authoring delta leaves %d open hole(s): %s", len(p.OpenHoles), strings.Join(sortedUnique(p.OpenHoles), "; "))
		approval("", "open holes need a human decision")
	}
	if p.Source.Repair != nil && p.Source.Repair.Safety != "" {
		reason("info", "repair-safety", "repair option %s is labelled %s", p.Source.Repair.Option, p.Source.Repair.Safety)
	}
	for _, l := range files {
		if len(l.pDiags) > 0 && l.parent != nil && l.parent.Result.HasErrors() && l.candidate.Result.HasErrors() {
			reason("info", "remaining-errors", "%s still has errors the proposal does not resolve", l.rel)
		}
	}

	// Verdict: the most severe level among the reasons.
	a.Verdict = Pass
	for _, r := range a.Reasons {
		if levelRank(r.Level) < levelRank(a.Verdict) {
			a.Verdict = r.Level
		}
	}
	if a.Verdict == Pass {
		a.Approvals = []Approval{}
	}
	sort.SliceStable(a.Reasons, func(i, j int) bool { return levelRank(a.Reasons[i].Level) < levelRank(a.Reasons[j].Level) })
	a.Confidence = confidence(a, files)
	return a
}

func hasRole(as []Approval) bool { return len(as) > 0 }

// levelRank orders reason levels and verdicts, the most severe first:
// fail, incomplete, needs-approval, then pass and info.
func levelRank(l string) int {
	switch l {
	case Fail:
		return 0
	case Incomplete:
		return 1
	case NeedsApproval:
		return 2
	}
	return 3
}

func describeItem(it AuthorityItem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s %s", it.Path, it.Change, it.Kind, it.Name)
	if it.In != "" && it.In != "module" {
		fmt.Fprintf(&b, " in %s", it.In)
	}
	switch {
	case it.From == "" && it.To == "removed":
		b.WriteString(" (restriction removed)")
	case it.From != "" || it.To != "":
		fmt.Fprintf(&b, " (%s -> %s)", orNone(it.From), orNone(it.To))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// importsAny reports whether a checked module imports (transitively) one
// of the files.
func importsAny(r *check.Result, files map[string]bool, seen map[*check.Result]bool) bool {
	if r == nil || seen[r] {
		return false
	}
	seen[r] = true
	for _, im := range r.Imports {
		if files[im.File] {
			return true
		}
		if im.Result != nil && importsAny(im.Result, files, seen) {
			return true
		}
	}
	return false
}

func items(rel string, pkg *load.Package, ds []syntax.Diagnostic) []DiagnosticItem {
	var lines *syntax.Mapper
	if pkg.File != nil && pkg.File.Source != nil && pkg.File.Source.CST != nil {
		lines = pkg.File.Source.CST.Lines
	} else {
		lines = syntax.NewMapper(pkg.Src)
	}
	var out []DiagnosticItem
	for _, d := range ds {
		pos := lines.Point(d.Span.Start)
		out = append(out, DiagnosticItem{Path: rel, Code: d.Code, Severity: d.Severity.String(), Message: d.Message, Line: pos.Line, Column: pos.Column})
	}
	return out
}

func diffDiagnostics(before, after []DiagnosticItem) DiagnosticDelta {
	key := func(d DiagnosticItem) string { return d.Path + "\x00" + d.Code + "\x00" + d.Message }
	count := func(ds []DiagnosticItem) (c Counts) {
		for _, d := range ds {
			switch d.Severity {
			case "error":
				c.Errors++
			case "warning":
				c.Warnings++
			}
		}
		return
	}
	out := DiagnosticDelta{New: []DiagnosticItem{}, Resolved: []DiagnosticItem{}, Before: count(before), After: count(after)}
	left := map[string]int{}
	for _, d := range before {
		left[key(d)]++
	}
	for _, d := range after {
		if left[key(d)] > 0 {
			left[key(d)]--
			continue
		}
		if d.Severity == "error" || d.Severity == "warning" {
			out.New = append(out.New, d)
		}
	}
	right := map[string]int{}
	for _, d := range after {
		right[key(d)]++
	}
	for _, d := range before {
		if right[key(d)] > 0 {
			right[key(d)]--
			continue
		}
		if d.Severity == "error" || d.Severity == "warning" {
			out.Resolved = append(out.Resolved, d)
		}
	}
	return out
}

// combinedHashes returns the parent and candidate hashes: the file's
// semantic hashes for one file, else the SHA-256 of the JSON list of
// {path, hash} pairs.
func combinedHashes(fs []FileAssessment) (string, string) {
	if len(fs) == 1 {
		return fs[0].ParentHash, fs[0].CandidateHash
	}
	type ph struct {
		Path string `json:"path"`
		Hash string `json:"hash"`
	}
	var ps, cs []ph
	for _, f := range fs {
		ps = append(ps, ph{f.Path, f.ParentHash})
		cs = append(cs, ph{f.Path, f.CandidateHash})
	}
	pb, _ := json.Marshal(ps)
	cb, _ := json.Marshal(cs)
	return SHA256(pb), SHA256(cb)
}

// fileExamples is the examples report of one candidate file.
func fileExamples(l *loaded, hooks Hooks) TestReport {
	return examplesReport([]*loaded{l}, hooks)
}

func examplesReport(files []*loaded, hooks Hooks) TestReport {
	r := TestReport{}
	errs := false
	for _, l := range files {
		r.Total += len(l.candidate.Result.Examples)
		if l.candidate.Result.HasErrors() {
			errs = true
		}
	}
	switch {
	case r.Total == 0:
		r.Status, r.Reason = StatusNone, "the changed modules have no examples"
		return r
	case errs:
		r.Status, r.Reason = StatusNotRun, "the candidate has errors; examples run on checked modules only"
		return r
	case hooks.Examples == nil:
		r.Status, r.Reason = StatusNotRun, "no interpreter"
		return r
	}
	notRun := 0
	for _, l := range files {
		for _, d := range l.cDiags {
			switch d.Code {
			case check.ExampleFailed:
				r.Failed++
				pos := l.candidate.File.Source.CST.Lines.Point(d.Span.Start)
				r.Items = append(r.Items, TestItem{Name: fmt.Sprintf("%s:%d", l.rel, pos.Line), Status: StatusFailed, Message: d.Message})
			case check.ExampleNotEvaluated:
				notRun++
			}
		}
	}
	r.Passed = r.Total - r.Failed - notRun
	switch {
	case r.Failed > 0:
		r.Status = StatusFailed
	case notRun == r.Total:
		r.Status, r.Reason = StatusNotRun, "the interpreter could not evaluate the examples"
	default:
		r.Status = StatusPassed
		if notRun > 0 {
			r.Reason = fmt.Sprintf("%d example(s) not evaluated", notRun)
		}
	}
	return r
}

// scenarioFiles lists scenario files for the candidate modules' machines:
// scenarios/LAST.MACHINE.json or LAST.MACHINE.VARIANT.json, in the root's
// or a top folder's scenarios folder, where LAST is the module name's last
// segment.
func (ws *Workspace) scenarioFiles(files []*loaded) []string {
	want := map[string]bool{}
	for _, l := range files {
		m := l.candMod
		if m == nil {
			continue
		}
		last := m.Name.Name[strings.LastIndex(m.Name.Name, ".")+1:]
		for _, d := range m.Decls {
			if mc, ok := d.(*ast.Machine); ok {
				want[last+"."+mc.Name.Name] = true
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	var out []string
	matches, _ := filepath.Glob(filepath.Join(ws.Root, "scenarios", "*.json"))
	deeper, _ := filepath.Glob(filepath.Join(ws.Root, "*", "scenarios", "*.json"))
	for _, m := range append(matches, deeper...) {
		// MODULE.MACHINE.json or MODULE.MACHINE.VARIANT.json
		parts := strings.Split(strings.TrimSuffix(filepath.Base(m), ".json"), ".")
		if len(parts) >= 2 && want[parts[0]+"."+parts[1]] {
			rel, _ := filepath.Rel(ws.Root, m)
			out = append(out, filepath.ToSlash(rel))
		}
	}
	sort.Strings(out)
	return out
}

// goldenLedgers finds golden ledgers: the files matching the parents'
// eval-suite (must-pass replay GLOB) patterns (see replayGlob), plus
// ledgers/golden/*.jsonl. It returns the files and the patterns that match
// nothing.
func (ws *Workspace) goldenLedgers(files []*loaded) ([]string, []string) {
	set := map[string]bool{}
	var empty []string
	for _, m := range ws.globRel(ws.Root, "ledgers/golden/*.jsonl") {
		set[m] = true
	}
	for _, l := range files {
		for _, g := range replayPatterns(l) {
			ms := ws.replayGlob(l, g)
			if len(ms) == 0 {
				empty = append(empty, g)
			}
			for _, m := range ms {
				set[m] = true
			}
		}
	}
	return sortedKeys(set), sortedUnique(empty)
}

// replayPatterns returns the GLOBs of the (must-pass replay GLOB) rules of
// a file's eval-suites: the parent's, or the candidate's for a new file.
func replayPatterns(l *loaded) []string {
	m := l.parentMod
	if m == nil {
		m = l.candMod
	}
	if m == nil {
		return nil
	}
	var out []string
	for _, d := range m.Decls {
		cd, ok := d.(*ast.ClauseDecl)
		if !ok || cd.DeclKind != ast.KindEvalSuite {
			continue
		}
		for _, cl := range cd.Clauses {
			if cl.Key.Name == "must-pass" && len(cl.Args) == 2 && cl.Args[0].Text() == "replay" && cl.Args[1].Kind == syntax.FormString {
				out = append(out, cl.Args[1].Text())
			}
		}
	}
	return out
}

// replayGlob returns the workspace-relative files a replay GLOB of a
// module matches, relative to the workspace root or to the module's
// folder, sorted and without repeats.
func (ws *Workspace) replayGlob(l *loaded, pattern string) []string {
	set := map[string]bool{}
	for _, m := range append(ws.globRel(ws.Root, pattern), ws.globRel(filepath.Dir(l.abs), pattern)...) {
		set[m] = true
	}
	return sortedKeys(set)
}

// globRel returns the workspace-relative files that a slash pattern
// matches under dir. Patterns that are absolute or climb with ".." match
// nothing, and so do files outside the workspace.
func (ws *Workspace) globRel(dir, pattern string) []string {
	if strings.Contains(pattern, "..") || path.IsAbs(pattern) {
		return nil
	}
	ms, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
	var out []string
	for _, m := range ms {
		rel, err := filepath.Rel(ws.Root, m)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// replayReport replays the golden ledgers (goldenLedgers) against the
// candidates. A replay GLOB that matches no file is listed as an item of
// status none; with no ledger at all, nothing is replayed and the status
// is none, never passed.
func (ws *Workspace) replayReport(files []*loaded, overlay map[string][]byte, hooks Hooks) TestReport {
	ledgers, globs := ws.goldenLedgers(files)
	var r TestReport
	switch {
	case len(ledgers) == 0:
		r = TestReport{Status: StatusNone, Reason: "no golden ledgers in the workspace"}
		if len(globs) > 0 {
			r.Reason = "no golden ledgers: no file matches " + strings.Join(globs, ", ")
		}
	case hooks.Replay == nil:
		r = TestReport{Status: StatusNotAvailable, Reason: "replay verifier not available", Total: len(ledgers)}
		for _, g := range ledgers {
			r.Items = append(r.Items, TestItem{Name: g, Status: StatusNotAvailable})
		}
	default:
		r = hooks.Replay(ws, overlay, ledgers)
	}
	for _, g := range globs {
		r.Items = append(r.Items, TestItem{Name: g, Status: StatusNone, Message: "no file matches"})
	}
	return r
}

// validation runs the policy's validation commands.
func (ws *Workspace) validation(overlay map[string][]byte, allowed []string, hooks Hooks) TestReport {
	specs := ws.Policy.Validation
	if len(specs) == 0 {
		return TestReport{Status: StatusNone, Reason: "the workspace policy has no validation commands"}
	}
	if allowed == nil {
		allowed = DefaultAllowedPrograms
	}
	r := TestReport{Total: len(specs)}
	var cmds []Command
	for _, s := range specs {
		argv, err := ParseCommand(s.Command, allowed)
		if err != nil {
			r.Failed++
			r.Items = append(r.Items, TestItem{Name: s.Name, Status: StatusFailed, Message: err.Error()})
			continue
		}
		cmds = append(cmds, Command{Name: s.Name, Argv: argv, Timeout: s.Timeout()})
	}
	if len(cmds) > 0 {
		if hooks.Validate == nil {
			for _, c := range cmds {
				r.Items = append(r.Items, TestItem{Name: c.Name, Status: StatusNotRun, Message: "no command runner"})
			}
		} else {
			res := hooks.Validate(ws, overlay, cmds)
			r.Commands = res
			for _, c := range res {
				if c.OK {
					r.Passed++
					r.Items = append(r.Items, TestItem{Name: c.Name, Status: StatusPassed})
					continue
				}
				r.Failed++
				msg := c.Error
				if msg == "" {
					msg = fmt.Sprintf("exit code %d", c.ExitCode)
					if s := lastLine(c.Stderr); s != "" {
						msg += ": " + s
					}
				}
				r.Items = append(r.Items, TestItem{Name: c.Name, Status: StatusFailed, Message: msg})
			}
		}
	}
	switch {
	case r.Failed > 0:
		r.Status = StatusFailed
	case r.Passed == r.Total:
		r.Status = StatusPassed
	default:
		r.Status, r.Reason = StatusNotRun, "no command runner"
	}
	return r
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// confidence implements the formula of docs/propose.md:
//
//	confidence = V × B × U
//
// V, the validation score, is the mean over the evidence that ran of its
// score: the check (1 when the candidate has no errors, 0.5 when only
// errors that were already there remain, 0 with new errors), examples,
// validation commands, scenarios and replay (each passed/total). B, the
// blast-radius factor, is 1 / (1 + lines/200 + (files-1)/4). U, the
// coverage factor, is 0.9^k for the k kinds of evidence that exist but
// could not run (examples, scenarios, replay, validation). The result is
// rounded to 3 decimals.
func confidence(a *Assessment, files []*loaded) float64 {
	var scores []float64
	check := 1.0
	for _, l := range files {
		if l.candidate.Result.HasErrors() {
			check = min(check, 0.5)
		}
	}
	for _, d := range a.Diagnostics.New {
		if d.Severity == "error" {
			check = 0
		}
	}
	scores = append(scores, check)
	k := 0
	for _, t := range []TestReport{a.Tests.Examples, a.Tests.Validation, a.Tests.Scenarios, a.Tests.Replay} {
		switch t.Status {
		case StatusPassed, StatusFailed:
			if n := t.Passed + t.Failed; n > 0 {
				scores = append(scores, float64(t.Passed)/float64(n))
			}
		case StatusNotRun, StatusNotAvailable:
			k++
		}
	}
	v := 0.0
	for _, s := range scores {
		v += s
	}
	v /= float64(len(scores))
	b := 1 / (1 + float64(a.BlastRadius.Lines)/200 + float64(max(0, a.BlastRadius.Files-1))/4)
	u := math.Pow(0.9, float64(k))
	return math.Round(v*b*u*1000) / 1000
}
