package main

import (
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/patterns"
)

// Skills: short, versioned guides that teach a coding agent Capsulang and
// the daily loop (spec §25, §26). Their command lists come from the
// command table and their workflow lists from the pattern library, so a
// skill never names a command or a pattern caps does not have
// (TestSkills checks it).

func init() {
	cli.Register(&cli.Command{
		Name:  "skills",
		Args:  "list [--json] | get NAME [--platform codex|claude|generic] [--full] [--json]",
		Short: "list and print the agent skills: short guides to Capsulang and the daily loop",
		Long: `Skills serves guides written for coding agents. 'caps skills list' names
them with their versions; 'caps skills get NAME' prints one as Markdown
(show is the same as get). The short form is the working loop; --full adds
the reference an agent needs to work alone: every command with its usage,
what it writes and an example, and the pattern library.

--platform says where the agent keeps skills and shapes the header: codex
(.agents/skills/NAME/SKILL.md, next to AGENTS.md), claude
(.claude/skills/NAME/SKILL.md, next to CLAUDE.md) or generic (no header;
the default). With --json the skill comes as {"name", "version", "title",
"summary", "platform", "path", "full", "content"}.

An unknown skill exits 1 and names the closest one (with --json also as
{"error", "did_you_mean", "skills"}).`,
		Output: func() cli.Schema {
			return cli.OneOf(cli.SchemaOf(skillListJSON{}), cli.SchemaOf(skillJSON{}), cli.SchemaOf(skillErrorJSON{}))
		},
		Effects:  cli.Effects{Reads: []string{"the skills, the command table and the pattern library (built in)"}},
		Example:  cli.Example{Line: "caps skills get capsulang-builder --platform codex --full --json"},
		Negative: cli.Example{Line: "caps skills get capsulang-bulder --json", Exit: 1, Note: "an unknown skill; the error names capsulang-builder"},
		Also:     []cli.Example{{Line: "caps skills list --json"}},
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			platform := fs.String("platform", "generic", "the agent's `platform`: codex, claude or generic")
			full := fs.Bool("full", false, "add the command reference and the pattern library")
			return func(c *cli.Context, args []string) int {
				if len(args) == 0 {
					return c.UsageErrorf("expected list or get NAME")
				}
				switch args[0] {
				case "list":
					if len(args) != 1 {
						return c.UsageErrorf("list takes no arguments")
					}
					return skillsList(c, *jsonOut)
				case "get", "show":
					if len(args) != 2 {
						return c.UsageErrorf("expected %s NAME", args[0])
					}
					if _, ok := skillPlatforms[*platform]; !ok {
						return c.UsageErrorf("unknown --platform %q: codex, claude or generic", *platform)
					}
					return skillsGet(c, args[1], *platform, *full, *jsonOut)
				}
				msg := fmt.Sprintf("unknown subcommand %q", args[0])
				msg += spell.DidYouMean(args[0], []string{"list", "get", "show"}, spell.Go)
				return c.UsageErrorf("%s", msg)
			}
		},
	})
}

// skill is one guide. Body is the short form in Markdown; Full adds the
// reference sections for --full.
type skill struct {
	Name, Version, Title, Summary string
	Body                          func() string
	Full                          func() string
}

// skillPlatforms maps each platform to where its agents keep a skill
// ("" for none) and the repository file that holds its instructions.
var skillPlatforms = map[string]struct{ dir, instructions string }{
	"codex":   {".agents/skills", "AGENTS.md"},
	"claude":  {".claude/skills", "CLAUDE.md"},
	"generic": {"", "AGENTS.md"},
}

type skillSummaryJSON struct {
	Name      string   `json:"name"`
	Version   string   `json:"version"`
	Title     string   `json:"title"`
	Summary   string   `json:"summary"`
	Platforms []string `json:"platforms"`
}

type skillListJSON struct {
	Skills []skillSummaryJSON `json:"skills"`
}

