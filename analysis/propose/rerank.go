package propose

import (
	"fmt"
	"sort"

	"github.com/capsulang/caps/analysis/repair"
)

// SolutionStat is the ledger's record of one repair option applied for
// one signal: how often it was committed, rolled back, and its success
// streak (commits kept since the last rollback, counting back from the
// latest).
type SolutionStat struct {
	Signal    string `json:"signal"`
	Option    string `json:"option"`
	AssetID   string `json:"asset_id"`
	Commits   int    `json:"commits"`
	Rollbacks int    `json:"rollbacks"`
	Streak    int    `json:"success_streak"`
	LastEvent string `json:"last_event"`
}

// SolutionKey is the key of a SolutionStat: signal and option id.
func SolutionKey(signal, option string) string { return signal + "\x00" + option }

// Rerank reorders the options of each plan by what the ledger learned: an
// option committed and kept for the diagnostic's error signature (a
// success streak of at least 1) moves first, longer streaks before
// shorter, and its Why says so. Other options keep their order. stats is
// keyed by SolutionKey; plans are modified in place and returned.
func Rerank(plans []repair.Plan, stats map[string]SolutionStat) []repair.Plan {
	if len(stats) == 0 {
		return plans
	}
	for pi := range plans {
		pl := &plans[pi]
		sig := ErrorSignature(pl.Diagnostic.Code, pl.Diagnostic.Message)
		learned := false
		for oi := range pl.Options {
			o := &pl.Options[oi]
			st, ok := stats[SolutionKey(sig, o.ID)]
			if !ok || st.Streak < 1 {
				continue
			}
			learned = true
			o.Rank = -st.Streak
			o.Why = fmt.Sprintf("ranked first: committed and kept %d time(s) in a row for this signal (%s; %d commit(s), %d rollback(s), last %s)",
				st.Streak, sig, st.Commits, st.Rollbacks, st.LastEvent)
		}
		if learned {
			sort.SliceStable(pl.Options, func(i, j int) bool { return pl.Options[i].Rank < pl.Options[j].Rank })
		}
	}
	return plans
}
