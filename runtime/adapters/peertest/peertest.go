// Package peertest starts the real protocol peers that the live adapter
// tests talk to on the loopback interface. It is for tests only: the
// adapters' own tests and the CLI's end-to-end live test share it.
package peertest

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// StartA2A starts the A2A test agent, node running script (the
// @a2a-js/sdk agent of runtime/adapters/testdata/a2a) in its own folder
// with the extra environment, waits for the "listening URL" line it
// prints, and returns that base URL. The agent stops when the test ends
// (stdin closed, killed after 5 s).
func StartA2A(t testing.TB, node, script string, env ...string) string {
	t.Helper()
	cmd := exec.Command(node, script)
	cmd.Dir = filepath.Dir(script)
	cmd.Env = append(os.Environ(), env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- l
		io.Copy(io.Discard, stdout)
	}()
	select {
	case l := <-line:
		base, ok := strings.CutPrefix(strings.TrimSpace(l), "listening ")
		if !ok {
			t.Fatalf("the A2A test agent did not start: %q %s", l, stderr.String())
		}
		return base
	case <-time.After(30 * time.Second):
		t.Fatalf("the A2A test agent did not start in 30s: %s", stderr.String())
	}
	return ""
}