type skillJSON struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Title    string `json:"title"`
	Summary  string `json:"summary"`
	Platform string `json:"platform"`
	// Path is where the platform keeps the skill, relative to the
	// repository's root; "" for generic.
	Path    string `json:"path"`
	Full    bool   `json:"full"`
	Content string `json:"content"`
}

// skillErrorJSON is the --json answer to an unknown skill.
type skillErrorJSON struct {
	Error      string   `json:"error"`
	DidYouMean string   `json:"did_you_mean,omitempty"`
	Skills     []string `json:"skills"`
}

var skills = []*skill{
	{
		Name:    "capsulang-builder",
		Version: "1.0.0",
		Title:   "Build Capsulang workflows with caps",
		Summary: "start from a pattern, write a checked .caps module, and run the daily inspection loop with --json",
		Body:    builderBody,
		Full:    func() string { return commandReference() + patternReference() },
	},
	{
		Name:    "capsulang-cli",
		Version: "1.0.0",
		Title:   "Drive the caps command line as a tool",
		Summary: "the conventions of every caps command: --json, exit codes, stdin, schemas, the manifest",
		Body:    cliBody,
		Full:    commandReference,
	},
	{
		Name:    "capsulang-repair",
		Version: "1.0.0",
		Title:   "Fix diagnostics and change files through proposals",
		Summary: "read a diagnostic, pick a typed repair, and apply it through propose, assess and commit",
		Body:    repairBody,
		Full:    func() string { return commandReference() },
	},
}

