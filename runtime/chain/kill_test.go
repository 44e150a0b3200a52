package chain

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The kill test re-runs this test binary as a child that appends to a log
// in a loop and prints each record's seq once Append has returned. The
// parent kills it with SIGKILL at a random moment, reopens the log, and
// checks that the chain verifies and that every record the child reported
// is there.

const childEnv = "CHAIN_KILL_CHILD_LOG"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(killChild(path))
	}
	os.Exit(m.Run())
}

func killChild(path string) int {
	l, err := Open(path, Options{LockTimeout: 10 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		return 3
	}
	out := os.Stdout // unbuffered: one write per line
	rng := rand.New(rand.NewSource(int64(os.Getpid())))
	// Now and then write half of a batch and pause before the real write,
	// as a slow disk would: a kill in the pause leaves a torn last line.
	testHookBeforeWrite = func(l *File, data []byte, off int64) {
		if rng.Intn(4) == 0 {
			l.f.WriteAt(data[:len(data)/2], off)
			time.Sleep(2 * time.Millisecond)
		}
	}
	for i := 0; ; i++ {
		// Payloads of varied size, some large enough to need many pages,
		// so that a kill can land in the middle of a write.
		n := rng.Intn(512)
		if rng.Intn(16) == 0 {
			// Large enough for a write of many pages, which a kill can
			// cut in the middle.
			n = 256<<10 + rng.Intn(768<<10)
		}
		pad := strings.Repeat("p", n)
		var err error
		var seqs []uint64
		if i%7 == 6 {
			rs, e := l.AppendBatch([][]byte{
				[]byte(fmt.Sprintf(`{"n":%d,"pad":%q}`, i, pad)),
				[]byte(fmt.Sprintf(`{"n":%d,"pad":"b"}`, i)),
			})
			err = e
			for _, r := range rs {
				seqs = append(seqs, r.Seq)
			}
		} else {
			r, e := l.Append([]byte(fmt.Sprintf(`{"n":%d,"pad":%q}`, i, pad)))
			err = e
			seqs = append(seqs, r.Seq)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "child append:", err)
			return 4
		}
		for _, s := range seqs {
			// One write per line: the parent sees exactly what was acknowledged.
			fmt.Fprintf(out, "%d\n", s)
		}
	}
}

func TestKillMidWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	acked := map[uint64]bool{}
	var maxAcked uint64
	torn := 0
	const runs = 25
	deadline := time.Now().Add(30 * time.Second)
	run := 0
	for ; run < runs && time.Now().Before(deadline); run++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1<<16)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Wait for the first acknowledgement, then kill at a random moment.
		first, ok := <-lines
		if !ok {
			cmd.Wait()
			t.Fatalf("run %d: child printed nothing: %s", run, stderr.String())
		}
		time.Sleep(time.Duration(rng.Intn(20000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		got := []string{first}
		for l := range lines {
			got = append(got, l)
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("run %d: child ended by itself (%v): %s", run, err, stderr.String())
		}
		for _, s := range got {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				t.Fatalf("run %d: child printed %q", run, s)
			}
			acked[n] = true
			maxAcked = max(maxAcked, n)
		}
		// The log must verify (a torn tail is allowed before Open) ...
		rep, err := VerifyFile(path)
		if err != nil || !rep.OK {
			t.Fatalf("run %d: verify after kill: %+v %v", run, rep, err)
		}
		if rep.TornBytes > 0 {
			torn++
		}
		// ... and open, removing a torn tail, with every acknowledged record.
		l, err := Open(path, Options{VerifyOnOpen: true})
		if err != nil {
			t.Fatalf("run %d: open after kill: %v", run, err)
		}
		recs, err := l.Records()
		l.Close()
		if err != nil {
			t.Fatal(err)
		}
		have := map[uint64]bool{}
		for i, r := range recs {
			if r.Seq != uint64(i+1) {
				t.Fatalf("run %d: record %d has seq %d", run, i+1, r.Seq)
			}
			have[r.Seq] = true
		}
		for s := range acked {
			if !have[s] {
				t.Fatalf("run %d: acknowledged record %d lost (log has %d records)", run, s, len(recs))
			}
		}
	}
	t.Logf("%d runs, %d acknowledged records (max seq %d), %d torn tails recovered", run, len(acked), maxAcked, torn)
}
