package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestServeAuthoringUIRefuses covers the refusals of serve-authoring-ui:
// each exits at once with its code and message.
func TestServeAuthoringUIRefuses(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".caps"), 0o755)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := fmt.Sprint(busy.Addr().(*net.TCPAddr).Port)
	usage := "usage: caps serve-authoring-ui [--host 127.0.0.1] [--port 8123] [--workspace DIR] [--allow-remote]\nRun 'caps help serve-authoring-ui' for details.\n"
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"not loopback", []string{"--host", "0.0.0.0", "--port", "0"}, 2,
			"caps: refusing to serve on 0.0.0.0: it is not a loopback address, and the authoring UI has no authentication and writes to the workspace; use --host 127.0.0.1 (the default), or pass --allow-remote if you really mean it\n"},
		{"port in use", []string{"--port", port}, 1,
			"caps: cannot listen on 127.0.0.1:" + port + ": the port is already in use; stop the program that holds it or pick another with --port N (--port 0 picks a free one)\n"},
		{"bad port", []string{"--port", "-1"}, 2,
			"caps serve-authoring-ui: --port -1 is not a TCP port (0 to 65535; 0 picks a free one)\n" + usage},
		{"an argument", []string{"extra"}, 2,
			"caps serve-authoring-ui: takes no argument, got \"extra\"\n" + usage},
		{"no workspace", []string{"--workspace", filepath.Join(dir, "missing")}, 2,
			"caps: workspace " + filepath.Join(dir, "missing") + ": lstat " + filepath.Join(dir, "missing") + ": no such file or directory\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"serve-authoring-ui"}, tc.args...)
			if tc.name != "no workspace" {
				args = append(args, "--workspace", dir)
			}
			r := runCaps(t, "", args...)
			if r.code != tc.code || r.stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit %d and no output", r.code, r.stdout, tc.code)
			}
			if diff := cmp.Diff(tc.stderr, r.stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// TestServeAuthoringUI starts the server on a free port, reads the
// address it prints, fetches the page and the API, and stops it as an
// interrupt would: exit code 0.
func TestServeAuthoringUI(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".caps"), 0o755)
	ctx, stop := context.WithCancel(context.Background())
	saved := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, stop }
	defer func() { serveContext = saved }()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve-authoring-ui", "--port", "0", "--workspace", dir}, strings.NewReader(""), pw, &errb)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v (stderr %q)", err, errb.String())
	}
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`^serving the authoring UI of (.+) at (http://127\.0\.0\.1:\d+/)\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q", line)
	}
	if real, _ := filepath.EvalSymlinks(dir); m[1] != real {
		t.Errorf("workspace %q, want %q", m[1], real)
	}
	for path, want := range map[string]string{"": "<title>Capsulang authoring</title>", "api/workspace": `"sessions": []`} {
		resp, err := http.Get(m[2] + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("GET /%s: %d %.300q, want 200 with %q", path, resp.StatusCode, b, want)
		}
	}
	stop()
	select {
	case code := <-done:
		if code != 0 || errb.String() != "" {
			t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop")
	}
}
