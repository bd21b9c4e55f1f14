package protocols

import (
	"bytes"
	"context"
	"net/http"
	"runtime/debug"
	"strings"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/bufpool"
	"github.com/protorest/protorest/internal/classlimit"
	"github.com/protorest/protorest/internal/codec"
	"github.com/protorest/protorest/internal/exchange"
	"github.com/protorest/protorest/internal/framing"
	"github.com/protorest/protorest/internal/h1framing"
	"github.com/protorest/protorest/internal/negotiate"
	"github.com/protorest/protorest/internal/render"
	"github.com/protorest/protorest/internal/route"
	"github.com/protorest/protorest/internal/timeouts"
)

// A Server makes the handlers of a gateway's methods (Handler): it holds
// what they share.
type Server struct {
	env         *exchange.Env
	proto, json *negotiate.Format
	maxResponse int
}

// NewServer returns the server of the gateway whose requests read env,
// encoding JSON with json, the gateway's codec.
func NewServer(env *exchange.Env, json *codec.JSON) *Server {
	return &Server{
		env:   env,
		proto: &negotiate.Format{Media: codec.MediaProto, Codec: codec.Proto{}, Proto: true},
		json:  &negotiate.Format{Media: codec.MediaJSON, Codec: json, JSON: json},
	}
}

// A method serves one method's calls, whatever their protocol.
type method struct {
	s       *Server
	b       *exchange.Binding
	handler *connect.Handler
	routes  [GRPC + 1]route.Match[*exchange.Endpoint] // by protocol: what the call matched
}

var _ http.Handler = (*method)(nil)

// Handler returns the handler of ep's method, a canonical endpoint
// (plan.Canonical): it serves Connect, gRPC-Web and gRPC calls of every
// kind the method has, calling it through its binding's invoker. A
// call's Route (exchange.RouteKey, the Recorder's) is ep's with the
// call's Protocol.
func (s *Server) Handler(ep *exchange.Endpoint) http.Handler {
	b := ep.Binding
	m := &method{s: s, b: b}
	for p := Connect; p <= GRPC; p++ {
		rt := *ep.Route
		rt.Protocol = p.String()
		m.routes[p].Entry = &route.Entry[*exchange.Endpoint]{Value: &exchange.Endpoint{Pattern: ep.Pattern, Binding: b, Route: &rt}}
	}
	opts := s.options(b)
	name := b.FullMethod
	switch {
	case b.ClientStreams && b.ServerStreams:
		m.handler = connect.NewBidiStreamHandler(name, m.bidi, opts...)
	case b.ClientStreams:
		m.handler = connect.NewClientStreamHandler(name, m.clientStream, opts...)
	case b.ServerStreams:
		m.handler = connect.NewServerStreamHandler(name, m.serverStream, opts...)
	default:
		m.handler = connect.NewUnaryHandler(name, m.unary, opts...)
	}
	return m
}

// options are the connect-go options of b's handler: the codecs that
// keep messages as bytes, zstd beside gzip, the request limit (each
// message decompressed),
// GET for a method without side effects, and a report of the gateway's
// own panics.
func (s *Server) options(b *exchange.Binding) []connect.HandlerOption {
	opts := []connect.HandlerOption{
		connect.WithSchema(b.Method),
		connect.WithCodec(&messageCodec{name: "proto", format: s.proto}),
		connect.WithCodec(&messageCodec{name: "json", format: s.json}),
		connect.WithCodec(&messageCodec{name: "json; charset=utf-8", format: s.json}),
		connect.WithReadMaxBytes(s.env.MaxMessage()),
		withZstd(),
		connect.WithRecover(s.recovered),
	}
	if noSideEffects(b.Method) {
		opts = append(opts, connect.WithIdempotency(connect.IdempotencyNoSideEffects))
	}
	return opts
}

// Methods returns the HTTP methods the protocols call b's method with:
// POST, and GET for Connect when it has no side effects.
func Methods(b *exchange.Binding) []string {
	if noSideEffects(b.Method) {
		return []string{http.MethodPost, http.MethodGet}
	}
	return []string{http.MethodPost}
}

// noSideEffects reports whether md has idempotency_level NO_SIDE_EFFECTS,
// which lets Connect call it with GET.
func noSideEffects(md protoreflect.MethodDescriptor) bool {
	opts, ok := md.Options().(*descriptorpb.MethodOptions)
	return ok && opts.GetIdempotencyLevel() == descriptorpb.MethodOptions_NO_SIDE_EFFECTS
}

// recovered reports a panic in the gateway's own code on a call's way
// (a method's panic is the invoker's to recover) and fails the call.
func (s *Server) recovered(_ context.Context, spec connect.Spec, _ http.Header, v any) error {
	s.env.PanicHook(spec.Procedure, v, debug.Stack())
	return connect.NewError(connect.CodeInternal, errInternal)
}

// ServeHTTP serves a call of m's method: connect-go reads it, within the
// gateway's limits (limitBody), then the method's invoker makes it. A
// gRPC-Web text call is served as a binary one (asBinaryWeb).
func (m *method) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.serve(w, r, classlimit.Slot{})
}

