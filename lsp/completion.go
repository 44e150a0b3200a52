package lsp

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

func init() {
	requests["textDocument/completion"] = positional(completion)
	requests["completionItem/resolve"] = resolveCompletion
	extraFeatures = append(extraFeatures, func(c *protocol.ServerCapabilities) {
		c.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{"(", ".", " "}, ResolveProvider: true}
	})
}

// completionData travels in CompletionItem.data for resolve.
type completionData struct {
	Kind string `json:"k"`
	Name string `json:"n"`
}

// declSnippets are the bodies inserted after a declaration keyword.
var declSnippets = map[string]string{
	"function": "function ${1:name}\n  (input (${2:x} ${3:I64}))\n  (output ${4:I64})\n  (example (${1:name} ${5:0}) ${6:0})\n  (body ${0:x})",
	"machine":  "machine ${1:Name}\n  (version \"0.1.0\")\n  (context)\n  (event ${2:Start})\n  (initial ${3:idle})\n  (state ${3:idle}\n    (on ${2:Start} (target ${4:done})))\n  (state ${4:done} (type final))",
	"type":     "type ${1:Name} (record (${2:field} ${3:Text}))",
	"store":    "store ${1:name}\n  (backend ${2:surrealdb})\n  (authority ${3:runtime-state})",
	"surface":  "surface ${1:name}\n  (protocol a2ui \"v0.9\")\n  (title \"${2:Title}\")\n  (bind ${3:Machine})",
	"port":     "port ${1:name}\n  (protocol mcp)\n  (tool ${2:tool})",
	"agent":    "agent ${1:name}\n  (protocol a2a)\n  (skill ${2:skill})",
	"state":    "state ${1:name}\n  (on ${2:Event} (target ${3:next})))",
	"on":       "on ${1:Event} (target ${2:state})",
}

func completion(_ context.Context, sn *snapshot, off int) (any, error) {
	src := sn.cst.Src
	// the prefix being typed
	start := off
	for start > 0 && isSymbolByte(src[start-1]) {
		start--
	}
	prefix := string(src[start:off])
	edit := syntax.Span{Start: start, End: off}
	cc := &completer{sn: sn, v: sn.view(), prefix: prefix, edit: edit}
	cc.collect(off)
	items := cc.items
	sort.SliceStable(items, func(i, j int) bool { return items[i].SortText+items[i].Label < items[j].SortText+items[j].Label })
	return &protocol.CompletionList{IsIncomplete: false, Items: items}, nil
}

func isSymbolByte(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '(', ')', '"', ';', '[', ']', '{', '}':
		return false
	}
	return true
}

type completer struct {
	sn     *snapshot
	v      *view // what the snapshot's requests read
	prefix string
	edit   syntax.Span
	items  []protocol.CompletionItem
	seen   map[string]bool
}

func (cc *completer) add(label string, kind protocol.CompletionItemKind, detail string, data *completionData) {
	if !strings.HasPrefix(label, cc.prefix) && !strings.HasPrefix(strings.ToLower(label), strings.ToLower(cc.prefix)) {
		return
	}
	if cc.seen == nil {
		cc.seen = map[string]bool{}
	}
	if cc.seen[label] {
		return
	}
	cc.seen[label] = true
	item := protocol.CompletionItem{Label: label, Kind: kind, Detail: detail,
		TextEdit: &protocol.TextEdit{Range: cc.sn.rng(cc.edit), NewText: label}}
	if data != nil {
		b, _ := json.Marshal(data)
		item.Data = json.RawMessage(b)
	}
	cc.items = append(cc.items, item)
}

func (cc *completer) snippet(label, body, detail string) {
	if !strings.HasPrefix(label, cc.prefix) {
		return
	}
	cc.items = append(cc.items, protocol.CompletionItem{Label: label, Kind: protocol.CompletionItemKindSnippet, Detail: detail,
		InsertTextFormat: protocol.InsertTextFormatSnippet, SortText: "1",
		TextEdit: &protocol.TextEdit{Range: cc.sn.rng(cc.edit), NewText: body}})
}

func (cc *completer) keywords(kws []string, detail string) {
	for _, k := range kws {
		cc.add(k, protocol.CompletionItemKindKeyword, detail, &completionData{Kind: "keyword", Name: k})
	}
}

