package types

import (
	"fmt"
	"sync"
	"testing"
)

// TestLookupsLongAndShort checks field, member and case lookups on lists
// searched in order and on indexed ones: the first of repeated names wins,
// missing names are -1, and a list that grows after a lookup (as a record
// does while its declaration is resolved) is indexed again.
func TestLookupsLongAndShort(t *testing.T) {
	for _, n := range []int{3, indexFrom - 1, indexFrom, 200} {
		r := &Record{Name: "R"}
		e := &Enum{Name: "E"}
		v := &Variant{Name: "V"}
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("f%d", i)
			r.Fields = append(r.Fields, Field{Name: name, Type: TI64})
			e.Members = append(e.Members, name)
			v.Cases = append(v.Cases, Case{Name: name})
		}
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("f%d", i)
			if r.FieldIndex(name) != i || e.Index(name) != i || v.CaseIndex(name) != i {
				t.Fatalf("n=%d: %s at %d, %d, %d, want %d", n, name, r.FieldIndex(name), e.Index(name), v.CaseIndex(name), i)
			}
		}
		if r.Field("nope") != nil || e.Has("nope") || v.Case("nope") != nil {
			t.Fatalf("n=%d: a missing name was found", n)
		}
		// A repeated name: the first position wins.
		r.Fields = append(r.Fields, Field{Name: "f1", Type: TText})
		e.Members = append(e.Members, "f1", "late")
		v.Cases = append(v.Cases, Case{Name: "f1"}, Case{Name: "late"})
		if r.Field("f1") != TI64 || e.Index("f1") != 1 || v.CaseIndex("f1") != 1 {
			t.Fatalf("n=%d: a repeated name is not found at its first position", n)
		}
		// Names added after a lookup are found.
		if e.Index("late") != n+1 || v.CaseIndex("late") != n+1 {
			t.Fatalf("n=%d: a name added after a lookup is not found", n)
		}
	}
}

// TestLookupsConcurrent looks names up in complete types from several
// goroutines at once (run under -race by make test).
func TestLookupsConcurrent(t *testing.T) {
	r := &Record{Name: "R"}
	for i := 0; i < 100; i++ {
		r.Fields = append(r.Fields, Field{Name: fmt.Sprintf("f%d", i), Type: TI64})
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				if r.FieldIndex(fmt.Sprintf("f%d", i)) != i {
					t.Errorf("f%d not at %d", i, i)
				}
			}
		}()
	}
	wg.Wait()
}
