// Package cli is the command framework of the caps binary.
//
// Each subcommand lives in its own file in cmd/caps and registers a Command
// from an init function. Run dispatches on the first argument, parses the
// command's flags with the standard flag package (flags may come before or
// after the positional arguments), prints help and usage errors in one
// consistent style, and turns a panic into a one-line internal error. The
// conventions it enforces are documented in docs/cli.md:
//
//   - exit 0 on success, 1 when the input has errors (diagnostics, a failed
//     check or test), 2 on a usage or I/O error;
//   - stdout carries the command's result (--json output included), stderr
//     carries diagnostics in text mode and every "caps: ..." error.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/capsulang/caps/internal/spell"
)

// Exit codes shared by every command.
const (
	ExitOK    = 0 // success
	ExitFail  = 1 // the input has errors: diagnostics, unformatted files, failed tests
	ExitUsage = 2 // usage error, I/O error or internal error
)

// Program is the name the binary calls itself in messages.
const Program = "caps"

// RunFunc runs a command once its flags are parsed; args are the positional
// arguments. It returns the exit code.
type RunFunc func(c *Context, args []string) int

// Command is one subcommand.
type Command struct {
	// Name is the word after "caps".
	Name string
	// Args is the synopsis after the name, e.g. "[--json] FILE".
	Args string
	// Short is a one-line summary, lower case, no final period.
	Short string
	// Long is the body of "caps help NAME": paragraphs separated by blank
	// lines. Flags are listed after it automatically.
	Long string
	// Flags declares the command's flags on fs and returns the function that
	// runs the command. It is called once per invocation (and once more to
	// list the flags in help), so flag variables live in its closure.
	Flags func(fs *flag.FlagSet) RunFunc
	// Hidden commands work but are not listed by "caps help".
	Hidden bool

	// The agent-facing description of the command (see table.go): the
	// manifest, the docs/cli.md reference and the skills are generated from
	// it, and the tests run its examples and validate their output.

	// Output is the JSON Schema (draft 2020-12) of what the command prints
	// on stdout with --json (or, for a command whose output is always
	// JSON, without it); nil when the command prints no JSON. It is a
	// function so that the schemas are only derived when asked for.
	Output func() Schema
	// Effects says what the command reads, writes and runs.
	Effects Effects
	// Example is a command line that succeeds on the repository's shipped
	// files; Negative is one that fails, with its exit code.
	Example  Example
	Negative Example
	// Also lists more command lines that the tests run and validate, for
	// the output shapes the two examples do not reach.
	Also []Example
}

// Usage returns the one-line usage, e.g. "caps parse [--json] FILE".
func (cmd *Command) Usage() string {
	if cmd.Args == "" {
		return Program + " " + cmd.Name
	}
	return Program + " " + cmd.Name + " " + cmd.Args
}

var registry = map[string]*Command{}

// Register adds a command. It panics on a duplicate or malformed command,
// which is a programming error caught by the tests.
func Register(cmd *Command) {
	if cmd.Name == "" || cmd.Flags == nil {
		panic("cli: command needs a Name and Flags")
	}
	if _, dup := registry[cmd.Name]; dup {
		panic("cli: command " + cmd.Name + " registered twice")
	}
	registry[cmd.Name] = cmd
}

// Lookup returns the named command, or nil.
func Lookup(name string) *Command { return registry[name] }