// collect decides what fits at off.
func (cc *completer) collect(off int) {
	path := cc.v.path(off)
	// Drop the symbol being typed: completion is about its position.
	if n := len(path); n > 0 && path[n-1].Kind != syntax.FormList {
		path = path[:n-1]
	}
	if len(path) == 0 {
		cc.snippet("module", "(module ${1:name}\n  (capsule \"${2:0.1}\")\n  $0)", "a new module")
		return
	}
	list := path[len(path)-1]
	idx := itemIndex(list, off)
	head := list.Head()
	var parentHead string
	if len(path) >= 2 {
		parentHead = path[len(path)-2].Head()
	}
	decl, machine := cc.enclosing(path)

	if idx == 0 { // head position: which keywords fit here?
		switch {
		case len(path) == 1:
			cc.keywords([]string{"module"}, "module")
		case parentHead == "module" && len(path) == 2:
			for _, k := range append([]string{"capsule", "profile", "import"}, kindNames()...) {
				if body, ok := declSnippets[k]; ok {
					cc.snippet(k, body, "declare a "+k)
				}
				cc.add(k, protocol.CompletionItemKindKeyword, "declaration", &completionData{Kind: "keyword", Name: k})
			}
		case parentHead == "effects":
			cc.effects(false)
		case parentHead == "state" && machine != nil:
			cc.keywords(ast.StateClauses, "state clause")
			cc.snippet("on", declSnippets["on"], "a transition")
		case parentHead == "on" && machine != nil:
			cc.keywords(ast.OnClauses, "transition clause")
		case parentHead == "assign" && machine != nil:
			cc.contextFields(machine)
		case decl != nil && len(path) == 3:
			cc.clauseKeywords(decl)
			if decl.Kind() == ast.KindMachine {
				cc.snippet("state", declSnippets["state"], "a state")
			}
		default:
			cc.expressionHeads(decl)
		}
		return
	}
	switch head {
	case "target", "initial", "on-error":
		cc.states(machine)
		return
	case "on", "timeout":
		if head == "on" && idx == 1 || head == "timeout" && idx == 2 {
			cc.events(machine)
			return
		}
	case "profile":
		for _, p := range catalog.ProfileNames() {
			cc.add(p, protocol.CompletionItemKindModule, catalog.LookupProfile(p).Description, nil)
		}
		return
	case "bind":
		cc.decls(ast.KindMachine)
		return
	case "output":
		cc.types()
		return
	case "backend":
		for _, b := range []string{"surrealdb", "typedb", "file", "memory", "ledger"} {
			cc.add(b, protocol.CompletionItemKindValue, "store backend", nil)
		}
		return
	case "effects":
		if idx >= 1 {
			cc.add("pure", protocol.CompletionItemKindKeyword, "no effects", nil)
		}
		return
	}
	if head == "event" && decl != nil && decl.Kind() == ast.KindSurface {
		if s, ok := decl.(*ast.Surface); ok {
			for _, d := range cc.v.decls() {
				if m, ok := d.(*ast.Machine); ok && m.Name.Name == s.Bind.Name {
					cc.events(m)
				}
			}
		}
		return
	}
	if eff := catalog.LookupEffect(head); eff != nil && idx == 1 {
		cc.targets(eff)
		return
	}
	// a field's type: (name |) inside input/context/event/record/state/public/private
	if idx == 1 && len(path) >= 2 && typeContainer(parentHead) {
		cc.types()
		return
	}
	if typeContainer(head) && idx >= 1 {
		return // a new field name: nothing to suggest
	}
	if decl != nil {
		if schema := catalog.LookupConstruct(string(decl.Kind())); schema != nil && len(path) == 3 {
			cc.schemaArgs(schema, head, idx)
			return
		}
	}
	cc.expression(off, decl, machine, path)
}

func typeContainer(h string) bool {
	switch h {
	case "input", "context", "event", "record", "error", "public", "private", "state", "Option", "List", "Vector", "Result", "Map", "Array":
		return true
	}
	return false
}

func kindNames() []string {
	var out []string
	for _, k := range ast.DeclKinds {
		out = append(out, string(k))
	}
	return out
}

// itemIndex returns the index of the list item at off (or where a new item
// typed at off would go).
func itemIndex(list *syntax.Form, off int) int {
	for i, it := range list.Items() {
		if off <= it.Span().End {
			if off >= it.Span().Start || i == 0 {
				return i
			}
			return i
		}
	}
	return len(list.Items())
}

// enclosing finds the declaration and machine containing the path.
func (cc *completer) enclosing(path []*syntax.Form) (ast.Decl, *ast.Machine) {
	if !cc.v.hasModule() || len(path) < 2 {
		return nil, nil
	}
	if d := cc.v.declAt(path[1]); d != nil {
		mc, _ := d.(*ast.Machine)
		return d, mc
	}
	return nil, nil
}

func (cc *completer) clauseKeywords(d ast.Decl) {
	switch d.Kind() {
	case ast.KindFunction:
		cc.keywords(ast.FunctionClauses, "function clause")
	case ast.KindMachine:
		cc.keywords(ast.MachineClauses, "machine clause")
	case ast.KindStore:
		cc.keywords(ast.StoreClauses, "store clause")
	case ast.KindSurface:
		cc.keywords(ast.SurfaceClauses, "surface clause")
	case ast.KindPort:
		cc.keywords(ast.PortClauses, "port clause")
	case ast.KindAgent:
		cc.keywords(ast.AgentClauses, "agent clause")
	default:
		if s := catalog.LookupConstruct(string(d.Kind())); s != nil {
			cc.keywords(s.Keys(), string(d.Kind())+" clause")
		}
	}
}

