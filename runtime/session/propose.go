package session

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/runtime/evolution"
)

// Propose ends the session in the workspace's workflow: it proposes the
// session's merged delta for its target (a proposal of kind "delta" under
// .caps/proposals/, with the open holes still open) and records a propose
// step. No module file is written; caps assess and caps commit take it
// from there. The target must still have the content it had when the
// session began, so that the proposal is exactly the session's source.
func (s *Session) Propose(w *evolution.Workspace, by, reason string) (*propose.Proposal, error) {
	if !s.HasDelta() {
		return nil, errors.New("the session has no delta yet: apply one first (caps session apply DELTA.json)")
	}
	live, exists, err := w.Analysis().ReadLive(s.Meta.Target)
	if err != nil {
		return nil, err
	}
	if exists != s.Meta.BaseExists || propose.SHA256(live) != s.Meta.BaseSHA256 {
		return nil, fmt.Errorf("refused: %s changed since session %s began, so its source no longer applies; start a new session on the file as it is now (caps session new --target %s) and apply the deltas again", s.Meta.Target, s.Meta.ID, s.Meta.Target)
	}
	if reason == "" {
		reason = "authoring session " + s.Meta.ID
	}
	p, err := w.Propose(propose.Request{
		Kind:    propose.FromDelta,
		Targets: []string{s.TargetPath()},
		Delta:   s.DeltaJSON(),
		By:      by,
		Reason:  reason,
	})
	if err != nil {
		return nil, err
	}
	if len(p.Files) != 1 || !bytes.Equal(p.Files[0].Candidate, s.Source()) {
		return p, fmt.Errorf("proposal %s does not hold the session's source (the target changed while proposing?); do not commit it", p.ID)
	}
	if _, err := s.add(Step{Kind: KindPropose, By: by, Proposal: p.ID}); err != nil {
		return p, fmt.Errorf("proposed %s, but the session could not record it: %v", p.ID, err)
	}
	return p, nil
}
