package evolution

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/internal/durable"
)

func (w *Workspace) proposalDir(id string) string { return filepath.Join(w.meta, "proposals", id) }

// writeProposal stores a new proposal: written into a temporary folder,
// synced, then renamed into place, so that a proposal folder is always
// complete.
func (w *Workspace) writeProposal(p *propose.Proposal) error {
	final := w.proposalDir(p.ID)
	if _, err := os.Stat(final); err == nil {
		return fmt.Errorf("proposal %s already exists", p.ID)
	}
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-"+p.ID+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := writeProposalFiles(tmp, p); err != nil {
		return err
	}
	if err := durable.SyncDir(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return durable.SyncDir(parent)
}

func writeProposalFiles(dir string, p *propose.Proposal) error {
	var diff strings.Builder
	for _, f := range p.Files {
		if f.BaseExists {
			if err := durable.WriteFile(filepath.Join(dir, "base", filepath.FromSlash(f.Path)), f.Base); err != nil {
				return err
			}
		}
		if err := durable.WriteFile(filepath.Join(dir, "candidate", filepath.FromSlash(f.Path)), f.Candidate); err != nil {
			return err
		}
		diff.WriteString(propose.UnifiedDiff(f.Path, f.Base, f.BaseExists, f.Candidate))
	}
	if err := durable.WriteFile(filepath.Join(dir, "change.diff"), []byte(diff.String())); err != nil {
		return err
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return durable.WriteFile(filepath.Join(dir, "proposal.json"), append(b, '\n'))
}

// rewriteProposal replaces a stored proposal (after a rebase).
func (w *Workspace) rewriteProposal(p *propose.Proposal) error {
	final := w.proposalDir(p.ID)
	parent := filepath.Dir(final)
	tmp, err := os.MkdirTemp(parent, ".tmp-"+p.ID+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := writeProposalFiles(tmp, p); err != nil {
		return err
	}
	old := final + ".old-" + randomHex(4)
	if err := os.Rename(final, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Rename(old, final)
		return err
	}
	durable.SyncDir(parent)
	return os.RemoveAll(old)
}

// readProposal reads a proposal and checks its files against the hashes
// it records.
func (w *Workspace) readProposal(id string) (*propose.Proposal, error) {
	dir := w.proposalDir(id)
	b, err := os.ReadFile(filepath.Join(dir, "proposal.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no proposal %s in %s", id, w.ws.Root)
	}
	if err != nil {
		return nil, err
	}
	p := &propose.Proposal{}
	if err := json.Unmarshal(b, p); err != nil {
		return nil, fmt.Errorf("proposal %s: %v", id, err)
	}
	if p.ID != id {
		return nil, fmt.Errorf("proposal %s: its file names %s", id, p.ID)
	}
	for i := range p.Files {
		f := &p.Files[i]
		if err := w.ws.CheckRel(f.Path); err != nil {
			return nil, fmt.Errorf("proposal %s: %v", id, err)
		}
		if f.BaseExists {
			if f.Base, err = os.ReadFile(filepath.Join(dir, "base", filepath.FromSlash(f.Path))); err != nil {
				return nil, fmt.Errorf("proposal %s: %v", id, err)
			}
		}
		if f.Candidate, err = os.ReadFile(filepath.Join(dir, "candidate", filepath.FromSlash(f.Path))); err != nil {
			return nil, fmt.Errorf("proposal %s: %v", id, err)
		}
		if propose.SHA256(f.Base) != f.BaseSHA256 || propose.SHA256(f.Candidate) != f.CandidateSHA256 {
			return nil, fmt.Errorf("proposal %s: the stored files of %s do not match their hashes (altered)", id, f.Path)
		}
	}
	return p, nil
}

// objectPath is where content with the given "sha256:HEX" lives.
func (w *Workspace) objectPath(sum string) string {
	return filepath.Join(w.meta, "objects", "sha256", strings.TrimPrefix(sum, "sha256:"))
}

// storeObject stores content by hash (a no-op when present).
func (w *Workspace) storeObject(b []byte) (string, error) {
	sum := propose.SHA256(b)
	p := w.objectPath(sum)
	if _, err := os.Stat(p); err == nil {
		return sum, nil
	}
	return sum, durable.WriteFileAtomic(p, b)
}

// readObject reads content by hash and checks it.
func (w *Workspace) readObject(sum string) ([]byte, error) {
	b, err := os.ReadFile(w.objectPath(sum))
	if err != nil {
		return nil, fmt.Errorf("stored content %s: %v", sum, err)
	}
	if propose.SHA256(b) != sum {
		return nil, fmt.Errorf("stored content %s is damaged", sum)
	}
	return b, nil
}
