// Package emacs tests Capsulang's documented Emacs set-up (docs/editors.md:
// a major mode and eglot) in Emacs 30 against caps lsp.
package emacs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/capsulang/caps/editors/hosttest"
)

// elispBlock is the ```elisp block of docs/editors.md.
var elispBlock = regexp.MustCompile("(?s)```elisp\n(.*?)```")

// TestEmacsEglot loads the elisp block of docs/editors.md, as a reader
// puts it in an init file, opens the fixture and runs test/eglot-test.el:
// diagnostics through Flymake, hover, go to definition and a code action
// (the quick fix) applied. One Emacs session, in batch mode.
func TestEmacsEglot(t *testing.T) {
	emacs := hosttest.Tool(t, "EMACS", "Debian package emacs-nox from bookworm-backports (Emacs 30)", "emacs")
	if out, err := exec.Command(emacs, "--batch", "-Q", "--eval", `(princ (if (>= emacs-major-version 30) "ok" emacs-version))`).CombinedOutput(); err != nil || string(out) != "ok" {
		hosttest.Missing(t, "Emacs 30 or later is needed (eglot and Flymake as tested); found %s (%v)", out, err)
	}
	doc, err := os.ReadFile(filepath.Join(hosttest.Root(), "docs", "editors.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := elispBlock.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/editors.md has no ```elisp block")
	}
	dir, file := hosttest.Workspace(t)
	setup := filepath.Join(dir, "capsulang-setup.el")
	if err := os.WriteFile(setup, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	// The documented set-up runs "caps lsp" from PATH.
	bin := filepath.Join(t.TempDir(), "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.Symlink(hosttest.Server(t), filepath.Join(bin, "caps")); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs(filepath.Join("test", "eglot-test.el"))
	cmd := exec.Command(emacs, "--batch", "-Q", "-l", setup, "-l", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CAPS_EMACS_FILE="+file, "HOME="+dir)
	out, err := cmd.CombinedOutput()
	t.Logf("emacs:\n%s", out)
	if err != nil || !strings.Contains(string(out), " passed, 0 failed") {
		t.Fatalf("the Emacs eglot checks failed (%v)", err)
	}
}
