package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
)

// runAttacks runs the attacks of issue 22 against serve, each on a serve
// of its own with defaults, in front of an upstream of the helper's own
// (backend.go): a gzip bomb through the gRPC pass-through, HTTP/2 readers
// that never open their window (unary and streams), slow HTTP/1.1
// readers, 60 MiB upstream replies, JSON bodies that decode to 2,000,000
// values each, an upstream that allows 100 streams
// a connection with 100 of them held (pass-through, server, client and
// bidirectional streams, WebSockets) or 400 slow unary calls, and
// Content-Length with Transfer-Encoding. A row
// per attack: serve's RSS before, its peak during (VmHWM: the process is
// new), its RSS settle after the attack ended, a legitimate client's
// latency during it, and what the attack itself got.
func runAttacks(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("attacks", flag.ContinueOnError)
	bin := fs.String("serve", "protorest", "the protorest binary, or a command line ending with it (\"taskset -c 1 protorest\")")
	scale := fs.String("scale", "full", "full (the sizes of issue 22) or small (for CI)")
	settle := fs.Duration("settle", 60*time.Second, "how long after an attack its RSS is read")
	rssCap := fs.Int64("rss-cap", 6<<30, "serve's RSS, in bytes, at which an attack is stopped early (the machine is shared)")
	only := fs.String("only", "", "comma-separated attack names to run (default all)")
	listen := fs.String("listen", "127.0.0.1:0", "serve's --listen")
	upstreamAddr := fs.String("upstream-listen", "127.0.0.1:0", "the helper's upstream's address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sizes, ok := attackScales[*scale]
	if !ok {
		return fmt.Errorf("-scale: want full or small")
	}
	serveListen = *listen
	// The helper is the upstream too: the floods make it allocate as
	// fast as serve takes in; keep its heap to what it holds.
	debug.SetMemoryLimit(2 << 30)
	dir, err := os.MkdirTemp("", "reliability-attacks-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	proto, err := writeProto(dir)
	if err != nil {
		return err
	}
	encoding.RegisterCodec(codec{}) // before any gRPC server or client of this process
	zeros(largeReply)               // built before any attack, not while a legitimate client is timed
	t := newTable(stdout, "attack", "serve RSS before", "peak RSS", fmt.Sprintf("RSS %s after", *settle), "legitimate client during (GET /v1/ping every 20 ms)", "the attack got")
	for _, a := range attackList(sizes) {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), a.name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "attack %s\n", a.name)
		r, err := runAttack(ctx, a, *bin, proto, dir, *upstreamAddr, *settle, *rssCap)
		if err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
		t.Row(a.desc, mib(r.before), mib(r.peak), mib(r.after), r.legit.String(), r.got)
	}
	return nil
}

// An attack is one scenario: run attacks the serve at e until it is done
// or ctx ends (the RSS cap), and says what it got.
type attack struct {
	name, desc string
	upstream   []grpc.ServerOption // of the helper's upstream
	run        func(ctx context.Context, e *attackEnv) string
}

// attackEnv is what an attack runs against.
type attackEnv struct {
	serve    *serveProc
	upstream *backend
}

// attackResult is a row's figures.
type attackResult struct {
	before, peak, after int64 // KiB
	legit               legitStats
	got                 string
}

// runAttack starts an upstream and a serve for a, samples serve's RSS
// while a runs with a legitimate client alongside, and reads it again
// settle after.
func runAttack(ctx context.Context, a attack, bin, proto, dir, upstreamAddr string, settle time.Duration, rssCap int64) (attackResult, error) {
	var r attackResult
	up, err := startBackendOn(upstreamAddr, a.upstream...)
	if err != nil {
		return r, err
	}
	defer up.Stop()
	s, err := startServe(ctx, bin, "--upstream", up.addr, "--proto", proto, "--import-path", dir)
	if err != nil {
		return r, err
	}
	defer s.Stop()
	pid := s.cmd.Process.Pid
	time.Sleep(time.Second)
	st, err := readProc(pid)
	if err != nil {
		return r, err
	}
	r.before = st.rssKiB

	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	capped := watchRSS(actx, pid, rssCap/1024, cancel)
	legit := startLegit(actx, s.url("/v1/ping"))
	start := time.Now()
	r.got = a.run(actx, &attackEnv{serve: s, upstream: up})
	took := time.Since(start)
	r.legit = legit.stop()
	if capped.Load() {
		r.got += fmt.Sprintf("; stopped at the RSS cap (%s) after %s", mib(rssCap/1024), took.Round(100*time.Millisecond))
	}
	cancel()
	if st, err = readProc(pid); err != nil {
		return r, err
	}
	r.peak = st.hwmKiB
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return r, ctx.Err()
	}
	if st, err = readProc(pid); err != nil {
		return r, err
	}
	r.after = st.rssKiB
	return r, nil
}

// attackScales are the sizes of each scale.
var attackScales = map[string]attackSizes{
	"full":  {bombCalls: 20, bombBytes: 64 << 20, windowStreams: 10000, floodStreams: 2000, slowReaders: 1000, largeBatch: 20, decodeBodies: 10, held: 100, slowUnary: 400, framing: 1000, hold: 20 * time.Second},
	"small": {bombCalls: 20, bombBytes: 64 << 20, windowStreams: 200, floodStreams: 100, slowReaders: 100, largeBatch: 5, decodeBodies: 10, held: 100, slowUnary: 400, framing: 100, hold: 5 * time.Second},
}

// attackSizes are the sizes of one scale.
type attackSizes struct {
	bombCalls     int // gzip-bomb calls at once
	bombBytes     int // what each inflates to
	windowStreams int // zero-window streams, each a 58 KB unary response
	floodStreams  int // zero-window server streams
	slowReaders   int // slow HTTP/1.1 connections
	largeBatch    int // 60 MiB replies at once (after one alone)
	decodeBodies  int // decoding bombs at once
	held          int // streams the upstream allows, and that the attack holds
	slowUnary     int // slow unary calls held
	framing       int // CL+TE requests
	hold          time.Duration
}
