package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/capsulang/caps/runtime/session/bridge"
)

// DescribeError is a description the model's answer could not turn into
// a step. The session is unchanged; Attempt is the file that keeps the
// description and the model's answer ("" if it could not be written).
type DescribeError struct {
	Err     error
	Attempt string
}

func (e *DescribeError) Error() string {
	msg := e.Err.Error() + "\nnothing was applied to the session"
	if e.Attempt != "" {
		msg += "; the description and the model's answer are kept in " + e.Attempt
	}
	return msg
}

func (e *DescribeError) Unwrap() error { return e.Err }

// attempt is what an attempts/ file holds.
type attempt struct {
	Session     string          `json:"session"`
	Step        int             `json:"after_step"`
	Description string          `json:"description"`
	Model       string          `json:"model"`
	Error       string          `json:"error"`
	Content     json.RawMessage `json:"content,omitempty"`
	ContentText string          `json:"content_text,omitempty"`
	Raw         string          `json:"raw,omitempty"`
}

// Describe asks the model of cfg for a delta from a description in words,
// then applies it as a step exactly as Apply does: validated against the
// schema, checked and synthesized, or refused. The step records the
// description and the model. On any failure the session is unchanged and
// the description and the answer are kept under attempts/.
func (s *Session) Describe(ctx context.Context, cfg bridge.Config, description, by string) (*Step, error) {
	req := bridge.Request{Description: description, Target: s.Meta.Target, Source: s.Source()}
	for _, h := range s.state.holes {
		if h.Open() {
			req.OpenHoles = append(req.OpenHoles, h.ID+": "+h.Question)
		} else {
			req.Answered = append(req.Answered, h.ID+": "+h.Question+" = "+h.Answer)
		}
	}
	keep := func(err error, content []byte, raw []byte) error {
		a := attempt{Session: s.Meta.ID, Step: len(s.Steps), Description: description, Model: cfg.Model, Error: err.Error(), Raw: string(raw)}
		if json.Valid(content) {
			a.Content = content
		} else {
			a.ContentText = string(content)
		}
		path, werr := s.SaveAttempt(a)
		if werr != nil {
			path = ""
		}
		return &DescribeError{Err: err, Attempt: path}
	}
	reply, err := cfg.Describe(ctx, req)
	if err != nil {
		var be *bridge.Error
		if errors.As(err, &be) {
			return nil, keep(err, nil, be.Raw)
		}
		return nil, keep(err, nil, nil)
	}
	if by == "" {
		by = "llm:" + reply.Model
	}
	st, err := s.Apply(DeltaInput{JSON: reply.Delta, By: by, Description: description, Model: reply.Model})
	if err != nil {
		return nil, keep(fmt.Errorf("the model's delta is refused: %w", err), reply.Delta, nil)
	}
	return st, nil
}