// Commands returns the visible commands sorted by name.
func Commands() []*Command {
	var cmds []*Command
	for _, c := range registry {
		if !c.Hidden {
			cmds = append(cmds, c)
		}
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds
}

// Context is what a running command gets: its standard streams and helpers
// that print in the shared style.
type Context struct {
	Command *Command
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
}

// Errorf prints "caps: MESSAGE" on stderr. Use it for I/O errors and other
// problems that are not diagnostics in the input; the caller decides the
// exit code (normally ExitUsage).
func (c *Context) Errorf(format string, args ...any) {
	fmt.Fprintf(c.Stderr, Program+": "+format+"\n", args...)
}

// UsageErrorf prints a usage error for the command and returns ExitUsage:
//
//	caps parse: expected one FILE, got 2
//	usage: caps parse [--json] FILE
//	Run 'caps help parse' for details.
func (c *Context) UsageErrorf(format string, args ...any) int {
	usageError(c.Stderr, c.Command, fmt.Sprintf(format, args...))
	return ExitUsage
}

func usageError(w io.Writer, cmd *Command, msg string) {
	fmt.Fprintf(w, "%s %s: %s\nusage: %s\nRun '%s help %s' for details.\n", Program, cmd.Name, msg, cmd.Usage(), Program, cmd.Name)
}

// Run runs the caps command line args (without the program name) and
// returns the exit code. It never panics: an internal panic is reported as
// "caps: internal error: ... (please report)" with exit code 2 (set
// CAPS_DEBUG=1 to also print the stack).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: internal error: %v (please report)\n", Program, r)
			if os.Getenv("CAPS_DEBUG") != "" {
				stderr.Write(debug.Stack())
			}
			code = ExitUsage
		}
	}()
	if len(args) == 0 {
		PrintMainUsage(stderr)
		return ExitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	cmd := registry[name]
	if cmd == nil {
		if strings.HasPrefix(name, "-") {
			fmt.Fprintf(stderr, "%s: unknown flag %s; flags go after the command, as in '%s parse --json FILE'\nRun '%s help' for a list of commands.\n", Program, name, Program, Program)
			return ExitUsage
		}
		msg := fmt.Sprintf("%s: unknown command %q", Program, name)
		msg += spell.Hint(Suggest(name), spell.Go)
		fmt.Fprintf(stderr, "%s\nRun '%s help' for a list of commands.\n", msg, Program)
		return ExitUsage
	}
	return RunCommand(cmd, rest, stdin, stdout, stderr)
}

// RunCommand parses the flags of cmd and runs it.
func RunCommand(cmd *Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet(cmd.Name)
	run := cmd.Flags(fs)
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		PrintCommandHelp(stdout, cmd)
		return ExitOK
	}
	if err != nil {
		usageError(stderr, cmd, flagError(fs, err))
		return ExitUsage
	}
	return run(&Context{Command: cmd, Stdin: stdin, Stdout: stdout, Stderr: stderr}, pos)
}

// flagError rewords the flag package's errors in the style of the help
// text, which spells long flags with two dashes.
// An unknown flag close to one of the command's gets a suggestion.
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg := "unknown flag " + dashed(name)
		if s := suggestFlag(fs, name); s != "" {
			msg += spell.Hint(dashed(s), spell.Bare)
		}
		return msg
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "flag " + dashed(name) + " needs an argument"
	}
	return msg
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(Program+" "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are printed by RunCommand
	fs.Usage = func() {}
	return fs
}

// parseInterspersed parses flags anywhere among the arguments, so that
// "caps check x.caps --json" works as well as "caps check --json x.caps".
// A "--" ends the flags; "-" alone is a positional argument (stdin).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// PrintMainUsage prints the overview that "caps help" shows.
func PrintMainUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("caps is the Capsulang toolchain.\n\nUsage:\n  caps <command> [arguments]\n\nCommands:\n")
	width := 0
	cmds := Commands()
	for _, c := range cmds {
		width = max(width, len(c.Name))
	}
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.Name, c.Short)
	}
	b.WriteString("\nRun 'caps help <command>' for the details of a command.\n")
	b.WriteString("Exit codes: 0 success, 1 the input has errors, 2 usage or I/O error.\n")
	io.WriteString(w, b.String())
}

