package nvim

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/capsulang/caps/editors/hosttest"
)

// TestNeovimScreen runs Neovim's normal full-screen UI in a tmux pane of
// 140x30, opens the fixture and reads the screen back until the
// diagnostic is drawn on it: the error sign in the sign column and the
// message as virtual text, both on the line of the mistake. One session;
// the screen is logged when the check fails.
func TestNeovimScreen(t *testing.T) {
	nvim := findNvim(t)
	tmux := hosttest.Tool(t, "TMUX_BIN", "Debian package tmux", "tmux")
	server := hosttest.Server(t)
	dir, file := hosttest.Workspace(t)
	plugin, _ := filepath.Abs(".")
	socket := fmt.Sprintf("caps-nvim-%d", os.Getpid())
	tm := func(args ...string) (string, error) {
		out, err := exec.Command(tmux, append([]string{"-L", socket}, args...)...).CombinedOutput()
		return string(out), err
	}
	env := []string{
		"CAPS_PLUGIN=" + plugin, "CAPS_SERVER=" + server, "CAPS=" + os.Getenv("CAPS"),
		"XDG_STATE_HOME=" + dir, "XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "TERM=xterm-256color",
	}
	var envArgs []string
	for _, e := range env {
		envArgs = append(envArgs, "-e", e)
	}
	shellCmd := fmt.Sprintf("exec %q -u %q -i NONE %q", nvim, filepath.Join(plugin, "test", "screen_init.lua"), file)
	args := append([]string{"-f", "/dev/null", "new-session", "-d", "-x", "140", "-y", "30", "-c", dir}, envArgs...)
	if out, err := tm(append(args, shellCmd)...); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { tm("kill-server") })

	// The line of the mistake as Neovim draws it: sign column, then the
	// text, then the virtual text.
	wantText := "(on Submit (target scord) (assign (score event.score))))"
	drawn := regexp.MustCompile(`^E\s+` + regexp.QuoteMeta(wantText) + `\s+■ ` + regexp.QuoteMeta(hosttest.DiagnosticMessage))
	var screen string
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := tm("capture-pane", "-p", "-t", "0")
		if err != nil {
			t.Fatalf("tmux capture-pane: %v\n%s", err, out)
		}
		screen = out
		if drawn.MatchString(lineWith(screen, wantText)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the screen does not show the diagnostic on the line of `scord` (an E sign, then %q as virtual text); the screen:\n%s", hosttest.DiagnosticMessage, screen)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The status line shows the file and the filetype came from the plugin.
	if _, err := tm("send-keys", "-t", "0", ":set filetype?", "Enter"); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for !strings.Contains(screen, "filetype=capsulang") {
		if time.Now().After(deadline) {
			t.Fatalf("`:set filetype?` does not print filetype=capsulang; the screen:\n%s", screen)
		}
		time.Sleep(100 * time.Millisecond)
		screen, _ = tm("capture-pane", "-p", "-t", "0")
	}
}

// lineWith returns the first screen line containing s, or "".
func lineWith(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
