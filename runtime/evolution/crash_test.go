package evolution

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/capsulang/caps/analysis/propose"
)

// The crash tests re-run this test binary as a child that commits and is
// killed (SIGKILL) at a chosen point of the commit, or at random moments
// of a commit loop. Afterwards each file must hold its old or its new
// bytes, the ledger must verify, and once the next command has recovered,
// a multi-file commit must be all there or not at all, as the ledger says.

const (
	envRoot     = "EVOLUTION_CRASH_ROOT"
	envPoint    = "EVOLUTION_CRASH_POINT"
	envProposal = "EVOLUTION_CRASH_PROPOSAL"
)

func TestMain(m *testing.M) {
	if root := os.Getenv(envRoot); root != "" {
		os.Exit(crashChild(root))
	}
	os.Exit(m.Run())
}

var crashFiles = []string{"examples/abs.caps", "examples/text_and_records.caps"}

const marker = "\n;; toggled\n"

func crashChild(root string) int {
	w, err := Open(root, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	if point := os.Getenv(envPoint); point != "" {
		crashHook = func(p string) {
			if p == point {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				time.Sleep(time.Hour)
			}
		}
		if _, err := w.Commit(os.Getenv(envProposal), nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
		return 0
	}
	for i := 0; ; i++ {
		p, err := toggle(w, root)
		if err != nil {
			fmt.Fprintln(os.Stderr, "propose:", err)
			return 5
		}
		if _, err := w.Commit(p.ID, nil); err != nil {
			fmt.Fprintln(os.Stderr, "commit:", err)
			return 6
		}
		fmt.Println(i)
	}
}

// toggle proposes adding the marker to both files, or removing it.
func toggle(w *Workspace, root string) (*propose.Proposal, error) {
	var diff strings.Builder
	for _, f := range crashFiles {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		s := string(b)
		next := s + marker
		if strings.HasSuffix(s, marker) {
			next = strings.TrimSuffix(s, marker)
		}
		diff.WriteString(propose.UnifiedDiff(f, b, true, []byte(next)))
	}
	return w.Propose(propose.Request{Kind: propose.FromPatch, Patch: []byte(diff.String()), By: "crash-test"})
}

func runChild(t *testing.T, root string, env ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), envRoot+"="+root), env...)
	return cmd
}

// checkFiles checks that each file is old or new and returns which.
func checkFiles(t *testing.T, root string, old, new map[string]string) []bool {
	t.Helper()
	var isNew []bool
	for _, f := range crashFiles {
		got := read(t, filepath.Join(root, f))
		switch got {
		case old[f]:
			isNew = append(isNew, false)
		case new[f]:
			isNew = append(isNew, true)
		default:
			t.Fatalf("%s is neither the old nor the new bytes (%d bytes)", f, len(got))
		}
	}
	return isNew
}

func noLeftovers(t *testing.T, root string) {
	t.Helper()
	if ents, _ := os.ReadDir(filepath.Join(root, ".caps", "txn")); len(ents) > 0 {
		t.Fatalf("journal left after recovery: %v", ents)
	}
	ents, _ := os.ReadDir(filepath.Join(root, "examples"))
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Fatalf("temporary file left after recovery: %s", e.Name())
		}
	}
}

func TestCommitCrashPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, point := range []string{"prepared", "temp-written", "decided", "renamed", "appended"} {
		t.Run(point, func(t *testing.T) {
			root := copyExamples(t)
			w := open(t, root)
			old := map[string]string{}
			for _, f := range crashFiles {
				old[f] = read(t, filepath.Join(root, f))
			}
			p, err := toggle(w, root)
			if err != nil {
				t.Fatal(err)
			}
			new := map[string]string{}
			for _, f := range p.Files {
				new[f.Path] = string(f.Candidate)
			}
			if a, err := w.Assess(p.ID); err != nil || a.Verdict != propose.Pass {
				t.Fatalf("assess: %+v %v", a, err)
			}
			cmd := runChild(t, root, envPoint+"="+point, envProposal+"="+p.ID)
			out, err := cmd.CombinedOutput()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
				t.Fatalf("child was not killed at %s: %v %s", point, err, out)
			}
			checkFiles(t, root, old, new)
			verifyOK(t, w)
			// The next command recovers.
			if err := w.Recover(); err != nil {
				t.Fatal(err)
			}
			isNew := checkFiles(t, root, old, new)
			if isNew[0] != isNew[1] {
				t.Fatalf("after recovery one file is new and the other old")
			}
			committed := false
			evs, _ := w.Events()
			for _, ev := range evs {
				committed = committed || ev.Kind == "commit" && ev.Proposal == p.ID
			}
			if committed != isNew[0] {
				t.Fatalf("ledger says committed=%v, files new=%v", committed, isNew[0])
			}
			wantNew := point != "prepared" && point != "temp-written"
			if isNew[0] != wantNew {
				t.Fatalf("killed at %s: files new=%v, want %v", point, isNew[0], wantNew)
			}
			verifyOK(t, w)
			noLeftovers(t, root)
			if !committed {
				// The interrupted commit can simply be retried.
				if _, err := w.Commit(p.ID, nil); err != nil {
					t.Fatal(err)
				}
				checkFiles(t, root, new, new)
			}
		})
	}
}

func TestCommitCrashRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root := copyExamples(t)
	w := open(t, root)
	without := map[string]string{}
	with := map[string]string{}
	for _, f := range crashFiles {
		without[f] = read(t, filepath.Join(root, f))
		with[f] = without[f] + marker
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	total := 0
	deadline := time.Now().Add(40 * time.Second)
	for run := 0; run < 8 && time.Now().Before(deadline); run++ {
		cmd := runChild(t, root)
		stdout, _ := cmd.StdoutPipe()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill after the first commit, at a random moment.
		if _, ok := <-lines; !ok {
			cmd.Wait()
			t.Fatalf("run %d: child made no commit: %s", run, stderr.String())
		}
		time.Sleep(time.Duration(rng.Intn(300)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		n := 1
		for range lines {
			n++
		}
		cmd.Wait()
		total += n
		checkFiles(t, root, without, with)
		verifyOK(t, w)
		if err := w.Recover(); err != nil {
			t.Fatalf("run %d: recover: %v", run, err)
		}
		isNew := checkFiles(t, root, without, with)
		if isNew[0] != isNew[1] {
			t.Fatalf("run %d: after recovery the files disagree", run)
		}
		// The files are what the last commit in the ledger wrote.
		evs, err := w.Events()
		if err != nil {
			t.Fatalf("run %d: events: %v", run, err)
		}
		for _, f := range crashFiles {
			last := ""
			for _, ev := range evs {
				for _, ef := range ev.Files {
					if ef.Path == f && ev.Kind == "commit" {
						last = ef.AfterSHA256
					}
				}
			}
			if got := propose.SHA256([]byte(read(t, filepath.Join(root, f)))); got != last {
				t.Fatalf("run %d: %s is %s, the ledger's last commit wrote %s", run, f, got, last)
			}
		}
		noLeftovers(t, root)
	}
	t.Logf("%d commits acknowledged across kills", total)
}
