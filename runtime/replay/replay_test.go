package replay_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/replay"
)

const mocks = `{"mocks": [
  {"effect": "mcp.call", "target": "climate_port.set_vent", "event": "SetVent",
   "outcomes": [{"ok": false, "error": "jammed", "code": "E_JAM", "latency": "40s"}, {"ok": true, "result": {"moved": true, "note": "é\u2028<&>"}, "latency": 1500}]},
  {"effect": "mcp.call", "event": "Storm", "outcomes": [{"ok": false, "error": "offline"}]}
]}`

// input is one input of a recorded run.
type input struct {
	event, payload string
	advance        int64
	cancel         bool
}

var inputs = []input{
	{event: "SetVent", payload: `{"percent": 40}`},
	{event: "SetVent", payload: `{"percent": 140}`}, // guard false
	{event: "Nope"},
	{event: "Rename", payload: `{"label": "north \"wing\"\n"}`},
	{event: "Storm"}, // set_vent fails, no on-error: stays sealed
	{advance: 7 * 3600_000},
	{event: "SetVent", payload: `{"percent": "7"}`},
	{cancel: true},
	{event: "Storm"},
}

func copyModule(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../machine/testdata/vent.caps")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "vent.caps")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// record runs the inputs in mode against the module and records them in dir.
func record(t *testing.T, module, dir string, mode machine.Mode, ins []input) {
	t.Helper()
	p, err := (&load.Loader{}).Load(module)
	if err != nil || p.Result.HasErrors() {
		t.Fatalf("load: %v", err)
	}
	m, err := machine.Compile(p.Result, "VentController", machine.Options{Hash: p.Hash})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ledger.CreateDir(dir, ledger.SyncNone)
	if err != nil {
		t.Fatal(err)
	}
	rec := ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: module})
	var exec machine.Executor
	if mode == machine.Mock {
		mf, err := adapters.ParseMocks([]byte(mocks))
		if err != nil {
			t.Fatal(err)
		}
		exec = adapters.NewMock(mf)
	}
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: exec, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		switch {
		case in.cancel:
			inst.Cancel("operator request")
		case in.event == "":
			if _, err := inst.Advance(in.advance); err != nil {
				t.Fatal(err)
			}
		default:
			inst.Step(machine.Event{Name: in.event, Raw: json.RawMessage(in.payload)})
		}
	}
	if err := inst.Err(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

func ledgerFile(dir string) string { return filepath.Join(dir, ledger.FileName) }

func TestRecordAndReplay(t *testing.T) {
	module := copyModule(t)
	for _, mode := range []machine.Mode{machine.DryRun, machine.Mock} {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			record(t, module, dir, mode, inputs)
			rep := replay.Dir(dir, replay.Options{})
			if !rep.OK {
				t.Fatalf("replay: %s", rep.Text())
			}
			if full := replay.Dir(dir, replay.Options{Trace: true}); !full.OK || full.Verified != full.Records {
				t.Fatalf("replay with trace: %s", full.Text())
			}
			if rep.Verified != rep.Records || rep.Inputs != len(inputs) || rep.State != "idle" {
				t.Errorf("report %+v", rep)
			}
			// every payload is canonical JSON
			recs, err := readRecords(ledgerFile(dir))
			if err != nil {
				t.Fatal(err)
			}
			types := map[string]int{}
			for _, r := range recs {
				types[ledger.TypeOf(r.Payload)]++
			}
			want := map[string]int{"instance": 1, "input": 9, "transition": 6, "failed": 3, "snapshot": 7, "trace": 9}
			if mode == machine.Mock {
				want["effects"] = 3
			}
			for k, n := range want {
				if types[k] != n {
					t.Errorf("%d %s records, want %d (all: %v)", types[k], k, n, types)
				}
			}
		})
	}
}

func TestDeterministicBytes(t *testing.T) {
	module := copyModule(t)
	a, b := t.TempDir(), t.TempDir()
	record(t, module, a, machine.Mock, inputs)
	record(t, module, b, machine.Mock, inputs)
	x, _ := os.ReadFile(ledgerFile(a))
	y, _ := os.ReadFile(ledgerFile(b))
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Fatalf("two runs gave different ledgers (%d and %d bytes)", len(x), len(y))
	}
}

func TestEncoderOutputIsCanonical(t *testing.T) {
	module := copyModule(t)
	dir := t.TempDir()
	record(t, module, dir, machine.Mock, inputs)
	data, _ := os.ReadFile(ledgerFile(dir))
	for n, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r chain.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		c, err := chain.Canonical(r.Payload)
		if err != nil || !bytes.Equal(c, r.Payload) {
			t.Errorf("line %d: not canonical: %s", n+1, r.Payload)
		}
	}
}

