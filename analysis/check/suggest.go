package check

import (
	"regexp"
	"strings"

	"github.com/capsulang/caps/syntax"
)

var suggestionRE = regexp.MustCompile("did you mean `([^`]+)`\\?")

// Suggestion returns the replacement a diagnostic suggests for its span
// (the name in "did you mean `x`?"), or "". Every did-you-mean message is
// built by didYouMean, so this is the one place that reads it back. A
// name clipped in the message (syntax.Clip) is not a replacement: "".
func Suggestion(d syntax.Diagnostic) string {
	if d.Suggestion != "" {
		return d.Suggestion
	}
	m := suggestionRE.FindStringSubmatch(d.Message)
	if m == nil || strings.Contains(m[1], syntax.Ellipsis) {
		return ""
	}
	return m[1]
}