// PrintCommandHelp prints the help of one command: usage, description,
// flags and the example of the command table.
func PrintCommandHelp(w io.Writer, cmd *Command) {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n", cmd.Usage())
	if long := strings.TrimSpace(cmd.Long); long != "" {
		b.WriteString("\n" + long + "\n")
	} else if cmd.Short != "" {
		b.WriteString("\n" + strings.ToUpper(cmd.Short[:1]) + cmd.Short[1:] + ".\n")
	}
	if flags := flagLines(cmd); len(flags) > 0 {
		b.WriteString("\nFlags:\n")
		width := 0
		for _, f := range flags {
			width = max(width, len(f[0]))
		}
		for _, f := range flags {
			fmt.Fprintf(&b, "  %-*s  %s\n", width, f[0], f[1])
		}
	}
	if cmd.Example.Line != "" {
		b.WriteString("\nExample:\n  " + cmd.Example.Line + "\n")
	}
	io.WriteString(w, b.String())
}

// flagLines lists a command's flags as (names, usage) pairs. Flags bound to
// the same variable are aliases and share a line: "-w, --write".
func flagLines(cmd *Command) [][2]string {
	fs := newFlagSet(cmd.Name)
	cmd.Flags(fs)
	type group struct {
		names []string
		usage string
		arg   string
	}
	var groups []*group
	byValue := map[any]*group{}
	fs.VisitAll(func(f *flag.Flag) {
		var key any = f.Name
		if v := reflect.ValueOf(f.Value); v.Kind() == reflect.Pointer {
			key = v.Pointer() // aliases share the variable behind the Value
		}
		g := byValue[key]
		if g == nil {
			g = &group{}
			byValue[key] = g
			groups = append(groups, g)
		}
		g.names = append(g.names, f.Name)
		if f.Usage != "" && g.usage == "" {
			g.arg, g.usage = flag.UnquoteUsage(f)
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			g.arg = ""
		}
	})
	var out [][2]string
	for _, g := range groups {
		sort.Slice(g.names, func(i, j int) bool { return len(g.names[i]) < len(g.names[j]) })
		var names []string
		for _, n := range g.names {
			names = append(names, dashed(n))
		}
		s := strings.Join(names, ", ")
		if g.arg != "" {
			s += " " + strings.ToUpper(g.arg)
		}
		out = append(out, [2]string{s, g.usage})
	}
	sort.Slice(out, func(i, j int) bool {
		return strings.TrimLeft(out[i][0], "-") < strings.TrimLeft(out[j][0], "-")
	})
	return out
}

// Suggest returns the visible command closest to name, or "" when none is
// close enough to be a likely typo (spell.NearestPrefix: a command name
// begins counts as one edit).
func Suggest(name string) string {
	var names []string
	for _, c := range Commands() {
		names = append(names, c.Name)
	}
	return spell.NearestPrefix(name, names)
}

// suggestFlag returns the long flag of fs closest to name, or "" when none
// is close enough to be a likely typo (as Suggest does for commands).
func suggestFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) > 1 {
			names = append(names, f.Name)
		}
	})
	return spell.NearestPrefix(name, names)
}

// Load loads a source file for the command (see the package function Load);
// the path "-" reads standard input. Every command reads its sources
// through Load, so bad input is reported the same way everywhere.
func (c *Context) Load(path string) (*File, error) {
	if path == StdinPath {
		if c.Stdin == nil {
			return Read(path, strings.NewReader(""))
		}
		return Read(path, c.Stdin)
	}
	return Load(path)
}

// LoadText is Load returning only the text: the form load.Loader.ReadFile
// takes, so that the checking commands read "-" from standard input too.
func (c *Context) LoadText(path string) ([]byte, error) {
	f, err := c.Load(path)
	if err != nil {
		return nil, err
	}
	return f.Text, nil
}

// FlagInfo describes one flag of a command, for shell completion.
type FlagInfo struct {
	Name  string // without dashes
	Usage string // the help text, with `quoted` argument names unquoted
	Arg   string // the argument's name; "" for a boolean flag
}

// Flags lists the flags of cmd in the order the flag package visits them
// (by name), one-letter aliases included.
func Flags(cmd *Command) []FlagInfo {
	fs := newFlagSet(cmd.Name)
	cmd.Flags(fs)
	var out []FlagInfo
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			arg = ""
		}
		out = append(out, FlagInfo{Name: f.Name, Usage: usage, Arg: arg})
	})
	return out
}
