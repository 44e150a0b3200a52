package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Message is one A2UI v0.9 server-to-client message: the version and
// exactly one of the four message keys.
type Message struct {
	Version          string            `json:"version"`
	CreateSurface    *CreateSurface    `json:"createSurface,omitempty"`
	UpdateComponents *UpdateComponents `json:"updateComponents,omitempty"`
	UpdateDataModel  *UpdateDataModel  `json:"updateDataModel,omitempty"`
	DeleteSurface    *DeleteSurface    `json:"deleteSurface,omitempty"`
}

// CreateSurface asks the renderer for a new surface.
type CreateSurface struct {
	SurfaceID string `json:"surfaceId"`
	CatalogID string `json:"catalogId"`
	// SendDataModel asks the renderer to send the surface's data model
	// back with every message to the agent, so that actions carry the
	// state they were taken on.
	SendDataModel bool `json:"sendDataModel"`
}

// UpdateComponents sends a surface's component tree.
type UpdateComponents struct {
	SurfaceID  string      `json:"surfaceId"`
	Components []Component `json:"components"`
}

// UpdateDataModel replaces the value at Path of a surface's data model.
type UpdateDataModel struct {
	SurfaceID string          `json:"surfaceId"`
	Path      string          `json:"path"`
	Value     json.RawMessage `json:"value"`
}

// DeleteSurface removes a surface.
type DeleteSurface struct {
	SurfaceID string `json:"surfaceId"`
}

// Binding is an A2UI data binding: a JSON pointer into the data model.
type Binding struct {
	Path string `json:"path"`
}

// EventAction is the A2UI action of a button: an event sent to the agent
// with a context resolved from the data model.
type EventAction struct {
	Event ActionEvent `json:"event"`
}

// ActionEvent names the event and binds its context.
type ActionEvent struct {
	Name    string             `json:"name"`
	Context map[string]Binding `json:"context,omitempty"`
}

// Component is one component of the v0.9 basic catalog. Only the
// properties of its kind are set.
type Component struct {
	ID        string       `json:"id"`
	Component string       `json:"component"`
	Child     string       `json:"child,omitempty"`
	Children  []string     `json:"children,omitempty"`
	Text      any          `json:"text,omitempty"`
	Label     any          `json:"label,omitempty"`
	Value     any          `json:"value,omitempty"`
	Variant   string       `json:"variant,omitempty"`
	Action    *EventAction `json:"action,omitempty"`
}

func msg() Message { return Message{Version: A2UIVersion} }

func createSurface(s Surface) Message {
	m := msg()
	m.CreateSurface = &CreateSurface{SurfaceID: s.Name, CatalogID: s.CatalogID, SendDataModel: true}
	return m
}

// ActionPath is the data model path under which the renderer keeps the
// inputs of a surface action or event: /actions/NAME or /events/NAME.
func ActionPath(a Action) string {
	if a.Kind == "event" {
		return "/events/" + a.Name
	}
	return "/actions/" + a.Name
}

