package main

import (
	"flag"
	"fmt"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/runtime/chain"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "ledger",
		Output:   func() cli.Schema { return cli.SchemaOf(ledgerJSON{}) },
		Effects:  cli.Effects{Reads: []string{"the workspace's evolution ledger (.caps/ledger)"}, Writes: nil},
		Example:  cli.Example{Line: "caps ledger verify --json"},
		Negative: cli.Example{Line: "caps ledger check --json", Exit: 2},
		Args:     "verify [--json]",
		Short:    "verify the workspace's evolution ledger",
		Long: `Ledger verify checks the hash chain of the workspace's evolution ledger
(.caps/ledger/evolution.jsonl, format in docs/ledger.md): every record's
hash, its link to the one before and the sequence numbers. It exits with 1
on a broken chain and names the first bad record. An incomplete last line
(a write in progress, or torn by a crash and removed by the next command
that writes) is reported but does not break the chain.

With --json it prints {"ok", "path", "records", "head": {"seq", "hash"},
"torn_bytes", "problem": {"line", "offset", "kind", "reason"}}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			ws := fs.String("workspace", "", "the workspace root `DIR`")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 || args[0] != "verify" {
					return c.UsageErrorf("expected: caps ledger verify")
				}
				w, code := openEvolution(c, *ws)
				if w == nil {
					return code
				}
				rep, err := w.VerifyLedger()
				if err != nil {
					c.Errorf("%v", err)
					return cli.ExitUsage
				}
				code = cli.ExitOK
				if !rep.OK {
					code = cli.ExitFail
				}
				if *jsonOut {
					printJSON(c, ledgerJSON{rep.OK, w.LedgerPath(), rep.Records, rep.Head, rep.TornBytes, rep.Problem})
					return code
				}
				if rep.OK {
					fmt.Fprintf(c.Stdout, "ok: %d record(s), head %d %s\n", rep.Records, rep.Head.Seq, rep.Head.Hash)
					if rep.TornBytes > 0 {
						fmt.Fprintf(c.Stdout, "note: an incomplete last record (%d bytes) will be removed by the next write\n", rep.TornBytes)
					}
					return code
				}
				fmt.Fprintf(c.Stdout, "broken: %s: %s (%d record(s) verify before it)\n", w.LedgerPath(), rep.Problem.Error(), rep.Records)
				return code
			}
		},
	})
}

// ledgerJSON is the JSON output of this command (see its Output schema).
type ledgerJSON struct {
	OK        bool           `json:"ok"`
	Path      string         `json:"path"`
	Records   int            `json:"records"`
	Head      chain.Head     `json:"head"`
	TornBytes int64          `json:"torn_bytes"`
	Problem   *chain.Problem `json:"problem"`
}
