package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLSPLogMessages runs caps lsp --log FILE, sends one message at a
// time and waits for its lines to be in the file before sending the next:
// every message read and written is logged as it happens, not when the
// server ends.
func TestLSPLogMessages(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "lsp.log")
	inR, inW := io.Pipe()
	var out, errb bytes.Buffer
	done := make(chan int)
	go func() { done <- run([]string{"lsp", "--log", logFile}, inR, &out, &errb) }()

	// "caps lsp: 15:04:05.000000 <- request initialize #1 (75 bytes)"
	lineRE := regexp.MustCompile(`^caps lsp: \d\d:\d\d:\d\d\.\d{6} (<-|->) (.*) \(\d+ bytes\)$`)
	logged := func() []string {
		b, _ := os.ReadFile(logFile)
		var got []string
		for _, l := range strings.Split(string(b), "\n") {
			if m := lineRE.FindStringSubmatch(l); m != nil {
				got = append(got, m[1]+" "+m[2])
			}
		}
		return got
	}
	send := func(body string, want ...string) {
		t.Helper()
		fmt.Fprintf(inW, "Content-Length: %d\r\n\r\n%s", len(body), body)
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := logged()
			if len(got) >= len(want) && cmp.Equal(want, got[len(got)-len(want):]) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("after %s the log ends in\n%s\nwant\n%s", body, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		"<- request initialize #1", "-> response #1")
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`, "<- notification initialized")
	send(`{"jsonrpc":"2.0","id":7,"method":"no/such"}`,
		"<- request no/such #7", "-> response #7 error -32601: method not supported: no/such")
	send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`, "<- request shutdown #2", "-> response #2")
	send(`{"jsonrpc":"2.0","method":"exit"}`, "<- notification exit")
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit %d, want 0; stderr %q", code, errb.String())
	}
	if errb.Len() != 0 {
		t.Errorf("stderr %q: with --log, nothing goes to stderr", errb.String())
	}
}

// TestLSPCPUProfile: caps lsp --cpuprofile FILE writes a CPU profile (a
// gzipped pprof protobuf) when the session ends; a FILE it cannot create
// is a usage error.
func TestLSPCPUProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	var in bytes.Buffer
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
	} {
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"lsp", "--cpuprofile", prof}, &in, &out, &errb); code != 0 {
		t.Fatalf("exit %d, want 0; stderr %q", code, errb.String())
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("%s is not a gzipped profile: % x", prof, b[:min(len(b), 8)])
	}

	errb.Reset()
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "cpu.prof")
	if code := run([]string{"lsp", "--cpuprofile", bad}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("exit %d for an unwritable profile, want 2; stderr %q", code, errb.String())
	}
	if !strings.Contains(errb.String(), bad) {
		t.Errorf("stderr %q does not name %s", errb.String(), bad)
	}
}