// components returns the component tree of a surface: a Card holding a
// Column with the title, one row per data model field, and one group per
// action or event (an input per field and a button that sends it).
func (m *module) components(s *ast.Surface) []Component {
	sf := m.surface(s)
	// Component ids derive from names; newID keeps them unique within the
	// surface (a later clash gets _2, _3, ...), in a fixed order.
	used := map[string]bool{"root": true, "body": true, "title": true, "state": true, "actions": true}
	newID := func(base string) string {
		id := base
		for n := 2; used[id]; n++ {
			id = fmt.Sprintf("%s_%d", base, n)
		}
		used[id] = true
		return id
	}
	root := Component{ID: "root", Component: "Card", Child: "body"}
	body := Component{ID: "body", Component: "Column", Children: []string{"title"}}
	out := []Component{root, {}, {ID: "title", Component: "Text", Text: sf.Title, Variant: "h2"}}
	if len(sf.DataModel) > 0 {
		body.Children = append(body.Children, "state")
		st := Component{ID: "state", Component: "Column"}
		var rows []Component
		for _, f := range m.dataModel(s) {
			id := newID("state_" + f.Name)
			st.Children = append(st.Children, id)
			bind := Binding{"/" + f.Name}
			if types.Identical(f.typ, types.TBool) {
				rows = append(rows, Component{ID: id, Component: "CheckBox", Label: f.Name, Value: bind})
				continue
			}
			label, val := newID(id+"_label"), newID(id+"_value")
			rows = append(rows,
				Component{ID: id, Component: "Row", Children: []string{label, val}},
				Component{ID: label, Component: "Text", Text: f.Name, Variant: "caption"},
				Component{ID: val, Component: "Text", Text: bind})
		}
		out = append(out, st)
		out = append(out, rows...)
	}
	if len(sf.Actions) > 0 {
		body.Children = append(body.Children, "actions")
		acts := Component{ID: "actions", Component: "Column"}
		var groups []Component
		for _, a := range sf.Actions {
			id := newID(a.Kind + "_" + a.Name)
			acts.Children = append(acts.Children, id)
			g := Component{ID: id, Component: "Column"}
			var inputs []Component
			ctx := map[string]Binding{}
			for _, in := range m.actionInputs(s, a) {
				iid := newID(id + "_" + in.Name)
				g.Children = append(g.Children, iid)
				bind := Binding{ActionPath(a) + "/" + in.Name}
				ctx[in.Name] = bind
				inputs = append(inputs, m.input(iid, in, bind))
			}
			submit := newID(id + "_submit")
			label := newID(submit + "_label")
			g.Children = append(g.Children, submit)
			if len(ctx) == 0 {
				ctx = nil
			}
			btn := Component{ID: submit, Component: "Button", Child: label, Action: &EventAction{ActionEvent{Name: a.Name, Context: ctx}}}
			if a.Kind == "action" {
				btn.Variant = "primary"
			}
			groups = append(groups, g)
			groups = append(groups, inputs...)
			groups = append(groups, btn, Component{ID: label, Component: "Text", Text: humanize(a.Name)})
		}
		out = append(out, acts)
		out = append(out, groups...)
	}
	out[1] = body
	return out
}

// input is the input component of an action field: a CheckBox for Bool,
// a TextField otherwise (number for integers, longText for Json).
func (m *module) input(id string, f dataField, bind Binding) Component {
	t := f.typ
	if types.Identical(t, types.TBool) {
		return Component{ID: id, Component: "CheckBox", Label: f.Name, Value: bind}
	}
	c := Component{ID: id, Component: "TextField", Label: f.Name, Value: bind}
	switch {
	case types.IsInteger(t):
		c.Variant = "number"
	case types.Identical(t, types.TJson):
		c.Variant = "longText"
	}
	return c
}

func (m *module) updateComponents(s *ast.Surface) Message {
	out := msg()
	out.UpdateComponents = &UpdateComponents{SurfaceID: s.Name.Name, Components: m.components(s)}
	return out
}

// defaultData is the updateDataModel message of a surface's default data
// model: each field's zero value (null where the type has none).
func (m *module) defaultData(s *ast.Surface) Message {
	var b bytes.Buffer
	b.WriteString("{")
	for i, f := range m.dataModel(s) {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(f.Name)
		b.Write(k)
		b.WriteString(":")
		if f.def != "" {
			b.WriteString(f.def)
			continue
		}
		if v, ok := value.Zero(f.typ); ok {
			if j, err := v.MarshalJSON(); err == nil {
				b.Write(j)
				continue
			}
		}
		if e, ok := f.typ.(*types.Enum); ok && len(e.Members) > 0 {
			j, _ := json.Marshal(e.Members[0])
			b.Write(j)
			continue
		}
		b.WriteString("null")
	}
	b.WriteString("}")
	out := msg()
	out.UpdateDataModel = &UpdateDataModel{SurfaceID: s.Name.Name, Path: "/", Value: json.RawMessage(b.Bytes())}
	return out
}

// Kinds are the envelope kinds of Envelope, in order.
var Kinds = []string{"create", "components", "data", "delete", "stream"}

// Error is a problem with the arguments of an envelope: an unknown surface
// or --data that does not fit the surface's data model. Span points into
// the module (the surface's declaration or the field's).
type Error struct {
	Code    string
	Span    syntax.Span
	Message string
	Related []syntax.Related
}

