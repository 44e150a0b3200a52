package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/codes"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax/ast"
)

// command is a workspace/executeCommand handler. Like requests, it gets
// its snapshot synchronously and runs on its own goroutine.
type command func(s *Server, args json.RawMessage) (func(context.Context) (any, error), error)

// commands lists the implemented commands; initialize advertises exactly
// these.
var commands = map[string]command{
	"capsulang.run":     runCommand,
	"capsulang.explain": explainCommand,
}

func init() {
	requests["workspace/executeCommand"] = executeCommand
	requests["textDocument/codeLens"] = documentOnly(codeLenses)
	extraFeatures = append(extraFeatures, func(c *protocol.ServerCapabilities) {
		var names []string
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
		c.ExecuteCommandProvider = &protocol.ExecuteCommandOptions{Commands: names}
		c.CodeLensProvider = &protocol.CodeLensOptions{}
	})
}

func executeCommand(s *Server, params json.RawMessage) (func(context.Context) (any, error), error) {
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	cmd, ok := commands[p.Command]
	if !ok {
		return nil, rpcError(errInvalidParams, "unknown command "+p.Command)
	}
	var arg json.RawMessage = json.RawMessage("{}")
	if len(p.Arguments) > 0 {
		arg = p.Arguments[0]
	}
	return cmd(s, arg)
}

// runArgs are capsulang.run's argument: run one function's examples (or
// every example of the document), or call a function with arguments given
// as Capsulang literals.
type runArgs struct {
	URI      protocol.DocumentURI `json:"uri"`
	Function string               `json:"function,omitempty"`
	Args     map[string]string    `json:"args,omitempty"`
}

type exampleResult struct {
	Function string         `json:"function"`
	Call     string         `json:"call"`
	Passed   bool           `json:"passed"`
	Expected string         `json:"expected,omitempty"`
	Got      string         `json:"got,omitempty"`
	Error    string         `json:"error,omitempty"`
	Range    protocol.Range `json:"range"`
}

func runCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a runArgs
	sn, err := s.commandSnapshot(raw, &a, &a.URI)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) {
		if _, err := sn.checkedWithoutErrors("running"); err != nil {
			return nil, err
		}
		if a.Args != nil {
			return callFunction(sn, a)
		}
		results := []exampleResult{}
		passed, failed := 0, 0
		for _, o := range sn.Examples() {
			fn := o.Example.Function.Name.Name
			if a.Function != "" && fn != a.Function {
				continue
			}
			r := exampleResult{Function: fn, Call: o.Call, Passed: o.Passed, Range: sn.rng(o.Example.Example.Form.Span())}
			if o.Want.IsValid() {
				r.Expected = o.Want.String()
			}
			if o.Got.IsValid() {
				r.Got = o.Got.String()
			}
			if o.Err != nil {
				r.Error = o.Err.Error()
			}
			if o.Passed {
				passed++
			} else {
				failed++
			}
			results = append(results, r)
		}
		return map[string]any{"passed": passed, "failed": failed, "examples": results}, nil
	}, nil
}

func callFunction(sn *snapshot, a runArgs) (any, error) {
	pkg := sn.Package()
	var fn *ast.Function
	for _, d := range pkg.File.Module.Decls {
		if f, ok := d.(*ast.Function); ok && f.Name.Name == a.Function {
			fn = f
		}
	}
	if fn == nil {
		return nil, rpcError(errInvalidParams, "no function "+a.Function)
	}
	in := interp.New(pkg.Result)
	info, ok := in.Function(fn.Name.Name)
	if !ok {
		return nil, rpcError(errInvalidParams, "no function "+a.Function)
	}
	var args []value.Value
	for _, p := range info.Params {
		text, ok := a.Args[p.Name]
		if !ok {
			return nil, rpcError(errInvalidParams, fmt.Sprintf("missing argument %s (%s)", p.Name, p.Type))
		}
		v, err := value.Parse(text, p.Type)
		if err != nil {
			return nil, rpcWrap(errInvalidParams, fmt.Errorf("argument %s: %w", p.Name, err))
		}
		args = append(args, v)
	}
	v, intents, err := in.CallDecl(fn, args)
	if err != nil {
		return map[string]any{"error": err.Error()}, nil
	}
	effects := []map[string]any{}
	for _, it := range intents {
		effects = append(effects, map[string]any{"effect": it.Effect, "target": it.Target})
	}
	return map[string]any{"value": v.String(), "json": v, "effects": effects}, nil
}

func explainCommand(s *Server, raw json.RawMessage) (func(context.Context) (any, error), error) {
	var a struct {
		Code string `json:"code"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	return func(context.Context) (any, error) {
		k := codes.Lookup(a.Code)
		if k == nil {
			return nil, rpcError(errInvalidParams, "unknown diagnostic code "+a.Code)
		}
		return map[string]any{"code": k.Code, "severity": k.Severity, "title": k.Title, "summary": k.Summary,
			"example": k.Example, "fix": k.Fix, "fixed": k.Fixed, "url": k.URL()}, nil
	}, nil
}

// codeLenses shows each function's example results above it.
func codeLenses(_ context.Context, sn *snapshot) (any, error) {
	pkg := sn.Package()
	out := []protocol.CodeLens{}
	if pkg.File.Module == nil {
		return out, nil
	}
	counts := map[*ast.Function][2]int{}
	for _, o := range sn.Examples() {
		c := counts[o.Example.Function]
		if o.Passed {
			c[0]++
		} else {
			c[1]++
		}
		counts[o.Example.Function] = c
	}
	hasErrors := pkg.Result.HasErrors()
	if m := pkg.File.Module; m.Name.Valid() && !hasErrors {
		args, _ := json.Marshal(map[string]any{"uri": sn.uri})
		out = append(out, protocol.CodeLens{
			Range:   sn.rng(m.Name.Span),
			Command: &protocol.Command{Title: "⚙ Compile…", Command: "capsulang.compile", Arguments: []any{json.RawMessage(args)}},
		})
	}
	for _, d := range pkg.File.Module.Decls {
		if m, ok := d.(*ast.Machine); ok && m.Name.Valid() && !hasErrors {
			args, _ := json.Marshal(map[string]any{"uri": sn.uri, "machine": m.Name.Name})
			out = append(out, protocol.CodeLens{
				Range:   sn.rng(m.Name.Span),
				Command: &protocol.Command{Title: "▷ Dry-run", Command: "capsulang.dryRun", Arguments: []any{json.RawMessage(args)}},
			})
		}
		fn, ok := d.(*ast.Function)
		if !ok || len(fn.Examples) == 0 || !fn.Name.Valid() {
			continue
		}
		c := counts[fn]
		title := fmt.Sprintf("▶ Run examples (%d passed)", c[0])
		switch {
		case hasErrors:
			title = fmt.Sprintf("▶ Run examples (%d, not run: the file has errors)", len(fn.Examples))
		case c[1] > 0:
			title = fmt.Sprintf("▶ Run examples (%d of %d failed)", c[1], c[0]+c[1])
		}
		args, _ := json.Marshal(runArgs{URI: sn.uri, Function: fn.Name.Name})
		out = append(out, protocol.CodeLens{
			Range:   sn.rng(fn.Name.Span),
			Command: &protocol.Command{Title: title, Command: "capsulang.run", Arguments: []any{json.RawMessage(args)}},
		})
	}
	if !hasErrors {
		out = append(out, verificationLenses(sn)...)
		out = append(out, surfaceLenses(sn)...)
	}
	return out, nil
}
