// Package grpcproxy forwards gRPC calls, unchanged, to an upstream
// connection, so that one HTTP/2 port serves REST and gRPC.
//
// The proxy is a grpc.Server whose unknown-service handler forwards every
// call, served through grpc.Server.ServeHTTP on net/http's own HTTP/2 (h2c
// or TLS). ServeHTTP is documented as experimental: besides internal/invoke
// this is the one package that uses such an API, and the grpc.Server does
// not leave it. Messages pass as opaque bytes: they are decoded
// into google.protobuf.Empty, which keeps every field as unknown bytes and
// writes them back exactly as they came, so no message type needs to be
// known and no experimental codec API is used.
//
// A call obeys the limits a REST call does, from the same settings (see
// Settings): each message's size, the read clocks of its request body,
// the stream idle timeout, the metadata's size and filtering, the
// deadlines, and the response budget and write timeout for what it holds
// toward its client.
package grpcproxy

import (
	"context"
	"math"
	"mime"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // accept gzip-compressed calls
	"google.golang.org/grpc/status"

	"github.com/protorest/protorest/internal/budget"
	"github.com/protorest/protorest/internal/classlimit"
	"github.com/protorest/protorest/internal/headers"
	"github.com/protorest/protorest/internal/httperr"
)

// Settings are the limits and the metadata policy a proxy obeys: a
// gateway's, the ones its REST calls obey.
type Settings struct {
	// MaxRecv bounds each message from the client, decompressed (grpc-go
	// checks the size a compressed message inflates to); MaxSend each
	// message to the client, and so each taken from the upstream. 0 is no
	// limit. Past them: RESOURCE_EXHAUSTED.
	MaxRecv, MaxSend int
	// ReadIdleTimeout bounds the wait for the bytes of a message in
	// progress, and its rate (timeouts.ReadClock); StreamIdleTimeout a
	// stream that passes no message either way (timeouts.IdleWatch). Each
	// ends the call with DEADLINE_EXCEEDED. 0 is none.
	ReadIdleTimeout, StreamIdleTimeout time.Duration
	// Headers filters the metadata forwarded (headers.Policy.GRPCMetadata)
	// and gives the deadline (Policy.WithTimeout). Nil is a Policy with
	// no limits.
	Headers *headers.Policy
	// Method says what is known of the method at a gRPC path
	// ("/pkg.Service/Method"); nil knows nothing (see MethodKind).
	Method func(path string) MethodKind
	// Failed, if not nil, is told the error of each call that fails,
	// grpc-go's cause included, with the call's context (the HTTP
	// request's, and what it holds).
	Failed func(context.Context, error)
	// Budget, if not nil, is the response budget each message to the
	// client takes from until it is written (see deliver); WriteTimeout
	// bounds the writing of each (0: none): past it the stream is reset.
	Budget       *budget.Budget
	WriteTimeout time.Duration
	// Limiter, if not nil, caps the calls in flight at once by its class
	// classlimit.GRPC: a call over the cap ends at once with UNAVAILABLE
	// (a Trailers-Only response), the upstream not called.
	Limiter *classlimit.Limiter
}

// A MethodKind is what is known of a method: whether it is known at
// all, and if it is, whether it streams either way.
//
// A call with one request message (unary or server streaming) has its
// request timed whole, as a REST body is, and reaches the upstream only
// once that message is whole: a request refused for its size, or never
// finished, does not call it. A unary call gets the default deadline. A
// stream, or a method whose kind is not known, gets no default deadline,
// the stream idle timeout watches it, and its messages are timed one at a
// time; the upstream is called at once.
type MethodKind struct {
	Known                        bool
	ClientStreams, ServerStreams bool
}

// New returns a handler that forwards every gRPC call it receives to
// conn, under s. Route only gRPC calls to it (see IsGRPC). A call that
// does not reach the upstream ends in UNAVAILABLE "upstream unavailable"
// (see remote.Unreachable), as a REST call does: grpc-go's message names
// addresses.
func New(conn grpc.ClientConnInterface, s Settings) http.Handler {
	if s.Headers == nil {
		s.Headers = new(headers.Policy)
	}
	p := &proxy{conn: conn, s: s}
	p.srv = grpc.NewServer(
		grpc.UnknownServiceHandler(p.handle),
		grpc.MaxRecvMsgSize(limit(s.MaxRecv)),
		grpc.MaxSendMsgSize(limit(s.MaxSend)),
	)
	if s.MaxSend > 0 {
		p.callOpts = []grpc.CallOption{grpc.MaxCallRecvMsgSize(s.MaxSend)}
	}
	return p
}

// limit is n as grpc-go's message size limit: 0 is none.
func limit(n int) int {
	if n <= 0 {
		return math.MaxInt32
	}
	return n
}

// proxy is the handler New returns.
type proxy struct {
	conn     grpc.ClientConnInterface
	s        Settings
	srv      *grpc.Server
	callOpts []grpc.CallOption
}

// ServeHTTP serves r through the grpc.Server, its body read through the
// call's clocks, and what the call needs from r in its context.
func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if l := p.s.Limiter; l != nil {
		if err := l.Acquire(classlimit.GRPC); err != nil {
			httperr.WriteGRPCStatus(w, "application/grpc", status.Convert(err))
			return
		}
		defer l.Release(classlimit.GRPC)
	}
	c := p.newCall(w, r)
	defer c.body.Close()
	p.srv.ServeHTTP(&c.out, r.WithContext(context.WithValue(r.Context(), callKey{}, c)))
	c.out.endTrailers()
}

// handle is the unknown-service handler: it forwards the call and
// reports its failure.
func (p *proxy) handle(_ any, ss grpc.ServerStream) error {
	err := p.forward(ss)
	if err != nil && p.s.Failed != nil {
		p.s.Failed(ss.Context(), err)
	}
	return err
}

// IsGRPC reports whether r is a gRPC call (not gRPC-Web): HTTP/2 with a
// content type of application/grpc or application/grpc+codec.
func IsGRPC(r *http.Request) bool {
	if r.ProtoMajor != 2 {
		return false
	}
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && (ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+"))
}