func (e *Error) Error() string { return e.Message }

// Diagnostic returns the error as a diagnostic of the module's file.
func (e *Error) Diagnostic() syntax.Diagnostic {
	return syntax.Diagnostic{Code: e.Code, Severity: syntax.Error, Span: e.Span, Message: e.Message, Related: e.Related}
}

// Diagnostic codes of Envelope (documented in analysis/codes/codes.json).
const (
	// UnknownSurface: the named surface is not declared.
	UnknownSurface = "E_SURFACE_NOT_FOUND"
	// DataNotObject: --data is not a JSON object.
	DataNotObject = "E_SURFACE_DATA_NOT_OBJECT"
	// DataField: --data names a field the data model does not have.
	DataField = "E_SURFACE_DATA_FIELD"
	// DataType: a --data value does not have its field's type.
	DataType = "E_SURFACE_DATA_TYPE"
)

// Builder builds the A2UI v0.9 messages of the surfaces of one checked
// module. It is the toolchain's only A2UI message builder: `caps
// a2ui-envelope` (Envelope), the protocol plan's envelopes (Build), the
// React target's fixtures and the live A2UI adapter (runtime/adapters)
// all use it, and Encode writes every message, so the same surface and
// data give the same bytes wherever they are built. A Builder is
// read-only after NewBuilder and safe for concurrent use.
type Builder struct {
	m *module
}

// NewBuilder returns the builder of a checked module's surfaces.
func NewBuilder(res *check.Result) *Builder { return &Builder{m: newModule(res)} }

// lookup returns the declaration of a surface, or an E_SURFACE_NOT_FOUND
// error that names the closest surface.
func (b *Builder) lookup(surface string) (*ast.Surface, error) {
	m := b.m
	if s := m.surfaces[surface]; s != nil {
		return s, nil
	}
	names := []string{}
	sp := syntax.Span{}
	mod := "the module"
	if m.mod != nil {
		sp = m.mod.Name.Span
		mod = "module " + m.mod.Name.Name
		for _, d := range m.mod.Decls {
			if s, ok := d.(*ast.Surface); ok {
				names = append(names, s.Name.Name)
			}
		}
	}
	msg := fmt.Sprintf("%s has no surface `%s`", mod, surface)
	if best := spell.Nearest(surface, names); best != "" {
		msg += spell.Hint(best, spell.Backtick)
	} else if len(names) > 0 {
		msg += "; its surfaces are " + strings.Join(names, ", ")
	} else {
		msg += "; it declares no surface"
	}
	return nil, &Error{Code: UnknownSurface, Span: sp, Message: msg}
}

// Surface returns the surface as the protocol plan lists it.
func (b *Builder) Surface(surface string) (Surface, error) {
	s, err := b.lookup(surface)
	if err != nil {
		return Surface{}, err
	}
	return b.m.surface(s), nil
}

// CreateSurface returns the surface's createSurface message: its declared
// catalog, else BasicCatalog, and sendDataModel.
func (b *Builder) CreateSurface(surface string) (Message, error) {
	s, err := b.lookup(surface)
	if err != nil {
		return Message{}, err
	}
	return createSurface(b.m.surface(s)), nil
}

// UpdateComponents returns the surface's updateComponents message: its
// component tree (see docs/protocols.md).
func (b *Builder) UpdateComponents(surface string) (Message, error) {
	s, err := b.lookup(surface)
	if err != nil {
		return Message{}, err
	}
	return b.m.updateComponents(s), nil
}

// UpdateDataModel returns the surface's updateDataModel message at "/".
// A nil data sends the default data model (each field's zero value);
// otherwise data is a JSON object of data model fields, each of its type
// (a subset may be given), written back in the runtime's JSON encoding in
// the data model's order. Data that does not fit is an *Error
// (E_SURFACE_DATA_NOT_OBJECT, E_SURFACE_DATA_FIELD, E_SURFACE_DATA_TYPE).
func (b *Builder) UpdateDataModel(surface string, data []byte) (Message, error) {
	s, err := b.lookup(surface)
	if err != nil {
		return Message{}, err
	}
	if data == nil {
		return b.m.defaultData(s), nil
	}
	v, err := b.m.checkData(s, data)
	if err != nil {
		return Message{}, err
	}
	out := msg()
	out.UpdateDataModel = &UpdateDataModel{SurfaceID: surface, Path: "/", Value: v}
	return out, nil
}

