package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
)

// MaxSourceSize is the largest source file the toolchain reads: 16 MiB,
// the import loader's limit, which the language server applies to
// documents too.
const MaxSourceSize = load.MaxFileSize

// StdinPath is the path argument that means standard input.
const StdinPath = "-"

// File is a loaded source file.
type File struct {
	// Path is the path as given on the command line ("-" for stdin).
	Path string
	// Text is the UTF-8 content without a leading byte order mark. Every
	// position the toolchain reports is relative to Text, as in an editor.
	Text []byte
	// BOM reports whether the file started with a UTF-8 byte order mark.
	BOM bool
	// Mode is the file's mode (0 for stdin).
	Mode fs.FileMode
}

// DisplayPath returns the path to show in messages: "<stdin>" for "-".
func DisplayPath(path string) string {
	if path == StdinPath {
		return "<stdin>"
	}
	return path
}

// LoadError is a source file that cannot be used; its message is one line,
// "PATH: what is wrong". Commands print it as "caps: PATH: ..." and exit 2.
type LoadError struct {
	Path string
	Msg  string
	Err  error // the underlying error, if any
}

func (e *LoadError) Error() string { return DisplayPath(e.Path) + ": " + e.Msg }
func (e *LoadError) Unwrap() error { return e.Err }

// LoadSource reads and checks a source file and returns its text without a
// BOM. See Load.
func LoadSource(path string) ([]byte, error) {
	f, err := Load(path)
	if err != nil {
		return nil, err
	}
	return f.Text, nil
}

// Load reads a source file and checks that it is something the toolchain
// can work on: an existing regular (or readable special) file, at most
// MaxSourceSize bytes, UTF-8 text without NUL bytes. A UTF-8 BOM is accepted
// and removed. Errors are *LoadError with a one-line message.
func Load(path string) (*File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, osError(path, err)
	}
	if info.IsDir() {
		return nil, &LoadError{Path: path, Msg: "is a directory, not a .caps file"}
	}
	if info.Mode().IsRegular() && info.Size() > MaxSourceSize {
		return nil, tooBig(path, info.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, osError(path, err)
	}
	defer f.Close()
	file, err := Read(path, f)
	if err != nil {
		return nil, err
	}
	file.Mode = info.Mode()
	return file, nil
}

// Read reads a source file from r (stdin, say) with the same checks as Load.
func Read(path string, r io.Reader) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSourceSize+1))
	if err != nil {
		return nil, osError(path, err)
	}
	if len(data) > MaxSourceSize {
		return nil, tooBig(path, -1)
	}
	return Check(path, data)
}

// Check validates data as source text: no NUL bytes, valid UTF-8, no
// UTF-16 byte order mark. It strips a UTF-8 BOM.
func Check(path string, data []byte) (*File, error) {
	if len(data) > MaxSourceSize {
		return nil, tooBig(path, int64(len(data)))
	}
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return nil, &LoadError{Path: path, Msg: "is UTF-16 text; Capsulang source files must be UTF-8"}
	}
	file := &File{Path: path, Text: data}
	if bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}) {
		file.Text, file.BOM = data[3:], true
	}
	text := file.Text
	if i := bytes.IndexByte(text, 0); i >= 0 {
		line, col := LineCol(text, i)
		return nil, &LoadError{Path: path, Msg: fmt.Sprintf("binary file, not Capsulang source (NUL byte at line %d, column %d)", line, col)}
	}
	if !utf8.Valid(text) {
		i := firstInvalid(text)
		line, col := LineCol(text, i)
		return nil, &LoadError{Path: path, Msg: fmt.Sprintf("not UTF-8 text (invalid byte at line %d, column %d)", line, col)}
	}
	return file, nil
}

// LineCol returns the 1-based line and 1-based column (in Unicode code
// points) of byte offset off in text: the convention of text output.
func LineCol(text []byte, off int) (line, col int) {
	p := syntax.NewMapper(text).Point(off)
	return p.Line, p.Column
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

func tooBig(path string, size int64) *LoadError {
	what := fmt.Sprintf("file is %.1f MB", float64(size)/(1<<20))
	if size < 0 {
		what = "input is larger than 16 MB"
	} else if what == "file is 16.0 MB" {
		what = "file is larger than 16 MB"
	}
	return &LoadError{Path: path, Msg: what + "; Capsulang source files are limited to 16 MB"}
}

func osError(path string, err error) *LoadError {
	var msg string
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg = "no such file"
	case errors.Is(err, fs.ErrPermission):
		msg = "permission denied"
	default:
		msg = err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error() // the path is already in front
		}
	}
	return &LoadError{Path: path, Msg: msg, Err: err}
}

// ExpandPaths turns the FILE and DIR arguments of a command that accepts
// directories into a list of files: a directory is walked for *.caps files
// (in lexical order, skipping hidden directories and node_modules); other
// arguments are kept as they are, so that Load reports what is wrong with
// them. A directory without .caps files, or one that cannot be walked, is
// an error; the other paths are still returned.
func ExpandPaths(args []string) ([]string, []*LoadError) {
	var paths []string
	var errs []*LoadError
	for _, arg := range args {
		info, err := os.Stat(arg)
		if arg == StdinPath || err != nil || !info.IsDir() {
			paths = append(paths, arg)
			continue
		}
		n := len(paths)
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != arg && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), ".caps") && !strings.HasPrefix(d.Name(), ".") {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				errs = append(errs, osError(pe.Path, pe.Err))
			} else {
				errs = append(errs, osError(arg, err))
			}
			continue
		}
		if len(paths) == n {
			errs = append(errs, &LoadError{Path: arg, Msg: "directory holds no .caps files"})
		}
	}
	return paths, errs
}

// WriteFileAtomic replaces the file at path with data: it writes a
// temporary file in the same directory, gives it mode perm, syncs it and
// renames it over path, so that readers see the old or the new content and
// never a half-written file. A symbolic link is followed and its target
// replaced, so the link stays a link.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return osError(path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return osError(path, err)
	}
	if err = tmp.Chmod(perm.Perm()); err != nil {
		return osError(path, err)
	}
	if err = tmp.Sync(); err != nil {
		return osError(path, err)
	}
	if err = tmp.Close(); err != nil {
		return osError(path, err)
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return osError(path, err)
	}
	return nil
}
