package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
)

// This file holds caps completion: shell completion scripts built from the
// command registry, so every command and flag is completed without a list
// to keep in step.

func init() {
	cli.Register(&cli.Command{
		Name:     "completion",
		Effects:  cli.Effects{Reads: nil, Writes: nil},
		Example:  cli.Example{Line: "caps completion bash"},
		Negative: cli.Example{Line: "caps completion tcsh", Exit: 2},
		Args:     "bash|zsh|fish",
		Short:    "print a shell completion script",
		Long: `Completion prints a script that completes caps commands, their flags and
file arguments in the given shell. Load it for this session, or install it:

    bash:  source <(caps completion bash)
           caps completion bash > ~/.local/share/bash-completion/completions/caps
    zsh:   caps completion zsh > "${fpath[1]}/_caps"     (then restart zsh)
    fish:  caps completion fish > ~/.config/fish/completions/caps.fish`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one shell: bash, zsh or fish")
				}
				switch args[0] {
				case "bash":
					bashCompletion(c.Stdout)
				case "zsh":
					zshCompletion(c.Stdout)
				case "fish":
					fishCompletion(c.Stdout)
				default:
					return c.UsageErrorf("unknown shell %q; expected bash, zsh or fish", args[0])
				}
				return cli.ExitOK
			}
		},
	})
}

// completionCommands are the visible commands, as caps help lists them.
func completionCommands() []*cli.Command {
	var out []*cli.Command
	for _, c := range cli.Commands() {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

func dashedFlag(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func bashCompletion(w io.Writer) {
	var names []string
	for _, c := range completionCommands() {
		names = append(names, c.Name)
	}
	fmt.Fprintf(w, `# bash completion for caps; load with: source <(caps completion bash)
_caps() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local commands=%q
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    return
  fi
  local flags= valued=
  case "${COMP_WORDS[1]}" in
`, strings.Join(names, " "))
	for _, c := range completionCommands() {
		var flags, valued []string
		for _, f := range cli.Flags(c) {
			flags = append(flags, dashedFlag(f.Name))
			if f.Arg != "" {
				valued = append(valued, dashedFlag(f.Name))
			}
		}
		fmt.Fprintf(w, "    %s) flags=%q; valued=%q ;;\n", c.Name, strings.Join(flags, " "), strings.Join(valued, " "))
	}
	fmt.Fprint(w, `  esac
  case "${COMP_WORDS[1]}" in
    help)
      [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "$commands" -- "$cur"))
      return ;;
    completion)
      [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))
      return ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    return
  fi
  # A flag's value, or a file argument: complete paths.
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -o bashdefault -F _caps caps
`)
}

// zshQuote makes text safe inside a single-quoted _arguments spec.
func zshQuote(s string) string {
	s = strings.NewReplacer("'", "", "[", "(", "]", ")", ":", " ", "\\", "").Replace(s)
	return s
}

func zshCompletion(w io.Writer) {
	fmt.Fprint(w, "#compdef caps\n# zsh completion for caps; install with: caps completion zsh > \"${fpath[1]}/_caps\"\n_caps() {\n  local -a commands\n  commands=(\n")
	for _, c := range completionCommands() {
		fmt.Fprintf(w, "    '%s:%s'\n", c.Name, zshQuote(c.Short))
	}
	fmt.Fprint(w, "  )\n  if (( CURRENT == 2 )); then\n    _describe -t commands 'caps command' commands\n    return\n  fi\n  case $words[2] in\n")
	fmt.Fprint(w, "    help) (( CURRENT == 3 )) && _describe -t commands 'caps command' commands ;;\n")
	fmt.Fprint(w, "    completion) (( CURRENT == 3 )) && compadd bash zsh fish ;;\n")
	for _, c := range completionCommands() {
		if c.Name == "help" || c.Name == "completion" {
			continue
		}
		fmt.Fprintf(w, "    %s)\n      _arguments -S", c.Name)
		for _, f := range cli.Flags(c) {
			spec := dashedFlag(f.Name) + "[" + zshQuote(f.Usage) + "]"
			if f.Arg != "" {
				spec += ":" + zshQuote(strings.ToLower(f.Arg)) + ":_files"
			}
			fmt.Fprintf(w, " \\\n        '%s'", spec)
		}
		fmt.Fprint(w, " \\\n        '*:file:_files' ;;\n")
	}
	fmt.Fprint(w, "  esac\n}\n_caps \"$@\"\n")
}

// fishQuote makes text safe inside a single-quoted fish string.
func fishQuote(s string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
}

func fishCompletion(w io.Writer) {
	fmt.Fprint(w, "# fish completion for caps; install with: caps completion fish > ~/.config/fish/completions/caps.fish\ncomplete -c caps -e\n")
	var names []string
	for _, c := range completionCommands() {
		names = append(names, c.Name)
	}
	all := strings.Join(names, " ")
	for _, c := range completionCommands() {
		fmt.Fprintf(w, "complete -c caps -f -n 'not __fish_seen_subcommand_from %s' -a %s -d '%s'\n", all, c.Name, fishQuote(c.Short))
	}
	fmt.Fprintf(w, "complete -c caps -f -n '__fish_seen_subcommand_from help' -a '%s'\n", all)
	fmt.Fprint(w, "complete -c caps -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	for _, c := range completionCommands() {
		if c.Name == "help" || c.Name == "completion" {
			continue
		}
		cond := "__fish_seen_subcommand_from " + c.Name
		for _, f := range cli.Flags(c) {
			opt := "-l " + f.Name
			if len(f.Name) == 1 {
				opt = "-s " + f.Name
			}
			req := ""
			if f.Arg != "" {
				req = " -r -F"
			}
			fmt.Fprintf(w, "complete -c caps -n '%s' %s%s -d '%s'\n", cond, opt, req, fishQuote(f.Usage))
		}
		fmt.Fprintf(w, "complete -c caps -n '%s' -F\n", cond)
	}
}
