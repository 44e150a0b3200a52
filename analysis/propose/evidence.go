package propose

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/capsulang/caps/syntax/ast"
)

// EvidenceHash fingerprints the evidence files an assessment of p reads
// besides its targets: the golden ledgers and the scenario files, each by
// path and content (a ledger folder by its chain file). An assessment
// records it; a commit re-assesses when it changed, so that evidence
// supplied after an assessment counts, and evidence removed since does
// not.
func EvidenceHash(ws *Workspace, p *Proposal) string {
	files := parsedTargets(ws, p)
	ledgers, _ := ws.goldenLedgers(files)
	type entry struct {
		Path   string `json:"path"`
		SHA256 string `json:"sha256"`
	}
	entries := []entry{}
	for _, rel := range append(ledgers, ws.scenarioFiles(files)...) {
		entries = append(entries, entry{rel, fileHash(ws.Abs(rel))})
	}
	b, _ := json.Marshal(entries)
	return SHA256(b)
}

// parsedTargets parses a proposal's base and candidate files, enough for
// finding its evidence files (no check, no imports).
func parsedTargets(ws *Workspace, p *Proposal) []*loaded {
	var out []*loaded
	for _, f := range p.Files {
		l := &loaded{rel: f.Path, abs: ws.Abs(f.Path)}
		if f.BaseExists {
			if pf, err := ast.Parse(f.Base); err == nil {
				l.parentMod = pf.Module
			}
		}
		if cf, err := ast.Parse(f.Candidate); err == nil {
			l.candMod = cf.Module
		}
		out = append(out, l)
	}
	return out
}

// fileHash is the SHA-256 of a file, of a ledger folder's chain file, or
// "" when there is none.
func fileHash(abs string) string {
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		abs = filepath.Join(abs, "ledger.jsonl")
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return ""
	}
	return SHA256(b)
}
