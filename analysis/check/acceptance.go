package check

// This file is the engine's part of the acceptance policies' module-wide
// check: W_CLAIM_UNUSED_POLICY warns about a policy no machine's claim
// names. It reads only syntax (every machine's claims, the policies'
// names) and whether each policy's own check reported it malformed, which
// a declaration whose check is reused tells by its diagnostics: so the
// warnings are computed again over the new version after every edit,
// whichever declarations were checked again.

import (
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// unusedAcceptance appends the fast path's W_CLAIM_UNUSED_POLICY
// warnings to out: those of a full check of module nm, whose declarations
// fresh marks were checked again by ch (the others are the base's trees,
// their positions moved to where they now lie).
func (e *engineRun) unusedAcceptance(ch *checker, nm *ast.Module, fresh []bool, out []syntax.Diagnostic) []syntax.Diagnostic {
	if !e.acceptance {
		return out // no declaration can be an acceptance policy
	}
	k := len(ch.res.Diagnostics)
	ch.unusedAcceptanceOf(nm, func(i int, cd *ast.ClauseDecl) bool {
		if fresh[i] {
			return ch.badAcceptance[cd]
		}
		return len(e.old.info[e.align[i]].diags) > 0
	}, func(i int, sp syntax.Span) syntax.Span {
		return shift(sp, e.cur.decls[i].start-nm.Decls[i].Base().Form.Span().Start)
	})
	return append(out, ch.res.Diagnostics[k:]...)
}