// DeleteSurface returns the surface's deleteSurface message.
func (b *Builder) DeleteSurface(surface string) (Message, error) {
	if _, err := b.lookup(surface); err != nil {
		return Message{}, err
	}
	out := msg()
	out.DeleteSurface = &DeleteSurface{SurfaceID: surface}
	return out, nil
}

// Values are the values a running machine supplies for a surface's data
// model (UpdateDataModelFrom).
type Values struct {
	// Machine is the machine whose values these are, and State the state
	// it is in (or enters).
	Machine, State string
	// Field returns the value of the machine's context field of that
	// name, in the runtime's JSON encoding; false when it has none.
	Field func(name string) (json.RawMessage, bool)
}

// UpdateDataModelFrom returns the surface's updateDataModel message with
// the values of a running machine: each data model field from the context
// field of the same name, and the `state` field of a surface that
// declares no state from v.State when v.Machine is the surface's bound
// machine. Fields the machine cannot supply are left out. The object goes
// through the same check as UpdateDataModel's data, so the message is the
// one `caps a2ui-envelope SURFACE --kind data --data OBJECT` prints for
// that object; a value of the wrong type is an E_SURFACE_DATA_TYPE *Error.
func (b *Builder) UpdateDataModelFrom(surface string, v Values) (Message, error) {
	s, err := b.lookup(surface)
	if err != nil {
		return Message{}, err
	}
	var obj bytes.Buffer
	obj.WriteString("{")
	n := 0
	for _, f := range b.m.dataModel(s) {
		var raw json.RawMessage
		if f.Name == "state" && len(s.State) == 0 {
			if v.Machine != s.Bind.Name {
				continue
			}
			raw, _ = json.Marshal(v.State)
		} else if v.Field == nil {
			continue
		} else if x, ok := v.Field(f.Name); ok {
			raw = x
		} else {
			continue
		}
		if n > 0 {
			obj.WriteString(",")
		}
		n++
		k, _ := json.Marshal(f.Name)
		obj.Write(k)
		obj.WriteString(":")
		obj.Write(raw)
	}
	obj.WriteString("}")
	return b.UpdateDataModel(surface, obj.Bytes())
}

// DataModel returns the fields of the surface's data model, in order.
func (b *Builder) DataModel(surface string) ([]Field, error) {
	s, err := b.lookup(surface)
	if err != nil {
		return nil, err
	}
	out := []Field{}
	for _, f := range b.m.dataModel(s) {
		out = append(out, f.Field)
	}
	return out, nil
}

// Envelope returns the messages of one kind for a surface: create
// (createSurface), components (updateComponents), data (updateDataModel
// at "/", data as for UpdateDataModel), delete (deleteSurface) or stream
// (create, components and data).
func (b *Builder) Envelope(surface, kind string, data []byte) ([]Message, error) {
	if _, err := b.lookup(surface); err != nil {
		return nil, err
	}
	if data != nil && kind != "data" {
		return nil, fmt.Errorf("--data goes with --kind data, not %s", kind)
	}
	one := func(m Message, err error) ([]Message, error) {
		if err != nil {
			return nil, err
		}
		return []Message{m}, nil
	}
	switch kind {
	case "create":
		return one(b.CreateSurface(surface))
	case "components":
		return one(b.UpdateComponents(surface))
	case "data":
		return one(b.UpdateDataModel(surface, data))
	case "delete":
		return one(b.DeleteSurface(surface))
	case "stream":
		c, _ := b.CreateSurface(surface)
		u, _ := b.UpdateComponents(surface)
		d, _ := b.UpdateDataModel(surface, nil)
		return []Message{c, u, d}, nil
	}
	return nil, fmt.Errorf("unknown envelope kind %q; kinds are %s", kind, strings.Join(Kinds, ", "))
}