// ServeInSlot serves a call with h, a Handler's, in slot, its place
// within its class's cap: the call's exchange gives it back once the
// method's call has ended (exchange.CallEnded), the handler at the
// latest.
func ServeInSlot(h http.Handler, w http.ResponseWriter, r *http.Request, slot classlimit.Slot) {
	m, ok := h.(*method)
	if !ok {
		defer slot.Release()
		h.ServeHTTP(w, r)
		return
	}
	m.serve(w, r, slot)
}

// serve is ServeHTTP in slot.
func (m *method) serve(w http.ResponseWriter, r *http.Request, slot classlimit.Slot) {
	// A bidirectional stream over HTTP/1.x is read in full duplex, below.
	duplex := m.b.ClientStreams && m.b.ServerStreams && r.ProtoMajor < 2
	c := &call{r: r, slot: slot}
	if c.unread.Init(w, r, duplex, m.s.env.ReadIdleTimeout) {
		defer c.unread.Finish()
		w = &c.unread
	}
	if strings.HasPrefix(mediaType(r.Header.Get("Content-Type")), webTextPrefix) {
		tw := asBinaryWeb(w, r)
		defer tw.Release()
		defer tw.Finish()
		w = tw
	}
	p, _ := Of(r)
	c.w, c.format, c.match = w, m.s.formatOf(r), &m.routes[p]
	var sw *statusWriter
	if rec, ok := exchange.RecorderFrom(r.Context()); ok {
		c.rec = rec
		if p != None {
			rec.Routed(c.match.Entry.Value.Route)
		}
		sw = &statusWriter{ResponseWriter: c.w}
		c.w = sw
	}
	m.s.limitBody(c, m.b.ClientStreams)
	defer c.end()
	c.Context = r.Context()
	req := r.WithContext(c)
	if duplex {
		// A bidirectional stream over HTTP/1.x is half-duplex at best: the
		// client sends its messages, then reads the answers. connect-go
		// refuses it (505); with full duplex on, net/http lets the method
		// answer while the body is still read, as it runs.
		http.NewResponseController(c.w).EnableFullDuplex()
		req.ProtoMajor, req.ProtoMinor = 2, 0
	}
	m.handler.ServeHTTP(c.w, req)
	if sw != nil && !c.called {
		c.rec.Ended(sw.refusedOutcome())
	}
}

// A call is what a method's connect-go handler needs of the request that
// connect-go does not pass on, and what is to be undone once it is over.
// It is the request's context too, which connect-go's derives from: the
// handler finds the call there (callKey) at no allocation of its own.
type call struct {
	context.Context // the request's
	w               http.ResponseWriter
	r               *http.Request
	rec             exchange.Recorder
	format          *negotiate.Format                // of the messages, both ways
	match           *route.Match[*exchange.Endpoint] // the route, with the call's protocol

	clock    *timeouts.ReadClock       // the request body's, or nil
	follower *framing.EnvelopeFollower // the request body's, or nil
	cost     budget.Hold               // of a unary response, held until it is written
	deadline render.WriteDeadline      // of its unary response, lifted at its end
	called   bool                      // the method's invoker was reached
	slot     classlimit.Slot           // its place within its class's cap, until its exchange takes it

	// In the call's allocation: the request body (limitBody) and its
	// envelopes' follower, what becomes of an HTTP/1.x body not read to
	// its end, and a call with one response keeps it here, encoded in
	// buf, and returns it in res (both pooled, given back by end, once
	// connect-go has written them).
	body      limitedBody
	envelopes framing.EnvelopeFollower
	unread    h1framing.Unread
	one       one
	out       outbound
	buf       *bytes.Buffer
	res       *connect.Response[outbound]
}

type callKey struct{}

// Value answers callKey with the call, and asks the request's context
// for every other key.
func (c *call) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return c
	}
	return c.Context.Value(key)
}

// end gives back what the call held: its slot, its response's cost and
// buffer, its write deadline, its request body's follower and clock.
func (c *call) end() {
	c.slot.Release()
	c.cost.Release()
	c.deadline.Lift()
	if c.follower != nil {
		c.follower.Stop()
	}
	if c.clock != nil {
		c.clock.Release()
		clocks.Put(c.clock)
	}
	if c.buf != nil {
		bufpool.KeepRoom(c.buf, cap(c.out.body))
		bufpool.Put(c.buf)
	}
	if c.res != nil {
		putResponse(c.res)
	}
}

// exchange returns a pooled exchange for the call whose context ctx
// (connect-go's, with the protocol's deadline) is, and the call.
func (m *method) exchange(ctx context.Context) (*exchange.Exchange, *call) {
	c := ctx.Value(callKey{}).(*call)
	c.called = true
	x := exchange.Get(m.s.env, c.w, c.r)
	x.SetContext(ctx)
	x.Binding, x.Recorder, x.RPC = m.b, c.rec, true
	x.Slot, c.slot = c.slot, classlimit.Slot{}
	x.Match = *c.match
	return x, c
}
