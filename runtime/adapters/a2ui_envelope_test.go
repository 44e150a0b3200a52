package adapters_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/codegen/protocol"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/machine"
)

// envelopeLines returns the messages `caps a2ui-envelope FILE SURFACE
// --kind KIND [--data DATA]` prints (protocol.Envelope, one Encode a line).
func envelopeLines(t *testing.T, path, surface, kind, data string) []string {
	t.Helper()
	p, err := (&load.Loader{}).Load(path)
	if err != nil || p.Result.HasErrors() {
		t.Fatalf("load %s: %v %v", path, err, p.Result.Diagnostics)
	}
	var raw []byte
	if data != "" {
		raw = []byte(data)
	}
	msgs, err := protocol.Envelope(p.Result, surface, kind, raw)
	if err != nil {
		t.Fatalf("a2ui-envelope %s %s --kind %s --data %s: %v", path, surface, kind, data, err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.Encode()))
	}
	return out
}

// TestLiveA2UIMatchesEnvelope: the live adapter builds its A2UI messages
// with the builder of caps a2ui-envelope, so what a renderer receives for
// a surface is byte for byte what a2ui-envelope prints for the surface
// and the same data: declared state filled from the context (a field the
// context lacks left out), the data model of a bound surface without
// state (context and state), a declared catalog, the default catalog,
// and a context value that does not fit the data model (R_A2UI_DATA).
func TestLiveA2UIMatchesEnvelope(t *testing.T) {
	const file = "testdata/a2ui_surfaces.caps"
	r := newRenderer(t)
	p := loadArtifact(t, file, `{"allow": [{"effect": "a2ui.*"}], "a2ui": {
		"shelf": {"url": "`+r.URL+`/a2ui"}, "lamp": {"url": "`+r.URL+`/a2ui"}, "wrong": {"url": "`+r.URL+`/a2ui"}}}`)
	live := adapters.NewLive(p)
	inst, err := compile(t, file, "Shelf").NewInstance(machine.InstanceOptions{Executor: live})
	if err != nil {
		t.Fatal(err)
	}
	env := func(surface, kind, data string) []string { return envelopeLines(t, file, surface, kind, data) }
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		event, payload string
		want           []string
	}{
		{"Toggle", `{"count": 3}`, cat(
			env("shelf", "create", ""), env("shelf", "components", ""),
			env("shelf", "data", `{"count":"3","ratio":-3,"size":"large","open":true}`),
			env("lamp", "create", ""), env("lamp", "components", ""),
			env("lamp", "data", `{"count":"3","ratio":-3,"size":"large","open":true,"state":"opened"}`),
			env("lamp", "data", `{"count":"3","ratio":-3,"size":"large","open":true,"state":"opened"}`))},
		// The surfaces exist: emit sends the tree and the data again.
		{"Toggle", `{"count": 18446744073709551615}`, cat(
			env("shelf", "components", ""),
			env("shelf", "data", `{"count":"18446744073709551615","ratio":-3,"size":"large","open":false}`),
			env("lamp", "data", `{"count":"18446744073709551615","ratio":-3,"size":"large","open":false,"state":"closed"}`))},
	} {
		res := step(inst, tc.event, tc.payload)
		for _, e := range res.Effects {
			if e.Status != machine.Executed {
				t.Fatalf("%s %s: %+v", tc.event, tc.payload, e)
			}
		}
		if diff := cmp.Diff(tc.want, r.take()); diff != "" {
			t.Errorf("%s %s: renderer got (-a2ui-envelope +live):\n%s", tc.event, tc.payload, diff)
		}
	}

	// The literal bytes, for the record: the default catalog is the A2UI
	// v0.9 basic catalog, a declared one is kept, integers follow the
	// runtime's JSON encoding.
	for _, tc := range []struct{ got, want string }{
		{env("shelf", "create", "")[0], `{"version":"v0.9","createSurface":{"surfaceId":"shelf","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json","sendDataModel":true}}`},
		{env("lamp", "create", "")[0], `{"version":"v0.9","createSurface":{"surfaceId":"lamp","catalogId":"https://ui.example.test/catalogs/lamp.json","sendDataModel":true}}`},
		{env("lamp", "data", `{"state":"opened","count":3}`)[0], `{"version":"v0.9","updateDataModel":{"surfaceId":"lamp","path":"/","value":{"count":"3","state":"opened"}}}`},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	if adapters.DefaultA2UICatalog != protocol.BasicCatalog {
		t.Errorf("the adapter's default catalog %s is not the builder's %s", adapters.DefaultA2UICatalog, protocol.BasicCatalog)
	}

	// A context value of another type than the data model field: nothing
	// is sent.
	res := step(inst, "Wrong", ``)
	var got []fx
	for _, e := range res.Effects {
		got = append(got, fx{Status: string(e.Status), Code: e.Code, Error: e.Error, Adapter: e.Attempts[0].Adapter})
	}
	want := []fx{{Status: "failed", Code: "R_A2UI_DATA", Adapter: "a2ui",
		Error: "surface wrong: machine Shelf cannot fill the surface's data model: field `open` of surface wrong: expected U64, found false; give the context field and the data model field the same type"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wrong type (-want +got):\n%s", diff)
	}
	if msgs := r.take(); len(msgs) != 0 {
		t.Errorf("sent %q", msgs)
	}
}