// rewrite changes the ledger file's lines with edit.
func rewrite(t *testing.T, dir string, edit func(lines [][]byte) [][]byte) {
	t.Helper()
	data, err := os.ReadFile(ledgerFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1] // the empty piece after the last newline
	if err := os.WriteFile(ledgerFile(dir), bytes.Join(edit(lines), nil), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTamper(t *testing.T) {
	module := copyModule(t)
	tests := []struct {
		name string
		edit func([][]byte) [][]byte
		want string
	}{
		{"flipped byte", func(l [][]byte) [][]byte {
			l[5] = bytes.Replace(l[5], []byte(`"percent":40`), []byte(`"percent":41`), 1)
			return l
		}, "hash"},
		{"dropped record", func(l [][]byte) [][]byte { return append(l[:4], l[5:]...) }, "seq"},
		{"reordered records", func(l [][]byte) [][]byte { l[3], l[4] = l[4], l[3]; return l }, "seq"},
		{"flipped last record", func(l [][]byte) [][]byte {
			n := len(l) - 1
			l[n] = bytes.Replace(l[n], []byte(`"type":"trace"`), []byte(`"type":"trace "`), 1)
			return l
		}, "hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			record(t, module, dir, machine.Mock, inputs)
			rewrite(t, dir, tt.edit)
			rep := replay.Dir(dir, replay.Options{})
			if rep.OK || rep.Tamper == nil || rep.Tamper.Kind != tt.want {
				t.Fatalf("report %+v\n%s", rep, rep.Text())
			}
			if !strings.HasPrefix(rep.Text(), "tampered: line ") {
				t.Errorf("text %q", rep.Text())
			}
		})
	}
}

func TestChangedModule(t *testing.T) {
	module := copyModule(t)
	dir := t.TempDir()
	record(t, module, dir, machine.DryRun, inputs)
	src, _ := os.ReadFile(module)
	changed := bytes.Replace(src, []byte("(<= event.percent 100)"), []byte("(<= event.percent 30)"), 1)
	if err := os.WriteFile(module, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := replay.Dir(dir, replay.Options{})
	if rep.OK || !rep.HashChanged || rep.Mismatch == nil {
		t.Fatalf("%+v", rep)
	}
	text := rep.Text()
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[0], "semantic hash differs: the ledger was recorded with sha256:") {
		t.Errorf("first line %q", lines[0])
	}
	// the first SetVent (40%) now fails its guard
	if m := rep.Mismatch; m.Input != 1 || m.Type != "transition" || m.Field != "type" || m.Replay != `"failed"` {
		t.Errorf("mismatch %+v", m)
	}
	if lines[1] != "mismatch at record 4 (transition), replaying input 1 (SetVent): the ledger has a transition record, the replay a failed record" {
		t.Errorf("second line %q", lines[1])
	}
}

func TestSameHashDifferentOutcome(t *testing.T) {
	// A ledger whose recorded context was altered *and* re-chained (so the
	// chain verifies) is caught by the byte comparison.
	module := copyModule(t)
	dir := t.TempDir()
	record(t, module, dir, machine.DryRun, inputs)
	recs, err := readRecords(ledgerFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(ledgerFile(dir))
	f, err := chain.Open(ledgerFile(dir), chain.Options{Sync: chain.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		p := bytes.Replace(r.Payload, []byte(`"moves":1`), []byte(`"moves":9`), 1)
		if _, err := f.Append(p); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	rep := replay.Dir(dir, replay.Options{})
	if rep.OK || rep.Mismatch == nil || rep.Mismatch.Field != "context.moves" || rep.Mismatch.Ledger != "9" || rep.Mismatch.Replay != "1" {
		t.Fatalf("%+v\n%s", rep.Mismatch, rep.Text())
	}
	if !strings.Contains(rep.Text(), "mismatch at record 5 (snapshot), replaying input 1 (SetVent): context.moves is 9 in the ledger, 1 on replay") {
		t.Errorf("%s", rep.Text())
	}
}

func TestAlteredTrace(t *testing.T) {
	// A trace record altered and re-chained: the chain verifies, the
	// states replay, and --trace finds the difference.
	module := copyModule(t)
	dir := t.TempDir()
	record(t, module, dir, machine.Mock, inputs)
	recs, err := readRecords(ledgerFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(ledgerFile(dir))
	f, err := chain.Open(ledgerFile(dir), chain.Options{Sync: chain.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if _, err := f.Append(bytes.Replace(r.Payload, []byte(`"body":"jammed"`), []byte(`"body":"fine"`), 1)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	if rep := replay.Dir(dir, replay.Options{}); !rep.OK {
		t.Fatalf("%s", rep.Text())
	}
	rep := replay.Dir(dir, replay.Options{Trace: true})
	if rep.OK || rep.Mismatch == nil || rep.Mismatch.Type != "trace" || rep.Mismatch.Field != "records[10].body" {
		t.Fatalf("%+v", rep.Mismatch)
	}
}

func TestTruncatedTail(t *testing.T) {
	module := copyModule(t)
	dir := t.TempDir()
	record(t, module, dir, machine.Mock, inputs)
	// cut the ledger after the transition record of the first step, and
	// add half a line (a torn write)
	rewrite(t, dir, func(l [][]byte) [][]byte {
		return append(l[:4:4], l[4][:20])
	})
	rep := replay.Dir(dir, replay.Options{})
	if !rep.OK || rep.Incomplete == "" || rep.Records != 4 {
		t.Fatalf("%+v\n%s", rep, rep.Text())
	}
	if !strings.Contains(rep.Text(), "note: the ledger ends in the middle of input 1 (SetVent)") {
		t.Errorf("%s", rep.Text())
	}
}

// readRecords reads a chain file's records (copies, unlike slices into a
// reader's buffer).
func readRecords(path string) ([]chain.Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []chain.Record
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var r chain.Record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
