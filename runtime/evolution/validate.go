package evolution

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/capsulang/caps/analysis/propose"
)

// Limits of the staged copy that validation commands run in.
const (
	maxStageFiles = 20000
	maxStageBytes = 512 << 20
	maxOutput     = 16 << 10
)

// validate runs validation commands, without a shell, in a temporary copy
// of the workspace where the candidate files replace the live ones. The
// copy leaves out .git, .caps, node_modules, build and other hidden
// folders, and symbolic links. Each command runs with the copy's root as
// its working folder and its own time limit.
func (w *Workspace) validate(ws *propose.Workspace, overlay map[string][]byte, cmds []propose.Command) []propose.CommandResult {
	var out []propose.CommandResult
	stage, err := os.MkdirTemp("", "caps-validate-")
	if err == nil {
		defer os.RemoveAll(stage)
		err = stageCopy(ws.Root, stage, overlay)
	}
	if err != nil {
		for _, c := range cmds {
			out = append(out, propose.CommandResult{Name: c.Name, Argv: c.Argv, ExitCode: -1, Error: "cannot stage the candidate: " + err.Error()})
		}
		return out
	}
	for _, c := range cmds {
		out = append(out, w.run(stage, c))
	}
	return out
}

func (w *Workspace) run(dir string, c propose.Command) propose.CommandResult {
	r := propose.CommandResult{Name: c.Name, Argv: c.Argv, ExitCode: -1}
	prog := c.Argv[0]
	path := ""
	if prog == "caps" && w.opts.CapsPath != "" {
		path = w.opts.CapsPath
	} else {
		p, err := exec.LookPath(prog)
		if err != nil {
			r.Error = fmt.Sprintf("program %s not found: %v", prog, err)
			return r
		}
		path = p
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = propose.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, c.Argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = nil
	var stdout, stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r.DurationMS = time.Since(start).Milliseconds()
	r.Stdout, r.Stderr = stdout.String(), stderr.String()
	if cmd.ProcessState != nil {
		r.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		r.Error = fmt.Sprintf("timed out after %s", timeout)
	case err != nil && r.ExitCode <= 0:
		r.Error = err.Error()
	}
	r.OK = err == nil && r.ExitCode == 0
	return r
}

// limitedBuffer keeps the first maxOutput bytes written to it.
type limitedBuffer struct {
	b       bytes.Buffer
	dropped bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxOutput - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	if l.b.Len() >= maxOutput {
		l.dropped = true
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	if l.dropped {
		return l.b.String() + "\n[output truncated]"
	}
	return l.b.String()
}

// stageCopy copies the workspace into dst and writes the overlay files.
func stageCopy(root, dst string, overlay map[string][]byte) error {
	files, total := 0, int64(0)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "build") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		files++
		if files > maxStageFiles {
			return errors.New("the workspace has too many files to stage")
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		outf, err := os.Create(filepath.Join(dst, rel))
		if err != nil {
			return err
		}
		n, err := io.Copy(outf, in)
		total += n
		if cerr := outf.Close(); err == nil {
			err = cerr
		}
		if total > maxStageBytes {
			return errors.New("the workspace is too large to stage")
		}
		return err
	})
	if err != nil {
		return err
	}
	for rel, b := range overlay {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