// effects offers the catalogued effect names: all of them where a budget
// names effects (withBudgetOnly), else only those that can be performed.
func (cc *completer) effects(withBudgetOnly bool) {
	for _, e := range catalog.Effects() {
		if e.BudgetOnly && !withBudgetOnly {
			continue
		}
		cc.add(e.Name, protocol.CompletionItemKindFunction, e.Description, &completionData{Kind: "effect", Name: e.Name})
	}
}

func (cc *completer) states(m *ast.Machine) {
	if m == nil {
		return
	}
	for _, st := range m.States {
		if st.Name.Valid() {
			cc.add(st.Name.Name, protocol.CompletionItemKindEnumMember, stateDetail(st), nil)
		}
	}
}

func stateDetail(st *ast.State) string {
	if st.Final {
		return "final state"
	}
	return "state"
}

func (cc *completer) events(m *ast.Machine) {
	if m == nil {
		return
	}
	for _, ev := range m.Events {
		if ev.Name.Valid() {
			cc.add(ev.Name.Name, protocol.CompletionItemKindEvent, "event", nil)
		}
	}
}

func (cc *completer) contextFields(m *ast.Machine) {
	for _, f := range m.Context {
		detail := "context field"
		if f.Type != nil {
			detail += " " + f.Type.Name.Name
		}
		cc.add(f.Name.Name, protocol.CompletionItemKindField, detail, nil)
	}
}

func (cc *completer) decls(kinds ...ast.DeclKind) {
	for _, d := range cc.v.decls() {
		for _, k := range kinds {
			if d.Kind() == k && d.Base().Name.Valid() {
				cc.add(d.Base().Name.Name, protocol.CompletionItemKindReference, string(k), nil)
			}
		}
	}
}

func (cc *completer) types() {
	for name := range types.Builtins {
		cc.add(name, protocol.CompletionItemKindTypeParameter, "built-in type", nil)
	}
	for name := range types.Constructors {
		cc.add(name, protocol.CompletionItemKindTypeParameter, "type constructor", nil)
	}
	cc.decls(ast.KindType)
}

// targets offers what an effect's target names.
func (cc *completer) targets(e *catalog.Effect) {
	kind := strings.TrimSuffix(e.Target, "-optional")
	for _, d := range cc.v.decls() {
		name := d.Base().Name.Name
		switch d := d.(type) {
		case *ast.Store:
			if kind == "store" || kind == "store-collection" {
				if len(d.Collections) == 0 || kind == "store" {
					cc.add(name, protocol.CompletionItemKindModule, "store", nil)
				}
				for _, c := range d.Collections {
					cc.add(name+"."+c.Name, protocol.CompletionItemKindField, "collection", nil)
				}
			}
		case *ast.Port:
			ops := d.Tools
			if kind == "port-resource" {
				ops = d.Resources
			}
			if kind == "port-tool" || kind == "port-resource" {
				for _, op := range ops {
					cc.add(name+"."+op.Name.Name, protocol.CompletionItemKindMethod, op.Keyword.Name, nil)
				}
			}
		case *ast.Agent:
			if kind == "agent-skill" {
				for _, op := range d.Skills {
					cc.add(name+"."+op.Name.Name, protocol.CompletionItemKindMethod, "skill", nil)
				}
				if e.Target == "agent-skill-optional" {
					cc.add(name, protocol.CompletionItemKindModule, "agent", nil)
				}
			}
		case *ast.Surface:
			if kind == "surface" || kind == "surface-action" {
				cc.add(name, protocol.CompletionItemKindModule, "surface", nil)
			}
		default:
			if string(d.Kind()) == kind {
				cc.add(name, protocol.CompletionItemKindReference, kind, nil)
			}
		}
	}
}

func (cc *completer) schemaArgs(schema *catalog.Construct, key string, idx int) {
	cl := schema.Clause(key)
	if cl == nil {
		return
	}
	for _, p := range cl.Patterns() {
		if idx-1 >= len(p) {
			continue
		}
		arg := strings.TrimRight(p[idx-1], "*+?")
		switch {
		case strings.HasPrefix(arg, "ref:"):
			for _, k := range strings.Split(arg[4:], "|") {
				cc.decls(ast.DeclKind(k))
			}
		case strings.HasPrefix(arg, "="):
			cc.add(arg[1:], protocol.CompletionItemKindKeyword, key, nil)
		case arg == "bool":
			cc.add("true", protocol.CompletionItemKindValue, "", nil)
			cc.add("false", protocol.CompletionItemKindValue, "", nil)
		case arg == "effect":
			cc.effects(true)
		}
	}
}

