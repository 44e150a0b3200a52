package ledger_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/replay"
	"github.com/capsulang/caps/runtime/value"
)

const claimReview = "../machine/testdata/claim_review.caps"

func compile(t testing.TB) *machine.Machine {
	t.Helper()
	p, err := (&load.Loader{}).Load(claimReview)
	if err != nil || p.Result.HasErrors() {
		t.Fatalf("load: %v", err)
	}
	m, err := machine.Compile(p.Result, "ClaimReview", machine.Options{Hash: p.Hash})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// cycle is the benchmark stream of runtime/machine: 8 transitions and a
// failed event.
func cycle() []machine.Event {
	submit := machine.Event{Name: "SubmitClaim", Payload: map[string]value.Value{"claim_id": value.U64(4242)}}
	low := machine.Event{Name: "ReviewCompleted", Payload: map[string]value.Value{"review_score": value.U32(20)}}
	high := machine.Event{Name: "ReviewCompleted", Payload: map[string]value.Value{"review_score": value.U32(50)}}
	none := map[string]value.Value{}
	return []machine.Event{submit, low, {Name: "Approve", Payload: none}, {Name: "Archive", Payload: none},
		submit, high, {Name: "Approve", Payload: none}, {Name: "Reject", Payload: none}, {Name: "Archive", Payload: none}}
}

// TestMain doubles as the child process of TestKillMidWrite.
func TestMain(m *testing.M) {
	if dir := os.Getenv("CAPS_LEDGER_KILL_CHILD"); dir != "" {
		killChild(dir)
		return
	}
	os.Exit(m.Run())
}

// killChild steps an instance with a SyncStep ledger in dir forever,
// printing "ack N" once input N is durable.
func killChild(dir string) {
	p, err := (&load.Loader{}).Load(claimReview)
	if err != nil {
		panic(err)
	}
	m, err := machine.Compile(p.Result, "ClaimReview", machine.Options{Hash: p.Hash})
	if err != nil {
		panic(err)
	}
	f, err := ledger.CreateDir(dir, ledger.SyncStep)
	if err != nil {
		panic(err)
	}
	rec := ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: claimReview, Sync: ledger.SyncStep})
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: adapters.NewMock(nil), Observer: rec})
	if err != nil {
		panic(err)
	}
	evs := cycle()
	out := bufio.NewWriter(os.Stdout)
	for n := 0; n < 1_000_000; n++ {
		inst.Step(evs[n%len(evs)])
		if err := inst.Err(); err != nil {
			panic(err)
		}
		fmt.Fprintf(out, "ack %d\n", inst.Seq())
		out.Flush()
	}
}

// TestKillMidWrite kills a process that is recording steps (SIGKILL, at
// varying moments) and checks that the ledger opens, verifies and
// replays, and holds every step the process had acknowledged.
func TestKillMidWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for round, acks := range []int{1, 37, 150, 311} {
		t.Run(fmt.Sprint(acks), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ledger")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "CAPS_LEDGER_KILL_CHILD="+dir)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stdout)
			last := 0
			for sc.Scan() {
				n, _ := strconv.Atoi(strings.TrimPrefix(sc.Text(), "ack "))
				last = n
				if n >= acks {
					break
				}
			}
			// Let it get into the next writes, at a different moment each round.
			time.Sleep(time.Duration(round*300) * time.Microsecond)
			cmd.Process.Signal(syscall.SIGKILL)
			for sc.Scan() {
				n, _ := strconv.Atoi(strings.TrimPrefix(sc.Text(), "ack "))
				last = n
			}
			cmd.Wait()
			if last < acks {
				t.Fatalf("child acknowledged %d inputs, want %d; stderr:\n%s", last, acks, stderr.String())
			}
			rep := replay.Dir(dir, replay.Options{Module: claimReview})
			if !rep.OK {
				t.Fatalf("replay after kill: %s", rep.Text())
			}
			if rep.Inputs < last {
				t.Errorf("the ledger holds %d inputs, but %d were acknowledged", rep.Inputs, last)
			}
			t.Logf("acknowledged %d, ledger holds %d inputs, %d records; %s", last, rep.Inputs, rep.Records, rep.Incomplete)
		})
	}
}

// record writes n inputs of the cycle to a ledger in dir, in mock mode,
// or dry-run when exec is nil.
func record(t testing.TB, dir string, n int, sync ledger.Sync) {
	recordMode(t, dir, n, sync, adapters.NewMock(nil))
}

