package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/capsulang/caps/analysis/propose"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/runtime/session/webui"
)

// caps serve-authoring-ui: the web authoring UI (runtime/session/webui).
// This file only parses flags, opens the listener and reports.

// serveContext is the context the server runs under until an interrupt;
// tests replace it to stop the server.
var serveContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func init() {
	cli.Register(&cli.Command{
		Name: "serve-authoring-ui",
		Effects: cli.Effects{Reads: []string{"the workspace (its .caps folder and module files)", "OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY"},
			Writes: []string{"the workspace .caps folder (sessions, proposals, the evolution ledger)", "the module files a commit changes"}, Network: true},
		Example:  cli.Example{Line: "caps serve-authoring-ui --port 0", Note: "serves on a free loopback port until interrupted (Ctrl-C), then exits 0"},
		Negative: cli.Example{Line: "caps serve-authoring-ui --host 0.0.0.0", Exit: 2, Note: "a host that is not loopback is refused without --allow-remote"},
		Args:     "[--host 127.0.0.1] [--port 8123] [--workspace DIR] [--allow-remote]",
		Short:    "serve the web authoring UI: describe, resolve, check, dry-run, render, propose, commit",
		Long: `Serve-authoring-ui serves a web page, embedded in the binary, for authoring
a module of the workspace through a session (docs/authoring.md): describe
it in words (the LLM bridge: OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY)
or paste an AuthoringDelta, see the delta's requirements, assumptions and
open holes, answer the holes, read the synthesized source with live
diagnostics, step its machines in dry-run mode on their state diagrams,
see its A2UI surfaces rendered, then propose, assess and commit with an
approval. A JSON API under /api/ backs every step.

It listens on --host (default 127.0.0.1) and --port (default 8123; 0 picks
a free port) and prints the address. The API has no authentication and
writes to the workspace, so a host that is not loopback is refused (exit
code 2) unless --allow-remote is given. A port already in use exits with
1. The server runs until interrupted (Ctrl-C).

The workspace is --workspace DIR, or else the nearest folder at or above
the current one that holds .caps/ or .git/.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			host := fs.String("host", "127.0.0.1", "the `HOST` to listen on")
			port := fs.Int("port", 8123, "the TCP `PORT` (0: a free one)")
			ws := fs.String("workspace", "", "the workspace root `DIR`")
			allowRemote := fs.Bool("allow-remote", false, "allow a host that is not loopback")
			return func(c *cli.Context, args []string) int {
				if len(args) != 0 {
					return c.UsageErrorf("takes no argument, got %q", args[0])
				}
				if *port < 0 || *port > 65535 {
					return c.UsageErrorf("--port %d is not a TCP port (0 to 65535; 0 picks a free one)", *port)
				}
				root := *ws
				if root == "" {
					wd, err := os.Getwd()
					if err == nil {
						root, err = propose.FindRoot(wd)
					}
					if err != nil {
						c.Errorf("%v", err)
						return cli.ExitUsage
					}
				}
				opts := evolutionOptions()
				srv, err := webui.New(webui.Config{Root: root, Evolution: opts})
				if err != nil {
					c.Errorf("%v", err)
					return cli.ExitUsage
				}
				l, err := webui.Listen(*host, *port, *allowRemote)
				if err != nil {
					c.Errorf("%v", err)
					var re *webui.RemoteError
					if errors.As(err, &re) {
						return cli.ExitUsage
					}
					return cli.ExitFail
				}
				if !webui.Loopback(*host) {
					c.Errorf("warning: serving on %s, which is not loopback: anyone who can reach it can change the workspace", *host)
				}
				fmt.Fprintf(c.Stdout, "serving the authoring UI of %s at http://%s/\npress Ctrl-C to stop\n", srv.Root(), l.Addr())
				ctx, stop := serveContext()
				defer stop()
				if err := webui.Serve(ctx, l, srv); err != nil {
					c.Errorf("%v", err)
					return cli.ExitFail
				}
				return cli.ExitOK
			}
		},
	})
}
