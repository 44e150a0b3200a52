package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/verify"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Verification runs Z3 (analysis/verify) off the edit path: when a
// document is saved, or on the capsulang.verify command, never per
// keystroke. The report belongs to the snapshot it was computed for: its
// failed obligations join that snapshot's diagnostics (W_OBLIGATION_FAILED,
// with the counterexample in the message) and each function gets a code
// lens with its status. An edit makes a new snapshot without them until
// the next save.

func init() {
	commands["capsulang.verify"] = verifyCommand
	notifications["textDocument/didSave"] = didSave
}

// verification is the state of one snapshot's verification.
type verification struct {
	once   sync.Once
	done   chan struct{}
	report *verify.Report
	err    error
}

// verifyState returns the snapshot's verification, creating it (not
// started) on first use.
func (sn *snapshot) verifyState() *verification {
	if v := sn.verified.Load(); v != nil {
		return v
	}
	sn.verified.CompareAndSwap(nil, &verification{done: make(chan struct{})})
	return sn.verified.Load()
}

// verifiedReport returns the snapshot's finished report, or nil.
func (sn *snapshot) verifiedReport() *verify.Report {
	v := sn.verified.Load()
	if v == nil {
		return nil
	}
	select {
	case <-v.done:
		return v.report
	default:
		return nil
	}
}

// solverMissingLogged makes a missing z3 a single log line per server.
var solverMissingLogged atomic.Bool

// verifySnapshot verifies sn once (concurrent callers wait for the same
// run) and publishes the result while sn is current.
func (s *Server) verifySnapshot(ctx context.Context, sn *snapshot, jobs int) (*verify.Report, error) {
	v := sn.verifyState()
	v.once.Do(func() {
		v.report, v.err = runVerify(sn, jobs)
		close(v.done)
		if v.err == nil {
			s.publishVerified(sn)
		}
	})
	<-v.done
	return v.report, v.err
}

// runVerify verifies a snapshot's module with Z3. It does not use the
// caller's context: the run is shared by every request that waits for it.
func runVerify(sn *snapshot, jobs int) (*verify.Report, error) {
	pkg := sn.Package()
	if pkg.File.Module == nil || pkg.Result.HasErrors() {
		return nil, verify.ErrModuleHasErrors
	}
	solver, err := verify.FindSolver()
	if err != nil {
		return nil, err
	}
	return verify.Verify(context.Background(), pkg.Result, verify.Options{Solver: solver, Jobs: jobs})
}

// publishVerified publishes the snapshot's diagnostics again, now with
// its verification, if it is still its document's current snapshot.
func (s *Server) publishVerified(sn *snapshot) {
	if !s.isCurrent(sn) {
		return // (a newer version, or the document closed)
	}
	var diags []protocol.Diagnostic
	res := sn.Package().Result
	if exds, _, ok := s.exampleCache(sn).Diagnostics(res, nil); ok && sn.runsExamples() {
		// (the examples' outcomes of the document's cache: only those
		// whose key it lacks run)
		diags = s.withExamples(sn, res, exds)
	} else {
		diags = s.diagnostics(sn, sn.runsExamples())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.docs[sn.uri]
	if !ok || cur.snap != sn {
		return
	}

	cur.published, cur.publishedFinal = sn.version, true
	s.conn.Notify(context.Background(), "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{
		URI: sn.uri, Version: uint32(sn.version), Diagnostics: diags,
	})
}

// verificationDiagnostics are the snapshot's failed obligations as
// diagnostics, once it has been verified.
func verificationDiagnostics(sn *snapshot) []syntax.Diagnostic {
	r := sn.verifiedReport()
	if r == nil {
		return nil
	}
	var out []syntax.Diagnostic
	for _, o := range r.Obligations {
		if o.Status != verify.Failed {
			continue
		}
		msg := o.Message()
		if c := o.Confirmation; c != nil && c.Confirmed {
			msg += " (confirmed by the interpreter)"
		} else if c != nil {
			msg += " (the interpreter does not confirm it: " + c.Detail + ")"
		}
		out = append(out, syntax.Diagnostic{Code: check.ObligationFailed, Severity: syntax.Warning, Span: o.Span, Message: msg})
	}
	return out
}

