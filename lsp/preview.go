package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"

	a2ui "github.com/capsulang/caps/codegen/protocol"
	"github.com/capsulang/caps/codegen/react"
	"github.com/capsulang/caps/syntax/ast"
)

// Surface previews: a "Preview surface" code lens above each A2UI surface
// runs capsulang.previewSurface, which renders the surface as the React
// target's component renders it (react.StaticMarkup, byte for byte what
// react-dom/server writes) and returns the A2UI messages a renderer would
// get, with the data of the bound machine's last dry run.
func init() {
	commands["capsulang.previewSurface"] = previewSurfaceCommand
}

// surfaceLenses are the "Preview surface" lenses of a document without
// errors.
func surfaceLenses(sn *snapshot) []protocol.CodeLens {
	var out []protocol.CodeLens
	for _, d := range sn.Package().File.Module.Decls {
		s, ok := d.(*ast.Surface)
		if !ok || !s.Name.Valid() {
			continue
		}
		args, _ := json.Marshal(previewArgs{URI: sn.uri, Surface: s.Name.Name})
		out = append(out, protocol.CodeLens{
			Range:   sn.rng(s.Name.Span),
			Command: &protocol.Command{Title: "◧ Preview surface", Command: "capsulang.previewSurface", Arguments: []any{json.RawMessage(args)}},
		})
	}
	return out
}

type previewArgs struct {
	URI     protocol.DocumentURI `json:"uri"`
	Surface string               `json:"surface"`
}

// previewResult is capsulang.previewSurface's answer.
type previewResult struct {
	Surface string `json:"surface"`
	Title   string `json:"title"`
	// Machine is the bound machine, if any.
	Machine string `json:"machine,omitempty"`
	// Source says where the data comes from: "dry-run" (the bound
	// machine's last dry run) or "default" (each field's zero value, and
	// the machine's initial state).
	Source string `json:"source"`
	// State is the state the last dry run left the machine in.
	State string `json:"state,omitempty"`
	// Note says why a dry run was not used, when there was one.
	Note string `json:"note,omitempty"`
	// Data is the data model value the surface is rendered with.
	Data json.RawMessage `json:"data"`
	// Messages are createSurface, updateComponents and updateDataModel
	// with Data, as caps a2ui-envelope prints them.
	Messages []a2ui.Message `json:"messages"`
	// HTML is the React component's static markup.
	HTML string `json:"html"`
}

// lastAccepted returns the state and context after the last accepted step
// of the document's last dry run of a machine.
func (c *docCache) lastAccepted(machineName string) (state string, ctx json.RawMessage, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	run, found := c.dryRuns[machineName]
	if !found {
		return "", nil, false
	}
	for i := len(run.Steps) - 1; i >= 0; i-- {
		if st := run.Steps[i]; st.Accepted && st.To != "" {
			return st.To, st.Context, true
		}
	}
	return "", nil, false
}

func previewSurfaceCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a previewArgs
	sn, err := s.commandSnapshot(raw, &a, &a.URI)
	if err != nil {
		return nil, err
	}
	return func(context.Context) (any, error) {
		pkg, err := sn.checkedWithoutErrors("previewing a surface")
		if err != nil {
			return nil, err
		}
		b := a2ui.NewBuilder(pkg.Result)
		create, err := b.CreateSurface(a.Surface)
		var pe *a2ui.Error
		if errors.As(err, &pe) {
			return nil, rpcError(errInvalidParams, pe.Message)
		} else if err != nil {
			return nil, err
		}
		sf, _ := b.Surface(a.Surface)
		out := previewResult{Surface: a.Surface, Title: sf.Title, Machine: sf.Bind, Source: "default"}
		data, _ := b.UpdateDataModel(a.Surface, nil)
		if out.Machine != "" {
			if state, ctx, ok := sn.cache.lastAccepted(out.Machine); ok {
				var fields map[string]json.RawMessage
				if err := json.Unmarshal(ctx, &fields); err != nil {
					fields = nil
				}
				d, err := b.UpdateDataModelFrom(a.Surface, a2ui.Values{Machine: out.Machine, State: state, Field: func(name string) (json.RawMessage, bool) {
					v, ok := fields[name]
					return v, ok
				}})
				if err != nil {
					out.Note = fmt.Sprintf("the last dry run of %s does not fit the surface's data model (%v); showing the default data", out.Machine, err)
				} else {
					data, out.Source, out.State = d, "dry-run", state
				}
			}
		}
		comps, _ := b.UpdateComponents(a.Surface)
		out.Messages = []a2ui.Message{create, comps, data}
		out.Data = data.UpdateDataModel.Value
		if out.HTML, err = react.StaticMarkup(pkg.Result, a.Surface, out.Data); err != nil {
			return nil, rpcWrap(errRequestFailed, err)
		}
		return out, nil
	}, nil
}