func recordMode(t testing.TB, dir string, n int, sync ledger.Sync, exec machine.Executor) {
	t.Helper()
	m := compile(t)
	f, err := ledger.CreateDir(dir, sync)
	if err != nil {
		t.Fatal(err)
	}
	rec := ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: claimReview, Sync: sync})
	inst, err := m.NewInstance(machine.InstanceOptions{Executor: exec, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	evs := cycle()
	for k := 0; k < n; k++ {
		inst.Step(evs[k%len(evs)])
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestEveryTornTail cuts the ledger at every byte of its last records (a
// write torn anywhere) and replays: the complete records always verify.
func TestEveryTornTail(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	record(t, src, 12, ledger.SyncNone)
	data, err := os.ReadFile(filepath.Join(src, ledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1]
	start := len(data) - len(bytes.Join(lines[len(lines)-5:], nil))
	for cut := start; cut < len(data); cut += 29 {
		dir := filepath.Join(t.TempDir(), "cut")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, ledger.FileName), data[:cut], 0o644)
		rep := replay.Dir(dir, replay.Options{Module: claimReview})
		if !rep.OK || rep.Inputs < 11 {
			t.Fatalf("cut at %d of %d: %s", cut, len(data), rep.Text())
		}
	}
}

// counting is a Store that counts its appends and is slow to write.
type counting struct {
	ledger.Store
	mu      sync.Mutex
	appends int
	records int
}

func (c *counting) Append(ps [][]byte) error {
	time.Sleep(200 * time.Microsecond) // an fsync
	c.mu.Lock()
	c.appends++
	c.records += len(ps)
	c.mu.Unlock()
	return c.Store.Append(ps)
}

// Close keeps the store open for the replay after the recorder closed.
func (c *counting) Close() error { return nil }

func TestGroupCommit(t *testing.T) {
	m := compile(t)
	store := &counting{Store: ledger.ChainStore{Log: chain.NewMemory()}}
	rec := ledger.NewRecorder(m, store, ledger.RecorderOptions{ModulePath: claimReview})
	inst, _ := m.NewInstance(machine.InstanceOptions{Observer: rec})
	evs := cycle()
	for k := 0; k < 900; k++ {
		inst.Step(evs[k%len(evs)])
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	// 900 inputs: 900 input records, 800 transitions, 100 failed, 800
	// snapshots, 900 trace records, plus the descriptor and the initial
	// snapshot.
	if store.records != 3502 {
		t.Errorf("%d records", store.records)
	}
	if store.appends > 900 {
		t.Errorf("%d appends for 900 steps: no group commit", store.appends)
	}
	t.Logf("%d records in %d appends", store.records, store.appends)
	rep := replay.Store(store.Store, replay.Options{Module: claimReview})
	if !rep.OK || rep.Verified != 3502 {
		t.Errorf("%s", rep.Text())
	}
}

func TestSyncStepFlushesEveryStep(t *testing.T) {
	m := compile(t)
	store := &counting{Store: ledger.ChainStore{Log: chain.NewMemory()}}
	rec := ledger.NewRecorder(m, store, ledger.RecorderOptions{Sync: ledger.SyncStep})
	inst, _ := m.NewInstance(machine.InstanceOptions{Observer: rec})
	evs := cycle()
	for k := 0; k < 20; k++ {
		inst.Step(evs[k%len(evs)])
		store.mu.Lock()
		n := store.records
		store.mu.Unlock()
		if want := 2 + 4*(k+1) - (k+1)/7; n < want-1 {
			t.Fatalf("after step %d only %d records are written", k+1, n)
		}
	}
	rec.Close()
}

func TestTypeOf(t *testing.T) {
	for p, want := range map[string]string{
		`{"context":{"type":"x"},"seq":1,"type":"snapshot"}`:                  "snapshot",
		`{"capsule_hash":"h","type":"instance","version":"1 \"type\":\"x\""}`: "instance",
		`{}`: "",
	} {
		if got := ledger.TypeOf([]byte(p)); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
}

func TestRecordsAreCanonical(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "l")
	record(t, dir, 30, ledger.SyncNone)
	recs, err := readRecords(filepath.Join(dir, ledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		c, err := chain.Canonical(r.Payload)
		if err != nil || !bytes.Equal(c, r.Payload) {
			t.Errorf("not canonical: %s", r.Payload)
		}
		var v map[string]any
		if err := json.Unmarshal(r.Payload, &v); err != nil || v["type"] != ledger.TypeOf(r.Payload) {
			t.Errorf("type %v vs %s", v["type"], ledger.TypeOf(r.Payload))
		}
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

func TestParseInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "l")
	record(t, dir, 20, ledger.SyncNone)
	f, err := ledger.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ledger.ReadAll(ledger.ChainStore{Log: f})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	extra := []string{
		`{"by_ms":60000,"clock":5,"kind":"advance","seq":3,"type":"input"}`,
		`{"clock":0,"kind":"cancel","reason":"done","seq":4,"type":"input"}`,
		`{"clock":0,"event":"A\"b","kind":"event","payload":{},"seq":5,"type":"input"}`,
		`{"clock":0,"event":"A","kind":"event","payload_text":"{x","seq":6,"type":"input"}`,
		`{"clock":0,"event":"A","kind":"event","payload":{"seq":1,"x":{"seq":2}},"seq":7,"type":"input"}`,
	}
	n := 0
	check := func(p []byte) {
		got, err := ledger.ParseInput(p)
		var want ledger.InputRecord
		if jerr := json.Unmarshal(p, &want); err != nil || jerr != nil {
			t.Fatalf("%s: %v %v", p, err, jerr)
		}
		text := func(in ledger.InputRecord) string {
			pt := "<nil>"
			if in.PayloadText != nil {
				pt = *in.PayloadText
			}
			in.PayloadText = nil
			return fmt.Sprintf("%+v %s %s", in, in.Payload, pt)
		}
		if g, w := text(got), text(want); g != w {
			t.Errorf("%s:\n got %s\nwant %s", p, g, w)
		}
		n++
	}
	for _, e := range entries {
		if e.Type == ledger.TypeInput {
			check(e.Payload)
		}
	}
	for _, p := range extra {
		check([]byte(p))
	}
	if n != 25 {
		t.Errorf("%d inputs", n)
	}
}