func lookupSkill(name string) *skill {
	for _, s := range skills {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func skillsList(c *cli.Context, jsonOut bool) int {
	var platforms []string
	for p := range skillPlatforms {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	out := skillListJSON{Skills: []skillSummaryJSON{}}
	for _, s := range skills {
		out.Skills = append(out.Skills, skillSummaryJSON{s.Name, s.Version, s.Title, s.Summary, platforms})
	}
	if jsonOut {
		writeJSON(c, out)
		return cli.ExitOK
	}
	width := 0
	for _, s := range skills {
		width = max(width, len(s.Name))
	}
	var b strings.Builder
	for _, s := range skills {
		fmt.Fprintf(&b, "%-*s  %-6s  %s\n", width, s.Name, s.Version, s.Summary)
	}
	b.WriteString("Print one with: caps skills get NAME [--platform codex|claude] [--full]\n")
	c.Stdout.Write([]byte(b.String()))
	return cli.ExitOK
}

func skillsGet(c *cli.Context, name, platform string, full, jsonOut bool) int {
	s := lookupSkill(name)
	if s == nil {
		var names []string
		for _, s := range skills {
			names = append(names, s.Name)
		}
		msg := fmt.Sprintf("unknown skill %q", name)
		best := spell.Nearest(name, names)
		msg += spell.Hint(best, spell.Go)
		c.Errorf("%s (caps skills list names them: %s)", msg, strings.Join(names, ", "))
		if jsonOut {
			writeJSON(c, skillErrorJSON{Error: fmt.Sprintf("unknown skill %q", name), DidYouMean: best, Skills: names})
		}
		return cli.ExitFail
	}
	content := renderSkill(s, platform, full)
	if jsonOut {
		writeJSON(c, skillJSON{Name: s.Name, Version: s.Version, Title: s.Title, Summary: s.Summary, Platform: platform,
			Path: skillPath(s, platform), Full: full, Content: content})
		return cli.ExitOK
	}
	c.Stdout.Write([]byte(content))
	return cli.ExitOK
}

func skillPath(s *skill, platform string) string {
	if d := skillPlatforms[platform].dir; d != "" {
		return d + "/" + s.Name + "/SKILL.md"
	}
	return ""
}

// renderSkill is the skill's Markdown for a platform: codex and claude get
// the front matter their skill loaders read (name, description).
func renderSkill(s *skill, platform string, full bool) string {
	var b strings.Builder
	if platform != "generic" {
		fmt.Fprintf(&b, "---\nname: %s\ndescription: %s. Use it when working with .caps files or the caps command.\n---\n\n", s.Name, strings.ToUpper(s.Summary[:1])+s.Summary[1:])
	}
	fmt.Fprintf(&b, "# %s\n\n", s.Title)
	fmt.Fprintf(&b, "Skill %s %s, for caps %s. The project's own instructions are in %s.\n\n", s.Name, s.Version, version, skillPlatforms[platform].instructions)
	b.WriteString(s.Body())
	if full {
		b.WriteString(s.Full())
	}
	return b.String()
}

func builderBody() string {
	return `## The loop

1. Start from a pattern rather than a blank file: ` + "`caps patterns list --json`" + `,
   ` + "`caps patterns show NAME --json`" + `, then ` + "`caps new NAME --out FILE.caps`" + `.
2. Edit the module. Keep every effect declared: a function lists what it
   does in ` + "`(effects ...)`" + `, a transition in its ` + "`(effects ...)`" + ` clause.
3. Run the inspection loop, each with ` + "`--json`" + ` and one document on stdout:
   - ` + "`caps check --json FILE`" + ` (exit 1 lists diagnostics with codes and ranges);
   - ` + "`caps test --json FILE`" + ` (function examples and machine scenarios);
   - ` + "`caps agent-graph --json FILE`" + ` (states, transitions, effects);
   - ` + "`caps cost --json FILE`" + ` (effects by class, worst-case paths);
   - ` + "`caps repair-plan --json FILE`" + ` (typed fixes for each diagnostic);
   - ` + "`caps manifest --json FILE`" + ` (the module's operations and their schemas);
   - ` + "`caps release-preview --json FILE`" + ` (hash, checks, targets, verification).
4. Run a machine without side effects: ` + "`caps machine-run --json --mode dry-run FILE MACHINE EVENT`" + `.
5. Look a code up with ` + "`caps explain CODE`" + ` and format with ` + "`caps fmt -w FILE`" + `.

## The language in one screen

A module is one S-expression: ` + "`(module NAME (capsule \"1.0\") DECL...)`" + `.

- ` + "`(function NAME (input (x I64)) (output I64) (body EXPR) (example (NAME -7) 7))`" + `:
  a pure function with executable examples; ` + "`(requires ...)`" + ` and ` + "`(ensures ...)`" + `
  state its contract.
- ` + "`(machine NAME (context (f T)...) (event E (f T)...) (initial S) (state S (on E (target S2) (guard EXPR) (assign (f EXPR)) (effects (db.write store.coll)))))`" + `:
  a state machine; ` + "`(state done (type final))`" + ` ends it.
- ` + "`(store ...)`" + `, ` + "`(port ...)`" + `, ` + "`(agent ...)`" + ` and ` + "`(surface ...)`" + ` declare the targets
  that effects name; profiles (` + "`(profile persistence.surrealdb ui.a2ui)`" + `) enable them.
- Types: Bool, I32, I64, Int, U32, U64, Text, Json, Timestamp, Duration,
  records, enums, variants, (Option T), (Result T E), (List T), (Map K V).

Effects are intents: caps computes them, the host carries them out, and
only in live mode. Dry-run and mock modes never touch the outside world.
`
}

func cliBody() string {
	return `## Conventions

- Pass ` + "`--json`" + `: stdout then holds exactly one JSON document, and its
  shape is the command's output schema (` + "`caps manifest --json`" + ` lists
  them; agent/schemas in the repository holds them as files).
- Exit codes: 0 success, 1 the input has errors (diagnostics, failed
  tests, a refused change), 2 usage, I/O or internal error. Decide on the
  exit code, then read the JSON.
- Diagnostics carry a stable code (E_..., W_...), a severity and an LSP
  range (0-based lines, UTF-16 characters). ` + "`caps explain CODE --json`" + ` says
  what a code means and how to fix it.
- "-" as a FILE reads standard input; flags may come before or after the
  arguments; an unknown flag or command gets a did-you-mean.
- Commands that write files say so in their effects (` + "`--out`" + `, ` + "`--out-dir`" + `,
  the workspace's .caps folder); every other command only prints.
- ` + "`caps help COMMAND`" + ` prints a command's usage and flags; ` + "`caps doctor --json`" + `
  says which optional tools are missing and how to install them.
`
}

func repairBody() string {
	return `## From a diagnostic to a committed fix

1. ` + "`caps check --json FILE`" + `: each diagnostic has a code and a range.
2. ` + "`caps explain CODE --json`" + `: what the code means, an example and the fix.
3. ` + "`caps repair-plan --json FILE`" + `: typed repair options per diagnostic, each
   with its edits and a safety label (an option labelled expands-authority
   widens what the module may do: it needs a named approver).
4. Record the change without applying it:
   ` + "`caps propose --json --target FILE --repair CODE@LINE`" + ` (or ` + "`--candidate NEW.caps`" + `,
   ` + "`--patch DIFF`" + `, ` + "`--delta DELTA.json`" + `); it prints the proposal id.
5. ` + "`caps assess --json ID`" + `: checks, tests, the authority delta and a verdict.
6. ` + "`caps commit --json ID`" + ` applies it atomically (` + "`--approve NAME`" + ` when the
   verdict needs approval); ` + "`caps rollback EVENT_ID`" + ` undoes a commit, and
   ` + "`caps history`" + ` and ` + "`caps ledger verify`" + ` show and check the record.
`
}

// commandReference lists every command of the table: usage, summary, what
// it writes or runs, and its example.
func commandReference() string {
	var b strings.Builder
	b.WriteString("\n## Commands\n\n")
	for _, cmd := range cli.Commands() {
		fmt.Fprintf(&b, "- `%s`: %s", cmd.Usage(), cmd.Short)
		var eff []string
		if len(cmd.Effects.Writes) > 0 {
			eff = append(eff, "writes "+strings.Join(cmd.Effects.Writes, ", "))
		}
		if len(cmd.Effects.Runs) > 0 {
			eff = append(eff, "runs "+strings.Join(cmd.Effects.Runs, ", "))
		}
		if cmd.Effects.Network {
			eff = append(eff, "may use the network")
		}
		if len(eff) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(eff, "; "))
		}
		fmt.Fprintf(&b, ". Example: `%s`\n", cmd.Example.Line)
	}
	return b.String()
}

// patternReference lists the pattern library.
func patternReference() string {
	var b strings.Builder
	b.WriteString("\n## Patterns\n\n")
	for _, p := range patterns.All() {
		fmt.Fprintf(&b, "- `%s` (machine %s, starts with %s): %s\n", p.Name, p.Machine, p.StartEvent, p.Summary)
	}
	b.WriteString("\nStart one with `caps new NAME --out FILE.caps` and check it with `caps check --json FILE.caps`.\n")
	return b.String()
}

// The command list of AGENTS.md, generated from the command table between
// these markers (TestAgentsFile keeps it current).
const (
	agentsBegin = "<!-- BEGIN commands: generated from the command table by TestAgentsFile (go test ./cmd/caps -run TestAgentsFile -update); do not edit by hand -->"
	agentsEnd   = "<!-- END commands -->"
)

// agentsCommands is the table of AGENTS.md: each command, whether it
// prints JSON, and what it changes besides its output.
func agentsCommands() string {
	var b strings.Builder
	b.WriteString(agentsBegin + "\n\n")
	b.WriteString("| command | JSON | changes |\n|---|---|---|\n")
	for _, cmd := range cli.Commands() {
		js := "no"
		switch {
		case cmd.Output != nil && hasJSONFlag(cmd):
			js = "`--json`"
		case cmd.Output != nil:
			js = "always"
		}
		var ch []string
		ch = append(ch, cmd.Effects.Writes...)
		for _, r := range cmd.Effects.Runs {
			ch = append(ch, "runs "+r)
		}
		if cmd.Effects.Network {
			ch = append(ch, "network (live mode)")
		}
		changes := "nothing"
		if len(ch) > 0 {
			changes = strings.Join(ch, "; ")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", strings.ReplaceAll(cmd.Usage(), "|", `\|`), js, strings.ReplaceAll(changes, "|", `\|`))
	}
	b.WriteString("\n" + agentsEnd + "\n")
	return b.String()
}
