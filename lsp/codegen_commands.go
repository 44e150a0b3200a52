package lsp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/codegen"
	"github.com/capsulang/caps/codegen/mermaid"
)

func init() {
	commands["capsulang.visualize"] = visualizeCommand
	commands["capsulang.compile"] = compileCommand
}

// visualizeCommand returns Mermaid text for a machine (or every machine):
// {"uri", "machine"?, "kind": "machine"|"effects"} -> {"mermaid"}.
func visualizeCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a struct {
		URI     protocol.DocumentURI `json:"uri"`
		Machine string               `json:"machine"`
		Kind    string               `json:"kind"`
	}
	sn, err := s.commandSnapshot(raw, &a, &a.URI)
	if err != nil {
		return nil, err
	}
	return func(context.Context) (any, error) {
		pkg := sn.Package()
		var text string
		var err error
		switch a.Kind {
		case "", "machine":
			text, err = mermaid.StateDiagrams(pkg.Result, a.Machine)
		case "effects":
			text, err = mermaid.EffectGraphs(pkg.Result, a.Machine)
		default:
			return nil, rpcError(errInvalidParams, "kind is machine or effects, not "+a.Kind)
		}
		if err != nil {
			return nil, rpcWrap(errRequestFailed, err)
		}
		return map[string]any{"mermaid": text, "kind": a.Kind}, nil
	}, nil
}

// compileCommand compiles the document for a target and returns the
// artifacts' content (text as is, binary as base64) and the plan:
// {"uri", "target"} -> {"target", "artifacts": [{"name", "text"|"base64"}],
// "unsupported": [...]}.
func compileCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a struct {
		URI    protocol.DocumentURI `json:"uri"`
		Target string               `json:"target"`
	}
	sn, err := s.commandSnapshot(raw, &a, &a.URI)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) {
		pkg, err := sn.checkedWithoutErrors("compiling")
		if err != nil {
			return nil, err
		}
		if a.Target == "" {
			// no target: every target's readiness, for the client to offer
			plans := []map[string]any{}
			for _, name := range codegen.Names() {
				p, err := codegen.PlanFor(pkg.Result, name)
				if err != nil {
					continue
				}
				plans = append(plans, map[string]any{"target": p.Target, "status": p.Status, "ready": p.Ready,
					"compiled": p.Compiled, "skipped": p.Skipped, "note": p.Note, "unsupported": len(p.Unsupported)})
			}
			return map[string]any{"plans": plans}, nil
		}
		if codegen.Lookup(a.Target) == nil {
			return nil, rpcError(errInvalidParams, "unknown target "+a.Target+"; targets are "+strings.Join(codegen.Names(), ", "))
		}
		done := s.progress("Compiling to " + a.Target)
		out, err := codegen.Compile(pkg.Result, a.Target)
		done()
		if err != nil {
			return nil, rpcWrap(errRequestFailed, err)
		}
		arts := []map[string]string{}
		for _, art := range out.Artifacts {
			m := map[string]string{"name": art.Name}
			if utf8.Valid(art.Data) {
				m["text"] = string(art.Data)
			} else {
				m["base64"] = base64.StdEncoding.EncodeToString(art.Data)
			}
			arts = append(arts, m)
		}
		var unsupported []map[string]any
		if out.Plan != nil {
			for _, f := range out.Plan.Unsupported {
				unsupported = append(unsupported, map[string]any{"declaration": f.Decl, "feature": f.Feature, "range": sn.rng(f.Span)})
			}
		}
		return map[string]any{"target": out.Target, "artifacts": arts, "unsupported": unsupported}, nil
	}, nil
}
