package invoke

import (
	"context"
	"net"
	"net/http"
	"net/netip"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/protorest/protorest/internal/exchange"
)

// callContext derives the context an in-process method sees: the
// request's, with incoming metadata, the Grpc-Timeout deadline, the
// transport stream and the peer, and what the gateway's stats handler's
// TagRPC adds (then x.Sink reports to it).
func callContext(x *exchange.Exchange) (context.Context, context.CancelFunc, *Stream, error) {
	r := x.R
	md, err := x.Metadata()
	if err != nil {
		return nil, nil, nil, err
	}
	ctx := metadata.NewIncomingContext(x.Context(), md)
	ctx, cancel, err := x.WithTimeout(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	c := &methodContext{Context: ctx}
	if e := x.Match.Entry; e != nil {
		c.route = e.Value.Route
	}
	c.stream.Init(x.Binding.FullMethod)
	c.setPeer(r)
	if h := x.Env.Stats; h != nil {
		// The method's context is what TagRPC makes of c; its responses
		// and outcome go through c.stats to the exchange's sink.
		ctx = c.stats.start(c, h, x, md, c)
		x.Sink = &c.stats
		return ctx, cancel, &c.stream, nil
	}
	return c, cancel, &c.stream, nil
}

// observed returns the call's stats reporter, or nil when the gateway
// has no stats handler.
func observed(x *exchange.Exchange) *callStats {
	if s, ok := x.Sink.(*callStats); ok {
		return s
	}
	return nil
}

// methodContext carries a call's transport stream and peer, with them in
// one allocation: through context.WithValue it would be four (two
// contexts, the stream, the peer). grpc's context keys are unexported, so
// Value recognises them by asking keyProbe, a context that holds a
// sentinel under each: what it answers with a sentinel is that key.
type methodContext struct {
	context.Context
	stream Stream
	peer   peer.Peer
	tcp    net.TCPAddr
	ip     [16]byte
	route  *exchange.Route
	stats  callStats // used with a stats handler only
}

var (
	streamSentinel = new(Stream)
	peerSentinel   = new(peer.Peer)
	keyProbe       = peer.NewContext(NewContext(context.Background(), streamSentinel), peerSentinel)
)

// Value answers grpc's transport-stream and peer keys and the route's,
// and asks the parent for every other.
func (c *methodContext) Value(key any) any {
	if _, ok := key.(exchange.RouteKey); ok {
		if c.route == nil {
			return nil
		}
		return c.route
	}
	switch keyProbe.Value(key) {
	case any(streamSentinel):
		return &c.stream
	case any(peerSentinel):
		return &c.peer
	}
	return c.Context.Value(key)
}

// setPeer fills the peer from the request's remote and local addresses.
func (c *methodContext) setPeer(r *http.Request) {
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		ip := ap.Addr()
		if ip.Is4() {
			a := ip.As4()
			copy(c.ip[:], a[:])
			c.tcp.IP = c.ip[:4]
		} else {
			c.ip = ip.As16()
			c.tcp.IP = c.ip[:]
			c.tcp.Zone = ip.Zone()
		}
		c.tcp.Port = int(ap.Port())
		c.peer.Addr = &c.tcp
	} else {
		c.peer.Addr = stringAddr(r.RemoteAddr)
	}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		c.peer.LocalAddr = a
	}
}

// stringAddr is a remote address that is not host:port (a Unix socket, a
// test's made-up address).
type stringAddr string

func (a stringAddr) Network() string { return "unknown" }
func (a stringAddr) String() string  { return string(a) }