// Envelope returns the A2UI messages of one kind for a surface of a
// checked module (Builder.Envelope): create, components, data, delete or
// stream. For data, a non-nil data is the value to send: a JSON object
// whose fields must be fields of the surface's data model, each of its
// type (a subset may be given; the value replaces the whole data model).
// Without data the default data model is sent. The values are written in
// the runtime's JSON encoding, in the data model's order.
func Envelope(res *check.Result, surface, kind string, data []byte) ([]Message, error) {
	return NewBuilder(res).Envelope(surface, kind, data)
}

// Encode writes a message as one line of JSON Lines without the newline:
// compact, members in the order of the A2UI schema, <, > and & not
// escaped. Every A2UI message the toolchain sends or prints is written by
// Encode.
func (m Message) Encode() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		// Messages hold strings, bools, components and checked raw JSON:
		// they always encode.
		panic(fmt.Sprintf("protocol: encoding an A2UI message: %v", err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// checkData type-checks data against a surface's data model and returns
// it in the runtime's JSON encoding, fields in the data model's order.
func (m *module) checkData(s *ast.Surface, data []byte) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	var v any
	what := ""
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&v); err != nil {
		what = "not valid JSON (" + strings.TrimPrefix(err.Error(), "json: ") + ")"
	} else if dec.More() {
		what = "more than one JSON value"
	} else if _, ok := v.(map[string]any); !ok {
		what = "not a JSON object but " + describe(data)
	} else if err := json.Unmarshal(data, &obj); err != nil {
		what = "not a JSON object (" + err.Error() + ")"
	}
	if what != "" {
		return nil, &Error{Code: DataNotObject, Span: s.Name.Span, Message: fmt.Sprintf("the data for surface %s is %s; give an object of its data model's fields, such as {\"field\": value}", s.Name.Name, what)}
	}
	model := m.dataModel(s)
	var names []string
	for _, f := range model {
		names = append(names, f.Name)
	}
	var keys []string
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !contains(names, k) {
			msg := fmt.Sprintf("surface %s has no data model field `%s`", s.Name.Name, k)
			if best := spell.Nearest(k, names); best != "" {
				msg += spell.Hint(best, spell.Backtick)
			} else if len(names) > 0 {
				msg += "; its fields are " + strings.Join(names, ", ")
			}
			return nil, &Error{Code: DataField, Span: s.Name.Span, Message: msg}
		}
	}
	var b bytes.Buffer
	b.WriteString("{")
	n := 0
	for _, f := range model {
		raw, ok := obj[f.Name]
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteString(",")
		}
		n++
		k, _ := json.Marshal(f.Name)
		b.Write(k)
		b.WriteString(":")
		if e, isEnum := f.typ.(*types.Enum); isEnum && f.Name == "state" && len(s.State) == 0 {
			var st string
			if json.Unmarshal(raw, &st) != nil || !contains(e.Members, st) {
				return nil, &Error{Code: DataType, Span: f.span, Message: fmt.Sprintf("field `state` of surface %s is the state of machine %s (one of %s); --data gives %s", s.Name.Name, s.Bind.Name, strings.Join(e.Members, ", "), describe(raw))}
			}
			b.Write(raw)
			continue
		}
		if types.IsInvalid(f.typ) {
			return nil, &Error{Code: DataType, Span: f.span, Message: fmt.Sprintf("field `%s` of surface %s has type %s, which --data cannot check", f.Name, s.Name.Name, f.Type)}
		}
		v, err := value.FromJSON(raw, f.typ)
		if err != nil {
			return nil, &Error{Code: DataType, Span: f.span, Message: fmt.Sprintf("field `%s` of surface %s: %v", f.Name, s.Name.Name, err)}
		}
		j, err := v.MarshalJSON()
		if err != nil {
			return nil, &Error{Code: DataType, Span: f.span, Message: fmt.Sprintf("field `%s` of surface %s: %v", f.Name, s.Name.Name, err)}
		}
		b.Write(j)
	}
	b.WriteString("}")
	return json.RawMessage(b.Bytes()), nil
}

// describe quotes a JSON value for a message, shortened when long.
func describe(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
