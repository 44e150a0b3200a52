package cli

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withRegistry runs f with only the given commands registered.
func withRegistry(t *testing.T, cmds ...*Command) {
	t.Helper()
	saved := registry
	registry = map[string]*Command{}
	t.Cleanup(func() { registry = saved })
	for _, c := range cmds {
		Register(c)
	}
}

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		args []string
		json bool
		out  string
		pos  []string
	}{
		{args: nil, pos: nil},
		{args: []string{"a", "b"}, pos: []string{"a", "b"}},
		{args: []string{"--json", "a"}, json: true, pos: []string{"a"}},
		{args: []string{"a", "--json"}, json: true, pos: []string{"a"}},
		{args: []string{"a", "-o", "x", "b"}, out: "x", pos: []string{"a", "b"}},
		{args: []string{"a", "--", "--json", "-o"}, pos: []string{"a", "--json", "-o"}},
		{args: []string{"-", "--json"}, json: true, pos: []string{"-"}},
		{args: []string{"--out=--", "a"}, out: "--", pos: []string{"a"}},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		j := fs.Bool("json", false, "")
		o := fs.String("o", "", "")
		fs.StringVar(o, "out", "", "")
		pos, err := parseInterspersed(fs, tt.args)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if *j != tt.json || *o != tt.out || !cmp.Equal(pos, tt.pos) {
			t.Errorf("%q: json=%v out=%q pos=%q", tt.args, *j, *o, pos)
		}
	}
}

func TestSuggest(t *testing.T) {
	noop := func(fs *flag.FlagSet) RunFunc { return func(*Context, []string) int { return 0 } }
	withRegistry(t,
		&Command{Name: "check", Flags: noop}, &Command{Name: "fmt", Flags: noop},
		&Command{Name: "explain", Flags: noop}, &Command{Name: "secret", Flags: noop, Hidden: true})
	for in, want := range map[string]string{
		"chek": "check", "chekc": "check", "fnt": "fmt", "fmtt": "fmt", "exp": "explain",
		"x": "", "format": "", "secrt": "", "zzzzzz": "",
	} {
		if got := Suggest(in); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommandHelp(t *testing.T) {
	cmd := &Command{
		Name:  "fmt",
		Args:  "[flags] FILE...",
		Short: "format files",
		Flags: func(fs *flag.FlagSet) RunFunc {
			w := fs.Bool("write", false, "rewrite the files in place")
			fs.BoolVar(w, "w", false, "")
			fs.Bool("check", false, "report files that are not formatted")
			fs.String("out", "", "write the result to `FILE`")
			fs.Int("n", 3, "how many")
			return func(*Context, []string) int { return 0 }
		},
	}
	var b bytes.Buffer
	PrintCommandHelp(&b, cmd)
	want := `usage: caps fmt [flags] FILE...

Format files.

Flags:
  --check      report files that are not formatted
  -n INT       how many
  --out FILE   write the result to FILE
  -w, --write  rewrite the files in place
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("help (-want +got):\n%s", diff)
	}
}

func TestRunDispatch(t *testing.T) {
	var got []string
	withRegistry(t, &Command{
		Name: "echo",
		Args: "[--upper] WORD...",
		Flags: func(fs *flag.FlagSet) RunFunc {
			upper := fs.Bool("upper", false, "shout")
			return func(c *Context, args []string) int {
				got = args
				if len(args) == 0 {
					return c.UsageErrorf("expected a WORD")
				}
				s := strings.Join(args, " ")
				if *upper {
					s = strings.ToUpper(s)
				}
				c.Stdout.Write([]byte(s + "\n"))
				return ExitOK
			}
		},
	})
	var out, errb bytes.Buffer
	if code := Run([]string{"echo", "a", "--upper", "b"}, nil, &out, &errb); code != 0 || out.String() != "A B\n" || errb.Len() != 0 {
		t.Errorf("code %d out %q err %q", code, out.String(), errb.String())
	}
	if !cmp.Equal(got, []string{"a", "b"}) {
		t.Errorf("args %q", got)
	}
	out.Reset()
	if code := Run([]string{"echo"}, nil, &out, &errb); code != 2 ||
		errb.String() != "caps echo: expected a WORD\nusage: caps echo [--upper] WORD...\nRun 'caps help echo' for details.\n" {
		t.Errorf("code %d err %q", code, errb.String())
	}
	errb.Reset()
	if code := Run([]string{"echo", "--upper=x", "a"}, nil, &out, &errb); code != 2 ||
		!strings.HasPrefix(errb.String(), "caps echo: invalid boolean value \"x\" for -upper") {
		t.Errorf("code %d err %q", code, errb.String())
	}
	errb.Reset()
	if code := Run([]string{"echo", "--out"}, nil, &out, &errb); code != 2 ||
		!strings.HasPrefix(errb.String(), "caps echo: unknown flag --out\n") {
		t.Errorf("code %d err %q", code, errb.String())
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	noop := func(fs *flag.FlagSet) RunFunc { return func(*Context, []string) int { return 0 } }
	withRegistry(t, &Command{Name: "a", Flags: noop})
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	Register(&Command{Name: "a", Flags: noop})
}

func TestUnknownFlagSuggestion(t *testing.T) {
	withRegistry(t, &Command{
		Name: "echo",
		Args: "[--json] [--upper] WORD...",
		Flags: func(fs *flag.FlagSet) RunFunc {
			fs.Bool("json", false, "print JSON")
			fs.Bool("upper", false, "shout")
			w := fs.Bool("write", false, "rewrite")
			fs.BoolVar(w, "w", false, "rewrite")
			return func(c *Context, args []string) int { return ExitOK }
		},
	})
	for _, tt := range []struct{ arg, want string }{
		{"--jsn", "caps echo: unknown flag --jsn; did you mean --json?\n"},
		{"-jsno", "caps echo: unknown flag --jsno; did you mean --json?\n"},
		{"--up", "caps echo: unknown flag --up; did you mean --upper?\n"},
		{"--wrte", "caps echo: unknown flag --wrte; did you mean --write?\n"},
		{"--x", "caps echo: unknown flag -x\n"},
		{"--verbose", "caps echo: unknown flag --verbose\n"},
	} {
		var out, errb bytes.Buffer
		code := Run([]string{"echo", tt.arg, "a"}, nil, &out, &errb)
		first, _, _ := strings.Cut(errb.String(), "\n")
		if code != ExitUsage || first+"\n" != tt.want {
			t.Errorf("%s: exit %d, stderr %q, want first line %q", tt.arg, code, errb.String(), tt.want)
		}
	}
}
