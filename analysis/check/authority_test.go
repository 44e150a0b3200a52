package check

import (
	"testing"

	"github.com/capsulang/caps/analysis/cond"
)

// The condition codes are declared twice: here, where the codes tests find
// every checker code, and in package cond, which reports them.
func TestConditionCodesMatchCond(t *testing.T) {
	for _, c := range [][2]string{{ConditionSyntax, cond.CodeSyntax}, {ConditionUnknown, cond.CodeUnknown}, {ConditionType, cond.CodeType}} {
		if c[0] != c[1] {
			t.Errorf("check declares %s, cond reports %s", c[0], c[1])
		}
	}
}
