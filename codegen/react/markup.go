package react

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/codegen/protocol"
)

// StaticMarkup returns the HTML that react-dom/server's
// renderToStaticMarkup writes for the generated component of a surface
// (src/SURFACE.tsx of the bundle) with data as its data prop and the
// initial form state. data is a value of the surface's data model in the
// runtime's JSON encoding (what updateDataModel carries; nil: the
// component's defaults, SURFACEDefaults); fields it lacks render empty.
//
// It computes the component's output in Go, so that the language server
// can preview a surface without a JavaScript engine. TestReactRenders
// checks it byte for byte against the real React rendering of every
// rendered surface.
func StaticMarkup(res *check.Result, surface string, data []byte) (string, error) {
	g := &gen{res: res, plan: protocol.Build(res, ""), named: map[string]types.Type{}}
	g.collectTypes()
	var s *protocol.Surface
	for i := range g.plan.Surfaces {
		if g.plan.Surfaces[i].Name == surface {
			s = &g.plan.Surfaces[i]
		}
	}
	if s == nil {
		return "", fmt.Errorf("the module has no surface %s", surface)
	}
	if data == nil {
		for _, e := range g.plan.Envelopes {
			for _, m := range e.Messages {
				if e.Surface == surface && m.UpdateDataModel != nil {
					data = m.UpdateDataModel.Value
				}
			}
		}
	}
	v, err := parseJS(data)
	if err != nil {
		return "", fmt.Errorf("the data of surface %s is not JSON: %v", surface, err)
	}
	obj, ok := v.(*jsObject)
	if !ok {
		return "", fmt.Errorf("the data of surface %s is not a JSON object", surface)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<section data-a2ui-surface="%s" data-catalog="%s"><h2>%s</h2>`, escapeHTML(s.Name), escapeHTML(s.CatalogID), escapeHTML(s.Title))
	if len(s.DataModel) > 0 {
		b.WriteString("<dl>")
		for _, f := range s.DataModel {
			fmt.Fprintf(&b, `<dt>%s</dt><dd data-path="%s">%s</dd>`, escapeHTML(f.Name), escapeHTML("/"+f.Name), escapeHTML(show(obj.get(f.Name))))
		}
		b.WriteString("</dl>")
	}
	for _, a := range s.Actions {
		fmt.Fprintf(&b, `<form data-%s="%s" data-requires-user-confirmation="%t">`, a.Kind, escapeHTML(a.Name), a.RequiresUserConfirmation)
		for _, in := range a.Input {
			name := escapeHTML(in.Name)
			b.WriteString("<label>" + name)
			switch inputKind(g.resolve(in.Type)) {
			case "checkbox":
				fmt.Fprintf(&b, `<input type="checkbox" name="%s"/>`, name)
			case "number":
				fmt.Fprintf(&b, `<input type="number" name="%s" value="0"/>`, name)
			case "json":
				fmt.Fprintf(&b, `<textarea name="%s">null</textarea>`, name)
			default:
				fmt.Fprintf(&b, `<input type="text" name="%s" value=""/>`, name)
			}
			b.WriteString("</label>")
		}
		fmt.Fprintf(&b, `<button type="submit">%s</button></form>`, escapeHTML(label(a.Name)))
	}
	b.WriteString("</section>")
	return b.String(), nil
}

// escapeHTML escapes text and attribute values as React's server renderer
// does.
var escapeHTML = strings.NewReplacer(`"`, "&quot;", "&", "&amp;", "'", "&#x27;", "<", "&lt;", ">", "&gt;").Replace

// A JSON value as JSON.parse returns it: nil, bool, float64, string,
// []any or *jsObject.
type jsObject struct {
	keys []string
	vals map[string]any
}

func (o *jsObject) get(k string) any {
	if o == nil {
		return nil
	}
	return o.vals[k]
}

// order returns the keys in JavaScript's property order: array indices
// ascending, then the other keys in insertion order.
func (o *jsObject) order() []string {
	var idx, rest []string
	for _, k := range o.keys {
		if isArrayIndex(k) {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	sort.Slice(idx, func(i, j int) bool {
		a, _ := strconv.ParseUint(idx[i], 10, 64)
		b, _ := strconv.ParseUint(idx[j], 10, 64)
		return a < b
	})
	return append(idx, rest...)
}

func isArrayIndex(k string) bool {
	if k == "" || len(k) > 1 && k[0] == '0' {
		return false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < math.MaxUint32
}

// parseJS parses one JSON value as JSON.parse does (numbers are doubles,
// a repeated key keeps its first place and its last value).
func parseJS(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := parseJSValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more than one value")
	}
	return v, nil
}

func parseJSValue(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		if t == '[' {
			out := []any{}
			for d.More() {
				v, err := parseJSValue(d)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := d.Token()
			return out, err
		}
		o := &jsObject{vals: map[string]any{}}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			key := k.(string)
			v, err := parseJSValue(d)
			if err != nil {
				return nil, err
			}
			if _, seen := o.vals[key]; !seen {
				o.keys = append(o.keys, key)
			}
			o.vals[key] = v
		}
		_, err := d.Token()
		return o, err
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return f, nil
	default:
		return t, nil // nil, bool, string
	}
}

// show is the bundle's show(): how the component displays a data model
// value.
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return jsNumber(v)
	}
	var b strings.Builder
	stringify(&b, v)
	return b.String()
}

// stringify writes v as JSON.stringify does.
func stringify(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			b.WriteString("null")
		} else {
			b.WriteString(jsNumber(v))
		}
	case string:
		quoteJS(b, v)
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			stringify(b, x)
		}
		b.WriteByte(']')
	case *jsObject:
		b.WriteByte('{')
		for i, k := range v.order() {
			if i > 0 {
				b.WriteByte(',')
			}
			quoteJS(b, k)
			b.WriteByte(':')
			stringify(b, v.vals[k])
		}
		b.WriteByte('}')
	}
}

// quoteJS writes a string literal as JSON.stringify does.
func quoteJS(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// jsNumber writes a double as JavaScript's Number.prototype.toString
// does.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	case f < 0:
		return "-" + jsNumber(-f)
	}
	// The shortest digits that round-trip, and the decimal exponent n:
	// f = 0.DIGITS × 10^n.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	sign := "+"
	if n-1 < 0 {
		sign = "-"
	}
	abs := strconv.Itoa(max(n-1, 1-n))
	if k == 1 {
		return digits + "e" + sign + abs
	}
	return digits[:1] + "." + digits[1:] + "e" + sign + abs
}
