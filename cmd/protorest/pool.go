package main

import (
	"fmt"
	"strconv"

	"github.com/protorest/protorest"
)

// The defaults of the upstream pool: its connections, and the streams
// the upstream is taken to allow on each (RFC 9113 §6.5.2 recommends no
// fewer than 100; grpc-go servers are often set to 100).
const (
	defaultUpstreamConnections = 8
	defaultUpstreamMaxStreams  = 100
)

// streamShare is the share of the pool's streams a class of long calls
// (server, client and bidirectional streams, WebSockets, proxied gRPC
// calls) may hold by default: 1/8 each, so that the five at their caps
// leave 3/8 of the streams to unary calls.
const streamShare = 8

// classCaps are the flags of the most calls of each class at once;
// derived (-1) until set.
type classCaps struct {
	unary, serverStreams, clientStreams, bidiStreams, websockets, grpcProxy int
}

// derivedCaps are the caps' defaults: none without --upstream-max-streams.
func derivedCaps(conns, maxStreams int) classCaps {
	streams := conns * maxStreams
	long := max(streams/streamShare, 1)
	if streams <= 0 {
		long = 0
	}
	return classCaps{unary: streams, serverStreams: long, clientStreams: long, bidiStreams: long, websockets: long, grpcProxy: long}
}

// classCaps are the caps of the flags, the derived ones for those not
// given.
func (c *serveConfig) classCaps() classCaps {
	d := derivedCaps(c.upstreamConns, c.upstreamMaxStreams)
	or := func(n, def int) int {
		if n < 0 {
			return def
		}
		return n
	}
	return classCaps{
		unary:         or(c.caps.unary, d.unary),
		serverStreams: or(c.caps.serverStreams, d.serverStreams),
		clientStreams: or(c.caps.clientStreams, d.clientStreams),
		bidiStreams:   or(c.caps.bidiStreams, d.bidiStreams),
		websockets:    or(c.caps.websockets, d.websockets),
		grpcProxy:     or(c.caps.grpcProxy, d.grpcProxy),
	}
}

// concurrencyLimits are the gateway's caps.
func (k classCaps) concurrencyLimits() protorest.ConcurrencyLimits {
	return protorest.ConcurrencyLimits{Unary: k.unary, ServerStreams: k.serverStreams, ClientStreams: k.clientStreams,
		BidiStreams: k.bidiStreams, WebSockets: k.websockets, GRPCPassThrough: k.grpcProxy}
}

// poolSize is the pool of the flags.
func (c *serveConfig) poolSize() protorest.BackendPoolSize {
	return protorest.BackendPoolSize{Connections: c.upstreamConns, MaxStreams: c.upstreamMaxStreams}
}

// derivedDefault is --help's text of a cap's default: how it is derived,
// and its value with the other defaults.
func derivedDefault(unary bool) string {
	d := derivedCaps(defaultUpstreamConnections, defaultUpstreamMaxStreams)
	if unary {
		return fmt.Sprintf("--upstream-connections × --upstream-max-streams (here %d)", d.unary)
	}
	return fmt.Sprintf("1/%d of --upstream-connections × --upstream-max-streams (here %d)", streamShare, d.serverStreams)
}

// derivedCount is a count whose default is derived from other flags: -1
// until set, and never set negative.
type derivedCount struct{ p *int }

func (v derivedCount) String() string {
	if *v.p < 0 {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v derivedCount) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want 0 or more")
	}
	*v.p = n
	return nil
}
