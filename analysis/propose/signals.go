package propose

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sort"
	"strings"

	"github.com/capsulang/caps/syntax"
)

var (
	sigBacktick = regexp.MustCompile("`[^`]*`")
	sigQuoted   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	sigParen    = regexp.MustCompile(`\([^()]*\)`)
	sigNumber   = regexp.MustCompile(`\b\d+(?:\.\d+)?\b`)
	sigWord     = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_.:\-]*`)
)

// namedBy are words after which a message names a declaration or member.
var namedBy = map[string]bool{
	"function": true, "machine": true, "state": true, "event": true, "port": true,
	"agent": true, "store": true, "surface": true, "module": true, "capability": true,
	"gate": true, "profile": true, "effect": true, "type": true, "field": true,
	"tool": true, "skill": true, "principal": true, "contract": true, "budget": true,
	"mandate": true, "delegation": true, "collection": true, "action": true,
	"import": true, "example": true, "input": true, "variant": true, "enum": true,
}

// ErrorSignature normalizes a diagnostic to a signal that matches the
// same kind of problem elsewhere: "errsig:CODE:XXXXXXXX", the first 8 hex
// digits of the SHA-256 of the code and the message with names, quoted
// text, parenthesized forms and numbers replaced by placeholders. So
// "function f performs (db.write a) but does not declare it" and
// "function g performs (mcp.call p.t) but does not declare it" share a
// signature.
func ErrorSignature(code, message string) string {
	return "errsig:" + code + ":" + hex.EncodeToString(sigSum(code, NormalizeMessage(message)))[:8]
}

func sigSum(code, norm string) []byte {
	s := sha256.Sum256([]byte(code + "\x00" + norm))
	return s[:]
}

// NormalizeMessage is the message template behind ErrorSignature.
func NormalizeMessage(m string) string {
	m = sigBacktick.ReplaceAllString(m, "`_`")
	m = sigQuoted.ReplaceAllString(m, `"_"`)
	// Innermost groups first, until none is left; the placeholder has no
	// parentheses, so nested groups collapse into one.
	for {
		n := sigParen.ReplaceAllLiteralString(m, "\x01")
		if n == m {
			break
		}
		m = n
	}
	m = strings.ReplaceAll(m, "\x01", "(_)")
	m = sigNumber.ReplaceAllString(m, "N")
	words := sigWord.FindAllStringIndex(m, -1)
	var b strings.Builder
	last, prev := 0, ""
	for _, w := range words {
		word := m[w[0]:w[1]]
		b.WriteString(m[last:w[0]])
		last = w[1]
		switch {
		case namedBy[strings.ToLower(prev)], strings.ContainsAny(word, "._:"), hasUpperOrDigit(word) && word != "N":
			b.WriteString("_")
		default:
			b.WriteString(word)
		}
		prev = word
	}
	b.WriteString(m[last:])
	return b.String()
}

func hasUpperOrDigit(w string) bool {
	for _, c := range w {
		if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return true
		}
	}
	return false
}

// DiagnosticSignals returns the signals of diagnostics: each error and
// warning's code and its error signature, sorted and without repeats.
func DiagnosticSignals(ds []syntax.Diagnostic) []string {
	set := map[string]bool{}
	for _, d := range ds {
		if d.Severity != syntax.Error && d.Severity != syntax.Warning {
			continue
		}
		set[d.Code] = true
		set[ErrorSignature(d.Code, d.Message)] = true
	}
	return sortedKeys(set)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
