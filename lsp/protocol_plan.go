package lsp

import (
	"bytes"
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/load"
	a2ui "github.com/capsulang/caps/codegen/protocol"
)

// capsulang.protocolPlan returns the document's protocol plan, as `caps
// protocol-plan` prints it: the plan, its summary for people and the plan
// as indented JSON (for clients that show it as it is, keys in order).
func init() {
	commands["capsulang.protocolPlan"] = protocolPlanCommand
}

func protocolPlanCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a struct {
		URI protocol.DocumentURI `json:"uri"`
	}
	sn, err := s.commandSnapshot(raw, &a, &a.URI)
	if err != nil {
		return nil, err
	}
	return func(context.Context) (any, error) {
		pkg, err := sn.checkedWithoutErrors("asking for its protocol plan")
		if err != nil {
			return nil, err
		}
		hash, err := load.IROptions(pkg.Result).Hash(pkg.File.Module)
		if err != nil {
			return nil, rpcWrap(errRequestFailed, err)
		}
		plan := a2ui.Build(pkg.Result, hash)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(plan); err != nil {
			return nil, err
		}
		return map[string]any{"protocol_plan": plan, "text": plan.Text(), "json": buf.String()}, nil
	}, nil
}