func (cc *completer) expressionHeads(decl ast.Decl) {
	for _, b := range check.Builtins() {
		cc.add(b, protocol.CompletionItemKindOperator, "built-in", &completionData{Kind: "builtin", Name: b})
	}
	for _, k := range []string{"if", "let", "do", "match", "record"} {
		cc.add(k, protocol.CompletionItemKindKeyword, "special form", &completionData{Kind: "keyword", Name: k})
	}
	cc.decls(ast.KindFunction)
	if f, ok := decl.(*ast.Function); ok && f.Effects != nil {
		for _, e := range f.Effects.Items {
			cc.add(e.Name.Name, protocol.CompletionItemKindFunction, "declared effect", &completionData{Kind: "effect", Name: e.Name.Name})
		}
	}
}

// expression offers the names visible at an expression position.
func (cc *completer) expression(off int, decl ast.Decl, m *ast.Machine, path []*syntax.Form) {
	if strings.HasPrefix(cc.prefix, "event.") && m != nil {
		// fields of the enclosing transition's event
		for _, f := range path {
			if f.Head() == "on" && len(f.Items()) > 1 {
				for _, ev := range m.Events {
					if ev.Name.Name == f.Items()[1].Text() {
						for _, fl := range ev.Fields {
							cc.add("event."+fl.Name.Name, protocol.CompletionItemKindField, "event field "+fl.Type.Name.Name, nil)
						}
					}
				}
			}
		}
		return
	}
	if m != nil {
		cc.contextFields(m)
		cc.add("event", protocol.CompletionItemKindVariable, "the transition's event", nil)
	}
	if f, ok := decl.(*ast.Function); ok {
		for _, in := range f.Inputs {
			cc.add(in.Name.Name, protocol.CompletionItemKindVariable, "input", nil)
		}
	}
	for _, s := range cc.v.enumMembers() {
		if s.Parent != nil {
			cc.add(s.Parent.Name+"."+s.Name, protocol.CompletionItemKindEnumMember, "enum member", nil)
		}
	}
	for _, s := range cc.v.localsNear(off) {
		if s.Full.Start <= off && s.Name != "result" && inside(path, s.Span.Start) {
			cc.add(s.Name, protocol.CompletionItemKindVariable, "local", nil)
		}
	}
	for _, lit := range []string{"true", "false", "none"} {
		cc.add(lit, protocol.CompletionItemKindValue, "literal", nil)
	}
}

func inside(path []*syntax.Form, off int) bool {
	for _, f := range path {
		if f.Head() == "let" || f.Head() == "match" {
			if f.Span().Start <= off && off < f.Span().End {
				return true
			}
		}
	}
	return false
}

func resolveCompletion(s *Server, params json.RawMessage) (func(context.Context) (any, error), error) {
	var item protocol.CompletionItem
	if err := decode(params, &item); err != nil {
		return nil, err
	}
	return func(context.Context) (any, error) {
		var d completionData
		raw, _ := json.Marshal(item.Data)
		if json.Unmarshal(raw, &d) == nil {
			switch d.Kind {
			case "effect":
				if e := catalog.LookupEffect(d.Name); e != nil {
					item.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: effectMarkdown(e)}
				}
			case "keyword":
				if c := catalog.LookupConstruct(d.Name); c != nil {
					item.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: c.Summary + "\n\nClauses: `" + strings.Join(c.Keys(), "`, `") + "`"}
				} else if doc, ok := keywordDocs[d.Name]; ok {
					item.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: doc}
				}
			}
		}
		return &item, nil
	}, nil
}

var keywordDocs = map[string]string{
	"module":   "`(module NAME (capsule \"VERSION\") DECL...)` — one per file.",
	"function": "`(function NAME (input (p T)...) (output T) (effects ...) (requires E) (ensures E) (example (NAME args) EXPECTED) (body E))`",
	"machine":  "`(machine NAME (context ...) (event ...) (initial STATE) (state ...)...)` — an event-driven state machine.",
	"state":    "`(state NAME (type final)? (timeout D EVENT)? (on EVENT ...)...)`",
	"on":       "`(on EVENT (guard E)? (target STATE) (assign (field E)...)? (effects ...)?)`",
	"if":       "`(if COND THEN ELSE)`",
	"let":      "`(let ((name value)...) BODY)` — each binding sees the earlier ones.",
	"match":    "`(match VALUE (PATTERN RESULT)...)` — arms are tried in order.",
	"record":   "`(record TYPE (field value)...)` — every field must be given.",
	"do":       "`(do E... LAST)` — evaluates in order and yields LAST.",
}
