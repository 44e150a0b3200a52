package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SpecExamples are the example modules the specification walks through
// (its running ClaimReview, the change-approval workflow, improvement
// governance and the protocol-native MCP/A2A/A2UI module), as shipped in
// examples/. The authority example is not among them: an authority-policy
// governs every machine of its module, and its conditions read its own
// machine's context, so it cannot share a module with the others.
var SpecExamples = []string{
	"03_claim_review_machine.caps",
	"23_change_approval_workflow.caps",
	"improvement_governance.caps",
	"30_protocol_native_a2ui.caps",
}

// SpecTemplates reads SpecExamples from the examples directory dir.
func SpecTemplates(dir string) ([][]byte, error) {
	var out [][]byte
	for _, name := range SpecExamples {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("reading the spec's example modules: %w (pass the repository's examples directory)", err)
		}
		out = append(out, b)
	}
	return out, nil
}

// SpecShapedFrom is SpecShaped with the templates read from the examples
// directory dir (SpecTemplates).
func SpecShapedFrom(dir string, lines int) ([]byte, error) {
	ts, err := SpecTemplates(dir)
	if err != nil {
		return nil, err
	}
	return SpecShaped(lines, ts...)
}

// SpecShaped returns a module of about lines lines shaped like the spec's
// example modules: the declarations of the templates (stores, agents,
// ports, surfaces bound to machines, machines, functions, governance
// forms), copied in turn, each copy's declaration names suffixed with _N
// wherever they are written (store.collection, agent.skill and kind:Name
// references included), under one module header whose profile line lists
// every template's profiles. Comments and strings are copied as written.
func SpecShaped(lines int, templates ...[]byte) ([]byte, error) {
	type tmpl struct {
		body  string
		names map[string]bool
	}
	var ts []tmpl
	var profiles []string
	seen := map[string]bool{}
	for i, src := range templates {
		body, profs, names, err := splitTemplate(string(src))
		if err != nil {
			return nil, fmt.Errorf("template %d: %w", i+1, err)
		}
		for _, p := range profs {
			if !seen[p] {
				seen[p] = true
				profiles = append(profiles, p)
			}
		}
		ts = append(ts, tmpl{body, names})
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("no template modules")
	}
	var b strings.Builder
	fmt.Fprintf(&b, ";; A module shaped like the specification's examples, %d lines.\n(module bench.spec_shaped\n  (capsule \"0.7\")\n", lines)
	if len(profiles) > 0 {
		fmt.Fprintf(&b, "  (profile %s)\n", strings.Join(profiles, " "))
	}
	n := 3
	for copyN := 0; n < lines-1; copyN++ {
		t := ts[copyN%len(ts)]
		s := "\n" + rename(t.body, t.names, fmt.Sprintf("_%d", copyN)) + "\n"
		b.WriteString(s)
		n += strings.Count(s, "\n")
	}
	b.WriteString("  )\n")
	return []byte(b.String()), nil
}

// token is one lexeme of a template: a parenthesis, a symbol, a string or
// a comment, with the text before it.
type token struct {
	kind byte // '(' ')' 's' symbol, '"' string, ';' comment
	text string
	at   int
}

func lex(src string) []token {
	var out []token
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')':
			out = append(out, token{c, src[i : i+1], i})
			i++
		case c == ';':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			out = append(out, token{';', src[i : i+j], i})
			i += j
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			out = append(out, token{'"', src[i:j], i})
			i = j
		default:
			j := i
			for j < len(src) && !strings.ContainsRune(" \t\r\n()\";", rune(src[j])) {
				j++
			}
			out = append(out, token{'s', src[i:j], i})
			i = j
		}
	}
	return out
}

// splitTemplate returns a module's declarations as text (what follows its
// header clauses, before its closing parenthesis), its profiles and the
// names it declares.
func splitTemplate(src string) (body string, profiles []string, names map[string]bool, err error) {
	toks := lex(src)
	names = map[string]bool{}
	depth, start, end := 0, -1, -1
	inModule, header := false, false
	for k, t := range toks {
		switch t.kind {
		case '(':
			depth++
			if depth == 1 && !inModule && end < 0 && k+1 < len(toks) && toks[k+1].text == "module" {
				inModule = true
				start = -1
			}
			if depth == 2 && inModule && k+1 < len(toks) && toks[k+1].kind == 's' {
				switch head := toks[k+1].text; head {
				case "capsule", "import", "profile":
					header = true
					for j := k + 2; head == "profile" && j < len(toks) && toks[j].kind == 's'; j++ {
						profiles = append(profiles, toks[j].text)
					}
				default:
					if k+2 < len(toks) && toks[k+2].kind == 's' {
						names[toks[k+2].text] = true
					}
				}
			}
		case ')':
			depth--
			if depth == 1 && inModule && header {
				start, header = t.at+1, false // after the last header clause so far
			}
			if depth == 0 && inModule {
				end, inModule = t.at, false
			}
		}
	}
	if start < 0 || end < start {
		return "", nil, nil, fmt.Errorf("no (module NAME (capsule ...) DECL...) form")
	}
	return strings.TrimRight(strings.TrimLeft(src[start:end], "\n"), " \n"), profiles, names, nil
}

// rename suffixes every declared name written in src (a symbol or a part
// of one between '.' and ':') with suffix, outside strings and comments.
func rename(src string, names map[string]bool, suffix string) string {
	var b strings.Builder
	last := 0
	for _, t := range lex(src) {
		if t.kind != 's' {
			continue
		}
		b.WriteString(src[last:t.at])
		last = t.at + len(t.text)
		part := 0
		for i := 0; i <= len(t.text); i++ {
			if i == len(t.text) || t.text[i] == '.' || t.text[i] == ':' {
				p := t.text[part:i]
				b.WriteString(p)
				if names[p] {
					b.WriteString(suffix)
				}
				if i < len(t.text) {
					b.WriteByte(t.text[i])
				}
				part = i + 1
			}
		}
	}
	b.WriteString(src[last:])
	return b.String()
}
