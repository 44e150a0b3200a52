package codes

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/syntax"
)

// DocPath is where the generated reference lives, relative to the
// repository root.
const DocPath = "docs/diagnostics.md"

// Markdown renders the diagnostics reference (docs/diagnostics.md): an
// index, then one section per code whose anchor is Code.Anchor, grouped by
// severity.
func Markdown() []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("<!-- Code generated from analysis/codes/codes.json by `go test ./analysis/codes -run TestDiagnosticsDoc -update`. DO NOT EDIT. -->\n\n")
	p("# Diagnostic codes\n\n")
	p("Every diagnostic the Capsulang toolchain reports carries one of these stable codes.\n")
	p("Codes are never renamed; `caps explain CODE` prints the same text. Each entry has a\n")
	p("small module that produces the diagnostic and the corrected module, which checks clean.\n")
	p("Codes starting with `E_` are errors, `W_` warnings and `I_` information.\n\n")
	p("Most codes are reported by the checker (`caps check`, the language server). The codes\n")
	p("marked *runtime* are reported by the layer that runs function examples (`caps test`);\n")
	p("those marked *command* by a command about its arguments, on a module that checks clean;\n")
	p("those marked *verifier* by the Z3 solver, through the language server and `caps verify-report`.\n")
	p("The `E_CAPSULE_` and `W_CAPSULE_` codes are about Capsule contracts (`.capsule.yaml`, see capsule.md):\n")
	p("`caps capsule-check` reports them, and their examples are contracts.\n\n")
	p("Messages quote source text (names, literals, stray tokens) in pieces of at most %d\n", syntax.MaxQuoted)
	p("characters: a longer one is shown as its first %d and last %d characters around `%s`,\n", (syntax.MaxQuoted-1)/2, syntax.MaxQuoted-1-(syntax.MaxQuoted-1)/2, syntax.Ellipsis)
	p("so that a huge name or literal is never echoed in full. Names longer than %d characters\n", spell.MaxLen)
	p("get no \"did you mean\" suggestion.\n\n")
	p("A message's wording may change; what a tool can rely on is carried as data. With `--json`,\n")
	p("a diagnostic with a \"did you mean\" has the suggested name as `suggestion`, and one whose\n")
	p("repair the checker knows (a missing `)`, an effect to declare, a profile to add, a context\n")
	p("field to declare) has it as `fix` (see cli.md, JSON output). Repair plans and the language\n")
	p("server's quick fixes are built from these, never from the message.\n\n")

	groups := []struct{ severity, heading string }{
		{"error", "Errors"}, {"warning", "Warnings"}, {"info", "Information"},
	}
	p("| Code | Severity | Meaning |\n|---|---|---|\n")
	for _, g := range groups {
		for _, c := range bySeverity(g.severity) {
			p("| [`%s`](#%s) | %s | %s |\n", c.Code, c.Anchor(), c.Severity, c.Title)
		}
	}
	for _, g := range groups {
		cs := bySeverity(g.severity)
		if len(cs) == 0 {
			continue
		}
		p("\n## %s\n", g.heading)
		for _, c := range cs {
			p("\n<a id=\"%s\"></a>\n\n### %s\n\n", c.Anchor(), c.Code)
			reported := "reported by the checker"
			lang := "lisp"
			switch c.Source {
			case SourceRuntime:
				reported = "reported at runtime, when examples run"
			case SourceCommand:
				reported = "reported by `" + strings.Join(c.Command[:1], "") + "` (command)"
			case SourceCapsule:
				reported, lang = "reported by caps capsule-check", "yaml"
			case SourceVerifier:
				reported = "reported by the verifier, when Z3 refutes a proof obligation"
			}
			p("**%s** · %s · %s · since %s\n\n", c.Title, c.Severity, reported, c.Since)
			p("%s\n\n", c.Summary)
			p("Example:\n\n")
			codeBlock(&b, lang, c.Example)
			if len(c.Modules) > 0 {
				names := make([]string, 0, len(c.Modules))
				for n := range c.Modules {
					names = append(names, n)
				}
				sort.Strings(names)
				p("\nwith these modules on the import path:\n")
				for _, n := range names {
					p("\n`%s.caps`:\n\n", strings.ReplaceAll(n, ".", "/"))
					codeBlock(&b, "lisp", c.Modules[n])
				}
			}
			if len(c.Command) > 0 {
				p("\nsaved as `example.caps`, with:\n\n<!-- not run: example.caps is the module above, not a shipped file; cmd/caps TestCommandCodes runs it -->\n```sh\n%s\n```\n", ShellCommand(c.Command))
			}
			p("\nFix: %s\n\n", c.Fix)
			if len(c.FixedCommand) > 0 {
				p("<!-- not run: example.caps is the fixed module above, not a shipped file; cmd/caps TestCommandCodes runs it -->\n```sh\n%s\n```\n", ShellCommand(c.FixedCommand))
				continue
			}
			codeBlock(&b, lang, c.Fixed)
		}
	}
	return b.Bytes()
}

func bySeverity(sev string) []*Code {
	var out []*Code
	for _, c := range all {
		if c.Severity == sev {
			out = append(out, c)
		}
	}
	return out
}

func codeBlock(b *bytes.Buffer, lang, src string) {
	b.WriteString("```" + lang + "\n")
	b.WriteString(strings.TrimRight(src, "\n"))
	b.WriteString("\n```\n")
}
