package main

import (
	"flag"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/runtime/replay"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "replay",
		Output:   func() cli.Schema { return cli.SchemaOf(replay.Report{}) },
		Effects:  cli.Effects{Reads: []string{"DIR (a machine ledger)", "the module it names (or --module FILE)"}, Writes: nil},
		Example:  cli.Example{Line: "caps replay --json build/ledger"},
		Negative: cli.Example{Line: "caps replay --json build/no-such-ledger", Exit: 2},
		Args:     "[--module FILE] [--trace] [--json] DIR",
		Short:    "verify a machine ledger by re-executing it",
		Long: `Replay verifies the machine ledger in DIR (written by caps machine-run
--ledger DIR). It checks the hash chain (a changed, dropped, inserted or
reordered record is tampering), loads the module the ledger names (or
--module FILE), re-executes the recorded inputs against it in the recorded
mode, feeding back the recorded effect outcomes instead of executing
anything, and compares every record it regenerates with the ledger's, byte
for byte: transitions and their effect intents, failed events, effect
results and snapshots (state and context). The semantic trace records are
covered by the hash chain; --trace also regenerates and compares them.

A ledger whose last step was being written when the process stopped (a
torn write) is repaired by removing the incomplete record; a step whose
records stop short is reported as a note, and everything before it still
verifies.

It prints "ok: ..." or what is wrong, first the difference of semantic
hashes when the module changed since the ledger was recorded, then the
tampered record, or the first record the replay does not regenerate (its
input, the member that differs, and both values). Exit 0 when the ledger
verifies, 1 when it is tampered with, does not replay or was recorded
with another module, 2 when it cannot be read or the module cannot be
loaded.

With --json it prints {"ok", "machine", "instance_id", "mode",
"module_path", "ledger_hash", "module_hash", "hash_changed", "records",
"verified", "inputs", "steps", "tamper", "mismatch", "incomplete",
"error", "state", "context"}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			module := fs.String("module", "", "replay against this module `FILE` instead of the one the ledger names")
			withTrace := fs.Bool("trace", false, "also regenerate and compare the trace records")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one DIR, got %d arguments", len(args))
				}
				rep := replay.Dir(args[0], replay.Options{Loader: newLoader(c), Module: *module, Trace: *withTrace})
				code := cli.ExitOK
				switch {
				case rep.Error != "" && rep.Tamper == nil && rep.Mismatch == nil:
					code = cli.ExitUsage
				case !rep.OK:
					code = cli.ExitFail
				}
				if *jsonOut {
					writeJSON(c, rep)
					return code
				}
				text := rep.Text()
				if rep.OK {
					c.Stdout.Write([]byte(text))
				} else {
					c.Stderr.Write([]byte(prefixLines(text, cli.Program+": "+args[0]+": ")))
				}
				return code
			}
		},
	})
}

// prefixLines puts prefix before the first line of text.
func prefixLines(text, prefix string) string {
	return prefix + text
}
