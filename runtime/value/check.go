package value

import (
	"fmt"
	"strconv"

	"github.com/capsulang/caps/analysis/types"
)

// Check reports whether v is a value of type t, describing the first
// mismatch. Hosts use it to validate values they build themselves (call
// arguments, event payloads) before handing them to the interpreter.
func Check(v Value, t types.Type) error {
	return check(v, t, "")
}

func check(v Value, t types.Type, path string) error {
	fail := func() error {
		what := "found " + v.Kind().String()
		if v.Kind() == KindInt {
			what = "found " + v.IntKind().String()
		}
		if v.IsValid() {
			what += " " + clipString(v.String())
		}
		if path != "" {
			return fmt.Errorf("%s: expected %s, %s", path, types.Describe(t), what)
		}
		return fmt.Errorf("expected %s, %s", types.Describe(t), what)
	}
	switch tt := t.(type) {
	case *types.Basic:
		if k := IntKindOf(tt); k != IntNone {
			if v.k != KindInt || v.ik != k {
				return fail()
			}
			return nil
		}
		if want := basicKind(tt.Kind); want == KindInvalid || v.k != want {
			return fail()
		}
	case *types.Record:
		if v.k != KindRecord || !sameType(v.Type(), tt) {
			return fail()
		}
		fs := v.Fields()
		if len(fs) != len(tt.Fields) {
			return fail()
		}
		for i, f := range tt.Fields {
			if err := check(fs[i], f.Type, join(path, f.Name)); err != nil {
				return err
			}
		}
	case *types.Enum:
		if v.k != KindEnum || !sameType(v.Type(), tt) || v.Index() >= len(tt.Members) {
			return fail()
		}
	case *types.Variant:
		if v.k != KindVariant || !sameType(v.Type(), tt) || v.Index() >= len(tt.Cases) {
			return fail()
		}
		c := tt.Cases[v.Index()]
		fs := v.Fields()
		if len(fs) != len(c.Fields) {
			return fail()
		}
		for i, f := range c.Fields {
			if err := check(fs[i], f.Type, join(path, c.Name+"."+f.Name)); err != nil {
				return err
			}
		}
	case *types.Option:
		if v.k != KindOption {
			return fail()
		}
		if v.IsSome() {
			return check(v.Payload(), tt.Elem, join(path, "some"))
		}
	case *types.Result:
		if v.k != KindResult {
			return fail()
		}
		if v.IsOk() {
			return check(v.Payload(), tt.Ok, join(path, "ok"))
		}
		return check(v.Payload(), tt.Err, join(path, "err"))
	case *types.List, *types.Array:
		if v.k != KindList {
			return fail()
		}
		elem, n := elemOf(t)
		if n >= 0 && v.Len() != n {
			return fail()
		}
		for i, e := range v.Elems() {
			if err := check(e, elem, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case *types.Map:
		if v.k != KindMap {
			return fail()
		}
		keys, vals := v.MapEntries()
		for i := range keys {
			if err := check(keys[i], tt.Key, path+"[key]"); err != nil {
				return err
			}
			if err := check(vals[i], tt.Value, path+"["+clipString(keys[i].String())+"]"); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("values of type %s are not supported", types.Describe(t))
	}
	return nil
}

// basicKind is the value kind of a non-integer basic type.
func basicKind(k types.BasicKind) Kind {
	switch k {
	case types.Unit:
		return KindUnit
	case types.Bool:
		return KindBool
	case types.Text:
		return KindText
	case types.Json:
		return KindJson
	case types.Timestamp:
		return KindTimestamp
	case types.Duration:
		return KindDuration
	case types.Address:
		return KindAddress
	case types.Bytes32:
		return KindBytes32
	}
	return KindInvalid
}

func join(path, part string) string {
	if path == "" {
		return part
	}
	return path + "." + part
}

func clipString(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
