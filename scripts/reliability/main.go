// Command reliability runs the scenarios of scripts/reliability.sh against
// a running protorest serve and prints each one's figures as a Markdown
// table: the limits and their breaches, load and soak (through hey), an
// upstream kill, idle-connection and slow-body floods, and response
// amplification. Every figure is measured here or parsed from a tool's
// output; none is typed in.
//
// Usage:
//
//	reliability limits    -bin PROTOREST                 the limits table, each breach sent
//	reliability load      -hey HEY -pid PID -get URL …   hey windows; RSS and fds of PID
//	reliability outage    -hey HEY -pid PID -url URL …   SIGKILL the upstream, restart it, time the recovery
//	reliability idleflood -url URL -conns N              idle keep-alive connections, a client timed
//	reliability slowbody  -url URL -conns N              bodies sent a byte a second, a client timed
//	reliability amplify   -book URL -pid PID             one large book, read by many at once
//	reliability hostile                                  the hostile-input summary line (stdin) as a table
//	reliability attacks   -serve PROTOREST -scale full   issue 22's attacks, each on a serve of its own
//
// Run "reliability COMMAND -help" for a command's flags. It is Linux-only
// (it reads /proc) and talks to loopback addresses only.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// commands are the scenarios, by name.
var commands = map[string]func(ctx context.Context, args []string, stdout io.Writer) error{
	"limits":    runLimits,
	"load":      runLoad,
	"outage":    runOutage,
	"idleflood": runIdleFlood,
	"slowbody":  runSlowBody,
	"amplify":   runAmplify,
	"hostile":   runHostile,
	"attacks":   runAttacks,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: reliability limits|load|outage|idleflood|slowbody|amplify|hostile|attacks [flags]")
		os.Exit(2)
	}
	if err := commands[os.Args[1]](ctx, os.Args[2:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "reliability %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