// didSave verifies the saved document's current snapshot in the
// background, unless it has errors (or was verified already).
func didSave(s *Server, params json.RawMessage) error {
	var p protocol.DidSaveTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.mu.Lock()
	d, ok := s.docs[p.TextDocument.URI]
	var sn *snapshot
	if ok {
		sn = d.snap
	}
	s.mu.Unlock()
	if sn == nil {
		return nil
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Printf("panic while verifying %s: %v", sn.uri, r)
			}
		}()
		// One solver process: the editor keeps the other CPU.
		if _, err := s.verifySnapshot(context.Background(), sn, 1); err != nil && !errors.Is(err, verify.ErrModuleHasErrors) {
			if errors.Is(err, verify.ErrNoSolver) {
				if solverMissingLogged.CompareAndSwap(false, true) {
					s.log.Printf("verification on save is off: %v", err)
				}
				return
			}
			s.log.Printf("verifying %s: %v", sn.uri, err)
		}
	}()
	return nil
}

// verifyCommand is capsulang.verify {"uri"}: verify the document now and
// return {"module", "solver", "summary", "obligations"} as caps
// verify-report --json has them (ranges in the client's encoding).
func verifyCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a struct {
		URI protocol.DocumentURI `json:"uri"`
	}
	sn, err := s.commandSnapshot(raw, &a, &a.URI)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) {
		r, err := s.verifySnapshot(ctx, sn, 0)
		switch {
		case errors.Is(err, verify.ErrModuleHasErrors):
			return nil, rpcError(errRequestFailed, "the file has errors; fix them before verifying")
		case errors.Is(err, verify.ErrNoSolver):
			return nil, rpcWrap(errRequestFailed, err)
		case err != nil:
			return nil, rpcWrap(errInternal, err)
		}
		type obligation struct {
			ID             string               `json:"id"`
			Kind           string               `json:"kind"`
			Decl           string               `json:"decl"`
			Claim          string               `json:"claim"`
			Status         string               `json:"status"`
			Reason         string               `json:"reason,omitempty"`
			Counterexample []verify.Binding     `json:"counterexample,omitempty"`
			Confirmation   *verify.Confirmation `json:"confirmation,omitempty"`
			Range          protocol.Range       `json:"range"`
		}
		d, o, f := r.Counts()
		obs := []obligation{}
		for _, x := range r.Obligations {
			obs = append(obs, obligation{x.ID, string(x.Kind), x.Decl, x.Claim, string(x.Status), x.Reason, x.Counterexample, x.Confirmation, sn.rng(x.Span)})
		}
		return map[string]any{"module": r.Module, "solver": r.Solver,
			"summary":     map[string]int{"obligations": len(r.Obligations), "discharged": d, "open": o, "failed": f},
			"obligations": obs}, nil
	}, nil
}

// verificationLenses gives each function of a verified snapshot a lens
// with its obligations' status; it runs capsulang.verify (whose result
// the editor may show).
func verificationLenses(sn *snapshot) []protocol.CodeLens {
	r := sn.verifiedReport()
	if r == nil {
		return nil
	}
	type tally struct{ n, discharged, open, failed int }
	by := map[string]*tally{}
	for _, o := range r.Obligations {
		if o.DeclKind != "function" {
			continue
		}
		t := by[o.Decl]
		if t == nil {
			t = &tally{}
			by[o.Decl] = t
		}
		t.n++
		switch o.Status {
		case verify.Discharged:
			t.discharged++
		case verify.Open:
			t.open++
		case verify.Failed:
			t.failed++
		}
	}
	var out []protocol.CodeLens
	args, _ := json.Marshal(map[string]any{"uri": sn.uri})
	for _, d := range sn.Package().File.Module.Decls {
		fn, ok := d.(*ast.Function)
		if !ok || !fn.Name.Valid() || by[fn.Name.Name] == nil {
			continue
		}
		t := by[fn.Name.Name]
		title := fmt.Sprintf("✓ Verified (%d obligation%s)", t.n, pluralS(t.n))
		switch {
		case t.failed > 0:
			title = fmt.Sprintf("✗ %d of %d obligation%s refuted", t.failed, t.n, pluralS(t.n))
		case t.open > 0:
			title = fmt.Sprintf("◌ %d of %d obligation%s open", t.open, t.n, pluralS(t.n))
		}
		out = append(out, protocol.CodeLens{
			Range:   sn.rng(fn.Name.Span),
			Command: &protocol.Command{Title: title, Command: "capsulang.verify", Arguments: []any{json.RawMessage(args)}},
		})
	}
	return out
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
