package check

import (
	"sync/atomic"

	"github.com/capsulang/caps/syntax"
)

// messageRewriter, when set, rewrites the messages Check returns.
var messageRewriter atomic.Pointer[func(string) string]

// RewriteMessages makes Check pass the message of every diagnostic it
// returns, and of their related information, through f; it returns a
// function that restores the previous behaviour. It exists for tests:
// with every message rewritten to nonsense, repair plans and the
// language server's code actions must not change, because they read a
// diagnostic's code, span, Suggestion and Fix, never its wording.
func RewriteMessages(f func(string) string) (restore func()) {
	old := messageRewriter.Swap(&f)
	return func() { messageRewriter.Store(old) }
}

// rewriteMessages applies the rewriter set by RewriteMessages, if any.
func rewriteMessages(ds []syntax.Diagnostic) {
	p := messageRewriter.Load()
	if p == nil || *p == nil {
		return
	}
	f := *p
	for i := range ds {
		ds[i].Message = f(ds[i].Message)
		if len(ds[i].Related) > 0 {
			rel := append([]syntax.Related(nil), ds[i].Related...)
			for k := range rel {
				rel[k].Message = f(rel[k].Message)
			}
			ds[i].Related = rel
		}
	}
}
