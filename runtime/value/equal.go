package value

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/types"
)

// Equal reports whether a and b are structurally equal: the same kind and,
// for integers, the same integer type and value; text by code points;
// records, variants, options, results, lists and maps element by element.
// Records, enums and variants of different declared types are never equal.
// Json values are equal when their canonical JSON texts are.
func Equal(a, b Value) bool {
	if a.k != b.k {
		return false
	}
	switch a.k {
	case KindInvalid, KindUnit:
		return true
	case KindBool, KindDuration, KindTimestamp:
		return a.n == b.n
	case KindInt:
		if a.ik != b.ik {
			return false
		}
		if a.ik == IntWei {
			return a.weiRef().Cmp(b.weiRef()) == 0
		}
		return a.n == b.n
	case KindText, KindJson, KindAddress, KindBytes32:
		return a.AsText() == b.AsText()
	case KindEnum:
		return a.n == b.n && sameType(a.ref.(*types.Enum), b.ref.(*types.Enum))
	case KindRecord:
		ra, rb := a.ref.(*record), b.ref.(*record)
		return sameType(ra.typ, rb.typ) && equalSlices(ra.fields, rb.fields)
	case KindVariant:
		va, vb := a.ref.(*variant), b.ref.(*variant)
		return a.n == b.n && sameType(va.typ, vb.typ) && equalSlices(va.fields, vb.fields)
	case KindOption, KindResult:
		if a.n != b.n {
			return false
		}
		if a.k == KindOption && a.n == 0 {
			return true
		}
		return Equal(a.Payload(), b.Payload())
	case KindList:
		return equalSlices(a.Elems(), b.Elems())
	case KindMap:
		ka, va := a.MapEntries()
		kb, vb := b.MapEntries()
		return equalSlices(ka, kb) && equalSlices(va, vb)
	}
	return false
}

func equalSlices(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameType compares declared types: the same declaration, or (for values
// built from two checks of one module) the same name.
func sameType(a, b types.Type) bool {
	return a == b || a != nil && b != nil && a.String() == b.String()
}

// Compare orders values totally: by kind (and integer type, and declared
// type) first, then integers by value
// (unsigned kinds as unsigned), Text by code points, Bool false before true,
// Durations and Timestamps by time, enum members and variant cases in
// declaration order, none before some, ok before err, and records, lists
// and maps lexicographically. It returns -1, 0 or +1. It is the order of
// < <= > >= min max on ordered types and of map keys.
func Compare(a, b Value) int {
	if a.k != b.k {
		return cmp.Compare(a.k, b.k)
	}
	switch a.k {
	case KindBool:
		return cmp.Compare(a.n, b.n)
	case KindEnum:
		if c := compareTypes(a.Type(), b.Type()); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	case KindDuration, KindTimestamp:
		return cmp.Compare(int64(a.n), int64(b.n))
	case KindInt:
		switch {
		case a.ik != b.ik:
			return cmp.Compare(a.ik, b.ik)
		case a.ik == IntWei:
			return a.weiRef().Cmp(b.weiRef())
		case a.ik.Signed():
			return cmp.Compare(int64(a.n), int64(b.n))
		}
		return cmp.Compare(a.n, b.n)
	case KindText, KindJson, KindAddress, KindBytes32:
		return strings.Compare(a.AsText(), b.AsText())
	case KindRecord, KindVariant:
		if c := compareTypes(a.Type(), b.Type()); c != 0 {
			return c
		}
		if c := cmp.Compare(a.n, b.n); c != 0 {
			return c
		}
		return compareSlices(a.Fields(), b.Fields())
	case KindOption, KindResult:
		if c := cmp.Compare(a.n, b.n); c != 0 {
			return c
		}
		if a.k == KindOption && a.n == 0 {
			return 0
		}
		return Compare(a.Payload(), b.Payload())
	case KindList:
		return compareSlices(a.Elems(), b.Elems())
	case KindMap:
		ka, va := a.MapEntries()
		kb, vb := b.MapEntries()
		for i := 0; i < len(ka) && i < len(kb); i++ {
			if c := Compare(ka[i], kb[i]); c != 0 {
				return c
			}
			if c := Compare(va[i], vb[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(ka), len(kb))
	}
	return 0
}

// compareTypes orders declared types by name (0 for the same type).
func compareTypes(a, b types.Type) int {
	if sameType(a, b) {
		return 0
	}
	return strings.Compare(a.String(), b.String())
}

func compareSlices(a, b []Value) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// Diff describes how got differs from want, as at most max lines such as
// "field level: expected ServiceLevel.express, got ServiceLevel.economy".
// It returns nil when the values are equal. Paths name record fields,
// variant fields, list elements ([2]), option and result payloads.
func Diff(want, got Value, max int) []string {
	var out []string
	diff(&out, "", want, got, max)
	return out
}

func diff(out *[]string, path string, want, got Value, max int) {
	if len(*out) >= max || Equal(want, got) {
		return
	}
	at := func(p string) string {
		if path == "" {
			return p
		}
		return path + "." + p
	}
	line := func() {
		prefix := ""
		if path != "" {
			prefix = path + ": "
		}
		*out = append(*out, prefix+"expected "+want.String()+", got "+got.String())
	}
	if want.k != got.k {
		line()
		return
	}
	switch want.k {
	case KindRecord:
		rw, rg := want.ref.(*record), got.ref.(*record)
		if !sameType(rw.typ, rg.typ) || len(rw.fields) != len(rg.fields) {
			line()
			return
		}
		for i := range rw.fields {
			name := "?"
			if i < len(rw.typ.Fields) {
				name = rw.typ.Fields[i].Name
			}
			diff(out, at(name), rw.fields[i], rg.fields[i], max)
		}
	case KindVariant:
		vw, vg := want.ref.(*variant), got.ref.(*variant)
		if want.n != got.n || !sameType(vw.typ, vg.typ) || len(vw.fields) != len(vg.fields) {
			line()
			return
		}
		c := vw.typ.Cases[want.n]
		for i := range vw.fields {
			name := "?"
			if i < len(c.Fields) {
				name = c.Fields[i].Name
			}
			diff(out, at(c.Name+"."+name), vw.fields[i], vg.fields[i], max)
		}
	case KindOption, KindResult:
		if want.n != got.n || want.k == KindOption && want.n == 0 {
			line()
			return
		}
		tag := "some"
		if want.k == KindResult {
			tag = map[bool]string{true: "ok", false: "err"}[want.IsOk()]
		}
		diff(out, at(tag), want.Payload(), got.Payload(), max)
	case KindList:
		ew, eg := want.Elems(), got.Elems()
		if len(ew) != len(eg) {
			*out = append(*out, strings.TrimPrefix(path+": ", ": ")+"expected "+itoa(len(ew))+" elements, got "+itoa(len(eg)))
			if len(*out) >= max {
				return
			}
		}
		for i := 0; i < len(ew) && i < len(eg); i++ {
			diff(out, path+"["+itoa(i)+"]", ew[i], eg[i], max)
		}
	default:
		line()
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
