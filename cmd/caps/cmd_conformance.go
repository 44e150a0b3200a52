package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/verify"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/runtime/trace"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

func init() {
	cli.Register(&cli.Command{
		Name: "conformance",
		Output: func() cli.Schema {
			return report.ResultSchema(conformanceJSON{})
		},
		Effects: cli.Effects{Reads: []string{"DIR", "agent/", "docs/schemas", ".ci/run"},
			Writes: []string{"temporary folders (the ledgers of its runs, a copy of DIR as an evolution workspace), removed after"},
			Runs:   []string{"z3"}},
		Example:  cli.Example{Line: "caps conformance --json examples"},
		Negative: cli.Example{Line: "caps conformance --json nosuch", Exit: 2, Note: "no such folder"},
		Args:     "[--json] [DIR]",
		Short:    "run the CPS-0..CPS-10 conformance ladder against the shipped examples",
		Long: `Conformance runs the specification's conformance ladder (CPS-0 Parsed to
CPS-10 Protocol-Native) against the modules of DIR (default examples),
which holds the spec's numbered example modules (NN_name.caps) and the
project's own, and prints each level as met or unmet with its evidence.

Each level has requirements, each checked by running the toolchain on
those modules: parsing, checking (negative examples, *_bad_*.caps, must
fail with the code on their ";; expect:" line), the function examples,
the machine scenarios of DIR/scenarios (twice, to show they are
deterministic; the runs must show timeouts, retries, failures and a
cancellation), the scenarios run again in live mode against loopback
peers the command starts itself (an A2A agent, an A2UI renderer and an
HTTP service, in Go on 127.0.0.1) with their ledgers replayed, one dry
run of every machine with a ledger (replayed, then replayed again with a
record changed) and its trace, the agent manifest and schemas against
the command table, the governed improvement workflow (propose, assess,
commit with approval, ledger verify) in a temporary copy of DIR, the
Authority IR's host-policy export, the protocol exports, and Z3 on every
proof obligation. What the command cannot show counts as unmet, with the
reason: a level is met only when all its requirements are shown and, as
the ladder is cumulative, every level below it is met. highest_met is
the top of the unbroken run of met levels from CPS-0.

CPS-7 (Verified) is judged module by module: it is shown only for the
modules whose obligations Z3 discharges, all of them, and the report
says so. Run it from the repository's root (it reads agent/,
docs/schemas and .ci/run there). docs/conformance.md lists every
requirement. --json prints one JSON document (docs/cli.md). Exit 0 when
the ladder ran, whatever it found; 2 on a usage or I/O error (DIR
missing, z3 not needed).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print a JSON document on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) > 1 {
					return c.UsageErrorf("expected at most one DIR")
				}
				dir := "examples"
				if len(args) == 1 {
					dir = args[0]
				}
				return runConformance(c, dir, *jsonOut)
			}
		},
	})
}

// requirementJSON is one requirement of a level and whether it was shown.
type requirementJSON struct {
	Requirement string `json:"requirement"`
	Met         bool   `json:"met"`
	Evidence    string `json:"evidence"`
}

type levelResultJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Met: every requirement of this level and every level below is met.
	Met bool `json:"met"`
	// OwnMet: every requirement of this level is met.
	OwnMet       bool              `json:"own_met"`
	Requirements []requirementJSON `json:"requirements"`
	// Modules lists, for CPS-7, the modules for which it is shown.
	Modules []string `json:"modules,omitempty"`
}

type conformanceJSON struct {
	Dir         string            `json:"dir"`
	SpecModules []string          `json:"spec_modules"`
	Modules     []string          `json:"modules"`
	Levels      []levelResultJSON `json:"levels"`
	// Highest is the highest level met ("" when none).
	Highest string `json:"highest_met"`
}

var specModuleRE = regexp.MustCompile(`^\d\d_`)

// conformanceModule is one module file of DIR.
type conformanceModule struct {
	path     string
	negative bool
	pkg      *load.Package
}

func runConformance(c *cli.Context, dir string, asJSON bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, asJSON)
	paths, err := filepath.Glob(filepath.Join(dir, "*.caps"))
	if err == nil && len(paths) == 0 {
		err = fmt.Errorf("%s holds no .caps module; run caps conformance from the repository, or name the examples folder", dir)
	}
	if err != nil {
		p.Fail(dir, err)
		return p.Finish()
	}
	sort.Strings(paths)
	res := conformanceJSON{Dir: cli.DisplayPath(dir), SpecModules: []string{}, Modules: []string{}}
	var mods []*conformanceModule
	for _, path := range paths {
		m := &conformanceModule{path: path, negative: strings.Contains(filepath.Base(path), "_bad_")}
		pkg, err := newLoader(c).Load(path)
		if err != nil {
			p.Fail(path, err)
			return p.Finish()
		}
		m.pkg = pkg
		mods = append(mods, m)
		name := filepath.ToSlash(path)
		res.Modules = append(res.Modules, name)
		if specModuleRE.MatchString(filepath.Base(path)) {
			res.SpecModules = append(res.SpecModules, name)
		}
	}
	var checked []*conformanceModule // the modules without errors
	for _, m := range mods {
		if !m.negative && m.pkg.File.Module != nil && !m.pkg.Result.HasErrors() {
			checked = append(checked, m)
		}
	}
	req := func(what string, met bool, format string, args ...any) requirementJSON {
		return requirementJSON{Requirement: what, Met: met, Evidence: fmt.Sprintf(format, args...)}
	}
	ledger := conformanceLedger(checked, req)
	levels := []levelResultJSON{
		{ID: "CPS-0", Name: "Parsed", Requirements: []requirementJSON{conformanceParsed(mods, req)}},
		{ID: "CPS-1", Name: "Checked", Requirements: []requirementJSON{conformanceChecked(mods, req)}},
		{ID: "CPS-2", Name: "Interpretable", Requirements: []requirementJSON{conformanceExamples(checked, req)}},
		{ID: "CPS-3", Name: "Runtime-Capable", Requirements: append(conformanceScenarios(dir, checked, req),
			conformanceLive(dir, checked, req)...)},
		{ID: "CPS-4", Name: "Ledgered", Requirements: ledger.persisted},
		{ID: "CPS-5", Name: "Traceable", Requirements: ledger.traced},
		{ID: "CPS-6", Name: "Agent-Operable", Requirements: conformanceAgent(mods, req)},
		{ID: "CPS-7", Name: "Verified"},
		{ID: "CPS-8", Name: "Improvement-Governed", Requirements: append([]requirementJSON{conformanceImprovementDecls(checked, req)},
			conformanceImprovement(dir, checked, req)...)},
		{ID: "CPS-9", Name: "Authority-Governed", Requirements: append(conformanceDecls(checked, req, "authority", "(mandate", "a mandate"),
			conformanceCommand(checked, req, "(mandate", "exported as a host-policy artifact", "host-policy", "--json"))},
		{ID: "CPS-10", Name: "Protocol-Native", Requirements: append(conformanceDecls(checked, req, "protocol", "(surface ", "an A2UI surface"),
			conformanceCommand(checked, req, "(surface ", "protocol-plan export", "protocol-plan", "--json"),
			conformanceCommand(checked, req, "(surface ", "A2UI manifest export", "a2ui-manifest", "--json"))},
	}
	v7, shown := conformanceVerified(checked, req)
	levels[7].Requirements, levels[7].Modules = v7, shown
	below := true
	for i := range levels {
		l := &levels[i]
		l.OwnMet = len(l.Requirements) > 0
		for _, r := range l.Requirements {
			l.OwnMet = l.OwnMet && r.Met
		}
		l.Met = below && l.OwnMet
		below = l.Met
		if l.Met {
			res.Highest = l.ID
		}
	}
	res.Levels = levels
	f := p.Add(&report.Source{Path: dir}, nil)
	f.Extra = res
	if !asJSON {
		fmt.Fprintf(c.Stdout, "conformance of %s: %d modules, %d of them the spec's numbered examples\n", res.Dir, len(res.Modules), len(res.SpecModules))
		for _, l := range levels {
			status := "unmet"
			switch {
			case l.Met:
				status = "met"
			case l.OwnMet:
				status = "unmet (its own requirements are met; a lower level is not)"
			}
			fmt.Fprintf(c.Stdout, "%-6s %-20s %s\n", l.ID, l.Name, status)
			for _, r := range l.Requirements {
				mark := "ok  "
				if !r.Met {
					mark = "NOT "
				}
				fmt.Fprintf(c.Stdout, "    %s%s: %s\n", mark, r.Requirement, r.Evidence)
			}
		}
		highest := res.Highest
		if highest == "" {
			highest = "none"
		}
		fmt.Fprintf(c.Stdout, "highest level met: %s\n", highest)
	}
	return p.Finish()
}

func conformanceParsed(mods []*conformanceModule, req func(string, bool, string, ...any) requirementJSON) requirementJSON {
	var bad []string
	for _, m := range mods {
		ok := m.pkg.File.Module != nil
		for _, d := range m.pkg.Result.Diagnostics {
			if d.Severity == syntax.Error && d.Code == "E_PARSE" {
				ok = false
			}
		}
		if !ok {
			bad = append(bad, filepath.Base(m.path))
		}
	}
	return req("source parses into an AST", len(bad) == 0, "%d of %d modules parse%s", len(mods)-len(bad), len(mods), listed(" (not: %s)", bad))
}

func conformanceChecked(mods []*conformanceModule, req func(string, bool, string, ...any) requirementJSON) requirementJSON {
	var bad []string
	neg := 0
	for _, m := range mods {
		if m.negative {
			neg++
			want := expectedCode(m.pkg)
			found := false
			for _, d := range m.pkg.Result.Diagnostics {
				found = found || d.Severity == syntax.Error && d.Code == want && want != ""
			}
			if !found {
				bad = append(bad, filepath.Base(m.path)+" does not fail with "+want)
			}
			continue
		}
		if m.pkg.File.Module == nil || m.pkg.Result.HasErrors() {
			bad = append(bad, filepath.Base(m.path)+" has errors")
		}
	}
	return req("types and effects validate", len(bad) == 0, "%d modules check without errors; %d negative example%s fail%s with the code of %s ;; expect: line%s", len(mods)-neg, neg, plural(neg), map[bool]string{true: "s", false: ""}[neg == 1], map[bool]string{true: "its", false: "their"}[neg == 1], listed("; not: %s", bad))
}

// expectedCode reads the ";; expect: CODE" line of a negative example.
func expectedCode(pkg *load.Package) string {
	if pkg.File.Source == nil || pkg.File.Source.CST == nil {
		return ""
	}
	for _, line := range strings.Split(string(pkg.File.Source.CST.Src), "\n") {
		if code, ok := strings.CutPrefix(strings.TrimSpace(line), ";; expect: "); ok {
			return strings.TrimSpace(code)
		}
	}
	return ""
}

func conformanceExamples(checked []*conformanceModule, req func(string, bool, string, ...any) requirementJSON) requirementJSON {
	total, passed := 0, 0
	var bad []string
	for _, m := range checked {
		for _, o := range examples.Evaluate(m.pkg.Result) {
			total++
			if o.Passed {
				passed++
			} else {
				bad = append(bad, filepath.Base(m.path))
			}
		}
	}
	return req("pure functions and their examples execute", total > 0 && passed == total, "%d of %d function examples pass in the interpreter%s", passed, total, listed(" (failing in: %s)", bad))
}

// conformanceScenarios runs every scenario of DIR/scenarios with caps
// test, twice.
func conformanceScenarios(dir string, checked []*conformanceModule, req func(string, bool, string, ...any) requirementJSON) []requirementJSON {
	scenarios, _ := filepath.Glob(filepath.Join(dir, "scenarios", "*.json"))
	sort.Strings(scenarios)
	if len(scenarios) == 0 {
		return []requirementJSON{req("machines step and run in dry-run and mock modes", false, "no scenario in %s", filepath.Join(dir, "scenarios"))}
	}
	args := []string{"test", "--json"}
	for _, s := range scenarios {
		args = append(args, "--scenario", s)
	}
	for _, m := range checked {
		args = append(args, m.path)
	}
	var out1, out2, errb bytes.Buffer
	code1 := run(args, strings.NewReader(""), &out1, &errb)
	code2 := run(args, strings.NewReader(""), &out2, &errb)
	covered, missing := runtimeSemantics(out1.Bytes(), scenarios, checked)
	return []requirementJSON{
		req("machines step and run in dry-run and mock modes", code1 == 0, "caps test runs %s of %s: exit %d", countOf(len(scenarios), "scenario"), filepath.Join(dir, "scenarios"), code1),
		req("runs are deterministic", code1 == code2 && out1.String() == out2.String(), "a second run of the same scenarios prints %s", map[bool]string{true: "the same bytes", false: "different output"}[out1.String() == out2.String()]),
		req("timeout, retry, failure and cancellation are exercised", len(missing) == 0, "the scenario runs show %s%s", map[bool]string{true: strings.Join(covered, ", "), false: "none of them"}[len(covered) > 0], listed("; not: %s", missing)),
	}
}

// conformanceDecls shows that the modules declaring a construct
// (recognized by its source text) parse, check and canonicalize.
func conformanceDecls(checked []*conformanceModule, req func(string, bool, string, ...any) requirementJSON, area, needle, what string) []requirementJSON {
	var names []string
	hashed := 0
	for _, m := range checked {
		if m.pkg.File.Source == nil || m.pkg.File.Source.CST == nil || !bytes.Contains(m.pkg.File.Source.CST.Src, []byte(needle)) {
			continue
		}
		names = append(names, filepath.Base(m.path))
		if h, err := load.IROptions(m.pkg.Result).Hash(m.pkg.File.Module); err == nil && h != "" {
			hashed++
		}
	}
	return []requirementJSON{req(area+" declarations are parsed, checked and canonicalized", len(names) > 0 && hashed == len(names),
		"%d module%s with %s check and hash (canonical IR)%s", len(names), plural(len(names)), what, listed(": %s", names))}
}

// conformanceCommand runs caps CMD ARGS... FILE on the modules whose
// source holds needle.
func conformanceCommand(checked []*conformanceModule, req func(string, bool, string, ...any) requirementJSON, needle, what, cmd string, args ...string) requirementJSON {
	n, ok := 0, 0
	for _, m := range checked {
		if m.pkg.File.Source == nil || m.pkg.File.Source.CST == nil || !bytes.Contains(m.pkg.File.Source.CST.Src, []byte(needle)) {
			continue
		}
		n++
		var out, errb bytes.Buffer
		if run(append(append([]string{cmd}, args...), m.path), strings.NewReader(""), &out, &errb) == 0 {
			ok++
		}
	}
	return req(what, n > 0 && ok == n, "caps %s succeeds on %d of %d modules", cmd, ok, n)
}

// conformanceVerified puts every obligation of every module to Z3.
func conformanceVerified(checked []*conformanceModule, req func(string, bool, string, ...any) requirementJSON) ([]requirementJSON, []string) {
	solver, err := verify.FindSolver()
	if err != nil {
		return []requirementJSON{req("proof obligations are accepted by a trusted verifier", false, "%v", err)}, nil
	}
	solver.Reuse = true
	defer solver.Close()
	var shown, open []string
	total, discharged := 0, 0
	for _, m := range checked {
		r, err := verify.Verify(context.Background(), m.pkg.Result, verify.Options{Solver: solver})
		if err != nil {
			open = append(open, filepath.Base(m.path)+" ("+err.Error()+")")
			continue
		}
		d, o, f := r.Counts()
		total += len(r.Obligations)
		discharged += d
		if o == 0 && f == 0 {
			shown = append(shown, filepath.ToSlash(m.path))
		} else {
			open = append(open, fmt.Sprintf("%s (%d open, %d failed)", filepath.Base(m.path), o, f))
		}
	}
	return []requirementJSON{
		req("every proof obligation is discharged by a trusted verifier", len(open) == 0,
			"%s discharges %d of %d obligations; every obligation of %d of %d modules%s%s. Shown for those modules only, by the SMT solver: their Lean statements (caps emit-lean-obligations) still end in sorry", solver.Version(), discharged, total, len(shown), len(checked), listed(": %s", baseNames(shown)), listed("; not of: %s", open)),
	}, shown
}

func baseNames(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

// listed formats a list into format, or "" when it is empty.
func listed(format string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	return fmt.Sprintf(format, strings.Join(items, ", "))
}

type ledgerEvidence struct{ persisted, traced []requirementJSON }

// conformanceLedger runs the first event of the initial state of every
// machine of the
// checked modules in dry-run mode with a ledger, replays each ledger,
// replays it again after changing one record (which must fail), and
// reads its trace.
func conformanceLedger(checked []*conformanceModule, req func(string, bool, string, ...any) requirementJSON) ledgerEvidence {
	tmp, err := os.MkdirTemp("", "caps-conformance-")
	if err != nil {
		r := req("execution is persisted and replay-verifiable", false, "%v", err)
		return ledgerEvidence{[]requirementJSON{r}, []requirementJSON{req("trace records", false, "%v", err)}}
	}
	defer os.RemoveAll(tmp)
	runs, replayed, tamperCaught, traced, records, fails, failsOK := 0, 0, 0, 0, 0, 0, 0
	var missing, failed []string
	for _, m := range checked {
		for _, d := range m.pkg.File.Module.Decls {
			mach, ok := d.(*ast.Machine)
			if !ok {
				continue
			}
			var event string
			for _, st := range mach.States {
				if st.Name.Name == mach.Initial.Name && len(st.Transitions) > 0 {
					event = st.Transitions[0].Event.Name
				}
			}
			if event == "" {
				continue
			}
			runs++
			dir := filepath.Join(tmp, fmt.Sprintf("run%d", runs))
			var out, errb bytes.Buffer
			// Exit 1 is a step that failed (a guard, a policy): still a
			// run, recorded in the ledger.
			if code := run([]string{"machine-run", "--ledger", dir, m.path, mach.Name.Name, event}, strings.NewReader(""), &out, &errb); code > 1 {
				failed = append(failed, filepath.Base(m.path)+" "+mach.Name.Name)
				continue
			}
			out.Reset()
			if run([]string{"replay", "--module", m.path, dir}, strings.NewReader(""), &out, &errb) == 0 {
				replayed++
			}
			out.Reset()
			var doc struct {
				Records []map[string]any `json:"records"`
			}
			if run([]string{"trace", "--json", dir}, strings.NewReader(""), &out, &errb) == 0 {
				json.Unmarshal(out.Bytes(), &doc)
			}
			if tamperLedger(dir) && run([]string{"replay", "--module", m.path, dir}, strings.NewReader(""), &out, &errb) != 0 {
				tamperCaught++
			}
			ok = len(doc.Records) > 0
			for _, r := range doc.Records {
				records++
				if ev, _ := r["event"].(string); strings.HasSuffix(ev, ".fail") {
					fails++
					code, _ := r["error_code"].(string)
					history, _ := r["trace_history"].([]any)
					if code != "" && len(history) > 0 && len(history) <= trace.MaxBreadcrumbs {
						failsOK++
					}
				}
				for _, k := range []string{"trace_id", "span_id", "event", "component", "operation"} {
					if v, _ := r[k].(string); v == "" {
						ok = false
						missing = append(missing, k)
					}
				}
			}
			if ok {
				traced++
			}
		}
	}
	return ledgerEvidence{
		persisted: []requirementJSON{
			req("execution is persisted and replays", runs > 0 && replayed == runs, "the first event of %d machines runs in dry-run mode with a ledger (caps machine-run --ledger); caps replay verifies %d of the %d ledgers%s", runs, replayed, runs, listed(" (the run failed: %s)", failed)),
			req("a changed ledger fails to replay", runs > 0 && tamperCaught == runs, "with one record changed, caps replay rejects %d of the %d ledgers", tamperCaught, runs),
		},
		traced: []requirementJSON{
			req("trace records carry trace and span ids, event kind, component and operation", runs > 0 && traced == runs, "caps trace reads %d records of %d runs; every field present in %d runs%s", records, runs, traced, listed(" (missing: %s)", missing)),
			req("failure records carry a diagnostic code and bounded breadcrumbs", fails > 0 && failsOK == fails, "%d of the %d failure records of those runs have an error_code and a trace_history of 1 to %d breadcrumbs", failsOK, fails, trace.MaxBreadcrumbs),
		},
	}
}

// tamperLedger changes the first "step" record field it finds in the
// ledger files of dir; it reports whether it changed something.
func tamperLedger(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(data, []byte(`"seq":1`)) {
			continue
		}
		changed := bytes.Replace(data, []byte(`"seq":1`), []byte(`"seq":7`), 1)
		return os.WriteFile(f, changed, 0o644) == nil
	}
	return false
}
