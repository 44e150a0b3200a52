package evolution

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/replay"
	"github.com/capsulang/caps/runtime/scenario"
)

// overlayLoader returns a loader that reads the candidate's files from the
// overlay (workspace-relative path -> content) and everything else from
// disk.
func overlayLoader(ws *propose.Workspace, overlay map[string][]byte) *load.Loader {
	byAbs := map[string][]byte{}
	for rel, b := range overlay {
		byAbs[ws.Abs(rel)] = b
	}
	return &load.Loader{Roots: ws.ImportRoots, ReadFile: func(path string) ([]byte, error) {
		abs, err := filepath.Abs(path)
		if err == nil {
			if b, ok := byAbs[abs]; ok {
				return b, nil
			}
		}
		return load.ReadSource(path)
	}}
}

// runScenarios is the default Scenarios hook: each scenario file
// (DIR/scenarios/MODULE.MACHINE[.VARIANT].json) runs against the
// candidate's DIR/MODULE.caps with the machine runtime.
func runScenarios(ws *propose.Workspace, overlay map[string][]byte, files []string) propose.TestReport {
	rep := propose.TestReport{Status: propose.StatusPassed, Total: len(files)}
	l := overlayLoader(ws, overlay)
	for _, rel := range files {
		item := propose.TestItem{Name: rel, Status: propose.StatusPassed}
		fail := func(format string, args ...any) {
			item.Status, item.Message = propose.StatusFailed, fmt.Sprintf(format, args...)
		}
		abs := ws.Abs(rel)
		sc, err := scenario.Load(abs)
		if err != nil {
			fail("%v", err)
		} else {
			module := strings.SplitN(filepath.Base(abs), ".", 2)[0]
			modPath := filepath.Join(filepath.Dir(filepath.Dir(abs)), module+".caps")
			pkg, err := l.Load(modPath)
			switch {
			case err != nil:
				fail("module %s: %v", module, err)
			case pkg.Result.HasErrors():
				fail("module %s has errors", module)
			default:
				m, err := machine.Compile(pkg.Result, sc.Machine, machine.Options{Hash: pkg.Hash})
				if err != nil {
					fail("%v", err)
				} else if r := scenario.Run(m, sc); !r.Passed {
					fail("%s", strings.TrimSpace(r.Text(filepath.Base(abs))))
				}
			}
		}
		if item.Status == propose.StatusPassed {
			rep.Passed++
		} else {
			rep.Failed++
			rep.Status = propose.StatusFailed
		}
		rep.Items = append(rep.Items, item)
	}
	return rep
}

// replayLedgers is the default Replay hook: each golden ledger replays
// against the candidate's modules (a relative module path in a ledger is
// relative to the workspace root) and passes when the candidate
// regenerates every recorded step (reproducesBehaviour).
func replayLedgers(ws *propose.Workspace, overlay map[string][]byte, paths []string) propose.TestReport {
	rep := propose.TestReport{Status: propose.StatusPassed, Total: len(paths)}
	for _, rel := range paths {
		r := replayGolden(ws.Abs(rel), replay.Options{Loader: overlayLoader(ws, overlay), Base: ws.Root})
		item := propose.TestItem{Name: rel, Status: propose.StatusPassed}
		if !reproducesBehaviour(r) {
			item.Status, item.Message = propose.StatusFailed, strings.TrimSpace(r.Text())
			rep.Failed++
			rep.Status = propose.StatusFailed
		} else {
			rep.Passed++
		}
		rep.Items = append(rep.Items, item)
	}
	return rep
}

// replayGolden replays one golden ledger: a ledger folder, as caps
// machine-run --ledger writes, or a ledger's chain file on its own (what
// a (must-pass replay "ledgers/golden/*.jsonl") glob matches).
func replayGolden(abs string, opts replay.Options) *replay.Report {
	st, err := os.Stat(abs)
	if err != nil || st.IsDir() {
		return replay.Dir(abs, opts)
	}
	f, err := chain.Open(abs, chain.Options{Sync: chain.SyncNever})
	if err != nil {
		var ce *chain.CorruptError
		if errors.As(err, &ce) {
			return &replay.Report{Tamper: ce.Problem}
		}
		return &replay.Report{Error: err.Error()}
	}
	defer f.Close()
	return replay.Store(ledger.ChainStore{Log: f}, opts)
}

// reproducesBehaviour reports whether a replay against a candidate
// regenerated every record: the chain is intact, nothing differs and
// nothing stopped the replay. The candidate's semantic hash differs from
// the recorded one whenever it changes the module; that is what is being
// assessed, not a failure.
func reproducesBehaviour(r *replay.Report) bool {
	return r.OK || r.HashChanged && r.Tamper == nil && r.Mismatch == nil && r.Error == ""
}
